#include "support/test_support.hpp"

#include "opencl/devices.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace flamex::test {

Matrix random_matrix(dim_t m, dim_t n, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    Matrix A(m, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) A(i, j) = dist(gen);
    return A;
}

Matrix diagonally_dominant(dim_t n, std::uint64_t seed)
{
    Matrix A = random_matrix(n, n, seed);
    for (dim_t i = 0; i < n; ++i) A(i, i) += (A(i, i) < 0 ? -1.0 : 1.0) * static_cast<double>(n);
    return A;
}

double norm_inf(Obj A)
{
    double best = 0.0;
    for (dim_t i = 0; i < A.length(); ++i) {
        double row = 0.0;
        for (dim_t j = 0; j < A.width(); ++j) row += std::fabs(A(i, j));
        best = max_nan(best, row);
    }
    return best;
}

double norm_1(Obj A)
{
    double best = 0.0;
    for (dim_t j = 0; j < A.width(); ++j) {
        double col = 0.0;
        for (dim_t i = 0; i < A.length(); ++i) col += std::fabs(A(i, j));
        best = max_nan(best, col);
    }
    return best;
}

double max_relative_difference(Obj A, Obj B)
{
    double worst = 0.0;
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i)
            worst = max_nan(worst, std::fabs(A(i, j) - B(i, j)) / std::max(1.0, std::fabs(B(i, j))));
    return worst;
}

namespace {

double normwise_difference_from_row(Obj A, Obj B, bool lower)
{
    double worst = 0.0, scale = 0.0;
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = lower ? j : 0; i < A.length(); ++i) {
            worst = max_nan(worst, std::fabs(A(i, j) - B(i, j)));
            scale = max_nan(scale, std::fabs(B(i, j)));
        }
    return scale > 0 ? worst / scale : worst;
}

} // namespace

double normwise_difference(Obj A, Obj B) { return normwise_difference_from_row(A, B, false); }
double lower_normwise_difference(Obj A, Obj B) { return normwise_difference_from_row(A, B, true); }

double residual_inf(Obj A, Obj b, Obj x)
{
    long double worst = 0.0L;
    for (dim_t i = 0; i < A.length(); ++i) {
        long double r = b(i, 0);
        for (dim_t j = 0; j < A.width(); ++j) r -= static_cast<long double>(A(i, j)) * x(j, 0);
        worst = max_nan(worst, std::fabs(r));
    }
    return static_cast<double>(worst);
}

bool bitwise_equal(Obj A, Obj B)
{
    if (A.length() != B.length() || A.width() != B.width()) return false;
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i)
            if (std::memcmp(&A(i, j), &B(i, j), sizeof(double)) != 0) return false;
    return true;
}

double lu_backward_error(Obj A, Obj LU, PivObj p)
{
    const dim_t m = A.length(), n = A.width(), k = std::min(m, n);
    std::vector<long double> PA(static_cast<size_t>(m * n));
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) PA[static_cast<size_t>(i + j * m)] = A(i, j);
    for (dim_t i = 0; i < p.length(); ++i) {
        const dim_t r = i + p(i, 0);
        for (dim_t j = 0; j < n; ++j) std::swap(PA[static_cast<size_t>(i + j * m)], PA[static_cast<size_t>(r + j * m)]);
    }
    long double worst = 0.0L;
    for (dim_t i = 0; i < m; ++i) {
        long double row = 0.0L;
        for (dim_t j = 0; j < n; ++j) {
            long double s = 0.0L;
            for (dim_t l = 0; l <= std::min({i, j, k - 1}); ++l) {
                const long double lil = (l == i) ? 1.0L : LU(i, l);
                s += lil * static_cast<long double>(LU(l, j));
            }
            row += std::fabs(PA[static_cast<size_t>(i + j * m)] - s);
        }
        worst = max_nan(worst, row);
    }
    const double normA = norm_inf(A);
    if (normA == 0.0) return static_cast<double>(worst);
    return static_cast<double>(worst) /
           (normA * static_cast<double>(std::max<dim_t>({m, n, 1})) * std::numeric_limits<double>::epsilon() / 2);
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

ScratchDir::ScratchDir(const std::string& tag)
{
    std::string pattern = "/tmp/flamex_" + tag + "_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a directory like " + pattern);
    dir_ = pattern;
}

ScratchDir::~ScratchDir()
{
    std::error_code ec;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_, ec)) // unlock what a test locked
        std::filesystem::permissions(entry.path(), std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(dir_, ec);
}

namespace {

std::string shell_quote(const std::string& s)
{
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

} // namespace

ProgramRun run_program(const std::string& program, const std::vector<std::string>& args, const ScratchDir& scratch,
                       const std::string& env)
{
    std::string command = env.empty() ? "" : "env " + env + " ";
    command += shell_quote(program);
    for (const std::string& a : args) command += " " + shell_quote(a);
    command += " >" + shell_quote(scratch.path("stdout")) + " 2>" + shell_quote(scratch.path("stderr")) + " </dev/null";
    const int raw = std::system(command.c_str());
    ProgramRun r;
    if (raw != -1 && WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
    r.out = slurp(scratch.path("stdout"));
    r.err = slurp(scratch.path("stderr"));
    return r;
}

bool have_opencl()
{
    static const bool have = [] {
        try {
            return !opencl_devices().empty();
        } catch (const Error&) {
            return false;
        }
    }();
    return have;
}

std::string output_without_opencl_platform(const std::string& child_variable)
{
    namespace fs = std::filesystem;
    const fs::path self = fs::read_symlink("/proc/self/exe");
    const fs::path empty = fs::temp_directory_path() / ("flamex-no-icd-" + std::to_string(::getpid()));
    fs::create_directories(empty);
    const std::string command = "env " + child_variable + "=no-platform OCL_ICD_VENDORS='" + empty.string() +
                                "' OCL_ICD_FILENAMES= '" + self.string() + "' 2>&1";
    std::string output;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char buffer[512];
        while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
        EXPECT_EQ(::pclose(pipe), 0) << output;
    } else {
        ADD_FAILURE() << "could not start " << command;
    }
    fs::remove_all(empty);
    return output;
}

} // namespace flamex::test
