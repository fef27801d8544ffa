// `flamex derive` end to end: golden text for LU and Cholesky, malformed descriptions
// reported with file, line and column, unknown operations and variants, infeasible
// variants.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/test_support.hpp"

namespace {

using flamex::test::run_program;
using flamex::test::ScratchDir;
using flamex::test::slurp;

const std::string kSource = FLAMEX_SOURCE_DIR;

// `diff -u golden actual`, for the failure message.
std::string unified_diff(const std::string& golden, const std::string& actual, const ScratchDir& scratch)
{
    const std::string path = scratch.path("actual.txt");
    std::ofstream(path) << actual;
    const auto d = run_program("diff", {"-u", golden, path}, scratch);
    return d.out;
}

void expect_golden(const std::string& op, const std::string& golden)
{
    ScratchDir scratch("derive-golden");
    const auto r = run_program(FLAMEX_CLI, {"derive", op}, scratch);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string expected = slurp(golden);
    ASSERT_FALSE(expected.empty()) << golden;
    EXPECT_TRUE(r.out == expected) << "`flamex derive " << op << "` differs from " << golden
                                   << " (if the change is intended, write the new output there):\n"
                                   << unified_diff(golden, r.out, scratch);
}

TEST(DeriveCli, LuTextIsTheGoldenOne) { expect_golden("lu", kSource + "/tests/golden/derive_lu.txt"); }
TEST(DeriveCli, CholTextIsTheGoldenOne) { expect_golden("chol", kSource + "/tests/golden/derive_chol.txt"); }
// The derived format's worksheets: the states before and after the update as the
// values of the 3x3 blocks (b1^T = lambda11^{-1} ( bhat1^T - l10^T B0 )).
TEST(DeriveCli, TrsmLlnTextIsTheGoldenOne) { expect_golden("trsm_lln", kSource + "/tests/golden/derive_trsm_lln.txt"); }
TEST(DeriveCli, TrmmLunTextIsTheGoldenOne) { expect_golden("trmm_lun", kSource + "/tests/golden/derive_trmm_lun.txt"); }

TEST(DeriveCli, ListsEveryOperationWithItsInvariantCounts)
{
    ScratchDir scratch("derive-list");
    const auto r = run_program(FLAMEX_CLI, {"derive", "--list"}, scratch);
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* line : {"lu_nopiv  LU without pivoting: 5 invariants", "lu_piv  LU with partial pivoting: 3 invariants",
                             "chol  Cholesky factorization (lower): 3 invariants", "trinv  Triangular inverse (lower, non-unit): 4 invariants",
                             "ldlt  LDL^T factorization (lower, unit L, D diagonal): 3 invariants",
                             "trsm_lln  Triangular solve L X = B (left, lower, no transpose): 4 invariants",
                             "trmm_lln  Triangular product B := L B (left, lower, no transpose): 4 invariants",
                             "trmm_lun  Triangular product B := U B (left, upper, no transpose): 4 invariants",
                             "trsm_lun  Triangular solve U X = B (left, upper, no transpose): 4 invariants",
                             "syrk_ln  Symmetric rank-k update C := C + A A^T (lower, no transpose): 6 invariants",
                             "chol_u  Cholesky factorization (upper): 3 invariants",
                             "trinv_un  Triangular inverse (upper, non-unit): 4 invariants",
                             "ttmm_l  Triangular transpose times triangle A := L^T L (lower): 3 invariants"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
    EXPECT_NE(r.out.find("variant 1  infeasible"), std::string::npos) << r.out;
}

// Bad input, as an unknown variant of `flamex lu`: exit status 2 with the reason.
TEST(DeriveCli, UnknownOperationOrVariantAndInfeasibleVariantFail)
{
    ScratchDir scratch("derive-bad");
    auto r = run_program(FLAMEX_CLI, {"derive", "qr"}, scratch);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("unknown operation 'qr' (known: chol, chol_u, ldlt, lu_nopiv, lu_piv, syrk_ln, trinv, trinv_un, trmm_lln, trmm_lun, trsm_lln, trsm_lun, ttmm_l)"), std::string::npos) << r.err;

    r = run_program(FLAMEX_CLI, {"derive", "chol", "--variant", "4"}, scratch);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("chol: no variant 4 (derived: 1, 2, 3)"), std::string::npos) << r.err;

    for (const char* v : {"1", "2"}) {
        r = run_program(FLAMEX_CLI, {"derive", "lu_piv", "--variant", v, "--emit", "cpp"}, scratch);
        EXPECT_EQ(r.status, 2);
        EXPECT_NE(r.err.find(std::string("lu_piv: variant ") + v), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("is infeasible: the PME computes A_TL and A_BL together, as LU( ( Ahat_TL ; Ahat_BL ) )"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("cannot be known without the rows of A_BL"), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty());
    }

    // trsm_lln's variants 3 and 4 partition B by columns (the PME's `pme n`), and run
    // in opposite directions: the engine derives both, and the direction.
    r = run_program(FLAMEX_CLI, {"derive", "trsm_lln"}, scratch);
    EXPECT_EQ(r.status, 0) << r.err;
    for (const char* line : {"variant 3   {B_L = L^{-1} Bhat_L; B_R = Bhat_R} n forward",
                             "variant 4   {B_L = Bhat_L; B_R = L^{-1} Bhat_R} n backward"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
    r = run_program(FLAMEX_CLI, {"derive", "trsm_lln", "--variant", "4", "--emit", "cpp"}, scratch);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("repart_1x2_to_1x3(BL, BR, 1, LEFT);"), std::string::npos) << r.out;

    r = run_program(FLAMEX_CLI, {"derive", "lu_nopiv", "--emit", "cpp"}, scratch);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--emit cpp needs --variant N"), std::string::npos) << r.err;
    r = run_program(FLAMEX_CLI, {"derive", "lu_nopiv", "--emit", "pdf"}, scratch);
    EXPECT_EQ(r.status, 2);
}

// A copy of lu_nopiv.pme with `from` replaced by `to`, in its own PME folder; the
// error must name the file, the line `to` is on, and the column of `marker` in it.
void expect_parse_error(const std::string& from, const std::string& to, const std::string& marker, const std::string& what)
{
    ScratchDir scratch("derive-pme");
    std::string text = slurp(kSource + "/derive/pme/lu_nopiv.pme");
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(scratch.path("lu_nopiv.pme")) << text;
    int line = 1;
    for (size_t i = 0; i < at; ++i) line += text[i] == '\n';
    const size_t line_start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
    const size_t marker_at = text.find(marker, at);
    ASSERT_NE(marker_at, std::string::npos);
    const int column = static_cast<int>(marker_at - line_start) + 1;
    const auto r = run_program(FLAMEX_CLI, {"derive", "lu_nopiv"}, scratch, "FLAMEX_PME_DIR=" + scratch.dir());
    EXPECT_EQ(r.status, 2) << r.out;
    const std::string where = scratch.path("lu_nopiv.pme") + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
    EXPECT_NE(r.err.find(where + what), std::string::npos) << "expected " << where << what << "\ngot: " << r.err;
}

TEST(DeriveCli, MalformedDescriptionsNameFileLineAndColumn)
{
    expect_parse_error("zero_pivot stop", "zero_pivto stop", "zero_pivto", "unknown keyword 'zero_pivto'");
    expect_parse_error("title \"LU without pivoting\"", "title \"LU without pivoting", "\"LU", "unterminated \"");
    expect_parse_error("pme m,n A_TR = L( A_TL )^{-1} Ahat_TR", "pme m,n A_TQ = L( A_TL )^{-1} Ahat_TR", "TQ", "'TQ' is not a quadrant");
    expect_parse_error("pme m,n A_TR = L( A_TL )^{-1} Ahat_TR", "pme m,n A_TR = L( A_TL )^{-1} Bhat_TR", "Bhat_TR", "unknown operand 'Bhat'");
    expect_parse_error("variant 2 \"up-looking", "variant 1 \"up-looking", "variant 1 \"up", "variant 1 declared twice");
    // The removed step format: its statements name themselves.
    expect_parse_error("zero_pivot stop", "task tl TL \"A_TL = L_TL U_TL\"", "task", "'task' is not a statement of the PME format");
    expect_parse_error("zero_pivot stop", "  step \"a01 := L00^{-1} a01\" after tl before tr : trsv(LOWER, NO_TRANSPOSE, UNIT, A00, a01)", "step",
                       "'step' is not a statement of the PME format");
}

// The derived format: a sign flipped in a PME equation; every derived update follows
// it, so --check-pme rejects the PME and lists its equations, the wrong one among them.
TEST(DeriveCli, CheckPmeRejectsADerivedPmeWithAFlippedSign)
{
    ScratchDir scratch("derive-mutant-derived");
    std::string text = slurp(kSource + "/derive/pme/chol.pme");
    const std::string from = "Chol( Ahat_BR - A_BL A_BL^T )", to = "Chol( Ahat_BR + A_BL A_BL^T )";
    ASSERT_NE(text.find(from), std::string::npos);
    text.replace(text.find(from), from.size(), to);
    std::ofstream(scratch.path("chol.pme")) << text;
    const auto r = run_program(FLAMEX_CLI, {"derive", "chol", "--check-pme"}, scratch, "FLAMEX_PME_DIR=" + scratch.dir());
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("the PME is wrong"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("A_BR = Chol( Ahat_BR + A_BL A_BL^T )"), std::string::npos) << r.out;
}

} // namespace

namespace {

TEST(DeriveCli, EveryShippedPmeMeetsItsDefinition)
{
    ScratchDir scratch("derive-check");
    for (const char* op : {"lu_nopiv", "lu_piv", "chol", "ldlt", "trinv", "trinv_un", "trsm_lln", "trsm_lun", "trmm_lln", "trmm_lun", "syrk_ln", "chol_u", "ttmm_l"}) {
        const auto r = run_program(FLAMEX_CLI, {"derive", op, "--check-pme"}, scratch);
        EXPECT_EQ(r.status, 0) << op << ":\n" << r.out << r.err;
        EXPECT_NE(r.out.find(std::string("check-pme ") + op + ": every variant satisfies"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("WRONG"), std::string::npos) << r.out;
    }
}

} // namespace

namespace {

// docs/derivation.md's walk-through ("Deriving a variant") runs as written: its bash block,
// with build/flamex this build's program and a scratch directory as the working
// directory, ends by finding the predicted bit identity.
TEST(DeriveCli, ReadmeWalkThroughRuns)
{
    const std::string readme = slurp(kSource + "/docs/derivation.md");
    const size_t section = readme.find("## Deriving a variant");
    ASSERT_NE(section, std::string::npos);
    const size_t open = readme.find("```bash\n", section);
    const size_t close = readme.find("```\n", open + 8);
    ASSERT_NE(open, std::string::npos);
    std::string script = readme.substr(open + 8, close - open - 8);
    const std::string program = FLAMEX_CLI;
    for (size_t at = script.find("build/flamex"); at != std::string::npos; at = script.find("build/flamex", at + program.size()))
        script.replace(at, std::string("build/flamex").size(), program);
    ScratchDir scratch("derive-readme");
    const auto r = run_program("bash", {"-c", "cd '" + scratch.dir() + "' && " + script}, scratch);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("variants 3 and 4: identical bits, as predicted"), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.err.find("lu_piv: variant 1 {A_TL = LU( ( Ahat_TL ; Ahat_BL ) ), A_BL = Ahat_BL"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cannot be known without the rows of A_BL"), std::string::npos) << r.err;
}

} // namespace

namespace {

// docs/derivation.md's "A new operation, from a blank PME file" runs as written: its
// bash blocks in order (build/flamex this build's program, a scratch folder the
// working directory) write the PME file step by step, derive the operation's four
// invariants, check them, emit one as C++ and run two on exact with the predicted
// bit identity. The operation is not shipped: this is the engine deriving it as is.
TEST(DeriveCli, NewOperationWalkThroughRuns)
{
    const std::string doc = slurp(kSource + "/docs/derivation.md");
    const size_t section = doc.find("## A new operation, from a blank PME file");
    ASSERT_NE(section, std::string::npos);
    const size_t next = doc.find("\n## ", section + 4);
    const std::string text = doc.substr(section, next == std::string::npos ? std::string::npos : next - section);
    std::string script = "set -e\n";
    int blocks = 0;
    for (size_t open = text.find("```bash\n"); open != std::string::npos; open = text.find("```bash\n", open + 8)) {
        const size_t close = text.find("```\n", open + 8);
        ASSERT_NE(close, std::string::npos);
        script += text.substr(open + 8, close - open - 8);
        ++blocks;
    }
    EXPECT_EQ(blocks, 5);
    const std::string program = FLAMEX_CLI;
    for (size_t at = script.find("build/flamex"); at != std::string::npos; at = script.find("build/flamex", at + program.size()))
        script.replace(at, std::string("build/flamex").size(), program);
    ScratchDir scratch("derive-new-operation");
    const auto r = run_program("bash", {"-c", "cd '" + scratch.dir() + "' && " + script}, scratch);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    for (const char* shown : {"Loop invariants: 4 feasible", "ger(1.0, b1, l10t, B0)",
                              "check-pme trmm_rln: every variant satisfies", "{1} {2} {3, 4}", "blas.ger(1.0, b1, l10t, B0);",
                              "variants 3 and 4 on exact: identical bits, as --roundings predicts",
                              "variant 2: other bits, as predicted"})
        EXPECT_NE(r.out.find(shown), std::string::npos) << "'" << shown << "' not in:\n" << r.out << r.err;
    EXPECT_EQ(slurp(kSource + "/derive/pme/trmm_rln.pme"), "") << "the walk-through's operation is not a shipped one";
}

} // namespace
