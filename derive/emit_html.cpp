// The worksheets as a web page: the rows of derive.hpp's Worksheet, every formula
// through derive/notation.hpp as MathML; the states before and after the update drawn
// as FLAME draws them, the 3x3 repartitioned operand with each block's state in its
// place and the partition lines between the blocks.
#include "derive/emit_html.hpp"

#include <sstream>

#include "derive/notation.hpp"

namespace flamex::derive {

namespace {

using notation::mathml;
using notation::Node;
using notation::xml_escape;

const char* kStyle = R"(
body { font-family: "DejaVu Sans", sans-serif; margin: 1.5em 2em; color: #111; max-width: 110em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin: 1.6em 0 0.3em; border-bottom: 1px solid #999; }
p.names { margin: 0 0 0.6em; color: #444; font-size: 0.9em; }
table { border-collapse: collapse; }
table.list td, table.list th { padding: 0.25em 0.8em 0.25em 0; text-align: left; vertical-align: top; }
table.list th { border-bottom: 1px solid #999; font-weight: normal; color: #444; }
.ws { display: flex; flex-wrap: wrap; gap: 2em; align-items: flex-start; }
table.worksheet { border: 1px solid #444; }
table.worksheet > tbody > tr > td { border-top: 1px solid #bbb; padding: 0.35em 0.7em; vertical-align: top; }
table.worksheet td.step { white-space: nowrap; font-weight: bold; font-size: 0.9em; }
table.worksheet div.line { margin: 0.15em 0; }
table.states td { padding: 0.1em 0.7em 0.1em 0; vertical-align: top; }
.ws > table { flex: 0 0 auto; }
.ws > pre { flex: 1 1 28em; min-width: 0; }
pre { background: #f5f5f0; border: 1px solid #ccc; padding: 0.8em; font-size: 0.78em; margin: 0; overflow-x: auto; }
code { font-size: 0.9em; }
.infeasible { color: #8a1c1c; }
math { font-size: 1.1em; }
mtable.fx-part > mtr > mtd { padding: 0.15em 0.45em; }
mtd.fx-r { border-right: 1px solid #000; }
mtd.fx-b { border-bottom: 1px solid #000; }
)";

std::string braces(const std::vector<std::string>& items)
{
    std::string s = "{";
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
    return s + "}";
}

std::string head(const std::string& title)
{
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + xml_escape(title) + "</title>\n<style>" +
           kStyle + "</style>\n</head>\n<body>\n";
}

constexpr size_t kLongestDrawnState = 48;

// The block the notation writes `name` as, as a key: its MathML.
std::string key(const Node& n) { return notation::mathml(n); }

// The last partitioned matrix of a line: ( ATL ATR ; ABL ABR ) -> ( A00 a01 A02 ; ... ).
const Node* last_matrix(const Node& row)
{
    const Node* found = nullptr;
    for (const Node& n : row.children)
        if (n.kind == Node::Kind::Matrix) found = &n;
    return found;
}

} // namespace

std::vector<notation::Node> state_drawings(const Worksheet& w, const WorksheetRow& states)
{
    std::vector<Node> grids;
    for (const WorksheetRow& r : w.rows)
        if (r.label.rfind("5a", 0) == 0)
            for (const auto& cells : r.lines) {
                const Node line = notation::parse(cells.front());
                if (const Node* m = last_matrix(line)) grids.push_back(*m);
            }
    if (grids.empty() || states.lines.empty()) return {};
    std::vector<std::vector<std::vector<bool>>> filled;
    for (Node& g : grids) {
        filled.emplace_back();
        for (auto& row : g.cells) filled.back().emplace_back(row.size(), false);
    }
    std::vector<bool> used(grids.size(), false);
    for (const auto& cells : states.lines) {
        // A state too long to sit in a block of the drawing (the worksheet lists it instead).
        if (cells.size() != 3 || cells[2].size() > kLongestDrawnState) return {};
        const std::string name = key(notation::parse(cells[0]));
        bool placed = false;
        for (size_t g = 0; g < grids.size() && !placed; ++g)
            for (size_t r = 0; r < grids[g].cells.size() && !placed; ++r)
                for (size_t c = 0; c < grids[g].cells[r].size() && !placed; ++c)
                    if (!filled[g][r][c] && key(grids[g].cells[r][c]) == name) {
                        // "a01 = uhat01" in the block a01 is its value, uhat01, as FLAME draws it.
                        Node state = notation::parse(cells[2]);
                        if (state.children.size() > 2 && key(state.children[0]) == name && state.children[1].kind == Node::Kind::Op &&
                            state.children[1].text == "=")
                            state.children.erase(state.children.begin(), state.children.begin() + 2);
                        grids[g].cells[r][c] = std::move(state);
                        filled[g][r][c] = placed = used[g] = true;
                    }
        if (!placed) return {};
    }
    std::vector<Node> drawings;
    for (size_t g = 0; g < grids.size(); ++g) {
        if (!used[g]) continue; // an operand with no states listed (the pivots)
        for (size_t r = 0; r < grids[g].cells.size(); ++r)
            for (size_t c = 0; c < grids[g].cells[r].size(); ++c)
                if (!filled[g][r][c]) {
                    grids[g].cells[r][c] = Node{};
                    grids[g].cells[r][c].kind = Node::Kind::Op;
                    grids[g].cells[r][c].text = "\u2217";
                }
        drawings.push_back(std::move(grids[g]));
    }
    return drawings;
}

namespace {

std::string row_html(const Worksheet& w, const WorksheetRow& r)
{
    std::string body;
    if (!r.listing) {
        for (const auto& cells : r.lines) body += "<div class=\"line\">" + mathml(cells.front()) + "</div>";
    } else if (!r.lines.empty() && r.lines.front().size() == 3) {
        for (const Node& drawing : state_drawings(w, r)) body += "<div class=\"line\">" + mathml(drawing, true) + "</div>";
        if (body.empty()) {
            body = "<table class=\"states\">";
            for (const auto& cells : r.lines)
                body += "<tr><td>" + mathml(cells[0]) + "</td><td>" + xml_escape(cells[1]) + "</td><td>" + mathml(cells[2]) + "</td></tr>";
            body += "</table>";
        }
    } else {
        body = "<table class=\"states\">";
        for (const auto& cells : r.lines) {
            if (cells.size() == 2)
                body += "<tr><td>" + mathml(cells[0]) + "</td><td><code>" + xml_escape(cells[1]) + "</code></td></tr>";
            else
                body += "<tr><td colspan=\"2\">" + mathml(cells.front()) + "</td></tr>";
        }
        body += "</table>";
    }
    return "<tr><td class=\"step\">" + xml_escape(r.label) + "</td><td>" + body + "</td></tr>\n";
}

} // namespace

std::string html_page_name(const std::string& operation, bool blocked) { return operation + (blocked ? "_blk" : "") + ".html"; }

std::string emit_html(const Derivation& d, bool blocked)
{
    const Pme& pme = *d.pme;
    std::ostringstream out;
    out << head("flamex derive " + pme.name + (blocked ? " --blocked" : "") + ": " + pme.title);
    out << "<h1>" << xml_escape(pme.title) << "</h1>\n<p class=\"names\">" << xml_escape("flamex derive " + pme.name) << " ("
        << (blocked ? "blocked" : "unblocked") << ")</p>\n<p>" << xml_escape(pme.statement) << "</p>\n";

    // The operation and its PME's block equations, per index space the loop may partition.
    out << "<h2>The PME</h2>\n<p>" << mathml(equation_text(pme.definition_lhs, pme.definition_rhs))
        << "</p>\n<table class=\"list\"><tr><th>partitioning</th><th>equation</th></tr>\n";
    for (const Equation& e : pme.equations)
        out << "<tr><td>" << xml_escape(e.index) << "</td><td>" << mathml(equation_text(e.lhs, e.rhs)) << "</td></tr>\n";
    out << "</table>\n";

    out << "<h2>Loop invariants: " << d.invariants.size() << " feasible</h2>\n<table class=\"list\">"
        << "<tr><th>variant</th><th>holds</th><th>libflame</th><th></th><th>invariant</th></tr>\n";
    for (const Invariant& inv : d.invariants) {
        std::string formulas;
        for (const auto& [lhs, rhs] : inv.holds) formulas += "<div>" + mathml(equation_text(lhs, rhs)) + "</div>";
        const std::string label = inv.number ? "variant " + std::to_string(inv.number) : "unnumbered";
        // The invariant as `flamex derive --list` writes it, as text a reader can copy.
        out << "<tr><td>" << (inv.number ? "<a href=\"#variant-" + std::to_string(inv.number) + "\">" + label + "</a>" : label)
            << "</td><td><code>" << xml_escape(invariant_label(inv)) << "</code></td><td><code>" << xml_escape(libflame_name(pme, inv.number, blocked))
            << "</code></td><td>" << xml_escape(inv.summary) << "</td><td>" << formulas << "</td></tr>\n";
    }
    for (const InfeasibleVariant& v : d.infeasible)
        out << "<tr class=\"infeasible\"><td>variant " << v.number << "</td><td>" << xml_escape(braces(v.holds))
            << "</td><td colspan=\"3\">infeasible: " << xml_escape(v.reason) << "</td></tr>\n";
    out << "</table>\n";

    for (const Invariant& inv : d.invariants) {
        const Worksheet w = worksheet(d, inv, blocked);
        out << "\n<section" << (inv.number ? " id=\"variant-" + std::to_string(inv.number) + "\"" : std::string()) << ">\n<h2>"
            << xml_escape(w.title) << "</h2>\n";
        if (!w.names.empty()) out << "<p class=\"names\">" << xml_escape(w.names) << "</p>\n";
        out << "<div class=\"ws\">\n<table class=\"worksheet\">\n";
        for (const WorksheetRow& r : w.rows) out << row_html(w, r);
        out << "</table>\n";
        if (inv.number) {
            std::string code;
            try {
                code = emit_cpp(pme, inv, blocked);
            } catch (const Error& e) {
                code = std::string("(no code: ") + e.what() + ")";
            }
            out << "<pre>" << xml_escape(code) << "</pre>\n";
        }
        out << "</div>\n</section>\n";
    }
    out << "</body>\n</html>\n";
    return out.str();
}

std::string emit_html_index(const std::vector<SiteEntry>& entries)
{
    std::ostringstream out;
    out << head("flamex: derived algorithms");
    out << "<h1>Derived algorithms</h1>\n<p>Each operation's PME, its loop invariants and every variant's worksheet, derived by "
        << "<code>flamex derive</code>, with the variant file it generates.</p>\n<table class=\"list\">"
        << "<tr><th>operation</th><th></th><th>invariants</th><th>pages</th></tr>\n";
    for (const SiteEntry& e : entries) {
        out << "<tr><td><code>" << xml_escape(e.name) << "</code></td><td>" << xml_escape(e.title) << "</td><td>" << e.invariants
            << "</td><td><a href=\"" << xml_escape(html_page_name(e.name, false)) << "\">unblocked</a>";
        if (e.blocked) out << ", <a href=\"" << xml_escape(html_page_name(e.name, true)) << "\">blocked</a>";
        out << "</td></tr>\n";
    }
    out << "</table>\n</body>\n</html>\n";
    return out.str();
}

} // namespace flamex::derive
