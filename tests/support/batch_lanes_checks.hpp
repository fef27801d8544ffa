// What the lane-kernel tests of the batched solvers share: forcing an instruction set
// for a scope, a slice of a batch, and the first system where two results differ.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "batched/batched.hpp"
#include "batched/lanes.hpp"

namespace flamex::test {

// Restores the instruction set the process started with (tests force each in turn).
class IsaGuard {
public:
    IsaGuard() : saved_(batched::lanes::active_isa()) {}
    ~IsaGuard() { batched::lanes::set_isa(saved_); }
    IsaGuard(const IsaGuard&) = delete;
    IsaGuard& operator=(const IsaGuard&) = delete;

private:
    batched::lanes::Isa saved_;
};

// Systems first .. first + count - 1 of b, as a batch of their own.
template <class T>
batched::Batch<T> slice(const batched::Batch<T>& b, std::size_t first, std::size_t count)
{
    batched::Batch<T> s(b.n, count);
    const std::size_t nn = static_cast<std::size_t>(b.n) * b.n;
    std::copy(b.A.begin() + first * nn, b.A.begin() + (first + count) * nn, s.A.begin());
    std::copy(b.y.begin() + first * b.n, b.y.begin() + (first + count) * b.n, s.y.begin());
    return s;
}

// How NaNs compare. Exact: bit for bit, like every other value. AnyNan: any NaN equals
// any NaN, for computations where IEEE 754 leaves a NaN's sign and payload to the
// hardware and to the operand order the compiler picks for a commutative operation,
// which no two compilations need agree on.
enum class NanBits { Exact, AnyNan };

template <class U>
bool same_bits(U a, U b, NanBits nans)
{
    return std::memcmp(&a, &b, sizeof a) == 0 || (nans == NanBits::AnyNan && std::isnan(a) && std::isnan(b));
}

// The first system whose x or report differs (its index), or -1; 0 when the sizes differ.
template <class T>
long first_difference(const batched::Result<T>& a, const batched::Result<T>& b, int n, NanBits nans = NanBits::Exact)
{
    if (a.x.size() != b.x.size() || a.report.size() != b.report.size()) return 0;
    const std::size_t order = static_cast<std::size_t>(n);
    for (std::size_t k = 0; k < a.report.size(); ++k) {
        const batched::SystemReport &p = a.report[k], &q = b.report[k];
        bool same = p.status == q.status && p.solved_by == q.solved_by && p.column == q.column &&
                    p.discarded == q.discarded && same_bits(p.residual, q.residual, nans) &&
                    same_bits(p.first_residual, q.first_residual, nans);
        for (std::size_t i = 0; i < order && same; ++i) same = same_bits(a.x[k * order + i], b.x[k * order + i], nans);
        if (!same) return static_cast<long>(k);
    }
    return -1;
}

} // namespace flamex::test
