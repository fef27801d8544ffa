// The worksheets as a LaTeX document: the same rows as the text worksheet
// (derive.cpp), typeset with the macros defined in the preamble below, so that the
// document needs nothing beyond Debian's texlive-latex-base.
#include <sstream>

#include "derive/derive.hpp"

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
\setlength{\textwidth}{17.5cm}
\setlength{\textheight}{24cm}
\setlength{\oddsidemargin}{-0.7cm}
\setlength{\topmargin}{-1.5cm}
\setlength{\parindent}{0pt}
\setlength{\parskip}{4pt}
% The worksheet's macros: a variant's heading, a step of the worksheet with its
% label, a line of a listing step, and an update with its BLAS operation.
\newcommand{\fxvariant}[2]{\section*{#1}{\small #2}\par}
\newenvironment{fxworksheet}{\begin{tabular}{@{}p{3.4cm}p{13.6cm}@{}}\hline}{\hline\end{tabular}}
\newcommand{\fxstep}[2]{\textbf{#1} & #2 \\}
\newcommand{\fxstate}[3]{\hspace*{1em}#1 & \makebox[2.5em][l]{#2}#3 \\}
\newcommand{\fxupdate}[2]{\hspace*{1em}\parbox[t]{3.2cm}{\raggedright #1} & #2 \\}
\newcommand{\fxtask}[3]{#1 & #2 & #3 \\}
)";

std::string fit(const std::string& s) { return s.size() > 90 ? s.substr(0, 87) + "..." : s; }

} // namespace

std::string emit_latex(const Derivation& d, bool blocked)
{
    const Pme& pme = *d.pme;
    std::ostringstream out;
    out << kPreamble << "\\title{" << tt(pme.title) << "\\\\ \\small derived by " << tt("flamex derive " + pme.name) << "}\n"
        << "\\date{}\n\\begin{document}\n\\maketitle\n";
    out << tt(pme.statement) << "\n\n\\section*{The PME}\n\\begin{tabular}{@{}lll@{}}\\hline\n";
    for (const Task& t : pme.tasks) {
        std::string needs;
        for (const Need& n : t.needs) needs += (needs.empty() ? "needs " : " ") + n.task;
        if (t.recursive) needs += " (the recursion)";
        std::string quadrants;
        for (const std::string& q : t.quadrants) quadrants += (quadrants.empty() ? "" : ",") + q;
        out << "\\fxtask{" << tt(t.name + "  " + quadrants) << "}{" << tt(fit(t.formula)) << "}{" << tt(needs) << "}\n";
    }
    out << "\\hline\\end{tabular}\n\n\\section*{Loop invariants: " << d.invariants.size() << " feasible}\n\\begin{itemize}\n";
    for (const Invariant& inv : d.invariants) {
        std::string tasks;
        for (const std::string& t : inv.tasks) tasks += (tasks.empty() ? "" : ", ") + t;
        out << "\\item " << (inv.number ? "variant " + std::to_string(inv.number) : std::string("unnumbered")) << ": "
            << tt("{" + tasks + "}") << " " << tt(libflame_name(pme, inv.number, blocked)) << " " << tt(inv.summary) << "\n";
    }
    for (const InfeasibleVariant& v : d.infeasible)
        out << "\\item variant " << v.number << " is infeasible: " << tt(v.reason) << "\n";
    out << "\\end{itemize}\n";
    for (const Invariant& inv : d.invariants) {
        const Worksheet w = worksheet(d, inv, blocked);
        out << "\n\\clearpage\n\\fxvariant{" << tt(w.title) << "}{" << tt(w.names) << "}\n\\begin{fxworksheet}\n";
        for (const WorksheetRow& r : w.rows) {
            if (!r.listing) {
                std::string text;
                for (const auto& cells : r.lines) text += (text.empty() ? "" : "\\newline ") + tt(cells[0]);
                out << "\\fxstep{" << tt(r.label) << "}{" << text << "}\n";
                continue;
            }
            out << "\\fxstep{" << tt(r.label) << "}{}\n";
            for (const auto& cells : r.lines) {
                if (cells.size() == 3)
                    out << "\\fxstate{" << tt(cells[0]) << "}{" << tt(cells[1]) << "}{" << tt(cells[2]) << "}\n";
                else if (cells.size() == 2)
                    out << "\\fxupdate{" << tt(cells[0]) << "}{" << tt(cells[1]) << "}\n";
                else
                    out << "\\fxupdate{}{" << tt(cells[0]) << "}\n";
            }
        }
        out << "\\end{fxworksheet}\n";
    }
    out << "\\end{document}\n";
    return out.str();
}

} // namespace flamex::derive
