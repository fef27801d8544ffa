// Ranks, the agreement on errors, and the exact reductions (mpi.hpp's contract).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "mpi/mpi.hpp"

namespace flamex::mpi {

int rank(MPI_Comm comm)
{
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}

int size(MPI_Comm comm)
{
    int s = 0;
    MPI_Comm_size(comm, &s);
    return s;
}

void agree(MPI_Comm comm, const std::string& local_error)
{
    const int nranks = size(comm);
    int mine = local_error.empty() ? nranks : rank(comm), first = nranks;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == nranks) return;
    int length = first == rank(comm) ? static_cast<int>(local_error.size()) : 0;
    MPI_Bcast(&length, 1, MPI_INT, first, comm);
    std::string message = first == rank(comm) ? local_error : std::string(static_cast<std::size_t>(length), ' ');
    MPI_Bcast(message.data(), length, MPI_CHAR, first, comm);
    throw Error("rank " + std::to_string(first) + ": " + message);
}

// --- the exact MPI_Op ------------------------------------------------------------

namespace {

constexpr int WORDS = exact::Accumulator::WORDS;

// inout[k] := in[k] + inout[k], exactly, for the count serialized accumulators.
void merge_op(void* in, void* inout, int* count, MPI_Datatype*)
{
    auto* a = static_cast<std::int64_t*>(in);
    auto* b = static_cast<std::int64_t*>(inout);
    exact::Accumulator x, y;
    for (int k = 0; k < *count; ++k) {
        x.deserialize(a + static_cast<std::ptrdiff_t>(k) * WORDS);
        y.deserialize(b + static_cast<std::ptrdiff_t>(k) * WORDS);
        y.merge(x);
        y.serialize(b + static_cast<std::ptrdiff_t>(k) * WORDS);
    }
}

struct ExactOp {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
};

// Made once (after MPI_Init) and kept to MPI_Finalize, which frees both.
const ExactOp& exact_op()
{
    static ExactOp made = [] {
        ExactOp e;
        MPI_Type_contiguous(WORDS, MPI_INT64_T, &e.type);
        MPI_Type_commit(&e.type);
        MPI_Op_create(&merge_op, 1, &e.op); // exact addition commutes
        return e;
    }();
    return made;
}

} // namespace

void allreduce(MPI_Comm comm, exact::Accumulator* acc, int count)
{
    if (count <= 0) return;
    const ExactOp& e = exact_op();
    std::vector<std::int64_t> mine(static_cast<std::size_t>(count) * WORDS, 0), all(mine.size(), 0);
    for (int k = 0; k < count; ++k) acc[k].serialize(mine.data() + static_cast<std::ptrdiff_t>(k) * WORDS);
    MPI_Allreduce(mine.data(), all.data(), count, e.type, e.op, comm);
    for (int k = 0; k < count; ++k) acc[k].deserialize(all.data() + static_cast<std::ptrdiff_t>(k) * WORDS);
}

void reduce(MPI_Comm comm, exact::Accumulator* acc, int count, int root)
{
    if (count <= 0) return;
    const ExactOp& e = exact_op();
    std::vector<std::int64_t> mine(static_cast<std::size_t>(count) * WORDS, 0), all(mine.size(), 0);
    for (int k = 0; k < count; ++k) acc[k].serialize(mine.data() + static_cast<std::ptrdiff_t>(k) * WORDS);
    MPI_Reduce(mine.data(), all.data(), count, e.type, e.op, root, comm);
    if (rank(comm) == root)
        for (int k = 0; k < count; ++k) acc[k].deserialize(all.data() + static_cast<std::ptrdiff_t>(k) * WORDS);
}

double sum(MPI_Comm comm, exact::index_t n, const double* x, exact::index_t incx)
{
    exact::Accumulator acc;
    if (n > 0) exact::accumulate_sum(acc, n, x, incx);
    allreduce(comm, &acc);
    return acc.round();
}

double dot(MPI_Comm comm, exact::index_t n, const double* x, exact::index_t incx, const double* y,
           exact::index_t incy)
{
    exact::Accumulator acc;
    if (n > 0) exact::accumulate_dot(acc, n, x, incx, y, incy);
    allreduce(comm, &acc);
    return acc.round();
}

double nrm2(MPI_Comm comm, exact::index_t n, const double* x, exact::index_t incx)
{
    exact::Accumulator acc;
    if (n > 0) exact::accumulate_dot(acc, n, x, incx, x, incx);
    allreduce(comm, &acc);
    return round_sqrt(acc);
}

double sum_allreduce(MPI_Comm comm, exact::index_t n, const double* x, exact::index_t incx)
{
    double local = 0.0, all = 0.0;
    for (exact::index_t i = 0; i < n; ++i) local += x[i * incx];
    MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, comm);
    return all;
}

double dot_allreduce(MPI_Comm comm, exact::index_t n, const double* x, exact::index_t incx, const double* y,
                     exact::index_t incy)
{
    double local = 0.0, all = 0.0;
    for (exact::index_t i = 0; i < n; ++i) local += x[i * incx] * y[i * incy];
    MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, comm);
    return all;
}

// --- the correctly rounded square root of an exact value ---------------------------

namespace {

// The sign of S - (r + d/2)^2 for doubles r >= 0, d > 0: S - r^2 - r d - d^2 / 4,
// every product exact in the accumulator.
int compare_square(const exact::Accumulator& S, double r, double d)
{
    exact::Accumulator t = S;
    t.add_product(-r, r);
    t.add_product(-r, d);
    t.add_product(-0.25, d, d);
    return t.sign();
}

bool is_even(double x)
{
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return (bits & 1) == 0;
}

} // namespace

double round_sqrt(const exact::Accumulator& acc)
{
    if (acc.has_special()) {
        const double s = acc.special_value();
        return s > 0 ? s : std::numeric_limits<double>::quiet_NaN(); // +inf, or NaN for NaN and -inf
    }
    const int sign = acc.sign();
    if (sign < 0) return std::numeric_limits<double>::quiet_NaN();
    if (sign == 0) return acc.zero_is_negative() ? -0.0 : 0.0;
    // A first guess from the value scaled into the normal range (exact scaling by
    // powers of two), then exact comparisons with the midpoints around it.
    exact::Accumulator scaled = acc;
    int half = 0; // sqrt(S) = sqrt(S 2^(-2 half)) 2^half
    double v = scaled.round();
    while (std::isinf(v) || v > 0x1p600) {
        scaled.scale(0x1p-600);
        half += 300;
        v = scaled.round();
    }
    while (v < 0x1p-600) {
        scaled.scale(0x1p600);
        half -= 300;
        v = scaled.round();
    }
    double r = std::ldexp(std::sqrt(v), half);
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (std::isinf(r)) r = std::numeric_limits<double>::max();
    // Move up while S lies above the midpoint to the next double (a tie goes to
    // the even one), down while it lies below the midpoint to the previous one.
    for (;;) {
        const double up = std::nextafter(r, inf);
        if (std::isinf(up)) {
            // Beyond DBL_MAX: sqrt(S) rounds to inf at DBL_MAX + ulp/2 and above.
            const double ulp = r - std::nextafter(r, 0.0);
            const int c = compare_square(acc, r, ulp);
            if (c >= 0) return inf;
            break;
        }
        const int c = compare_square(acc, r, up - r);
        if (c > 0 || (c == 0 && is_even(up))) {
            r = up;
            continue;
        }
        break;
    }
    for (;;) {
        if (r == 0) break;
        const double down = std::nextafter(r, 0.0);
        const int c = compare_square(acc, down, r - down);
        if (c < 0 || (c == 0 && is_even(down))) {
            r = down;
            continue;
        }
        break;
    }
    return r;
}

} // namespace flamex::mpi
