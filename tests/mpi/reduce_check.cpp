// Exact distributed sum, dot and nrm2 (mpi.hpp): on every rank, for every
// distribution of the vector over the ranks (block, cyclic, uneven, all on one
// rank, empty ranks), the bits of the one-process exact result; nrm2 against
// MPFR's correctly rounded square root of the exact sum of squares; errors on one
// rank reaching every rank. Run under mpirun with 1-4 ranks (tests/mpi/CMakeLists.txt).
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "check.hpp"
#include "mpi/mpi.hpp"

using namespace flamex;
using flamex_mpi_test::expect;
using flamex_mpi_test::same_bits;

namespace {

// The data sets: every rank draws the same ones.
std::vector<std::vector<double>> data_sets()
{
    std::mt19937_64 rng(29);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> e(-200, 200);
    std::vector<std::vector<double>> sets;
    std::vector<double> x(1000);
    for (double& v : x) v = u(rng);
    sets.push_back(x);
    for (double& v : x) v = std::ldexp(u(rng), e(rng)); // spread over 2^+-200
    sets.push_back(x);
    // cancelling: big terms and their negatives, shuffled, and a small remainder
    std::vector<double> c;
    for (int i = 0; i < 400; ++i) {
        const double b = std::ldexp(u(rng), e(rng) + 300);
        c.push_back(b);
        c.push_back(-b);
        c.push_back(std::ldexp(u(rng), e(rng) - 300));
    }
    std::shuffle(c.begin(), c.end(), rng);
    sets.push_back(c);
    for (double& v : x) v = std::ldexp(u(rng), -1030 - (e(rng) & 31)); // subnormals
    sets.push_back(x);
    for (double& v : x) v = std::ldexp(u(rng), 500 + (e(rng) & 15)); // dot and nrm2 past DBL_MAX
    sets.push_back(x);
    sets.push_back(std::vector<double>(37, -0.0)); // a sum of -0's is -0
    sets.push_back(std::vector<double>{});         // the empty sum
    std::vector<double> s(300);
    for (double& v : s) v = u(rng);
    s[17] = std::numeric_limits<double>::infinity();
    sets.push_back(s);
    s[250] = -std::numeric_limits<double>::infinity(); // inf - inf = NaN
    sets.push_back(s);
    s[17] = 1.0;
    s[250] = std::numeric_limits<double>::quiet_NaN();
    sets.push_back(s);
    return sets;
}

// A distribution: rank r holds n_r elements at x + first_r, stride inc.
struct Share {
    exact::index_t first, n, inc;
};

std::vector<Share> distributions(exact::index_t n, int nranks, int r, std::mt19937_64& rng)
{
    std::vector<Share> d;
    const exact::index_t R = nranks;
    // block
    const exact::index_t b = (n + R - 1) / R, b0 = std::min(n, b * r), b1 = std::min(n, b * (r + 1));
    d.push_back({b0, b1 - b0, 1});
    // cyclic
    d.push_back({std::min<exact::index_t>(r, n), r < n ? (n - r + R - 1) / R : 0, R});
    // uneven: cut points drawn alike on every rank (the same engine state)
    std::vector<exact::index_t> cuts{0, n};
    for (int k = 1; k < nranks; ++k) cuts.push_back(static_cast<exact::index_t>(rng() % static_cast<std::uint64_t>(n + 1)));
    std::sort(cuts.begin(), cuts.end());
    d.push_back({cuts[static_cast<std::size_t>(r)], cuts[static_cast<std::size_t>(r) + 1] - cuts[static_cast<std::size_t>(r)], 1});
    // all on the last rank (the others empty)
    d.push_back({0, r == nranks - 1 ? n : 0, 1});
    // rank 0 empty, the rest in blocks
    if (nranks > 1) {
        const exact::index_t m = (n + R - 2) / (R - 1);
        const exact::index_t c0 = r == 0 ? 0 : std::min(n, m * (r - 1)), c1 = r == 0 ? 0 : std::min(n, m * r);
        d.push_back({c0, c1 - c0, 1});
    }
    return d;
}

// MPFR's correctly rounded sqrt(sum x_i^2) for data in the normal range.
double mpfr_nrm2(const std::vector<double>& x)
{
    mpfr_t s, t, r;
    mpfr_inits2(4400, s, t, static_cast<mpfr_ptr>(nullptr));
    mpfr_init2(r, 53);
    mpfr_set_zero(s, 1);
    for (double v : x) {
        mpfr_set_d(t, v, MPFR_RNDN);
        mpfr_mul(t, t, t, MPFR_RNDN); // exact at 4400 bits
        mpfr_add(s, s, t, MPFR_RNDN);
    }
    mpfr_sqrt(r, s, MPFR_RNDN);
    const double out = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clears(s, t, r, static_cast<mpfr_ptr>(nullptr));
    return out;
}

// round_sqrt where rounding twice goes wrong: values at, just above and just below
// the square of a midpoint between two doubles, against MPFR; true when all agree.
bool round_sqrt_near_midpoints()
{
    std::mt19937_64 rng(31);
    std::uniform_real_distribution<double> u(1.0, 2.0);
    std::uniform_int_distribution<int> e(-400, 400);
    mpfr_t S, t, q;
    mpfr_inits2(2000, S, t, static_cast<mpfr_ptr>(nullptr));
    mpfr_init2(q, 53);
    bool ok = true;
    for (int k = 0; k < 300; ++k) {
        const double r = std::ldexp(u(rng), e(rng)), d = std::nextafter(r, 1e300) - r;
        const int side = k % 3 - 1; // -1: below, 0: at, +1: above the midpoint's square
        const double tiny = std::ldexp(1.0, std::ilogb(r) * 2 - 150 - static_cast<int>(rng() % 40));
        exact::Accumulator acc;
        acc.add_product(r, r);
        acc.add_product(r, d);
        acc.add_product(0.25, d, d);
        if (side) acc.add(side * tiny);
        mpfr_set_d(S, r, MPFR_RNDN);
        mpfr_set_d(t, d, MPFR_RNDN);
        mpfr_div_2ui(t, t, 1, MPFR_RNDN);
        mpfr_add(S, S, t, MPFR_RNDN); // the midpoint
        mpfr_sqr(S, S, MPFR_RNDN);
        mpfr_set_d(t, side * tiny, MPFR_RNDN);
        mpfr_add(S, S, t, MPFR_RNDN);
        mpfr_sqrt(q, S, MPFR_RNDN);
        if (!same_bits(mpi::round_sqrt(acc), mpfr_get_d(q, MPFR_RNDN))) ok = false;
    }
    mpfr_clears(S, t, q, static_cast<mpfr_ptr>(nullptr));
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    const int r = mpi::rank(MPI_COMM_WORLD), nranks = mpi::size(MPI_COMM_WORLD);
    const auto sets = data_sets();
    std::mt19937_64 cut_rng(7);
    int baseline_differs = 0;
    for (std::size_t s = 0; s < sets.size(); ++s) {
        const std::vector<double>& x = sets[s];
        const exact::index_t n = static_cast<exact::index_t>(x.size());
        std::vector<double> y(x.rbegin(), x.rend()); // the dot's second vector
        const double want_sum = exact::exact_sum(n, x.data(), 1);
        const double want_dot = exact::exact_dot(n, x.data(), 1, y.data(), 1);
        exact::Accumulator squares;
        exact::accumulate_dot(squares, n, x.data(), 1, x.data(), 1);
        const double want_nrm2 = mpi::round_sqrt(squares);
        const std::string set = "set " + std::to_string(s);
        if (s <= 4) expect(same_bits(want_nrm2, mpfr_nrm2(x)) || s == 3, set + ": round_sqrt against MPFR");
        for (const Share& d : distributions(n, nranks, r, cut_rng)) {
            const double* px = x.data() + d.first;
            const double* py = y.data() + d.first;
            const double got_sum = mpi::sum(MPI_COMM_WORLD, d.n, px, d.inc);
            const double got_dot = mpi::dot(MPI_COMM_WORLD, d.n, px, d.inc, py, d.inc);
            const double got_nrm2 = mpi::nrm2(MPI_COMM_WORLD, d.n, px, d.inc);
            expect(same_bits(got_sum, want_sum), set + ": sum " + std::to_string(got_sum) + " != " + std::to_string(want_sum));
            expect(same_bits(got_dot, want_dot), set + ": dot " + std::to_string(got_dot) + " != " + std::to_string(want_dot));
            expect(same_bits(got_nrm2, want_nrm2), set + ": nrm2 " + std::to_string(got_nrm2) + " != " + std::to_string(want_nrm2));
            // The same result on every rank (the bits broadcast from rank 0).
            double root[3] = {got_sum, got_dot, got_nrm2};
            MPI_Bcast(root, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            expect(same_bits(root[0], got_sum) && same_bits(root[1], got_dot) && same_bits(root[2], got_nrm2),
                  set + ": ranks disagree");
            const double base = mpi::sum_allreduce(MPI_COMM_WORLD, d.n, px, d.inc);
            if (!same_bits(base, want_sum)) ++baseline_differs;
        }
    }
    expect(round_sqrt_near_midpoints(), "round_sqrt at and near the squares of midpoints, against MPFR");
    if (r == 0)
        std::printf("MPI_Allreduce of doubles: %d of the sums differ from the exact one on %d ranks\n", baseline_differs,
                    nranks);

    // The serialized form: a round trip keeps the value and the flags; words no
    // serialize() wrote are refused.
    {
        exact::Accumulator a, b;
        a.add_product(0x1p-1000, 0x1p-74);
        a.add(-0x1p900);
        a.add(std::numeric_limits<double>::infinity());
        std::vector<std::int64_t> w(exact::Accumulator::WORDS, 0);
        a.serialize(w.data());
        b.deserialize(w.data());
        expect(same_bits(a.round(), b.round()) && b.has_special(), "serialize, deserialize: the same value");
        a.reset();
        a.add(0x1p-60);
        a.add(-3.0);
        a.serialize(w.data());
        b.deserialize(w.data());
        b.add(3.0);
        expect(same_bits(b.round(), 0x1p-60), "serialize, deserialize: the exact value (-3 + 2^-60 + 3)");
        w[1] = exact::Accumulator::DIGITS + 1;
        bool refused = false;
        try {
            b.deserialize(w.data());
        } catch (const std::invalid_argument&) {
            refused = true;
        }
        expect(refused, "deserialize refuses a window outside the digits");
    }

    // An error on one rank reaches every rank, naming it; nobody hangs.
    bool caught = false;
    try {
        mpi::collective(MPI_COMM_WORLD, [&] {
            if (r == nranks - 1) throw Error("bad input here");
        });
    } catch (const Error& e) {
        caught = std::string(e.what()) == "rank " + std::to_string(nranks - 1) + ": bad input here";
    }
    expect(caught, "an error on the last rank reaches every rank, naming it");
    flamex_mpi_test::checkpoint("an error on the last rank");
    // ... and the lowest failing rank's message wins.
    caught = false;
    try {
        mpi::collective(MPI_COMM_WORLD, [&] { throw Error("everyone " + std::to_string(r)); });
    } catch (const Error& e) {
        caught = std::string(e.what()) == "rank 0: everyone 0";
    }
    expect(caught, "the lowest failing rank's message");
    flamex_mpi_test::checkpoint("an error on every rank");
    // A grid that does not match the rank count.
    caught = false;
    try {
        mpi::Grid g(MPI_COMM_WORLD, nranks + 1, 1);
    } catch (const Error& e) {
        caught = std::string(e.what()).find("rank 0: a " + std::to_string(nranks + 1) + "x1 grid needs") == 0;
    }
    expect(caught, "a grid that does not match the rank count");
    flamex_mpi_test::checkpoint("a grid that does not match the rank count");
    return flamex_mpi_test::finish("reduce_check");
}
