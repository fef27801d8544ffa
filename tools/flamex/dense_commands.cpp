// The dense subcommands of `flamex` (cli.hpp): one problem in Matrix Market files,
// factored or solved by an LU variant, factored by a Cholesky or LDL^T variant,
// inverted by a triangular inverse variant, or one abstract BLAS operation, on any
// backend.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "blas/blas.hpp"
#include "opencl/devices.hpp"
#include "tools/flamex/cli.hpp"
#include "reference/generators.hpp"
#include "io/matrix_market.hpp"
#include "variants/chol.hpp"
#include "variants/ldlt.hpp"
#include "variants/ldlt_blas.hpp"
#include "variants/lu.hpp"
#include "variants/operations.hpp"
#include "variants/trinv.hpp"

namespace flamex::cli {
namespace {

const Option kVariant{"--variant", nullptr, "NAME", "LU variant (default lu_piv_unb_var3; see `flamex lu --list`)"};
const Option kInner{"--inner", nullptr, "NAME", "unblocked variant for the blocks of a blocked variant"};
const Option kRefine{"--refine", nullptr, "K", "at most K steps of iterative refinement (>= 0, default 0)"};
const Option kList{"--list", nullptr, nullptr, "list the registered LU variants and exit"};
const Option kCholVariant{"--variant", nullptr, "NAME", "Cholesky variant (default chol_unb_var3; see `flamex chol --list`)"};
const Option kCholInner{"--inner", nullptr, "NAME", "unblocked Cholesky variant for the diagonal blocks of a blocked one"};
const Option kCholList{"--list", nullptr, nullptr, "list the registered Cholesky variants and exit"};
const Option kLdltVariant{"--variant", nullptr, "NAME", "LDL^T variant (default ldlt_unb_var3; see `flamex ldlt --list`)"};
const Option kLdltList{"--list", nullptr, nullptr, "list the LDL^T variants and exit"};
const Option kTrinvVariant{"--variant", nullptr, "NAME", "triangular inverse variant (default trinv_unb_var3; see `flamex trinv --list`)"};
const Option kTrinvInner{"--inner", nullptr, "NAME", "unblocked inverse variant for the diagonal blocks of a blocked one"};
const Option kTrinvList{"--list", nullptr, nullptr, "list the registered triangular inverse variants and exit"};
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
const Option kAllRows{"--all-rows", nullptr, nullptr, "gemv: every row ill-conditioned (default: one row, as the paper)"};
const Option kNoMeasure{"--no-measure", nullptr, nullptr, "skip measuring the condition number with MPFR"};
const Option kPrefix{"--output", "-o", "PREFIX", "write PREFIX_<operand>.mtx files (default: the kind)"};
const Option kRunVariant{"--variant", nullptr, "NAME", "variant of OP (default: the operation's; see `flamex run OP --list`)"};
const Option kRunInner{"--inner", nullptr, "NAME", "unblocked variant of OP for the blocks of a blocked one"};
const Option kRunList{"--list", nullptr, nullptr, "list the operations, or with OP its operands and variants, and exit"};

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

// --inner NAME (`option`): the unblocked variant a blocked `variant` runs on its
// blocks, found by `find`; nullptr when not given, a usage error for an unblocked one.
template <class Variant, class Find>
const Variant* inner_of(const Args& a, const Option& option, const Variant& variant, Find find)
{
    const auto inner = a.get(option);
    if (!inner) return nullptr;
    if (!variant.blocked) throw UsageError("option --inner applies only to blocked variants; " + variant.name + " is unblocked");
    return &find(*inner);
}

const LuVariant& variant_of(const Args& a, LuControl& control)
{
    const LuVariant& v = find_lu_variant(a.get(kVariant).value_or("lu_piv_unb_var3"));
    control.block = block_of(a, control.block);
    if (const LuVariant* inner = inner_of(a, kInner, v, find_lu_variant)) control.inner = inner;
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

int singular(const Args& a, const std::string& where)
{
    std::cerr << "flamex " << a.command << ": matrix is singular: " << where << "\n";
    return kNumericalFailure;
}

// Prints "name  summary" lines, the names padded to one column.
template <class Variants>
void print_variants(const Variants& variants)
{
    size_t width = 0;
    for (const auto& v : variants) width = std::max(width, v.name.size());
    for (const auto& v : variants) std::cout << v.name << std::string(width + 2 - v.name.size(), ' ') << v.summary << "\n";
}

template <class Variants>
int list_variants(const Args& a, const Variants& variants)
{
    if (!a.operands.empty()) throw UsageError("--list takes no matrix file");
    print_variants(variants);
    return kSuccess;
}

int run_lu(const Args& a)
{
    if (a.has(kList)) return list_variants(a, lu_variants());
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

// --- chol, ldlt, trinv: a square matrix transformed in place from its lower triangle

Matrix read_square(const Args& a)
{
    Matrix A = io::read_matrix_market(a.operands[0]);
    if (A.length() != A.width())
        throw Error(a.operands[0] + ": " + a.command + " needs a square matrix, got " + dims(A));
    return A;
}

// The lower triangle of A with zeros above it: what chol, ldlt and trinv write.
Matrix lower_triangle(Obj A)
{
    Matrix L(A.length(), A.width());
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = j; i < A.length(); ++i) L(i, j) = A(i, j);
    return L;
}

// The result (-o) and the summary line (unless stdout is to carry the result); when
// info names a column, nothing is written, the summary carries info, and the failure
// goes to stderr (exit status 1).
int finish_in_place(const Args& a, Obj A, const std::string& variant, const std::string& backend, double seconds,
                    dim_t info, const std::string& failure, const std::string& comment)
{
    bool stdout_used = a.has(kOutput) && to_stdout(a.get(kOutput));
    if (info == 0 && a.has(kOutput)) stdout_used = write_result(a, lower_triangle(A), comment);
    if (!stdout_used)
        Summary().add("n", A.length()).add("variant", variant).add("backend", backend).add("time_s", seconds).add("info", info).print();
    if (info == 0) return kSuccess;
    std::cerr << "flamex " << a.command << ": " << failure << " " << info << "\n";
    return kNumericalFailure;
}

int run_chol(const Args& a)
{
    if (a.has(kCholList)) return list_variants(a, chol_variants());
    require_operands(command("chol"), a);
    const CholVariant& variant = find_chol_variant(a.get(kCholVariant).value_or("chol_unb_var3"));
    CholControl control;
    control.block = block_of(a, control.block);
    if (const CholVariant* inner = inner_of(a, kCholInner, variant, find_chol_variant)) control.inner = inner;
    const auto blas = backend_of(a);
    Matrix A = read_square(a);
    const auto start = std::chrono::steady_clock::now();
    const CholInfo info = chol(*blas, variant, A, control);
    return finish_in_place(a, A, variant.name, blas->name(), seconds_since(start), info.not_positive_definite,
                           "matrix is not positive definite: column",
                           "Cholesky factor L (A = L L^T) of " + a.operands[0] + " by " + variant.name);
}

int run_ldlt(const Args& a)
{
    if (a.has(kLdltList)) return list_variants(a, ldlt_driver_variants());
    require_operands(command("ldlt"), a);
    const LdltDriverVariant& variant = find_ldlt_driver_variant(a.get(kLdltVariant).value_or("ldlt_unb_var3"));
    const auto blas = backend_of(a);
    Matrix A = read_square(a);
    const auto start = std::chrono::steady_clock::now();
    const LdltInfo info = ldlt(*blas, variant, A);
    return finish_in_place(a, A, variant.name, variant.on_backend ? blas->name() : "host", seconds_since(start), info.breakdown,
                           "zero or non-finite pivot in column",
                           "LDL^T factors of " + a.operands[0] + " by " + variant.name +
                               ": L unit lower below the diagonal, D on it");
}

int run_trinv(const Args& a)
{
    if (a.has(kTrinvList)) return list_variants(a, trinv_variants());
    require_operands(command("trinv"), a);
    const TrinvVariant& variant = find_trinv_variant(a.get(kTrinvVariant).value_or("trinv_unb_var3"));
    TrinvControl control;
    control.block = block_of(a, control.block);
    if (const TrinvVariant* inner = inner_of(a, kTrinvInner, variant, find_trinv_variant)) control.inner = inner;
    const auto blas = backend_of(a);
    Matrix A = read_square(a);
    const auto start = std::chrono::steady_clock::now();
    const TrinvInfo info = trinv(*blas, variant, A, control);
    return finish_in_place(a, A, variant.name, blas->name(), seconds_since(start), info.zero_diagonal,
                           "matrix is singular: zero on the diagonal in column",
                           "inverse of the lower triangle of " + a.operands[0] + " by " + variant.name);
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

// --- run: any registered operation (variants/operations.hpp) ---------------------

int list_operations(const Args& a)
{
    if (a.operands.empty()) {
        size_t width = 0;
        for (const Operation& op : operations()) width = std::max(width, op.name.size());
        for (const Operation& op : operations())
            std::cout << op.name << std::string(width + 2 - op.name.size(), ' ') << op.title << "\n";
        return kSuccess;
    }
    if (a.operands.size() > 1) throw UsageError("--list takes at most the operation's name");
    const Operation& op = find_operation(a.operands[0]);
    std::cout << op.name << ": " << op.title << "\n";
    for (const OperandSpec& o : op.operands) std::cout << "  operand " << o.name << ": " << o.meaning << "\n";
    print_variants(op.variants());
    return kSuccess;
}

int run_operation_command(const Args& a)
{
    if (a.has(kRunList)) return list_operations(a);
    require_operands(command("run"), a);
    const Operation& op = find_operation(a.operands[0]);
    const std::vector<std::string> files(a.operands.begin() + 1, a.operands.end());
    if (files.size() != op.operands.size()) {
        std::string names;
        for (const OperandSpec& o : op.operands) names += " " + o.name + ".mtx";
        throw UsageError(op.name + " takes " + std::to_string(op.operands.size()) + " matrix file" +
                         (op.operands.size() == 1 ? "" : "s") + ":" + names);
    }
    if (a.has(kPivots) && !op.pivots) throw UsageError("option --pivots applies only to operations with pivoting, not " + op.name);
    const auto out = a.get(kOutput), pivot_file = a.get(kPivots);
    if (out && pivot_file && to_stdout(out) && to_stdout(pivot_file)) throw UsageError("-o and --pivots cannot both write to stdout");
    const std::string variant = a.get(kRunVariant).value_or(op.default_variant);
    find_variant(op, variant);
    OperationControl control;
    control.block = block_of(a, control.block);
    control.inner = a.get(kRunInner).value_or("");
    if (!control.inner.empty() && !find_variant(op, variant).blocked)
        throw UsageError("option --inner applies only to blocked variants; " + variant + " is unblocked");
    const auto blas = backend_of(a);

    std::vector<Matrix> matrices;
    std::vector<Obj> views;
    for (const std::string& f : files) matrices.push_back(io::read_matrix_market(f));
    for (size_t i = 0; i < matrices.size(); ++i) {
        if (op.operands[i].structure != Structure::General && matrices[i].length() != matrices[i].width())
            throw Error(files[i] + ": " + op.name + "'s " + op.operands[i].name + " is triangular and must be square, got " +
                        dims(matrices[i]));
        views.push_back(matrices[i]);
    }
    Pivots p(op.pivots ? views[0].min_dim() : 0);

    const auto start = std::chrono::steady_clock::now();
    const dim_t info = run_operation(*blas, op, variant, views, p, control);
    const double seconds = seconds_since(start);

    size_t result = 0;
    for (size_t i = 0; i < op.operands.size(); ++i)
        if (op.operands[i].overwritten) result = i;
    const bool written = info == 0 || op.result_on_failure;
    bool stdout_used = (out && to_stdout(out)) || (pivot_file && to_stdout(pivot_file));
    if (written && out) {
        zero_outside(op.operands[result].structure, views[result]);
        write_result(a, views[result], op.title + ": " + op.operands[result].name + " of " + files[result] + " by " + variant);
    }
    if (written && pivot_file) io::write_pivots(*pivot_file, p);
    if (!stdout_used)
        Summary()
            .add("operation", op.name)
            .add("m", views[result].length())
            .add("n", views[result].width())
            .add("variant", variant)
            .add("backend", blas->name())
            .add("time_s", seconds)
            .add("info", info)
            .print();
    if (info == 0) return kSuccess;
    std::cerr << "flamex run " << op.name << ": " << op.failure_text << " " << info << "\n";
    return kNumericalFailure;
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

} // namespace

std::vector<Command> dense_commands()
{
    return {
        {"lu", {"A.mtx"},
         "Factors P A = L U in place with an LU variant (m x n, m != n allowed). With -o the\n"
         "factors (L unit lower below the diagonal, U above) are written as Matrix Market,\n"
         "with --pivots the row interchanges. Prints one summary line\n"
         "(m, n, variant, backend, time_s, info) unless stdout carries a result.\n"
         "A zero pivot is reported on stderr with its column (exit status 1); the\n"
         "factorization still goes on, as LAPACK's getrf does, and is written.\n"
         "`flamex lu --list` lists the variants.",
         {&kVariant, &kBackend, &kBlock, &kInner, &kThreads, &kDevice, &kOutput, &kPivots, &kList, &kHelp},
         {},
         {},
         run_lu},
        {"chol", {"A.mtx"},
         "Factors A = L L^T (Cholesky, L lower) from the lower triangle of the square A\n"
         "(the upper one is not read, as LAPACK's potrf). With -o, L is written as Matrix\n"
         "Market (zeros above the diagonal). Prints one summary line (n, variant,\n"
         "backend, time_s, info) unless stdout carries a result. A matrix that is not\n"
         "positive definite is reported on stderr with the column where that was found\n"
         "(exit status 1; the summary's info) and nothing is written. `flamex chol --list` lists the variants.",
         {&kCholVariant, &kBackend, &kBlock, &kCholInner, &kThreads, &kDevice, &kOutput, &kCholList, &kHelp},
         {},
         {},
         run_chol},
        {"ldlt", {"A.mtx"},
         "Factors A = L D L^T (L unit lower, D diagonal, no pivoting) from the lower\n"
         "triangle of the square A, with the hand-written double-precision variants of\n"
         "variants/ldlt.hpp, which run on the host: --backend, --threads, --block and\n"
         "--device are checked as for the other commands but do not change the arithmetic\n"
         "(the summary says backend=host). With -o, L (below the diagonal) and D (on it)\n"
         "are written. A zero or non-finite pivot is reported on stderr with its column\n"
         "(exit status 1; the summary's info) and nothing is written. `flamex ldlt --list` lists the variants.",
         {&kLdltVariant, &kBackend, &kBlock, &kThreads, &kDevice, &kOutput, &kLdltList, &kHelp},
         {},
         {},
         run_ldlt},
        {"trinv", {"A.mtx"},
         "Inverts the lower triangle L of the square A (non-unit diagonal; the upper\n"
         "triangle is not read). With -o, L^{-1} is written (zeros above the diagonal).\n"
         "Prints one summary line unless stdout carries a result. A zero on the diagonal\n"
         "is reported on stderr with its column (exit status 1; the summary's info) and\n"
         "nothing is written.\n"
         "`flamex trinv --list` lists the variants.",
         {&kTrinvVariant, &kBackend, &kBlock, &kTrinvInner, &kThreads, &kDevice, &kOutput, &kTrinvList, &kHelp},
         {},
         {},
         run_trinv},
        {"run", {"OP", "FILE.mtx..."},
         "Runs any registered operation (`flamex run --list`) by one of its variants: its\n"
         "operands are Matrix Market files in the operation's order (`flamex run OP --list`\n"
         "names them and lists the variants), of which only the part its structure names\n"
         "(a triangle, or all) is read. With -o, the overwritten operand is written (zeros\n"
         "outside its structure); --pivots writes the row interchanges of lu_piv. Prints one\n"
         "summary line (operation, m, n, variant, backend, time_s, info) unless stdout\n"
         "carries a result. A zero pivot, a matrix not positive definite or a zero on a\n"
         "triangle's diagonal is reported on stderr with its column (exit status 1); nothing\n"
         "is written then, except by lu_piv, which goes on as LAPACK's getrf.",
         {&kRunVariant, &kBackend, &kBlock, &kRunInner, &kThreads, &kDevice, &kOutput, &kPivots, &kRunList, &kHelp},
         {},
         {},
         run_operation_command},
        {"solve", {"A.mtx", "b.mtx"},
         "Solves A x = b (A n x n, b n x 1 or 1 x n) by LU and two triangular solves, with\n"
         "optional iterative refinement. Writes x to -o FILE (then prints one summary line:\n"
         "n, variant, backend, refinement_steps, residual_inf, time_s, info), or to stdout.",
         {&kVariant, &kBackend, &kBlock, &kInner, &kRefine, &kThreads, &kDevice, &kOutput, &kHelp},
         {},
         {},
         run_solve},
        {"dot", {"x.mtx", "y.mtx"},
         "Prints x^T y alone on one line, with 17 significant digits (or nan, inf, -inf).",
         {&kBackend, &kThreads, &kDevice, &kHelp},
         {},
         {},
         run_dot},
        {"gemv", {"A.mtx", "x.mtx"},
         "Computes y := alpha op(A) x + beta y (y = 0 without --y). Writes y to -o FILE\n"
         "(then prints one summary line) or to stdout.",
         {&kTrans, &kAlpha, &kBeta, &kY, &kBackend, &kThreads, &kDevice, &kOutput, &kHelp},
         {},
         {},
         run_gemv},
        {"trsv", {"T.mtx", "b.mtx"},
         "Solves op(T) x = b for triangular T, reading only T's triangle. Refinement\n"
         "computes r := b - op(T) x with gemv on the triangle and stops early once the\n"
         "correction no longer changes x. Writes x to -o FILE (then prints one summary\n"
         "line) or to stdout. A zero on the diagonal of a non-unit T is exit status 1.",
         {&kLower, &kUpper, &kTrans, &kUnit, &kRefine, &kBackend, &kThreads, &kDevice, &kOutput, &kHelp},
         {},
         {},
         run_trsv},
        {"gen", {"dot|gemv|trsv|lu"},
         "Writes a seeded, reproducible ill-conditioned problem as Matrix Market files:\n"
         "dot: x, y (Ogita-Rump-Oishi); gemv: A, x (one ill-conditioned row); trsv: T, b;\n"
         "lu: A, b = A ones. Prints the files, then the condition number measured with MPFR.",
         {&kSize, &kCond, &kSeed, &kLower, &kUpper, &kUnit, &kAllRows, &kNoMeasure, &kPrefix, &kHelp},
         {&kSize},
         {},
         run_gen},
        {"backends", {},
         "Lists the BLAS backends, one per line: name, then description.",
         {&kHelp},
         {},
         {},
         run_backends},
        {"devices", {},
         "Lists the OpenCL platforms' devices, one per line, with the index and name that\n"
         "--device and FLAMEX_OPENCL_DEVICE select by. No OpenCL platform is exit status 2.",
         {&kHelp},
         {},
         {},
         run_devices},
    };
}

} // namespace flamex::cli
