// Experiment: how many entries of L\U (and pivots) differ from the 1x1 grid's, over
// grid shapes and block sizes, for ScaLAPACK's pdgetrf and for flamex's two
// distributed LUs (order-fixed var5, exact var3). Not a test.
//
//   mpirun -np 4 flamex_mpi_heatmap [--n N] [--seed S]
//
// Grids of up to the rank count run on the first P Q ranks (1x1, 1x2, 2x1, 1x3,
// 3x1, 2x2, 1x4, 4x1 with 4 ranks); blocks 1, 4, 16, 64; one seeded N x N
// matrix (default 96), uniform in [-1, 1). Prints a markdown table: one row per
// grid and block size, the count of entries of L\U whose bits differ from the
// 1x1 result (block 64) of the same method, and the seconds each took.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mpi/mpi.hpp"

using namespace flamex;

namespace {

Matrix random_matrix(dim_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Matrix A(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) A(i, j) = u(rng);
    return A;
}

// The factors (on rank 0 of comm) and the seconds, of method on a P x Q grid of comm.
Matrix factor(MPI_Comm comm, int P, int Q, dim_t nb, const char* method, const Matrix& A, double& seconds)
{
    const bool root = mpi::rank(comm) == 0;
    mpi::Grid grid(comm, P, Q);
    mpi::DistMatrix D = mpi::scatter(grid, root ? A.view() : Obj(), nb, nb);
    Pivots p(A.length());
    MPI_Barrier(comm);
    const auto t0 = std::chrono::steady_clock::now();
    mpi::lu(method, D, p.view());
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Matrix B = root ? Matrix(A.length(), A.width()) : Matrix();
    mpi::gather(D, B.view());
    return B;
}

long differing(const Matrix& a, const Matrix& b)
{
    long count = 0;
    for (dim_t j = 0; j < a.width(); ++j)
        for (dim_t i = 0; i < a.length(); ++i) count += std::memcmp(&a(i, j), &b(i, j), sizeof(double)) != 0;
    return count;
}

void run(dim_t n, std::uint64_t seed)
{
    const int rank = mpi::rank(MPI_COMM_WORLD), R = mpi::size(MPI_COMM_WORLD);
    const Matrix A = random_matrix(n, seed);
    const char* methods[] = {"pdgetrf", "var5", "var3"};
    std::vector<std::pair<int, int>> grids;
    for (int P = 1; P <= R; ++P)
        for (int Q = 1; P * Q <= R; ++Q)
            if (P * Q > 1 || grids.empty()) grids.push_back({P, Q});
    grids.insert(grids.begin(), {1, 1});
    grids.erase(std::unique(grids.begin(), grids.end()), grids.end());
    Matrix reference[3];
    if (rank == 0)
        std::printf("flamex_mpi_heatmap: n = %lld, seed %llu; entries of L\\U differing from the 1x1 grid's (block 64)\n\n"
                    "| grid | block | pdgetrf | var5 (order-fixed) | var3 (exact) | seconds pdgetrf / var5 / var3 |\n"
                    "|---|---:|---:|---:|---:|---|\n",
                    static_cast<long long>(n), static_cast<unsigned long long>(seed));
    bool first = true;
    for (const auto& [P, Q] : grids)
        for (dim_t nb : {64, 16, 4, 1}) {
            if (P * Q == 1 && !first && nb == 64) continue;
            MPI_Comm comm;
            MPI_Comm_split(MPI_COMM_WORLD, rank < P * Q ? 0 : MPI_UNDEFINED, rank, &comm);
            long counts[3] = {0, 0, 0};
            double secs[3] = {0, 0, 0};
            if (comm != MPI_COMM_NULL) {
                for (int m = 0; m < 3; ++m) {
                    const Matrix B = factor(comm, P, Q, nb, methods[m], A, secs[m]);
                    if (rank == 0) {
                        if (first) reference[m] = B;
                        counts[m] = differing(B, reference[m]);
                    }
                }
                MPI_Comm_free(&comm);
            }
            if (rank == 0)
                std::printf("| %dx%d | %lld | %ld | %ld | %ld | %.3g / %.3g / %.3g |\n", P, Q, static_cast<long long>(nb),
                            counts[0], counts[1], counts[2], secs[0], secs[1], secs[2]);
            first = false;
        }
}

} // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    dim_t n = 96;
    std::uint64_t seed = 29;
    for (int i = 1; i + 1 < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--n") n = std::atoll(argv[++i]);
        else if (a == "--seed") seed = std::strtoull(argv[++i], nullptr, 10);
    }
    run(n, seed);
    MPI_Finalize();
    return 0;
}
