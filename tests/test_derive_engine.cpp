// The derivation engine (derive/engine.cpp) on the derived PME format: the new user's
// case of issue 27 (B := U B top-down has FLAME's 2 invariants, one of them kept by a
// term that vanishes when the loop ends, and both pass --check-pme), the direction
// derived (B := L B bottom-up), the 1x2 partitioning (trsm_lln's variants 3 and 4),
// the states as expressions, and the errors: a malformed expression names the file,
// line and column; an update no BLAS operation performs is reported, not emitted.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "derive/derive.hpp"

namespace {

using flamex::Error;
namespace fd = flamex::derive;

std::string slurp(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

const std::string kPme = std::string(FLAMEX_SOURCE_DIR) + "/derive/pme/";

// The shipped description with every line containing one of `drop` removed.
std::string without(const std::string& op, std::initializer_list<const char*> drop)
{
    std::istringstream in(slurp(kPme + op + ".pme"));
    std::string out;
    for (std::string line; std::getline(in, line);) {
        bool keep = true;
        for (const char* d : drop) keep = keep && line.find(d) == std::string::npos;
        out += (keep ? line : std::string("# dropped")) + "\n";
    }
    return out;
}

std::string holds(const fd::Invariant& inv)
{
    std::string s;
    for (const auto& [lhs, rhs] : inv.holds) s += (s.empty() ? "" : "; ") + fd::equation_text(lhs, rhs);
    return s;
}

// Issue 27's new user: ( B_T ; B_B ) = ( U_TL B_T + U_TR B_B ; U_BR B_B ), top-down.
TEST(DeriveEngine, UpperProductTopDownHasFlamesTwoInvariantsAndBothPassCheckPme)
{
    const fd::Pme pme = fd::parse_pme(without("trmm_lun", {"pme n", "variant 3", "variant 4"}), "trmm_lun.pme");
    const fd::Derivation d = fd::derive_invariants(pme);
    ASSERT_EQ(d.invariants.size(), 2u);
    for (const fd::Invariant& inv : d.invariants) {
        EXPECT_EQ(inv.index, "m");
        EXPECT_FALSE(inv.backward) << holds(inv);
    }
    // The one whose missing term U_TR Bhat_B vanishes when B_B is empty at the end.
    EXPECT_EQ(holds(d.invariants[1]), "B_T = U_TL Bhat_T; B_B = Bhat_B");
    EXPECT_EQ(holds(d.invariants[0]), "B_T = U_TL Bhat_T + U_TR Bhat_B; B_B = Bhat_B");
    bool ok = false;
    const std::string text = fd::check_pme(d, ok);
    EXPECT_TRUE(ok) << text;
}

// B := L B in place must run bottom-up: every invariant of the 2x1 PME is backward,
// and the top-down ones are rejected (B_B still needs Bhat_T).
TEST(DeriveEngine, LowerProductRunsBottomUp)
{
    const fd::Pme pme = fd::load_operation("trmm_lln");
    const fd::Derivation d = fd::derive_invariants(pme);
    ASSERT_EQ(d.invariants.size(), 4u);
    for (int n : {1, 2}) {
        const fd::Invariant& inv = fd::find_variant(d, n);
        EXPECT_EQ(inv.index, "m");
        EXPECT_TRUE(inv.backward) << n;
        EXPECT_EQ(fd::loop_guard(pme, inv), "LBR.length() < L.length()");
    }
}

// trsm_lln's variants 3 and 4 partition B by columns (1x2), left to right and right
// to left; their update is the trsv (blocked: the inner variant on B1, L whole).
TEST(DeriveEngine, TriangularSolveByColumnsBothDirections)
{
    const fd::Pme pme = fd::load_operation("trsm_lln");
    const fd::Derivation d = fd::derive_invariants(pme);
    ASSERT_EQ(d.invariants.size(), 4u);
    const fd::Invariant &v3 = fd::find_variant(d, 3), &v4 = fd::find_variant(d, 4);
    EXPECT_EQ(v3.index, "n");
    EXPECT_FALSE(v3.backward);
    EXPECT_EQ(v4.index, "n");
    EXPECT_TRUE(v4.backward);
    for (const fd::Invariant* inv : {&v3, &v4}) {
        const auto unb = fd::updates(pme, *inv, false), blk = fd::updates(pme, *inv, true);
        ASSERT_EQ(unb.size(), 1u);
        EXPECT_EQ(unb[0]->call.text(), "trsv(LOWER, NO_TRANSPOSE, NONUNIT, L, b1)");
        ASSERT_EQ(blk.size(), 1u);
        EXPECT_EQ(blk[0]->call.text(), "inner(L, B1)");
    }
}

// Steps 6 and 7 of the worksheet: the blocks' values, as expressions.
TEST(DeriveEngine, StatesAreTheBlocksValues)
{
    const fd::Pme pme = fd::load_operation("trsm_lln");
    const fd::Derivation d = fd::derive_invariants(pme);
    const fd::Invariant& v2 = fd::find_variant(d, 2);
    const auto cell = [](const std::vector<std::vector<std::string>>& rows, const std::string& block) {
        for (const auto& r : rows)
            if (r[0] == block) return r[2];
        return std::string("(none)");
    };
    EXPECT_EQ(cell(v2.before[0], "b1^T"), "b1^T = bhat1^T - l10^T B0");
    EXPECT_EQ(cell(v2.after[0], "b1^T"), "b1^T = lambda11^{-1} ( bhat1^T - l10^T B0 )");
    EXPECT_EQ(cell(v2.after[0], "B2"), "B2 = Bhat2 - L20 B0 - l21 b1^T");
    EXPECT_EQ(cell(v2.before[1], "B0"), "B0 = L00^{-1} Bhat0");
    const auto steps = fd::updates(pme, v2, false);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0]->description, "b1^T := b1^T / lambda11");
    EXPECT_EQ(steps[1]->description, "B2 := B2 - l21 b1^T");
    EXPECT_EQ(steps[1]->call.text(), "ger(-1.0, l21, b1t, B2)");
}

void expect_error(const std::string& text, const std::string& what)
{
    try {
        fd::parse_pme(text, "bad.pme");
        ADD_FAILURE() << "no error for " << what;
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
}

std::string replaced(const std::string& op, const std::string& from, const std::string& to)
{
    std::string text = slurp(kPme + op + ".pme");
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
}

TEST(DeriveEngine, MalformedExpressionsNameFileLineAndColumn)
{
    // pme m B_T = L_TL^{-1} Bhat_T is line 17; the expression starts at column 7.
    expect_error(replaced("trsm_lln", "pme m B_T = L_TL^{-1} Bhat_T", "pme m B_T = L_TL^{-2} Bhat_T"),
                 "bad.pme:17:17: a superscript is ^T, ^{-1} or ^{-T}, not ^-2");
    expect_error(replaced("trsm_lln", "pme m B_T = L_TL^{-1} Bhat_T", "pme m B_T = L_TL^{-1} Bhat_Q"),
                 "bad.pme:17:28: 'Q' is not a quadrant");
    expect_error(replaced("trsm_lln", "pme m B_T = L_TL^{-1} Bhat_T", "pme m B_T = M_TL^{-1} Bhat_T"),
                 "bad.pme:17:13: unknown operand 'M'");
    expect_error(replaced("trsm_lln", "pme m B_T = L_TL^{-1} Bhat_T", "pme m B_T = ( L_TL^{-1} Bhat_T"),
                 "bad.pme:17:31: expected ')'");
    expect_error(replaced("trsm_lln", "pme m B_T = L_TL^{-1} Bhat_T", "pme m L_T = L_TL^{-1} Bhat_T"),
                 "bad.pme:17:7: L is an input");
    expect_error(replaced("trsm_lln", "operand L in lower m m lambda", "operand L in lowerish m m lambda"),
                 "bad.pme:10:14: unknown structure 'lowerish'");
}

// L general: b1 := L^{-1} b1 is no triangular solve, and the abstract BLAS has no
// general solve: no variant is emitted, and the derivation says which operation is
// missing (`flamex derive` exits with status 2).
TEST(DeriveEngine, AnUpdateNoBlasOperationPerformsIsReported)
{
    std::string text = without("trsm_lln", {"pme m", "variant 1", "variant 2"});
    text.replace(text.find("operand L in lower"), 18, "operand L in general");
    const fd::Pme pme = fd::parse_pme(text, "trsm_general.pme");
    try {
        fd::derive_invariants(pme);
        ADD_FAILURE() << "variants derived with a general L";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("trsm_general.pme: no feasible loop invariant"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("no BLAS operation performs b1 := L^{-1} b1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("the abstract BLAS lacks it"), std::string::npos) << e.what();
    }
}

// A declared variant that no feasible invariant matches is reported with FLAME's reason.
TEST(DeriveEngine, AnInfeasibleDeclaredInvariantSaysWhy)
{
    const std::string text = replaced("trmm_lun", "variant 4 \"a column block of B at a time, right to left\"  B_L = Bhat_L ; B_R = U Bhat_R",
                                      "variant 4 \"bottom-up\"  B_T = Bhat_T ; B_B = U_BR Bhat_B");
    const fd::Pme pme = fd::parse_pme(text, "trmm_lun.pme");
    const fd::Derivation d = fd::derive_invariants(pme);
    ASSERT_EQ(d.infeasible.size(), 1u);
    EXPECT_EQ(d.infeasible[0].number, 4);
    EXPECT_NE(d.infeasible[0].reason.find("still needs Bhat_B, which the invariant has overwritten"), std::string::npos)
        << d.infeasible[0].reason;
}

} // namespace

namespace {

// Each variant's derived updates, call by call: the calls of the step-format
// description each operation's derived PME replaced (the step format and its files
// were removed, issue 27; these lists are what its steps made, and what the
// checked-in generated variant files call: tests/test_derive.cpp holds the LU ones to
// the hand-written variants/lu_* by the recording BLAS's call log).
struct Expected {
    int variant;
    bool blocked;
    std::vector<std::string> calls;
};

// lu_nopiv: the calls of the step-format description it replaced, variant by variant (unblocked, then blocked).
const std::vector<Expected> kLuNopivCalls = {
    {1, false, {"trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a01)",
      "trsv(UPPER, TRANSPOSE, NONUNIT, A00, a10t)",
      "dots(-1.0, a10t, a01, 1.0, alpha11)",
      "check(alpha11)"}},
    {1, true, {"trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A00, A01)",
      "trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, A00, A10)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A01, 1.0, A11)",
      "inner(A11)"}},
    {2, false, {"trsv(UPPER, TRANSPOSE, NONUNIT, A00, a10t)",
      "dots(-1.0, a10t, a01, 1.0, alpha11)",
      "gemv(TRANSPOSE, -1.0, A02, a10t, 1.0, a12t)",
      "check(alpha11)"}},
    {2, true, {"trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, A00, A10)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A01, 1.0, A11)",
      "inner(A11)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A02, 1.0, A12)",
      "trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A11, A12)"}},
    {3, false, {"trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a01)",
      "dots(-1.0, a10t, a01, 1.0, alpha11)",
      "gemv(NO_TRANSPOSE, -1.0, A20, a01, 1.0, a21)",
      "check(alpha11)",
      "invscal(alpha11, a21)"}},
    {3, true, {"trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A00, A01)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A01, 1.0, A11)",
      "inner(A11)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A20, A01, 1.0, A21)",
      "trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, A11, A21)"}},
    {4, false, {"dots(-1.0, a10t, a01, 1.0, alpha11)",
      "gemv(TRANSPOSE, -1.0, A02, a10t, 1.0, a12t)",
      "gemv(NO_TRANSPOSE, -1.0, A20, a01, 1.0, a21)",
      "check(alpha11)",
      "invscal(alpha11, a21)"}},
    {4, true, {"gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A01, 1.0, A11)",
      "inner(A11)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A02, 1.0, A12)",
      "trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A11, A12)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A20, A01, 1.0, A21)",
      "trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, A11, A21)"}},
    {5, false, {"check(alpha11)",
      "invscal(alpha11, a21)",
      "ger(-1.0, a21, a12t, A22)"}},
    {5, true, {"inner(A11)",
      "trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A11, A12)",
      "trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, A11, A21)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A21, A12, 1.0, A22)"}},
};
// ldlt: the calls of the step-format description it replaced, variant by variant (unblocked, then blocked).
const std::vector<Expected> kLdltCalls = {
    {1, false, {"trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a10t)",
      "diag_invscal(A00, a10t)",
      "diag_dots(-1.0, a10t, A00, a10t, 1.0, alpha11)",
      "check(alpha11)"}},
    {2, false, {"diag_dots(-1.0, a10t, A00, a10t, 1.0, alpha11)",
      "check(alpha11)",
      "diag_gemv(-1.0, A20, A00, a10t, 1.0, a21)",
      "invscal(alpha11, a21)"}},
    {3, false, {"check(alpha11)",
      "invscal(alpha11, a21)",
      "syrk(LOWER, NO_TRANSPOSE, -alpha11, a21, 1.0, A22)"}},
};
// trinv: the calls of the step-format description it replaced, variant by variant (unblocked, then blocked).
const std::vector<Expected> kTrinvCalls = {
    {1, false, {"trmv(LOWER, TRANSPOSE, NONUNIT, A00, a10t)",
      "scal(-1.0, a10t)",
      "invscal(alpha11, a10t)",
      "reciprocal(alpha11)"}},
    {1, true, {"trmm(RIGHT, LOWER, NO_TRANSPOSE, NONUNIT, 1.0, A00, A10)",
      "trsm(LEFT, LOWER, NO_TRANSPOSE, NONUNIT, -1.0, A11, A10)",
      "inner(A11)"}},
    {2, false, {"trsv(LOWER, NO_TRANSPOSE, NONUNIT, A22, a21)",
      "scal(-1.0, a21)",
      "invscal(alpha11, a21)",
      "reciprocal(alpha11)"}},
    {2, true, {"trsm(LEFT, LOWER, NO_TRANSPOSE, NONUNIT, 1.0, A22, A21)",
      "trsm(RIGHT, LOWER, NO_TRANSPOSE, NONUNIT, -1.0, A11, A21)",
      "inner(A11)"}},
    {3, false, {"scal(-1.0, a21)",
      "invscal(alpha11, a21)",
      "ger(1.0, a21, a10t, A20)",
      "invscal(alpha11, a10t)",
      "reciprocal(alpha11)"}},
    {3, true, {"trsm(RIGHT, LOWER, NO_TRANSPOSE, NONUNIT, -1.0, A11, A21)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, 1.0, A21, A10, 1.0, A20)",
      "trsm(LEFT, LOWER, NO_TRANSPOSE, NONUNIT, 1.0, A11, A10)",
      "inner(A11)"}},
    {4, false, {"scal(-1.0, a21)",
      "trsv(LOWER, NO_TRANSPOSE, NONUNIT, A22, a21)",
      "ger(-1.0, a21, a10t, A20)",
      "trmv(LOWER, TRANSPOSE, NONUNIT, A00, a10t)",
      "reciprocal(alpha11)"}},
    {4, true, {"trsm(LEFT, LOWER, NO_TRANSPOSE, NONUNIT, -1.0, A22, A21)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A21, A10, 1.0, A20)",
      "trmm(RIGHT, LOWER, NO_TRANSPOSE, NONUNIT, 1.0, A00, A10)",
      "inner(A11)"}},
};
// lu_piv: the calls of the step-format description it replaced, variant by variant (unblocked, then blocked).
const std::vector<Expected> kLuPivCalls = {
    {3, false, {"apply_pivots(p0, merge_2x1(a01, alpha11, a21))",
      "trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a01)",
      "dots(-1.0, a10t, a01, 1.0, alpha11)",
      "gemv(NO_TRANSPOSE, -1.0, A20, a01, 1.0, a21)",
      "iamax(pi1, merge_2x1(alpha11, a21))",
      "apply_pivots(pi1, merge_2x1(merge_1x2(a10t, alpha11), merge_1x2(A20, a21)))",
      "check(alpha11)",
      "invscal(alpha11, a21)"}},
    {3, true, {"apply_pivots(p0, merge_2x1(A01, A11, A21))",
      "trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A00, A01)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A01, 1.0, A11)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A20, A01, 1.0, A21)",
      "inner(merge_2x1(A11, A21), p1)",
      "apply_pivots(p1, merge_2x1(A10, A20))"}},
    {4, false, {"dots(-1.0, a10t, a01, 1.0, alpha11)",
      "gemv(NO_TRANSPOSE, -1.0, A20, a01, 1.0, a21)",
      "iamax(pi1, merge_2x1(alpha11, a21))",
      "apply_pivots(pi1, merge_2x1(merge_1x2(a10t, alpha11), merge_1x2(A20, a21)))",
      "apply_pivots(pi1, merge_2x1(a12t, A22))",
      "check(alpha11)",
      "invscal(alpha11, a21)",
      "gemv(TRANSPOSE, -1.0, A02, a10t, 1.0, a12t)"}},
    {4, true, {"gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A01, 1.0, A11)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A20, A01, 1.0, A21)",
      "inner(merge_2x1(A11, A21), p1)",
      "apply_pivots(p1, merge_2x1(A10, A20))",
      "apply_pivots(p1, merge_2x1(A12, A22))",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A10, A02, 1.0, A12)",
      "trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A11, A12)"}},
    {5, false, {"iamax(pi1, merge_2x1(alpha11, a21))",
      "apply_pivots(pi1, merge_2x1(merge_1x2(a10t, alpha11), merge_1x2(A20, a21)))",
      "apply_pivots(pi1, merge_2x1(a12t, A22))",
      "check(alpha11)",
      "invscal(alpha11, a21)",
      "ger(-1.0, a21, a12t, A22)"}},
    {5, true, {"inner(merge_2x1(A11, A21), p1)",
      "apply_pivots(p1, merge_2x1(A10, A20))",
      "apply_pivots(p1, merge_2x1(A12, A22))",
      "trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, A11, A12)",
      "gemm(NO_TRANSPOSE, NO_TRANSPOSE, -1.0, A21, A12, 1.0, A22)"}},
};

void expect_calls(const std::string& op, const std::vector<Expected>& expected)
{
    const fd::Pme pme = fd::load_operation(op);
    const fd::Derivation d = fd::derive_invariants(pme);
    for (const Expected& e : expected) {
        std::vector<std::string> ours;
        for (const fd::Update* x : fd::updates(pme, fd::find_variant(d, e.variant), e.blocked)) ours.push_back(x->call.text());
        EXPECT_EQ(ours, e.calls) << op << " variant " << e.variant << (e.blocked ? " blocked" : " unblocked");
    }
}

// LU without pivoting (derive/pme/lu_nopiv.pme, A m x n, its rows and columns
// partitioned together: `pme m,n`): the engine derives the 5 invariants, and each
// variant's updates are the step format's calls, in its order, both forms.
TEST(DeriveEngine, LuNopivDerivedFromItsPmeMakesTheShippedStepsCalls)
{
    const fd::Pme derived = fd::load_operation("lu_nopiv");
    const fd::Derivation d = fd::derive_invariants(derived);
    ASSERT_EQ(d.invariants.size(), 5u);
    expect_calls("lu_nopiv", kLuNopivCalls);
}

// m != n: the loop ends when either dimension does, leaving A_BL (m > n) or A_TR
// (n > m); the engine derives the updates that take that quadrant from the
// invariant's value to the PME's (trsm with U( A_TL ) or L( A_TL )), only for the
// invariants that do not already hold it final (the step format's `finish` lines,
// variant by variant). --check-pme runs them on the 7x4 and 4x7 inputs.
TEST(DeriveEngine, LuNopivRectangularFinishingUpdatesAreDerived)
{
    const fd::Pme derived = fd::load_operation("lu_nopiv");
    const fd::Derivation d = fd::derive_invariants(derived);
    const std::string bl = "trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, ATL, ABL)", tr = "trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, ATL, ATR)";
    const std::vector<std::vector<std::string>> expected = {{bl, tr}, {bl}, {tr}, {}, {}};
    for (int n = 1; n <= 5; ++n) {
        const fd::Invariant& inv = fd::find_variant(d, n);
        std::vector<std::string> ours;
        for (const fd::Finish& f : inv.finishes) ours.push_back(f.call.text());
        EXPECT_EQ(ours, expected[static_cast<size_t>(n - 1)]) << "variant " << n;
        for (const fd::Finish& f : inv.finishes)
            EXPECT_EQ(f.quadrant, f.call.text() == bl ? "BL" : "TR") << "variant " << n;
    }
    EXPECT_EQ(fd::loop_guard(derived, fd::find_variant(d, 1)), "ATL.length() < A.length() && ATL.width() < A.width()");
    bool ok = false;
    const std::string text = fd::check_pme(d, ok);
    EXPECT_TRUE(ok) << text;
    ASSERT_EQ(derived.inputs.size(), 1u);
    const auto& sizes = derived.inputs.front().sizes;
    for (const auto& shape : {std::pair<flamex::dim_t, flamex::dim_t>{7, 4}, {4, 7}})
        EXPECT_NE(std::find(sizes.begin(), sizes.end(), shape), sizes.end());
}

// LDL^T (derive/pme/ldlt.pme: D( X ) the diagonal of X, the PME A_BL = Ahat_BL
// L( A_TL )^{-T} D( A_TL )^{-1}): the 3 invariants, each variant's updates the step
// format's calls in its order: the abstract BLAS's diag_invscal, diag_dots and
// diag_gemv for the products with D( A00 ), the syrk scaled by -alpha11.
TEST(DeriveEngine, LdltDerivedFromItsPmeMakesTheShippedStepsCalls)
{
    const fd::Pme derived = fd::load_operation("ldlt");
    EXPECT_FALSE(derived.has_blocked());
    const fd::Derivation d = fd::derive_invariants(derived);
    ASSERT_EQ(d.invariants.size(), 3u);
    expect_calls("ldlt", kLdltCalls);
    bool ok = false;
    const std::string text = fd::check_pme(d, ok);
    EXPECT_TRUE(ok) << text;
}

// The triangular inverse (derive/pme/trinv.pme: A_BL = -Ahat_BR^{-1} Ahat_BL A_TL):
// the product's partial results in either order with the negation folded in (-L_BL
// X_TL for variant 3, -L_BR^{-1} L_BL for variant 4), the terms factored into other
// blocks' states (A20 := A20 + a21 a10^T reads a21 after its update and a10^T before
// its own), the negation with a block's last stage (a trsm's alpha of -1 blocked):
// each variant, both forms, makes the step format's calls in its order.
TEST(DeriveEngine, TrinvDerivedFromItsPmeMakesTheShippedStepsCalls)
{
    const fd::Pme derived = fd::load_operation("trinv");
    const fd::Derivation d = fd::derive_invariants(derived);
    ASSERT_EQ(d.invariants.size(), 4u);
    expect_calls("trinv", kTrinvCalls);
    bool ok = false;
    const std::string text = fd::check_pme(d, ok);
    EXPECT_TRUE(ok) << text;
}

// LU with partial pivoting (derive/pme/lu_piv.pme: P( p ) and the LU of the panel
// ( Ahat_TL ; Ahat_BL ) in the PME): 3 invariants (libflame's 3, 4, 5); 1 and 2 are
// infeasible because the panel's LU computes A_TL and A_BL together (a column's pivot
// needs the rows of A_BL); the updates are the step format's calls in its order: the
// current column swapped by p0 where the invariant keeps the right part unswapped,
// iamax, the row interchange across the blocks holding swapped rows, the zero-pivot
// check, the division; blocked, the inner call on ( A11 ; A21 ) with p1. After the
// loop (n > m), variant 3 swaps A_TR by p before its solve.
TEST(DeriveEngine, LuPivDerivedFromItsPmeMakesTheShippedStepsCalls)
{
    const fd::Pme pme = fd::load_operation("lu_piv");
    const fd::Derivation d = fd::derive_invariants(pme);
    ASSERT_EQ(d.invariants.size(), 3u);
    for (int n = 3; n <= 5; ++n) EXPECT_EQ(fd::find_variant(d, n).number, n);
    ASSERT_EQ(d.infeasible.size(), 2u);
    for (const fd::InfeasibleVariant& v : d.infeasible) {
        EXPECT_TRUE(v.number == 1 || v.number == 2) << v.number;
        EXPECT_NE(v.reason.find("the PME computes A_TL and A_BL together, as LU( ( Ahat_TL ; Ahat_BL ) )"), std::string::npos) << v.reason;
        EXPECT_NE(v.reason.find("the pivot of a column is the largest entry of all its rows below the diagonal, which lie in A_BL"),
                  std::string::npos)
            << v.reason;
    }
    EXPECT_THROW(fd::find_variant(d, 1), Error);
    expect_calls("lu_piv", kLuPivCalls);
    const std::vector<std::vector<std::string>> finishing = {
        {"apply_pivots(p, ATR)", "trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, ATL, ATR)"}, {}, {}};
    for (int n = 3; n <= 5; ++n) {
        std::vector<std::string> ours;
        for (const fd::Finish& f : fd::find_variant(d, n).finishes) ours.push_back(f.call.text());
        EXPECT_EQ(ours, finishing[static_cast<size_t>(n - 3)]) << "variant " << n;
    }
    // The states read the interchanged originals: variant 5's alpha11 before the update.
    const auto& before = fd::find_variant(d, 5).before[0];
    const bool found = std::any_of(before.begin(), before.end(), [](const std::vector<std::string>& c) {
        return c[2] == "alpha11 = alphabar11 - a10^T a01";
    });
    EXPECT_TRUE(found);
    bool ok = false;
    const std::string text = fd::check_pme(d, ok);
    EXPECT_TRUE(ok) << text;
    // Pivots outside P( ): an error at the block.
    std::string bad = slurp(kPme + "lu_piv.pme");
    const std::string from = "P( p_T ) ( Ahat_TR ; Ahat_BR )\n", to = "p_T Ahat_TR\n";
    ASSERT_NE(bad.find(from), std::string::npos);
    bad.replace(bad.find(from), from.size(), to);
    try {
        const fd::Pme b = fd::parse_pme(bad, "bad.pme");
        fd::derive_invariants(b);
        FAIL() << "derived";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("bad.pme:23:31: p_T: pivots appear only as P( p_T ) applied to a block"), std::string::npos) << e.what();
    }
}

// A description in the removed step format is an error naming the file, the line and
// the column of its first step-format statement.
TEST(DeriveEngine, TheStepFormatIsAClearError)
{
    const std::string text = "operation x\ntitle \"x\"\nindex m\n  task tl TL \"A_TL\"\n";
    try {
        fd::parse_pme(text, "old.pme");
        FAIL() << "parsed";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("old.pme:4:3: 'task' is not a statement of the PME format"), std::string::npos) << e.what();
    }
    try {
        fd::parse_pme("operation x\noperand A matrix 2x2 alpha\n", "old.pme");
        FAIL() << "parsed";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("old.pme:2:11: `operand NAME matrix ...` is the removed step format's"), std::string::npos) << e.what();
    }
    for (const char* keyword : {"step", "form", "finish", "guard", "underivable"}) {
        try {
            fd::parse_pme(std::string("operation x\n") + keyword + " tl\n", "old.pme");
            FAIL() << keyword;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("old.pme:2:1: '") + keyword + "' is not a statement of the PME format"),
                      std::string::npos)
                << e.what();
        }
    }
}

} // namespace
