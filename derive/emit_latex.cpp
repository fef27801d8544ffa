// The worksheets as a LaTeX document: the same rows as the text worksheet
// (derive.cpp), typeset with the macros defined in the preamble below, so that the
// document needs nothing beyond Debian's texlive-latex-base. The formulas go through
// derive/notation.hpp, as the web pages' do: subscripts, hats, transposes, and the
// partitioned matrices as arrays with FLAME's partition lines; the states before and
// after the update drawn in the 3x3 repartitioning when they fit in its blocks.
#include <sstream>

#include "derive/derive.hpp"
#include "derive/emit_html.hpp"
#include "derive/notation.hpp"

namespace flamex::derive {

namespace {

// Text as it reads, in typewriter type: every character LaTeX treats specially escaped.
std::string tt(const std::string& s)
{
    std::string out;
    for (const char c : s) {
        switch (c) {
        case '\\': out += "\\textbackslash{}"; break;
        case '{': out += "\\{"; break;
        case '}': out += "\\}"; break;
        case '^': out += "\\^{}"; break;
        case '_': out += "\\_"; break;
        case '&': out += "\\&"; break;
        case '%': out += "\\%"; break;
        case '$': out += "\\$"; break;
        case '#': out += "\\#"; break;
        case '~': out += "\\~{}"; break;
        case '<': out += "\\textless{}"; break;
        case '>': out += "\\textgreater{}"; break;
        case '|': out += "\\textbar{}"; break;
        default: out += c;
        }
    }
    return "\\texttt{" + out + "}";
}

const char* kPreamble = R"(\documentclass[10pt]{article}
\usepackage{longtable}
\setlength{\textwidth}{17.5cm}
\setlength{\textheight}{24cm}
\setlength{\oddsidemargin}{-0.7cm}
\setlength{\topmargin}{-1.5cm}
\setlength{\parindent}{0pt}
\setlength{\parskip}{4pt}
% The worksheet's macros: a variant's heading, a step of the worksheet with its
% label, a line of a listing step, a drawing of the states, and an update with its
% BLAS operation; the worksheet is a longtable (texlive-latex-base's tools), which
% breaks across pages.
\newcommand{\fxvariant}[2]{\section*{#1}{\small #2}\par}
\newenvironment{fxpme}{\begin{tabular}{@{}llp{9.5cm}l@{}}\hline}{\hline\end{tabular}}
\newcommand{\fxstep}[2]{\textbf{#1} & #2 \\}
\newcommand{\fxstate}[3]{\hspace*{1em}#1 & \makebox[2.5em][l]{#2}#3 \\}
\newcommand{\fxdrawing}[1]{\hspace*{1em} & \rule{0pt}{3ex}#1 \\[0.5ex]}
\newcommand{\fxupdate}[2]{ & #1 \hfill {\footnotesize #2} \\}
\newcommand{\fxtask}[4]{#1 & #2 & #3 & #4 \\[0.4ex]}
)";

// A formula in text: $...$.
std::string math(const std::string& s) { return "$" + notation::latex(s) + "$"; }

} // namespace

std::string emit_latex(const Derivation& d, bool blocked)
{
    const Pme& pme = *d.pme;
    std::ostringstream out;
    out << kPreamble << "\\title{" << tt(pme.title) << "\\\\ \\small derived by " << tt("flamex derive " + pme.name) << "}\n"
        << "\\date{}\n\\begin{document}\n\\maketitle\n";
    out << tt(pme.statement) << "\n\n\\section*{The PME}\n\\begin{fxpme}\n";
    // The operation and its PME's block equations, per index space the loop may partition.
    out << "\\fxtask{}{}{" << math(equation_text(pme.definition_lhs, pme.definition_rhs)) << "}{}\n";
    for (const Equation& e : pme.equations) out << "\\fxtask{}{" << tt(e.index) << "}{" << math(equation_text(e.lhs, e.rhs)) << "}{}\n";
    out << "\\end{fxpme}\n\n\\section*{Loop invariants: " << d.invariants.size() << " feasible}\n\\begin{itemize}\n";
    for (const Invariant& inv : d.invariants) {
        out << "\\item " << (inv.number ? "variant " + std::to_string(inv.number) : std::string("unnumbered")) << ": "
            << tt(inv.index + (inv.backward ? " backward" : " forward")) << " " << tt(libflame_name(pme, inv.number, blocked)) << " "
            << tt(inv.summary) << "\\\\\n";
        for (size_t i = 0; i < inv.holds.size(); ++i)
            out << (i ? ", " : "") << math(equation_text(inv.holds[i].first, inv.holds[i].second));
        out << "\n";
    }
    for (const InfeasibleVariant& v : d.infeasible)
        out << "\\item variant " << v.number << " is infeasible: " << tt(v.reason) << "\n";
    out << "\\end{itemize}\n";
    for (const Invariant& inv : d.invariants) {
        const Worksheet w = worksheet(d, inv, blocked);
        out << "\n\\clearpage\n\\fxvariant{" << tt(w.title) << "}{" << tt(w.names) << "}\n\\begin{longtable}{@{}p{2.9cm}p{14.4cm}@{}}\\hline\n";
        for (const WorksheetRow& r : w.rows) {
            if (!r.listing) {
                std::string text;
                for (const auto& cells : r.lines) text += (text.empty() ? "" : "\\newline ") + math(cells[0]);
                out << "\\fxstep{" << tt(r.label) << "}{" << text << "}\n";
                continue;
            }
            out << "\\fxstep{" << tt(r.label) << "}{}\n";
            const std::vector<notation::Node> drawings = state_drawings(w, r);
            for (const notation::Node& drawing : drawings) out << "\\fxdrawing{$" << notation::latex(drawing) << "$}\n";
            if (!drawings.empty()) continue;
            for (const auto& cells : r.lines) {
                if (cells.size() == 3)
                    out << "\\fxstate{" << math(cells[0]) << "}{" << tt(cells[1]) << "}{" << math(cells[2]) << "}\n";
                else if (cells.size() == 2)
                    out << "\\fxupdate{" << math(cells[0]) << "}{" << tt(cells[1]) << "}\n";
                else
                    out << "\\fxupdate{}{" << math(cells[0]) << "}\n";
            }
        }
        out << "\\hline\\end{longtable}\n";
    }
    out << "\\end{document}\n";
    return out.str();
}

} // namespace flamex::derive
