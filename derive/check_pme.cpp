// --check-pme: every variant the description implies, unblocked and blocked (the
// blocked one recursing into the unblocked for its diagonal block), interpreted in
// plain double arithmetic on small random operands, its result held against the
// operation's definition. When one fails, the PME's equations are listed: every
// update is derived from them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>

#include "blas/blas.hpp"
#include "derive/derive.hpp"

namespace flamex::derive {

namespace {

// --- the operations, on views, in plain double --------------------------------------

dim_t vlen(Obj x) { return x.length() == 1 ? x.width() : x.length(); }
double& v(Obj x, dim_t k) { return x.length() == 1 ? x(0, k) : x(k, 0); }

bool flag(const Expr& e, const char* name) { return e.name == name; }

// op(T) as a dense n x n triangle (zeros outside it, ones on a unit diagonal), and
// whether op(T) is lower triangular.
std::vector<double> dense_triangle(Obj T, const Expr& uplo, const Expr& trans, const Expr& diag, bool& lower)
{
    const dim_t n = T.length();
    const bool tlower = flag(uplo, "LOWER"), transposed = flag(trans, "TRANSPOSE"), unit = flag(diag, "UNIT");
    std::vector<double> M(static_cast<size_t>(n * n), 0.0);
    for (dim_t i = 0; i < n; ++i)
        for (dim_t j = 0; j < n; ++j) {
            const bool in = tlower ? i >= j : i <= j;
            if (!in) continue;
            const double t = (i == j && unit) ? 1.0 : T(i, j);
            if (transposed)
                M[static_cast<size_t>(j * n + i)] = t;
            else
                M[static_cast<size_t>(i * n + j)] = t;
        }
    lower = tlower != transposed;
    return M; // row-major
}

// x := M^{-1} x (solve) or M x, M an n x n row-major triangle.
void triangular(const std::vector<double>& M, dim_t n, bool lower, std::vector<double>& x, bool solve)
{
    std::vector<double> y(x);
    if (solve) {
        for (dim_t s = 0; s < n; ++s) {
            const dim_t i = lower ? s : n - 1 - s;
            double t = y[static_cast<size_t>(i)];
            for (dim_t j = 0; j < n; ++j)
                if (j != i && (lower ? j < i : j > i)) t -= M[static_cast<size_t>(i * n + j)] * y[static_cast<size_t>(j)];
            y[static_cast<size_t>(i)] = t / M[static_cast<size_t>(i * n + i)];
        }
    } else {
        for (dim_t i = 0; i < n; ++i) {
            double t = 0;
            for (dim_t j = 0; j < n; ++j) t += M[static_cast<size_t>(i * n + j)] * x[static_cast<size_t>(j)];
            y[static_cast<size_t>(i)] = t;
        }
    }
    x = y;
}

double op_element(Obj A, bool trans, dim_t i, dim_t j) { return trans ? A(j, i) : A(i, j); }

struct Problem {
    const Pme* pme;
    std::map<std::string, Obj> whole; // operand name -> its matrix
    std::map<std::string, PivObj> pivots;
    bool stopped = false;
    // For --roundings: per entry of each operand (column-major), the roundings it
    // received, one token each ("a5": the correctly rounded sum of the entry and
    // 5 products; "d5": that sum divided, one rounding; "/": a division; "n": an
    // exact negation, no rounding).
    bool trace = false;
    std::map<const double*, std::vector<std::string>> tokens;

    std::string& entry(Obj X, dim_t i, dim_t j)
    {
        for (const auto& [name, W] : whole)
            if (W.base_buffer() == X.base_buffer()) {
                auto& t = tokens[W.base_buffer()];
                t.resize(static_cast<size_t>(W.length() * W.width()));
                return t[static_cast<size_t>((X.offset_m() - W.offset_m() + i) + (X.offset_n() - W.offset_n() + j) * W.length())];
            }
        throw Error("--roundings: a view of no operand");
    }

    // Per entry, a hash of the expression that computed it: the operation, the
    // entry's previous value, and the multiset of its product terms (a sum of term
    // hashes, as the exact sum is independent of order). Equal hashes: the same
    // correctly rounded operations on the same terms, hence the same bits.
    std::map<const double*, std::vector<std::uint64_t>> hashes;

    std::uint64_t& value(Obj X, dim_t i, dim_t j)
    {
        for (const auto& [name, W] : whole)
            if (W.base_buffer() == X.base_buffer()) {
                auto& h = hashes[W.base_buffer()];
                if (h.empty())
                    for (size_t k = 0; k < static_cast<size_t>(W.length() * W.width()); ++k)
                        h.push_back(mix(std::hash<std::string>()(name) + k));
                return h[static_cast<size_t>((X.offset_m() - W.offset_m() + i) + (X.offset_n() - W.offset_n() + j) * W.length())];
            }
        throw Error("--roundings: a view of no operand");
    }

    static std::uint64_t mix(std::uint64_t x)
    {
        x += 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
    }
    static std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return mix(a * 31 + mix(b)); }
};

class Interpreter {
public:
    // With `blas`, every call goes to that backend (run_interpreted); without, to the
    // plain double operations below (--check-pme, --roundings).
    Interpreter(const Pme& pme, Problem& problem, const Blas* blas = nullptr) : pme_(pme), problem_(problem), blas_(blas) {}
    // The 1-based column of the pivot a check stopped at (0: none).
    dim_t stop_column() const { return stop_column_; }

    // Runs invariant `inv` in the given form on the operands' current views.
    void run(const Invariant& inv, bool blocked, const std::map<std::string, Obj>& operands,
             const std::map<std::string, PivObj>& pivots, dim_t block);
    // A derived invariant's loop: over its index space, from the top left or the
    // bottom right, each operand split as its shape says.
    void run_derived(const Invariant& inv, bool blocked, const std::map<std::string, Obj>& operands,
                     const std::map<std::string, PivObj>& pivots, dim_t block);

private:
    double scalar(const Expr& e, const std::map<std::string, Obj>& views) const
    {
        if (!e.name.empty() && e.name[0] == '-' && views.count(e.name.substr(1))) return -views.at(e.name.substr(1))(0, 0);
        if (views.count(e.name)) return views.at(e.name)(0, 0);
        return std::stod(e.name);
    }
    Obj view(const Expr& e, const std::map<std::string, Obj>& views) const;
    PivObj pivot_view(const Expr& e, const std::map<std::string, PivObj>& pivots) const;
    void call(const Expr& c, const std::map<std::string, Obj>& views, const std::map<std::string, PivObj>& pivots,
              const Invariant& inv, dim_t block);
    void trace(const Expr& c, const std::map<std::string, Obj>& views, const std::map<std::string, PivObj>& pivots);
    void trace_values(const Expr& c, const std::map<std::string, Obj>& views, const std::map<std::string, PivObj>& pivots);
    void call_blas(const Expr& c, const std::map<std::string, Obj>& views, const std::map<std::string, PivObj>& pivots);

    const Pme& pme_;
    Problem& problem_;
    const Blas* blas_ = nullptr;
    dim_t stop_column_ = 0;
};

// A derived call on a backend: the abstract BLAS operation it names, its flags and
// scalars read as the generated C++ reads them (a block's scalar by Blas::element).
void Interpreter::call_blas(const Expr& c, const std::map<std::string, Obj>& V, const std::map<std::string, PivObj>& P)
{
    const Blas& b = *blas_;
    const auto& a = c.args;
    const std::string& op = c.name;
    const auto s = [&](const Expr& e) {
        const bool minus = !e.name.empty() && e.name[0] == '-' && V.count(e.name.substr(1));
        const std::string name = minus ? e.name.substr(1) : e.name;
        if (V.count(name)) return (minus ? -1.0 : 1.0) * b.element(V.at(name), 0, 0);
        return std::stod(e.name);
    };
    const auto x = [&](size_t k) { return view(a[k], V); };
    const auto trans = [&](size_t k) { return flag(a[k], "TRANSPOSE") ? TRANSPOSE : NO_TRANSPOSE; };
    const auto uplo = [&](size_t k) { return flag(a[k], "LOWER") ? LOWER : UPPER; };
    const auto diag = [&](size_t k) { return flag(a[k], "UNIT") ? UNIT : NONUNIT; };
    const auto side = [&](size_t k) { return flag(a[k], "LEFT") ? LEFT : RIGHT; };
    if (op == "dots") b.dots(s(a[0]), x(1), x(2), s(a[3]), x(4));
    else if (op == "diag_dots") b.diag_dots(s(a[0]), x(1), x(2), x(3), s(a[4]), x(5));
    else if (op == "scal") b.scal(s(a[0]), x(1));
    else if (op == "invscal") b.invscal(s(a[0]), x(1));
    else if (op == "diag_invscal") b.diag_invscal(x(0), x(1));
    else if (op == "axpy") b.axpy(s(a[0]), x(1), x(2));
    else if (op == "gemv") b.gemv(trans(0), s(a[1]), x(2), x(3), s(a[4]), x(5));
    else if (op == "diag_gemv") b.diag_gemv(s(a[0]), x(1), x(2), x(3), s(a[4]), x(5));
    else if (op == "trsv") b.trsv(uplo(0), trans(1), diag(2), x(3), x(4));
    else if (op == "trmv") b.trmv(uplo(0), trans(1), diag(2), x(3), x(4));
    else if (op == "trsm") b.trsm(side(0), uplo(1), trans(2), diag(3), s(a[4]), x(5), x(6));
    else if (op == "trmm") b.trmm(side(0), uplo(1), trans(2), diag(3), s(a[4]), x(5), x(6));
    else if (op == "ger") b.ger(s(a[0]), x(1), x(2), x(3));
    else if (op == "gemm") b.gemm(trans(0), trans(1), s(a[2]), x(3), x(4), s(a[5]), x(6));
    else if (op == "syrk") b.syrk(uplo(0), trans(1), s(a[2]), x(3), s(a[4]), x(5));
    else if (op == "sqrt") b.sqrt(x(0));
    else if (op == "reciprocal") b.reciprocal(x(0));
    else if (op == "iamax") {
        PivObj p = pivot_view(a[0], P);
        p(0, 0) = static_cast<int>(b.iamax(x(1)));
    } else if (op == "apply_pivots") b.apply_pivots(pivot_view(a[0], P), x(1));
    else if (op == "check") {
        // A zero pivot stops the factorization (as the generated code's check); a
        // Cholesky's pivot must be positive.
        const Obj pivot = x(0);
        const double value = b.element(pivot, 0, 0);
        const bool chol = pme_.definition_rhs.kind == Math::Kind::Apply && pme_.definition_rhs.name == "Chol";
        if ((chol ? !(value > 0.0) : !(value != 0.0)) && !pme_.continue_on_zero_pivot) {
            problem_.stopped = true;
            for (const auto& [name, whole] : problem_.whole)
                if (whole.base_buffer() == pivot.base_buffer()) stop_column_ = pivot.offset_n() - whole.offset_n() + 1;
        }
    } else throw Error(c.where.str() + ": the interpreter has no backend operation for '" + op + "'");
}

Obj Interpreter::view(const Expr& e, const std::map<std::string, Obj>& views) const
{
    if (!e.call) {
        const auto it = views.find(e.name);
        if (it == views.end()) throw Error(e.where.str() + ": no view named '" + e.name + "' here");
        return it->second;
    }
    // A merge of adjacent views of one matrix: the view spanning them.
    std::vector<Obj> parts;
    for (const Expr& a : e.args) parts.push_back(view(a, views));
    dim_t r0 = parts[0].offset_m(), c0 = parts[0].offset_n(), r1 = r0, c1 = c0;
    for (const Obj& p : parts) {
        r0 = std::min(r0, p.offset_m());
        c0 = std::min(c0, p.offset_n());
        r1 = std::max(r1, p.offset_m() + p.length());
        c1 = std::max(c1, p.offset_n() + p.width());
    }
    for (const auto& [name, whole] : problem_.whole)
        if (whole.base_buffer() == parts[0].base_buffer()) return whole.sub(r0, c0, r1 - r0, c1 - c0);
    throw Error(e.where.str() + ": a merge of views of no operand");
}

PivObj Interpreter::pivot_view(const Expr& e, const std::map<std::string, PivObj>& pivots) const
{
    const auto it = pivots.find(e.name);
    if (it == pivots.end()) throw Error(e.where.str() + ": no pivot view named '" + e.name + "' here");
    return it->second;
}

void Interpreter::call(const Expr& c, const std::map<std::string, Obj>& V, const std::map<std::string, PivObj>& P,
                       const Invariant& inv, dim_t block)
{
    if (problem_.trace) {
        trace(c, V, P);
        trace_values(c, V, P);
    }
    const auto& a = c.args;
    const std::string& op = c.name;
    if (blas_ && op != "inner") {
        call_blas(c, V, P);
        return;
    }
    if (op == "dots" || op == "diag_dots") {
        const bool diag = op == "diag_dots";
        Obj x = view(a[1], V), y = view(a[diag ? 3 : 2], V), rho = view(a[diag ? 5 : 4], V);
        double s = 0;
        for (dim_t k = 0; k < vlen(x); ++k) s += v(x, k) * (diag ? view(a[2], V)(k, k) : 1.0) * v(y, k);
        rho(0, 0) = scalar(a[0], V) * s + scalar(a[diag ? 4 : 3], V) * rho(0, 0);
    } else if (op == "scal" || op == "invscal") {
        const double alpha = scalar(a[0], V);
        Obj x = view(a[1], V);
        for (dim_t j = 0; j < x.width(); ++j)
            for (dim_t i = 0; i < x.length(); ++i) x(i, j) = op == "scal" ? alpha * x(i, j) : x(i, j) / alpha;
    } else if (op == "diag_invscal") {
        Obj T = view(a[0], V), x = view(a[1], V);
        for (dim_t k = 0; k < vlen(x); ++k) v(x, k) /= T(k, k);
    } else if (op == "gemv" || op == "diag_gemv") {
        const bool diag = op == "diag_gemv", trans = !diag && flag(a[0], "TRANSPOSE");
        const size_t o = diag ? 0 : 1;
        Obj A = view(a[o + 1], V), x = view(a[diag ? 3 : 3], V), y = view(a[diag ? 5 : 5], V);
        const double alpha = scalar(a[o], V), beta = scalar(a[diag ? 4 : 4], V);
        const dim_t m = trans ? A.width() : A.length(), n = trans ? A.length() : A.width();
        std::vector<double> r(static_cast<size_t>(m));
        for (dim_t i = 0; i < m; ++i) {
            double s = 0;
            for (dim_t j = 0; j < n; ++j) s += op_element(A, trans, i, j) * (diag ? view(a[2], V)(j, j) : 1.0) * v(x, j);
            r[static_cast<size_t>(i)] = alpha * s + beta * v(y, i);
        }
        for (dim_t i = 0; i < m; ++i) v(y, i) = r[static_cast<size_t>(i)];
    } else if (op == "trsv" || op == "trmv") {
        Obj T = view(a[3], V), x = view(a[4], V);
        bool lower = false;
        const auto M = dense_triangle(T, a[0], a[1], a[2], lower);
        std::vector<double> xs(static_cast<size_t>(vlen(x)));
        for (dim_t k = 0; k < vlen(x); ++k) xs[static_cast<size_t>(k)] = v(x, k);
        triangular(M, T.length(), lower, xs, op == "trsv");
        for (dim_t k = 0; k < vlen(x); ++k) v(x, k) = xs[static_cast<size_t>(k)];
    } else if (op == "trsm" || op == "trmm") {
        const bool left = flag(a[0], "LEFT");
        const double alpha = scalar(a[4], V);
        Obj T = view(a[5], V), B = view(a[6], V);
        bool lower = false;
        auto M = dense_triangle(T, a[1], a[2], a[3], lower);
        const dim_t n = T.length();
        if (!left) { // B op(T)^{-1}: each row solves with op(T)^T
            std::vector<double> Mt(M.size());
            for (dim_t i = 0; i < n; ++i)
                for (dim_t j = 0; j < n; ++j) Mt[static_cast<size_t>(j * n + i)] = M[static_cast<size_t>(i * n + j)];
            M = Mt;
            lower = !lower;
        }
        const dim_t count = left ? B.width() : B.length();
        for (dim_t col = 0; col < count; ++col) {
            std::vector<double> x(static_cast<size_t>(n));
            for (dim_t k = 0; k < n; ++k) x[static_cast<size_t>(k)] = left ? B(k, col) : B(col, k);
            triangular(M, n, lower, x, op == "trsm");
            for (dim_t k = 0; k < n; ++k) (left ? B(k, col) : B(col, k)) = alpha * x[static_cast<size_t>(k)];
        }
    } else if (op == "ger") {
        Obj x = view(a[1], V), y = view(a[2], V), A = view(a[3], V);
        const double alpha = scalar(a[0], V);
        for (dim_t i = 0; i < A.length(); ++i)
            for (dim_t j = 0; j < A.width(); ++j) A(i, j) += alpha * v(x, i) * v(y, j);
    } else if (op == "gemm") {
        const bool ta = flag(a[0], "TRANSPOSE"), tb = flag(a[1], "TRANSPOSE");
        Obj A = view(a[3], V), B = view(a[4], V), C = view(a[6], V);
        const double alpha = scalar(a[2], V), beta = scalar(a[5], V);
        const dim_t k = ta ? A.length() : A.width();
        for (dim_t i = 0; i < C.length(); ++i)
            for (dim_t j = 0; j < C.width(); ++j) {
                double s = 0;
                for (dim_t p = 0; p < k; ++p) s += op_element(A, ta, i, p) * op_element(B, tb, p, j);
                C(i, j) = alpha * s + beta * C(i, j);
            }
    } else if (op == "syrk") {
        const bool lower = flag(a[0], "LOWER"), trans = flag(a[1], "TRANSPOSE");
        Obj A = view(a[3], V), C = view(a[5], V);
        const double alpha = scalar(a[2], V), beta = scalar(a[4], V);
        // A vector argument is a column (trans No) or a row (trans Yes) of the product.
        const bool column = A.width() == 1 && C.length() == A.length();
        const dim_t k = column ? 1 : (trans ? A.length() : A.width());
        for (dim_t i = 0; i < C.length(); ++i)
            for (dim_t j = 0; j < C.width(); ++j) {
                if (lower ? i < j : i > j) continue;
                double s = 0;
                for (dim_t p = 0; p < k; ++p)
                    s += column ? A(i, 0) * A(j, 0) : op_element(A, trans, i, p) * op_element(A, trans, j, p);
                C(i, j) = alpha * s + beta * C(i, j);
            }
    } else if (op == "sqrt") {
        Obj x = view(a[0], V);
        x(0, 0) = std::sqrt(x(0, 0));
    } else if (op == "reciprocal") {
        Obj x = view(a[0], V);
        x(0, 0) = 1.0 / x(0, 0);
    } else if (op == "iamax") {
        PivObj p = pivot_view(a[0], P);
        Obj x = view(a[1], V);
        dim_t best = 0;
        for (dim_t k = 1; k < vlen(x); ++k)
            if (std::fabs(v(x, k)) > std::fabs(v(x, best))) best = k;
        p(0, 0) = static_cast<int>(best);
    } else if (op == "apply_pivots") {
        PivObj p = pivot_view(a[0], P);
        Obj A = view(a[1], V);
        for (dim_t i = 0; i < p.length(); ++i)
            for (dim_t j = 0; j < A.width(); ++j) std::swap(A(i, j), A(i + p(i, 0), j));
    } else if (op == "check") {
        const double pivot = view(a[0], V)(0, 0);
        if (pivot == 0.0 && !pme_.continue_on_zero_pivot) problem_.stopped = true;
    } else if (op == "inner") {
        // The arguments are the operands' views, in the description's order.
        std::map<std::string, Obj> inner;
        std::map<std::string, PivObj> inner_pivots;
        for (size_t k = 0; k < a.size() && k < pme_.operands.size(); ++k) {
            const Operand& o = pme_.operands[k];
            if (!o.pivots)
                inner[o.name] = view(a[k], V);
            else if (a[k].text() != "PivObj()")
                inner_pivots[o.name] = pivot_view(a[k], P);
        }
        run(inv, false, inner, inner_pivots, block);
    } else {
        throw Error(c.where.str() + ": --check-pme cannot run '" + op + "'");
    }
}

// The roundings a call gives each entry it writes, on a correctly rounded backend
// (blas/exact_backend.cpp's contract: one rounding per output of dots, gemv, gemm,
// syrk, trsv and trsm, the divide of a non-unit solve included; one per element of
// scal, invscal, ger).
void Interpreter::trace(const Expr& c, const std::map<std::string, Obj>& V, const std::map<std::string, PivObj>& P)
{
    const auto& a = c.args;
    const std::string& op = c.name;
    const auto add = [&](Obj X, dim_t i, dim_t j, const std::string& token) {
        if (token.empty() || token == "a0") return; // a sum of nothing leaves the entry as it is
        std::string& e = problem_.entry(X, i, j);
        e += (e.empty() ? "" : " ") + token;
    };
    const auto all = [&](Obj X, const std::string& token) {
        for (dim_t j = 0; j < X.width(); ++j)
            for (dim_t i = 0; i < X.length(); ++i) add(X, i, j, token);
    };
    if (op == "dots" || op == "diag_dots") {
        Obj x = view(a[1], V);
        all(view(a[op == "dots" ? 4 : 5], V), "a" + std::to_string(vlen(x)));
    } else if (op == "gemv" || op == "diag_gemv") {
        const bool trans = op == "gemv" && flag(a[0], "TRANSPOSE");
        Obj A = view(a[op == "gemv" ? 2 : 1], V);
        all(view(a[5], V), "a" + std::to_string(trans ? A.length() : A.width()));
    } else if (op == "gemm") {
        Obj A = view(a[3], V);
        all(view(a[6], V), "a" + std::to_string(flag(a[0], "TRANSPOSE") ? A.length() : A.width()));
    } else if (op == "syrk") {
        Obj A = view(a[3], V), C = view(a[5], V);
        const bool column = A.width() == 1 && C.length() == A.length();
        const dim_t k = column ? 1 : (flag(a[1], "TRANSPOSE") ? A.length() : A.width());
        for (dim_t j = 0; j < C.width(); ++j)
            for (dim_t i = 0; i < C.length(); ++i)
                if (flag(a[0], "LOWER") ? i >= j : i <= j) add(C, i, j, "a" + std::to_string(k));
    } else if (op == "trsv" || op == "trmv" || op == "trsm" || op == "trmm") {
        const bool vector = op == "trsv" || op == "trmv";
        const size_t o = vector ? 0 : 1;
        const bool left = vector || flag(a[0], "LEFT");
        const bool lower = flag(a[o], "LOWER") != flag(a[o + 1], "TRANSPOSE");
        const bool forward = left ? lower : !lower; // B op(T)^{-1} solves along the row
        const std::string kind = op[2] == 's' ? (flag(a[o + 2], "UNIT") ? "a" : "d") : "m";
        Obj X = view(a[vector ? 4 : 6], V);
        const dim_t n = view(a[vector ? 3 : 5], V).length();
        for (dim_t j = 0; j < X.width(); ++j)
            for (dim_t i = 0; i < X.length(); ++i) {
                const dim_t k = vector ? (X.length() == 1 ? j : i) : (left ? i : j);
                add(X, i, j, kind + std::to_string(forward ? k : n - 1 - k));
            }
    } else if (op == "ger") {
        all(view(a[3], V), "a1");
    } else if (op == "scal") {
        const double alpha = scalar(a[0], V);
        all(view(a[1], V), alpha == -1.0 ? "n" : alpha == 1.0 ? "" : "*");
    } else if (op == "invscal" || op == "diag_invscal") {
        all(view(a[1], V), "/");
    } else if (op == "sqrt" || op == "reciprocal") {
        all(view(a[0], V), op == "sqrt" ? "r" : "i");
    } else if (op == "apply_pivots") {
        PivObj p = pivot_view(a[0], P);
        Obj A = view(a[1], V);
        for (dim_t i = 0; i < p.length(); ++i)
            for (dim_t j = 0; j < A.width(); ++j) std::swap(problem_.entry(A, i, j), problem_.entry(A, i + p(i, 0), j));
    }
}

void Interpreter::trace_values(const Expr& c, const std::map<std::string, Obj>& V, const std::map<std::string, PivObj>& P)
{
    const auto& a = c.args;
    const std::string& op = c.name;
    Problem& pr = problem_;
    const auto h = [&](Obj X, dim_t i, dim_t j) -> std::uint64_t& { return pr.value(X, i, j); };
    const auto term = [](std::uint64_t x, std::uint64_t y) { return Problem::mix(std::min(x, y), std::max(x, y)); };
    const auto tag = [](const std::string& s) { return std::hash<std::string>()(s); };
    // round(alpha S + beta y): the sum's hash from its terms, alpha, beta and y.
    const auto sum = [&](std::uint64_t old, double alpha, double beta, std::uint64_t terms, dim_t count) -> std::uint64_t {
        if (count == 0 && alpha != 0 && beta == 1.0) return old; // nothing added: the entry as it was
        return Problem::mix(Problem::mix(tag("sum"), beta == 0 ? 0 : old), Problem::mix(terms, tag(std::to_string(alpha) + "," + std::to_string(beta))));
    };
    if (op == "dots" || op == "gemv" || op == "gemm" || op == "syrk" || op == "diag_dots" || op == "diag_gemv") {
        // Generic: output entry (i, j) = sum over p of term(left(i, p), right(p, j)) [times a diagonal].
        Obj L, R, Y;
        bool lt = false, rt = false;
        double alpha = 0, beta = 0;
        if (op == "dots" || op == "diag_dots") {
            const bool d = op == "diag_dots";
            Obj x = view(a[1], V), y = view(a[d ? 3 : 2], V);
            Y = view(a[d ? 5 : 4], V);
            alpha = scalar(a[0], V);
            beta = scalar(a[d ? 4 : 3], V);
            std::uint64_t terms = 0;
            for (dim_t k = 0; k < vlen(x); ++k) {
                std::uint64_t t = term(h(x, x.length() == 1 ? 0 : k, x.length() == 1 ? k : 0), h(y, y.length() == 1 ? 0 : k, y.length() == 1 ? k : 0));
                if (d) t = Problem::mix(t, h(view(a[2], V), k, k));
                terms += t;
            }
            h(Y, 0, 0) = sum(h(Y, 0, 0), alpha, beta, terms, vlen(x));
            return;
        }
        if (op == "gemv" || op == "diag_gemv") {
            const bool d = op == "diag_gemv", trans = !d && flag(a[0], "TRANSPOSE");
            Obj A = view(a[d ? 1 : 2], V), x = view(a[3], V), y = view(a[5], V);
            alpha = scalar(a[d ? 0 : 1], V);
            beta = scalar(a[4], V);
            const dim_t m = trans ? A.width() : A.length(), n = trans ? A.length() : A.width();
            for (dim_t i = 0; i < m; ++i) {
                std::uint64_t terms = 0;
                for (dim_t k = 0; k < n; ++k) {
                    std::uint64_t t = term(trans ? h(A, k, i) : h(A, i, k), h(x, x.length() == 1 ? 0 : k, x.length() == 1 ? k : 0));
                    if (d) t = Problem::mix(t, h(view(a[2], V), k, k));
                    terms += t;
                }
                std::uint64_t& out = h(y, y.length() == 1 ? 0 : i, y.length() == 1 ? i : 0);
                out = sum(out, alpha, beta, terms, n);
            }
            return;
        }
        if (op == "gemm") {
            lt = flag(a[0], "TRANSPOSE");
            rt = flag(a[1], "TRANSPOSE");
            L = view(a[3], V);
            R = view(a[4], V);
            Y = view(a[6], V);
            alpha = scalar(a[2], V);
            beta = scalar(a[5], V);
        } else { // syrk: C := alpha op(A) op(A)^T + beta C on one triangle
            lt = flag(a[1], "TRANSPOSE");
            L = view(a[3], V);
            Y = view(a[5], V);
            alpha = scalar(a[2], V);
            beta = scalar(a[4], V);
        }
        const bool syrk = op == "syrk";
        const bool column = syrk && L.width() == 1 && Y.length() == L.length();
        const dim_t k = column ? 1 : (lt ? L.length() : L.width());
        const auto left = [&](dim_t i, dim_t p) -> std::uint64_t { return column ? h(L, i, 0) : (lt ? h(L, p, i) : h(L, i, p)); };
        std::vector<std::uint64_t> fresh(static_cast<size_t>(Y.length() * Y.width()));
        for (dim_t j = 0; j < Y.width(); ++j)
            for (dim_t i = 0; i < Y.length(); ++i) {
                if (syrk && (flag(a[0], "LOWER") ? i < j : i > j)) continue;
                std::uint64_t terms = 0;
                for (dim_t p = 0; p < k; ++p)
                    terms += term(left(i, p), syrk ? left(j, p) : (rt ? h(R, j, p) : h(R, p, j)));
                fresh[static_cast<size_t>(i + j * Y.length())] = sum(h(Y, i, j), alpha, beta, terms, k);
            }
        for (dim_t j = 0; j < Y.width(); ++j)
            for (dim_t i = 0; i < Y.length(); ++i)
                if (!(syrk && (flag(a[0], "LOWER") ? i < j : i > j))) h(Y, i, j) = fresh[static_cast<size_t>(i + j * Y.length())];
        return;
    }
    if (op == "trsv" || op == "trsm" || op == "trmv" || op == "trmm") {
        const bool vector = op == "trsv" || op == "trmv", solve = op[2] == 's';
        const size_t o = vector ? 0 : 1;
        const bool left = vector || flag(a[0], "LEFT"), trans = flag(a[o + 1], "TRANSPOSE"), unit = flag(a[o + 2], "UNIT");
        const bool tlower = flag(a[o], "LOWER");
        Obj T = view(a[vector ? 3 : 5], V), X = view(a[vector ? 4 : 6], V);
        const double alpha = vector ? 1.0 : scalar(a[4], V);
        const dim_t n = T.length();
        // op(T)(r, k), in the triangle; entries of X along the solve dimension.
        const auto t_at = [&](dim_t r, dim_t k) -> std::uint64_t { return trans ? h(T, k, r) : h(T, r, k); };
        const bool lower = tlower != trans;
        const dim_t lines = vector ? 1 : (left ? X.width() : X.length());
        for (dim_t line = 0; line < lines; ++line) {
            const auto x = [&](dim_t k) -> std::uint64_t& {
                if (vector) return X.length() == 1 ? h(X, 0, k) : h(X, k, 0);
                return left ? h(X, k, line) : h(X, line, k);
            };
            std::vector<std::uint64_t> old(static_cast<size_t>(n));
            for (dim_t k = 0; k < n; ++k) old[static_cast<size_t>(k)] = x(k);
            // Right side: X op(T)^{-1} runs along op(T)^T.
            const bool fwd = left ? lower : !lower;
            for (dim_t s = 0; s < n; ++s) {
                const dim_t r = fwd ? s : n - 1 - s;
                std::uint64_t terms = 0;
                dim_t count = 0;
                for (dim_t k = 0; k < n; ++k) {
                    const bool before = fwd ? k < r : k > r;
                    if (solve ? !before : (!before && k != r)) continue;
                    if (!solve && k == r && unit) continue;
                    const std::uint64_t tk = left ? t_at(r, k) : t_at(k, r);
                    terms += term(tk, solve ? x(k) : old[static_cast<size_t>(k)]);
                    ++count;
                }
                if (solve) {
                    std::uint64_t v = sum(x(r), -1.0, alpha, terms, count);
                    if (!unit) v = Problem::mix(tag("divide"), Problem::mix(v, left ? t_at(r, r) : t_at(r, r)));
                    x(r) = v;
                } else {
                    x(r) = Problem::mix(tag("trm"), Problem::mix(unit ? old[static_cast<size_t>(r)] : 0, terms + static_cast<std::uint64_t>(alpha * 7)));
                }
            }
        }
        return;
    }
    if (op == "ger") {
        Obj x = view(a[1], V), y = view(a[2], V), A = view(a[3], V);
        const double alpha = scalar(a[0], V);
        for (dim_t j = 0; j < A.width(); ++j)
            for (dim_t i = 0; i < A.length(); ++i)
                h(A, i, j) = sum(h(A, i, j), alpha, 1.0, term(h(x, x.length() == 1 ? 0 : i, x.length() == 1 ? i : 0),
                                                          h(y, y.length() == 1 ? 0 : j, y.length() == 1 ? j : 0)), 1);
        return;
    }
    if (op == "scal" || op == "invscal" || op == "diag_invscal" || op == "sqrt" || op == "reciprocal") {
        Obj X = view(a[op == "sqrt" || op == "reciprocal" ? 0 : 1], V);
        for (dim_t j = 0; j < X.width(); ++j)
            for (dim_t i = 0; i < X.length(); ++i) {
                std::uint64_t& e = h(X, i, j);
                if (op == "scal") {
                    const double alpha = scalar(a[0], V);
                    if (alpha != 1.0) e = Problem::mix(tag(alpha == -1.0 ? "negate" : "times " + std::to_string(alpha)), e);
                } else if (op == "invscal") {
                    Obj s1 = view(a[0], V); // a 1x1 block (a literal divisor is not used by any description)
                    e = Problem::mix(Problem::mix(tag("divide"), e), h(s1, 0, 0));
                } else if (op == "diag_invscal") {
                    Obj T = view(a[0], V);
                    const dim_t k = X.length() == 1 ? j : i;
                    e = Problem::mix(Problem::mix(tag("divide"), e), h(T, k, k));
                } else {
                    e = Problem::mix(tag(op), e);
                }
            }
        return;
    }
    if (op == "apply_pivots") {
        PivObj p = pivot_view(a[0], P);
        Obj A = view(a[1], V);
        for (dim_t i = 0; i < p.length(); ++i)
            for (dim_t j = 0; j < A.width(); ++j) std::swap(h(A, i, j), h(A, i + p(i, 0), j));
    }
}

void Interpreter::run_derived(const Invariant& inv, bool blocked, const std::map<std::string, Obj>& operands,
                              const std::map<std::string, PivObj>& pivots, dim_t block)
{
    // The index space's size, from the first operand that it partitions.
    // Two index spaces moving together ("m,n"): the loop ends with the shorter one.
    dim_t size = -1;
    const Operand* diagonal = nullptr; // the operand whose rows and columns both move
    for (const Operand& o : pme_.operands) {
        if (size >= 0 || !operands.count(o.name) || o.pivots) continue;
        const Shape shape = shape_of(pme_, inv, o);
        const Obj X = operands.at(o.name);
        if (shape == Shape::Grid2x2 && o.row_index != o.col_index) {
            size = std::min(X.length(), X.width());
            diagonal = &o;
        } else if (shape == Shape::Grid2x2 || shape == Shape::Grid2x1) {
            size = X.length();
        } else if (shape == Shape::Grid1x2) {
            size = X.width();
        }
    }
    if (size < 0) throw Error(pme_.name + ": no operand has index " + inv.index);
    const auto steps = updates(pme_, inv, blocked);
    for (dim_t done = 0; done < size && !problem_.stopped;) {
        const dim_t b = blocked ? std::min(block, size - done) : 1;
        const dim_t lo = inv.backward ? size - done - b : done;
        const dim_t cuts[4] = {0, lo, lo + b, size};
        std::map<std::string, Obj> V;
        std::map<std::string, PivObj> P;
        for (const Operand& o : pme_.operands) {
            if (o.pivots) { // p0, pi1, p2 by the rows
                if (!pivots.count(o.name)) continue;
                const PivObj p = pivots.at(o.name);
                const NameGrid names = fine_names(o, Shape::Grid2x1, blocked);
                const dim_t rows[4] = {0, lo, lo + b, p.length()};
                for (size_t i = 0; i < 3; ++i) P[names[i][0]] = p.sub(rows[i], 0, rows[i + 1] - rows[i], 1);
                continue;
            }
            const Obj X = operands.at(o.name);
            const Shape shape = shape_of(pme_, inv, o);
            const NameGrid names = fine_names(o, shape, blocked);
            const bool r = shape == Shape::Grid2x2 || shape == Shape::Grid2x1, c = shape == Shape::Grid2x2 || shape == Shape::Grid1x2;
            for (size_t i = 0; i < names.size(); ++i)
                for (size_t j = 0; j < names[i].size(); ++j) {
                    const dim_t r0 = r ? cuts[i] : 0, r1 = r ? (i == 2 ? X.length() : cuts[i + 1]) : X.length();
                    const dim_t c0 = c ? cuts[j] : 0, c1 = c ? (j == 2 ? X.width() : cuts[j + 1]) : X.width();
                    V[names[i][j]] = X.sub(r0, c0, r1 - r0, c1 - c0);
                }
        }
        for (const Update* s : steps) {
            if (problem_.stopped) return;
            call(s->call, V, P, inv, block);
        }
        done += b;
    }
    if (problem_.stopped || !diagonal) return;
    // After the loop: the quadrant it left (BL when m > n, TR when n > m).
    const Obj X = operands.at(diagonal->name);
    const NameGrid q = quad_names(*diagonal, Shape::Grid2x2);
    std::map<std::string, Obj> Q;
    Q[q[0][0]] = X.sub(0, 0, size, size);
    Q[q[0][1]] = X.sub(0, size, size, X.width() - size);
    Q[q[1][0]] = X.sub(size, 0, X.length() - size, size);
    Q[q[1][1]] = X.sub(size, size, X.length() - size, X.width() - size);
    for (const Finish& f : inv.finishes)
        if ((f.quadrant == "BL" && X.length() > size) || (f.quadrant == "TR" && X.width() > size)) call(f.call, Q, pivots, inv, block);
}

void Interpreter::run(const Invariant& inv, bool blocked, const std::map<std::string, Obj>& operands,
                      const std::map<std::string, PivObj>& pivots, dim_t block)
{
    run_derived(inv, blocked, operands, pivots, block);
}

// --- the definition ---------------------------------------------------------------------

struct Dense {
    dim_t m = 0, n = 0;
    std::vector<double> a; // column-major
    double& operator()(dim_t i, dim_t j) { return a[static_cast<size_t>(i + j * m)]; }
    double operator()(dim_t i, dim_t j) const { return a[static_cast<size_t>(i + j * m)]; }
};

Dense dense(Obj X)
{
    Dense d{X.length(), X.width(), std::vector<double>(static_cast<size_t>(X.length() * X.width()))};
    for (dim_t j = 0; j < d.n; ++j)
        for (dim_t i = 0; i < d.m; ++i) d(i, j) = X(i, j);
    return d;
}

class Definition {
public:
    Definition(const std::string& text, const Location& where, const std::map<std::string, Dense>& values,
               const std::map<std::string, std::vector<int>>& pivots)
        : text_(text), where_(where), values_(values), pivots_(pivots)
    {
    }

    // max |lhs - rhs| / max(1, max |rhs|)
    double residual()
    {
        const size_t eq = text_.find('=');
        if (eq == std::string::npos) fail("the definition has no '='");
        pos_ = 0;
        end_ = eq;
        identity_ = false;
        Dense lhs = expr();
        expect_end();
        const bool lhs_identity = identity_;
        identity_ = false;
        pos_ = eq + 1;
        end_ = text_.size();
        Dense rhs = expr();
        expect_end();
        if (lhs_identity) lhs = eye(rhs.m);
        if (identity_) rhs = eye(lhs.m);
        if (lhs.m != rhs.m || lhs.n != rhs.n) fail("its two sides differ in size");
        double diff = 0, scale = 1;
        for (size_t i = 0; i < lhs.a.size(); ++i) {
            const double d = std::fabs(lhs.a[i] - rhs.a[i]);
            diff = (std::isnan(d) || d > diff) ? d : diff;
            scale = std::max(scale, std::fabs(rhs.a[i]));
        }
        return diff / scale;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw Error(where_.str() + ": definition \"" + text_ + "\": " + what); }
    static Dense eye(dim_t n)
    {
        Dense d{n, n, std::vector<double>(static_cast<size_t>(n * n), 0.0)};
        for (dim_t i = 0; i < n; ++i) d(i, i) = 1;
        return d;
    }
    void skip()
    {
        while (pos_ < end_ && text_[pos_] == ' ') ++pos_;
    }
    void expect_end()
    {
        skip();
        if (pos_ != end_) fail("unexpected '" + text_.substr(pos_, end_ - pos_) + "'");
    }
    std::string name()
    {
        skip();
        const size_t begin = pos_;
        while (pos_ < end_ && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
        if (begin == pos_) fail("expected a name at column " + std::to_string(begin + 1));
        return text_.substr(begin, pos_ - begin);
    }
    bool punct(char c)
    {
        skip();
        if (pos_ < end_ && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    Dense expr()
    {
        Dense d = product_term();
        for (;;) {
            const bool plus = punct('+');
            if (!plus && !punct('-')) return d;
            const Dense t = product_term();
            if (t.m != d.m || t.n != d.n) fail("a sum of a " + std::to_string(d.m) + " x " + std::to_string(d.n) + " and a " +
                                               std::to_string(t.m) + " x " + std::to_string(t.n) + " matrix");
            for (size_t k = 0; k < d.a.size(); ++k) d.a[k] += plus ? t.a[k] : -t.a[k];
        }
    }
    Dense product_term()
    {
        Dense d = term();
        while (punct('*')) d = product(d, term());
        return d;
    }
    Dense product(const Dense& x, const Dense& y)
    {
        if (x.n != y.m) fail("a product of a " + std::to_string(x.m) + " x " + std::to_string(x.n) + " and a " + std::to_string(y.m) + " x " +
                             std::to_string(y.n) + " matrix");
        Dense r{x.m, y.n, std::vector<double>(static_cast<size_t>(x.m * y.n), 0.0)};
        for (dim_t i = 0; i < x.m; ++i)
            for (dim_t j = 0; j < y.n; ++j) {
                long double s = 0;
                for (dim_t p = 0; p < x.n; ++p) s += static_cast<long double>(x(i, p)) * y(p, j);
                r(i, j) = static_cast<double>(s);
            }
        return r;
    }
    Dense term()
    {
        if (punct('(')) {
            Dense d = expr();
            if (!punct(')')) fail("expected ')'");
            return d;
        }
        const std::string f = name();
        if (f == "I") {
            identity_ = true;
            return Dense{};
        }
        if (!punct('(')) {
            const auto it = values_.find(f);
            if (it == values_.end()) fail("unknown matrix '" + f + "'");
            return it->second;
        }
        if (f == "pivot") {
            const std::string p = name();
            if (!pivots_.count(p)) fail("unknown pivots '" + p + "'");
            if (!punct(',')) fail("expected ','");
            Dense d = expr();
            if (!punct(')')) fail("expected ')'");
            const auto& piv = pivots_.at(p);
            for (size_t i = 0; i < piv.size(); ++i)
                for (dim_t j = 0; j < d.n; ++j) std::swap(d(static_cast<dim_t>(i), j), d(static_cast<dim_t>(i) + piv[i], j));
            return d;
        }
        Dense d = expr();
        if (!punct(')')) fail("expected ')'");
        Dense r = d;
        if (f == "transpose") {
            r = Dense{d.n, d.m, std::vector<double>(d.a.size())};
            for (dim_t i = 0; i < d.m; ++i)
                for (dim_t j = 0; j < d.n; ++j) r(j, i) = d(i, j);
            return r;
        }
        // unit_lower, lower, upper, diag keep the min(m, n) columns / rows a factor has.
        const dim_t k = std::min(d.m, d.n);
        if (f == "unit_lower" || f == "lower") r = Dense{d.m, f == "unit_lower" ? k : d.n, {}};
        if (f == "upper") r = Dense{f == "upper" ? k : d.m, d.n, {}};
        if (f == "diag") r = Dense{d.m, d.n, {}};
        if (r.a.empty() && f != "unit_lower" && f != "lower" && f != "upper" && f != "diag") fail("unknown function '" + f + "'");
        r.a.assign(static_cast<size_t>(r.m * r.n), 0.0);
        for (dim_t i = 0; i < r.m; ++i)
            for (dim_t j = 0; j < r.n; ++j) {
                if (f == "unit_lower") r(i, j) = i == j ? 1.0 : (i > j ? d(i, j) : 0.0);
                if (f == "lower") r(i, j) = i >= j ? d(i, j) : 0.0;
                if (f == "upper") r(i, j) = i <= j ? d(i, j) : 0.0;
                if (f == "diag") r(i, j) = i == j ? d(i, j) : 0.0;
            }
        return r;
    }

    std::string text_;
    Location where_;
    const std::map<std::string, Dense>& values_;
    const std::map<std::string, std::vector<int>>& pivots_;
    size_t pos_ = 0, end_ = 0;
    bool identity_ = false;
};

Matrix input(const std::string& kind, dim_t m, dim_t n, std::mt19937_64& rng, const Location& where)
{
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Matrix X(m, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) X(i, j) = u(rng);
    if (kind == "random") return X;
    if (kind == "dominant") {
        for (dim_t i = 0; i < std::min(m, n); ++i) X(i, i) += (X(i, i) < 0 ? -1.0 : 1.0) * static_cast<double>(std::max(m, n));
        return X;
    }
    if (kind == "spd") {
        Matrix S(m, n);
        for (dim_t i = 0; i < m; ++i)
            for (dim_t j = 0; j < n; ++j) {
                double s = 0;
                for (dim_t p = 0; p < n; ++p) s += X(i, p) * X(j, p);
                S(i, j) = s + (i == j ? static_cast<double>(n) : 0.0);
            }
        return S;
    }
    throw Error(where.str() + ": an input is random, dominant or spd, not '" + kind + "'");
}

struct RunResult {
    std::string label; // "unblocked variant 3"
    bool blocked;
    const Invariant* inv;
    bool ok;
    double residual;
};

struct CaseResult {
    double residual = 0;                      // against the definition; NaN when it stopped
    std::vector<std::vector<std::string>> tokens; // per input operand, column-major
    std::vector<std::vector<std::uint64_t>> values; // the expression hashes, likewise
    dim_t m = 0, n = 0;                       // the shown operand's size
    size_t shown = 0;                         // the input shown: the first one, or (derived) the first output
};

// Problem number c of the description's inputs, run by one variant.
CaseResult run_case(const Pme& pme, const Invariant& inv, bool blocked, size_t c, bool trace)
{
    std::mt19937_64 rng(1000 + c);
    Problem problem{&pme, {}, {}, false, trace, {}, {}};
    std::vector<Matrix> storage;
    std::vector<Pivots> pivot_storage;
    std::map<std::string, Obj> operands;
    std::map<std::string, PivObj> pivots;
    std::map<std::string, Dense> values;
    for (const Input& in : pme.inputs) {
        const auto [m, n] = in.sizes.at(c);
        storage.push_back(input(in.kind, m, n, rng, in.where));
    }
    for (size_t i = 0; i < pme.inputs.size(); ++i) {
        operands[pme.inputs[i].operand] = storage[i];
        values[pme.inputs[i].operand + "hat"] = dense(storage[i]);
    }
    problem.whole = operands;
    const Obj A = operands.at(pme.operands.front().name);
    for (const Operand& o : pme.operands)
        if (o.pivots) {
            pivot_storage.emplace_back(std::min(A.length(), A.width()));
            pivots[o.name] = pivot_storage.back();
        }
    Interpreter(pme, problem).run(inv, blocked, operands, pivots, 3);
    for (const auto& [name, X] : operands) values[name] = dense(X);
    std::map<std::string, std::vector<int>> pv;
    for (const auto& [name, p] : pivots) {
        std::vector<int> list;
        for (dim_t i = 0; i < p.length(); ++i) list.push_back(p(i, 0));
        pv[name] = list;
    }
    CaseResult r;
    r.m = A.length();
    r.n = A.width();
    for (size_t i = 0; i < pme.inputs.size(); ++i)
        if (!pme.operand(pme.inputs[i].operand)->input_only()) {
            r.shown = i;
            r.m = storage[i].length();
            r.n = storage[i].width();
            break;
        }
    r.residual = problem.stopped ? NAN : Definition(pme.definition, pme.definition_where, values, pv).residual();
    for (size_t i = 0; i < pme.inputs.size(); ++i) {
        auto t = problem.tokens[storage[i].view().base_buffer()];
        t.resize(static_cast<size_t>(storage[i].length() * storage[i].width()));
        r.tokens.push_back(t);
        r.values.push_back(problem.hashes[storage[i].view().base_buffer()]);
    }
    return r;
}

void require_inputs(const Pme& pme, const char* option)
{
    if (pme.definition.empty()) throw Error(pme.file + ": the description has no `definition`, which " + option + " needs");
    if (pme.inputs.empty()) throw Error(pme.file + ": the description has no `input` lines, which " + option + " needs");
}

} // namespace

std::string check_pme(const Derivation& d, bool& ok)
{
    const Pme& pme = *d.pme;
    require_inputs(pme, "--check-pme");
    std::ostringstream out;
    std::vector<RunResult> results;
    const size_t cases = pme.inputs.front().sizes.size();
    for (const bool blocked : {false, true}) {
        if (blocked && !pme.has_blocked()) continue;
        for (const Invariant& inv : d.invariants) {
            RunResult r{(blocked ? "blocked" : "unblocked") + std::string(" variant ") + (inv.number ? std::to_string(inv.number) : "?"),
                        blocked, &inv, true, 0.0};
            for (size_t c = 0; c < cases; ++c) {
                const double residual = run_case(pme, inv, blocked, c, false).residual;
                r.residual = std::isnan(r.residual) || std::isnan(residual) ? NAN : std::max(r.residual, residual);
            }
            r.ok = r.residual <= 1e-12;
            results.push_back(r);
        }
    }
    ok = true;
    for (const RunResult& r : results) {
        out << "  " << r.label << (r.label.size() < 22 ? std::string(22 - r.label.size(), ' ') : " ") << (r.ok ? "ok" : "WRONG")
            << "  max residual " << r.residual << "\n";
        ok &= r.ok;
    }
    if (ok) return "check-pme " + pme.name + ": every variant satisfies \"" + pme.definition + "\" on " + std::to_string(cases) +
                  " random problems\n" + out.str();
    std::ostringstream why;
    why << "check-pme " << pme.name << ": the PME is wrong: variants fail \"" << pme.definition << "\"\n" << out.str();
    // The updates are derived from the PME's equations: those are what to check.
    why << "  the updates are derived from the PME's equations; one of them is wrong:\n";
    for (const Equation& e : pme.equations) why << "    " << e.where.str() << "  " << equation_text(e.lhs, e.rhs) << "\n";
    return why.str();
}

} // namespace flamex::derive

namespace flamex::derive {

RoundingReport roundings(const Derivation& d, bool blocked)
{
    const Pme& pme = *d.pme;
    require_inputs(pme, "--roundings");
    if (blocked && !pme.has_blocked()) throw Error(pme.name + ": the description has no blocked form");
    RoundingReport report;
    std::ostringstream out;
    const size_t cases = pme.inputs.front().sizes.size();
    // The problem shown: the largest square one of order at most 7.
    size_t shown = 0;
    dim_t best = -1;
    for (size_t c = 0; c < cases; ++c) {
        const auto [m, n] = pme.inputs.front().sizes[c];
        if (m == n && m <= 7 && m > best) {
            best = m;
            shown = c;
        }
    }
    out << "Roundings on a correctly rounded backend (exact, opencl): " << pme.name << ", " << (blocked ? "blocked, b = 3" : "unblocked")
        << "\n  each entry of the result: how many times it is rounded (one per correctly rounded operation that writes it)\n";
    std::vector<std::pair<int, std::string>> keys;
    for (const Invariant& inv : d.invariants) {
        if (inv.number == 0) continue;
        std::string key;
        CaseResult shown_case;
        for (size_t c = 0; c < cases; ++c) {
            CaseResult r = run_case(pme, inv, blocked, c, true);
            for (const auto& values : r.values)
                for (const std::uint64_t v : values) key += std::to_string(v) + "|";
            key += "#";
            if (c == shown) shown_case = r;
        }
        keys.push_back({inv.number, key});
        out << "\n  variant " << inv.number << (inv.summary.empty() ? "" : " (" + inv.summary + ")") << ", " << shown_case.m << " x "
            << shown_case.n << ":\n";
        const auto& t = shown_case.tokens.at(shown_case.shown);
        size_t most = 0;
        for (dim_t i = 0; i < shown_case.m; ++i) {
            out << "   ";
            for (dim_t j = 0; j < shown_case.n; ++j) {
                const std::string& e = t[static_cast<size_t>(i + j * shown_case.m)];
                size_t count = 0;
                std::istringstream words(e);
                for (std::string w; words >> w;) count += w != "n";
                most = std::max(most, count);
                out << (count < 10 ? "  " : " ") << count;
            }
            out << "\n";
        }
    }
    std::vector<bool> placed(keys.size(), false);
    for (size_t i = 0; i < keys.size(); ++i) {
        if (placed[i]) continue;
        std::vector<int> group{keys[i].first};
        for (size_t j = i + 1; j < keys.size(); ++j)
            if (!placed[j] && keys[j].second == keys[i].second) {
                group.push_back(keys[j].first);
                placed[j] = true;
            }
        report.groups.push_back(group);
    }
    out << "\n  variants that give identical bits there (the same correctly rounded operations on every entry, on "
        << cases << " problems):";
    for (const auto& g : report.groups) {
        out << " {";
        for (size_t k = 0; k < g.size(); ++k) out << (k ? ", " : "") << g[k];
        out << "}";
    }
    out << "\n";
    report.text = out.str();
    return report;
}

} // namespace flamex::derive

namespace flamex::derive {

dim_t run_interpreted(const Derivation& d, int number, bool blocked, const Blas& blas, const std::vector<Obj>& operands,
                      dim_t block)
{
    const Pme& pme = *d.pme;
    if (blocked && !pme.has_blocked()) throw Error(pme.name + ": the description has no blocked form");
    if (blocked && block < 1) throw Error("block size must be at least 1, got " + std::to_string(block));
    const Invariant& inv = find_variant(d, number);
    std::vector<const Operand*> matrices;
    for (const Operand& o : pme.operands)
        if (!o.pivots) matrices.push_back(&o);
    if (matrices.size() != operands.size() || matrices.size() != pme.operands.size()) {
        std::string names;
        for (const Operand* o : matrices) names += (names.empty() ? "" : ", ") + o->name;
        if (matrices.size() != pme.operands.size()) throw Error(pme.name + ": an operation with pivots does not run interpreted");
        throw Error(pme.name + " takes " + std::to_string(matrices.size()) + " operand" + (matrices.size() == 1 ? "" : "s") + " (" +
                    names + "), got " + std::to_string(operands.size()));
    }
    Problem problem{&pme, {}, {}, false, false, {}, {}};
    std::map<std::string, Obj> views;
    for (size_t k = 0; k < operands.size(); ++k) views[matrices[k]->name] = operands[k];
    problem.whole = views;
    // Each index space's extent, the same in every operand that has it.
    std::map<std::string, dim_t> extent;
    for (size_t k = 0; k < operands.size(); ++k) {
        const Operand& o = *matrices[k];
        for (const auto& [index, size] : {std::pair{o.row_index, operands[k].length()}, std::pair{o.col_index, operands[k].width()}}) {
            if (index.empty()) continue;
            const auto [it, fresh] = extent.emplace(index, size);
            if (!fresh && it->second != size)
                throw Error(pme.name + ": operand " + o.name + " is " + std::to_string(operands[k].length()) + "x" +
                            std::to_string(operands[k].width()) + ", but its index " + index + " is " + std::to_string(it->second) +
                            " elsewhere");
        }
    }
    std::vector<std::unique_ptr<Resident>> held;
    for (const Obj& X : operands) held.push_back(std::make_unique<Resident>(blas, X));
    Interpreter interpreter(pme, problem, &blas);
    interpreter.run(inv, blocked, views, {}, block);
    return interpreter.stop_column();
}

} // namespace flamex::derive
