// Benchmark: the distributed layer (mpi/) against its baselines; not a test.
//
//   mpirun -np 2 flamex_bench_mpi [--n N] [--n3 N3] [--dot N] [--block NB] [--markdown]
//
//  1. the order-fixed distributed LU (lu_piv_var5) against ScaLAPACK's pdgetrf on
//     the same 1 x R grid and block size, n = N (default 2048);
//  2. the exact distributed LUs against the one-process exact LU of the same
//     variant on R threads (var5: lu_piv_blk_var5_fma, n = N; var3: lu_piv_unb_var3,
//     n = N3, default N as well: the size);
//  3. the exact distributed dot of DOT elements (default 1e7) against the local
//     exact dot of the rank's share plus one MPI_Allreduce of a double;
//  4. the bytes each rank sends, counted (every MPI send and collective's payload
//     from this rank, through the PMPI profiling interface below; BLACS sends
//     through MPI_Send/Isend, so pdgetrf is counted the same way), beside the
//     textbook model of pdgetrf's volume.
// Each time is the best of --reps (default 2) runs, inputs restored outside the
// timed region. --markdown prints the tables with the machine, date, commit and load,
// as the block mpi_speed of docs/mpi.md (tools/benchmarks.sh mpi splices it there).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "mpi/mpi.hpp"
#include "variants/lu.hpp"

// --- bytes sent, counted through PMPI ----------------------------------------------

namespace {
long long bytes_sent = 0;
long long payload(int count, MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    return static_cast<long long>(count) * size;
}
} // namespace

extern "C" {
int MPI_Send(const void* b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm)
{
    bytes_sent += payload(c, t);
    return PMPI_Send(b, c, t, d, tag, comm);
}
int MPI_Isend(const void* b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm, MPI_Request* r)
{
    bytes_sent += payload(c, t);
    return PMPI_Isend(b, c, t, d, tag, comm, r);
}
int MPI_Rsend(const void* b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm)
{
    bytes_sent += payload(c, t);
    return PMPI_Rsend(b, c, t, d, tag, comm);
}
int MPI_Sendrecv_replace(void* b, int c, MPI_Datatype t, int d, int st, int s, int rt, MPI_Comm comm, MPI_Status* status)
{
    bytes_sent += payload(c, t);
    return PMPI_Sendrecv_replace(b, c, t, d, st, s, rt, comm, status);
}
// A broadcast's root sends the payload to each other rank (as a flat tree would).
int MPI_Bcast(void* b, int c, MPI_Datatype t, int root, MPI_Comm comm)
{
    int r = 0, n = 0;
    PMPI_Comm_rank(comm, &r);
    PMPI_Comm_size(comm, &n);
    if (r == root) bytes_sent += payload(c, t) * (n - 1);
    return PMPI_Bcast(b, c, t, root, comm);
}
// An allreduce sends at least its payload from every rank (n > 1).
int MPI_Allreduce(const void* s, void* r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    if (n > 1) bytes_sent += payload(c, t);
    return PMPI_Allreduce(s, r, c, t, op, comm);
}
// A reduction: every rank but the root sends its payload (at least once).
int MPI_Reduce(const void* s, void* r, int c, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm)
{
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    if (me != root) bytes_sent += payload(c, t);
    return PMPI_Reduce(s, r, c, t, op, root, comm);
}
// Gathers: every rank but the root sends its part; an allgatherv sends it to each other rank.
int MPI_Gather(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, int root, MPI_Comm comm)
{
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    if (me != root) bytes_sent += payload(sc, st);
    return PMPI_Gather(s, sc, st, r, rc, rt, root, comm);
}
int MPI_Gatherv(const void* s, int sc, MPI_Datatype st, void* r, const int* rc, const int* d, MPI_Datatype rt, int root,
                MPI_Comm comm)
{
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    if (me != root) bytes_sent += payload(sc, st);
    return PMPI_Gatherv(s, sc, st, r, rc, d, rt, root, comm);
}
int MPI_Allgatherv(const void* s, int sc, MPI_Datatype st, void* r, const int* rc, const int* d, MPI_Datatype rt,
                   MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    bytes_sent += payload(sc, st) * (n - 1);
    return PMPI_Allgatherv(s, sc, st, r, rc, d, rt, comm);
}
int MPI_Allgather(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    bytes_sent += payload(sc, st) * (n - 1);
    return PMPI_Allgather(s, sc, st, r, rc, rt, comm);
}
}

namespace {

using namespace flamex;
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string first_line_of(const char* path, const char* key)
{
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (key == nullptr || line.rfind(key, 0) == 0) {
            const auto colon = line.find(':');
            return key && colon != std::string::npos ? line.substr(colon + 2) : line;
        }
    return "?";
}

std::string commit()
{
    std::string out = "?";
    if (FILE* p = popen("git -C " FLAMEX_SOURCE_DIR " rev-parse --short HEAD 2>/dev/null", "r")) {
        char buf[64] = {};
        if (std::fgets(buf, sizeof buf, p)) out = std::string(buf, std::strcspn(buf, "\n"));
        pclose(p);
    }
    return out;
}

struct Row {
    std::string what;
    double ours, base;
    std::string base_name, target;
    double limit; // ratio target (0: none)
};

// Uniform in [-1, 1], or, with spread s > 0, badly scaled: (1 + u) 2^e with a random
// sign and e uniform in [-s, s], where the exact accumulators span more words.
double random_entry(std::mt19937_64& rng, int spread)
{
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    if (spread == 0) return u(rng);
    std::uniform_int_distribution<int> e(-spread, spread);
    const double x = std::ldexp(1.0 + std::fabs(u(rng)), e(rng));
    return u(rng) < 0 ? -x : x;
}

Matrix random_matrix(dim_t n, std::uint64_t seed, int spread = 0)
{
    std::mt19937_64 rng(seed);
    Matrix A(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) A(i, j) = random_entry(rng, spread);
    return A;
}

// Best of reps: a distributed LU of rank 0's A on grid; bytes this rank sent in the last.
std::pair<double, long long> time_dist_lu(const mpi::Grid& grid, const Matrix& A, dim_t nb, const char* variant, int reps)
{
    const bool root = mpi::rank(MPI_COMM_WORLD) == 0;
    double best = 1e300;
    long long bytes = 0;
    for (int r = 0; r < reps; ++r) {
        mpi::DistMatrix D = mpi::scatter(grid, root ? A.view() : Obj(), nb, nb);
        Pivots p(D.length());
        MPI_Barrier(MPI_COMM_WORLD);
        const long long before = bytes_sent;
        const auto t0 = Clock::now();
        mpi::lu(variant, D, p.view());
        MPI_Barrier(MPI_COMM_WORLD);
        best = std::min(best, seconds(t0));
        bytes = bytes_sent - before;
    }
    MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return {best, bytes};
}

double time_local_lu(const Matrix& A, const char* variant, int threads, int reps)
{
    BackendOptions o;
    o.threads = threads;
    const auto blas = make_backend("exact", o);
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
        Matrix B = A;
        Pivots p(B.length());
        const auto t0 = Clock::now();
        LuControl control;
        control.block = 64;
        lu(*blas, find_lu_variant(variant), B.view(), p.view(), control);
        best = std::min(best, seconds(t0));
    }
    return best;
}

void run(int argc, char** argv)
{
    const int rank = mpi::rank(MPI_COMM_WORLD), R = mpi::size(MPI_COMM_WORLD);
    const bool root = rank == 0;
    dim_t n = 2048, n3 = -1, nb = 64;
    long long ndot = 10000000;
    int reps = 2;
    bool markdown = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&] { return i + 1 < argc ? std::atoll(argv[++i]) : 0; };
        if (a == "--n") n = next();
        else if (a == "--n3") n3 = next();
        else if (a == "--dot") ndot = next();
        else if (a == "--block") nb = next();
        else if (a == "--reps") reps = static_cast<int>(next());
        else if (a == "--markdown") markdown = true;
    }
    if (n3 < 0) n3 = n;
    std::vector<Row> rows;
    mpi::Grid grid(MPI_COMM_WORLD, 1, R);
    const std::string g = "1x" + std::to_string(R);

    // 1. order-fixed distributed LU against pdgetrf, and its bytes.
    const Matrix A = random_matrix(n, 1);
    const auto [t5, b5] = time_dist_lu(grid, A, nb, "var5", reps);
    const auto [tp, bp] = time_dist_lu(grid, A, nb, "pdgetrf", reps);
    rows.push_back({"LU order-fixed (var5) vs pdgetrf, " + g + ", n = " + std::to_string(n) + ", NB = " + std::to_string(nb),
                    t5, tp, "pdgetrf", "1.5x", 1.5});
    // 2. exact distributed LUs against one process on R threads.
    double l5 = 0;
    if (root) l5 = time_local_lu(A, "lu_piv_blk_var5_fma", R, reps);
    MPI_Bcast(&l5, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    rows.push_back({"LU var5 distributed vs lu_piv_blk_var5_fma on " + std::to_string(R) + " threads, n = " + std::to_string(n),
                    t5, l5, "one process", "1.3x", 1.3});
    long long b3 = 0;
    for (const int spread : {0, 40}) {
        const Matrix A3 = random_matrix(n3, 2, spread);
        const auto [t3, bytes3] = time_dist_lu(grid, A3, nb, "var3", reps);
        if (spread == 0) b3 = bytes3;
        double l3 = 0;
        if (root) l3 = time_local_lu(A3, "lu_piv_unb_var3", R, reps);
        MPI_Bcast(&l3, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        rows.push_back({"LU var3 (exact) distributed vs lu_piv_unb_var3 on " + std::to_string(R) + " threads, n = " +
                            std::to_string(n3) + (spread ? ", entries over 2^±" + std::to_string(spread) : ""),
                        t3, l3, "one process", "1.3x", 1.3});
    }
    // 3. the exact distributed dot against the local exact dot + one MPI_Allreduce,
    // on uniform data and on terms spread over 2^±200 (with cancellation: random signs).
    const long long share = ndot / R + (rank < ndot % R ? 1 : 0);
    for (const int spread : {0, 200}) {
        std::vector<double> x(static_cast<std::size_t>(share)), y(x.size());
        std::mt19937_64 rng(3 + static_cast<std::uint64_t>(rank));
        for (std::size_t i = 0; i < x.size(); ++i) {
            x[i] = random_entry(rng, spread);
            y[i] = random_entry(rng, spread);
        }
        double td = 1e300, tl = 1e300;
        for (int r = 0; r < std::max(reps, 3); ++r) {
            MPI_Barrier(MPI_COMM_WORLD);
            auto t0 = Clock::now();
            volatile double v = mpi::dot(MPI_COMM_WORLD, share, x.data(), 1, y.data(), 1);
            td = std::min(td, seconds(t0));
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = Clock::now();
            double local = exact::exact_dot(share, x.data(), 1, y.data(), 1), all = 0;
            MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            tl = std::min(tl, seconds(t0));
            (void)v;
        }
        MPI_Allreduce(MPI_IN_PLACE, &td, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &tl, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        rows.push_back({"exact dot, " + std::to_string(ndot) + " elements over " + std::to_string(R) + " ranks" +
                            (spread ? ", terms over 2^±" + std::to_string(2 * spread) : ""),
                        td, tl, "local exact dot + MPI_Allreduce", "1.5x", 1.5});
    }

    // 4. bytes: the most any rank sent.
    long long most[3] = {b5, bp, b3};
    MPI_Allreduce(MPI_IN_PLACE, most, 3, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    // pdgetrf's model on a 1 x Q grid: each panel (n - k rows, NB columns) goes
    // from its owner to the Q - 1 others: sum_k (n - k) NB (Q - 1) 8 / Q bytes a rank,
    // about n^2 / 2 * 8 (Q - 1) / Q; the pivot rows stay within the process column.
    const double model = 0.5 * static_cast<double>(n) * static_cast<double>(n) * 8.0 * (R - 1) / R;

    if (root) {
        char date[64];
        const std::time_t now = std::time(nullptr);
        std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
        if (markdown) {
            // One block for tools/bench_markdown.py splice (docs/mpi.md; tools/benchmarks.sh mpi).
            std::printf("<!-- BEGIN mpi_speed -->\n");
            std::printf("flamex_bench_mpi: %d ranks (mpirun --oversubscribe where the cores are fewer), %s, %ld cores, "
                        "%s, commit %s, load %s\n\n",
                        R, first_line_of("/proc/cpuinfo", "model name").c_str(), static_cast<long>(sysconf(_SC_NPROCESSORS_ONLN)),
                        date, commit().c_str(), first_line_of("/proc/loadavg", nullptr).c_str());
            std::printf("| measurement | flamex (s) | baseline | baseline (s) | ratio | target | met |\n");
            std::printf("|---|---:|---|---:|---:|---:|---|\n");
            for (const Row& r : rows)
                std::printf("| %s | %.4g | %s | %.4g | %.2fx | %s | %s |\n", r.what.c_str(), r.ours, r.base_name.c_str(),
                            r.base, r.ours / r.base, r.target.c_str(), r.ours / r.base <= r.limit ? "yes" : "no");
            std::printf("\n| bytes sent, most of any rank | counted | pdgetrf model |\n|---|---:|---:|\n");
            std::printf("| LU var5 (order-fixed), n = %lld | %lld | %.0f |\n", static_cast<long long>(n), most[0], model);
            std::printf("| pdgetrf, n = %lld | %lld | %.0f |\n", static_cast<long long>(n), most[1], model);
            std::printf("| LU var3 (exact), n = %lld | %lld | %.0f |\n", static_cast<long long>(n3), most[2],
                        0.5 * static_cast<double>(n3) * static_cast<double>(n3) * 8.0 * (R - 1) / R);
            std::printf("<!-- END mpi_speed -->\n");
        } else {
            for (const Row& r : rows)
                std::printf("%s: %.4g s, %s %.4g s, ratio %.2f (target %s)\n", r.what.c_str(), r.ours, r.base_name.c_str(),
                            r.base, r.ours / r.base, r.target.c_str());
            std::printf("bytes sent (most of any rank): var5 %lld, pdgetrf %lld, var3 %lld; pdgetrf model %.0f\n", most[0],
                        most[1], most[2], model);
        }
    }
}

} // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    run(argc, argv); // the grids are freed before MPI is
    MPI_Finalize();
    return 0;
}
