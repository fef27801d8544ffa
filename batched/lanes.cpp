// The portable lane kernels (W = 1: one system at a time, the per-system code without
// the FLAME skeleton) and the run-time choice of an instruction set; see
// batched/lanes.hpp. Compiled with -ffp-contract=off (CMakeLists.txt).
#include "batched/lanes.hpp"
#include "batched/dc_lanes.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "flame/flame.hpp"
#include "kernels/batched_system.h"

namespace flamex::batched::lanes {

namespace detail {
namespace scalar {

template <class Real>
struct Lanes {
    using T = Real;
    using V = Real;
    static constexpr int W = 1;
    static V set1(T t) { return t; }
    static V load_rows(const T* p, int) { return *p; }
    static void store_rows(T* p, V v, int) { *p = v; }
    static void transpose(V*) {}
    static unsigned bad_pivot(V d) { return shared::bad_pivot(d) ? 1u : 0u; }
    static unsigned not_finite(V v) { return v != v ? 1u : 0u; }
    using M = bool;
    static M le(V a, V b) { return a <= b; }
    static M eq(V a, V b) { return a == b; }
    static M mnot(M m) { return !m; }
    static V select(M m, V t, V f) { return m ? t : f; }
    static bool all(M m) { return m; }
    static bool none(M m) { return !m; }
    static V abs(V a) { return std::fabs(a); }
    static V copysign(V mag, V sgn) { return std::copysign(mag, sgn); }
    static V sqrt(V a) { return std::sqrt(a); }
    static V hypot(V a, V b) { return shared::reproducible_hypot(a, b); }
    using DV = double;
    using DI = bool;
    static constexpr int H = 1;
    static DV dset1(double v) { return v; }
    static DI dfalse() { return false; }
    static DV widen(V v, int) { return static_cast<double>(v); }
    static DI dor(DI a, DI b) { return a || b; }
    static DV dabs(DV v) { return std::fabs(v); }
    static DV dmax(DV a, DV b) { return std::max(a, b); }
    static DI dnot_finite(DV v) { return !std::isfinite(v); }
    static void dstore(double* p, DV v) { *p = v; }
    static bool lane(DI m, int) { return m; }
};

#include "batched/lanes_body.inc"
#include "batched/dc_lanes.inc"

} // namespace scalar

void solve_block_scalar(Kernel kernel, const SystemBlock<float>& block) { scalar::solve_block(kernel, block); }
void solve_block_scalar(Kernel kernel, const SystemBlock<double>& block) { scalar::solve_block(kernel, block); }

} // namespace detail

namespace {

bool cpu_has(Isa isa)
{
#if defined(FLAMEX_LANES_X86)
    __builtin_cpu_init();
    if (isa == Isa::Avx512) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2");
    if (isa == Isa::Avx2) return __builtin_cpu_supports("avx2");
#endif
    return isa == Isa::Scalar;
}

// The widest set the CPU has, unless FLAMEX_BATCH_ISA names another it has.
Isa initial_isa()
{
    if (const char* want = std::getenv("FLAMEX_BATCH_ISA"))
        for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512})
            if (std::strcmp(want, isa_name(isa)) == 0 && cpu_has(isa)) return isa;
    for (Isa isa : {Isa::Avx512, Isa::Avx2})
        if (cpu_has(isa)) return isa;
    return Isa::Scalar;
}

std::atomic<int>& active()
{
    static std::atomic<int> isa{static_cast<int>(initial_isa())};
    return isa;
}

} // namespace

const char* isa_name(Isa isa)
{
    switch (isa) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    case Isa::Scalar: break;
    }
    return "scalar";
}

bool isa_supported(Isa isa) { return cpu_has(isa); }

Isa active_isa() { return static_cast<Isa>(active().load(std::memory_order_relaxed)); }

void set_isa(Isa isa)
{
    if (!cpu_has(isa)) throw Error(std::string("batched lanes: this CPU does not support ") + isa_name(isa));
    active().store(static_cast<int>(isa));
}

template <class T>
void solve_block(Isa isa, Kernel kernel, const SystemBlock<T>& block)
{
    switch (isa) {
#if defined(FLAMEX_LANES_X86)
    case Isa::Avx512: detail::solve_block_avx512(kernel, block); return;
    case Isa::Avx2: detail::solve_block_avx2(kernel, block); return;
#endif
    default: detail::solve_block_scalar(kernel, block); return;
    }
}

template void solve_block<float>(Isa, Kernel, const SystemBlock<float>&);
template void solve_block<double>(Isa, Kernel, const SystemBlock<double>&);

} // namespace flamex::batched::lanes
