// Ranks, the agreement on errors, and the exact reductions (mpi.hpp's contract).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>
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

bool barrier_within(MPI_Comm comm, double seconds)
{
    MPI_Request request;
    MPI_Ibarrier(comm, &request);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (int done = 0;;) {
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done) return true;
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// --- the exact MPI_Op ------------------------------------------------------------

namespace {

constexpr int WORDS = exact::Accumulator::WORDS;
constexpr int REDUCE_TAG = 0x5eed; // reduce()'s messages (MPI orders them per sender and tag)

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

// Many accumulators at once (a gemv's rows, a block of a trsv's): each travels
// as its active window only (a header word and the digits in use, about 6 words
// where the MPI_Op's fixed form has 210), gathered and merged in rank order where the
// result is wanted. The same exact sums, so the same bits.
namespace {

// Each accumulator as one header word (lo, hi: 8 bits each; the flags: 8 bits;
// the pending carries: < 2^29, from bit 24) and the digits of its window.
void pack(const exact::Accumulator* acc, int count, std::vector<std::int64_t>& out)
{
    std::vector<std::int64_t> words(WORDS, 0);
    for (int k = 0; k < count; ++k) {
        acc[k].serialize(words.data());
        const std::int64_t lo = words[0], hi = words[1];
        const std::int64_t window = hi > lo ? (lo | hi << 8) : 0;
        out.push_back(window | words[3] << 16 | words[2] << 24);
        if (hi > lo) out.insert(out.end(), words.begin() + 4 + lo, words.begin() + 4 + hi);
    }
}

// acc[k] := the sum over the ranks' packed accumulators (buffers one after another).
void merge_packed(const std::vector<std::int64_t>& all, const std::vector<int>& lengths, exact::Accumulator* acc,
                  int count)
{
    std::vector<std::int64_t> words(WORDS, 0);
    exact::Accumulator part;
    std::size_t at = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
        const std::size_t end = at + static_cast<std::size_t>(lengths[r]);
        for (int k = 0; k < count; ++k) {
            if (at + 1 > end) throw Error("mpi: a packed accumulator ends early");
            const std::int64_t header = all[at];
            const std::int64_t lo = header & 0xff, hi = (header >> 8) & 0xff;
            words[0] = lo;
            words[1] = hi;
            words[2] = header >> 24;
            words[3] = (header >> 16) & 0xff;
            const std::size_t n = hi > lo ? static_cast<std::size_t>(hi - lo) : 0;
            if (hi > lo && (hi > exact::Accumulator::DIGITS || at + 1 + n > end))
                throw Error("mpi: a packed accumulator does not fit");
            std::copy(all.begin() + static_cast<std::ptrdiff_t>(at + 1),
                      all.begin() + static_cast<std::ptrdiff_t>(at + 1 + n), words.begin() + 4 + (hi > lo ? lo : 0));
            at += 1 + n;
            if (r == 0) {
                acc[k].deserialize(words.data());
            } else {
                part.deserialize(words.data());
                acc[k].merge(part);
            }
        }
        at = end;
    }
}

std::vector<int> displacements(const std::vector<int>& lengths)
{
    std::vector<int> d(lengths.size(), 0);
    for (std::size_t r = 1; r < lengths.size(); ++r) d[r] = d[r - 1] + lengths[r - 1];
    return d;
}

} // namespace

void allreduce(MPI_Comm comm, exact::Accumulator* acc, int count)
{
    if (count <= 0) return;
    if (count > 1) {
        std::vector<std::int64_t> mine;
        pack(acc, count, mine);
        int length = static_cast<int>(mine.size());
        std::vector<int> lengths(static_cast<std::size_t>(size(comm)));
        MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
        const std::vector<int> at = displacements(lengths);
        std::vector<std::int64_t> all(static_cast<std::size_t>(at.back() + lengths.back()));
        MPI_Allgatherv(mine.data(), length, MPI_INT64_T, all.data(), lengths.data(), at.data(), MPI_INT64_T, comm);
        merge_packed(all, lengths, acc, count);
        return;
    }
    const ExactOp& e = exact_op();
    std::vector<std::int64_t> mine(static_cast<std::size_t>(count) * WORDS, 0), all(mine.size(), 0);
    for (int k = 0; k < count; ++k) acc[k].serialize(mine.data() + static_cast<std::ptrdiff_t>(k) * WORDS);
    MPI_Allreduce(mine.data(), all.data(), count, e.type, e.op, comm);
    for (int k = 0; k < count; ++k) acc[k].deserialize(all.data() + static_cast<std::ptrdiff_t>(k) * WORDS);
}

PendingReduce reduce_start(MPI_Comm comm, const exact::Accumulator* acc, int count, int root)
{
    // One message a rank (its length read by MPI_Probe at the root, not gathered
    // first: one dependent step where a gather of lengths and a gatherv took two).
    PendingReduce r;
    r.comm = comm;
    r.root = root;
    r.count = count;
    if (count <= 0) return r;
    pack(acc, count, r.packed);
    if (rank(comm) != root)
        MPI_Isend(r.packed.data(), static_cast<int>(r.packed.size()), MPI_INT64_T, root, REDUCE_TAG, comm, &r.request);
    return r;
}

void reduce_finish(PendingReduce& r, exact::Accumulator* acc)
{
    if (r.count <= 0) return;
    if (rank(r.comm) != r.root) {
        MPI_Wait(&r.request, MPI_STATUS_IGNORE);
        return;
    }
    const int nranks = size(r.comm);
    std::vector<int> lengths(static_cast<std::size_t>(nranks));
    std::vector<std::int64_t> all;
    for (int q = 0; q < nranks; ++q) {
        const std::size_t at = all.size();
        if (q == r.root) {
            all.insert(all.end(), r.packed.begin(), r.packed.end());
            lengths[static_cast<std::size_t>(q)] = static_cast<int>(r.packed.size());
            continue;
        }
        MPI_Status status;
        MPI_Probe(q, REDUCE_TAG, r.comm, &status);
        int length = 0;
        MPI_Get_count(&status, MPI_INT64_T, &length);
        all.resize(at + static_cast<std::size_t>(length));
        MPI_Recv(all.data() + at, length, MPI_INT64_T, q, REDUCE_TAG, r.comm, MPI_STATUS_IGNORE);
        lengths[static_cast<std::size_t>(q)] = length;
    }
    merge_packed(all, lengths, acc, r.count);
}

void reduce(MPI_Comm comm, exact::Accumulator* acc, int count, int root)
{
    if (count <= 0) return;
    if (count > 1) {
        PendingReduce r = reduce_start(comm, acc, count, root);
        reduce_finish(r, acc);
        return;
    }
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
