// The distributed forms of lu, solve and dot: the same command line with
// `--grid PxQ`, run by every rank under mpirun (mpi/mpi.hpp):
//
//   mpirun -np 4 flamex lu A.mtx --grid 2x2 --block 64 --variant lu_piv_unb_var5 --backend exact -o LU.mtx
//
// Rank 0 reads the files, the matrix is scattered block-cyclically (NB x NB
// blocks, --block) over the P x Q grid, factored or solved there, gathered, and
// rank 0 writes the same files the one-process command writes (same bits, same
// comment lines). Variants: lu_piv_unb_var5 and lu_piv_blk_var5_fma (the
// order-fixed right-looking LU, both the bits of unb var5 on exact),
// lu_piv_unb_var3 (left-looking, exact reductions), pdgetrf (ScaLAPACK, the
// baseline). The backend is exact (the only one whose bits the distributed
// variants promise to keep). Errors found on any rank are printed once, by rank
// 0, naming the rank that found them, and every rank exits with the same status.
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "io/matrix_market.hpp"
#include "mpi/mpi.hpp"
#include "tools/flamex/cli.hpp"

namespace flamex::cli {
namespace {

const Option kGrid{"--grid", nullptr, "PxQ", "run on a P x Q process grid (P Q ranks, under mpirun)"};
const Option kGridVariant{"--variant", nullptr, "NAME",
                          "lu_piv_unb_var3 (default), lu_piv_unb_var5, lu_piv_blk_var5_fma or pdgetrf"};
const Option kGridBlock{"--block", nullptr, "NB", "distribution block size, NB x NB (>= 1, default 64)"};
const Option kGridPivots{"--pivots", nullptr, "FILE", "write the pivots to FILE, LAPACK's 1-based ipiv, one per line"};

// Started without a launcher, MPI runs one rank: say how to start more.
bool launched = false; // whether a launcher's variables were there before MPI_Init
void require_launcher(std::pair<int, int> grid)
{
    const long long want = static_cast<long long>(grid.first) * grid.second;
    if (mpi::size(MPI_COMM_WORLD) != 1 || want == 1) return;
    if (launched) return;
    throw Error("a " + std::to_string(grid.first) + "x" + std::to_string(grid.second) + " grid needs " +
                std::to_string(want) + " ranks, and this flamex was started without an MPI launcher (1 rank): run "
                "it as `mpirun -np " + std::to_string(want) + " flamex ...`");
}

// MPI for the duration of one command (initialized here unless already).
class Session {
public:
    Session()
    {
        // (Read before MPI_Init, which sets some of them for a singleton too.)
        for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
            launched = launched || std::getenv(v) != nullptr;
        int done = 0;
        MPI_Initialized(&done);
        if (!done) MPI_Init(nullptr, nullptr);
        owned_ = !done;
    }
    ~Session()
    {
        if (owned_) MPI_Finalize();
    }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

private:
    bool owned_ = false;
};

bool is_root() { return mpi::rank(MPI_COMM_WORLD) == 0; }

// The error path's exit, on every rank: a barrier with a deadline. Where every
// rank agreed on the error (mpi::collective) they all arrive at once; a rank
// that does not arrive within the guard is waiting in a collective the error
// never reached, so the one that gave up prints its own message, naming its
// rank, and ends the job (MPI_Abort with the same status): never a hang.
void leave_together(const Args& a, const std::string& message, int status)
{
    if (mpi::barrier_within(MPI_COMM_WORLD, 10)) return;
    std::cerr << "flamex " << a.command << ": rank " << mpi::rank(MPI_COMM_WORLD) << ": " << message
              << " (the other ranks did not get past it within 10 s: aborting)\n";
    MPI_Abort(MPI_COMM_WORLD, status);
}

// The distributed variant for a one-process name, and the name files carry.
std::string distributed_variant(const Args& a)
{
    const std::string v = a.get(kGridVariant).value_or("lu_piv_unb_var3");
    if (v == "lu_piv_unb_var5" || v == "lu_piv_blk_var5_fma") return "var5";
    if (v == "lu_piv_unb_var3") return "var3";
    if (v == "pdgetrf") return "pdgetrf";
    throw Error("--grid: variant '" + v + "' has no distributed form (lu_piv_unb_var3, lu_piv_unb_var5, "
                "lu_piv_blk_var5_fma, pdgetrf)");
}

void check_backend(const Args& a)
{
    const auto b = a.get(kBackend);
    if (b && *b != "exact") throw Error("--grid runs on the exact backend, not '" + *b + "'");
}

// Runs body() on every rank; an error from any rank is printed once (by rank 0)
// and becomes every rank's exit status.
template <class Body>
int on_every_rank(const Args& a, Body body)
{
    Session session;
    std::string message;
    try {
        return body();
    } catch (const UsageError& e) {
        message = e.what();
        if (is_root()) std::cerr << "flamex " << a.command << ": " << e.what() << "\nTry 'flamex " << a.command << " --help'.\n";
    } catch (const std::exception& e) {
        message = e.what();
        if (is_root()) std::cerr << "flamex " << a.command << ": " << e.what() << "\n";
    }
    leave_together(a, message, kBadInput);
    return kBadInput;
}

struct Setup {
    std::pair<int, int> grid;
    dim_t block = 64;
};

Setup setup(const Args& a)
{
    Setup s;
    mpi::collective(MPI_COMM_WORLD, [&] {
        s.grid = mpi::parse_grid(a.get(kGrid).value_or(""));
        s.block = integer_option(a, kGridBlock, 64, 1, 1 << 30);
        check_backend(a);
        require_launcher(s.grid);
    });
    return s;
}

// Rank 0 reads path (an error there reaches every rank).
Matrix read_on_root(const std::string& path)
{
    Matrix A;
    mpi::collective(MPI_COMM_WORLD, [&] {
        if (is_root()) A = io::read_matrix_market(path);
    });
    return A;
}

int zero_pivot(const Args& a, dim_t column)
{
    if (is_root())
        std::cerr << "flamex " << a.command << ": matrix is singular: zero pivot in column " << column << "\n";
    return kNumericalFailure;
}

int run_lu_grid(const Args& a)
{
    return on_every_rank(a, [&] {
        require_operands(command("lu"), a);
        const Setup s = setup(a);
        std::string dist, name = a.get(kGridVariant).value_or("lu_piv_unb_var3");
        mpi::collective(MPI_COMM_WORLD, [&] { dist = distributed_variant(a); });
        const mpi::Grid grid(MPI_COMM_WORLD, s.grid.first, s.grid.second);
        Matrix A = read_on_root(a.operands[0]);
        mpi::DistMatrix D = mpi::scatter(grid, is_root() ? A.view() : Obj(), s.block, s.block);
        Pivots p(std::min(D.length(), D.width()));
        const auto start = std::chrono::steady_clock::now();
        const mpi::DistLuInfo info = mpi::lu(dist, D, p.view());
        const double seconds = seconds_since(start);
        mpi::gather(D, is_root() ? A.view() : Obj());
        const auto out = a.get(kOutput), pivot_file = a.get(kGridPivots);
        bool stdout_used = false;
        mpi::collective(MPI_COMM_WORLD, [&] {
            if (!is_root()) return;
            if (out) {
                io::write_matrix_market(*out, A, "LU factors of " + a.operands[0] + " by " + name);
                stdout_used |= *out == "-";
            }
            if (pivot_file) {
                io::write_pivots(*pivot_file, p);
                stdout_used |= *pivot_file == "-";
            }
            if (!stdout_used)
                Summary()
                    .add("m", A.length())
                    .add("n", A.width())
                    .add("variant", name)
                    .add("backend", dist == "pdgetrf" ? "scalapack" : "exact")
                    .add("grid", std::to_string(s.grid.first) + "x" + std::to_string(s.grid.second))
                    .add("block", s.block)
                    .add("time_s", seconds)
                    .add("info", info.zero_pivot)
                    .print();
        });
        return info.zero_pivot ? zero_pivot(a, info.zero_pivot) : kSuccess;
    });
}

int run_solve_grid(const Args& a)
{
    return on_every_rank(a, [&] {
        require_operands(command("solve"), a);
        const Setup s = setup(a);
        std::string dist, name = a.get(kGridVariant).value_or("lu_piv_unb_var3");
        mpi::collective(MPI_COMM_WORLD, [&] { dist = distributed_variant(a); });
        const mpi::Grid grid(MPI_COMM_WORLD, s.grid.first, s.grid.second);
        Matrix A = read_on_root(a.operands[0]);
        Matrix b = read_on_root(a.operands[1]);
        long long dims[3] = {A.length(), A.width(), b.width() == 1 ? b.length() : (b.length() == 1 ? b.width() : -1)};
        MPI_Bcast(dims, 3, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        mpi::collective(MPI_COMM_WORLD, [&] {
            if (!is_root()) return;
            if (dims[0] != dims[1])
                throw Error(a.operands[0] + ": solve needs a square matrix, got " + std::to_string(dims[0]) + "x" +
                            std::to_string(dims[1]));
            if (dims[2] != dims[0])
                throw Error("dimensions do not conform: " + a.operands[0] + " is " + std::to_string(dims[0]) + "x" +
                            std::to_string(dims[1]) + " but " + a.operands[1] + " is " + std::to_string(b.length()) +
                            "x" + std::to_string(b.width()));
        });
        const dim_t n = dims[0];
        Matrix bv(n, 1), x(n, 1);
        if (is_root())
            for (dim_t i = 0; i < n; ++i) bv(i, 0) = b.width() == 1 ? b(i, 0) : b(0, i);
        if (n > 0) MPI_Bcast(&bv(0, 0), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
        mpi::DistMatrix D = mpi::scatter(grid, is_root() ? A.view() : Obj(), s.block, s.block);
        Pivots p(n);
        const auto start = std::chrono::steady_clock::now();
        const mpi::DistLuInfo info = mpi::solve(dist, D, p.view(), bv.view(), x.view());
        const double seconds = seconds_since(start);
        if (info.zero_pivot) return zero_pivot(a, info.zero_pivot);
        mpi::collective(MPI_COMM_WORLD, [&] {
            if (!is_root()) return;
            const auto out = a.get(kOutput);
            io::write_matrix_market(out.value_or("-"), x, "solution of " + a.operands[0] + " x = " + a.operands[1]);
            if (out && *out != "-")
                Summary()
                    .add("n", n)
                    .add("variant", name)
                    .add("backend", dist == "pdgetrf" ? "scalapack" : "exact")
                    .add("grid", std::to_string(s.grid.first) + "x" + std::to_string(s.grid.second))
                    .add("block", s.block)
                    .add("time_s", seconds)
                    .add("info", 0)
                    .print();
        });
        return kSuccess;
    });
}

// x and y split block-cyclically (NB elements a block) over every rank.
int run_dot_grid(const Args& a)
{
    return on_every_rank(a, [&] {
        require_operands(command("dot"), a);
        const Setup s = setup(a);
        const mpi::Grid grid(MPI_COMM_WORLD, s.grid.first, s.grid.second);
        const mpi::Grid line(MPI_COMM_WORLD, s.grid.first * s.grid.second, 1);
        auto as_column = [](const Matrix& v) {
            if (v.width() == 1 || v.length() != 1) return v;
            Matrix c(v.width(), 1);
            for (dim_t i = 0; i < v.width(); ++i) c(i, 0) = v(0, i);
            return c;
        };
        const Matrix x = as_column(read_on_root(a.operands[0]));
        const Matrix y = as_column(read_on_root(a.operands[1]));
        mpi::collective(MPI_COMM_WORLD, [&] {
            if (!is_root()) return;
            for (const auto& [v, path] : {std::pair<const Matrix*, std::string>{&x, a.operands[0]}, {&y, a.operands[1]}})
                if (v->width() != 1)
                    throw Error(path + ": expected a vector (n x 1 or 1 x n), got a " + std::to_string(v->length()) +
                                "x" + std::to_string(v->width()) + " matrix");
            if (x.length() != y.length())
                throw Error("dimensions do not conform: " + a.operands[0] + " has " + std::to_string(x.length()) +
                            " entries but " + a.operands[1] + " has " + std::to_string(y.length()));
        });
        const mpi::DistMatrix dx = mpi::scatter(line, is_root() ? x.view() : Obj(), s.block, 1);
        const mpi::DistMatrix dy = mpi::scatter(line, is_root() ? y.view() : Obj(), s.block, 1);
        const double value = mpi::dot(MPI_COMM_WORLD, dx.local_cols() ? dx.local_rows() : 0, dx.local(), 1,
                                      dy.local(), 1);
        if (is_root()) std::cout << io::format_real(value) << "\n";
        return kSuccess;
    });
}

} // namespace

const std::vector<Command>& distributed_commands()
{
    static const std::vector<Command> table = {
        {"lu", {"A.mtx"},
         "Factors P A = L U on a P x Q process grid, under mpirun: rank 0 reads A, the\n"
         "matrix is distributed in NB x NB blocks, and rank 0 writes the factors (-o) and\n"
         "pivots (--pivots): the same files as the one-process command with the same\n"
         "variant on the exact backend, for any grid and block size (pdgetrf: ScaLAPACK's).",
         {&kGrid, &kGridVariant, &kBackend, &kGridBlock, &kOutput, &kGridPivots, &kHelp},
         {&kGrid},
         {},
         run_lu_grid},
        {"solve", {"A.mtx", "b.mtx"},
         "Solves A x = b on a P x Q process grid, under mpirun: x is the one-process\n"
         "command's on the exact backend with the same variant (no refinement).",
         {&kGrid, &kGridVariant, &kBackend, &kGridBlock, &kOutput, &kHelp},
         {&kGrid},
         {},
         run_solve_grid},
        {"dot", {"x.mtx", "y.mtx"},
         "Prints x^T y (x and y split over P Q ranks in blocks of NB, under mpirun): the\n"
         "exact dot of one process, whatever the split.",
         {&kGrid, &kBackend, &kGridBlock, &kHelp},
         {&kGrid},
         {},
         run_dot_grid},
    };
    return table;
}

const Command* distributed_form(const Command& c)
{
    for (const Command& d : distributed_commands())
        if (std::string(d.name) == c.name) return &d;
    return nullptr;
}

const Command* distributed_command(const Command& c, int first, int argc, char** argv)
{
    for (int i = first; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") break;
        if (arg == "--grid" || arg.rfind("--grid=", 0) == 0) return distributed_form(c);
    }
    return nullptr;
}

} // namespace flamex::cli
