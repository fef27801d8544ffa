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
//   flamex batch solve FILE [--method ldlt|householder-pcr|dc|auto] [--precision single|double]
//                   [--threshold T] [--tolerance R] [--threads T] [-o X.bin]
//                   [--device-backend cpu|opencl [--organization simd|collaborative|hybrid]
//                    [--cooperating P] [--work-group W] [--device DEV]]
//   flamex batch gen spd|regression --n N --count K [--cond-max C] [--cond-min C] [--paths M]
//                   [--precision P] [--seed S] [--threads T] [--no-measure] -o FILE
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
#include <cctype>
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
#include <thread>
#include <variant>
#include <vector>

#include "batched/batched.hpp"
#include "batched/opencl_batched.hpp"
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
int run_batch(const Args& a);
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
// batch (run_batch, below)
const Option kBatchMethod{"--method", nullptr, "M", "solve: ldlt, householder-pcr, dc or auto (default auto)"};
const Option kBatchPrecision{"--precision", nullptr, "P", "single or double (solve: default the file's; gen: default single)"};
const Option kBatchThreshold{"--threshold", nullptr, "T", "solve: dc drops |lambda| < T max|lambda| (>= 0; default 1e-5 single, 1e-12 double)"};
const Option kBatchTolerance{"--tolerance", nullptr, "R", "solve: residual check tolerance (> 0; default 16 n u)"};
const Option kBatchThreads{"--threads", nullptr, "T", "threads over the systems (>= 1, default: all cores); results do not depend on it"};
const Option kBatchOutput{"--output", "-o", "FILE", "solve: write the solutions to FILE; gen: the batch file (required)"};
const Option kBatchSize{"--n", nullptr, "N", "gen: order of the systems (1 .. 64)"};
const Option kBatchCount{"--count", nullptr, "K", "gen: number of systems (>= 1)"};
const Option kBatchCondMax{"--cond-max", nullptr, "C", "gen spd: largest condition number (default 1e6)"};
const Option kBatchCondMin{"--cond-min", nullptr, "C", "gen spd: smallest condition number (>= 1, default 1)"};
const Option kBatchPaths{"--paths", nullptr, "M", "gen regression: inner Monte Carlo paths per matrix (default 300)"};
const Option kBatchDeviceBackend{"--device-backend", nullptr, "B", "solve: cpu (default) or opencl (the kernels of kernels/batched_solvers.cl)"};
const Option kBatchOrganization{"--organization", nullptr, "O", "solve, opencl: simd (one work-item per system), collaborative (n) or hybrid (p; default)"};
const Option kBatchCooperating{"--cooperating", nullptr, "P", "solve, opencl hybrid: work-items per system (1 .. n; default (n + 1) / 2)"};
const Option kBatchWorkGroup{"--work-group", nullptr, "W", "solve, opencl: work-items per work-group of the cooperating kernels (default 64)"};
const Option kBatchNoMeasure{"--no-measure", nullptr, nullptr, "gen: skip measuring the condition numbers"};

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
        {"batch", {"ACTION", "ARG"}, "[options]   (solve FILE  |  gen spd|regression --n N --count K -o FILE)",
         "Many independent small symmetric systems A_k x_k = y_k (n <= 64) in one binary batch\n"
         "file (format: batched/batched.hpp), after Abbas-Turki and Graillat (2017).\n"
         "solve FILE: solves every system with --method (ldlt: LDL^T without pivoting;\n"
         "householder-pcr: tridiagonalization + parallel cyclic reduction; dc: + divide and\n"
         "conquer eigensolver with eigenvalues below --threshold discarded; auto: householder-pcr,\n"
         "then dc for the systems whose residual exceeds --tolerance). Prints a summary line\n"
         "(time_s, systems_per_s), the count of each status, and per method the residuals'\n"
         "min/median/max; -o writes x with each system's status. Exit status 1 when a system\n"
         "could not be solved (LDL^T breakdown, NaN or infinite input), 2 for bad usage or file.\n"
         "--device-backend opencl solves on an OpenCL device (--device) in one of the paper's\n"
         "organizations (--organization); the reports are the CPU's. time_s is the whole solve\n"
         "(the first one in a process builds the kernels); kernels_s and setup_and_transfers_s its parts.\n"
         "gen spd|regression: writes a seeded batch: random SPD matrices with condition numbers\n"
         "log-uniform in [--cond-min, --cond-max], or the paper's Black & Scholes regression\n"
         "(Gram) matrices, and prints their condition numbers' min/median/max.",
         {&kBatchMethod, &kBatchPrecision, &kBatchThreshold, &kBatchTolerance, &kBatchThreads, &kBatchOutput,
          &kBatchDeviceBackend, &kBatchOrganization, &kBatchCooperating, &kBatchWorkGroup, &kDevice, &kBatchSize, &kBatchCount, &kBatchCondMax, &kBatchCondMin, &kBatchPaths, &kSeed, &kBatchNoMeasure, &kHelp},
         run_batch},
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

    Matrix x(n, 1);
    const auto start = std::chrono::steady_clock::now();
    const TrsvReport report = trsv_refined(*blas, uplo, trans, diag, T, b, x, refine);
    const double seconds = seconds_since(start);
    if (!write_result(a, x, "solution of op(" + t_file + ") x = " + b_file))
        Summary()
            .add("n", n)
            .add("uplo", uplo == LOWER ? "lower" : "upper")
            .add("trans", trans == TRANSPOSE ? "yes" : "no")
            .add("diag", diag == UNIT ? "unit" : "nonunit")
            .add("backend", blas->name())
            .add("refinement_steps", report.refinement_steps)
            .real("residual_inf", report.residual_norm)
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

// --- flamex batch: many small symmetric systems (batched/batched.hpp) ----------------

// "min/median/max" of a set of residuals, as key=value pairs under `prefix`.
void add_stats(Summary& s, const std::string& prefix, const batched::ResidualStats& r)
{
    s.add(prefix + "min", r.min).add(prefix + "median", r.median).add(prefix + "max", r.max);
}

void reject_options(const Args& a, const std::vector<const Option*>& options, const std::string& what)
{
    for (const Option* o : options)
        if (a.has(*o)) throw UsageError(std::string("option ") + o->name + " does not apply to " + what);
}

int batch_threads_of(const Args& a)
{
    const unsigned cores = std::thread::hardware_concurrency();
    return static_cast<int>(integer_option(a, kBatchThreads, cores == 0 ? 1 : static_cast<long long>(cores), 1, 1024));
}

std::optional<batched::Precision> batch_precision_of(const Args& a)
{
    const auto text = a.get(kBatchPrecision);
    if (!text) return std::nullopt;
    const auto p = batched::parse_precision(*text);
    if (!p) throw UsageError("option --precision: '" + *text + "' is not single or double");
    return p;
}

// A device name as one value of a key=value summary line.
std::string no_spaces(std::string text)
{
    std::replace_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c) != 0; }, '_');
    return text;
}

// The device side of `batch solve`: no value when the systems are solved on the CPU.
std::optional<batched::OpenClBatchOptions> batch_device_of(const Args& a)
{
    const std::string backend = a.get(kBatchDeviceBackend).value_or("cpu");
    if (backend != "cpu" && backend != "opencl")
        throw UsageError("option --device-backend: '" + backend + "' is not cpu or opencl");
    if (backend == "cpu") {
        reject_options(a, {&kBatchOrganization, &kBatchCooperating, &kBatchWorkGroup, &kDevice},
                       "batch solve on the cpu (add --device-backend opencl)");
        return std::nullopt;
    }
    reject_options(a, {&kBatchThreads}, "batch solve on an OpenCL device");
    batched::OpenClBatchOptions cl;
    if (const auto o = a.get(kBatchOrganization)) {
        const auto organization = batched::parse_organization(*o);
        if (!organization)
            throw UsageError("option --organization: unknown organization '" + *o + "' (known: simd, collaborative, hybrid)");
        cl.organization = *organization;
    }
    if (a.has(kBatchCooperating) && cl.organization != batched::Organization::Hybrid)
        throw UsageError("option --cooperating applies to --organization hybrid only");
    cl.cooperating = static_cast<int>(integer_option(a, kBatchCooperating, 0, 1, batched::kMaxOrder));
    cl.work_group = static_cast<int>(integer_option(a, kBatchWorkGroup, 0, 1, 1 << 16));
    if (const auto device = a.get(kDevice)) cl.device = *device;
    return cl;
}

template <class T>
int batch_solve_in(const Args& a, const batched::Batch<T>& batch, const batched::Options& options,
                   const std::optional<batched::OpenClBatchOptions>& device)
{
    batched::OpenClSolveInfo info;
    const batched::Result<T> result =
        device ? batched::solve_opencl(batch, options, *device, &info) : batched::solve(batch, options);
    const batched::Summary s = batched::summarize(result);
    if (const auto out = a.get(kBatchOutput)) batched::write_solutions(*out, result);
    Summary head;
    head.add("n", batch.n)
        .add("count", batch.count)
        .add("precision", batched::precision_name(batched::precision_of<T>()))
        .add("method", batched::method_name(options.method));
    if (device)
        head.add("device", no_spaces(info.device))
            .add("organization", batched::organization_name(info.organization))
            .add("cooperating", info.cooperating)
            .add("work_group", info.work_group);
    else
        head.add("threads", options.threads);
    head.add("tolerance", result.tolerance)
        .add("threshold", result.threshold)
        .add("time_s", result.seconds)
        .add("systems_per_s", result.seconds > 0 ? static_cast<double>(batch.count) / result.seconds : 0.0);
    if (device) // time_s includes building the kernels (once per process) and the transfers
        head.add("kernels_s", info.factor + info.dc + info.residual).add("setup_and_transfers_s", info.upload + info.download);
    head.print();
    Summary status;
    for (int k = 0; k < batched::kStatusCount; ++k) status.add(batched::status_name(static_cast<batched::Status>(k)), s.by_status[k]);
    status.print();
    for (int m = 0; m < 3; ++m) {
        if (s.by_method[m] == 0) continue;
        Summary line;
        line.add("solved_by", batched::method_name(static_cast<batched::Method>(m))).add("systems", s.by_method[m]);
        add_stats(line, "residual_", s.residual[m]);
        line.print();
    }
    if (options.method == batched::Method::Auto && s.count_of(batched::Status::Repaired) > 0) {
        Summary line;
        line.add("repaired", s.count_of(batched::Status::Repaired));
        add_stats(line, "pcr_residual_", s.first_residual_of_repaired);
        line.print();
    }
    const std::size_t failed = s.count_of(batched::Status::Breakdown) + s.count_of(batched::Status::InvalidInput);
    if (failed == 0) return kSuccess;
    for (std::size_t k = 0; k < result.count; ++k) {
        const batched::SystemReport& r = result.report[k];
        if (r.status == batched::Status::Breakdown) {
            std::cerr << "flamex batch: " << failed << " system(s) not solved; first: system " << k
                      << ", LDL^T breakdown (zero or non-finite pivot) in column " << r.column << "\n";
            break;
        }
        if (r.status == batched::Status::InvalidInput) {
            std::cerr << "flamex batch: " << failed << " system(s) not solved; first: system " << k
                      << ", NaN or infinity in its matrix or right-hand side\n";
            break;
        }
    }
    return kNumericalFailure;
}

int run_batch_solve(const Args& a)
{
    reject_options(a, {&kBatchSize, &kBatchCount, &kBatchCondMax, &kBatchCondMin, &kBatchPaths, &kSeed, &kBatchNoMeasure},
                   "batch solve");
    batched::Options options;
    if (const auto m = a.get(kBatchMethod)) {
        const auto method = batched::parse_method(*m);
        if (!method) throw UsageError("option --method: unknown method '" + *m + "' (known: ldlt, householder-pcr, dc, auto)");
        options.method = *method;
    }
    if (a.has(kBatchThreshold)) {
        options.threshold = real_option(a, kBatchThreshold, 0.0);
        if (!(options.threshold >= 0.0) || !std::isfinite(options.threshold))
            throw UsageError("option --threshold: must be a finite number >= 0");
    }
    if (a.has(kBatchTolerance)) {
        options.tolerance = real_option(a, kBatchTolerance, 0.0);
        if (!(options.tolerance > 0.0)) throw UsageError("option --tolerance: must be > 0");
    }
    const auto device = batch_device_of(a);
    options.threads = batch_threads_of(a);
    const auto precision = batch_precision_of(a);
    if (const auto out = a.get(kBatchOutput); out && *out == "-")
        throw UsageError("option -o: the solutions are binary; give a file name");
    batched::AnyBatch any = batched::read_batch(a.operands[1]);
    const bool single = precision ? *precision == batched::Precision::Single
                                  : std::holds_alternative<batched::Batch<float>>(any);
    return std::visit(
        [&](const auto& batch) {
            if (single) return batch_solve_in(a, batched::convert<float>(batch), options, device);
            return batch_solve_in(a, batched::convert<double>(batch), options, device);
        },
        any);
}

template <class T>
int batch_gen_as(const Args& a, const std::string& kind, int n, std::size_t count, std::uint64_t seed, int threads)
{
    batched::Batch<T> batch;
    if (kind == "spd") {
        batched::SpdSpec spec;
        spec.n = n;
        spec.count = count;
        spec.seed = seed;
        spec.threads = threads;
        spec.cond_max = real_option(a, kBatchCondMax, 1e6);
        spec.cond_min = real_option(a, kBatchCondMin, 1.0);
        if (!(spec.cond_min >= 1.0) || !(spec.cond_max >= spec.cond_min) || !std::isfinite(spec.cond_max))
            throw UsageError("options --cond-min and --cond-max need 1 <= cond-min <= cond-max < inf");
        batch = batched::generate_spd<T>(spec);
    } else {
        batched::RegressionSpec spec;
        spec.n = n;
        spec.count = count;
        spec.seed = seed;
        spec.threads = threads;
        spec.paths = static_cast<int>(integer_option(a, kBatchPaths, 300, 1, 100000000));
        batch = batched::generate_regression<T>(spec);
    }
    const std::string path = *a.get(kBatchOutput);
    batched::write_batch(path, batch);
    Summary line;
    line.add("file", path).add("kind", kind).add("n", n).add("count", count).add("precision",
                                                                                  batched::precision_name(batched::precision_of<T>()));
    if (!a.has(kBatchNoMeasure)) {
        std::vector<double> kappa = batched::condition_numbers(batch, threads);
        std::sort(kappa.begin(), kappa.end(), [](double x, double y) { return x < y || (!std::isnan(x) && std::isnan(y)); });
        line.add("kappa_min", kappa.front()).add("kappa_median", kappa[kappa.size() / 2]).add("kappa_max", kappa.back());
    }
    line.print();
    return kSuccess;
}

int run_batch_gen(const Args& a)
{
    reject_options(a, {&kBatchMethod, &kBatchThreshold, &kBatchTolerance, &kBatchDeviceBackend, &kBatchOrganization,
                       &kBatchCooperating, &kBatchWorkGroup, &kDevice},
                   "batch gen");
    const std::string& kind = a.operands[1];
    if (kind != "spd" && kind != "regression")
        throw UsageError("unknown batch kind '" + kind + "' (known: spd, regression)");
    if (kind == "spd") reject_options(a, {&kBatchPaths}, "batch gen spd");
    else reject_options(a, {&kBatchCondMax, &kBatchCondMin}, "batch gen regression");
    if (!a.has(kBatchSize)) throw UsageError("option --n is required");
    if (!a.has(kBatchCount)) throw UsageError("option --count is required");
    const auto out = a.get(kBatchOutput);
    if (!out) throw UsageError("option -o is required (the batch file to write)");
    if (*out == "-") throw UsageError("option -o: the batch file is binary; give a file name");
    const int n = static_cast<int>(integer_option(a, kBatchSize, 0, 1, batched::kMaxOrder));
    const auto count = static_cast<std::size_t>(integer_option(a, kBatchCount, 0, 1, 1LL << 40));
    const auto seed = static_cast<std::uint64_t>(integer_option(a, kSeed, 0, 0, std::numeric_limits<long long>::max()));
    const int threads = batch_threads_of(a);
    const auto precision = batch_precision_of(a).value_or(batched::Precision::Single);
    if (precision == batched::Precision::Single) return batch_gen_as<float>(a, kind, n, count, seed, threads);
    return batch_gen_as<double>(a, kind, n, count, seed, threads);
}

int run_batch(const Args& a)
{
    require_operands(command("batch"), a);
    const std::string& action = a.operands[0];
    if (action == "solve") return run_batch_solve(a);
    if (action == "gen") return run_batch_gen(a);
    throw UsageError("unknown batch action '" + action + "' (known: solve, gen)");
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
