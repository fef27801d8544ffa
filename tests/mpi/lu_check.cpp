// The distributed LU (mpi.hpp) on every grid the rank count allows (1x1; 1x2,
// 2x1; 1x3, 3x1; 2x2, 1x4) and block sizes 1, 8 and 64:
//  - lu_piv_var5 gives the bits of lu_piv_unb_var5 on `exact`, lu_piv_var3 those
//    of lu_piv_unb_var3: every element of L\U, every pivot, and the info, on square,
//    tall and wide matrices, data over 2^+-200, a zero pivot (info names the
//    column on every rank) and a NaN;
//  - pdgetrf on the same descriptor: P A = L U within a backward error bound, and
//    the zero pivot's column;
//  - a ScaLAPACK program's matrix (its own BLACS context and descriptor, first
//    block on process row 1) factored in place;
//  - bad descriptors rejected on every rank, naming the rank.
// Run under mpirun with 1-4 ranks (tests/mpi/CMakeLists.txt).
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "check.hpp"
#include "mpi/mpi.hpp"
#include "mpi/scalapack.hpp"
#include "variants/lu.hpp"

using namespace flamex;
using flamex_mpi_test::expect;
using flamex_mpi_test::same_bits;

namespace {

struct Case {
    std::string name;
    Matrix A;
};

Matrix random_matrix(dim_t m, dim_t n, std::uint64_t seed, int spread)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> e(-spread, spread);
    Matrix A(m, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) A(i, j) = spread ? std::ldexp(u(rng), e(rng)) : u(rng);
    return A;
}

std::vector<Case> cases()
{
    std::vector<Case> c;
    c.push_back({"square 21x21", random_matrix(21, 21, 1, 0)});
    c.push_back({"tall 26x13", random_matrix(26, 13, 2, 0)});
    c.push_back({"wide 13x26", random_matrix(13, 26, 3, 0)});
    c.push_back({"2^+-200 18x18", random_matrix(18, 18, 4, 200)});
    Matrix Z = random_matrix(14, 14, 5, 0);
    for (dim_t i = 0; i < 14; ++i) Z(i, 4) = 0.0; // column 5 has a zero pivot
    c.push_back({"zero pivot 14x14", Z});
    Matrix N = random_matrix(12, 12, 6, 0);
    N(7, 3) = std::numeric_limits<double>::quiet_NaN();
    c.push_back({"NaN 12x12", N});
    return c;
}

// Whether rank 0's gathered B has the bits of rank 0's reference R (agreed on every rank).
bool same_matrix_on_root(Obj B, Obj R)
{
    int same = 1;
    if (mpi::rank(MPI_COMM_WORLD) == 0)
        for (dim_t j = 0; j < R.width(); ++j)
            for (dim_t i = 0; i < R.length(); ++i)
                if (!same_bits(B(i, j), R(i, j))) same = 0;
    MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return same != 0;
}

// max_ij |(P A - L U)_ij| / (|L| |U|)_ij <= 2 k eps: pdgetrf's backward error (rank 0).
bool backward_stable_on_root(Obj A, Obj LU, const Pivots& p)
{
    int ok = 1;
    if (mpi::rank(MPI_COMM_WORLD) == 0) {
        Matrix PA = Matrix(A.length(), A.width());
        for (dim_t j = 0; j < A.width(); ++j)
            for (dim_t i = 0; i < A.length(); ++i) PA(i, j) = A(i, j);
        apply_pivots_reference(p.view(), PA.view());
        const dim_t m = A.length(), n = A.width(), k = std::min(m, n);
        for (dim_t i = 0; i < m; ++i)
            for (dim_t j = 0; j < n; ++j) {
                long double s = 0, bound = 0;
                for (dim_t l = 0; l <= std::min({i, j, k - 1}); ++l) {
                    const long double lil = l == i ? 1.0L : LU(i, l), ulj = LU(l, j);
                    s += lil * ulj;
                    bound += std::fabs(lil * ulj);
                }
                if (std::fabs(static_cast<long double>(PA(i, j)) - s) > 2 * k * 0x1p-53 * bound + 1e-300L) ok = 0;
            }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok != 0;
}

bool same_pivots(const Pivots& a, const Pivots& b)
{
    if (a.size() != b.size()) return false;
    for (dim_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

// Rank 0's pivots and info to every rank.
void broadcast(Pivots& p, dim_t& info)
{
    std::vector<int> v(static_cast<std::size_t>(p.size()));
    for (dim_t i = 0; i < p.size(); ++i) v[static_cast<std::size_t>(i)] = p[i];
    MPI_Bcast(v.data(), static_cast<int>(v.size()), MPI_INT, 0, MPI_COMM_WORLD);
    for (dim_t i = 0; i < p.size(); ++i) p[i] = v[static_cast<std::size_t>(i)];
    long long x = info;
    MPI_Bcast(&x, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    info = x;
}

} // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    const int r = mpi::rank(MPI_COMM_WORLD), nranks = mpi::size(MPI_COMM_WORLD);
    const bool root = r == 0;
    std::vector<std::pair<int, int>> grids;
    if (nranks == 1) grids = {{1, 1}};
    if (nranks == 2) grids = {{1, 2}, {2, 1}};
    if (nranks == 3) grids = {{1, 3}, {3, 1}};
    if (nranks == 4) grids = {{2, 2}, {1, 4}};
    const auto exact = make_backend("exact");
    const auto all_cases = cases();

    for (const auto& [P, Q] : grids) {
        mpi::Grid grid(MPI_COMM_WORLD, P, Q);
        const std::string where = std::to_string(P) + "x" + std::to_string(Q);
        for (const Case& c : all_cases) {
            const dim_t m = c.A.length(), n = c.A.width(), k = std::min(m, n);
            // The one-process references, on rank 0.
            struct Ref {
                const char* dist;
                const char* single;
                Matrix LU;
                Pivots p;
                dim_t info = 0;
            } refs[] = {{"var5", "lu_piv_unb_var5", c.A, Pivots(k)},
                        {"var5_unb", "lu_piv_unb_var5", c.A, Pivots(k)},
                        {"var3", "lu_piv_unb_var3", c.A, Pivots(k)}};
            for (Ref& ref : refs) {
                if (root) ref.info = lu(*exact, find_lu_variant(ref.single), ref.LU.view(), ref.p.view()).zero_pivot;
                broadcast(ref.p, ref.info);
            }
            for (dim_t nb : {1, 8, 64}) {
                const std::string what = c.name + " on " + where + ", nb " + std::to_string(nb);
                for (Ref& ref : refs) {
                    mpi::DistMatrix D = mpi::scatter(grid, root ? c.A.view() : Obj(), nb, nb);
                    Pivots p(k);
                    const mpi::DistLuInfo info = mpi::lu(ref.dist, D, p.view());
                    Matrix B = root ? Matrix(m, n) : Matrix();
                    mpi::gather(D, B.view());
                    expect(same_matrix_on_root(B.view(), ref.LU.view()), what + ": " + ref.dist + " L\\U bits");
                    expect(same_pivots(p, ref.p), what + ": " + ref.dist + " pivots");
                    expect(info.zero_pivot == ref.info, what + ": " + ref.dist + " info " +
                                                           std::to_string(info.zero_pivot) + ", not " +
                                                           std::to_string(ref.info));
                }
                // solve: x bit for bit flamex::solve's with the same variant (no refinement).
                if (m == n) {
                    const Matrix b = random_matrix(n, 2, 77, 0);
                    for (Ref& ref : refs) {
                        Matrix want(n, 2), got(n, 2);
                        if (root) solve(*exact, find_lu_variant(ref.single), c.A.view(), b.view(), want.view(), 0);
                        for (dim_t j = 0; j < 2; ++j) // (a Matrix's columns may be padded)
                            MPI_Bcast(&want(0, j), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
                        mpi::DistMatrix D = mpi::scatter(grid, root ? c.A.view() : Obj(), nb, nb);
                        Pivots p(n);
                        mpi::solve(ref.dist, D, p.view(), b.view(), got.view());
                        bool same = true;
                        for (dim_t j = 0; j < 2; ++j)
                            for (dim_t i = 0; i < n; ++i) same = same && same_bits(got(i, j), want(i, j));
                        expect(same, what + ": " + ref.dist + " solve's x");
                    }
                }
                if (c.name.rfind("NaN", 0) == 0) continue;
                mpi::DistMatrix D = mpi::scatter(grid, root ? c.A.view() : Obj(), nb, nb);
                Pivots p(k);
                const mpi::DistLuInfo info = mpi::lu("pdgetrf", D, p.view());
                Matrix B = root ? Matrix(m, n) : Matrix();
                mpi::gather(D, B.view());
                expect(backward_stable_on_root(c.A.view(), B.view(), p), what + ": pdgetrf P A = L U");
                expect(info.zero_pivot == refs[0].info, what + ": pdgetrf info " + std::to_string(info.zero_pivot));
            }
        }

        // A ScaLAPACK program's matrix: its own BLACS context and descriptor, the
        // first block on the last process row, used in place.
        {
            int ctxt = -1, np = 0, nq = 0, myr = 0, myc = 0;
            Cblacs_get(-1, 0, &ctxt);
            Cblacs_gridinit(&ctxt, "Col", P, Q);
            Cblacs_gridinfo(ctxt, &np, &nq, &myr, &myc);
            const Case& c = all_cases[0];
            const int m = static_cast<int>(c.A.length()), n = static_cast<int>(c.A.width()), nb = 4;
            const int rsrc = P - 1, csrc = 0, zero = 0;
            const int lr = numroc_(&m, &nb, &myr, &rsrc, &np), lc = numroc_(&n, &nb, &myc, &zero, &nq);
            const int lld = std::max(1, lr);
            int desc[9], dinfo = 0;
            descinit_(desc, &m, &n, &nb, &nb, &rsrc, &csrc, &ctxt, &lld, &dinfo);
            // Every rank fills its own part from the formula (no scatter).
            std::vector<double> local(static_cast<std::size_t>(lld * std::max(1, lc)));
            const mpi::CyclicMap rows{nb, np, rsrc}, cols{nb, nq, csrc};
            for (int j = 0; j < lc; ++j)
                for (int i = 0; i < lr; ++i)
                    local[static_cast<std::size_t>(i + j * lld)] = c.A(rows.global(i, myr), cols.global(j, myc));
            mpi::Grid theirs(ctxt);
            mpi::DistMatrix D(theirs, desc, local.data());
            Pivots p(std::min(m, n));
            mpi::lu_piv_var5(D.view(), p.view());
            Matrix ref = c.A;
            Pivots rp(std::min(m, n));
            lu(*exact, find_lu_variant("lu_piv_unb_var5"), ref.view(), rp.view());
            Matrix B = root ? Matrix(m, n) : Matrix();
            mpi::gather(D, B.view());
            expect(same_matrix_on_root(B.view(), ref.view()) && same_pivots(p, rp),
                  "a ScaLAPACK program's matrix in place on " + where);

            // Bad descriptors: every rank throws, naming the rank that found it.
            auto rejected = [&](int* d, const std::string& starts) {
                try {
                    mpi::DistMatrix bad(theirs, d, local.data());
                } catch (const Error& e) {
                    if (std::string(e.what()).rfind(starts, 0) == 0) return true;
                    std::fprintf(stderr, "rank %d: unexpected message: %s\n", r, e.what());
                }
                return false;
            };
            int d1[9];
            std::copy(desc, desc + 9, d1);
            if (r == nranks - 1) d1[8] = 0; // LLD below the local rows on the last rank
            expect(rejected(d1, "rank " + std::to_string(nranks - 1) + ": descriptor: LLD"), "LLD too small on " + where);
            flamex_mpi_test::checkpoint("LLD too small on the last rank, " + where);
            std::copy(desc, desc + 9, d1);
            if (r == 0) d1[3] = n + 1; // N differs on rank 0 only
            if (nranks > 1)
                expect(rejected(d1, "rank 0: descriptor: the ranks describe different matrices"),
                       "an inconsistent descriptor on " + where);
            flamex_mpi_test::checkpoint("an inconsistent descriptor, " + where);
            std::copy(desc, desc + 9, d1);
            d1[0] = 2;
            expect(rejected(d1, "rank 0: descriptor: DTYPE is 2"), "DTYPE on " + where);
            flamex_mpi_test::checkpoint("DTYPE, " + where);
            Cblacs_gridexit(ctxt);
        }
    }
    return flamex_mpi_test::finish("lu_check");
}
