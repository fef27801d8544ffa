// A PME description: one operation's partitioned matrix expression, read from a
// small text file (derive/pme/*.pme), from which the derivation engine (engine.cpp)
// derives the loop invariants, the states of the 3x3 blocks and the updates
// (derive/derive.hpp). The format (docs/derivation.md, "The derived format") holds
// mathematics only: `index`, `operand NAME in|out|inout STRUCTURE ROWS COLS SCALAR
// [-> STRUCTURE]` (pivots: `operand p out pivots ROWS SCALAR`), `equation`, `pme INDEX
// Q = EXPR`, `variant N "summary" Q = EXPR ; ...`, `definition` and `input` for
// --check-pme, and `cpp` lines (how the generated C++ reads). The older step format
// (tasks, hand-written 3x3 steps tagged `after X before Y` with their BLAS calls) is
// gone (issue 27): its statements are an error naming the file, line and column.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "derive/math.hpp"
#include "flame/flame.hpp"

namespace flamex::derive {


// A derived update's call: trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a01); an argument
// is a name, a number, or a call (merge_2x1(a01, alpha11, a21)).
struct Expr {
    std::string name;
    std::vector<Expr> args;
    bool call = false;
    Location where;
    std::string text() const; // as written, normalized: "f(a, b)"
};

struct Operand {
    std::string name;   // "A"
    bool pivots = false;
    bool two_by_two = true; // 2x2, else 2x1
    std::string scalar; // "alpha"
    Location where;
    // The derived format (`operand L in lower m m lambda`): role, structure, and the
    // index spaces of its rows and columns, which the PME's `pme INDEX` lines partition.
    std::string role;      // in, out, inout
    std::string structure; // general, lower, upper, unit_lower, unit_upper, symmetric_lower, symmetric_upper
    std::string row_index, col_index;
    // The structure of its value after the operation, when the operation changes it
    // (`operand A inout symmetric_lower n n alpha -> lower`: Cholesky's factor).
    std::string result;
    bool input_only() const { return role == "in"; }
    // Whether a block of the value before (hat) or after the operation is a triangle.
    bool triangle(bool hat) const
    {
        const std::string& s = hat || result.empty() ? structure : result;
        return s == "lower" || s == "upper" || s == "unit_lower" || s == "unit_upper";
    }
    bool lower() const { return structure == "lower" || structure == "unit_lower" || structure == "symmetric_lower"; }
    bool upper() const { return structure == "upper" || structure == "unit_upper" || structure == "symmetric_upper"; }
    bool symmetric() const { return structure == "symmetric_lower" || structure == "symmetric_upper"; }
    bool unit() const { return structure == "unit_lower" || structure == "unit_upper"; }
};

// The derived format's PME: `pme m B_T = L_TL^{-1} Bhat_T`, one block equation of the
// PME that partitions index space m.
struct Equation {
    std::string index;
    Math lhs, rhs;
    std::string text;
    Location where;
};

// `variant 2 "eager" B_T = L_TL^{-1} Bhat_T ; B_B = Bhat_B - L_BL B_T`: libflame's number
// for the invariant whose quadrants hold these values.
struct InvariantDecl {
    int number = 0;
    std::string summary;
    std::vector<std::pair<Math, Math>> holds;
    Location where;
};

// One derived update: its worksheet text and the abstract BLAS call that performs it
// (`divides`: it divides by the pivot, so it is skipped after a zero one).
struct Update {
    std::string description;
    bool divides = false;
    Expr call;
    Location where;
};

// A test operand for --check-pme: `input A dominant 6x6 7x4 4x7` (random, dominant
// or spd; one size per problem, the same count for every input).
struct Input {
    std::string operand, kind;
    std::vector<std::pair<dim_t, dim_t>> sizes;
    Location where;
};

// An update after the loop (m != n), on the 2x2 quadrants.
struct Finish {
    std::string quadrant; // the quadrant it finishes (BL or TR)
    std::string description;
    Expr call;
    Location where;
};

struct Pme {
    std::string file;
    std::string name, title, statement, precondition, postcondition, libflame;
    bool continue_on_zero_pivot = false;
    // `directions forward` (or backward): only the invariants that run that way (the
    // derived format; both when absent).
    bool forward_only = false, backward_only = false;
    std::vector<Operand> operands;
    std::vector<std::string> notes;
    std::map<std::string, std::vector<std::string>> cpp;
    std::vector<Input> inputs;
    std::string definition; // "unit_lower(A) * upper(A) = Ahat", checked by --check-pme
    Location definition_where;

    std::vector<std::string> indices;      // `index m n`
    Math definition_lhs, definition_rhs;   // `equation B = L^{-1} Bhat`
    std::vector<Equation> equations;       // `pme m ...`
    std::vector<InvariantDecl> declared;   // `variant N "summary" Q = ... ; ...`

    const Operand* operand(const std::string& name) const
    {
        for (const Operand& o : operands)
            if (o.name == name) return &o;
        return nullptr;
    }
    // A blocked form when the file says how its code reads (`cpp blocked`).
    bool has_blocked() const { return cpp.count("blocked") != 0; }
};


// Parses a description; throws flamex::Error "FILE:LINE:COLUMN: what" on anything
// malformed (an expression, an unknown operand or quadrant, a statement of the removed
// step format).
Pme parse_pme(const std::string& text, const std::string& file);
Pme read_pme(const std::string& path);

// --- the partitioned operands' names ----------------------------------------------

// A block of the 3x3 (or 3x1) repartitioning: which operand, its block row and column.
struct Block {
    const Operand* operand = nullptr;
    int row = 0, col = 0;
};

// The names of operand o's blocks: 3x3 (or 3x1) in the unblocked form (A00, a01,
// alpha11, a10t, ...) or the blocked form (A00 ... A22), and its 2x2 (2x1) quadrants
// (ATL ... ABR, or pT, pB).
std::vector<std::vector<std::string>> block_names(const Operand& o, bool blocked);
std::vector<std::vector<std::string>> quadrant_names(const Operand& o);
// Finds a block by name in either form; false when no operand has it.
bool find_block(const Pme& pme, const std::string& name, Block& block);
// The quadrant ("TL", "B.T") a block lies in before (false) or after (true) the
// repartitioning moves the boundaries.
std::string quadrant_of(const Pme& pme, const Block& b, bool after);

// --- the abstract BLAS as the derivation knows it ---------------------------------

// An operation a step may name: its parameters' kinds, in order:
//   f a flag (LOWER, NO_TRANSPOSE, ...), s a scalar (a number, or a 1x1 block read
//   with element()), i an input view, o the output view, p a pivot view.
// Besides the abstract BLAS: check (the pivot test) and inner (a blocked variant's
// inner factorization, arguments passed through); iamax writes the pivot. A scalar
// may be negated: -alpha11.
struct Operation {
    std::string name;
    std::string params;
};
const std::vector<Operation>& operations();
const Operation* find_operation(const std::string& name);

} // namespace flamex::derive
