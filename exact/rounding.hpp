// Internal: correct rounding, in one place (not part of the API). Every exact
// value the layer finishes (an Accumulator's: Accumulator::round,
// exact::divide_round; a short sum's: exblas::round_sum, divide_sum) is a sign
// and an integer magnitude times a power of two, and is rounded, or divided and
// rounded, here (rounding.cpp): the top bits of the magnitude and whether
// anything is left below them go to round_to_double (round_sum takes them
// straight from its 256-bit words; the others from a Magnitude).
#pragma once

#include <cstdint>

#include "exact/detail.hpp"

namespace flamex::exact::detail {

// The double nearest (ties to even) to (-1)^negative * (m + f) * 2^x where
// 0 <= f < 1 and f != 0 iff sticky; m != 0. Handles subnormal results, underflow
// to a signed zero and overflow to infinity; x may lie far outside double range.
double round_to_double(bool negative, std::uint64_t m, int x, bool sticky) noexcept;

// The double nearest to (-1)^negative * I * 2^exponent, I != 0 the magnitude.
double round_magnitude(const Magnitude& I, bool negative, int exponent) noexcept;

// The double nearest to (-1)^negative * I * 2^exponent / |d|, I != 0 the
// magnitude, d finite and non-zero.
double divide_magnitude(const Magnitude& I, bool negative, int exponent, double d) noexcept;

} // namespace flamex::exact::detail
