#include "derive/derive.hpp"

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <set>
#include <sstream>

namespace flamex::derive {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::string braces(const std::vector<std::string>& items)
{
    std::string s = "{";
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
    return s + "}";
}


std::string replace_all(std::string s, const std::string& from, const std::string& to)
{
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
}

} // namespace

std::string invariant_label(const Invariant& inv)
{
    std::string s = "{";
    for (const auto& [lhs, rhs] : inv.holds) s += (s.size() > 1 ? "; " : "") + equation_text(lhs, rhs);
    return s + "} " + inv.index + (inv.backward ? " backward" : " forward");
}

Derivation derive_invariants(const Pme& pme)
{
    Derivation d;
    d.pme = &pme;
    derive_engine(pme, d);
    return d;
}

const Invariant& find_variant(const Derivation& d, int number)
{
    for (const Invariant& inv : d.invariants)
        if (inv.number == number) return inv;
    for (const InfeasibleVariant& v : d.infeasible)
        if (v.number == number)
            throw Error(d.pme->name + ": variant " + std::to_string(number) + " " + braces(v.holds) + " is infeasible: " + v.reason);
    std::string known;
    for (const Invariant& inv : d.invariants)
        if (inv.number) known += (known.empty() ? "" : ", ") + std::to_string(inv.number);
    throw Error(d.pme->name + ": no variant " + std::to_string(number) + " (derived: " + known + ")");
}

std::vector<const Update*> updates(const Pme& pme, const Invariant& inv, bool blocked)
{
    if (!inv.problem[blocked ? 1 : 0].empty()) throw Error(pme.name + ": " + inv.problem[blocked ? 1 : 0]);
    std::vector<const Update*> list;
    for (const Update& s : inv.derived_updates[blocked ? 1 : 0]) list.push_back(&s);
    return list;
}

bool rectangular(const Invariant& inv) { return inv.index.find(',') != std::string::npos; }

std::string variant_name(const Pme& pme, int number, bool blocked)
{
    return pme.name + (blocked ? "_blk_var" : "_unb_var") + std::to_string(number);
}

std::string libflame_name(const Pme& pme, int number, bool blocked)
{
    if (pme.libflame.empty() || number == 0) return "-";
    return replace_all(replace_all(pme.libflame, "{form}", blocked ? "blk" : "unb"), "{n}", std::to_string(number));
}

std::string display(const std::string& block)
{
    if (block.size() > 1 && block.back() == 't' && std::islower(static_cast<unsigned char>(block[0])))
        return block.substr(0, block.size() - 1) + "^T";
    return block;
}

// --- the text worksheet -------------------------------------------------------------

namespace {

std::string grid_text(const std::vector<std::vector<std::string>>& g)
{
    std::string s = "(";
    for (size_t i = 0; i < g.size(); ++i) {
        s += i ? " ;" : "";
        for (const std::string& x : g[i]) s += " " + display(x);
    }
    return s + " )";
}

} // namespace

namespace {

// The derived format's worksheet: the states as the 3x3 blocks' values.
Worksheet derived_worksheet(const Derivation& d, const Invariant& inv, bool blocked)
{
    const Pme& pme = *d.pme;
    const int form = blocked ? 1 : 0;
    Worksheet w;
    w.title = pme.name + " variant " + (inv.number ? std::to_string(inv.number) : "(unnumbered)") + ", " +
              (blocked ? "blocked" : "unblocked") + (inv.summary.empty() ? "" : ", " + inv.summary);
    if (inv.number)
        w.names = variant_name(pme, inv.number, blocked) +
                  (pme.libflame.empty() ? "" : ", libflame's " + libflame_name(pme, inv.number, blocked));
    const auto row = [&](const std::string& label, bool listing) -> WorksheetRow& {
        w.rows.push_back({label, listing, {}});
        return w.rows.back();
    };
    row("1a precondition", false).lines.push_back({pme.precondition});
    WorksheetRow& invariant = row("2  invariant", false);
    for (const auto& [lhs, rhs] : inv.holds) invariant.lines.push_back({equation_text(lhs, rhs)});
    row("3  loop guard", false).lines.push_back({loop_guard(pme, inv)});
    const std::string start = inv.backward ? "bottom right" : "top left";
    WorksheetRow& partitioning = row("4  partitioning", false);
    for (const Operand& o : pme.operands) {
        const Shape s = shape_of(pme, inv, o);
        if (s == Shape::Whole) continue;
        const NameGrid q = quad_names(o, s);
        const std::string empty = inv.backward ? q.back().back() : q.front().front();
        partitioning.lines.push_back({o.name + " -> " + grid_text(q) + ", " + empty + (s == Shape::Grid2x2 ? " 0 x 0" : s == Shape::Grid2x1 ? " with 0 rows" : " with 0 columns")});
    }
    partitioning.lines.push_back({"the loop runs from the " + start + (inv.backward ? " to the top left" : " to the bottom right")});
    WorksheetRow& repartitioning = row("5a repartitioning", false);
    std::string middle;
    for (const Operand& o : pme.operands) {
        const Shape s = shape_of(pme, inv, o);
        if (s == Shape::Whole) continue;
        repartitioning.lines.push_back({grid_text(quad_names(o, s)) + " -> " + grid_text(fine_names(o, s, blocked))});
        if (middle.empty()) {
            const NameGrid g = fine_names(o, s, blocked);
            middle = g.size() == 1 ? g[0][1] : g[1].size() == 1 ? g[1][0] : g[1][1];
        }
    }
    repartitioning.lines.push_back({display(middle) + (blocked ? " has b rows or columns, b = " + (pme.cpp.count("blocksize") ? pme.cpp.at("blocksize").front() : std::string("min(nb, ...)")) : " has one row or column")});
    row("6  before the update", true).lines = inv.before[form];
    row("7  after the update", true).lines = inv.after[form];
    WorksheetRow& steps = row("8  updates", true);
    for (const Update* s : updates(pme, inv, blocked)) steps.lines.push_back({s->description, s->call.text()});
    if (steps.lines.empty()) steps.lines.push_back({"(none)"});
    WorksheetRow& cont = row("5b continue with", false);
    for (const Operand& o : pme.operands) {
        const Shape s = shape_of(pme, inv, o);
        if (s != Shape::Whole) cont.lines.push_back({grid_text(quad_names(o, s)) + " <- " + grid_text(fine_names(o, s, blocked))});
    }
    row("1b postcondition", false).lines.push_back({pme.postcondition});
    WorksheetRow& finish = row("after the loop (m != n)", true);
    for (const Finish& f : inv.finishes)
        finish.lines.push_back({f.description + (f.quadrant == "BL" ? "  (m > n)" : "  (n > m)"), f.call.text()});
    if (finish.lines.empty())
        finish.lines.push_back({rectangular(inv) ? "nothing: the invariant covers every quadrant the loop leaves non-empty"
                                                      : "nothing: the loop runs over the whole of index " + inv.index});
    return w;
}

} // namespace

Worksheet worksheet(const Derivation& d, const Invariant& inv, bool blocked) { return derived_worksheet(d, inv, blocked); }

std::string worksheet_text(const Derivation& d, const Invariant& inv, bool blocked)
{
    const Worksheet w = worksheet(d, inv, blocked);
    std::ostringstream out;
    out << "Worksheet: " << w.title << "\n";
    if (!w.names.empty()) out << "  " << w.names << "\n";
    const auto pad = [](std::string s, size_t width) { return s + std::string(s.size() < width ? width - s.size() : 1, ' '); };
    for (const WorksheetRow& r : w.rows) {
        if (!r.listing) {
            for (size_t i = 0; i < r.lines.size(); ++i) out << (i == 0 ? pad("  " + r.label, 22) : std::string(22, ' ')) << r.lines[i][0] << "\n";
            continue;
        }
        out << "  " << r.label << "\n";
        for (const auto& cells : r.lines) {
            std::string line = "      ";
            if (cells.size() == 3)
                line += pad(cells[0], 9) + pad(cells[1], 7) + cells[2];
            else if (cells.size() == 2)
                line += pad(cells[0], 40) + cells[1];
            else
                line += cells[0];
            out << line << "\n";
        }
    }
    return out.str();
}

std::string text_report(const Derivation& d, int number, bool blocked)
{
    const Pme& pme = *d.pme;
    std::ostringstream out;
    out << "Operation " << pme.name << ": " << pme.title << "\n  " << pme.statement << "\n\n";
    out << "PME (" << pme.file.substr(pme.file.rfind('/') == std::string::npos ? 0 : pme.file.rfind('/') + 1) << ")\n";
    out << "  " << equation_text(pme.definition_lhs, pme.definition_rhs) << "\n";
    for (const Equation& e : pme.equations) out << "  partitioning " << e.index << ":  " << equation_text(e.lhs, e.rhs) << "\n";
    out << "\nLoop invariants: " << d.invariants.size() << " feasible\n";
    for (const Invariant& inv : d.invariants) {
        const std::string label = inv.number ? "variant " + std::to_string(inv.number) : "unnumbered";
        out << "  " << label << std::string(label.size() < 12 ? 12 - label.size() : 1, ' ') << invariant_label(inv);
        out << std::string(invariant_label(inv).size() < 20 ? 20 - invariant_label(inv).size() : 1, ' ')
            << libflame_name(pme, inv.number, blocked) << (inv.summary.empty() ? "" : "  " + inv.summary) << "\n";
    }
    for (const InfeasibleVariant& v : d.infeasible)
        out << "  variant " << v.number << "   " << braces(v.holds) << " infeasible: " << v.reason << "\n";
    for (const Invariant& inv : d.invariants)
        if (number == 0 || inv.number == number) out << "\n" << worksheet_text(d, inv, blocked);
    return out.str();
}

std::string list_text(const std::vector<Derivation>& all)
{
    std::ostringstream out;
    for (const Derivation& d : all) {
        out << d.pme->name << "  " << d.pme->title << ": " << d.invariants.size() << " invariants\n";
        for (const Invariant& inv : d.invariants)
            out << "  " << (inv.number ? "variant " + std::to_string(inv.number) : std::string("unnumbered")) << "  "
                << invariant_label(inv) << "  " << libflame_name(*d.pme, inv.number, false) << (inv.summary.empty() ? "" : "  " + inv.summary) << "\n";
        for (const InfeasibleVariant& v : d.infeasible)
            out << "  variant " << v.number << "  infeasible: " << v.reason << "\n";
    }
    return out.str();
}

// --- the shipped descriptions ---------------------------------------------------------

std::string pme_directory()
{
    if (const char* dir = std::getenv("FLAMEX_PME_DIR")) return dir;
    if (DIR* d = opendir(FLAMEX_PME_SOURCE_DIR)) {
        closedir(d);
        return FLAMEX_PME_SOURCE_DIR;
    }
    return FLAMEX_PME_INSTALL_DIR;
}

std::vector<std::string> operation_names()
{
    std::vector<std::string> names;
    const std::string dir = pme_directory();
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string file = e->d_name;
            if (file.size() > 4 && file.compare(file.size() - 4, 4, ".pme") == 0) names.push_back(file.substr(0, file.size() - 4));
        }
        closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

Pme load_operation(const std::string& name)
{
    const auto names = operation_names();
    if (!contains(names, name)) {
        std::string known;
        for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
        throw Error("unknown operation '" + name + "' (known: " + known + "; descriptions in " + pme_directory() + ")");
    }
    Pme pme = read_pme(pme_directory() + "/" + name + ".pme");
    if (pme.name != name) throw Error(pme.file + ": describes operation '" + pme.name + "', expected '" + name + "'");
    return pme;
}

} // namespace flamex::derive
