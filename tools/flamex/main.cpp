// flamex: the command-line front end to the LU variants, the solve driver and the
// abstract BLAS, on Matrix Market array files.
//
//   flamex lu A.mtx [--variant NAME] [--backend NAME] [--block NB] [--inner NAME]
//                   [--threads T] [-o LU.mtx] [--pivots ipiv.txt]
//   flamex lu --list
//   flamex solve A.mtx b.mtx [--variant NAME] [--backend NAME] [--block NB] [--inner NAME]
//                   [--refine K] [--threads T] [-o x.mtx]
//   flamex dot x.mtx y.mtx [--backend NAME] [--threads T]
//   flamex gemv A.mtx x.mtx [--trans] [--alpha a] [--beta b --y y.mtx] [--backend NAME]
//                   [--threads T] [-o y.mtx]
//   flamex trsv T.mtx b.mtx [--lower|--upper] [--trans] [--unit] [--refine K]
//                   [--backend NAME] [--threads T] [-o x.mtx]
//   flamex backends
//   flamex devices
//   flamex gen dot|gemv|trsv|lu --n N [--cond C] [--seed S] [-o PREFIX]
//
// Output: a result matrix goes to -o FILE, or as Matrix Market to stdout without
// -o (lu writes no factors without -o). When stdout carries no matrix, lu, solve,
// gemv and trsv print one summary line of key=value pairs there; dot prints its
// value alone. Diagnostics go to stderr.
//
// Exit status: 0 success; 1 numerical failure (a zero pivot, a zero on the diagonal
// of a triangular matrix); 2 bad usage or bad input (option, number, file,
// dimensions, variant, backend).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "blas/opencl.hpp"
#include "tools/lib/generators.hpp"
#include "tools/lib/matrix_market.hpp"
#include "variants/lu.hpp"

namespace {

using namespace flamex;

// Bad usage: reported with a pointer to the subcommand's --help; exit status 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

constexpr int kSuccess = 0, kNumericalFailure = 1, kBadInput = 2;

// --- options ----------------------------------------------------------------------

struct Option {
    const char* name;  // "--block"
    const char* alias; // "-o", or nullptr
    const char* value; // "NB" for an option with a value, nullptr for a flag
    const char* help;
};

const Option kVariant{"--variant", nullptr, "NAME", "LU variant (default lu_piv_unb_var3; see `flamex lu --list`)"};
const Option kInner{"--inner", nullptr, "NAME", "unblocked variant for the blocks of a blocked variant"};
const Option kBlock{"--block", nullptr, "NB", "block size of blocked variants and of the backend's kernels (>= 1)"};
const Option kBackend{"--backend", nullptr, "NAME", "BLAS backend (default $FLAMEX_BACKEND, else blis; see `flamex backends`)"};
const Option kThreads{"--threads", nullptr, "T", "threads the backend may use (>= 1, default 1)"};
const Option kDevice{"--device", nullptr, "DEV", "OpenCL device, by index or name (default $FLAMEX_OPENCL_DEVICE; see `flamex devices`)"};
const Option kRefine{"--refine", nullptr, "K", "at most K steps of iterative refinement (>= 0, default 0)"};
const Option kOutput{"--output", "-o", "FILE", "write the result to FILE (Matrix Market; - for stdout)"};
const Option kHelp{"--help", "-h", nullptr, "show this help"};

struct Args {
    std::string command;
    std::vector<std::string> operands;
    std::map<std::string, std::string> values; // by the option's name; flags map to ""

    bool has(const Option& o) const { return values.count(o.name) != 0; }
    std::optional<std::string> get(const Option& o) const
    {
        const auto it = values.find(o.name);
        return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
};

struct Command {
    const char* name;
    std::vector<const char*> operands; // names, all required
    const char* synopsis;              // the rest of the usage line
    const char* description;
    std::vector<const Option*> options;
    int (*run)(const Args&);
};

std::string usage_line(const Command& c)
{
    std::string s = std::string("flamex ") + c.name;
    for (const char* o : c.operands) s += std::string(" ") + o;
    return *c.synopsis ? s + " " + c.synopsis : s;
}

void print_help(const Command& c, std::ostream& out)
{
    out << "usage: " << usage_line(c) << "\n\n" << c.description << "\n\noptions:\n";
    for (const Option* o : c.options) {
        std::string left = std::string("  ") + (o->alias ? std::string(o->alias) + ", " : std::string()) + o->name;
        if (o->value) left += std::string(" ") + o->value;
        out << left << std::string(left.size() < 24 ? 24 - left.size() : 1, ' ') << o->help << "\n";
    }
}

// Splits argv[2..] by the command's options: "--name value", "--name=value",
// flags, and operands ("--" ends the options; "-" alone is an operand).
Args parse(const Command& c, int argc, char** argv)
{
    Args a;
    a.command = c.name;
    bool options_done = false;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (options_done || arg.size() < 2 || arg[0] != '-') {
            a.operands.push_back(arg);
            continue;
        }
        if (arg == "--") {
            options_done = true;
            continue;
        }
        const size_t eq = arg.rfind("--", 0) == 0 ? arg.find('=') : std::string::npos;
        const std::string name = arg.substr(0, eq);
        const auto found = std::find_if(c.options.begin(), c.options.end(), [&](const Option* o) {
            return name == o->name || (o->alias != nullptr && name == o->alias);
        });
        if (found == c.options.end()) throw UsageError("unknown option '" + name + "'");
        const Option& o = **found;
        if (a.values.count(o.name) != 0) throw UsageError(std::string("option ") + o.name + " given more than once");
        std::string value;
        if (o.value == nullptr) {
            if (eq != std::string::npos) throw UsageError(std::string("option ") + o.name + " takes no value");
        } else if (eq != std::string::npos) {
            value = arg.substr(eq + 1);
        } else {
            if (i + 1 >= argc || std::string(argv[i + 1]).rfind("--", 0) == 0)
                throw UsageError(std::string("option ") + o.name + " requires a value (" + o.value + ")");
            value = argv[++i];
        }
        a.values[o.name] = value;
    }
    if (a.operands.size() > c.operands.size())
        throw UsageError("unexpected argument '" + a.operands[c.operands.size()] + "'");
    return a;
}

// The operands, all of them required.
void require_operands(const Command& c, const Args& a)
{
    if (a.operands.size() < c.operands.size())
        throw UsageError(std::string("missing argument ") + c.operands[a.operands.size()]);
}

long long integer_option(const Args& a, const Option& o, long long fallback, long long min, long long max)
{
    const auto text = a.get(o);
    if (!text) return fallback;
    const auto v = io::parse_integer(*text, std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
    if (!v) throw UsageError(std::string("option ") + o.name + ": '" + *text + "' is not an integer");
    if (*v < min || *v > max)
        throw UsageError(std::string("option ") + o.name + ": " + *text + " is out of range [" + std::to_string(min) +
                         ", " + std::to_string(max) + "]");
    return *v;
}

double real_option(const Args& a, const Option& o, double fallback)
{
    const auto text = a.get(o);
    if (!text) return fallback;
    const auto v = io::parse_real(*text);
    if (!v) throw UsageError(std::string("option ") + o.name + ": '" + *text + "' is not a number");
    return *v;
}

int threads_of(const Args& a) { return static_cast<int>(integer_option(a, kThreads, 1, 1, 1024)); }
dim_t block_of(const Args& a, dim_t fallback) { return integer_option(a, kBlock, fallback, 1, dim_t{1} << 30); }
int refine_of(const Args& a) { return static_cast<int>(integer_option(a, kRefine, 0, 0, 1000000)); }

std::unique_ptr<Blas> backend_of(const Args& a)
{
    const auto chosen = a.get(kBackend);
    const std::string name = chosen ? *chosen : default_backend_name();
    BackendOptions options;
    options.threads = threads_of(a);
    options.block = a.has(kBlock) ? block_of(a, 0) : 0;
    if (const auto device = a.get(kDevice)) options.device = *device;
    try {
        return make_backend(name, options);
    } catch (const Error& e) {
        if (chosen) throw;
        throw Error(std::string(e.what()) + ", from FLAMEX_BACKEND");
    }
}

const LuVariant& variant_of(const Args& a, LuControl& control)
{
    const LuVariant& v = find_lu_variant(a.get(kVariant).value_or("lu_piv_unb_var3"));
    control.block = block_of(a, control.block);
    if (const auto inner = a.get(kInner)) {
        if (!v.blocked) throw UsageError("option --inner applies only to blocked variants; " + v.name + " is unblocked");
        control.inner = &find_lu_variant(*inner);
    }
    return v;
}

// --- files and output -------------------------------------------------------------

std::string dims(Obj A) { return std::to_string(A.length()) + "x" + std::to_string(A.width()); }

// A vector file: n x 1, or 1 x n turned into n x 1.
Matrix read_vector(const std::string& path)
{
    Matrix v = io::read_matrix_market(path);
    if (v.width() == 1) return v;
    if (v.length() == 0 || v.width() == 0) return Matrix(0, 1);
    if (v.length() != 1) throw Error(path + ": expected a vector (n x 1 or 1 x n), got a " + dims(v) + " matrix");
    Matrix column(v.width(), 1);
    for (dim_t i = 0; i < v.width(); ++i) column(i, 0) = v(0, i);
    return column;
}

bool to_stdout(const std::optional<std::string>& path) { return !path || *path == "-"; }

// Writes the result to -o FILE or stdout; true when it went to stdout.
bool write_result(const Args& a, Obj R, const std::string& comment)
{
    const auto path = a.get(kOutput);
    io::write_matrix_market(path.value_or("-"), R, comment);
    return to_stdout(path);
}

// One line of key=value pairs.
class Summary {
public:
    template <class T>
    Summary& add(const std::string& key, const T& value)
    {
        std::ostringstream s;
        s << value;
        line_ += (line_.empty() ? "" : " ") + key + "=" + s.str();
        return *this;
    }
    Summary& real(const std::string& key, double value) { return add(key, io::format_real(value)); }
    void print() const { std::cout << line_ << "\n"; }

private:
    std::string line_;
};

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double norm_inf(const Blas& blas, Obj v)
{
    double m = 0.0;
    for (dim_t i = 0; i < v.length(); ++i) {
        const double e = std::fabs(blas.element(v, i, 0));
        if (e > m || std::isnan(e)) m = e;
    }
    return m;
}

int singular(const Args& a, const std::string& where)
{
    std::cerr << "flamex " << a.command << ": matrix is singular: " << where << "\n";
    return kNumericalFailure;
}

// --- the subcommands --------------------------------------------------------------

int run_lu(const Args& a);
int run_solve(const Args& a);
int run_dot(const Args& a);
int run_gemv(const Args& a);
int run_trsv(const Args& a);
int run_backends(const Args& a);
int run_devices(const Args& a);
int run_gen(const Args& a);

const Option kList{"--list", nullptr, nullptr, "list the registered LU variants and exit"};
const Option kPivots{"--pivots", nullptr, "FILE", "write the pivots to FILE, LAPACK's 1-based ipiv, one per line"};
const Option kTrans{"--trans", nullptr, nullptr, "use the transpose of the matrix"};
const Option kAlpha{"--alpha", nullptr, "a", "scalar alpha (default 1)"};
const Option kBeta{"--beta", nullptr, "b", "scalar beta (needs --y; default 1 with --y)"};
const Option kY{"--y", nullptr, "FILE", "the vector y of y := alpha op(A) x + beta y"};
const Option kLower{"--lower", nullptr, nullptr, "T is lower triangular (the default)"};
const Option kUpper{"--upper", nullptr, nullptr, "T is upper triangular"};
const Option kUnit{"--unit", nullptr, nullptr, "T has a unit diagonal (its stored diagonal is not read)"};
const Option kSize{"--n", nullptr, "N", "problem size (>= 2)"};
const Option kCond{"--cond", nullptr, "C", "target condition number (default 1e8)"};
const Option kSeed{"--seed", nullptr, "S", "random seed (default 0)"};
const Option kAllRows{"--all-rows", nullptr, nullptr, "gemv: every row ill-conditioned (default: one row, as the paper)"};
const Option kNoMeasure{"--no-measure", nullptr, nullptr, "skip measuring the condition number with MPFR"};
const Option kPrefix{"--output", "-o", "PREFIX", "write PREFIX_<operand>.mtx files (default: the kind)"};

const std::vector<Command>& commands()
{
    static const std::vector<Command> list = {
        {"lu", {"A.mtx"}, "[options]  |  flamex lu --list",
         "Factors P A = L U in place with an LU variant (m x n, m != n allowed). With -o the\n"
         "factors (L unit lower below the diagonal, U above) are written as Matrix Market,\n"
         "with --pivots the row interchanges. Prints one summary line\n"
         "(m, n, variant, backend, time_s, info) unless stdout carries a result.\n"
         "A zero pivot is reported on stderr with its column (exit status 1); the\n"
         "factorization still goes on, as LAPACK's getrf does, and is written.",
         {&kVariant, &kBackend, &kBlock, &kInner, &kThreads, &kDevice, &kOutput, &kPivots, &kList, &kHelp},
         run_lu},
        {"solve", {"A.mtx", "b.mtx"}, "[options]",
         "Solves A x = b (A n x n, b n x 1 or 1 x n) by LU and two triangular solves, with\n"
         "optional iterative refinement. Writes x to -o FILE (then prints one summary line:\n"
         "n, variant, backend, refinement_steps, residual_inf, time_s, info), or to stdout.",
         {&kVariant, &kBackend, &kBlock, &kInner, &kRefine, &kThreads, &kDevice, &kOutput, &kHelp},
         run_solve},
        {"dot", {"x.mtx", "y.mtx"}, "[options]",
         "Prints x^T y alone on one line, with 17 significant digits (or nan, inf, -inf).",
         {&kBackend, &kThreads, &kDevice, &kHelp},
         run_dot},
        {"gemv", {"A.mtx", "x.mtx"}, "[options]",
         "Computes y := alpha op(A) x + beta y (y = 0 without --y). Writes y to -o FILE\n"
         "(then prints one summary line) or to stdout.",
         {&kTrans, &kAlpha, &kBeta, &kY, &kBackend, &kThreads, &kDevice, &kOutput, &kHelp},
         run_gemv},
        {"trsv", {"T.mtx", "b.mtx"}, "[options]",
         "Solves op(T) x = b for triangular T, reading only T's triangle. Refinement\n"
         "computes r := b - op(T) x with gemv on the triangle and stops early once the\n"
         "correction no longer changes x. Writes x to -o FILE (then prints one summary\n"
         "line) or to stdout. A zero on the diagonal of a non-unit T is exit status 1.",
         {&kLower, &kUpper, &kTrans, &kUnit, &kRefine, &kBackend, &kThreads, &kDevice, &kOutput, &kHelp},
         run_trsv},
        {"backends", {}, "",
         "Lists the BLAS backends, one per line: name, then description.",
         {&kHelp},
         run_backends},
        {"gen", {"KIND"}, "--n N [options]   (KIND: dot, gemv, trsv or lu)",
         "Writes a seeded, reproducible ill-conditioned problem as Matrix Market files:\n"
         "dot: x, y (Ogita-Rump-Oishi); gemv: A, x (one ill-conditioned row); trsv: T, b;\n"
         "lu: A, b = A ones. Prints the files, then the condition number measured with MPFR.",
         {&kSize, &kCond, &kSeed, &kLower, &kUpper, &kUnit, &kAllRows, &kNoMeasure, &kPrefix, &kHelp},
         run_gen},
        {"devices", {}, "",
         "Lists the OpenCL platforms' devices, one per line, with the index and name that\n"
         "--device and FLAMEX_OPENCL_DEVICE select by. No OpenCL platform is exit status 2.",
         {&kHelp},
         run_devices},
    };
    return list;
}

const Command& command(const std::string& name)
{
    for (const Command& c : commands())
        if (name == c.name) return c;
    throw UsageError("unknown subcommand '" + name + "'");
}

int run_lu(const Args& a)
{
    if (a.has(kList)) {
        if (!a.operands.empty()) throw UsageError("--list takes no matrix file");
        size_t width = 0;
        for (const LuVariant& v : lu_variants()) width = std::max(width, v.name.size());
        for (const LuVariant& v : lu_variants())
            std::cout << v.name << std::string(width + 2 - v.name.size(), ' ') << v.summary << "\n";
        return kSuccess;
    }
    require_operands(command("lu"), a);
    const auto out = a.get(kOutput), pivot_file = a.get(kPivots);
    if (out && pivot_file && to_stdout(out) && to_stdout(pivot_file))
        throw UsageError("-o and --pivots cannot both write to stdout");
    LuControl control;
    const LuVariant& variant = variant_of(a, control);
    const auto blas = backend_of(a);
    Matrix A = io::read_matrix_market(a.operands[0]);
    Pivots p(std::min(A.length(), A.width()));

    const auto start = std::chrono::steady_clock::now();
    const LuInfo info = lu(*blas, variant, A, p, control);
    const double seconds = seconds_since(start);

    bool stdout_used = false;
    if (out) stdout_used |= write_result(a, A, "LU factors of " + a.operands[0] + " by " + variant.name);
    if (pivot_file) {
        io::write_pivots(*pivot_file, p);
        stdout_used |= to_stdout(pivot_file);
    }
    if (!stdout_used)
        Summary()
            .add("m", A.length())
            .add("n", A.width())
            .add("variant", variant.name)
            .add("backend", blas->name())
            .add("time_s", seconds)
            .add("info", info.zero_pivot)
            .print();
    if (!info.ok()) return singular(a, "zero pivot in column " + std::to_string(info.zero_pivot));
    return kSuccess;
}

int run_solve(const Args& a)
{
    require_operands(command("solve"), a);
    LuControl control;
    const LuVariant& variant = variant_of(a, control);
    const int refine = refine_of(a);
    const auto blas = backend_of(a);
    const std::string& a_file = a.operands[0];
    const std::string& b_file = a.operands[1];
    const Matrix A = io::read_matrix_market(a_file);
    const Matrix b = read_vector(b_file);
    if (A.length() != A.width()) throw Error(a_file + ": solve needs a square matrix, got " + dims(A));
    if (b.length() != A.length())
        throw Error("dimensions do not conform: " + a_file + " is " + dims(A) + " but " + b_file + " has " +
                    std::to_string(b.length()) + " entries");
    Matrix x(A.length(), 1);

    const auto start = std::chrono::steady_clock::now();
    const SolveReport report = solve(*blas, variant, A, b, x, refine, control);
    const double seconds = seconds_since(start);
    if (!report.info.ok()) return singular(a, "zero pivot in column " + std::to_string(report.info.zero_pivot));

    if (!write_result(a, x, "solution of " + a_file + " x = " + b_file))
        Summary()
            .add("n", A.length())
            .add("variant", variant.name)
            .add("backend", blas->name())
            .add("refinement_steps", report.refinement_steps)
            .real("residual_inf", report.residual_norm)
            .add("time_s", seconds)
            .add("info", 0)
            .print();
    return kSuccess;
}

int run_dot(const Args& a)
{
    require_operands(command("dot"), a);
    const auto blas = backend_of(a);
    const Matrix x = read_vector(a.operands[0]);
    const Matrix y = read_vector(a.operands[1]);
    if (x.length() != y.length())
        throw Error("dimensions do not conform: " + a.operands[0] + " has " + std::to_string(x.length()) + " entries but " +
                    a.operands[1] + " has " + std::to_string(y.length()));
    double value = 0.0;
    {
        Resident hold_x(*blas, x), hold_y(*blas, y);
        value = blas->dot(x, y);
    }
    std::cout << io::format_real(value) << "\n";
    return kSuccess;
}

int run_gemv(const Args& a)
{
    require_operands(command("gemv"), a);
    if (a.has(kBeta) && !a.has(kY)) throw UsageError("option --beta needs --y");
    const Trans trans = a.has(kTrans) ? TRANSPOSE : NO_TRANSPOSE;
    const double alpha = real_option(a, kAlpha, 1.0);
    const double beta = a.has(kY) ? real_option(a, kBeta, 1.0) : 0.0;
    const auto blas = backend_of(a);
    const std::string& a_file = a.operands[0];
    const std::string& x_file = a.operands[1];
    const Matrix A = io::read_matrix_market(a_file);
    const Matrix x = read_vector(x_file);
    const dim_t rows = trans == TRANSPOSE ? A.width() : A.length();
    const dim_t cols = trans == TRANSPOSE ? A.length() : A.width();
    const std::string op = trans == TRANSPOSE ? "A^T" : "A";
    if (x.length() != cols)
        throw Error("dimensions do not conform: " + op + " is " + std::to_string(rows) + "x" + std::to_string(cols) +
                    " (" + a_file + ") but " + x_file + " has " + std::to_string(x.length()) + " entries");
    Matrix y(rows, 1);
    if (const auto y_file = a.get(kY)) {
        y = read_vector(*y_file);
        if (y.length() != rows)
            throw Error("dimensions do not conform: " + op + " is " + std::to_string(rows) + "x" + std::to_string(cols) +
                        " (" + a_file + ") but " + *y_file + " has " + std::to_string(y.length()) + " entries");
    }

    const auto start = std::chrono::steady_clock::now();
    {
        Resident hold_a(*blas, A), hold_x(*blas, x), hold_y(*blas, y);
        blas->gemv(trans, alpha, A, x, beta, y);
    }
    const double seconds = seconds_since(start);
    if (!write_result(a, y, "y := alpha op(A) x + beta y"))
        Summary()
            .add("m", rows)
            .add("n", cols)
            .add("trans", trans == TRANSPOSE ? "yes" : "no")
            .add("backend", blas->name())
            .add("time_s", seconds)
            .print();
    return kSuccess;
}

int run_trsv(const Args& a)
{
    require_operands(command("trsv"), a);
    if (a.has(kLower) && a.has(kUpper)) throw UsageError("options --lower and --upper exclude each other");
    const Uplo uplo = a.has(kUpper) ? UPPER : LOWER;
    const Trans trans = a.has(kTrans) ? TRANSPOSE : NO_TRANSPOSE;
    const Diag diag = a.has(kUnit) ? UNIT : NONUNIT;
    const int refine = refine_of(a);
    const auto blas = backend_of(a);
    const std::string& t_file = a.operands[0];
    const std::string& b_file = a.operands[1];
    const Matrix T = io::read_matrix_market(t_file);
    const Matrix b = read_vector(b_file);
    const dim_t n = T.length();
    if (T.width() != n) throw Error(t_file + ": trsv needs a square matrix, got " + dims(T));
    if (b.length() != n)
        throw Error("dimensions do not conform: " + t_file + " is " + dims(T) + " but " + b_file + " has " +
                    std::to_string(b.length()) + " entries");
    if (diag == NONUNIT)
        for (dim_t j = 0; j < n; ++j)
            if (T(j, j) == 0.0) return singular(a, "zero on the diagonal in column " + std::to_string(j + 1));

    // The triangle trsv reads, as a full matrix for gemv.
    Matrix Tt(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i)
            if (i == j || (uplo == LOWER ? i > j : i < j)) Tt(i, j) = (i == j && diag == UNIT) ? 1.0 : T(i, j);

    Matrix x(n, 1), r(n, 1), x_previous(n, 1);
    int steps = 0;
    double residual = 0.0;
    const auto start = std::chrono::steady_clock::now();
    {
        Resident hold_t(*blas, T), hold_tt(*blas, Tt), hold_b(*blas, b), hold_x(*blas, x), hold_r(*blas, r),
            hold_prev(*blas, x_previous);
        blas->copy(b, x);
        blas->trsv(uplo, trans, diag, T, x);
        for (int step = 0; step < refine; ++step) {
            blas->copy(b, r); // r := b - op(T) x
            blas->gemv(trans, -1.0, Tt, x, 1.0, r);
            blas->trsv(uplo, trans, diag, T, r); // d := op(T)^{-1} r
            blas->copy(x, x_previous);
            blas->axpy(1.0, r, x); // x := x + d
            ++steps;
            blas->axpy(-1.0, x, x_previous);
            if (norm_inf(*blas, x_previous) == 0.0) break; // d no longer changes x
        }
        blas->copy(b, r);
        blas->gemv(trans, -1.0, Tt, x, 1.0, r);
        residual = norm_inf(*blas, r);
    }
    const double seconds = seconds_since(start);
    if (!write_result(a, x, "solution of op(" + t_file + ") x = " + b_file))
        Summary()
            .add("n", n)
            .add("uplo", uplo == LOWER ? "lower" : "upper")
            .add("trans", trans == TRANSPOSE ? "yes" : "no")
            .add("diag", diag == UNIT ? "unit" : "nonunit")
            .add("backend", blas->name())
            .add("refinement_steps", steps)
            .real("residual_inf", residual)
            .add("time_s", seconds)
            .print();
    return kSuccess;
}

int run_backends(const Args& a)
{
    require_operands(command("backends"), a);
    size_t width = 0;
    for (const BackendInfo& b : backends()) width = std::max(width, b.name.size());
    for (const BackendInfo& b : backends())
        std::cout << b.name << std::string(width + 2 - b.name.size(), ' ') << b.description << "\n";
    return kSuccess;
}

int run_gen(const Args& a)
{
    require_operands(command("gen"), a);
    gen::Spec spec;
    const auto kind = gen::parse_kind(a.operands[0]);
    if (!kind) throw UsageError("unknown problem kind '" + a.operands[0] + "' (known: dot, gemv, trsv, lu)");
    if (!a.has(kSize)) throw UsageError("option --n is required");
    if (a.has(kLower) && a.has(kUpper)) throw UsageError("options --lower and --upper exclude each other");
    spec.kind = *kind;
    spec.n = integer_option(a, kSize, 0, 2, dim_t{1} << 24);
    spec.cond = real_option(a, kCond, 1e8);
    spec.seed = static_cast<std::uint64_t>(integer_option(a, kSeed, 0, 0, std::numeric_limits<long long>::max()));
    spec.uplo = a.has(kUpper) ? UPPER : LOWER;
    spec.diag = a.has(kUnit) ? UNIT : NONUNIT;
    spec.gemv_style = a.has(kAllRows) ? gen::GemvStyle::AllRows : gen::GemvStyle::OneIllRow;
    const auto prefix = a.get(kPrefix);
    const gen::Written w = gen::write_problem(spec, prefix ? *prefix : a.operands[0], !a.has(kNoMeasure));
    for (const std::string& f : w.files) std::cout << f << "\n";
    if (!a.has(kNoMeasure)) std::cout << "measured_cond=" << io::format_real(w.measured_cond) << "\n";
    return kSuccess;
}

int run_devices(const Args& a)
{
    require_operands(command("devices"), a);
    for (const OpenClDeviceInfo& d : opencl_devices()) std::cout << describe_device(d) << "\n";
    return kSuccess;
}

void print_usage(std::ostream& out)
{
    out << "usage: flamex <subcommand> [arguments] [options]\n\nsubcommands:\n";
    for (const Command& c : commands()) out << "  " << usage_line(c) << "\n";
    out << "\n`flamex <subcommand> --help` describes one. Exit status: 0 success, 1 numerical\n"
           "failure (singular matrix), 2 bad usage or input.\n";
}

bool wants_help(int argc, char** argv)
{
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") return false;
        if (arg == "--help" || arg == "-h") return true;
    }
    return false;
}

int run(int argc, char** argv)
{
    if (argc < 2) {
        print_usage(std::cerr);
        return kBadInput;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        if (argc > 2 && name == "help") {
            print_help(command(argv[2]), std::cout);
        } else {
            print_usage(std::cout);
        }
        return kSuccess;
    }
    const Command& c = command(name);
    if (wants_help(argc, argv)) {
        print_help(c, std::cout);
        return kSuccess;
    }
    return c.run(parse(c, argc, argv));
}

} // namespace

int main(int argc, char** argv)
{
    const bool known = argc > 1 && std::any_of(commands().begin(), commands().end(),
                                                [&](const Command& c) { return std::string(argv[1]) == c.name; });
    const std::string who = known ? std::string("flamex ") + argv[1] : "flamex";
    int status = kBadInput;
    try {
        status = run(argc, argv);
    } catch (const UsageError& e) {
        std::cerr << who << ": " << e.what() << "\n";
        std::cerr << "Try '" << who << " --help'.\n";
        return kBadInput;
    } catch (const Error& e) {
        std::cerr << who << ": " << e.what() << "\n";
        return kBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << who << ": out of memory\n";
        return kBadInput;
    } catch (const std::exception& e) {
        std::cerr << who << ": " << e.what() << "\n";
        return kBadInput;
    } catch (...) {
        std::cerr << who << ": unexpected error\n";
        return kBadInput;
    }
    std::cout.flush();
    if (!std::cout) {
        std::cerr << who << ": error writing to standard output\n";
        return kBadInput;
    }
    return status;
}
