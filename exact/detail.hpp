// Internals of the exact layer shared by its .cpp files (not part of the API).
#pragma once

#include <cstdint>

#include "exact/exact.hpp"

namespace flamex::exact::detail {

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

// A finite double as (-1)^negative * m * 2^e, m < 2^53 an integer (0 for zeros).
struct Decomposed {
    std::uint64_t m;
    int e;
    bool negative;
};
Decomposed decompose(double x) noexcept;

double make_double(bool negative, std::uint64_t bits) noexcept;

// |value| * 2^BIAS of an accumulator as normalized 32-bit digits: digit k of w
// weighs 2^(32 (base + k)); w[top] is the highest non-zero digit (top = -1: 0).
// Also the form in which exact/rounding.hpp rounds every exact value.
struct Magnitude {
    std::uint32_t w[Accumulator::DIGITS + 2];
    int base = 0;
    int top = -1;

    int bit_length() const noexcept;           // top != -1
    u128 extract(int pos) const noexcept;      // floor(I / 2^pos) mod 2^128
    bool sticky_below(int pos) const noexcept; // I mod 2^pos != 0
};

} // namespace flamex::exact::detail
