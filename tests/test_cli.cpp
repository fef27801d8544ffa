// The `flamex` command-line program, run for real: exit status 2 with a message
// that says what for every kind of bad usage or input, 1 with the column for a
// singular matrix, and correct results on small known cases.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "support/test_support.hpp"
#include "io/matrix_market.hpp"
#include "reference/generators.hpp"
#include "variants/chol.hpp"
#include "variants/ldlt.hpp"
#include "variants/lu.hpp"
#include "variants/trinv.hpp"

using flamex::dim_t;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;
namespace io = flamex::io;

namespace {

using Result = flamex::test::ProgramRun;
using flamex::test::slurp;

class Cli : public testing::Test {
protected:
    std::string path(const std::string& name) const { return scratch_.path(name); }

    std::string write(const std::string& name, const std::string& text) const
    {
        std::ofstream(path(name), std::ios::binary) << text;
        return path(name);
    }

    std::string write(const std::string& name, Obj A) const
    {
        io::write_matrix_market(path(name), A);
        return path(name);
    }

    // Runs `flamex ARGS` (each argument shell-quoted) with an optional environment
    // assignment, capturing stdout and stderr.
    Result run(const std::vector<std::string>& args, const std::string& env = "") const
    {
        return flamex::test::run_program(FLAMEX_CLI, args, scratch_, env);
    }

    Matrix read_stdout() const { return io::read_matrix_market(path("stdout")); }

    // Exit status 2, nothing on stdout, and stderr containing every one of `says`.
    void expect_bad_input(const std::vector<std::string>& args, const std::vector<std::string>& says,
                          const std::string& env = "") const
    {
        const Result r = run(args, env);
        EXPECT_EQ(r.status, 2) << "stderr: " << r.err;
        EXPECT_EQ(r.out, "");
        for (const std::string& s : says) EXPECT_NE(r.err.find(s), std::string::npos) << "'" << s << "' not in: " << r.err;
    }

    flamex::test::ScratchDir scratch_{"cli"};
};

std::string matrix_file_text(dim_t m, dim_t n, const std::vector<double>& column_major)
{
    std::ostringstream out;
    io::write_matrix_market(out, Matrix(m, n, column_major));
    return out.str();
}

// A value of the form "key=value" in a summary line.
std::string summary_value(const std::string& line, const std::string& key)
{
    std::istringstream in(line);
    std::string field;
    while (in >> field)
        if (field.rfind(key + "=", 0) == 0) return field.substr(key.size() + 1);
    return "<missing " + key + ">";
}

// ||b - A x||_inf / (||A||_inf ||x||_inf n u), in long double.
double solve_backward_error(Obj A, Obj b, Obj x)
{
    const dim_t n = A.length();
    const double scale = flamex::test::norm_inf(A) * flamex::test::norm_inf(x) * static_cast<double>(n) *
                         std::numeric_limits<double>::epsilon() / 2;
    return flamex::test::residual_inf(A, b, x) / scale;
}

} // namespace

// --- exit status 2: bad usage ----------------------------------------------------

TEST_F(Cli, NoSubcommandPrintsUsage)
{
    const Result r = run({});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("usage: flamex"), std::string::npos) << r.err;
}

TEST_F(Cli, UnknownSubcommand) { expect_bad_input({"frobnicate"}, {"unknown subcommand 'frobnicate'"}); }

TEST_F(Cli, UnknownOption)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"lu", A, "--bogus"}, {"unknown option '--bogus'", "flamex lu --help"});
}

TEST_F(Cli, OptionOfAnotherSubcommand)
{
    const std::string x = write("x.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"dot", x, x, "--refine", "2"}, {"unknown option '--refine'"});
}

TEST_F(Cli, FlagGivenAValue)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"gemv", A, A, "--trans=yes"}, {"--trans", "takes no value"});
}

TEST_F(Cli, DuplicateOption)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"lu", A, "--threads", "1", "--threads", "2"}, {"--threads", "more than once"});
}

TEST_F(Cli, MissingOperand)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"solve", A}, {"missing argument b.mtx"});
    expect_bad_input({"lu"}, {"missing argument A.mtx"});
}

TEST_F(Cli, ExtraOperand)
{
    const std::string x = write("x.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"dot", x, x, x}, {"unexpected argument"});
}

TEST_F(Cli, MissingOptionValue)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"lu", A, "--block"}, {"--block", "requires a value"});
    expect_bad_input({"lu", A, "--variant", "--threads", "2"}, {"--variant", "requires a value"});
    expect_bad_input({"lu", A, "-o"}, {"--output", "requires a value"});
}

TEST_F(Cli, BadNumberForBlock)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    for (const char* bad : {"12abc", "-4", "0", "1.5", ""}) expect_bad_input({"lu", A, "--block", bad}, {"--block"});
    expect_bad_input({"lu", A, "--block=x"}, {"--block", "'x' is not an integer"});
}

TEST_F(Cli, BadNumberForThreads)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    for (const char* bad : {"two", "-1", "0", "4x"}) expect_bad_input({"solve", A, A, "--threads", bad}, {"--threads"});
}

TEST_F(Cli, BadNumberForRefine)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    for (const char* bad : {"-1", "1.5", "2x"}) {
        expect_bad_input({"solve", A, A, "--refine", bad}, {"--refine"});
        expect_bad_input({"trsv", A, A, "--refine", bad}, {"--refine"});
    }
}

TEST_F(Cli, BadNumberForAlpha)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"gemv", A, A, "--alpha", "abc"}, {"--alpha", "'abc' is not a number"});
    expect_bad_input({"gemv", A, A, "--y", A, "--beta", "1e999"}, {"--beta"});
}

TEST_F(Cli, BetaNeedsY)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"gemv", A, A, "--beta", "2"}, {"--beta", "--y"});
}

TEST_F(Cli, LowerAndUpperExcludeEachOther)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"trsv", A, A, "--lower", "--upper"}, {"--lower", "--upper"});
}

TEST_F(Cli, InnerNeedsABlockedVariant)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"lu", A, "--inner", "lu_piv_unb_var3"}, {"--inner", "lu_piv_unb_var3"});
}

TEST_F(Cli, UnknownVariant)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"lu", A, "--variant", "lu_nope"}, {"unknown LU variant 'lu_nope'", "lu_piv_unb_var3"});
    expect_bad_input({"solve", A, A, "--variant", "lu_nope"}, {"unknown LU variant 'lu_nope'"});
}

TEST_F(Cli, UnknownBackend)
{
    const std::string x = write("x.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"dot", x, x, "--backend", "nope"}, {"unknown backend 'nope'", "blis"});
}

TEST_F(Cli, UnknownBackendFromEnvironment)
{
    const std::string x = write("x.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"dot", x, x}, {"unknown backend 'nope'", "FLAMEX_BACKEND"}, "FLAMEX_BACKEND=nope");
}

TEST_F(Cli, UnknownOpenClDevice)
{
    const std::string x = write("x.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"dot", x, x, "--backend", "opencl-plain", "--device", "no-such-device"}, {"no-such-device"});
}

TEST_F(Cli, NoOpenClPlatformForDevices)
{
    // The ICD loader finds no platform when its vendor directory is empty.
    std::filesystem::create_directories(path("no-vendors"));
    expect_bad_input({"devices"}, {"OpenCL"}, "OCL_ICD_VENDORS=" + path("no-vendors"));
}

TEST_F(Cli, GenUnknownKind) { expect_bad_input({"gen", "qr", "--n", "8"}, {"unknown problem kind 'qr'"}); }

TEST_F(Cli, GenNeedsASize) { expect_bad_input({"gen", "dot"}, {"--n"}); }

TEST_F(Cli, GenWritesAProblemOfTheMeasuredCondition)
{
    const Result r = run({"gen", "dot", "--n", "40", "--cond", "1e20", "--seed", "3", "-o", path("p")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(path("p") + "_x.mtx"), std::string::npos) << r.out;
    const double measured = std::stod(summary_value(r.out.substr(r.out.find("measured_cond")), "measured_cond"));
    EXPECT_GT(measured, 1e19);
    EXPECT_LT(measured, 1e21);
    const Result again = run({"gen", "dot", "--n", "40", "--cond", "1e20", "--seed", "3", "-o", path("q")});
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_EQ(slurp(path("p") + "_y.mtx"), slurp(path("q") + "_y.mtx")); // seeded: the same bits
}

TEST_F(Cli, DevicesListsTheSelectableDevices)
{
    const Result r = run({"devices"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("0: ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("fp64"), std::string::npos) << r.out;
}

// --- exit status 2: bad input files ----------------------------------------------

TEST_F(Cli, MissingFile)
{
    expect_bad_input({"lu", path("missing.mtx")}, {path("missing.mtx"), "cannot open"});
}

TEST_F(Cli, UnreadableFileIsADirectory) { expect_bad_input({"lu", scratch_.dir()}, {scratch_.dir(), "directory"}); }

// Root reads a file whatever its mode, and CI runs the suite as root: there the
// program runs as nobody (setpriv, util-linux), for whom the mode holds.
TEST_F(Cli, UnreadableFileWithoutPermission)
{
    const std::string A = write("locked.mtx", matrix_file_text(1, 1, {2}));
    ASSERT_EQ(chmod(A.c_str(), 0), 0);
    if (geteuid() != 0) {
        expect_bad_input({"lu", A}, {A, "cannot open", "Permission denied"});
        return;
    }
    ASSERT_EQ(chmod(scratch_.dir().c_str(), 0755), 0); // nobody may look inside, not read locked.mtx
    const std::vector<std::string> as_nobody{"--reuid=65534", "--regid=65534", "--clear-groups", FLAMEX_CLI};
    auto args = as_nobody;
    args.emplace_back("--version");
    if (flamex::test::run_program("setpriv", args, scratch_).status != 0) // a checkout under a private home
        GTEST_SKIP() << "nobody cannot run " << FLAMEX_CLI << " here; UnreadablePathsNameTheFileAndTheReason still runs";
    args = as_nobody;
    args.insert(args.end(), {"lu", A});
    const Result r = flamex::test::run_program("setpriv", args, scratch_);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "");
    for (const std::string& say : {A, std::string("cannot open"), std::string("Permission denied")})
        EXPECT_NE(r.err.find(say), std::string::npos) << "'" << say << "' not in: " << r.err;
}

// Paths no user can read a matrix from, root included.
TEST_F(Cli, UnreadablePathsNameTheFileAndTheReason)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    expect_bad_input({"lu", A + "/inner.mtx"}, {A + "/inner.mtx", "Not a directory"});
    std::filesystem::create_symlink("loop.mtx", path("loop.mtx")); // a link to itself
    expect_bad_input({"lu", path("loop.mtx")}, {path("loop.mtx"), "Too many levels of symbolic links"});
    expect_bad_input({"solve", A, scratch_.dir()}, {scratch_.dir(), "is a directory"});
    expect_bad_input({"lu", A, "--pivots", path("p.txt"), "-o", scratch_.dir()}, {scratch_.dir(), "cannot open for writing"});
}

TEST_F(Cli, MalformedFileNamesFileAndLine)
{
    const std::string A = write("bad.mtx", "%%MatrixMarket matrix array real general\n% comment\n2 1\n1\nabc\n");
    expect_bad_input({"lu", A}, {A + ":5:", "'abc'"});
}

TEST_F(Cli, MalformedSizeLine)
{
    const std::string A = write("bad.mtx", "%%MatrixMarket matrix array real general\n2 -2\n");
    expect_bad_input({"lu", A}, {A + ":2:", "negative"});
}

TEST_F(Cli, TooFewValues)
{
    const std::string b = write("b.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n");
    const std::string A = write("A.mtx", matrix_file_text(3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1}));
    expect_bad_input({"solve", A, b}, {b + ":4:", "too few values"});
}

// The CLI reads what the library reads: coordinate files as dense matrices, complex
// ones rejected naming the file and line.
TEST_F(Cli, CoordinateFilesAreReadAndComplexIsRejected)
{
    const std::string A = write("sparse.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 4\n2 1 1\n2 2 3\n");
    const Result r = run({"lu", A, "-o", path("LU.mtx")});
    EXPECT_EQ(r.status, 0) << r.err;
    const Matrix LU = io::read_matrix_market(path("LU.mtx"));
    EXPECT_EQ(LU(0, 1), 1.0);  // U(0, 1) = A(0, 1), the mirrored entry
    EXPECT_EQ(LU(1, 0), 0.25); // L(1, 0) = A(1, 0) / A(0, 0)
    const std::string C = write("complex.mtx", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 3 0\n");
    expect_bad_input({"lu", C}, {C + ":1:", "complex", "not supported"});
}

TEST_F(Cli, UnwritableOutput)
{
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {2}));
    const Result r = run({"lu", A, "-o", path("no/such/dir/LU.mtx")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("no/such/dir/LU.mtx"), std::string::npos) << r.err;
}

// --- exit status 2: dimensions that do not conform --------------------------------

TEST_F(Cli, SolveNonConforming)
{
    const std::string A = write("A.mtx", matrix_file_text(2, 2, {1, 0, 0, 1}));
    const std::string b = write("b.mtx", matrix_file_text(3, 1, {1, 2, 3}));
    expect_bad_input({"solve", A, b}, {"do not conform", "A.mtx", "b.mtx"});
}

TEST_F(Cli, SolveNonSquare)
{
    const std::string A = write("A.mtx", matrix_file_text(2, 3, {1, 0, 0, 1, 0, 0}));
    const std::string b = write("b.mtx", matrix_file_text(2, 1, {1, 2}));
    expect_bad_input({"solve", A, b}, {"A.mtx", "square", "2x3"});
}

TEST_F(Cli, DotNonConforming)
{
    const std::string x = write("x.mtx", matrix_file_text(2, 1, {1, 2}));
    const std::string y = write("y.mtx", matrix_file_text(3, 1, {1, 2, 3}));
    expect_bad_input({"dot", x, y}, {"do not conform", "x.mtx", "y.mtx"});
}

TEST_F(Cli, DotNeedsVectors)
{
    const std::string x = write("x.mtx", matrix_file_text(2, 1, {1, 2}));
    const std::string M = write("M.mtx", matrix_file_text(2, 2, {1, 2, 3, 4}));
    expect_bad_input({"dot", x, M}, {"M.mtx", "vector", "2x2"});
}

TEST_F(Cli, GemvNonConforming)
{
    const std::string A = write("A.mtx", matrix_file_text(2, 3, {1, 2, 3, 4, 5, 6}));
    const std::string x2 = write("x2.mtx", matrix_file_text(2, 1, {1, 1}));
    const std::string x3 = write("x3.mtx", matrix_file_text(3, 1, {1, 1, 1}));
    expect_bad_input({"gemv", A, x2}, {"do not conform", "x2.mtx"});
    expect_bad_input({"gemv", A, x3, "--trans"}, {"do not conform", "A^T", "x3.mtx"});
    expect_bad_input({"gemv", A, x3, "--y", x3}, {"do not conform", "x3.mtx"});
}

TEST_F(Cli, TrsvNonConforming)
{
    const std::string T = write("T.mtx", matrix_file_text(2, 2, {1, 2, 0, 1}));
    const std::string b = write("b.mtx", matrix_file_text(3, 1, {1, 2, 3}));
    expect_bad_input({"trsv", T, b}, {"do not conform", "T.mtx", "b.mtx"});
    const std::string R = write("R.mtx", matrix_file_text(2, 3, {1, 2, 3, 4, 5, 6}));
    expect_bad_input({"trsv", R, b}, {"R.mtx", "square"});
}

// --- exit status 1: singular matrices ---------------------------------------------

TEST_F(Cli, LuSingularNamesTheColumn)
{
    const std::string A = write("S.mtx", matrix_file_text(3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 0}));
    const Result r = run({"lu", A, "-o", path("LU.mtx")});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("lu: matrix is singular: zero pivot in column 3"), std::string::npos) << r.err;
    EXPECT_EQ(summary_value(r.out, "info"), "3") << r.out;
    EXPECT_TRUE(std::filesystem::exists(path("LU.mtx"))); // the factors are still written, as getrf's
}

TEST_F(Cli, LuSingularInTheMiddleColumn)
{
    // Column 2 is zero: the first zero pivot is in column 2 and the factorization goes on.
    const std::string A = write("S.mtx", matrix_file_text(3, 3, {2, 1, 1, 0, 0, 0, 1, 3, 5}));
    const Result r = run({"lu", A});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("zero pivot in column 2"), std::string::npos) << r.err;
}

TEST_F(Cli, SolveSingularNamesTheColumn)
{
    const std::string A = write("S.mtx", matrix_file_text(3, 3, {2, 4, 0, 1, 3, 0, 1, 3, 0}));
    const std::string b = write("b.mtx", matrix_file_text(3, 1, {1, 2, 3}));
    const Result r = run({"solve", A, b});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("solve: matrix is singular: zero pivot in column 3"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
}

TEST_F(Cli, TrsvZeroDiagonalNamesTheColumn)
{
    const std::string T = write("T.mtx", matrix_file_text(2, 2, {1, 2, 0, 0}));
    const std::string b = write("b.mtx", matrix_file_text(2, 1, {1, 2}));
    const Result r = run({"trsv", T, b});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("trsv: matrix is singular: zero on the diagonal in column 2"), std::string::npos) << r.err;
    // With --unit the stored diagonal is not read: x = (1, 2 - 2*1) = (1, 0).
    const Result unit = run({"trsv", T, b, "--unit"});
    ASSERT_EQ(unit.status, 0) << unit.err;
    const Matrix x = read_stdout();
    EXPECT_EQ(x(0, 0), 1.0);
    EXPECT_EQ(x(1, 0), 0.0);
}

// --- success --------------------------------------------------------------------

TEST_F(Cli, LuFactorsAndPivotsReproduceTheMatrix)
{
    const Matrix A = flamex::test::random_matrix(8, 8, 41);
    const std::string a_file = write("A.mtx", A);
    const Result r = run({"lu", a_file, "-o", path("LU.mtx"), "--pivots", path("ipiv.txt")});
    ASSERT_EQ(r.status, 0) << r.err;
    const Matrix LU = io::read_matrix_market(path("LU.mtx"));
    ASSERT_EQ(LU.length(), 8);
    ASSERT_EQ(LU.width(), 8);

    // Pivots: one 1-based absolute row index per line, ipiv(i) in [i, 8].
    std::istringstream lines(slurp(path("ipiv.txt")));
    std::vector<int> ipiv;
    for (int v; lines >> v;) ipiv.push_back(v);
    ASSERT_EQ(ipiv.size(), 8u);
    for (size_t i = 0; i < ipiv.size(); ++i) {
        EXPECT_GE(ipiv[i], static_cast<int>(i) + 1);
        EXPECT_LE(ipiv[i], 8);
    }
    const Pivots p = Pivots::from_lapack(ipiv);
    EXPECT_LT(flamex::test::lu_backward_error(A, LU, p), 10.0);
    const Pivots q = io::read_pivots(path("ipiv.txt"), 8);
    for (dim_t i = 0; i < 8; ++i) EXPECT_EQ(q[i], p[i]);
}

TEST_F(Cli, LuPivotsAreOneBasedRows)
{
    // A = [1 5 1; 2 0 1; 4 2 1]. The largest entry of column 1 is in row 3: ipiv(1) = 3.
    // After the swap, column 2 below the diagonal is (0 - 0.5*2, 5 - 0.25*2) = (-1, 4.5):
    // row 3 again. The last pivot is its own row.
    const std::string A = write("A.mtx", matrix_file_text(3, 3, {1, 2, 4, 5, 0, 2, 1, 1, 1}));
    ASSERT_EQ(run({"lu", A, "--pivots", path("ipiv.txt")}).status, 0);
    EXPECT_EQ(slurp(path("ipiv.txt")), "3\n3\n3\n");
}

TEST_F(Cli, LuSummaryIsOneParseableLine)
{
    const std::string A = write("A.mtx", matrix_file_text(2, 3, {4, 2, 1, 3, 5, 7}));
    const Result r = run({"lu", A});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_EQ(summary_value(r.out, "m"), "2");
    EXPECT_EQ(summary_value(r.out, "n"), "3");
    EXPECT_EQ(summary_value(r.out, "variant"), "lu_piv_unb_var3");
    EXPECT_EQ(summary_value(r.out, "backend"), "blis");
    EXPECT_EQ(summary_value(r.out, "info"), "0");
    EXPECT_TRUE(io::parse_real(summary_value(r.out, "time_s"))) << r.out;
    EXPECT_EQ(r.err, "");
}

TEST_F(Cli, LuRectangularToStdout)
{
    const Matrix A = flamex::test::random_matrix(3, 5, 5);
    const std::string a_file = write("A.mtx", A);
    const Result r = run({"lu", a_file, "-o", "-", "--pivots", path("ipiv.txt")});
    ASSERT_EQ(r.status, 0) << r.err;
    const Matrix LU = read_stdout(); // stdout is the matrix alone, no summary
    const Pivots p = io::read_pivots(path("ipiv.txt"), 3);
    EXPECT_EQ(p.size(), 3);
    EXPECT_LT(flamex::test::lu_backward_error(A, LU, p), 10.0);
}

TEST_F(Cli, SolveWritesASolutionWithSmallResidual)
{
    const dim_t n = 24;
    const Matrix A = flamex::test::random_matrix(n, n, 17);
    const Matrix b = flamex::test::random_matrix(n, 1, 18);
    const std::string a_file = write("A.mtx", A), b_file = write("b.mtx", b);
    const Result r = run({"solve", a_file, b_file, "--refine", "2", "-o", path("x.mtx")});
    ASSERT_EQ(r.status, 0) << r.err;
    const Matrix x = io::read_matrix_market(path("x.mtx"));
    ASSERT_EQ(x.length(), n);
    ASSERT_EQ(x.width(), 1);
    EXPECT_LT(solve_backward_error(A, b, x), 10.0);
    const std::string steps = summary_value(r.out, "refinement_steps");
    EXPECT_TRUE(steps == "1" || steps == "2") << r.out;
    EXPECT_EQ(summary_value(r.out, "info"), "0");
    EXPECT_TRUE(io::parse_real(summary_value(r.out, "residual_inf"))) << r.out;
}

TEST_F(Cli, SolveToStdoutAcceptsARowVector)
{
    const std::string A = write("A.mtx", matrix_file_text(2, 2, {2, 0, 1, 4}));
    const std::string b = write("b.mtx", matrix_file_text(1, 2, {4, 8})); // 1 x n
    const Result r = run({"solve", A, b});
    ASSERT_EQ(r.status, 0) << r.err;
    const Matrix x = read_stdout(); // [2 1; 0 4] x = [4; 8]: x = (1, 2)
    ASSERT_EQ(x.length(), 2);
    ASSERT_EQ(x.width(), 1);
    EXPECT_EQ(x(0, 0), 1.0);
    EXPECT_EQ(x(1, 0), 2.0);
}

TEST_F(Cli, DotPrintsTheExactValueOnOneLine)
{
    const std::string x = write("x.mtx", matrix_file_text(3, 1, {1, 2, 3}));
    const std::string y = write("y.mtx", matrix_file_text(1, 3, {0.5, 0.25, 4}));
    const Result r = run({"dot", x, y});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "13\n");

    const std::string t = write("t.mtx", matrix_file_text(1, 1, {0.1}));
    const std::string one = write("one.mtx", matrix_file_text(1, 1, {1}));
    const Result tenth = run({"dot", t, one});
    ASSERT_EQ(tenth.status, 0) << tenth.err;
    ASSERT_EQ(std::count(tenth.out.begin(), tenth.out.end(), '\n'), 1);
    EXPECT_EQ(io::parse_real(tenth.out.substr(0, tenth.out.size() - 1)), 0.1) << tenth.out;
}

TEST_F(Cli, DotPrintsSpecials)
{
    const double inf = std::numeric_limits<double>::infinity();
    const std::string i = write("i.mtx", matrix_file_text(2, 1, {inf, 1}));
    const std::string ones = write("ones.mtx", matrix_file_text(2, 1, {1, 1}));
    const std::string neg = write("neg.mtx", matrix_file_text(2, 1, {-1, 0}));
    const std::string zero = write("zero.mtx", matrix_file_text(2, 1, {0, 1}));
    EXPECT_EQ(run({"dot", i, ones}).out, "inf\n");
    EXPECT_EQ(run({"dot", i, neg}).out, "-inf\n");
    EXPECT_EQ(run({"dot", i, zero}).out, "nan\n");
}

TEST_F(Cli, GemvKnownCases)
{
    const std::string A = write("A.mtx", matrix_file_text(2, 2, {1, 3, 2, 4})); // [1 2; 3 4]
    const std::string x = write("x.mtx", matrix_file_text(2, 1, {1, 1}));
    const std::string y = write("y.mtx", matrix_file_text(1, 2, {1, -1}));
    const auto result = [&](const std::vector<std::string>& args) {
        const Result r = run(args);
        EXPECT_EQ(r.status, 0) << r.err;
        const Matrix v = read_stdout();
        return std::vector<double>{v(0, 0), v(1, 0)};
    };
    EXPECT_EQ(result({"gemv", A, x}), (std::vector<double>{3, 7}));
    EXPECT_EQ(result({"gemv", A, x, "--trans"}), (std::vector<double>{4, 6}));
    EXPECT_EQ(result({"gemv", A, x, "--alpha", "2", "--y", y, "--beta", "-3"}), (std::vector<double>{3, 17}));
    EXPECT_EQ(result({"gemv", A, x, "--alpha=-1", "--y", y}), (std::vector<double>{-2, -8}));

    const Result to_file = run({"gemv", A, x, "-o", path("y_out.mtx")});
    ASSERT_EQ(to_file.status, 0) << to_file.err;
    EXPECT_EQ(summary_value(to_file.out, "m"), "2");
    const Matrix v = io::read_matrix_market(path("y_out.mtx"));
    EXPECT_EQ(v(1, 0), 7.0);
}

TEST_F(Cli, TrsvKnownCases)
{
    // T = [2 5; 1 4]: the lower triangle [2 0; 1 4], the upper [2 5; 0 4].
    const std::string T = write("T.mtx", matrix_file_text(2, 2, {2, 1, 5, 4}));
    const auto result = [&](const std::vector<double>& b, const std::vector<std::string>& options) {
        const std::string b_file = write("b.mtx", matrix_file_text(2, 1, b));
        std::vector<std::string> args = {"trsv", T, b_file};
        args.insert(args.end(), options.begin(), options.end());
        const Result r = run(args);
        EXPECT_EQ(r.status, 0) << r.err;
        const Matrix v = read_stdout();
        return std::vector<double>{v(0, 0), v(1, 0)};
    };
    EXPECT_EQ(result({2, 9}, {}), (std::vector<double>{1, 2}));                 // [2 0; 1 4] x = b
    EXPECT_EQ(result({2, 9}, {"--lower", "--refine", "3"}), (std::vector<double>{1, 2}));
    EXPECT_EQ(result({4, 8}, {"--lower", "--trans"}), (std::vector<double>{1, 2}));  // [2 1; 0 4] x = b
    EXPECT_EQ(result({12, 8}, {"--upper"}), (std::vector<double>{1, 2}));       // [2 5; 0 4] x = b
    EXPECT_EQ(result({2, 13}, {"--upper", "--trans"}), (std::vector<double>{1, 2})); // [2 0; 5 4] x = b
    EXPECT_EQ(result({3, 5}, {"--lower", "--unit"}), (std::vector<double>{3, 2}));   // [1 0; 1 1] x = b

    const std::string b_file = write("b.mtx", matrix_file_text(2, 1, {2, 9}));
    const Result r = run({"trsv", T, b_file, "--refine", "4", "-o", path("x.mtx")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(summary_value(r.out, "refinement_steps"), "1") << r.out; // x is exact: the first correction is 0
    EXPECT_EQ(summary_value(r.out, "residual_inf"), "0") << r.out;
}

TEST_F(Cli, TrsvRefinementKeepsTheResidualSmall)
{
    const dim_t n = 30;
    Matrix T = flamex::test::random_matrix(n, n, 99);
    for (dim_t i = 0; i < n; ++i) T(i, i) += 4.0;
    const Matrix b = flamex::test::random_matrix(n, 1, 100);
    const std::string t_file = write("T.mtx", T), b_file = write("b.mtx", b);
    const Result r = run({"trsv", t_file, b_file, "--upper", "--refine", "3", "-o", path("x.mtx")});
    ASSERT_EQ(r.status, 0) << r.err;
    const Matrix x = io::read_matrix_market(path("x.mtx"));
    Matrix U(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i <= j; ++i) U(i, j) = T(i, j);
    EXPECT_LT(solve_backward_error(U, b, x), 10.0);
    const int steps = std::atoi(summary_value(r.out, "refinement_steps").c_str());
    EXPECT_GE(steps, 1);
    EXPECT_LE(steps, 3);
}

TEST_F(Cli, HelpForEachSubcommand)
{
    for (const char* sub : {"lu", "chol", "ldlt", "trinv", "solve", "dot", "gemv", "trsv", "backends"}) {
        const Result r = run({sub, "--help"});
        EXPECT_EQ(r.status, 0) << sub << ": " << r.err;
        EXPECT_NE(r.out.find(std::string("usage: flamex ") + sub), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("--help"), std::string::npos) << r.out;
    }
    const Result top = run({"--help"});
    EXPECT_EQ(top.status, 0);
    for (const char* sub : {"lu", "chol", "ldlt", "trinv", "solve", "dot", "gemv", "trsv", "backends"})
        EXPECT_NE(top.out.find(std::string("flamex ") + sub), std::string::npos) << top.out;
    const Result short_help = run({"solve", "-h"});
    EXPECT_EQ(short_help.status, 0);
    EXPECT_NE(short_help.out.find("--refine"), std::string::npos);
}

TEST_F(Cli, LuListNamesTheVariants)
{
    const Result r = run({"lu", "--list"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::istringstream lines(r.out);
    bool found = false;
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string name;
        fields >> name;
        EXPECT_EQ(name.rfind("lu_", 0), 0u) << line;
        EXPECT_GT(line.size(), name.size() + 2) << "no summary: " << line;
        found = found || name == "lu_piv_unb_var3";
    }
    EXPECT_TRUE(found) << r.out;
}

TEST_F(Cli, BackendsListsBlis)
{
    const Result r = run({"backends"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("blis ", 0) == 0 || r.out.find("\nblis ") != std::string::npos, true) << r.out;
}

// The library's factors (default variant lu_piv_unb_var3, one thread) on a backend.
Matrix library_lu(const std::string& backend, const Matrix& A)
{
    Matrix LU = A;
    Pivots p(std::min(A.length(), A.width()));
    flamex::lu(*flamex::make_backend(backend), flamex::find_lu_variant("lu_piv_unb_var3"), LU, p);
    return LU;
}

// On a matrix whose factors differ between blis and exact, the backend chosen by
// --backend or FLAMEX_BACKEND (the option first) is the one whose bits are written,
// and the summary names it.
TEST_F(Cli, BackendChoiceTakesEffect)
{
    const Matrix A = flamex::gen::lu_matrix(30, 1e12, 5);
    const Matrix blis = library_lu("blis", A), exact = library_lu("exact", A);
    ASSERT_FALSE(flamex::test::bitwise_equal(blis, exact)) << "the input must tell the backends apart";
    const std::string a_file = write("A.mtx", A);
    struct Case {
        std::vector<std::string> options;
        std::string env, backend;
    };
    for (const Case& c : {Case{{"--backend", "exact"}, "", "exact"}, Case{{}, "FLAMEX_BACKEND=exact", "exact"},
                          Case{{"--backend", "blis"}, "FLAMEX_BACKEND=exact", "blis"},
                          Case{{"--backend", "exact", "--threads", "2"}, "FLAMEX_BACKEND=blis", "exact"},
                          Case{{}, "", "blis"}}) {
        std::vector<std::string> args = {"lu", a_file, "-o", path("LU.mtx")};
        args.insert(args.end(), c.options.begin(), c.options.end());
        SCOPED_TRACE(c.env + " " + args.back());
        std::filesystem::remove(path("LU.mtx"));
        const Result r = run(args, c.env);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(summary_value(r.out, "backend"), c.backend) << r.out;
        EXPECT_TRUE(flamex::test::bitwise_equal(io::read_matrix_market(path("LU.mtx")), c.backend == "exact" ? exact : blis));
    }
}

// --backend exact writes the library's exact bits: the factors and pivots of lu, the
// solution of solve (with refinement); and reports a singular matrix as blis does.
TEST_F(Cli, ExactBackendWritesTheLibrarysBits)
{
    const auto exact = flamex::make_backend("exact");
    const flamex::LuVariant& variant = flamex::find_lu_variant("lu_piv_blk_var5");
    const Matrix A = flamex::gen::lu_matrix(24, 1e10, 9);
    const Matrix b = flamex::test::random_matrix(24, 1, 10);
    Matrix LU = A, x(24, 1);
    Pivots p(24);
    flamex::LuControl control;
    control.block = 5;
    ASSERT_TRUE(flamex::lu(*exact, variant, LU, p, control).ok());
    ASSERT_TRUE(flamex::solve(*exact, variant, A, b, x, 2, control).info.ok());
    const std::string a_file = write("A.mtx", A), b_file = write("b.mtx", b);

    const Result lu = run({"lu", a_file, "--backend", "exact", "--variant", variant.name, "--block", "5", "-o",
                           path("LU.mtx"), "--pivots", path("ipiv.txt")});
    ASSERT_EQ(lu.status, 0) << lu.err;
    EXPECT_TRUE(flamex::test::bitwise_equal(io::read_matrix_market(path("LU.mtx")), LU));
    const Pivots q = io::read_pivots(path("ipiv.txt"), 24);
    for (dim_t i = 0; i < 24; ++i) EXPECT_EQ(q[i], p[i]) << "pivot " << i;

    const Result solve = run({"solve", a_file, b_file, "--backend", "exact", "--variant", variant.name, "--refine",
                              "2", "-o", path("x.mtx")});
    ASSERT_EQ(solve.status, 0) << solve.err;
    EXPECT_TRUE(flamex::test::bitwise_equal(io::read_matrix_market(path("x.mtx")), x));

    const std::string s_file = write("S.mtx", matrix_file_text(3, 3, {2, 1, 1, 0, 0, 0, 1, 3, 5}));
    const Result singular = run({"lu", s_file, "--backend", "exact"});
    EXPECT_EQ(singular.status, 1) << singular.err;
    EXPECT_NE(singular.err.find("lu: matrix is singular: zero pivot in column 2"), std::string::npos) << singular.err;
    EXPECT_EQ(summary_value(singular.out, "info"), "2") << singular.out;
    const Result nopiv = run({"lu", s_file, "--backend", "exact", "--variant", "lu_nopiv_blk_var3", "--block", "2"});
    EXPECT_EQ(nopiv.status, 1) << nopiv.err;
    EXPECT_EQ(summary_value(nopiv.out, "info"), "2") << nopiv.out;
    const Result solve_singular = run({"solve", s_file, write("b3.mtx", matrix_file_text(3, 1, {1, 2, 3})), "--backend", "exact"});
    EXPECT_EQ(solve_singular.status, 1) << solve_singular.err;
    EXPECT_NE(solve_singular.err.find("zero pivot in column 2"), std::string::npos) << solve_singular.err;
}

// --- chol, ldlt, trinv ---------------------------------------------------------------------

namespace {

// B B^T + n I (B uniform in [-1, 1]) in the lower triangle, `upper` above it: only
// the lower triangle is a symmetric positive definite matrix's.
Matrix spd_lower(dim_t n, std::uint64_t seed, double upper)
{
    const Matrix B = flamex::test::random_matrix(n, n, seed);
    Matrix A(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) {
            double s = i == j ? static_cast<double>(n) : 0.0;
            for (dim_t k = 0; k < n; ++k) s += B(i, k) * B(j, k);
            A(i, j) = i >= j ? s : upper;
        }
    return A;
}

bool zero_above_diagonal(const Matrix& L)
{
    for (dim_t j = 0; j < L.width(); ++j)
        for (dim_t i = 0; i < j; ++i)
            if (L(i, j) != 0.0 || std::signbit(L(i, j))) return false;
    return true;
}

} // namespace

TEST_F(Cli, CholWritesTheLibrarysFactorOfTheLowerTriangle)
{
    // The upper triangle holds garbage: only the lower one is read, as LAPACK's potrf.
    const Matrix A = spd_lower(9, 3, -123.0);
    const std::string a_file = write("A.mtx", A);
    for (const flamex::CholVariant& v : flamex::chol_variants())
        for (const char* backend : {"blis", "exact"}) {
            SCOPED_TRACE(v.name + std::string(" on ") + backend);
            Matrix L = A;
            flamex::CholControl control;
            control.block = 4;
            ASSERT_TRUE(flamex::chol(*flamex::make_backend(backend), v, L, control).ok());
            for (dim_t j = 0; j < 9; ++j)
                for (dim_t i = 0; i < j; ++i) L(i, j) = 0.0;
            const Result r = run({"chol", a_file, "--variant", v.name, "--backend", backend, "--block", "4", "-o",
                                  path("L.mtx")});
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(summary_value(r.out, "info"), "0") << r.out;
            EXPECT_EQ(summary_value(r.out, "variant"), v.name) << r.out;
            const Matrix written = io::read_matrix_market(path("L.mtx"));
            EXPECT_TRUE(zero_above_diagonal(written));
            EXPECT_TRUE(flamex::test::bitwise_equal(written, L));
        }
    // A symmetric Matrix Market file gives the same factor.
    const Result sym = run({"chol", write("S.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 4\n2 1 2\n2 2 5\n"),
                            "-o", "-"});
    ASSERT_EQ(sym.status, 0) << sym.err;
    const Matrix L = read_stdout();
    EXPECT_EQ(L(0, 0), 2.0);
    EXPECT_EQ(L(1, 0), 1.0);
    EXPECT_EQ(L(1, 1), 2.0);
}

TEST_F(Cli, CholNotPositiveDefiniteNamesTheColumnAndWritesNothing)
{
    // [4 2 0; 2 1 0; 0 0 1]: the second pivot is 1 - 2 * 2 / 4 = 0
    const std::string A = write("A.mtx", matrix_file_text(3, 3, {4, 2, 0, 2, 1, 0, 0, 0, 1}));
    for (const char* variant : {"chol_unb_var1", "chol_unb_var2", "chol_blk_var3"}) {
        const Result r = run({"chol", A, "--variant", variant, "--block", "2", "-o", path("L.mtx")});
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_NE(r.err.find("chol: matrix is not positive definite: column 2"), std::string::npos) << r.err;
        EXPECT_EQ(summary_value(r.out, "info"), "2") << r.out;
        EXPECT_FALSE(std::filesystem::exists(path("L.mtx"))) << variant;
    }
    const Result to_stdout = run({"chol", A, "-o", "-"});
    EXPECT_EQ(to_stdout.status, 1);
    EXPECT_EQ(to_stdout.out, "") << "stdout was to carry the factor: no summary there either";
}

TEST_F(Cli, LdltWritesTheHandWrittenVariantsFactors)
{
    const Matrix A = spd_lower(7, 5, 77.0);
    const std::string a_file = write("A.mtx", A);
    for (int number : {1, 2, 3}) {
        Matrix LD = A;
        ASSERT_TRUE(flamex::ldlt_variant<double>(number)(LD.view()).ok());
        for (dim_t j = 0; j < 7; ++j)
            for (dim_t i = 0; i < j; ++i) LD(i, j) = 0.0;
        const std::string name = "ldlt_unb_var" + std::to_string(number);
        const Result r = run({"ldlt", a_file, "--variant", name, "-o", path("LD.mtx")});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(summary_value(r.out, "backend"), "host") << r.out;
        EXPECT_TRUE(flamex::test::bitwise_equal(io::read_matrix_market(path("LD.mtx")), LD)) << name;
    }
    // A zero pivot: [1 1; 1 1] has d2 = 0.
    const Result zero = run({"ldlt", write("Z.mtx", matrix_file_text(2, 2, {1, 1, 1, 1}))});
    EXPECT_EQ(zero.status, 1) << zero.err;
    EXPECT_NE(zero.err.find("ldlt: zero or non-finite pivot in column 2"), std::string::npos) << zero.err;
    EXPECT_EQ(summary_value(zero.out, "info"), "2") << zero.out;
    // The derived variant on the abstract BLAS runs on --backend, and stops alike.
    const Result derived = run({"ldlt", a_file, "--variant", "ldlt_blas_unb_var3", "--backend", "exact", "-o", path("LD.mtx")});
    ASSERT_EQ(derived.status, 0) << derived.err;
    EXPECT_EQ(summary_value(derived.out, "backend"), "exact") << derived.out;
    Matrix LD = A;
    ASSERT_TRUE(flamex::ldlt_variant<double>(3)(LD.view()).ok());
    const Matrix ours = io::read_matrix_market(path("LD.mtx"));
    for (dim_t j = 0; j < 7; ++j)
        for (dim_t i = j; i < 7; ++i) EXPECT_NEAR(ours(i, j), LD(i, j), 1e-13 * std::fabs(LD(i, j)) + 1e-15) << i << "," << j;
    const Result derived_zero =
        run({"ldlt", path("Z.mtx"), "--variant", "ldlt_blas_unb_var3", "--backend", "exact"});
    EXPECT_EQ(derived_zero.status, 1) << derived_zero.err;
    EXPECT_NE(derived_zero.err.find("ldlt: zero or non-finite pivot in column 2"), std::string::npos) << derived_zero.err;
}

TEST_F(Cli, TrinvWritesTheInverseOfTheLowerTriangle)
{
    Matrix A = flamex::test::random_matrix(8, 8, 6);
    for (dim_t i = 0; i < 8; ++i) A(i, i) = 8.0 + i;
    const std::string a_file = write("A.mtx", A);
    for (const flamex::TrinvVariant& v : flamex::trinv_variants()) {
        Matrix X = A;
        flamex::TrinvControl control;
        control.block = 3;
        ASSERT_TRUE(flamex::trinv(*flamex::make_backend("exact"), v, X, control).ok());
        for (dim_t j = 0; j < 8; ++j)
            for (dim_t i = 0; i < j; ++i) X(i, j) = 0.0;
        const Result r = run({"trinv", a_file, "--variant", v.name, "--backend", "exact", "--block", "3", "-o", "-"});
        ASSERT_EQ(r.status, 0) << r.err;
        const Matrix written = read_stdout();
        EXPECT_TRUE(flamex::test::bitwise_equal(written, X)) << v.name;
        // L X = I over the lower triangle, to rounding
        for (dim_t j = 0; j < 8; ++j)
            for (dim_t i = j; i < 8; ++i) {
                long double s = 0;
                for (dim_t k = j; k <= i; ++k) s += static_cast<long double>(A(i, k)) * written(k, j);
                EXPECT_NEAR(static_cast<double>(s), i == j ? 1.0 : 0.0, 1e-15) << v.name << " (" << i << "," << j << ")";
            }
    }
    const Result singular = run({"trinv", write("S.mtx", matrix_file_text(3, 3, {1, 2, 3, 0, 4, 5, 0, 0, 0}))});
    EXPECT_EQ(singular.status, 1) << singular.err;
    EXPECT_NE(singular.err.find("trinv: matrix is singular: zero on the diagonal in column 3"), std::string::npos)
        << singular.err;
    EXPECT_EQ(summary_value(singular.out, "info"), "3") << singular.out;
}

TEST_F(Cli, CholLdltTrinvListsAndBadInput)
{
    for (const std::string sub : {"chol", "ldlt", "trinv"}) {
        const Result list = run({sub, "--list"});
        ASSERT_EQ(list.status, 0) << list.err;
        std::istringstream lines(list.out);
        int count = 0;
        for (std::string line; std::getline(lines, line); ++count) {
            EXPECT_EQ(line.rfind(sub + "_", 0), 0u) << line;
            EXPECT_GT(line.size(), line.find(' ') + 2) << "no summary: " << line;
        }
        // ldlt: the three hand-written variants and the derived ldlt_blas_unb_var1..3
        EXPECT_EQ(count, sub == "chol" ? 6 : sub == "ldlt" ? 6 : 8) << list.out;
        const std::string rect = write("R.mtx", matrix_file_text(2, 3, {1, 2, 3, 4, 5, 6}));
        expect_bad_input({sub, rect}, {rect, sub + " needs a square matrix, got 2x3"});
        const std::string A = write("A.mtx", matrix_file_text(1, 1, {4}));
        expect_bad_input({sub, A, "--variant", sub + "_unb_var9"}, {sub + "_unb_var9", sub + "_unb_var1"});
        expect_bad_input({sub, A, "--backend", "nonesuch"}, {"unknown backend 'nonesuch'"});
        expect_bad_input({sub, A, "--pivots", path("p.txt")}, {"--pivots"});
        expect_bad_input({sub}, {sub});
    }
    const std::string A = write("A.mtx", matrix_file_text(1, 1, {4}));
    expect_bad_input({"chol", A, "--inner", "chol_unb_var1"}, {"--inner applies only to blocked variants"});
    expect_bad_input({"trinv", A, "--variant", "trinv_blk_var1", "--inner", "trinv_blk_var2"}, {"must be unblocked"});
    expect_bad_input({"ldlt", A, "--inner", "ldlt_unb_var1"}, {"--inner"});
}
