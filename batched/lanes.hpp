// Internal: the lane-per-system kernels of the batched solvers (issue 16). On the CPU
// the paper's "SIMD" organization -- one work-item per system, all systems in lock
// step -- is one vector lane per system: a block of W systems (16 in single, 8 in
// double precision with AVX-512; 8 and 4 with AVX2; 1 for the portable code) is
// transposed on the fly from the system-major Batch into an interleaved workspace,
// where vector v of an entry holds that entry of every system of the block (lane l:
// system l), and each operation of the per-system algorithm is one vector operation.
//
// BIT IDENTITY. Per lane, the kernels perform exactly the scalar reference's
// operations on exactly the same operands in the same order (LDL^T: the FLAME
// variants of variants/ldlt.hpp and ldlt_solve; each loop below says which), and
// vector addition, multiplication and division are IEEE operations lane by lane. The
// translation units are compiled with -ffp-contract=off (CMakeLists.txt), so no
// multiply-add is fused where the scalar code rounds twice. The results therefore do
// not depend on the instruction set, the lane a system lands in, the other systems
// of its block, the batch size or the thread count. (A build that lets the compiler
// contract the scalar reference -- -march with FMA and the default -ffp-contract=fast
// for the variants -- breaks this, and the tests say so.)
//
// PER-LANE TROUBLE. Every lane runs every operation; a system whose input holds a NaN
// or an infinity, or whose pivot breaks down, simply computes garbage in its own lane
// (no floating-point trap is enabled) while its outcome is recorded: kInvalid, or the
// 1-based column of its first bad pivot (the column where the scalar variant stops).
// The lanes of a partial block beyond `count` hold the identity and y = 0.
//
// THE INSTRUCTION SET is chosen once at run time: the widest the CPU has
// (__builtin_cpu_supports), or FLAMEX_BATCH_ISA=avx512|avx2|scalar, or set_isa()
// (the tests force each path in turn). The scalar path is the same code at W = 1:
// the per-system code without the FLAME skeleton, which at these orders cost more
// than the arithmetic (issue 16, item 4).
#pragma once

#include <cstddef>
#include <cstdint>

#include "batched/batched.hpp"

namespace flamex::batched {
template <class T>
struct DcWork;
}

namespace flamex::batched::lanes {

enum class Isa : int { Scalar = 0, Avx2 = 1, Avx512 = 2 };
const char* isa_name(Isa isa); // "scalar", "avx2", "avx512"
bool isa_supported(Isa isa);
Isa active_isa();
// Forces an instruction set (tests, benchmarks); throws flamex::Error when the CPU
// lacks it. Not to be called while a solve runs.
void set_isa(Isa isa);

// Systems per block: 1, 32 / sizeof(T) (AVX2) or 64 / sizeof(T) (AVX-512).
template <class T>
constexpr int lane_count(Isa isa)
{
    return isa == Isa::Avx512 ? 64 / static_cast<int>(sizeof(T)) : isa == Isa::Avx2 ? 32 / static_cast<int>(sizeof(T)) : 1;
}
inline constexpr int kMaxLanes = 16;

// The interleaved workspace: the lower triangle of A packed by columns (entry (i, j),
// i >= j, is vector packed_index(n, i, j)), then y (n vectors), then (householder-pcr)
// d, e, tau, w (n each) and PCR's 6n, then a copy of A and y for the residuals, each
// vector W scalars, 64-byte aligned.
// (packed_index, packed_size: batched/batched.hpp, the interleaved layout's order.)
template <class T>
constexpr std::size_t workspace_scalars(int n)
{
    return static_cast<std::size_t>(2 * packed_size(n) + 12 * n) * kMaxLanes + 64 / sizeof(T);
}

// A system's outcome: solved, invalid input (a NaN or infinity in the lower triangle
// of A or in y), or (> 0) the 1-based column of its LDL^T breakdown.
inline constexpr std::int32_t kSolved = 0;
inline constexpr std::int32_t kInvalid = -1;

// One block: systems k = 0 .. count-1 (count <= lane_count) of a system-major batch
// (stride 0: A at A + k n^2, y at y + k n) or of the interleaved layout (stride: the
// layout's systems per block, a multiple of the lane count; entry e of the packed
// lower triangle of system k at A[e stride + k], y_i at y[i stride + k]); solutions to
// x + k n (NaN unless solved); outcome[k].
template <class T>
struct SystemBlock {
    int n = 0;
    int variant = 3; // ldlt: the FLAME variant of variants/ldlt.hpp, 1, 2 or 3
    const T* A = nullptr;
    const T* y = nullptr;
    int stride = 0;
    int count = 0;
    T* x = nullptr;
    std::int32_t* outcome = nullptr;
    double* residual = nullptr; // if set: relative_residual of every solved system
    T* workspace = nullptr; // workspace_scalars<T>(n)
    // The block to be solved next by the same thread (its first matrix and number of
    // systems), prefetched during this one; nullptr: none.
    const T* next_A = nullptr;
    int next_count = 0;
    // DivideConquer: the truncation threshold, each system's number of discarded
    // eigenvalues, and the D&C work (batched/per_system.hpp) of the thread
    double threshold = 0;
    std::uint16_t* discarded = nullptr;
    DcWork<T>* dc = nullptr;
};

// DivideConquer: Householder tridiagonalization, divide and conquer (batched/dc_lanes.hpp)
// and the truncated eigen-solve, per lane the per-system routines' operations.
enum class Kernel { Ldlt, HouseholderPcr, DivideConquer };

// On one block, with the instruction set isa: LDL^T without pivoting and its solve
// (outcome: solved, invalid or the breakdown column), or Householder
// tridiagonalization, Q^T y, PCR and Q z (outcome: solved or invalid), or the same
// tridiagonalization and divide and conquer (outcome: solved or invalid).
template <class T>
void solve_block(Isa isa, Kernel kernel, const SystemBlock<T>& block);

namespace detail {
void solve_block_scalar(Kernel kernel, const SystemBlock<float>& block);
void solve_block_scalar(Kernel kernel, const SystemBlock<double>& block);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FLAMEX_LANES_X86 1
void solve_block_avx2(Kernel kernel, const SystemBlock<float>& block);
void solve_block_avx2(Kernel kernel, const SystemBlock<double>& block);
void solve_block_avx512(Kernel kernel, const SystemBlock<float>& block);
void solve_block_avx512(Kernel kernel, const SystemBlock<double>& block);
#endif
} // namespace detail

} // namespace flamex::batched::lanes
