// Matrix Market array I/O: bit-exact round trips, the accepted dialect, and an
// error naming the file and the line for every malformed input.
#include "io/matrix_market.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>

#include "support/test_support.hpp"

using flamex::dim_t;
using flamex::Error;
using flamex::Matrix;
using flamex::Pivots;
namespace io = flamex::io;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Matrix read_text(const std::string& text, const std::string& name = "input.mtx")
{
    std::istringstream in(text);
    return io::read_matrix_market(in, name);
}

std::string write_text(flamex::Obj A)
{
    std::ostringstream out;
    io::write_matrix_market(out, A);
    return out.str();
}

// Bit-identical, except that any NaN matches any NaN (the format keeps no payload).
void expect_same_bits(flamex::Obj A, flamex::Obj B)
{
    ASSERT_EQ(A.length(), B.length());
    ASSERT_EQ(A.width(), B.width());
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) {
            if (std::isnan(A(i, j))) {
                EXPECT_TRUE(std::isnan(B(i, j))) << "(" << i << "," << j << ")";
                continue;
            }
            EXPECT_EQ(0, std::memcmp(&A(i, j), &B(i, j), sizeof(double)))
                << "(" << i << "," << j << "): " << A(i, j) << " became " << B(i, j);
        }
}

// The message of the flamex::Error that reading `text` throws ("" when none).
std::string read_error(const std::string& text, const std::string& name = "bad.mtx")
{
    try {
        read_text(text, name);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

const std::string kHeader = "%%MatrixMarket matrix array real general\n";

} // namespace

// --- numbers --------------------------------------------------------------------

TEST(MatrixMarketNumbers, FormatsSeventeenDigitsAndSpecials)
{
    EXPECT_EQ(io::format_real(1.0), "1");
    EXPECT_EQ(io::format_real(0.1), "0.10000000000000001");
    EXPECT_EQ(io::format_real(-0.0), "-0");
    EXPECT_EQ(io::format_real(kInf), "inf");
    EXPECT_EQ(io::format_real(-kInf), "-inf");
    EXPECT_EQ(io::format_real(kNaN), "nan");
    EXPECT_EQ(io::format_real(-kNaN), "nan");
}

TEST(MatrixMarketNumbers, ParsesSpecialsInAnyCase)
{
    for (const char* t : {"nan", "NaN", "NAN", "+nan", "-nan"}) {
        const auto v = io::parse_real(t);
        ASSERT_TRUE(v) << t;
        EXPECT_TRUE(std::isnan(*v)) << t;
    }
    for (const char* t : {"inf", "Inf", "+inf", "INFINITY", "Infinity", "+Infinity"}) EXPECT_EQ(io::parse_real(t), kInf) << t;
    for (const char* t : {"-inf", "-Inf", "-Infinity", "-infinity"}) EXPECT_EQ(io::parse_real(t), -kInf) << t;
}

TEST(MatrixMarketNumbers, ParsesDecimalsStrictly)
{
    EXPECT_EQ(io::parse_real("1"), 1.0);
    EXPECT_EQ(io::parse_real("+2.5"), 2.5);
    EXPECT_EQ(io::parse_real("-.5"), -0.5);
    EXPECT_EQ(io::parse_real("3."), 3.0);
    EXPECT_EQ(io::parse_real("1e3"), 1000.0);
    EXPECT_EQ(io::parse_real("1E-3"), 0.001);
    EXPECT_EQ(io::parse_real("4.9406564584124654e-324"), std::numeric_limits<double>::denorm_min());
    const auto under = io::parse_real("-1e-400"); // below the subnormals: a signed zero
    ASSERT_TRUE(under);
    EXPECT_EQ(*under, 0.0);
    EXPECT_TRUE(std::signbit(*under));
    for (const char* t : {"", "+", "-", ".", "e5", "1e", "1e+", "12abc", "1.2.3", "0x10", "1,5", " 1", "1 ", "nan(1)",
                          "infinit", "--1", "1e400", "-1e400"})
        EXPECT_FALSE(io::parse_real(t)) << "'" << t << "'";
}

TEST(MatrixMarketNumbers, ParsesIntegersStrictly)
{
    EXPECT_EQ(io::parse_integer("42", 0, 100), 42);
    EXPECT_EQ(io::parse_integer("+7", 0, 100), 7);
    EXPECT_EQ(io::parse_integer("-3", -5, 5), -3);
    for (const char* t : {"", "12abc", "1.0", "1e2", "-", "101", "-6", "99999999999999999999999"})
        EXPECT_FALSE(io::parse_integer(t, -5, 100)) << "'" << t << "'";
}

// --- round trips ----------------------------------------------------------------

TEST(MatrixMarketRoundTrip, RandomDoublesAreBitExact)
{
    std::mt19937_64 gen(20240611);
    Matrix A(13, 7);
    for (dim_t j = 0; j < 7; ++j)
        for (dim_t i = 0; i < 13; ++i) {
            // Random bit patterns: every exponent and mantissa, NaNs excluded.
            double d;
            do {
                const std::uint64_t bits = gen();
                std::memcpy(&d, &bits, sizeof d);
            } while (std::isnan(d));
            A(i, j) = d;
        }
    A(0, 0) = 0.1;
    A(1, 0) = 1.0 / 3.0;
    A(2, 0) = DBL_MAX;
    A(3, 0) = -DBL_MIN;
    expect_same_bits(A, read_text(write_text(A)));
}

TEST(MatrixMarketRoundTrip, SubnormalsSignedZerosAndSpecials)
{
    const double values[] = {std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min(),
                             DBL_MIN / 3, DBL_MIN - std::numeric_limits<double>::denorm_min(), 0.0, -0.0, kInf, -kInf,
                             kNaN, 1.0, -2.5, DBL_EPSILON};
    Matrix A(4, 3, std::vector<double>(std::begin(values), std::end(values)));
    const std::string text = write_text(A);
    EXPECT_NE(text.find("\n-0\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\ninf\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\n-inf\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nnan\n"), std::string::npos) << text;
    expect_same_bits(A, read_text(text));
}

TEST(MatrixMarketRoundTrip, WritesTheArrayFormatColumnMajor)
{
    Matrix A(2, 3, {1, 2, 3, 4, 5, 6});
    std::ostringstream out;
    io::write_matrix_market(out, A, "two lines\nof comment");
    EXPECT_EQ(out.str(), "%%MatrixMarket matrix array real general\n% two lines\n% of comment\n2 3\n1\n2\n3\n4\n5\n6\n");
}

TEST(MatrixMarketRoundTrip, ViewsAreWrittenByTheirWindow)
{
    Matrix A(4, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
    EXPECT_EQ(write_text(A.view().sub(1, 2, 2, 1)), kHeader + "2 1\n10\n11\n");
}

TEST(MatrixMarketRoundTrip, EmptyMatrices)
{
    for (auto [m, n] : {std::pair<dim_t, dim_t>{0, 0}, {0, 3}, {3, 0}}) {
        Matrix A(m, n);
        const Matrix B = read_text(write_text(A));
        EXPECT_EQ(B.length(), m);
        EXPECT_EQ(B.width(), n);
    }
}

TEST(MatrixMarketRoundTrip, FilesOnDisk)
{
    char dir_template[] = "/tmp/flamex_mm_XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    const std::string dir = dir_template;
    Matrix A = flamex::test::random_matrix(5, 4, 7);
    io::write_matrix_market(dir + "/A.mtx", A);
    expect_same_bits(A, io::read_matrix_market(dir + "/A.mtx"));

    Pivots p(3);
    p[0] = 2;
    p[1] = 0;
    p[2] = 1;
    io::write_pivots(dir + "/ipiv.txt", p);
    std::ifstream in(dir + "/ipiv.txt");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "3\n2\n4\n"); // LAPACK: 1-based absolute rows
    const Pivots q = io::read_pivots(dir + "/ipiv.txt", 5);
    ASSERT_EQ(q.size(), 3);
    for (dim_t i = 0; i < 3; ++i) EXPECT_EQ(q[i], p[i]);
    std::filesystem::remove_all(dir);
}

// --- the accepted dialect -------------------------------------------------------

TEST(MatrixMarketRead, AcceptsCommentsBlankLinesCrlfCaseAndSpecials)
{
    const Matrix A = read_text("%%matrixmarket MATRIX Array Real General\r\n% comment\r\n\r\n  2   2  \r\n% inside\r\n"
                               "1.5\r\n-Infinity\r\n\r\nNaN\r\n+inf\r\n");
    ASSERT_EQ(A.length(), 2);
    ASSERT_EQ(A.width(), 2);
    EXPECT_EQ(A(0, 0), 1.5);
    EXPECT_EQ(A(1, 0), -kInf);
    EXPECT_TRUE(std::isnan(A(0, 1)));
    EXPECT_EQ(A(1, 1), kInf);
}

TEST(MatrixMarketRead, IntegerFieldIsReadAsReal)
{
    const Matrix A = read_text("%%MatrixMarket matrix array integer general\n2 1\n-3\n+12\n");
    EXPECT_EQ(A(0, 0), -3.0);
    EXPECT_EQ(A(1, 0), 12.0);
    const std::string e = read_error("%%MatrixMarket matrix array integer general\n2 1\n-3\n1.5\n");
    EXPECT_NE(e.find("bad.mtx:4:"), std::string::npos) << e;
    EXPECT_NE(e.find("integer"), std::string::npos) << e;
}

TEST(MatrixMarketRead, CoordinateFilesAreReadDense)
{
    // general: listed entries, zeros elsewhere, duplicates summed
    const Matrix G = read_text("%%MatrixMarket matrix coordinate real general\n% c\n2 3 3\n1 3 2.5\n2 1 -1\n2 1 -1\n");
    EXPECT_EQ(G(0, 2), 2.5);
    EXPECT_EQ(G(1, 0), -2.0);
    EXPECT_EQ(G(0, 0), 0.0);
    // symmetric integer: the lower triangle mirrored
    const Matrix S = read_text("%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 4\n2 1 7\n");
    EXPECT_EQ(S(0, 1), 7.0);
    EXPECT_EQ(S(1, 0), 7.0);
    EXPECT_EQ(S(0, 0), 4.0);
    // skew-symmetric: mirrored and negated
    const Matrix K = read_text("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n");
    EXPECT_EQ(K(1, 0), 3.0);
    EXPECT_EQ(K(0, 1), -3.0);
    // pattern: ones where entries are listed
    const Matrix P = read_text("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n");
    EXPECT_EQ(P(1, 0), 1.0);
    EXPECT_EQ(P(0, 1), 1.0);
    EXPECT_EQ(P(2, 2), 1.0);
    EXPECT_EQ(P(0, 0), 0.0);
}

TEST(MatrixMarketRead, SymmetricAndSkewSymmetricStoreTheLowerTriangle)
{
    const Matrix S = read_text("%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
    const double s[3][3] = {{1, 2, 3}, {2, 4, 5}, {3, 5, 6}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) EXPECT_EQ(S(i, j), s[i][j]) << i << "," << j;
    const Matrix K = read_text("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
    const double k[3][3] = {{0, -1, -2}, {1, 0, -3}, {2, 3, 0}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) EXPECT_EQ(K(i, j), k[i][j]) << i << "," << j;
}

// --- malformed input: every error names the file and the line ---------------------

struct Malformed {
    const char* what;
    std::string text;
    const char* location; // "bad.mtx:LINE:"
    const char* says;     // a word the message must contain
};

// ctest lists a case by its description, not by the struct's bytes.
void PrintTo(const Malformed& c, std::ostream* out) { *out << c.what; }

class MatrixMarketMalformed : public testing::TestWithParam<Malformed> {};

TEST_P(MatrixMarketMalformed, ThrowsNamingFileAndLine)
{
    const Malformed& c = GetParam();
    const std::string e = read_error(c.text);
    ASSERT_FALSE(e.empty()) << c.what << ": no error";
    EXPECT_EQ(e.rfind(c.location, 0), 0u) << c.what << ": " << e;
    EXPECT_NE(e.find(c.says), std::string::npos) << c.what << ": " << e;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MatrixMarketMalformed,
    testing::Values(
        Malformed{"empty", "", "bad.mtx:1:", "banner"},
        Malformed{"no banner", "2 2\n1\n2\n3\n4\n", "bad.mtx:1:", "banner"},
        Malformed{"wrong banner", "%%MatrixMarkt matrix array real general\n1 1\n1\n", "bad.mtx:1:", "banner"},
        Malformed{"short banner", "%%MatrixMarket matrix array real\n1 1\n1\n", "bad.mtx:1:", "banner"},
        Malformed{"vector object", "%%MatrixMarket vector array real general\n1 1\n1\n", "bad.mtx:1:", "vector"},
        Malformed{"coordinate complex", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 5 0\n",
                  "bad.mtx:1:", "complex"},
        Malformed{"coordinate two sizes", "%%MatrixMarket matrix coordinate real general\n2 2\n", "bad.mtx:2:",
                  "three integers"},
        Malformed{"coordinate index", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 5\n", "bad.mtx:3:",
                  "1..2"},
        Malformed{"coordinate no value", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n", "bad.mtx:3:",
                  "row column value"},
        Malformed{"coordinate too few", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 5\n", "bad.mtx:3:",
                  "too few entries"},
        Malformed{"coordinate too many", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 5\n2 2 1\n",
                  "bad.mtx:4:", "too many entries"},
        Malformed{"coordinate skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 5\n",
                  "bad.mtx:3:", "diagonal"},
        Malformed{"coordinate huge", "%%MatrixMarket matrix coordinate real general\n1000000 1000000 1\n1 1 1\n",
                  "bad.mtx:2:", "too large"},
        Malformed{"unknown format", "%%MatrixMarket matrix dense real general\n1 1\n1\n", "bad.mtx:1:", "format"},
        Malformed{"complex", "%%MatrixMarket matrix array complex general\n1 1\n1 0\n", "bad.mtx:1:", "complex"},
        Malformed{"pattern", "%%MatrixMarket matrix array pattern general\n1 1\n", "bad.mtx:1:", "pattern"},
        Malformed{"unknown field", "%%MatrixMarket matrix array quaternion general\n1 1\n1\n", "bad.mtx:1:", "field"},
        Malformed{"hermitian", "%%MatrixMarket matrix array real hermitian\n1 1\n1\n", "bad.mtx:1:", "hermitian"},
        Malformed{"unknown symmetry", "%%MatrixMarket matrix array real diagonal\n1 1\n1\n", "bad.mtx:1:", "symmetry"},
        Malformed{"no size line", kHeader + "% only a comment\n", "bad.mtx:2:", "size line"},
        Malformed{"one size", kHeader + "% c\n3\n1\n2\n3\n", "bad.mtx:3:", "size line"},
        Malformed{"three sizes", kHeader + "2 2 4\n1\n2\n3\n4\n", "bad.mtx:2:", "size line"},
        Malformed{"size not a number", kHeader + "2 x\n1\n2\n", "bad.mtx:2:", "not an integer"},
        Malformed{"size a real", kHeader + "2 1.5\n1\n2\n", "bad.mtx:2:", "not an integer"},
        Malformed{"negative size", kHeader + "-2 2\n", "bad.mtx:2:", "negative"},
        Malformed{"huge size", kHeader + "99999999999 99999999999\n1\n", "bad.mtx:2:", "too large"},
        Malformed{"too few values", kHeader + "2 2\n1\n2\n3\n", "bad.mtx:5:", "too few values"},
        Malformed{"no values", kHeader + "2 2\n", "bad.mtx:2:", "too few values"},
        Malformed{"too many values", kHeader + "2 1\n1\n2\n3\n", "bad.mtx:5:", "too many values"},
        Malformed{"two on a line, too many", kHeader + "1 1\n1 2\n", "bad.mtx:3:", "too many values"},
        Malformed{"non-numeric", kHeader + "2 1\n1\nabc\n", "bad.mtx:4:", "'abc'"},
        Malformed{"trailing garbage", kHeader + "2 1\n12abc\n1\n", "bad.mtx:3:", "'12abc'"},
        Malformed{"overflow", kHeader + "1 1\n1e999\n", "bad.mtx:3:", "out of the range"},
        Malformed{"binary", std::string("\x01\xfe\0zz\n", 6), "bad.mtx:1:", "'\\x01\\xfe\\x00zz'"},
        Malformed{"symmetric not square", "%%MatrixMarket matrix array real symmetric\n2 3\n1\n2\n3\n", "bad.mtx:2:",
                  "square"},
        Malformed{"symmetric too many", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", "bad.mtx:6:",
                  "too many values"}),
    [](const testing::TestParamInfo<Malformed>& param) {
        std::string name = param.param.what;
        for (char& ch : name)
            if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        return name;
    });

TEST(MatrixMarketFiles, MissingFileNamesTheFile)
{
    try {
        io::read_matrix_market("/nonexistent/dir/missing.mtx");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/missing.mtx"), std::string::npos) << e.what();
    }
}

TEST(MatrixMarketFiles, DirectoryIsRejected)
{
    try {
        io::read_matrix_market("/tmp");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/tmp"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
    }
}

TEST(MatrixMarketFiles, ErrorsInFilesNameThePathAndLine)
{
    char dir_template[] = "/tmp/flamex_mm_XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    const std::string path = std::string(dir_template) + "/bad.mtx";
    std::ofstream(path) << kHeader << "% comment\n2 1\n1\nfoo\n";
    try {
        io::read_matrix_market(path);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind(path + ":5:", 0), 0u) << e.what();
    }
    std::filesystem::remove_all(dir_template);
}

TEST(MatrixMarketFiles, UnwritablePathThrows)
{
    Matrix A(1, 1);
    EXPECT_THROW(io::write_matrix_market("/nonexistent/dir/out.mtx", A), Error);
    EXPECT_THROW(io::write_pivots("/nonexistent/dir/ipiv.txt", Pivots(1)), Error);
}

// --- pivot files ----------------------------------------------------------------

TEST(PivotFiles, ReadSkipsCommentsAndConvertsToOffsets)
{
    std::istringstream in("# ipiv\n3\n\n2\n% note\n3\n");
    const Pivots p = io::read_pivots(in, "ipiv.txt");
    ASSERT_EQ(p.size(), 3);
    EXPECT_EQ(p[0], 2);
    EXPECT_EQ(p[1], 0);
    EXPECT_EQ(p[2], 0);
}

TEST(PivotFiles, MalformedPivotsNameFileAndLine)
{
    const std::pair<const char*, const char*> cases[] = {
        {"1\nx\n", "ipiv.txt:2:"},       // not a number
        {"1\n2 3\n", "ipiv.txt:2:"},     // two on a line
        {"0\n", "ipiv.txt:1:"},          // 0 is not a 1-based row
        {"-1\n", "ipiv.txt:1:"},         // negative
        {"2\n1\n", "ipiv.txt:2:"},       // row 1 is above position 2
        {"1\n\n9\n", "ipiv.txt:3:"},     // past the 4 rows
        {"1\n2.0\n", "ipiv.txt:2:"},     // not an integer
    };
    for (const auto& [text, location] : cases) {
        std::istringstream in(text);
        try {
            io::read_pivots(in, "ipiv.txt", 4);
            ADD_FAILURE() << "no error for '" << text << "'";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind(location, 0), 0u) << e.what();
        }
    }
}
