// The derivation: from a PME description (derive/pme.hpp) to its loop invariants,
// their worksheets, and variant files in flamex's style.
//
// The engine (engine.cpp) reads the PME's block equations: each equation's partial
// results, the loop invariants that FLAME's feasibility conditions admit (decided on
// the expressions, with the terms over empty quadrants vanishing), the direction each
// needs to compute in place, the states of the 3x3 blocks before and after the update
// and the updates as their difference, each mapped onto one abstract BLAS operation.
// libflame's numbering is the description's `variant` declarations; an invariant none
// declares is listed unnumbered, and a declared one that is not feasible is reported
// with the reason.
//
//   engine.cpp     the derived format's engine
//   math.cpp       its expressions: parser, normal form, printer (math.hpp)
//   derive.cpp     the derivation's accessors, the text worksheet
//   emit_cpp.cpp   the variant file (variants/lu_piv_unb_var3.cpp's style)
//   emit_latex.cpp the worksheet as a LaTeX document
//   check_pme.cpp  an interpreter of the updates in plain double: --check-pme (every
//                  variant against the definition) and --roundings (roundings per
//                  entry, and the groups of bit-identical variants)
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "derive/pme.hpp"

namespace flamex::derive {

struct Invariant {
    int number = 0; // libflame's, 0 when the description declares none
    std::string summary;

    std::string index;      // the index space the loop partitions
    bool backward = false;  // from the bottom right (bottom-up, right to left), else from the top left
    std::vector<std::pair<Math, Math>> holds; // each PME equation's quadrant and the value it holds
    // The derived updates of the unblocked [0] and blocked [1] forms, in the order the
    // loop performs them; and the worksheet's states of the 3x3 blocks before and
    // after them: cells (block, quadrant, value).
    std::vector<Update> derived_updates[2];
    std::vector<std::vector<std::string>> before[2], after[2];
    std::string problem[2]; // why a form has no variant (an update no BLAS operation expresses)
    // The updates after the loop when the partitioning moves two index spaces together
    // ("m,n") and the operand is rectangular: the quadrant the loop leaves non-empty
    // (BL when m > n, TR when n > m) taken from the invariant's value to its final one.
    std::vector<Finish> finishes;
};

struct InfeasibleVariant {
    int number = 0;
    std::vector<std::string> holds; // the values its quadrants hold, as equations
    std::string reason;
};

struct Derivation {
    const Pme* pme = nullptr;
    std::vector<Invariant> invariants; // numbered first, by number; then unnumbered
    std::vector<InfeasibleVariant> infeasible;
};

Derivation derive_invariants(const Pme& pme);

// The invariant numbered `number`; throws flamex::Error for an unknown number, for
// an infeasible one (with the reason).
const Invariant& find_variant(const Derivation& d, int number);

// The updates of the unblocked or blocked form that the invariant's loop performs, in
// order; throws when that form has none (an update no BLAS operation expresses).
std::vector<const Update*> updates(const Pme& pme, const Invariant& inv, bool blocked);
// Whether the operation's loop may end with one dimension left (m != n): its
// partitioning moves two index spaces together (`pme m,n`).
bool rectangular(const Invariant& inv);

// "lu_nopiv_unb_var3", and libflame's "FLA_LU_nopiv_unb_var3".
std::string variant_name(const Pme& pme, int number, bool blocked);
std::string libflame_name(const Pme& pme, int number, bool blocked);

// How an invariant's loop partitions an operand: as a 3x3 grid (both dimensions
// on the partitioned index), 3x1, 1x3, or not at all.
enum class Shape { Whole, Grid2x2, Grid2x1, Grid1x2 };
Shape shape_of(const Pme& pme, const Invariant& inv, const Operand& o);
using NameGrid = std::vector<std::vector<std::string>>;
NameGrid fine_names(const Operand& o, Shape s, bool blocked); // A00 .. A22, B0 b1t B2, B0 b1 B2, L
NameGrid quad_names(const Operand& o, Shape s);               // ATL .., BT BB, BL BR, L
// The operand that drives the loop (the first one partitioned), the loop guard, and
// the dimension of the part still to do (the blocked form's block size bound).
const Operand& driver(const Pme& pme, const Invariant& inv);
std::string loop_guard(const Pme& pme, const Invariant& inv);
std::string remaining(const Pme& pme, const Invariant& inv);

// The engine (engine.cpp): the derived format's invariants, each with its updates and
// states, the feasible ones first by libflame's number; the infeasible declared ones
// with the reason.
void derive_engine(const Pme& pme, Derivation& d);
// The PME's text as the worksheet prints it: "B_T = L_TL^{-1} Bhat_T".
std::string equation_text(const Math& lhs, const Math& rhs);

// An invariant as listings show it: the values it holds, the index its loop partitions and its direction: "{B_T = L_TL^{-1} Bhat_T;
// B_B = Bhat_B} m forward".
std::string invariant_label(const Invariant& inv);

// The worksheet's notation for a block: a10t -> a10^T.
std::string display(const std::string& block);

// `flamex derive OP`'s text: the PME, the invariants, and the worksheet of each
// variant (or the one with `number` != 0) in the chosen form.
std::string text_report(const Derivation& d, int number, bool blocked);

// A worksheet, every step filled: rows in the order the algorithm reads (1a, 2, 3,
// 4, 5a, 6, 7, 8, 5b, 1b, after the loop), each with its lines; a listing row's lines
// are cells (block, quadrant, state) or (update, BLAS call). Rendered as text here and
// as LaTeX by emit_latex.
struct WorksheetRow {
    std::string label;
    bool listing = false;
    std::vector<std::vector<std::string>> lines;
};
struct Worksheet {
    std::string title, names;
    std::vector<WorksheetRow> rows;
};
Worksheet worksheet(const Derivation& d, const Invariant& inv, bool blocked);
std::string worksheet_text(const Derivation& d, const Invariant& inv, bool blocked);
// `flamex derive --list`: the operations and their invariants.
std::string list_text(const std::vector<Derivation>& all);

// The worksheets of every variant as a complete LaTeX document (its own macros,
// nothing beyond Debian's texlive-latex-base).
std::string emit_latex(const Derivation& d, bool blocked);

// The variant as a C++ source file in flamex's style.
std::string emit_cpp(const Pme& pme, const Invariant& inv, bool blocked);

// --check-pme: runs every variant, both forms, on the description's `input`
// problems in plain double and holds the result to its `definition`; ok is false when
// one fails, and the text then lists the PME's equations the updates follow.
std::string check_pme(const Derivation& d, bool& ok);

// --roundings: each variant run symbolically on the description's inputs, counting
// the roundings each entry of the result receives on a correctly rounded backend
// (one per correctly rounded operation that writes it), and the groups of variants
// whose every entry comes from the same correctly rounded operations on the same
// terms, which therefore give identical bits there.
struct RoundingReport {
    std::vector<std::vector<int>> groups; // variant numbers
    std::string text;
};
RoundingReport roundings(const Derivation& d, bool blocked);

// Runs variant `number` (blocked: blocks of `block`, the diagonal blocks by the same
// variant's unblocked form) on `blas`, interpreted from the derivation: the same
// calls, in the same order, as the file --emit cpp writes, with no file compiled.
// The operands (the description's, in its order; no pivots) are overwritten in place.
// Returns 0, or the 1-based column of the pivot a check stopped at.
dim_t run_interpreted(const Derivation& d, int number, bool blocked, const Blas& blas, const std::vector<Obj>& operands,
                      dim_t block);

// The PME descriptions shipped with flamex: FLAMEX_PME_DIR if set, else the source
// tree's derive/pme/ (compiled in), else the installed share directory.
std::string pme_directory();
std::vector<std::string> operation_names();
Pme load_operation(const std::string& name); // throws flamex::Error for an unknown one

} // namespace flamex::derive
