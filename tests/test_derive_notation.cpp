// derive/notation: the worksheet's text notation parsed once and rendered as LaTeX
// math and MathML. The spellings FLAME's worksheets use for one thing render alike
// (ATL and A_TL, a10t and a10^T, Ahat and Â); the partitioned matrices get their
// partition lines; unknown text stays text and never throws; and every page
// `flamex derive --emit html` writes is well-formed XML whose formulas hold only
// MathML elements with their number of children (the browser test,
// derive_html_chromium, lays them out; this one runs without a browser).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "derive/emit_html.hpp"
#include "derive/notation.hpp"
#include "support/test_support.hpp"

namespace {

using flamex::derive::notation::latex;
using flamex::derive::notation::mathml;

TEST(DeriveNotation, FlameSpellingsOfOneBlockRenderAlike)
{
    const std::vector<std::pair<std::string, std::string>> same = {
        {"ATL", "A_TL"},     {"a10t", "a10^T"},   {"Ahat", "\u00c2"},       {"uhat01", "\u00fb01"},
        {"LTL", "L_{TL}"},   {"pT", "p_T"},       {"A\u0302", "Ahat"},      {"alpha11", "alpha_11"},
        {"BB", "B_B"},       {"a12t", "a12^{T}"},     {"Bhat_T", "B\u0302_T"},
    };
    for (const auto& [a, b] : same) {
        EXPECT_EQ(latex(a), latex(b)) << a << " vs " << b;
        EXPECT_EQ(mathml(a), mathml(b)) << a << " vs " << b;
    }
}

TEST(DeriveNotation, LatexOfTheWorksheetsNotation)
{
    const std::map<std::string, std::string> expected = {
        {"A_TL", "A_{TL}"},
        {"a10t", "a_{10}^{T}"},
        {"alpha11 := sqrt( alpha11 )", "\\alpha_{11} \\mathrel{:=} \\sqrt{\\alpha_{11}}"},
        {"Ahat", "\\hat{A}"},
        {"alphahat11 - a10^T a01", "\\hat{\\alpha}_{11} - a_{10}^{T} a_{01}"},
        {"L00^{-1} a01", "L_{00}^{- 1} a_{01}"},
        {"{L\\U}_TL", "{\\left\\{ L \\backslash U \\right\\}}_{TL}"},
        {"( ATL ATR ; ABL ABR )", "\\left(\\begin{array}{c|c} A_{TL} & A_{TR} \\\\ \\hline A_{BL} & A_{BR} \\end{array}\\right)"},
        {"( x ; y )", "\\left(\\begin{array}{c} x \\\\ \\hline y \\end{array}\\right)"},
        {"( A00 a01 A02 ; a10^T alpha11 a12^T ; A20 a21 A22 )",
         "\\left(\\begin{array}{c|c|c} A_{00} & a_{01} & A_{02} \\\\ \\hline a_{10}^{T} & \\alpha_{11} & a_{12}^{T} \\\\ \\hline A_{20} & "
         "a_{21} & A_{22} \\end{array}\\right)"},
        // A product in parentheses is not a partitioning (blocks of different matrices).
        {"( L00 a01 )", "\\left( L_{00} a_{01} \\right)"},
        {"A_BR := A_BR - L_BL U_TR", "A_{BR} \\mathrel{:=} A_{BR} - L_{BL} U_{TR}"},
        {"alpha11 is 1 x 1", "\\alpha_{11} \\mbox{ is } 1 \\times 1"},
        {"as it was", "\\mbox{as it was }"},
    };
    for (const auto& [text, tex] : expected) EXPECT_EQ(latex(text), tex) << text;
}

TEST(DeriveNotation, PartitionLinesBetweenEveryBlock)
{
    const std::string m = mathml("( A00 a01 A02 ; a10t alpha11 a12t ; A20 a21 A22 )");
    size_t right = 0, below = 0;
    for (size_t at = m.find("fx-r"); at != std::string::npos; at = m.find("fx-r", at + 1)) ++right;
    for (size_t at = m.find("fx-b"); at != std::string::npos; at = m.find("fx-b", at + 1)) ++below;
    EXPECT_EQ(right, 6u) << m; // two lines between three columns, in three rows
    EXPECT_EQ(below, 6u) << m;
    EXPECT_NE(m.find("<mi>\u03b1</mi>"), std::string::npos) << m;
}

// Text the grammar does not know stays as written, never throws, and LaTeX gets no
// character outside ASCII.
TEST(DeriveNotation, UnknownTextIsKeptAsText)
{
    for (const std::string s : {"#$%^&~_", "( a", "a )", "}{", "\u00e9t\u00e9 \u2203 x", "^", "_", "((((", "a^", "x_", ""}) {
        const std::string tex = latex(s), ml = mathml(s);
        for (const char c : tex) EXPECT_LT(static_cast<unsigned char>(c), 0x80u) << s << " -> " << tex;
        EXPECT_EQ(ml.find("merror"), std::string::npos) << ml;
    }
    // Nesting past any stack: brackets and scripts within scripts beyond a depth are text.
    std::string deep_groups(100000, '('), deep_scripts;
    for (int k = 0; k < 20000; ++k) deep_scripts += "a^{";
    for (const std::string& s : {deep_groups, deep_scripts, deep_groups + std::string(100000, ')')}) {
        EXPECT_FALSE(latex(s).empty());
        EXPECT_FALSE(mathml(s).empty());
    }
    EXPECT_NE(mathml("\u00e9t\u00e9").find("<mtext>\u00e9t\u00e9"), std::string::npos) << mathml("\u00e9t\u00e9");
    EXPECT_EQ(latex("x # y"), "x \\mbox{ \\# } y");
}

// Rows 6 and 7 drawn as FLAME draws them, from a worksheet in the notation the
// derivation engine writes ("block = value"): each value in its block of the 3x3
// repartitioning, an unlisted block as *, and a state too long for a block listed.
TEST(DeriveNotation, StatesDrawnInTheRepartitionedMatrix)
{
    using flamex::derive::Worksheet;
    using flamex::derive::WorksheetRow;
    Worksheet w;
    w.rows.push_back({"5a repartitioning", false, {{"( ATL ATR ; ABL ABR ) -> ( A00 a01 A02 ; a10^T alpha11 a12^T ; A20 a21 A22 )"}, {"alpha11 is 1 x 1"}}});
    w.rows.push_back({"7  after the update", true,
                      {{"A00", "TL", "A00 = {L\\U}00"}, {"a01", "TL", "a01 = uhat01"}, {"a10^T", "TL", "a10t = l10^T"},
                       {"alpha11", "TL", "alpha11 = upsilon11"}, {"A20", "BL", "A20 = Ahat20"}, {"a21", "BL", "a21 = ahat21"},
                       {"A22", "BR", "as it was"}}});
    const auto drawings = flamex::derive::state_drawings(w, w.rows.back());
    ASSERT_EQ(drawings.size(), 1u);
    EXPECT_EQ(latex(drawings.front()),
              "\\left(\\begin{array}{c|c|c} {\\left\\{ L \\backslash U \\right\\}}_{00} & \\hat{u}_{01} & \\ast \\\\ \\hline l_{10}^{T} & "
              "\\upsilon_{11} & \\ast \\\\ \\hline \\hat{A}_{20} & \\hat{a}_{21} & \\mbox{as it was } \\end{array}\\right)");
    w.rows.back().lines[1][2] = "a01 = " + std::string(60, 'x');
    EXPECT_TRUE(flamex::derive::state_drawings(w, w.rows.back()).empty());
}

// A minimal XML reader: the page's tags balance, and within <math> every element is
// MathML and every scripted element has its number of children.
struct XmlCheck {
    std::string error;
    size_t formulas = 0;

    void run(const std::string& page)
    {
        static const std::map<std::string, size_t> arity = {{"msub", 2}, {"msup", 2}, {"msubsup", 3}, {"mover", 2}};
        static const std::vector<std::string> mathml_names = {"math",  "mrow",  "mi",    "mn",  "mo",      "mtext",
                                                              "msub",  "msup",  "msubsup", "mover", "msqrt", "mtable",
                                                              "mtr",   "mtd"};
        struct Open {
            std::string name;
            size_t children = 0;
        };
        std::vector<Open> stack;
        int in_math = 0;
        for (size_t at = page.find('<'); at != std::string::npos; at = page.find('<', at + 1)) {
            if (page.compare(at, 2, "<!") == 0) continue;
            const size_t end = page.find('>', at);
            if (end == std::string::npos) return fail("unterminated tag", at, page);
            std::string tag = page.substr(at + 1, end - at - 1);
            const bool closing = tag[0] == '/';
            std::string name = tag.substr(closing ? 1 : 0, tag.find_first_of(" />", closing ? 1 : 0) - (closing ? 1 : 0));
            if (name == "meta") continue;
            if (!closing) {
                if (!stack.empty()) ++stack.back().children;
                if (name == "math") ++formulas, ++in_math;
                if (in_math && std::find(mathml_names.begin(), mathml_names.end(), name) == mathml_names.end())
                    return fail("not MathML: <" + name + ">", at, page);
                stack.push_back({name});
                continue;
            }
            if (stack.empty() || stack.back().name != name) return fail("unbalanced </" + name + ">", at, page);
            const auto a = arity.find(name);
            if (a != arity.end() && stack.back().children != a->second)
                return fail("<" + name + "> with " + std::to_string(stack.back().children) + " children", at, page);
            if (name == "math") --in_math;
            stack.pop_back();
        }
        if (!stack.empty()) error = "<" + stack.back().name + "> not closed";
    }
    void fail(const std::string& what, size_t at, const std::string& page)
    {
        error = what + " near: " + page.substr(at > 200 ? at - 200 : 0, 300);
    }
};

TEST(DeriveNotation, EveryPageIsWellFormedMathml)
{
    for (const std::string& name : flamex::derive::operation_names()) {
        const flamex::derive::Pme pme = flamex::derive::load_operation(name);
        const flamex::derive::Derivation d = flamex::derive::derive_invariants(pme);
        for (const bool blocked : {false, true}) {
            if (blocked && !pme.has_blocked()) continue;
            XmlCheck check;
            check.run(flamex::derive::emit_html(d, blocked));
            EXPECT_EQ(check.error, "") << name << (blocked ? " blocked" : "");
            EXPECT_GT(check.formulas, 20u) << name;
        }
    }
}

// The command line: --emit html writes one self-contained page (no script, nothing
// fetched), --site a page per operation and form and an index linking them all; a
// family (lu) is bad usage for --emit html, as for --emit latex.
TEST(DeriveNotation, EmitHtmlAndSiteFromTheCommandLine)
{
    using flamex::test::run_program;
    using flamex::test::slurp;
    flamex::test::ScratchDir scratch("derive-html");
    auto r = run_program(FLAMEX_CLI, {"derive", "lu_piv", "--emit", "html", "-o", scratch.path("lu_piv.html")}, scratch);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string page = slurp(scratch.path("lu_piv.html"));
    EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
    for (const char* absent : {"<script", "http:", "https:", "<link", "<img", "@import"})
        EXPECT_EQ(page.find(absent), std::string::npos) << absent;
    for (const char* present : {"variant 3", "FLA_LU_piv_unb_var3", "infeasible: the PME computes A_TL and A_BL together", "lu_piv_unb_var4(const Blas&"})
        EXPECT_NE(page.find(present), std::string::npos) << present;

    r = run_program(FLAMEX_CLI, {"derive", "--site", scratch.path("site")}, scratch);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string index = slurp(scratch.path("site/index.html"));
    for (const std::string& name : flamex::derive::operation_names()) {
        EXPECT_NE(index.find("href=\"" + name + ".html\""), std::string::npos) << name;
        EXPECT_FALSE(slurp(scratch.path("site/" + name + ".html")).empty()) << name;
    }
    EXPECT_NE(index.find("href=\"lu_piv_blk.html\""), std::string::npos);
    EXPECT_FALSE(slurp(scratch.path("site/lu_piv_blk.html")).empty());

    r = run_program(FLAMEX_CLI, {"derive", "lu", "--emit", "html"}, scratch);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("names several operations"), std::string::npos) << r.err;
}

} // namespace
