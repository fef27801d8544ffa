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

// LU without pivoting in the derived format (derive/pme/lu_nopiv.pme, A m x n, its rows
// and columns partitioned together: `pme m,n`): the engine derives the 5 invariants,
// and each variant's updates are the calls of the step-format description it replaced
// (tests/pme/lu_nopiv_steps.pme), in the same order, both forms (the blocked inner
// call's pivot argument aside: the derived one passes the operands only).
TEST(DeriveEngine, LuNopivDerivedFromItsPmeMakesTheShippedStepsCalls)
{
    const fd::Pme derived = fd::load_operation("lu_nopiv");
    const fd::Pme steps = fd::read_pme(std::string(FLAMEX_SOURCE_DIR) + "/tests/pme/lu_nopiv_steps.pme");
    ASSERT_TRUE(derived.derived);
    const fd::Derivation d = fd::derive_invariants(derived), s = fd::derive_invariants(steps);
    ASSERT_EQ(d.invariants.size(), 5u);
    for (int n = 1; n <= 5; ++n)
        for (const bool blocked : {false, true}) {
            const auto ours = fd::updates(derived, fd::find_variant(d, n), blocked);
            const auto theirs = fd::updates(steps, fd::find_variant(s, n), blocked);
            std::vector<std::string> a, b;
            for (const fd::Step* x : ours) a.push_back(x->call.text());
            for (const fd::Step* x : theirs) b.push_back(x->call.name == "inner" ? "inner(" + x->call.args[0].text() + ")" : x->call.text());
            EXPECT_EQ(a, b) << "variant " << n << (blocked ? " blocked" : " unblocked");
        }
}

// m != n: the loop ends when either dimension does, leaving A_BL (m > n) or A_TR
// (n > m); the engine derives the updates that take that quadrant from the
// invariant's value to the PME's (trsm with U( A_TL ) or L( A_TL )), only for the
// invariants that do not already hold it final: the step format's `finish` lines,
// variant by variant. --check-pme runs them on the 7x4 and 4x7 inputs.
TEST(DeriveEngine, LuNopivRectangularFinishingUpdatesAreDerived)
{
    const fd::Pme derived = fd::load_operation("lu_nopiv");
    const fd::Pme steps = fd::read_pme(std::string(FLAMEX_SOURCE_DIR) + "/tests/pme/lu_nopiv_steps.pme");
    const fd::Derivation d = fd::derive_invariants(derived), s = fd::derive_invariants(steps);
    const std::string bl = "trsm(RIGHT, UPPER, NO_TRANSPOSE, NONUNIT, 1.0, ATL, ABL)", tr = "trsm(LEFT, LOWER, NO_TRANSPOSE, UNIT, 1.0, ATL, ATR)";
    const std::vector<std::vector<std::string>> expected = {{bl, tr}, {bl}, {tr}, {}, {}};
    for (int n = 1; n <= 5; ++n) {
        const fd::Invariant& inv = fd::find_variant(d, n);
        std::vector<std::string> ours, theirs;
        for (const fd::Finish* f : fd::finishes(derived, inv)) ours.push_back(f->call.text());
        for (const fd::Finish* f : fd::finishes(steps, fd::find_variant(s, n))) theirs.push_back(f->call.text());
        EXPECT_EQ(ours, expected[static_cast<size_t>(n - 1)]) << "variant " << n;
        EXPECT_EQ(ours, theirs) << "variant " << n;
        for (const fd::Finish* f : fd::finishes(derived, inv))
            EXPECT_EQ(f->quadrant, f->call.text() == bl ? "BL" : "TR") << "variant " << n;
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

// LDL^T in the derived format (derive/pme/ldlt.pme: D( X ) the diagonal of X, the PME
// A_BL = Ahat_BL L( A_TL )^{-T} D( A_TL )^{-1}): the engine derives the 3 invariants,
// and each variant's updates are the calls of the step-format description it replaced
// (tests/pme/ldlt_steps.pme), in the same order: the abstract BLAS's diag_invscal,
// diag_dots and diag_gemv for the products with D( A00 ), the syrk scaled by -alpha11.
TEST(DeriveEngine, LdltDerivedFromItsPmeMakesTheShippedStepsCalls)
{
    const fd::Pme derived = fd::load_operation("ldlt");
    const fd::Pme steps = fd::read_pme(std::string(FLAMEX_SOURCE_DIR) + "/tests/pme/ldlt_steps.pme");
    ASSERT_TRUE(derived.derived);
    EXPECT_FALSE(derived.has_blocked());
    const fd::Derivation d = fd::derive_invariants(derived), s = fd::derive_invariants(steps);
    ASSERT_EQ(d.invariants.size(), 3u);
    for (int n = 1; n <= 3; ++n) {
        std::vector<std::string> a, b;
        for (const fd::Step* x : fd::updates(derived, fd::find_variant(d, n), false)) a.push_back(x->call.text());
        for (const fd::Step* x : fd::updates(steps, fd::find_variant(s, n), false)) b.push_back(x->call.text());
        EXPECT_EQ(a, b) << "variant " << n;
    }
    const std::vector<std::string> v3 = {"check(alpha11)", "invscal(alpha11, a21)", "syrk(LOWER, NO_TRANSPOSE, -alpha11, a21, 1.0, A22)"};
    std::vector<std::string> ours;
    for (const fd::Step* x : fd::updates(derived, fd::find_variant(d, 3), false)) ours.push_back(x->call.text());
    EXPECT_EQ(ours, v3);
    bool ok = false;
    const std::string text = fd::check_pme(d, ok);
    EXPECT_TRUE(ok) << text;
}

// The triangular inverse in the derived format (derive/pme/trinv.pme: A_BL =
// -Ahat_BR^{-1} Ahat_BL A_TL): the product's partial results in either order with the
// negation folded in (-L_BL X_TL for variant 3, -L_BR^{-1} L_BL for variant 4), the
// terms factored into other blocks' states (A20 := A20 + a21 a10^T reads a21 after its
// update and a10^T before its own), the negation with a block's last stage (a trsm's
// alpha of -1 blocked): each variant, both forms, makes the step-format description's
// calls (tests/pme/trinv_steps.pme) in the same order.
TEST(DeriveEngine, TrinvDerivedFromItsPmeMakesTheShippedStepsCalls)
{
    const fd::Pme derived = fd::load_operation("trinv");
    const fd::Pme steps = fd::read_pme(std::string(FLAMEX_SOURCE_DIR) + "/tests/pme/trinv_steps.pme");
    ASSERT_TRUE(derived.derived);
    const fd::Derivation d = fd::derive_invariants(derived), s = fd::derive_invariants(steps);
    ASSERT_EQ(d.invariants.size(), 4u);
    for (int n = 1; n <= 4; ++n)
        for (const bool blocked : {false, true}) {
            std::vector<std::string> a, b;
            for (const fd::Step* x : fd::updates(derived, fd::find_variant(d, n), blocked)) a.push_back(x->call.text());
            for (const fd::Step* x : fd::updates(steps, fd::find_variant(s, n), blocked)) b.push_back(x->call.text());
            EXPECT_EQ(a, b) << "variant " << n << (blocked ? " blocked" : " unblocked");
        }
    std::vector<std::string> v3;
    for (const fd::Step* x : fd::updates(derived, fd::find_variant(d, 3), false)) v3.push_back(x->call.text());
    EXPECT_EQ(v3, (std::vector<std::string>{"scal(-1.0, a21)", "invscal(alpha11, a21)", "ger(1.0, a21, a10t, A20)", "invscal(alpha11, a10t)",
                                            "reciprocal(alpha11)"}));
    bool ok = false;
    const std::string text = fd::check_pme(d, ok);
    EXPECT_TRUE(ok) << text;
}

} // namespace
