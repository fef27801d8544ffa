// The order-fixed host kernels (see ordered_gemm.hpp): packing and the loops
// around the micro-kernels, written once as a template on the micro-kernel, and
// the micro-kernels per instruction set.
//
// Every header is included before the first target region, so that no inline
// function of a header is compiled for an instruction set the CPU may lack.
#include "blas/ordered_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "blas/exact_scratch.hpp"
#include "exact/simd.hpp"
#include "flame/flame.hpp"

namespace flamex::ordered {
namespace {

// -1, read where the compiler cannot see it: a constant -1.0 * a may be folded
// into the negation -a, which differs from the multiplication (that ger does) in
// the sign of a NaN.
double minus_one()
{
    static volatile double value = -1.0;
    return value;
}

struct Buffers {
    std::vector<double> a, b, tile;
};

Buffers& buffers()
{
    static thread_local Buffers w;
    return w;
}

// Rows [i0, i0 + mb) x depth [l0, l0 + kb) of A into slivers of MR rows, each
// sliver kb groups of MR values (-1 * a_il), rows past mb zero.
template <int MR>
void pack_a(const ConstMat& A, index_t i0, index_t mb, index_t l0, index_t kb, double scale, double* out)
{
    for (index_t s = 0; s < mb; s += MR) {
        const index_t rows = std::min<index_t>(MR, mb - s);
        for (index_t l = 0; l < kb; ++l) {
            const double* col = A.p + (i0 + s) * A.rs + (l0 + l) * A.cs;
            index_t r = 0;
            for (; r < rows; ++r) out[r] = scale * col[r * A.rs];
            for (; r < MR; ++r) out[r] = 0.0;
            out += MR;
        }
    }
}

// Depth [l0, l0 + kb) x columns [j0, j0 + nb) of B into slivers of NR columns,
// each sliver kb groups of NR values, columns past nb zero.
template <int NR>
void pack_b(const ConstMat& B, index_t l0, index_t kb, index_t j0, index_t nb, double* out)
{
    for (index_t s = 0; s < nb; s += NR) {
        const index_t cols = std::min<index_t>(NR, nb - s);
        for (index_t l = 0; l < kb; ++l) {
            const double* row = B.p + (l0 + l) * B.rs + (j0 + s) * B.cs;
            index_t c = 0;
            for (; c < cols; ++c) out[c] = row[c * B.cs];
            for (; c < NR; ++c) out[c] = 0.0;
            out += NR;
        }
    }
}

// The loops around a micro-kernel K: K::MR, K::NR and
// K::run(kc, a, b, c, ldc): the MR x NR tile at c (column-major, leading
// dimension ldc) := tile - a b over kc packed steps, in order.
template <class K>
void gemm_loops(index_t m, index_t n, index_t k, const ConstMat& A, const ConstMat& B, const MutMat& C,
                const Tiling& t)
{
    constexpr int MR = K::MR, NR = K::NR;
    const index_t mc = std::max<index_t>(1, t.mc), kc = std::max<index_t>(1, t.kc), nc = std::max<index_t>(1, t.nc);
    const double scale = minus_one();
    Buffers& w = buffers();
    const index_t mc_up = (std::min(mc, m) + MR - 1) / MR * MR, nc_up = (std::min(nc, n) + NR - 1) / NR * NR;
    const index_t kc_max = std::min(kc, k);
    double* pa = exact_backend::doubles(w.a, mc_up * kc_max);
    double* pb = exact_backend::doubles(w.b, nc_up * kc_max);
    double* tile = exact_backend::doubles(w.tile, MR * NR);
    for (index_t j0 = 0; j0 < n; j0 += nc) {
        const index_t nb = std::min(nc, n - j0);
        for (index_t l0 = 0; l0 < k; l0 += kc) { // in increasing order: the order of every c_ij's FMAs
            const index_t kb = std::min(kc, k - l0);
            pack_b<NR>(B, l0, kb, j0, nb, pb);
            for (index_t i0 = 0; i0 < m; i0 += mc) {
                const index_t mb = std::min(mc, m - i0);
                pack_a<MR>(A, i0, mb, l0, kb, scale, pa);
                for (index_t js = 0; js < nb; js += NR) {
                    const index_t cols = std::min<index_t>(NR, nb - js);
                    const double* bs = pb + js * kb;
                    for (index_t is = 0; is < mb; is += MR) {
                        const index_t rows = std::min<index_t>(MR, mb - is);
                        const double* as = pa + is * kb;
                        double* c = C.p + (i0 + is) * C.rs + (j0 + js) * C.cs;
                        if (rows == MR && cols == NR && C.rs == 1) {
                            K::run(kb, as, bs, c, C.cs);
                            continue;
                        }
                        // An edge tile, or a C whose columns are not contiguous: through
                        // a full tile whose padding is computed and dropped.
                        std::fill(tile, tile + MR * NR, 0.0);
                        for (index_t q = 0; q < cols; ++q)
                            for (index_t r = 0; r < rows; ++r) tile[r + q * MR] = c[r * C.rs + q * C.cs];
                        K::run(kb, as, bs, tile, MR);
                        for (index_t q = 0; q < cols; ++q)
                            for (index_t r = 0; r < rows; ++r) c[r * C.rs + q * C.cs] = tile[r + q * MR];
                    }
                }
            }
        }
    }
}

// --- the portable micro-kernel (std::fma; slow where the FMA is emulated) -----------

struct GenericKernel {
    static constexpr int MR = 4, NR = 4;
    static void run(index_t kc, const double* a, const double* b, double* c, index_t ldc)
    {
        double t[MR * NR];
        for (int j = 0; j < NR; ++j)
            for (int i = 0; i < MR; ++i) t[i + j * MR] = c[i + j * ldc];
        for (index_t l = 0; l < kc; ++l, a += MR, b += NR)
            for (int j = 0; j < NR; ++j)
                for (int i = 0; i < MR; ++i) t[i + j * MR] = std::fma(a[i], b[j], t[i + j * MR]);
        for (int j = 0; j < NR; ++j)
            for (int i = 0; i < MR; ++i) c[i + j * ldc] = t[i + j * MR];
    }
};

} // namespace

#if defined(FLAMEX_EXACT_X86)

// --- AVX2 + FMA: an 8 x 6 tile in 12 registers --------------------------------------

FLAMEX_EXACT_TARGET_AVX2

namespace {

struct Avx2Kernel {
    static constexpr int MR = 8, NR = 6;
    static void run(index_t kc, const double* a, const double* b, double* c, index_t ldc)
    {
        __m256d t0[NR], t1[NR];
#pragma GCC unroll 6
        for (int j = 0; j < NR; ++j) {
            t0[j] = _mm256_loadu_pd(c + j * ldc);
            t1[j] = _mm256_loadu_pd(c + j * ldc + 4);
        }
        for (index_t l = 0; l < kc; ++l, a += MR, b += NR) {
            const __m256d a0 = _mm256_loadu_pd(a), a1 = _mm256_loadu_pd(a + 4);
#pragma GCC unroll 6
            for (int j = 0; j < NR; ++j) {
                const __m256d bj = _mm256_broadcast_sd(b + j);
                t0[j] = _mm256_fmadd_pd(a0, bj, t0[j]);
                t1[j] = _mm256_fmadd_pd(a1, bj, t1[j]);
            }
        }
#pragma GCC unroll 6
        for (int j = 0; j < NR; ++j) {
            _mm256_storeu_pd(c + j * ldc, t0[j]);
            _mm256_storeu_pd(c + j * ldc + 4, t1[j]);
        }
    }
};

void gemm_avx2(index_t m, index_t n, index_t k, const ConstMat& A, const ConstMat& B, const MutMat& C, const Tiling& t)
{
    gemm_loops<Avx2Kernel>(m, n, k, A, B, C, t);
}

} // namespace

FLAMEX_EXACT_TARGET_END

// --- AVX-512F: a 24 x 8 tile in 24 registers ----------------------------------------

FLAMEX_EXACT_TARGET_AVX512

namespace {

struct Avx512Kernel {
    static constexpr int MR = 24, NR = 8;
    static void run(index_t kc, const double* a, const double* b, double* c, index_t ldc)
    {
        __m512d t0[NR], t1[NR], t2[NR];
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j) {
            t0[j] = _mm512_loadu_pd(c + j * ldc);
            t1[j] = _mm512_loadu_pd(c + j * ldc + 8);
            t2[j] = _mm512_loadu_pd(c + j * ldc + 16);
        }
        for (index_t l = 0; l < kc; ++l, a += MR, b += NR) {
            const __m512d a0 = _mm512_loadu_pd(a), a1 = _mm512_loadu_pd(a + 8), a2 = _mm512_loadu_pd(a + 16);
#pragma GCC unroll 8
            for (int j = 0; j < NR; ++j) {
                const __m512d bj = _mm512_set1_pd(b[j]);
                t0[j] = _mm512_fmadd_pd(a0, bj, t0[j]);
                t1[j] = _mm512_fmadd_pd(a1, bj, t1[j]);
                t2[j] = _mm512_fmadd_pd(a2, bj, t2[j]);
            }
        }
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j) {
            _mm512_storeu_pd(c + j * ldc, t0[j]);
            _mm512_storeu_pd(c + j * ldc + 8, t1[j]);
            _mm512_storeu_pd(c + j * ldc + 16, t2[j]);
        }
    }
};

void gemm_avx512(index_t m, index_t n, index_t k, const ConstMat& A, const ConstMat& B, const MutMat& C,
                 const Tiling& t)
{
    gemm_loops<Avx512Kernel>(m, n, k, A, B, C, t);
}

} // namespace

FLAMEX_EXACT_TARGET_END

#endif // FLAMEX_EXACT_X86

namespace {

using GemmLoops = void (*)(index_t, index_t, index_t, const ConstMat&, const ConstMat&, const MutMat&, const Tiling&);

void gemm_generic(index_t m, index_t n, index_t k, const ConstMat& A, const ConstMat& B, const MutMat& C,
                  const Tiling& t)
{
    gemm_loops<GenericKernel>(m, n, k, A, B, C, t);
}

struct Entry {
    const char* isa;
    GemmLoops loops;
};

std::vector<Entry> entries()
{
    std::vector<Entry> list;
#if defined(FLAMEX_EXACT_X86)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        list.push_back({"avx512", gemm_avx512});
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) list.push_back({"avx2", gemm_avx2});
#endif
    list.push_back({"generic", gemm_generic});
    return list;
}

const std::vector<Entry>& all_entries()
{
    static const std::vector<Entry> list = entries();
    return list;
}

// The named set, or (nullptr) the exact layer's choice; a set this CPU lacks is an error.
// The exact layer's "avx512ifma" is AVX-512 here (the micro-kernels multiply no integers).
GemmLoops loops_for(const char* isa)
{
    std::string want = isa != nullptr ? isa : exact::kernel_isa();
    if (want == "avx512ifma") want = "avx512";
    for (const Entry& e : all_entries())
        if (want == e.isa) return e.loops;
    if (isa == nullptr) return all_entries().back().loops; // an exact-layer set without a kernel here
    throw Error(std::string("ordered gemm: no '") + isa + "' micro-kernel on this CPU");
}

} // namespace

void gemm_minus(index_t m, index_t n, index_t k, ConstMat A, ConstMat B, MutMat C, const Tiling& tiling)
{
    if (m <= 0 || n <= 0 || k <= 0) return;
    loops_for(tiling.isa)(m, n, k, A, B, C, tiling);
}

void trsm_lower(bool unit, index_t m, index_t n, ConstMat L, MutMat B, const Tiling& tiling)
{
    if (m <= 0 || n <= 0) return;
    const GemmLoops loops = loops_for(tiling.isa);
    const index_t block = std::max<index_t>(1, tiling.tb);
    for (index_t r0 = 0; r0 < m; r0 += block) {
        const index_t r1 = std::min(m, r0 + block);
        // The block's own triangle, row by row: row l is final once divided, then
        // updates the rows below it in the block (a rank-1 update, one FMA each).
        for (index_t l = r0; l < r1; ++l) {
            double* row = B.p + l * B.rs;
            if (!unit) {
                const double d = L.p[l * L.rs + l * L.cs];
                for (index_t j = 0; j < n; ++j) row[j * B.cs] = row[j * B.cs] / d;
            }
            if (l + 1 < r1)
                loops(r1 - l - 1, n, 1, {L.p + (l + 1) * L.rs + l * L.cs, L.rs, L.cs}, {row, B.rs, B.cs},
                      {B.p + (l + 1) * B.rs, B.rs, B.cs}, tiling);
        }
        // The rows below the block take the block's rows' updates, in order.
        if (r1 < m)
            loops(m - r1, n, r1 - r0, {L.p + r1 * L.rs + r0 * L.cs, L.rs, L.cs}, {B.p + r0 * B.rs, B.rs, B.cs},
                  {B.p + r1 * B.rs, B.rs, B.cs}, tiling);
    }
}

std::vector<const char*> available_isas()
{
    std::vector<const char*> names;
    for (const Entry& e : all_entries()) names.push_back(e.isa);
    return names;
}

} // namespace flamex::ordered
