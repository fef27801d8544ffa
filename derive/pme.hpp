// A PME description: one operation's partitioned matrix expression, read from a
// small text file (derive/pme/*.pme), from which the derivation enumerates loop
// invariants and fills in worksheets (derive/derive.hpp).
//
// Two formats, one file being one or the other (issue 27):
//  - the derived format (docs/derivation.md): `index`, `operand NAME in|out|inout
//    STRUCTURE ROWS COLS SCALAR [-> STRUCTURE]`, `equation`, `pme INDEX Q = EXPR`,
//    `variant N "summary" Q = EXPR ; ...`: mathematics only, from which the engine
//    (engine.cpp) derives the invariants, the states and the updates;
//  - the step format below, with hand-written steps among which the derivation only
//    selects. It is being replaced: lu_nopiv, lu_piv, ldlt and trinv still use it.
//
// The step format, one statement per line ('#' starts a comment; "..." quotes text):
//
//   operation lu_nopiv                      the name `flamex derive` knows it by
//   title "LU without pivoting"             one line for listings and headers
//   statement "A = L U, ..."                the operation in words
//   precondition "..."  postcondition "..." the worksheet's first and last steps
//   operand A matrix 2x2 alpha              a partitioned operand: 2x2 (from the top
//   operand p pivots 2x1 pi                 left) or 2x1 (from the top); the scalar's
//                                           name in the unblocked 3x3 form (alpha11)
//   guard "ATL.length() < A.length()"       the loop guard, as C++
//   zero_pivot stop | continue              a zero pivot ends the factorization, or is
//                                           recorded and skipped (LAPACK's getrf)
//   libflame FLA_LU_nopiv_{form}_var{n}     the routine each variant corresponds to
//                                           (optional: libflame has no LDL^T)
//   task tl TL "A_TL = L_TL U_TL" needs ... one task of the PME: its name, the
//                                           quadrants it computes (TL, TR,BR, B.T), its
//                                           formula, the tasks it needs (a quoted reason
//                                           may follow a name), `excludes NAME "why"`
//                                           (two ways to compute one quadrant), and
//                                           `recursive` for the PME's recursion itself
//   variant 3 tl bl "left-looking"          the invariant libflame numbers 3: its tasks
//   underivable 3 "why"                     libflame's variant 3 does not come from this
//                                           PME (another partitioning), and why
//   finish tr "ATR := ..." : trsm(...)      what runs after the loop when task tr is not
//                                           in the invariant and its quadrant is not empty
//   form unblocked | form blocked           the steps below are the 3x3 refinement of
//   step "a01 := L00^{-1} a01" after tl before tr : trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a01)
//                                           one computation on the 3x3 partitioning, the
//                                           tasks it belongs to after and before the
//                                           repartitioning (`none`: in no invariant), and
//                                           the abstract BLAS operation that performs it;
//                                           `divides` marks a step that divides by the pivot;
//                                           after tl+bla: a step of both tasks, done only
//                                           when the invariant holds both
//   note "..."                              a line of the generated file's header comment
//   definition "unit_lower(A) * upper(A) = Ahat"   the operation's definition, for
//                                           --check-pme: the operands after (A) and
//                                           before (Ahat), products, unit_lower, lower,
//                                           upper, diag, transpose, pivot(p, X), I
//   input A dominant 6x6 7x4                --check-pme's random operands, one size each
//                                           problem (random, dominant or spd)
//   cpp KEY "line" ...                      how the generated C++ reads (see emit_cpp)
//
// The steps of a form are listed in the order a variant performs them; a variant's
// updates are the steps that belong to its invariant after the repartitioning and not
// before it. Errors name the file, line and column.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "derive/math.hpp"
#include "flame/flame.hpp"

namespace flamex::derive {


// A call as written in a step: trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a01); an argument
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

struct Need {
    std::string task;
    std::string reason; // why, when the need is not evident from the formulas
    Location where;
};

struct Task {
    std::string name;
    std::vector<std::string> quadrants; // "TL", or "B.T" for an operand other than the first
    std::string formula;
    std::vector<Need> needs;
    std::vector<Need> excludes;
    bool recursive = false;
    Location where;
};

struct VariantDecl {
    int number = 0;
    std::vector<std::string> tasks;
    std::string summary;
    Location where;
};

// `underivable N "why"`: a variant libflame numbers N that no invariant of this PME
// gives (it comes from another partitioning of the operands).
struct Underivable {
    int number = 0;
    std::string reason;
    Location where;
};

struct Step {
    std::string description;
    std::vector<std::string> after, before; // before empty: `none`
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

struct Finish {
    std::string task;
    std::string quadrant; // the derived format's: the quadrant it finishes (BL or TR); else the task's
    std::string description;
    Expr call;
    Location where;
};

struct Pme {
    std::string file;
    std::string name, title, statement, precondition, postcondition, guard, libflame;
    bool continue_on_zero_pivot = false;
    // `directions forward` (or backward): only the invariants that run that way (the
    // derived format; both when absent).
    bool forward_only = false, backward_only = false;
    std::vector<Operand> operands;
    std::vector<Task> tasks;
    std::vector<VariantDecl> variants;
    std::vector<Underivable> underivable;
    std::vector<Finish> finishes;
    std::vector<Step> unblocked, blocked;
    std::vector<std::string> notes;
    std::map<std::string, std::vector<std::string>> cpp;
    std::vector<Input> inputs;
    std::string definition; // "unit_lower(A) * upper(A) = Ahat", checked by --check-pme
    Location definition_where;

    // The derived format (this PME file holds mathematics only; the engine in
    // engine.cpp derives invariants and updates). The step format above it is being
    // replaced by it (issue 27): until every shipped operation is migrated, a file is
    // one or the other, `derived` telling which.
    bool derived = false;
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
    const Task* task(const std::string& name) const;
    // The derived format: a blocked form when the file says how its code reads (`cpp blocked`).
    bool has_blocked() const { return derived ? cpp.count("blocked") != 0 : !blocked.empty(); }
    const std::vector<Step>& steps(bool blocked_form) const { return blocked_form ? blocked : unblocked; }
};

// Parses a description; throws flamex::Error "FILE:LINE:COLUMN: what" on anything
// malformed or inconsistent (an unknown task, a step on a block outside the
// quadrants of its tasks, an unknown BLAS operation or a wrong argument count).
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
