// Test-only: gtest assertions on the bits of doubles, with the values in hex in
// the failure message (a last-bit difference does not show in decimal).
#pragma once

#include <gtest/gtest.h>

#include <ios>

#include "support/exact_reference.hpp"

namespace flamex::test {

// EXPECT_TRUE(bits_equal(actual, expected)): same bits, or both NaN (same_bits).
inline ::testing::AssertionResult bits_equal(double actual, double expected)
{
    if (same_bits(actual, expected)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << std::hexfloat << actual << " != expected " << expected << std::defaultfloat;
}

} // namespace flamex::test
