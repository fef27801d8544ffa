// The derivation engine's expressions: a small closed type for the mathematics of a
// PME (STYLE.md, "Derivation engine"). A PME file's equations are parsed into it,
// the engine substitutes the 3x3 repartitioning's blocks into it, and the worksheet
// prints it in FLAME's text notation.
//
// The text notation, parsed and printed alike:
//   B_T, L_TL, L         an operand's quadrant (T, B, L, R, TL, TR, BL, BR) or the whole
//   Bhat_T, Bhat         the same before the operation ("hat": the original value)
//   0                    the zero block
//   X + Y, X - Y, -X     sums and negation
//   X Y  (or X * Y)      products, by juxtaposition as FLAME writes them
//   X^T, X^{-1}, X^{-T}  transpose, inverse of a triangular block, both
//   LU( X ), Chol( X )   a named operation (the recursive ones: LU, Chol, Trinv, ...)
// After substitution a block is one of the 3x3 repartitioning's, printed with the
// names the generated code uses: B0, b1^T, lambda11, L20, and hats inserted after the
// letters: Bhat0, bhat1^T, lambdahat11.
#pragma once

#include <string>
#include <vector>

#include "flame/flame.hpp"

namespace flamex::derive {

struct Location {
    std::string file;
    int line = 0, column = 0;
    std::string str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(column); }
};

struct Pme;

// A range of parts [lo, hi) of one dimension's index space, which the 3x3
// repartitioning splits into parts 0, 1, 2 (a dimension that is not partitioned is
// the one range [0, 3)).
struct Range {
    int lo = 0, hi = 3;
    bool operator==(const Range& o) const { return lo == o.lo && hi == o.hi; }
    bool single() const { return hi - lo == 1; }
};

struct Math {
    enum class Kind { Block, Zero, Sum, Neg, Product, Transpose, Inverse, Apply };
    Kind kind = Kind::Zero;
    // Block: the operand, whether it is the original value, and where: `quadrant`
    // as written in the PME ("" for the whole operand), or, once located on the 3x3
    // repartitioning (`located`), its rows and columns.
    std::string operand;
    bool hat = false;
    std::string quadrant;
    bool located = false;
    Range rows, cols;
    std::string name;       // Apply: LU, Chol, Trinv, ...
    std::vector<Math> args; // Sum, Product: two or more; Neg, Transpose, Inverse, Apply: one
    Location where;

    static Math zero() { return Math(); }
    static Math unary(Kind k, Math x);
    static Math nary(Kind k, std::vector<Math> xs);
    bool is_zero() const { return kind == Kind::Zero; }
};

// Structural equality (locations ignored).
bool same(const Math& a, const Math& b);

// Parses `text` (an expression, or with `equation` "BLOCK = EXPR") whose first
// character lies at `at`; errors are flamex::Error "FILE:LINE:COLUMN: what". Operand
// names are checked against `pme`'s operands.
Math parse_math(const Pme& pme, const std::string& text, const Location& at);
void parse_equation(const Pme& pme, const std::string& text, const Location& at, Math& lhs, Math& rhs);

// The expression flattened: nested sums and products merged, negation pushed into
// sums, zero terms and products with a zero factor removed, double negation undone.
Math normalize(const Math& e);

// Names the printer uses for a located block: (operand, rows, cols, hat) -> text.
// The PME's quadrants print themselves ("L_TL", "Bhat_T").
using BlockNamer = std::string (*)(const void* context, const Math& block);
std::string print(const Math& e, BlockNamer namer = nullptr, const void* context = nullptr);

// Calls f on every block of e.
template <class F>
void each_block(const Math& e, F&& f)
{
    if (e.kind == Math::Kind::Block) f(e);
    for (const Math& a : e.args) each_block(a, f);
}

} // namespace flamex::derive
