// The portable lane kernels (W = 1: one system at a time, the per-system code without
// the FLAME skeleton) and the run-time choice of an instruction set; see
// batched/lanes.hpp. Compiled with -ffp-contract=off (CMakeLists.txt).
#include "batched/lanes.hpp"

#include <algorithm>
#include <atomic>
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
    static void transpose(V*) {}
    static unsigned bad_pivot(V d) { return shared::bad_pivot(d) ? 1u : 0u; }
    static unsigned not_finite(V v) { return v != v ? 1u : 0u; }
};

#include "batched/lanes_body.inc"

} // namespace scalar

void ldlt_block_scalar(const LdltBlock<float>& block) { scalar::Kernels<scalar::Lanes<float>>::ldlt(block); }
void ldlt_block_scalar(const LdltBlock<double>& block) { scalar::Kernels<scalar::Lanes<double>>::ldlt(block); }

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
void ldlt_block(Isa isa, const LdltBlock<T>& block)
{
    switch (isa) {
#if defined(FLAMEX_LANES_X86)
    case Isa::Avx512: detail::ldlt_block_avx512(block); return;
    case Isa::Avx2: detail::ldlt_block_avx2(block); return;
#endif
    default: detail::ldlt_block_scalar(block); return;
    }
}

template void ldlt_block<float>(Isa, const LdltBlock<float>&);
template void ldlt_block<double>(Isa, const LdltBlock<double>&);

} // namespace flamex::batched::lanes
