// The derivation engine: from a PME's block equations (the derived format of
// derive/pme.hpp) to the loop invariants, the states of the 3x3 blocks before and
// after the update, and the updates as their difference, each mapped onto one
// abstract BLAS operation by a table of rules. The three stages (STYLE.md,
// "Derivation engine"):
//
// 1. Each equation Q = rhs is read as a chain of partial results: the path in rhs
//    from Qhat (the quadrant's own original, which the loop overwrites) to the root,
//    one stage per operation on it (a product, an inverse, a negation, a named
//    operation, or one more term of a sum). B_B = L_BR^{-1} ( Bhat_B - L_BL B_T ) is
//    the chain Bhat_B, Bhat_B - L_BL B_T, L_BR^{-1} ( ... ).
// 2. An invariant picks a partial result per quadrant and a direction (from the top
//    left, or from the bottom right). It is feasible when
//    - at the start, with the quadrants of the part done empty (a term over an empty
//      block vanishes), each quadrant holds its original (the precondition);
//    - at the end, with the part still to do empty, each holds its final value (the
//      postcondition);
//    - a value it holds reads the final value of another quadrant only if the
//      invariant holds that one final (closure), and a stage still to come reads the
//      original of another quadrant only if the invariant has not overwritten it
//      (in place).
// 3. On the 3x3 repartitioning, each block's state before and after the update is
//    its quadrant's value with the blocks substituted (block products expanded,
//    the structure's zero blocks dropped, a triangular inverse applied by
//    substitution, which is the operation's own PME used as a rewrite rule). The
//    updates are the stages that take one to the other, ordered so that none reads
//    a value already overwritten or not yet computed, and each is matched against
//    kRules.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "derive/derive.hpp"

namespace flamex::derive {

namespace {

using K = Math::Kind;

// --- names -----------------------------------------------------------------------------

std::string lower_case(std::string s)
{
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// "b1t" -> "bhat1t", "lambda11" -> "lambdahat11", "B0" -> "Bhat0", "L" -> "Lhat".
std::string hatted(const std::string& name)
{
    size_t letters = 0;
    while (letters < name.size() && std::isalpha(static_cast<unsigned char>(name[letters]))) ++letters;
    if (letters == name.size() && name.size() > 1 && name.back() == 't') --letters;
    return name.substr(0, letters) + "hat" + name.substr(letters);
}

// Whether the invariant's partitioning splits `index`: its one index space, or one of
// two that move together ("m,n").
bool partitioned(const Invariant& inv, const std::string& index)
{
    if (index.empty()) return false;
    for (size_t at = 0; at <= inv.index.size();) {
        const size_t comma = std::min(inv.index.find(',', at), inv.index.size());
        if (inv.index.compare(at, comma - at, index) == 0 && comma - at == index.size()) return true;
        at = comma + 1;
    }
    return false;
}

} // namespace

Shape shape_of(const Pme& pme, const Invariant& inv, const Operand& o)
{
    (void)pme;
    if (inv.index.empty()) return o.two_by_two ? Shape::Grid2x2 : Shape::Grid2x1;
    const bool r = partitioned(inv, o.row_index), c = partitioned(inv, o.col_index);
    if (r && c) return Shape::Grid2x2;
    if (r) return Shape::Grid2x1;
    if (c) return Shape::Grid1x2;
    return Shape::Whole;
}

NameGrid fine_names(const Operand& o, Shape s, bool blocked)
{
    const std::string& A = o.name;
    const std::string a = lower_case(A);
    switch (s) {
    case Shape::Whole: return {{A}};
    case Shape::Grid2x1: return block_names(Operand{A, o.pivots, false, o.scalar, o.where, {}, {}, {}, {}, {}}, blocked);
    case Shape::Grid1x2:
        if (blocked) return {{A + "0", A + "1", A + "2"}};
        return {{A + "0", a + "1", A + "2"}};
    case Shape::Grid2x2: return block_names(Operand{A, false, true, o.scalar, o.where, {}, {}, {}, {}, {}}, blocked);
    }
    return {};
}

NameGrid quad_names(const Operand& o, Shape s)
{
    switch (s) {
    case Shape::Whole: return {{o.name}};
    case Shape::Grid2x1: return {{o.name + "T"}, {o.name + "B"}};
    case Shape::Grid1x2: return {{o.name + "L", o.name + "R"}};
    case Shape::Grid2x2: return {{o.name + "TL", o.name + "TR"}, {o.name + "BL", o.name + "BR"}};
    }
    return {};
}

const Operand& driver(const Pme& pme, const Invariant& inv)
{
    for (const Operand& o : pme.operands)
        if (!o.pivots && shape_of(pme, inv, o) != Shape::Whole) return o;
    throw Error(pme.name + ": no operand is partitioned by index " + inv.index);
}

std::string loop_guard(const Pme& pme, const Invariant& inv)
{
    const Operand& o = driver(pme, inv);
    const NameGrid q = quad_names(o, shape_of(pme, inv, o));
    const std::string done = inv.backward ? q.back().back() : q.front().front();
    const std::string dim = shape_of(pme, inv, o) == Shape::Grid1x2 ? ".width()" : ".length()";
    if (shape_of(pme, inv, o) == Shape::Grid2x2 && o.row_index != o.col_index) // m x n: the loop ends with either
        return done + ".length() < " + o.name + ".length() && " + done + ".width() < " + o.name + ".width()";
    return done + dim + " < " + o.name + dim;
}

std::string remaining(const Pme& pme, const Invariant& inv)
{
    const Operand& o = driver(pme, inv);
    const NameGrid q = quad_names(o, shape_of(pme, inv, o));
    const std::string rest = inv.backward ? q.front().front() : q.back().back();
    return rest + (shape_of(pme, inv, o) == Shape::Grid1x2 ? ".width()" : ".length()");
}

std::string equation_text(const Math& lhs, const Math& rhs) { return print(lhs) + " = " + print(rhs); }

namespace {

// --- the PME level: quadrants, vanishing terms, chains ----------------------------------

// Which side of the partitioned index a quadrant's rows (0) or columns (1) lie on:
// 0 the first (T, L), 1 the second (B, R), -1 not partitioned.
int side(const Pme& pme, const Invariant& inv, const Math& b, int dim)
{
    const Operand& o = *pme.operand(b.operand);
    const bool r = partitioned(inv, o.row_index), c = partitioned(inv, o.col_index);
    const std::string& q = b.quadrant;
    const std::string where = b.where.str() + ": ";
    const std::string want = r && c ? "TL, TR, BL or BR" : r ? "T or B" : c ? "L or R" : "the whole operand";
    const bool fits = (r && c) ? q.size() == 2 : (r || c) ? q.size() == 1 && ((r && (q == "T" || q == "B")) || (c && (q == "L" || q == "R")))
                                                          : q.empty();
    if (!fits)
        throw Error(where + print(b) + ": partitioning index " + inv.index + ", " + o.name + " is " + want +
                    (q.empty() ? "" : ", not " + q));
    if (dim == 0) return r ? (q[0] == 'T' ? 0 : 1) : -1;
    if (!c) return -1;
    const char letter = r ? q[1] : q[0];
    return letter == 'L' ? 0 : 1;
}

// e with every block that lies in the empty side (0: T/L, 1: B/R) made zero.
Math vanish(const Pme& pme, const Invariant& inv, const Math& e, int empty_side)
{
    if (e.kind == K::Block) {
        if (side(pme, inv, e, 0) == empty_side || side(pme, inv, e, 1) == empty_side) return Math::zero();
        return e;
    }
    Math m = e;
    for (Math& a : m.args) a = vanish(pme, inv, a, empty_side);
    return normalize(m);
}

// The chain of partial results from `own` to e (normalized), or false when e does not
// contain own.
bool chain(const Math& e, const Math& own, std::vector<Math>& levels)
{
    if (same(e, own)) {
        levels.push_back(own);
        return true;
    }
    switch (e.kind) {
    case K::Sum:
        for (size_t i = 0; i < e.args.size(); ++i) {
            if (!chain(e.args[i], own, levels)) continue;
            // The other terms are added in any order: every subset of them is a
            // partial result (fewer terms first; the written order among equals).
            const Math cur = levels.back();
            std::vector<Math> others;
            for (size_t j = 0; j < e.args.size(); ++j)
                if (j != i) others.push_back(e.args[j]);
            if (others.size() > 10) throw Error(e.where.str() + ": too many terms to enumerate their partial sums");
            std::vector<unsigned> masks;
            for (unsigned m = 1; m < (1u << others.size()); ++m) masks.push_back(m);
            std::stable_sort(masks.begin(), masks.end(), [](unsigned a, unsigned b) { return __builtin_popcount(a) < __builtin_popcount(b); });
            for (const unsigned m : masks) {
                std::vector<Math> terms{cur};
                for (size_t j = 0; j < others.size(); ++j)
                    if (m & (1u << j)) terms.push_back(others[j]);
                levels.push_back(normalize(Math::nary(K::Sum, terms)));
            }
            return true;
        }
        return false;
    case K::Product:
        for (size_t i = 0; i < e.args.size(); ++i) {
            if (!chain(e.args[i], own, levels)) continue;
            Math cur = levels.back();
            if (i > 0 && i + 1 < e.args.size()) {
                // Factors on both sides: either side first (L_BR^{-1} L_BL or L_BL X_TL).
                std::vector<Math> f(e.args.begin(), e.args.begin() + static_cast<long>(i));
                f.push_back(cur);
                levels.push_back(normalize(Math::nary(K::Product, f)));
            }
            if (i + 1 < e.args.size()) {
                std::vector<Math> f{cur};
                f.insert(f.end(), e.args.begin() + static_cast<long>(i) + 1, e.args.end());
                cur = normalize(Math::nary(K::Product, f));
                levels.push_back(cur);
            }
            if (i > 0) {
                std::vector<Math> f(e.args.begin(), e.args.begin() + static_cast<long>(i));
                f.push_back(cur);
                cur = normalize(Math::nary(K::Product, f));
                levels.push_back(cur);
            }
            return true;
        }
        return false;
    case K::Neg: {
        // The negation folded into the first stage: every partial result past the
        // original is negated (-L_BL X_TL, not L_BL X_TL then its negation).
        const size_t start = levels.size();
        if (!chain(e.args.front(), own, levels)) return false;
        for (size_t k = start + 1; k < levels.size(); ++k) levels[k] = normalize(Math::unary(K::Neg, levels[k]));
        return true;
    }
    case K::Transpose:
    case K::Inverse:
    case K::Apply: {
        if (!chain(e.args.front(), own, levels)) return false;
        Math m = e;
        m.args.front() = levels.back();
        levels.push_back(normalize(m));
        return true;
    }
    default: return false;
    }
}

struct Read {
    std::string operand, quadrant;
    bool hat;
    bool operator<(const Read& o) const { return std::tie(operand, quadrant, hat) < std::tie(o.operand, o.quadrant, o.hat); }
};

std::set<Read> reads(const Pme& pme, const Math& e)
{
    std::set<Read> r;
    each_block(e, [&](const Math& b) {
        if (!pme.operand(b.operand)->input_only()) r.insert({b.operand, b.quadrant, b.hat});
    });
    return r;
}

struct Quadrant {
    const Equation* eq;
    Math own;                 // Qhat
    std::vector<Math> levels; // the chain, levels.back() the final value
};

// --- the 3x3 level: substitution ----------------------------------------------------------

struct Grid3 {
    const Pme* pme;
    const Invariant* inv;
    bool after;
    int boundary() const { return inv->backward ? (after ? 1 : 2) : (after ? 2 : 1); }
};

Range span_of(const Grid3& g, const Math& b, int dim)
{
    const int s = side(*g.pme, *g.inv, b, dim);
    if (s < 0) return {0, 3};
    return s == 0 ? Range{0, g.boundary()} : Range{g.boundary(), 3};
}

Math locate(const Grid3& g, const Math& e)
{
    if (e.kind == K::Block) {
        Math b = e;
        b.rows = span_of(g, e, 0);
        b.cols = span_of(g, e, 1);
        b.located = true;
        b.quadrant.clear(); // located: its ranges say where it lies
        if (b.rows.lo == b.rows.hi || b.cols.lo == b.cols.hi) return Math::zero();
        return b;
    }
    Math m = e;
    for (Math& a : m.args) a = locate(g, a);
    return normalize(m);
}

std::pair<Range, Range> span(const Math& e)
{
    switch (e.kind) {
    case K::Block: return {e.rows, e.cols};
    case K::Transpose: {
        const auto s = span(e.args.front());
        return {s.second, s.first};
    }
    case K::Product: return {span(e.args.front()).first, span(e.args.back()).second};
    case K::Zero: return {{0, 0}, {0, 0}};
    default: return span(e.args.front());
    }
}

std::vector<Range> parts(const Range& r)
{
    if (r.lo == 0 && r.hi == 3) {
        // A dimension not partitioned is one range; a partitioned one spanning all
        // three parts cannot be told from it here, and does not occur: the quadrants
        // span at most two.
        return {r};
    }
    std::vector<Range> p;
    for (int k = r.lo; k < r.hi; ++k) p.push_back({k, k + 1});
    return p;
}

bool contains(const Range& outer, const Range& inner) { return outer.lo <= inner.lo && inner.hi <= outer.hi; }

struct Substitution {
    const Pme& pme;
    std::string self;  // the operand whose state is computed
    bool final_value;  // the state is its quadrant's final value
    // Within X T^{-1} D( M )^{-1} (LDL^T's A_BL = Ahat_BL L( A_TL )^{-T} D( A_TL )^{-1}):
    // the diagonal M whose blocks scale the result's blocks Y_K in the substitution for
    // T^{-1} (the value there is the final one times D( M_KK )).
    const Math* y_diag = nullptr;
    // Inside a negation: the result's blocks hold -(T^{-1} X) (trinv's A_BL), so the
    // substitution's Y_K, the value of T^{-1} X there, is minus the block.
    bool y_negated = false;

    // The block (rows R, columns C) of e's value.
    Math part(const Math& e, const Range& R, const Range& C) const
    {
        switch (e.kind) {
        case K::Zero: return e;
        case K::Block: {
            if (!contains(e.rows, R) || !contains(e.cols, C))
                throw Error("engine: a block outside " + print(e) + " asked of it (internal)");
            const Operand& o = *pme.operand(e.operand);
            if (o.row_index == o.col_index && !(R == C) && R.single() && C.single()) {
                if (o.lower() && R.hi <= C.lo) return Math::zero();
                if (o.upper() && C.hi <= R.lo) return Math::zero();
            }
            Math b = e;
            b.rows = R;
            b.cols = C;
            return b;
        }
        case K::Sum: {
            Math m = e;
            for (Math& a : m.args) a = part(a, R, C);
            return normalize(m);
        }
        case K::Neg: {
            Substitution inner = *this;
            inner.y_negated = !y_negated;
            return normalize(Math::unary(K::Neg, inner.part(e.args.front(), R, C)));
        }
        case K::Transpose: return normalize(Math::unary(K::Transpose, part(e.args.front(), C, R)));
        case K::Inverse:
        case K::Apply: {
            // D( X ): the diagonal of X, block by block; its inverse likewise.
            const Math* d = e.kind == K::Apply ? &e : &e.args.front();
            if (d->kind == K::Apply && d->name == "D") {
                if (!(R == C)) return Math::zero();
                Math m = *d;
                m.args.front() = part(d->args.front(), R, C);
                return e.kind == K::Apply ? m : Math::unary(K::Inverse, m);
            }
            const auto s = span(e.args.front());
            if (e.kind == K::Apply && (e.name == "L" || e.name == "U")) {
                // The unit lower (L) or upper (U) triangle of an LU factorization's
                // block: below (above) the diagonal the block itself, zero on the
                // other side, the triangle of the diagonal block on it.
                const bool lower = e.name == "L";
                if (R == C) {
                    Math m = e;
                    m.args.front() = part(e.args.front(), R, C);
                    return m;
                }
                const bool below = R.lo >= C.hi;
                return below == lower ? part(e.args.front(), R, C) : Math::zero();
            }
            if (e.kind == K::Apply && !(s.first == R && s.second == C)) return own_pme(e, R, C);
            if (!(s.first == R) || !(s.second == C))
                throw Error(e.where.str() + ": cannot expand " + print(e) + " on the 3x3 partitioning (" +
                            (e.kind == K::Apply ? "the named operation's own PME is not a rewrite rule yet" : "an inverse spanning blocks") + ")");
            Math m = e;
            m.args.front() = part(e.args.front(), s.first, s.second);
            return m;
        }
        case K::Product: {
            const Math& A = e.args.front();
            Math B = e.args.size() == 2 ? e.args[1] : Math::nary(K::Product, std::vector<Math>(e.args.begin() + 1, e.args.end()));
            const auto sa = span(A);
            const bool at = A.kind == K::Transpose && A.args.front().kind == K::Inverse;
            if ((A.kind == K::Inverse || at) && sa.first.hi - sa.first.lo > 1 && !(sa.first.lo == 0 && sa.first.hi == 3))
                return substitute(at ? A.args.front().args.front() : A.args.front(), at, B, R, C);
            const Math& Z = e.args.back();
            if (Z.kind == K::Inverse && Z.args.front().kind == K::Apply && Z.args.front().name == "D" && e.args.size() > 2) {
                // (H D( M )^{-1}) on (R, C): H's block (R, C), its result blocks scaled by D( M ), times D( M_CC )^{-1}.
                const std::vector<Math> head(e.args.begin(), e.args.end() - 1);
                Substitution scaled = *this;
                scaled.y_diag = &Z.args.front();
                return normalize(Math::nary(K::Product, {scaled.part(Math::nary(K::Product, head), R, C), part(Z, C, C)}));
            }
            const bool zt = Z.kind == K::Transpose && Z.args.front().kind == K::Inverse;
            if (Z.kind == K::Inverse || zt) {
                const auto sz = span(Z);
                if (sz.first.hi - sz.first.lo > 1 && !(sz.first.lo == 0 && sz.first.hi == 3)) {
                    const std::vector<Math> head(e.args.begin(), e.args.end() - 1);
                    const Math X = head.size() == 1 ? head.front() : Math::nary(K::Product, head);
                    return substitute_right(X, zt ? Z.args.front().args.front() : Z.args.front(), zt, R, C);
                }
            }
            std::vector<Math> terms;
            for (const Range& k : parts(sa.second)) terms.push_back(normalize(Math::nary(K::Product, {part(A, R, k), part(B, k, C)})));
            return normalize(Math::nary(K::Sum, terms));
        }
        }
        return e;
    }

    // (X op(T)^{-1}) on columns C, op(T) = T or T^T: ( X_C - sum Y_K op(T)_KC ) op(T)_CC^{-1},
    // the blocks K solved before C (after it for a lower op(T), before for an upper),
    // Y_K the final value of the result's block (R, K): the operation's own PME.
    Math substitute_right(const Math& X, const Math& T, bool transposed, const Range& R, const Range& C) const
    {
        const bool op_lower = lower_triangle(T) != transposed;
        const auto op_block = [&](const Range& i, const Range& j) {
            return transposed ? normalize(Math::unary(K::Transpose, part(T, j, i))) : part(T, i, j);
        };
        std::vector<Math> terms{part(X, R, C)};
        for (const Range& k : parts(rows_of(T))) {
            const bool before = op_lower ? k.lo >= C.hi : k.hi <= C.lo;
            if (!before) continue;
            Math y;
            y.kind = K::Block;
            y.operand = self;
            y.located = true;
            y.rows = R;
            y.cols = k;
            if (!final_value) { // not the final value: Y_K is the same product's block (R, K), expanded
                Math inv = Math::unary(K::Inverse, T);
                if (transposed) inv = Math::unary(K::Transpose, inv);
                y = part(normalize(Math::nary(K::Product, {X, inv})), R, k);
            } else if (y_negated) {
                y = Math::unary(K::Neg, y);
            }
            if (y_diag) y = normalize(Math::nary(K::Product, {y, part(*y_diag, k, k)}));
            terms.push_back(Math::unary(K::Neg, Math::nary(K::Product, {y, op_block(k, C)})));
        }
        Math inv = Math::unary(K::Inverse, part(T, C, C));
        if (transposed) inv = Math::unary(K::Transpose, inv);
        return normalize(Math::nary(K::Product, {Math::nary(K::Sum, terms), inv}));
    }

    // Op( X ) on block (R, C), X spanning two parts: the operation's own PME (its
    // `equation` names Op), the quadrants mapped onto the two parts, the original
    // onto X's blocks and the result's quadrants onto its final blocks.
    Math own_pme(const Math& e, const Range& R, const Range& C) const
    {
        const Math& def = pme.definition_rhs;
        const auto s = span(e.args.front());
        if (def.kind != K::Apply || def.name != e.name || def.args.front().kind != K::Block ||
            s.first.hi - s.first.lo != 2 || !(s.first == s.second))
            throw Error(e.where.str() + ": cannot expand " + print(e) + " on the 3x3 partitioning (" + e.name +
                        " is not this operation, or not its final value)");
        const std::string& original = def.args.front().operand;
        const Range first{s.first.lo, s.first.lo + 1}, second{s.first.lo + 1, s.first.hi};
        const auto range_of = [&](char letter) { return letter == 'T' || letter == 'L' ? first : second; };
        for (const Equation& eq : pme.equations) {
            if (eq.lhs.operand != self || eq.lhs.quadrant.size() != 2) continue;
            if (!(range_of(eq.lhs.quadrant[0]) == R) || !(range_of(eq.lhs.quadrant[1]) == C)) continue;
            const std::function<Math(const Math&)> put = [&](const Math& m) -> Math {
                if (m.kind == K::Block) {
                    if (m.quadrant.size() != 2) throw Error(m.where.str() + ": the PME's rewrite needs 2x2 quadrants");
                    const Range rr = range_of(m.quadrant[0]), cc = range_of(m.quadrant[1]);
                    if (m.operand == original && m.hat) return part(e.args.front(), rr, cc);
                    // A final value of the result's block stands for it only when this
                    // value is the final one (Chol's A_BL = Ahat_BL A_TL^{-T}).
                    if (m.operand == self && !final_value)
                        throw Error(e.where.str() + ": cannot expand " + print(e) + " on the 3x3 partitioning: its PME reads the final " +
                                    print(m) + ", and this is not the final value");
                    Math b = m;
                    b.quadrant.clear();
                    b.located = true;
                    b.rows = rr;
                    b.cols = cc;
                    return part(b, rr, cc);
                }
                Math x = m;
                for (Math& a : x.args) a = put(a);
                return normalize(x);
            };
            return put(eq.rhs);
        }
        throw Error(e.where.str() + ": the PME has no equation for that block of " + print(e));
    }

    // (T^{-1} X) on rows R: T_RR^{-1} ( X_R - sum T_RK Y_K ), the blocks K solved
    // before R (above it for a lower T, below for an upper one), Y_K the final value
    // of the result's block K, which is `self`'s: the operation's own PME.
    // Whether T is a lower triangle (false: upper); throws when it is neither.
    bool lower_triangle(const Math& T) const
    {
        if (T.kind == K::Apply && (T.name == "L" || T.name == "U") && T.args.front().kind == K::Block) return T.name == "L";
        const Operand* t = T.kind == K::Block ? pme.operand(T.operand) : nullptr;
        if (!t || !(t->lower() || t->upper()))
            throw Error(T.where.str() + ": cannot expand " + print(T) + "^{-1} on the 3x3 partitioning except as the final value");
        return t->lower();
    }
    Range rows_of(const Math& T) const { return T.kind == K::Apply ? T.args.front().rows : T.rows; }

    Math substitute(const Math& T, bool transposed, const Math& X, const Range& R, const Range& C) const
    {
        // op(T) = T or T^T: lower when T is lower and not transposed, or upper and transposed.
        const bool op_lower = lower_triangle(T) != transposed;
        const auto op_block = [&](const Range& i, const Range& j) {
            return transposed ? normalize(Math::unary(K::Transpose, part(T, j, i))) : part(T, i, j);
        };
        std::vector<Math> terms{part(X, R, C)};
        for (const Range& k : parts(rows_of(T))) {
            const bool before = op_lower ? k.hi <= R.lo : k.lo >= R.hi;
            if (!before) continue;
            Math y;
            y.kind = K::Block;
            y.operand = self;
            y.located = true;
            y.rows = k;
            y.cols = C;
            if (!final_value) { // not the final value: Y_K is the same product's block (K, C), expanded
                Math inv = Math::unary(K::Inverse, T);
                if (transposed) inv = Math::unary(K::Transpose, inv);
                y = part(normalize(Math::nary(K::Product, {inv, X})), k, C);
            } else if (y_negated) {
                y = Math::unary(K::Neg, y);
            }
            if (y_diag) y = normalize(Math::nary(K::Product, {part(*y_diag, k, k), y}));
            terms.push_back(Math::unary(K::Neg, Math::nary(K::Product, {op_block(R, k), y})));
        }
        Math inv = Math::unary(K::Inverse, part(T, R, R));
        if (transposed) inv = Math::unary(K::Transpose, inv);
        return normalize(Math::nary(K::Product, {inv, Math::nary(K::Sum, terms)}));
    }
};

// --- updates ------------------------------------------------------------------------------

struct Stage {
    enum Kind { Add, Left, Right, Negate, Apply } kind = Add;
    Math x; // the term added, the factor, or the operation (its argument unused)
    // A term factored into the states of other blocks (cell, after its updates or
    // before them): the reads that order the update, instead of x's blocks.
    std::vector<std::pair<size_t, bool>> state_reads;
    bool factored = false;
};

// Whether e involves the block on the diagonal of the current part (alpha11, A11).
bool current_diagonal(const Math& e)
{
    bool found = false;
    each_block(e, [&](const Math& b) { found = found || (b.located && b.rows == Range{1, 2} && b.cols == Range{1, 2}); });
    return found;
}

// The stages that take `from` to `to`, or nothing.
std::optional<std::vector<Stage>> path(const Math& to, const Math& from)
{
    if (same(to, from)) return std::vector<Stage>{};
    if (to.kind == K::Neg && from.kind == K::Neg) return path(to.args.front(), from.args.front());
    if (to.kind == K::Product && from.kind == K::Product && from.args.size() < to.args.size()) {
        // A partial product, by more factors on one side.
        const size_t n = from.args.size(), extra = to.args.size() - n;
        bool prefix = true, suffix = true;
        for (size_t j = 0; j < n; ++j) {
            prefix = prefix && same(to.args[j], from.args[j]);
            suffix = suffix && same(to.args[extra + j], from.args[j]);
        }
        std::vector<Stage> st;
        if (prefix) {
            for (size_t j = n; j < to.args.size(); ++j) st.push_back({Stage::Right, to.args[j], {}, false});
            return st;
        }
        if (suffix) {
            for (size_t j = extra; j-- > 0;) st.push_back({Stage::Left, to.args[j], {}, false});
            return st;
        }
    }
    switch (to.kind) {
    case K::Sum: {
        const auto terms_of = [](const Math& m) { return m.kind == K::Sum ? m.args : std::vector<Math>{m}; };
        const std::vector<Math> have = terms_of(from);
        std::vector<bool> used(to.args.size(), false);
        bool all = true;
        for (const Math& h : have) {
            bool found = false;
            for (size_t i = 0; i < to.args.size() && !found; ++i)
                if (!used[i] && same(to.args[i], h)) used[i] = found = true;
            all = all && found;
        }
        if (all) {
            std::vector<Stage> s;
            for (size_t i = 0; i < to.args.size(); ++i)
                if (!used[i]) s.push_back({Stage::Add, to.args[i], {}, false});
            return s;
        }
        for (size_t i = 0; i < to.args.size(); ++i)
            if (auto p = path(to.args[i], from)) {
                for (size_t j = 0; j < to.args.size(); ++j)
                    if (j != i) p->push_back({Stage::Add, to.args[j], {}, false});
                return p;
            }
        return std::nullopt;
    }
    case K::Product:
        for (size_t i = 0; i < to.args.size(); ++i)
            if (auto p = path(to.args[i], from)) {
                // One stage per factor: X F1 F2 is X := X F1, then X := X F2. With
                // factors on both sides, the side on the current diagonal block last.
                bool right_current = false;
                for (size_t j = i + 1; j < to.args.size(); ++j) right_current = right_current || current_diagonal(to.args[j]);
                const auto rights = [&] {
                    for (size_t j = i + 1; j < to.args.size(); ++j) p->push_back({Stage::Right, to.args[j], {}, false});
                };
                const auto lefts = [&] {
                    for (size_t j = i; j-- > 0;) p->push_back({Stage::Left, to.args[j], {}, false});
                };
                if (right_current && i > 0) {
                    lefts();
                    rights();
                } else {
                    rights();
                    lefts();
                }
                return p;
            }
        return std::nullopt;
    case K::Neg:
        if (auto p = path(to.args.front(), from)) {
            // The negation goes with the last stage (libflame's trinv: a trsm's alpha
            // of -1, or a scal by -1 just before a stage that has no alpha).
            p->insert(p->empty() ? p->end() : p->end() - 1, Stage{Stage::Negate, {}, {}, false});
            return p;
        }
        return std::nullopt;
    case K::Apply:
        if (auto p = path(to.args.front(), from)) {
            p->push_back({Stage::Apply, to, {}, false});
            return p;
        }
        return std::nullopt;
    default: return std::nullopt;
    }
}

// --- the BLAS rules, as data ------------------------------------------------------------------

// A factor's signature: its block's shape (s a scalar, r a row, c a column, m a
// matrix, t a triangle on the diagonal of a lower or upper operand, y the diagonal
// block of a symmetric one), then T for a transpose and I for an inverse. A rule
// matches a stage of an update of a block of shape `target` (* any) whose factors
// have these signatures (`apply` stages: the operation's name); the call's {X} is the
// block updated, {1} {2} the factors' blocks, {s} the term's sign (1.0 or -1.0),
// {U1} {D1} the first factor's stored triangle (LOWER/UPPER, UNIT/NONUNIT). A call
// may be several, separated by "; ", each with its worksheet text after '|'.
struct Rule {
    const char* stage; // add, left, right, apply
    const char* target;
    const char* factors;
    const char* call;
};

const Rule kRules[] = {
    // X := X + s A B
    {"add", "s", "r c", "dots({s}, {1}, {2}, 1.0, {X})"},
    {"add", "s", "r rT", "dots({s}, {1}, {2}, 1.0, {X})"},
    {"add", "s", "cT c", "dots({s}, {1}, {2}, 1.0, {X})"},
    {"add", "r", "r m", "gemv(TRANSPOSE, {s}, {2}, {1}, 1.0, {X})"},
    {"add", "r", "r t", "gemv(TRANSPOSE, {s}, {2}, {1}, 1.0, {X})"},
    {"add", "r", "r mT", "gemv(NO_TRANSPOSE, {s}, {2}, {1}, 1.0, {X})"},
    {"add", "c", "m r", "gemv(NO_TRANSPOSE, {s}, {1}, {2}, 1.0, {X})"},
    {"add", "c", "m rT", "gemv(NO_TRANSPOSE, {s}, {1}, {2}, 1.0, {X})"},
    {"add", "c", "m c", "gemv(NO_TRANSPOSE, {s}, {1}, {2}, 1.0, {X})"},
    {"add", "c", "mT c", "gemv(TRANSPOSE, {s}, {1}, {2}, 1.0, {X})"},
    {"add", "m", "c r", "ger({s}, {1}, {2}, {X})"},
    {"add", "y", "c cT", "syrk({UX}, NO_TRANSPOSE, {s}, {1}, 1.0, {X})"},
    {"add", "y", "m mT", "syrk({UX}, NO_TRANSPOSE, {s}, {1}, 1.0, {X})"},
    {"add", "y", "rT r", "syrk({UX}, TRANSPOSE, {s}, {1}, 1.0, {X})"},
    {"add", "y", "mT m", "syrk({UX}, TRANSPOSE, {s}, {1}, 1.0, {X})"},
    {"add", "r", "cT m", "gemv(TRANSPOSE, {s}, {2}, {1}, 1.0, {X})"},
    {"add", "m", "m m", "gemm(NO_TRANSPOSE, NO_TRANSPOSE, {s}, {1}, {2}, 1.0, {X})"},
    {"add", "m", "mT m", "gemm(TRANSPOSE, NO_TRANSPOSE, {s}, {1}, {2}, 1.0, {X})"},
    {"add", "m", "m mT", "gemm(NO_TRANSPOSE, TRANSPOSE, {s}, {1}, {2}, 1.0, {X})"},
    {"add", "m", "t m", "gemm(NO_TRANSPOSE, NO_TRANSPOSE, {s}, {1}, {2}, 1.0, {X})"},
    {"add", "m", "m t", "gemm(NO_TRANSPOSE, NO_TRANSPOSE, {s}, {1}, {2}, 1.0, {X})"},
    {"add", "*", "=", "axpy({s}, {1}, {X})"},
    // X := X + s A D B, D a diagonal (LDL^T's D( A00 )), or a scalar
    {"add", "s", "r d rT", "diag_dots({s}, {1}, {2}, {3}, 1.0, {X})"},
    {"add", "c", "m d rT", "diag_gemv({s}, {1}, {2}, {3}, 1.0, {X})"},
    {"add", "y", "c s cT", "syrk({UX}, NO_TRANSPOSE, {s2}, {1}, 1.0, {X})"},
    // X := F X (F = 1: a unit triangle's 1x1 block, nothing to do)
    {"left", "*", "1", "nop"},
    {"left", "*", "1I", "nop"},
    {"left", "*", "1T", "nop"},
    {"left", "*", "1TI", "nop"},
    {"left", "*", "sI", "invscal({1}, {X})"},
    {"left", "*", "sTI", "invscal({1}, {X})"},
    {"left", "*", "s", "scal({1}, {X})"},
    {"left", "*", "sT", "scal({1}, {X})"},
    {"left", "c", "tI", "trsv({U1}, NO_TRANSPOSE, {D1}, {1}, {X})"},
    {"left", "c", "tTI", "trsv({U1}, TRANSPOSE, {D1}, {1}, {X})"},
    {"left", "c", "t", "trmv({U1}, NO_TRANSPOSE, {D1}, {1}, {X})"},
    {"left", "c", "tT", "trmv({U1}, TRANSPOSE, {D1}, {1}, {X})"},
    {"left", "m", "tI", "trsm(LEFT, {U1}, NO_TRANSPOSE, {D1}, 1.0, {1}, {X})"},
    {"left", "m", "tTI", "trsm(LEFT, {U1}, TRANSPOSE, {D1}, 1.0, {1}, {X})"},
    {"left", "m", "t", "trmm(LEFT, {U1}, NO_TRANSPOSE, {D1}, 1.0, {1}, {X})"},
    {"left", "m", "tT", "trmm(LEFT, {U1}, TRANSPOSE, {D1}, 1.0, {1}, {X})"},
    // X := X F (a row x^T T^{-T} is (T^{-1} x)^T)
    {"right", "*", "1", "nop"},
    {"right", "*", "1I", "nop"},
    {"right", "*", "1T", "nop"},
    {"right", "*", "1TI", "nop"},
    {"right", "r", "dI", "diag_invscal({1}, {X})"},
    {"right", "*", "sI", "invscal({1}, {X})"},
    {"right", "*", "sTI", "invscal({1}, {X})"},
    {"right", "*", "s", "scal({1}, {X})"},
    {"right", "*", "sT", "scal({1}, {X})"},
    {"right", "r", "tI", "trsv({U1}, TRANSPOSE, {D1}, {1}, {X})"},
    {"right", "r", "tTI", "trsv({U1}, NO_TRANSPOSE, {D1}, {1}, {X})"},
    {"right", "r", "t", "trmv({U1}, TRANSPOSE, {D1}, {1}, {X})"},
    {"right", "r", "tT", "trmv({U1}, NO_TRANSPOSE, {D1}, {1}, {X})"},
    {"right", "m", "tI", "trsm(RIGHT, {U1}, NO_TRANSPOSE, {D1}, 1.0, {1}, {X})"},
    {"right", "m", "tTI", "trsm(RIGHT, {U1}, TRANSPOSE, {D1}, 1.0, {1}, {X})"},
    {"right", "m", "t", "trmm(RIGHT, {U1}, NO_TRANSPOSE, {D1}, 1.0, {1}, {X})"},
    {"right", "m", "tT", "trmm(RIGHT, {U1}, TRANSPOSE, {D1}, 1.0, {1}, {X})"},
    // X := Op( X ) on a scalar (the blocked form's diagonal block is the inner call)
    {"apply", "s", "Chol", "check({X})|{X} > 0? else stop; sqrt({X})|{X} := sqrt( {X} )"},
    {"apply", "s", "Ttmm", "scal({X}, {X})|{X} := {X} {X}"},
    {"apply", "s", "LU", "check({X})|zero pivot? stop"},
    {"apply", "s", "LDLT", "check({X})|{X} != 0? else stop"},
    {"apply", "s", "Trinv", "reciprocal({X})|{X} := 1 / {X}"},
    // X := -X
    {"negate", "*", "", "scal(-1.0, {X})"},
};

Expr make_call(const std::string& text)
{
    // "name(a, b, c)": arguments are names or numbers here.
    Expr e;
    const size_t open = text.find('(');
    e.name = text.substr(0, open);
    e.call = true;
    std::string args = text.substr(open + 1, text.size() - open - 2);
    std::istringstream in(args);
    for (std::string a; std::getline(in, a, ',');) {
        while (!a.empty() && a.front() == ' ') a.erase(a.begin());
        Expr x;
        x.name = a;
        e.args.push_back(x);
    }
    return e;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to)
{
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
}

class Algorithm {
public:
    Algorithm(const Pme& pme, Invariant& inv, const std::vector<Quadrant>& quadrants, const std::vector<size_t>& levels, bool blocked)
        : pme_(pme), inv_(inv), quadrants_(quadrants), levels_(levels), blocked_(blocked)
    {
    }

    // Fills inv's states and steps for this form; returns false with `why` when no
    // update computes the invariant in place.
    bool run(std::string& why);
    // Fills inv's finishing updates (a partitioning "m,n" of a rectangular operand);
    // false with `why` when no BLAS operation performs one.
    bool finish(std::string& why);

private:
    struct Cell {
        const Operand* o;
        Range R, C;
        std::string name; // the code's name (b1t)
        std::string quadrant_before, quadrant_after;
        Math before, after;
        const Quadrant* final_quadrant = nullptr; // its quadrant after the update
        Grid3 final_grid{nullptr, nullptr, true};
        // Its final value (computed when an update reads it).
        Math final_value(const Pme& pme) const
        {
            return Substitution{pme, o->name, true}.part(locate(final_grid, final_quadrant->levels.back()), R, C);
        }
    };
    struct Update {
        size_t cell;
        size_t order; // its stage among the cell's
        Stage stage;
        std::string text;
        std::vector<std::pair<std::string, Expr>> calls; // worksheet text, call
        std::set<size_t> hat_reads, final_reads;
        std::set<size_t> state_before, state_after; // a factored term's reads
    };

    std::string name_of(const Math& b) const
    {
        const Operand& o = *pme_.operand(b.operand);
        if (quadrant_level_) { // the 2x2 quadrants after the loop: part 0 the first, part 1 the second
            const Shape s = shape_of(pme_, inv_, o);
            const NameGrid g = quad_names(o, s);
            const bool r = s == Shape::Grid2x2 || s == Shape::Grid2x1, c = s == Shape::Grid2x2 || s == Shape::Grid1x2;
            const std::string n = g[r ? static_cast<size_t>(b.rows.lo) : 0][c ? static_cast<size_t>(b.cols.lo) : 0];
            return b.hat ? hatted(n) : n;
        }
        const Shape s = shape_of(pme_, inv_, o);
        const NameGrid g = fine_names(o, s, blocked_);
        const bool r = s == Shape::Grid2x2 || s == Shape::Grid2x1, c = s == Shape::Grid2x2 || s == Shape::Grid1x2;
        if ((r && !b.rows.single()) || (c && !b.cols.single())) return print(b); // not a 3x3 block
        const size_t i = r ? static_cast<size_t>(b.rows.lo) : 0, j = c ? static_cast<size_t>(b.cols.lo) : 0;
        const std::string n = g[i][j];
        return b.hat ? hatted(n) : n;
    }
    static std::string namer(const void* self, const Math& b)
    {
        return display(static_cast<const Algorithm*>(self)->name_of(b));
    }
    std::string text(const Math& e) const { return print(e, &Algorithm::namer, this); }

    // Shape letter of one dimension of a block: '1' for the unblocked form's middle part.
    char extent(const std::string& index, const Range& r) const
    {
        if (!blocked_ && partitioned(inv_, index) && r.lo == 1 && r.hi == 2) return '1';
        return 'n';
    }
    std::string signature(const Math& f, std::string& block, std::string& uplo, std::string& diag) const
    {
        const Math* b = &f;
        bool trans = false, inv = false;
        if (b->kind == K::Transpose) {
            trans = true;
            b = &b->args.front();
        }
        if (b->kind == K::Inverse) {
            inv = true;
            b = &b->args.front();
        }
        if (b->kind == K::Transpose && !trans) {
            trans = true;
            b = &b->args.front();
        }
        std::string extract; // L( X ) or U( X ): the unit lower or the upper triangle of X
        if (b->kind == K::Apply && (b->name == "L" || b->name == "U" || b->name == "D")) {
            extract = b->name;
            b = &b->args.front();
        }
        if (b->kind != K::Block) return "?";
        const Operand& o = *pme_.operand(b->operand);
        if (!extract.empty()) {
            Math current = *b;
            current.hat = false;
            block = name_of(current);
            std::string s = shape(o, b->rows, b->cols);
            if (extract == "D") s = s == "s" ? "s" : "d"; // a diagonal; on a 1x1 block, the scalar
            else if (s == "s") s = extract == "L" ? "1" : "s"; // a 1x1 unit triangle is 1
            else {
                s = "t";
                uplo = extract == "L" ? "LOWER" : "UPPER";
                diag = extract == "L" ? "UNIT" : "NONUNIT";
            }
            return s + (trans ? "T" : "") + (inv ? "I" : "");
        }
        Math current = *b; // the call names the block; an original it reads is still there
        current.hat = false;
        block = name_of(current);
        std::string s = shape(o, b->rows, b->cols);
        // A triangle: a diagonal block of a triangular operand, or of a symmetric one's
        // final value (its factor); the rules name the stored triangle and op().
        if ((s == "m" || s == "y") && b->rows == b->cols && o.triangle(b->hat)) {
            s = "t";
            uplo = o.lower() ? "LOWER" : "UPPER";
            diag = o.unit() && (b->hat || o.result.empty()) ? "UNIT" : "NONUNIT";
        }
        if (trans) s += "T";
        if (inv) s += "I";
        return s;
    }
    // s, r, c, m, or y (a symmetric operand's diagonal block).
    std::string shape(const Operand& o, const Range& rows, const Range& cols) const
    {
        const char er = extent(o.row_index, rows), ec = extent(o.col_index, cols);
        if (er == '1' && ec == '1') return "s";
        if (er == '1') return "r";
        if (ec == '1') return "c";
        if ((o.symmetric() || o.result == "symmetric_lower" || o.result == "symmetric_upper") && rows == cols) return "y";
        return "m";
    }

    // The stage as a BLAS call, or empty when no rule matches.
    std::string blas(const Cell& cell, const Stage& st, std::string& rule_text) const;
    bool inner_call(const Cell& cell, const Stage& st, std::string& call) const;

    const Pme& pme_;
    Invariant& inv_;
    const std::vector<Quadrant>& quadrants_;
    const std::vector<size_t>& levels_;
    bool blocked_;
    bool quadrant_level_ = false;
};

// The blocked form's diagonal block: X := T^{-1} X (or T X) that is the operation
// itself on the blocks (its `equation` with the operands bound to them) is the
// recursive call.
bool Algorithm::inner_call(const Cell& cell, const Stage& st, std::string& call) const
{
    const Math& def = pme_.definition_rhs;
    if (blocked_ && st.kind == Stage::Apply && def.kind == K::Apply && def.name == st.x.name &&
        def.args.front().kind == K::Block && def.args.front().operand == cell.o->name &&
        std::count_if(pme_.operands.begin(), pme_.operands.end(), [](const Operand& o) { return !o.pivots; }) == 1) {
        call = "inner(" + cell.name + ")";
        return true;
    }
    if (!blocked_ || st.kind != Stage::Left) return false;
    if (def.kind != K::Product || def.args.size() != 2) return false;
    const Math& fp = def.args[0];
    const Math& xp = def.args[1];
    const auto strip = [](const Math& m, bool& inv) {
        inv = m.kind == K::Inverse;
        return inv ? m.args.front() : m;
    };
    bool pinv = false, sinv = false;
    const Math pb = strip(fp, pinv);
    const Math sb = strip(st.x, sinv);
    if (pinv != sinv || pb.kind != K::Block || sb.kind != K::Block || xp.kind != K::Block) return false;
    if (pme_.operand(pb.operand)->structure != pme_.operand(sb.operand)->structure) return false;
    if (xp.operand != cell.o->name) return false;
    std::map<std::string, std::string> bound{{pb.operand, name_of(sb)}, {xp.operand, cell.name}};
    call = "inner(";
    bool first = true;
    for (const Operand& o : pme_.operands) {
        if (!bound.count(o.name)) return false;
        call += (first ? "" : ", ") + bound[o.name];
        first = false;
    }
    call += ")";
    return true;
}

std::string Algorithm::blas(const Cell& cell, const Stage& st, std::string& rule_text) const
{
    std::string inner;
    if (inner_call(cell, st, inner)) {
        rule_text = "the operation itself on the diagonal block (the inner variant)";
        return inner;
    }
    const std::string target = shape(*cell.o, cell.R, cell.C);
    std::string kind, factors, sign = "1.0";
    std::vector<std::string> blocks(3), uplo(3), diag(3);
    if (st.kind == Stage::Add) {
        kind = "add";
        Math t = st.x;
        if (t.kind == K::Neg) {
            sign = "-1.0";
            t = Math(t.args.front()); // a copy first: assigning a child to its parent frees it mid-copy
        }
        if (t.kind == K::Product && (t.args.size() == 2 || t.args.size() == 3)) {
            for (size_t k = 0; k < t.args.size(); ++k)
                factors += (k ? " " : "") + signature(t.args[k], blocks[k], uplo[k], diag[k]);
        } else if (t.kind == K::Block) {
            std::string sig = signature(t, blocks[0], uplo[0], diag[0]);
            factors = (sig == target || (sig == "t" && target == "m")) ? "=" : sig;
        } else {
            factors = "?";
        }
    } else if (st.kind == Stage::Left || st.kind == Stage::Right) {
        kind = st.kind == Stage::Left ? "left" : "right";
        factors = signature(st.x, blocks[0], uplo[0], diag[0]);
    } else if (st.kind == Stage::Apply) {
        kind = "apply";
        factors = st.x.name;
    } else {
        kind = "negate";
    }
    for (const Rule& r : kRules) {
        if (kind != r.stage || factors != r.factors || (std::string(r.target) != "*" && target != r.target)) continue;
        const std::string rule_factors = r.factors;
        const bool three = std::count(rule_factors.begin(), rule_factors.end(), ' ') == 2; // A D A^T
        if (std::string(r.call).rfind("syrk", 0) == 0 && blocks[0] != blocks[three ? 2 : 1]) continue; // A A^T, one block
        std::string c = r.call;
        c = replace_all(c, "{X}", cell.name);
        c = replace_all(c, "{1}", blocks[0]);
        c = replace_all(c, "{2}", blocks[1]);
        c = replace_all(c, "{3}", blocks[2]);
        c = replace_all(c, "{s2}", (sign == "-1.0" ? "-" : "") + blocks[1]);
        c = replace_all(c, "{s}", sign);
        c = replace_all(c, "{U1}", uplo[0]);
        c = replace_all(c, "{D1}", diag[0]);
        c = replace_all(c, "{UX}", cell.o->upper() ? "UPPER" : "LOWER");
        rule_text = std::string(r.stage) + " " + r.target + " <- " + r.factors;
        return c;
    }
    rule_text = kind + " on a " + target + " block with factors " + factors;
    return "";
}

bool Algorithm::run(std::string& why)
{
    const int form = blocked_ ? 1 : 0;
    std::vector<Cell> cells;
    // The cells: every 3x3 block of each operand the PME's equations give.
    std::vector<std::string> outputs;
    for (const Quadrant& q : quadrants_)
        if (std::find(outputs.begin(), outputs.end(), q.eq->lhs.operand) == outputs.end()) outputs.push_back(q.eq->lhs.operand);
    for (const std::string& name : outputs) {
        const Operand& o = *pme_.operand(name);
        const bool r = partitioned(inv_, o.row_index), c = partitioned(inv_, o.col_index);
        const std::vector<Range> thirds{{0, 1}, {1, 2}, {2, 3}}, whole{{0, 3}};
        for (const Range& RR : r ? thirds : whole)
            for (const Range& CC : c ? thirds : whole) {
                // A triangle's other half is not referenced: no cell.
                if (o.row_index == o.col_index && r && c && ((o.lower() && RR.hi <= CC.lo) || (o.upper() && CC.hi <= RR.lo))) continue;
                Cell cell{&o, RR, CC, "", "", "", {}, {}, {}};
                Math b;
                b.kind = K::Block;
                b.operand = o.name;
                b.located = true;
                b.rows = RR;
                b.cols = CC;
                cell.name = name_of(b);
                for (const bool after : {false, true}) {
                    // The quadrant the block lies in, before or after the boundaries move.
                    const Grid3 g{&pme_, &inv_, after};
                    size_t k = 0;
                    while (k < quadrants_.size() &&
                           !(quadrants_[k].eq->lhs.operand == o.name && contains(span_of(g, quadrants_[k].eq->lhs, 0), RR) &&
                             contains(span_of(g, quadrants_[k].eq->lhs, 1), CC)))
                        ++k;
                    if (k == quadrants_.size()) throw Error(pme_.file + ": no PME equation gives block " + cell.name + " of " + o.name);
                    const Quadrant& q = quadrants_[k];
                    const bool fin = levels_[k] + 1 == q.levels.size();
                    (after ? cell.after : cell.before) = Substitution{pme_, o.name, fin}.part(locate(g, q.levels[levels_[k]]), RR, CC);
                    const int rs = std::max(side(pme_, inv_, q.eq->lhs, 0), 0), cs = std::max(side(pme_, inv_, q.eq->lhs, 1), 0);
                    (after ? cell.quadrant_after : cell.quadrant_before) =
                        quad_names(o, shape_of(pme_, inv_, o))[static_cast<size_t>(rs)][static_cast<size_t>(cs)];
                    if (after) {
                        cell.final_quadrant = &q;
                        cell.final_grid = g;
                    }
                }
                cells.push_back(cell);
            }
    }
    const auto cell_of = [&](const Math& b) -> size_t {
        for (size_t i = 0; i < cells.size(); ++i)
            if (cells[i].o->name == b.operand && cells[i].R == b.rows && cells[i].C == b.cols) return i;
        return cells.size();
    };
    // Trinv( X ) of one block is X^{-1}: where another block's value reads the current
    // diagonal block's final value and that is the inverse of its original (trinv's
    // alpha11 = 1 / alphahat11), it reads the original's inverse (libflame's trinv
    // divides by alpha11 before it inverts it).
    for (const Cell& d : cells) {
        if (!(d.R == Range{1, 2}) || !(d.C == Range{1, 2}) || d.after.kind != K::Apply || d.after.name != "Trinv") continue;
        const Math& arg = d.after.args.front();
        if (arg.kind != K::Block || !arg.hat || !(arg.rows == d.R) || !(arg.cols == d.C)) continue;
        const std::function<Math(const Math&)> rewrite = [&](const Math& m) -> Math {
            if (m.kind == K::Block && !m.hat && m.operand == d.o->name && m.rows == d.R && m.cols == d.C)
                return Math::unary(K::Inverse, arg);
            Math x = m;
            for (Math& a : x.args) a = rewrite(a);
            return x.args.empty() ? x : normalize(x);
        };
        for (Cell& c : cells) {
            if (&c == &d) continue;
            c.before = rewrite(c.before);
            c.after = rewrite(c.after);
        }
    }
    const auto updated = [&](size_t j) { return !same(cells[j].before, cells[j].after); };
    // An expression as a signed sum of products (blocks of this iteration's other
    // updates replaced by their values after it).
    struct Mono {
        int sign;
        std::vector<Math> f;
    };
    std::function<std::vector<Mono>(const Math&, int)> expand = [&](const Math& e, int depth) -> std::vector<Mono> {
        switch (e.kind) {
        case K::Zero: return {};
        case K::Neg: {
            auto m = expand(e.args.front(), depth);
            for (Mono& x : m) x.sign = -x.sign;
            return m;
        }
        case K::Sum: {
            std::vector<Mono> all;
            for (const Math& a : e.args) {
                auto m = expand(a, depth);
                all.insert(all.end(), m.begin(), m.end());
            }
            return all;
        }
        case K::Product: {
            std::vector<Mono> acc{{1, {}}};
            for (const Math& a : e.args) {
                std::vector<Mono> next;
                for (const Mono& x : acc)
                    for (const Mono& y : expand(a, depth)) {
                        Mono z{x.sign * y.sign, x.f};
                        z.f.insert(z.f.end(), y.f.begin(), y.f.end());
                        next.push_back(z);
                    }
                acc = next;
            }
            return acc;
        }
        case K::Block:
            if (!e.hat && depth < 4) {
                const size_t j = cell_of(e);
                if (j < cells.size() && updated(j)) return expand(cells[j].after, depth + 1);
            }
            return {{1, {e}}};
        default: return {{1, {e}}};
        }
    };
    const auto same_factors = [](const std::vector<Math>& a, size_t lo, size_t hi, const std::vector<Math>& b) {
        if (hi - lo != b.size()) return false;
        for (size_t k = lo; k < hi; ++k)
            if (!same(a[k], b[k - lo])) return false;
        return true;
    };
    // The update of cell i as terms added, each the product of two other blocks'
    // states (before or after their own updates): trinv's A20 := A20 + a21 a10^T reads
    // a21 after its update and a10^T before its own. Prefers the reads that are not
    // originals.
    // Cell i's state after minus its state before, as signed products.
    const auto difference = [&](size_t i) {
        auto before = expand(cells[i].before, 0), after = expand(cells[i].after, 0);
        std::vector<Mono> diff;
        std::vector<bool> used(before.size(), false);
        for (const Mono& a : after) {
            bool cancelled = false;
            for (size_t k = 0; k < before.size() && !cancelled; ++k)
                if (!used[k] && before[k].sign == a.sign && same_factors(before[k].f, 0, before[k].f.size(), a.f)) used[k] = cancelled = true;
            if (!cancelled) diff.push_back(a);
        }
        for (size_t k = 0; k < before.size(); ++k)
            if (!used[k]) diff.push_back({-before[k].sign, before[k].f});
        return diff;
    };
    const auto factored = [&](size_t i) -> std::optional<std::vector<Stage>> {
        const std::vector<Mono> diff = difference(i);
        if (diff.empty()) return std::nullopt;
        std::vector<Stage> stages;
        for (const Mono& t : diff) {
            int best = -1;
            Stage pick;
            for (size_t k = 1; k < t.f.size(); ++k)
                for (size_t p = 0; p < cells.size(); ++p)
                    for (size_t q = 0; q < cells.size(); ++q)
                        for (const bool pa : {true, false})
                            for (const bool qa : {true, false}) {
                                if (p == i || q == i || p == q) continue;
                                const auto mp = expand(pa ? cells[p].after : cells[p].before, 1);
                                const auto mq = expand(qa ? cells[q].after : cells[q].before, 1);
                                if (mp.size() != 1 || mq.size() != 1 || !same_factors(t.f, 0, k, mp[0].f) || !same_factors(t.f, k, t.f.size(), mq[0].f)) continue;
                                const auto original = [&](size_t j, bool a) { return !a && mp.size() == 1 && expand(cells[j].before, 1)[0].f.size() == 1 && expand(cells[j].before, 1)[0].f[0].hat; };
                                const int score = 2 - (original(p, pa) ? 1 : 0) - (original(q, qa) ? 1 : 0);
                                if (score <= best) continue;
                                best = score;
                                Math bp, bq;
                                bp.kind = bq.kind = K::Block;
                                bp.operand = cells[p].o->name;
                                bq.operand = cells[q].o->name;
                                bp.located = bq.located = true;
                                bp.rows = cells[p].R;
                                bp.cols = cells[p].C;
                                bq.rows = cells[q].R;
                                bq.cols = cells[q].C;
                                Math x = Math::nary(K::Product, {bp, bq});
                                if (t.sign * mp[0].sign * mq[0].sign < 0) x = Math::unary(K::Neg, x);
                                pick = Stage{Stage::Add, x, {{p, pa}, {q, qa}}, true};
                            }
            if (best < 0) return std::nullopt;
            stages.push_back(pick);
        }
        return stages;
    };
    // Worksheet cells: each block's value before and after the update.
    for (const Cell& c : cells) {
        inv_.before[form].push_back({display(c.name), c.quadrant_before, display(c.name) + " = " + text(c.before)});
        inv_.after[form].push_back({display(c.name), c.quadrant_after, display(c.name) + " = " + text(c.after)});
    }
    // The updates: the stages from each block's state before to its state after.
    std::vector<Update> list;
    for (size_t i = 0; i < cells.size(); ++i) {
        const Cell& c = cells[i];
        if (same(c.before, c.after)) continue;
        // The same sum of products, one factored and one expanded, needs no update
        // (trinv_un's variant 2: A02 = -( ( A00 Ahat02 + a01 ahat12^T ) Ahat22^{-1} ) before,
        // -A00 Ahat02 Ahat22^{-1} - a01 ahat12^T Ahat22^{-1} after).
        if (difference(i).empty()) continue;
        auto stages = path(c.after, c.before);
        // A term that reads the original of a block this iteration updates: the
        // product of other blocks' states instead, when they give it.
        bool reads_updated_original = false;
        if (stages)
            for (const Stage& st : *stages)
                if (st.kind == Stage::Add)
                    each_block(st.x, [&](const Math& b) {
                        const size_t j = cell_of(b);
                        if (b.hat && j < cells.size() && j != i && updated(j)) reads_updated_original = true;
                    });
        if (!stages || reads_updated_original)
            if (auto f = factored(i)) stages = f;
        if (!stages) {
            why = "no update takes " + display(c.name) + " from " + text(c.before) + " to " + text(c.after);
            return false;
        }
        bool negate_next = false;
        for (size_t k = 0; k < stages->size(); ++k) {
            const Stage& st = (*stages)[k];
            if (st.kind == Stage::Negate && k + 1 < stages->size()) {
                // The negation merged into a next stage that has an alpha (trsm, trmm).
                std::string r;
                const std::string next = blas(c, (*stages)[k + 1], r);
                if (next.rfind("trsm(", 0) == 0 || next.rfind("trmm(", 0) == 0) {
                    negate_next = true;
                    continue;
                }
            }
            Update u{i, k, st, "", {}, {}, {}, {}, {}};
            Math plain = st.x;
            const std::function<void(Math&)> unhat = [&](Math& m) {
                if (m.kind == K::Block) m.hat = false;
                for (Math& a : m.args) unhat(a);
            };
            unhat(plain);
            const std::string X = display(c.name);
            switch (st.kind) {
            case Stage::Add:
                u.text = X + (plain.kind == K::Neg ? " := " + X + " - " + text(plain.args.front()) : " := " + X + " + " + text(plain));
                break;
            case Stage::Left:
            case Stage::Right: {
                std::string b, ul, dg;
                const std::string sig = signature(st.x, b, ul, dg);
                if (sig == "sI" || sig == "sTI") // a scalar's inverse: a division, as FLAME writes it
                    u.text = X + " := " + X + " / " + text(plain.kind == K::Transpose ? plain.args.front().args.front() : plain.args.front());
                else if (st.kind == Stage::Left)
                    u.text = X + " := " + text(plain) + " " + X;
                else
                    u.text = X + " := " + X + " " + text(plain);
                break;
            }
            case Stage::Negate: u.text = X + " := -" + X; break;
            case Stage::Apply: u.text = X + " := " + st.x.name + "( " + X + " )"; break;
            }
            std::string rule;
            std::string call = blas(c, st, rule);
            if (negate_next) {
                const size_t alpha = call.find(", 1.0, ");
                if (alpha != std::string::npos) call.replace(alpha, 7, ", -1.0, ");
                u.text = X + " := -" + u.text.substr(X.size() + 4);
                negate_next = false;
            }
            if (call == "nop") continue; // a product with 1
            if (call.empty()) {
                why = "no BLAS operation performs " + u.text + " (" + rule + "): the abstract BLAS lacks it";
                inv_.problem[form] = why;
                return false;
            }
            // "call|text; call|text": several calls, each with its own text.
            size_t begin = 0;
            for (;;) {
                const size_t semi = call.find("; ", begin);
                std::string one = call.substr(begin, semi == std::string::npos ? std::string::npos : semi - begin);
                std::string desc = u.text;
                const size_t bar = one.find('|');
                if (bar != std::string::npos) {
                    desc = replace_all(one.substr(bar + 1), c.name, display(c.name));
                    one = one.substr(0, bar);
                }
                u.calls.push_back({desc, make_call(one)});
                if (semi == std::string::npos) break;
                begin = semi + 2;
            }
            if (st.factored) {
                for (const auto& [j, after] : st.state_reads) (after ? u.state_after : u.state_before).insert(j);
            } else {
                each_block(st.x, [&](const Math& b) {
                    if (pme_.operand(b.operand)->input_only()) return;
                    const size_t j = cell_of(b);
                    if (j == cells.size() || j == i) return;
                    (b.hat ? u.hat_reads : u.final_reads).insert(j);
                });
            }
            list.push_back(u);
        }
    }
    // What each read needs: an original still there, a final value computed.
    for (const Update& u : list) {
        for (const size_t j : u.hat_reads)
            if (!same(cells[j].before, [&] {
                    Math h = cells[j].before;
                    h.kind = K::Block;
                    h.args.clear();
                    h.operand = cells[j].o->name;
                    h.hat = true;
                    h.located = true;
                    h.rows = cells[j].R;
                    h.cols = cells[j].C;
                    return h;
                }())) {
                why = u.text + " reads the original of " + display(cells[j].name) + ", which the invariant has overwritten";
                return false;
            }
        for (const size_t j : u.final_reads)
            if (!same(cells[j].after, cells[j].final_value(pme_))) {
                why = u.text + " reads the final value of " + display(cells[j].name) + ", which the invariant does not hold after the update";
                return false;
            }
    }
    // Order: a cell's stages in turn; a read of an original before the block's
    // updates, a read of a final value after them. Ties by the blocks' order.
    std::vector<std::vector<size_t>> after_of(list.size());
    for (size_t a = 0; a < list.size(); ++a)
        for (size_t b = 0; b < list.size(); ++b) {
            if (a == b) continue;
            const bool same_cell_earlier = list[a].cell == list[b].cell && list[a].order < list[b].order;
            const bool hat_first = list[a].hat_reads.count(list[b].cell) != 0 || list[a].state_before.count(list[b].cell) != 0; // a before any update of b's cell
            const bool final_after = list[b].final_reads.count(list[a].cell) != 0 || list[b].state_after.count(list[a].cell) != 0; // b after every update of a's cell
            if (same_cell_earlier || hat_first || final_after) after_of[b].push_back(a);
        }
    std::vector<bool> done(list.size(), false);
    for (size_t count = 0; count < list.size(); ++count) {
        // Among the updates ready, the earliest stage first (the blocks' first stages,
        // then their second ones, as FLAME's worksheets and libflame order them), then
        // the blocks' order.
        // With `cpp by_blocks "blocked"` (libflame's blocked LU) or "unblocked": in that
        // form, each block's updates to the end, the blocks in their order.
        const auto& forms = pme_.cpp.count("by_blocks") ? pme_.cpp.at("by_blocks") : std::vector<std::string>{};
        const bool by_blocks = std::find(forms.begin(), forms.end(), blocked_ ? "blocked" : "unblocked") != forms.end();
        size_t pick = list.size();
        for (size_t i = 0; i < list.size(); ++i) {
            if (done[i] || !std::all_of(after_of[i].begin(), after_of[i].end(), [&](size_t p) { return done[p]; })) continue;
            // The operation itself on the current block (its check, its inner call,
            // trinv's reciprocal) as late as the others allow when it is the block's
            // last update, in the default order.
            const auto last_apply = [&](size_t u) {
                if (list[u].stage.kind != Stage::Apply) return false;
                for (const Update& o : list)
                    if (o.cell == list[u].cell && o.order > list[u].order) return false;
                return true;
            };
            const auto key = [&](size_t u) {
                return std::make_pair(by_blocks ? 0 : (last_apply(u) ? 1 : 0), by_blocks ? list[u].cell : list[u].order);
            };
            if (pick == list.size() || key(i) < key(pick)) pick = i;
        }
        if (pick == list.size()) {
            why = "the updates need each other's values: no order computes them in place";
            return false;
        }
        done[pick] = true;
        for (const auto& [desc, call] : list[pick].calls) {
            derive::Update s;
            s.description = desc;
            s.call = call;
            s.where = pme_.equations.front().where;
            inv_.derived_updates[form].push_back(s);
        }
    }
    return true;
}

// The PME-level expression e when the loop ends with dimension `dim` (0 rows, 1
// columns) exhausted: a block with no extent there vanishes; the others are located
// on the quadrants, the first side as part 0, the second as part 1.
Math at_end(const Pme& pme, const Invariant& inv, const Math& e, int dim)
{
    if (e.kind == K::Block) {
        const int r = side(pme, inv, e, 0), c = side(pme, inv, e, 1);
        if ((dim == 0 ? r : c) == 1) return Math::zero();
        Math b = e;
        b.quadrant.clear();
        b.located = true;
        b.rows = r < 0 ? Range{0, 3} : Range{r, r + 1};
        b.cols = c < 0 ? Range{0, 3} : Range{c, c + 1};
        return b;
    }
    Math m = e;
    for (Math& a : m.args) a = at_end(pme, inv, a, dim);
    return normalize(m);
}

bool Algorithm::finish(std::string& why)
{
    quadrant_level_ = true;
    inv_.finishes.clear();
    // m > n: the columns run out first and BL is left; n > m: the rows, and TR.
    for (const int dim : {1, 0}) {
        for (size_t i = 0; i < quadrants_.size(); ++i) {
            const Quadrant& q = quadrants_[i];
            const Math& Q = q.eq->lhs;
            const int r = side(pme_, inv_, Q, 0), c = side(pme_, inv_, Q, 1);
            if ((dim == 0 ? r : c) == 1) continue; // empty when the loop ends
            const Math from = at_end(pme_, inv_, q.levels[levels_[i]], dim), to = at_end(pme_, inv_, q.levels.back(), dim);
            if (same(from, to)) continue;
            if (r == 0 && c == 0) {
                why = "after the loop " + print(Q) + " = " + print(q.levels[levels_[i]]) + " is not final";
                return false;
            }
            const std::string X = quad_names(*pme_.operand(Q.operand), shape_of(pme_, inv_, *pme_.operand(Q.operand)))
                [static_cast<size_t>(std::max(r, 0))][static_cast<size_t>(std::max(c, 0))];
            const auto stages = path(to, from);
            if (!stages) {
                why = "after the loop no update takes " + X + " from " + text(from) + " to " + text(to);
                return false;
            }
            Cell cell{pme_.operand(Q.operand), Range{std::max(r, 0), std::max(r, 0) + 1}, Range{std::max(c, 0), std::max(c, 0) + 1},
                      X, "", "", {}, {}, {}};
            for (const Stage& st : *stages) {
                Math plain = st.x;
                const std::function<void(Math&)> unhat = [&](Math& m) {
                    if (m.kind == K::Block) m.hat = false;
                    for (Math& a : m.args) unhat(a);
                };
                unhat(plain);
                std::string desc;
                switch (st.kind) {
                case Stage::Add: desc = X + (plain.kind == K::Neg ? " := " + X + " - " + text(plain.args.front()) : " := " + X + " + " + text(plain)); break;
                case Stage::Left: desc = X + " := " + text(plain) + " " + X; break;
                case Stage::Right: desc = X + " := " + X + " " + text(plain); break;
                case Stage::Negate: desc = X + " := -" + X; break;
                case Stage::Apply: desc = X + " := " + st.x.name + "( " + X + " )"; break;
                }
                std::string rule;
                const std::string call = blas(cell, st, rule);
                if (call == "nop") continue;
                if (call.empty() || call.find(';') != std::string::npos || call.rfind("inner", 0) == 0) {
                    why = "after the loop no BLAS operation performs " + desc + " (" + rule + "): the abstract BLAS lacks it";
                    return false;
                }
                Finish f;
                f.quadrant = r == 1 ? "BL" : "TR";
                f.description = desc;
                f.call = make_call(call);
                f.where = q.eq->where;
                inv_.finishes.push_back(f);
            }
        }
    }
    return true;
}

// FLAME's feasibility on the PME level; false with the reason.
bool feasible_levels(const Pme& pme, const Invariant& inv, const std::vector<Quadrant>& qs, const std::vector<size_t>& levels,
                     std::string& why)
{
    const int start_empty = inv.backward ? 1 : 0, end_empty = inv.backward ? 0 : 1;
    const auto empty_at = [&](const Math& q, int empty) { return side(pme, inv, q, 0) == empty || side(pme, inv, q, 1) == empty; };
    for (size_t i = 0; i < qs.size(); ++i) {
        const Math& Q = qs[i].eq->lhs;
        const Math& v = qs[i].levels[levels[i]];
        if (!empty_at(Q, start_empty) && !same(vanish(pme, inv, v, start_empty), qs[i].own)) {
            why = "at the start (" + std::string(inv.backward ? "the bottom right" : "the top left") + " empty) " + print(Q) + " = " +
                  print(vanish(pme, inv, v, start_empty)) + ", not the precondition's " + print(qs[i].own);
            return false;
        }
        if (!empty_at(Q, end_empty) && !same(vanish(pme, inv, v, end_empty), vanish(pme, inv, qs[i].levels.back(), end_empty))) {
            why = "at the end " + print(Q) + " = " + print(vanish(pme, inv, v, end_empty)) + ", not the postcondition's " +
                  print(vanish(pme, inv, qs[i].levels.back(), end_empty));
            return false;
        }
    }
    for (size_t i = 0; i < qs.size(); ++i) {
        const Math& v = qs[i].levels[levels[i]];
        const auto done = reads(pme, v), all = reads(pme, qs[i].levels.back());
        for (size_t j = 0; j < qs.size(); ++j) {
            if (j == i) continue;
            const Read final_j{qs[j].eq->lhs.operand, qs[j].eq->lhs.quadrant, false}, hat_j{qs[j].eq->lhs.operand, qs[j].eq->lhs.quadrant, true};
            if (done.count(final_j) && levels[j] + 1 != qs[j].levels.size()) {
                why = print(qs[i].eq->lhs) + " = " + print(v) + " reads the final " + print(qs[j].eq->lhs) + ", which the invariant does not hold";
                return false;
            }
            if (all.count(hat_j) && !done.count(hat_j) && levels[j] != 0) {
                why = print(qs[i].eq->lhs) + " still needs " + print(qs[j].own) + ", which the invariant has overwritten (" +
                      print(qs[j].eq->lhs) + " = " + print(qs[j].levels[levels[j]]) + ")";
                return false;
            }
        }
    }
    return true;
}

} // namespace

void derive_plain(const Pme& pme, Derivation& d);

// --- pivots: P( p ) and the LU of a panel -----------------------------------------------
//
// LU with partial pivoting's PME (FLAME's) reads
//   A_TL = LU( ( Ahat_TL ; Ahat_BL ) )           the panel's top, with p_T
//   A_BL = P( p_B ) LU( ( Ahat_TL ; Ahat_BL ) )  its bottom, swapped by the later pivots
//   A_TR = L( A_TL )^{-1} P( p_T ) ( Ahat_TR ; Ahat_BR )
//   A_BR = LU( P( p_T ) ( Ahat_TR ; Ahat_BR ) - A_BL A_TR )
// where an expression over a panel ( X ; Y ) in a quadrant's equation stands for that
// quadrant's rows of it. The engine derives it in two layers:
//  1. The pivots erased: P( p ) X is X, a panel is the quadrant's own part, and the LU
//     of a panel is the LU of its top and, below, the bottom solved with U of the top
//     (the 2x1 PME of LU). That is the unpivoted PME: its partial results, invariants,
//     states and updates are the plain engine's.
//  2. The pivots put back, by three rules:
//     - an operation on a panel computes both its quadrants at once (the pivot of a
//       column is the largest entry of all its rows, which lie in both): an invariant
//       holds both or neither of them;
//     - a permutation of a panel is applied where the next stage of either quadrant
//       needs it (lazily: with U_TR's solve or A_BR's update in the invariant, both
//       quadrants hold the rows swapped; else the current column is swapped when it
//       joins the factored panel);
//     - the LU of the current panel is, unblocked, iamax over it, the row interchange
//       across the blocks that hold swapped rows, the zero-pivot check and the division
//       by the pivot; blocked, the inner call on the panel ( A11 ; A21 ) with p1 and
//       the row interchange of the blocks left (and right) of it. It runs after the
//       panel's own updates and before every update of the rows it swaps.
namespace {

// The pivots erased from quadrant Q's value (see above).
Math erase_pivots(const Pme& pme, const Math& e, const Math& Q)
{
    const bool top = !Q.quadrant.empty() && Q.quadrant[0] == 'T';
    if (e.kind == K::Block && pme.operand(e.operand)->pivots)
        throw Error(e.where.str() + ": " + print(e) + ": pivots appear only as P( " + print(e) + " ) applied to a block");
    switch (e.kind) {
    case K::Product: {
        std::vector<Math> f;
        for (const Math& a : e.args)
            if (!(a.kind == K::Apply && a.name == "P")) f.push_back(erase_pivots(pme, a, Q));
        if (f.empty()) throw Error(e.where.str() + ": P( p ) applies to a block");
        return normalize(f.size() == 1 ? f.front() : Math::nary(K::Product, f));
    }
    case K::Apply:
        if (e.name == "P") throw Error(e.where.str() + ": P( p ) applies to a block (P( p_T ) ( X ; Y ))");
        if (e.name == "Stack") return erase_pivots(pme, e.args[top ? 0 : 1], Q);
        if (e.args.front().kind == K::Apply && e.args.front().name == "Stack") {
            const Math& panel = e.args.front();
            if (e.name != "LU")
                throw Error(e.where.str() + ": " + e.name + " of a panel: the engine knows the LU of a 2x1 panel only");
            if (top) {
                Math m = e;
                m.args.front() = erase_pivots(pme, panel.args[0], Q);
                return normalize(m);
            }
            // The bottom: Y U( X's final value )^{-1}.
            const Math& X = panel.args[0];
            if (X.kind != K::Block) throw Error(panel.where.str() + ": the top of an LU's panel is a block");
            Math fin = X;
            fin.hat = false;
            Math u = Math::unary(K::Apply, fin);
            u.name = "U";
            return normalize(Math::nary(K::Product, {erase_pivots(pme, panel.args[1], Q), Math::unary(K::Inverse, u)}));
        }
        break;
    default: break;
    }
    Math m = e;
    for (Math& a : m.args) a = erase_pivots(pme, a, Q);
    return m.args.empty() ? m : normalize(m);
}

// The quadrant pairs that an expression's panels join, "TL|BL": (true, ...) for a
// panel under a named operation (LU( ( X ; Y ) ): one stage computes both), (false,
// ...) for one under a permutation (P( p ) ( X ; Y )).
void panels(const Math& e, std::vector<std::pair<bool, std::string>>& out)
{
    const auto stack = [](const Math& m) {
        return m.kind == K::Apply && m.name == "Stack" && m.args[0].kind == K::Block && m.args[1].kind == K::Block;
    };
    if (e.kind == K::Apply && e.name != "P" && e.name != "Stack" && stack(e.args.front())) // LU( ( X ; Y ) )
        out.push_back({true, e.args.front().args[0].quadrant + "|" + e.args.front().args[1].quadrant});
    if (e.kind == K::Product)
        for (size_t k = 0; k + 1 < e.args.size(); ++k)
            if (e.args[k].kind == K::Apply && e.args[k].name == "P" && stack(e.args[k + 1])) // P( p ) ( X ; Y )
                out.push_back({false, e.args[k + 1].args[0].quadrant + "|" + e.args[k + 1].args[1].quadrant});
    for (const Math& a : e.args) panels(a, out);
}

Math block_math(const std::string& operand, const std::string& quadrant, bool hat)
{
    Math b;
    b.kind = K::Block;
    b.operand = operand;
    b.quadrant = quadrant;
    b.hat = hat;
    return b;
}

// A call's text, nested calls included, as an Expr.
Expr call_expr(const std::string& text, size_t& at)
{
    Expr e;
    while (at < text.size() && text[at] == ' ') ++at;
    const size_t begin = at;
    while (at < text.size() && text[at] != '(' && text[at] != ',' && text[at] != ')') ++at;
    e.name = text.substr(begin, at - begin);
    while (!e.name.empty() && e.name.back() == ' ') e.name.pop_back();
    if (at < text.size() && text[at] == '(') {
        e.call = true;
        ++at;
        while (at < text.size() && text[at] != ')') {
            e.args.push_back(call_expr(text, at));
            if (at < text.size() && text[at] == ',') ++at;
        }
        ++at;
    }
    return e;
}
Expr call_expr(const std::string& text)
{
    size_t at = 0;
    return call_expr(text, at);
}

std::string output_of(const derive::Update& s)
{
    const Expr& c = s.call;
    if (c.args.empty()) return "";
    return c.name == "check" || c.name == "inner" ? c.args.front().text() : c.args.back().text();
}

bool reads_block(const Expr& e, const std::string& name)
{
    if (!e.call) return e.name == name;
    for (const Expr& a : e.args)
        if (reads_block(a, name)) return true;
    return false;
}

void derive_pivoted(const Pme& pme, Derivation& d)
{
    const Operand* piv = nullptr;
    for (const Operand& o : pme.operands)
        if (o.pivots) piv = &o;
    const Operand* A = nullptr;
    for (const Operand& o : pme.operands)
        if (!o.pivots && !o.input_only()) A = A ? A : &o;
    if (!A || A->row_index == A->col_index || pme.equations.empty())
        throw Error(pme.file + ": pivots need an m x n operand partitioned 2x2 (`pme m,n`)");
    // Layer 1: the PME with the pivots erased.
    Pme erased = pme;
    for (Equation& e : erased.equations) e.rhs = erase_pivots(pme, e.rhs, e.lhs);
    for (InvariantDecl& v : erased.declared)
        for (auto& [lhs, rhs] : v.holds) rhs = erase_pivots(pme, rhs, lhs);
    Derivation plain;
    plain.pme = &erased;
    derive_plain(erased, plain);
    // The joint quadrants: a panel operation's, and a permutation's.
    std::vector<std::pair<std::string, std::string>> op_joint, swap_joint;
    for (const Equation& e : pme.equations) {
        std::vector<std::pair<bool, std::string>> ps;
        panels(e.rhs, ps);
        for (const auto& [op, q] : ps) {
            const std::pair<std::string, std::string> pair{q.substr(0, q.find('|')), q.substr(q.find('|') + 1)};
            auto& list = op ? op_joint : swap_joint;
            if (std::find(list.begin(), list.end(), pair) == list.end()) list.push_back(pair);
        }
    }
    const auto value = [&](const Invariant& inv, const std::string& q) -> const Math* {
        for (const auto& [lhs, rhs] : inv.holds)
            if (lhs.quadrant == q) return &rhs;
        return nullptr;
    };
    const auto original = [&](const Invariant& inv, const std::string& q) {
        const Math* v = value(inv, q);
        return v && same(*v, block_math(A->name, q, true));
    };
    const auto pivoted_rhs = [&](const std::string& q) -> const Equation* {
        for (const Equation& e : pme.equations)
            if (e.lhs.quadrant == q) return &e;
        return nullptr;
    };
    d.infeasible = plain.infeasible;
    std::vector<Invariant> kept;
    for (Invariant inv : plain.invariants) {
        std::string why;
        for (const auto& [q1, q2] : op_joint)
            if (original(inv, q1) != original(inv, q2)) {
                const std::string done = original(inv, q1) ? q2 : q1, left = original(inv, q1) ? q1 : q2;
                why = "the PME computes " + A->name + "_" + q1 + " and " + A->name + "_" + q2 + " together, as LU( ( " + A->name + "hat_" + q1 +
                      " ; " + A->name + "hat_" + q2 + " ) ): the pivot of a column is the largest entry of all its rows below the diagonal, "
                      "which lie in " + A->name + "_" + q2 + ": " + A->name + "_" + q1 + " and " + (piv ? piv->name : std::string("p")) + "_T cannot be known without the rows of " +
                      A->name + "_" + q2 + " (the invariant holds " + A->name + "_" + done + " computed and " + A->name + "_" + left + " = " + A->name + "hat_" + left + ")";
            }
        // Which permutations the invariant has applied: those a quadrant's next stage needed.
        bool swapped = false;
        for (const auto& [q1, q2] : swap_joint) swapped = swapped || !original(inv, q1) || !original(inv, q2);
        // The values it holds, with the pivots put back.
        for (auto& [lhs, rhs] : inv.holds) {
            const Equation* e = pivoted_rhs(lhs.quadrant);
            const Equation* ee = nullptr;
            for (const Equation& x : erased.equations)
                if (x.lhs.quadrant == lhs.quadrant) ee = &x;
            if (!e || !ee) continue;
            const bool in_swap = std::any_of(swap_joint.begin(), swap_joint.end(), [&](const auto& p) { return p.first == lhs.quadrant || p.second == lhs.quadrant; });
            Math stacked; // P( p_T ) ( Ahat_TR ; Ahat_BR ), as the PME writes it
            std::function<void(const Math&)> find = [&](const Math& m) {
                if (m.kind == K::Product && m.args.size() >= 2 && m.args[0].kind == K::Apply && m.args[0].name == "P" &&
                    m.args[1].kind == K::Apply && m.args[1].name == "Stack" && stacked.is_zero())
                    stacked = Math::nary(K::Product, {m.args[0], m.args[1]});
                for (const Math& a : m.args) find(a);
            };
            find(e->rhs);
            if (same(rhs, ee->rhs)) {
                // Final; the later pivots (P( p_B ), of the part still to do) are not applied yet.
                Math v = e->rhs;
                if (v.kind == K::Product && v.args.front().kind == K::Apply && v.args.front().name == "P" &&
                    v.args.front().args.front().quadrant == "B")
                    v = normalize(v.args.size() == 2 ? v.args[1] : Math::nary(K::Product, std::vector<Math>(v.args.begin() + 1, v.args.end())));
                rhs = v;
            } else if (in_swap && swapped && !stacked.is_zero()) {
                const Math own = block_math(A->name, lhs.quadrant, true);
                std::function<Math(const Math&)> put = [&](const Math& m) -> Math {
                    if (same(m, own)) return stacked;
                    Math x = m;
                    for (Math& a : x.args) a = put(a);
                    return x;
                };
                rhs = put(rhs);
            }
        }
        if (!why.empty()) {
            InfeasibleVariant iv;
            iv.number = inv.number;
            for (const auto& [lhs, rhs] : inv.holds) iv.holds.push_back(equation_text(lhs, rhs));
            iv.reason = why;
            d.infeasible.push_back(iv);
            continue;
        }
        // The states with the pivots: a block of a quadrant the row interchanges have
        // reached (the factored panel's, and the right ones' when the invariant holds
        // them swapped) reads its originals swapped, Xbar = P( p ) Xhat.
        for (const int form : {0, 1})
            for (auto* cells : {&inv.before[form], &inv.after[form]}) {
                if (cells->empty()) continue;
                for (auto& cell : *cells) {
                    const std::string& q = cell[1];
                    const bool reached = q == A->name + "TL" || q == A->name + "BL" || (swapped && (q == A->name + "TR" || q == A->name + "BR"));
                    if (!reached) continue;
                    for (size_t at = cell[2].find("hat"); at != std::string::npos; at = cell[2].find("hat", at + 3)) cell[2].replace(at, 3, "bar");
                }
                cells->push_back({"Abar", "", "( Abar_TR ; Abar_BR ) = P( p_T ) ( Ahat_TR ; Ahat_BR ): the originals with the row interchanges so far"});
            }
        // Layer 2: the updates with the pivots.
        for (const int form : {0, 1}) {
            const bool blocked = form == 1;
            if (blocked && !pme.has_blocked()) continue;
            const NameGrid g = fine_names(*A, Shape::Grid2x2, blocked);
            const NameGrid pg = fine_names(*piv, Shape::Grid2x1, blocked);
            const std::string a01 = g[0][1], a11 = g[1][1], a21 = g[2][1], a10 = g[1][0], A20 = g[2][0], a12 = g[1][2], A22 = g[2][2];
            const std::string p0 = pg[0][0], p1 = pg[1][0];
            std::vector<derive::Update> head, tail, out;
            const auto step = [&](const std::string& desc, const std::string& call, bool divides) {
                derive::Update s;
                s.description = desc;
                s.call = call_expr(call);
                s.divides = divides;
                s.where = pme.equations.front().where;
                out.push_back(s);
            };
            for (const derive::Update& s : inv.derived_updates[form]) {
                const std::string x = output_of(s);
                const bool panel_lu = (x == a11 && (s.call.name == "check" || s.call.name == "inner")) || (x == a21 && reads_block(s.call, a11));
                if (panel_lu) continue; // the panel's LU, with its pivots, below
                (x == a01 || x == a11 || x == a21 ? head : tail).push_back(s);
            }
            const std::string D = display(a01), E = display(a11), F = display(a21);
            if (!swapped) // the current column joins the factored panel: the pivots so far swap it
                step("( " + D + " ; " + E + " ; " + F + " ) := P(" + p0 + ") ( " + D + " ; " + E + " ; " + F + " )",
                     "apply_pivots(" + p0 + ", merge_2x1(" + a01 + ", " + a11 + ", " + a21 + "))", false);
            out.insert(out.end(), head.begin(), head.end());
            if (!blocked) {
                step(display(p1) + " := iamax( " + E + " ; " + F + " )", "iamax(" + p1 + ", merge_2x1(" + a11 + ", " + a21 + "))", false);
                step("( " + display(a10) + " " + E + " ; " + A20 + " " + F + " ) := P(" + p1 + ") ( " + display(a10) + " " + E + " ; " + A20 + " " + F + " )",
                     "apply_pivots(" + p1 + ", merge_2x1(merge_1x2(" + a10 + ", " + a11 + "), merge_1x2(" + A20 + ", " + a21 + ")))", false);
            } else {
                step("[ ( " + a11 + " ; " + a21 + " ), " + p1 + " ] := LU( " + a11 + " ; " + a21 + " )", "inner(merge_2x1(" + a11 + ", " + a21 + "), " + p1 + ")", false);
                step("( " + a10 + " ; " + A20 + " ) := P(" + p1 + ") ( " + a10 + " ; " + A20 + " )", "apply_pivots(" + p1 + ", merge_2x1(" + a10 + ", " + A20 + "))", false);
            }
            if (swapped)
                step("( " + display(a12) + " ; " + A22 + " ) := P(" + p1 + ") ( " + display(a12) + " ; " + A22 + " )",
                     "apply_pivots(" + p1 + ", merge_2x1(" + a12 + ", " + A22 + "))", false);
            if (!blocked) {
                step("zero pivot? record it", "check(" + a11 + ")", false);
                step(F + " := " + F + " / " + E, "invscal(" + a11 + ", " + a21 + ")", true);
            }
            out.insert(out.end(), tail.begin(), tail.end());
            inv.derived_updates[form] = out;
        }
        // After the loop (n > m): A_TR as the loop left it, swapped by every pivot first
        // when the invariant keeps it unswapped.
        if (!swapped) {
            std::vector<Finish> f;
            bool put = false;
            for (const Finish& x : inv.finishes) {
                if (x.quadrant == "TR" && !put) {
                    Finish s = x;
                    s.description = A->name + "TR := P(" + piv->name + ") " + A->name + "TR";
                    s.call = call_expr("apply_pivots(" + piv->name + ", " + A->name + "TR)");
                    f.push_back(s);
                    put = true;
                }
                f.push_back(x);
            }
            inv.finishes = f;
        }
        kept.push_back(inv);
    }
    d.invariants = kept;
    std::sort(d.infeasible.begin(), d.infeasible.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
    if (d.invariants.empty()) throw Error(pme.file + ": no feasible loop invariant: " + (d.infeasible.empty() ? "" : d.infeasible.front().reason));
}

} // namespace

void derive_engine(const Pme& pme, Derivation& d)
{
    if (std::any_of(pme.operands.begin(), pme.operands.end(), [](const Operand& o) { return o.pivots; })) {
        derive_pivoted(pme, d);
        return;
    }
    derive_plain(pme, d);
}

void derive_plain(const Pme& pme, Derivation& d)
{
    std::vector<std::string> indices;
    for (const Equation& e : pme.equations)
        if (std::find(indices.begin(), indices.end(), e.index) == indices.end()) indices.push_back(e.index);
    std::vector<Invariant> unnumbered;
    std::vector<std::string> failures; // every candidate rejected, with the reason
    std::vector<std::pair<std::string, std::string>> declared_reasons; // levels key -> reason
    std::set<int> matched;
    for (const std::string& index : indices) {
        std::vector<Quadrant> qs;
        Invariant fits; // every block must name a quadrant of this partitioning
        fits.index = index;
        for (const Equation& e : pme.equations) {
            if (e.index != index) continue;
            side(pme, fits, e.lhs, 0);
            each_block(e.rhs, [&](const Math& b) { side(pme, fits, b, 0); });
        }
        for (const Equation& e : pme.equations) {
            if (e.index != index) continue;
            Quadrant q{&e, e.lhs, {}};
            q.own.hat = true;
            if (!chain(normalize(e.rhs), q.own, q.levels))
                throw Error(e.where.str() + ": " + print(e.lhs) + "'s value does not contain " + print(q.own) +
                            ": the engine derives updates in place, from the quadrant's original");
            qs.push_back(q);
        }
        for (const bool backward : {false, true}) {
            if ((backward && pme.forward_only) || (!backward && pme.backward_only)) continue;
            Invariant probe;
            probe.index = index;
            probe.backward = backward;
            std::vector<size_t> levels(qs.size(), 0);
            for (;;) {
                Invariant inv = probe;
                for (size_t i = 0; i < qs.size(); ++i) inv.holds.push_back({qs[i].eq->lhs, qs[i].levels[levels[i]]});
                int number = 0;
                const InvariantDecl* decl = nullptr;
                for (const InvariantDecl& v : pme.declared) {
                    bool all = v.holds.size() == qs.size();
                    for (const auto& [lhs, rhs] : v.holds) {
                        bool found = false;
                        for (size_t i = 0; i < qs.size(); ++i)
                            if (same(lhs, qs[i].eq->lhs) && same(normalize(rhs), qs[i].levels[levels[i]])) found = true;
                        all = all && found;
                    }
                    if (all) {
                        number = v.number;
                        decl = &v;
                    }
                }
                std::string why;
                bool ok = feasible_levels(pme, inv, qs, levels, why);
                const bool loop_feasible = ok;
                for (const bool blocked : {false, true})
                    if (ok && (!blocked || pme.has_blocked())) ok = Algorithm(pme, inv, qs, levels, blocked).run(why);
                if (ok && index.find(',') != std::string::npos) {
                    if (backward) {
                        ok = false;
                        why = "a rectangular operand's loop runs from the top left (the finishing updates are for the quadrants it leaves)";
                    } else {
                        ok = Algorithm(pme, inv, qs, levels, true).finish(why);
                    }
                }
                if (!ok) {
                    std::string label;
                    for (const auto& [lhs, rhs] : inv.holds) label += (label.empty() ? "" : "; ") + equation_text(lhs, rhs);
                    // The updates' failures first: they name what the BLAS lacks.
                    failures.insert(loop_feasible ? failures.begin() : failures.end(),
                                    "{" + label + "} " + index + (backward ? " backward" : " forward") + ": " + why);
                }
                if (ok && !(number && matched.count(number))) {
                    inv.number = number;
                    if (decl) inv.summary = decl->summary;
                    if (number) matched.insert(number);
                    (number ? d.invariants : unnumbered).push_back(inv);
                } else if (decl && !matched.count(number)) {
                    declared_reasons.push_back({std::to_string(number), std::string(backward ? "from the bottom right: " : "from the top left: ") + why});
                }
                size_t k = 0;
                while (k < qs.size() && ++levels[k] == qs[k].levels.size()) levels[k++] = 0;
                if (k == qs.size()) break;
            }
        }
    }
    if (d.invariants.empty() && unnumbered.empty()) {
        std::string why;
        for (size_t k = 0; k < failures.size() && k < 3; ++k) why += "\n  " + failures[k];
        throw Error(pme.file + ": no feasible loop invariant among " + std::to_string(failures.size()) + " candidates:" + why +
                    (failures.size() > 3 ? "\n  ..." : ""));
    }
    std::sort(d.invariants.begin(), d.invariants.end(), [](const Invariant& a, const Invariant& b) { return a.number < b.number; });
    d.invariants.insert(d.invariants.end(), unnumbered.begin(), unnumbered.end());
    for (const InvariantDecl& v : pme.declared) {
        if (matched.count(v.number)) continue;
        std::string reason = "no invariant of the PME holds these values";
        std::string reasons;
        for (const auto& [number, why] : declared_reasons)
            if (number == std::to_string(v.number)) reasons += (reasons.empty() ? "" : "; ") + why;
        if (!reasons.empty()) reason = reasons;
        InfeasibleVariant iv;
        iv.number = v.number;
        for (const auto& [lhs, rhs] : v.holds) iv.holds.push_back(equation_text(lhs, rhs));
        iv.reason = reason;
        d.infeasible.push_back(iv);
    }
}

} // namespace flamex::derive
