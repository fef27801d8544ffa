#include "derive/derive.hpp"

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <set>
#include <sstream>

namespace flamex::derive {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Whether `tasks` holds one of a step's entries; an entry "tl+bla" needs both.
bool intersects(const std::vector<std::string>& entries, const std::vector<std::string>& tasks)
{
    return std::any_of(entries.begin(), entries.end(), [&](const std::string& entry) {
        for (size_t begin = 0;;) {
            const size_t plus = entry.find('+', begin);
            if (!contains(tasks, entry.substr(begin, plus - begin))) return false;
            if (plus == std::string::npos) return true;
            begin = plus + 1;
        }
    });
}

std::string braces(const std::vector<std::string>& tasks)
{
    std::string s = "{";
    for (size_t i = 0; i < tasks.size(); ++i) s += (i ? ", " : "") + tasks[i];
    return s + "}";
}


// The tasks every invariant holds: those of the top (left) quadrant, whose
// completion is the postcondition when the loop ends.
bool progress_task(const Task& t)
{
    const std::string& q = t.quadrants.front();
    return !t.recursive && (q == "TL" || (q.size() >= 2 && q.compare(q.size() - 2, 2, ".T") == 0));
}

std::string replace_all(std::string s, const std::string& from, const std::string& to)
{
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
}

} // namespace

std::string invariant_label(const Invariant& inv)
{
    if (inv.index.empty()) return braces(inv.tasks);
    std::string s = "{";
    for (const auto& [lhs, rhs] : inv.holds) s += (s.size() > 1 ? "; " : "") + equation_text(lhs, rhs);
    return s + "} " + inv.index + (inv.backward ? " backward" : " forward");
}

bool feasible(const Pme& pme, const std::vector<std::string>& tasks, std::string& reason)
{
    for (const Task& t : pme.tasks)
        if (progress_task(t) && !contains(tasks, t.name)) {
            reason = "it does not hold task " + t.name + " (" + t.formula + "): when the loop ends the invariant must be the postcondition";
            return false;
        }
    for (const std::string& name : tasks) {
        const Task& t = *pme.task(name);
        if (t.recursive) {
            reason = "task " + name + " is the PME's recursion: holding it, the loop would have nothing left to do";
            return false;
        }
        for (const Need& n : t.needs)
            if (!contains(tasks, n.task)) {
                reason = "task " + name + " (" + t.formula + ") needs task " + n.task + " (" + pme.task(n.task)->formula + ")" +
                         (n.reason.empty() ? "" : ": " + n.reason);
                return false;
            }
        for (const Need& n : t.excludes)
            if (contains(tasks, n.task)) {
                reason = "tasks " + name + " and " + n.task + " exclude each other" + (n.reason.empty() ? "" : ": " + n.reason);
                return false;
            }
    }
    for (const bool blocked : {false, true})
        for (const Step& s : pme.steps(blocked))
            if (intersects(s.before, tasks) && !intersects(s.after, tasks)) {
                reason = std::string("in the ") + (blocked ? "blocked" : "unblocked") + " form, step \"" + s.description + "\" (" +
                         s.where.str() + ") would be undone: it is done before the repartitioning and not after";
                return false;
            }
    return true;
}

Derivation derive_invariants(const Pme& pme)
{
    Derivation d;
    d.pme = &pme;
    if (pme.derived) {
        derive_engine(pme, d);
        return d;
    }
    std::vector<const Task*> candidates;
    for (const Task& t : pme.tasks)
        if (!t.recursive) candidates.push_back(&t);
    if (candidates.size() > 20) throw Error(pme.file + ": too many tasks to enumerate (" + std::to_string(candidates.size()) + ")");
    const auto same = [](std::vector<std::string> a, std::vector<std::string> b) {
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        return a == b;
    };
    std::vector<Invariant> unnumbered;
    for (unsigned long mask = 0; mask < (1ul << candidates.size()); ++mask) {
        Invariant inv;
        for (size_t i = 0; i < candidates.size(); ++i)
            if (mask & (1ul << i)) inv.tasks.push_back(candidates[i]->name);
        std::string why;
        if (!feasible(pme, inv.tasks, why)) continue;
        for (const VariantDecl& v : pme.variants)
            if (same(v.tasks, inv.tasks)) {
                inv.number = v.number;
                inv.summary = v.summary;
            }
        (inv.number ? d.invariants : unnumbered).push_back(inv);
    }
    std::sort(d.invariants.begin(), d.invariants.end(), [](const Invariant& a, const Invariant& b) { return a.number < b.number; });
    d.invariants.insert(d.invariants.end(), unnumbered.begin(), unnumbered.end());
    for (const VariantDecl& v : pme.variants) {
        std::string why;
        if (!feasible(pme, v.tasks, why)) d.infeasible.push_back({v.number, v.tasks, why});
    }
    std::sort(d.infeasible.begin(), d.infeasible.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
    return d;
}

const Invariant& find_variant(const Derivation& d, int number)
{
    for (const Invariant& inv : d.invariants)
        if (inv.number == number) return inv;
    for (const InfeasibleVariant& v : d.infeasible)
        if (v.number == number)
            throw Error(d.pme->name + ": variant " + std::to_string(number) + " " + braces(v.tasks) + " is infeasible: " + v.reason);
    for (const Underivable& u : d.pme->underivable)
        if (u.number == number) throw Error(d.pme->name + ": variant " + std::to_string(number) + " does not come from this PME: " + u.reason);
    std::string known;
    for (const Invariant& inv : d.invariants)
        if (inv.number) known += (known.empty() ? "" : ", ") + std::to_string(inv.number);
    throw Error(d.pme->name + ": no variant " + std::to_string(number) + " (derived: " + known + ")");
}

std::vector<const Step*> updates(const Pme& pme, const Invariant& inv, bool blocked)
{
    std::vector<const Step*> list;
    if (!inv.index.empty()) {
        if (!inv.problem[blocked ? 1 : 0].empty()) throw Error(pme.name + ": " + inv.problem[blocked ? 1 : 0]);
        for (const Step& s : inv.derived_steps[blocked ? 1 : 0]) list.push_back(&s);
        return list;
    }
    for (const Step& s : pme.steps(blocked))
        if (intersects(s.after, inv.tasks) && !intersects(s.before, inv.tasks)) list.push_back(&s);
    return list;
}

std::string finish_quadrant(const Pme& pme, const Finish& f)
{
    return f.quadrant.empty() ? pme.task(f.task)->quadrants.front() : f.quadrant;
}

bool rectangular(const Pme& pme, const Invariant& inv)
{
    return !pme.finishes.empty() || inv.index.find(',') != std::string::npos;
}

std::vector<const Finish*> finishes(const Pme& pme, const Invariant& inv)
{
    std::vector<const Finish*> list;
    if (!inv.index.empty()) {
        for (const Finish& f : inv.finishes) list.push_back(&f);
        return list;
    }
    for (const Finish& f : pme.finishes)
        if (!contains(inv.tasks, f.task)) list.push_back(&f);
    return list;
}

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

std::string quadrants_text(const Task& t)
{
    std::string s;
    for (const std::string& q : t.quadrants) s += (s.empty() ? "" : ",") + q;
    return s;
}

// Each block's state: the quadrant it lies in, the invariant's tasks that have
// computed that quadrant, and the steps on the block those tasks comprise.
std::vector<std::vector<std::string>> states(const Pme& pme, const Invariant& inv, bool blocked, bool after)
{
    std::vector<std::vector<std::string>> lines;
    // An operand whose PME has no task in TR is a lower triangle: the blocks above
    // the diagonal are not referenced and not shown.
    bool upper_referenced = false;
    for (const Task& t : pme.tasks) upper_referenced |= contains(t.quadrants, "TR");
    for (const Operand& o : pme.operands) {
        if (o.pivots) continue;
        const auto names = block_names(o, blocked);
        for (size_t i = 0; i < names.size(); ++i)
            for (size_t j = 0; j < names[i].size(); ++j) {
                if (&o == &pme.operands.front() && !upper_referenced && j > i) continue;
                const std::string& name = names[i][j];
                const std::string quadrant = quadrant_of(pme, Block{&o, static_cast<int>(i), static_cast<int>(j)}, after);
                std::string tasks;
                for (const std::string& t : inv.tasks)
                    if (contains(pme.task(t)->quadrants, quadrant)) tasks += (tasks.empty() ? "" : " ") + t;
                std::string done;
                for (const Step& s : pme.steps(blocked)) {
                    if (!intersects(after ? s.after : s.before, inv.tasks)) continue;
                    const Operation* op = find_operation(s.call.name);
                    bool writes = false;
                    for (size_t k = 0; k < s.call.args.size() && op; ++k) {
                        if (op->params != "*" && op->params[k] != 'o') continue;
                        std::string spaced = " " + s.call.args[k].text() + " ";
                        for (char& c : spaced)
                            if (c == '(' || c == ')' || c == ',') c = ' ';
                        writes |= spaced.find(" " + name + " ") != std::string::npos;
                    }
                    if (writes) done += (done.empty() ? "" : "; ") + s.description;
                }
                lines.push_back({display(name), quadrant, tasks.empty() ? "as it was" : "by " + tasks + (done.empty() ? "" : ": " + done)});
            }
    }
    return lines;
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
    for (const Step* s : updates(pme, inv, blocked)) steps.lines.push_back({s->description, s->call.text()});
    if (steps.lines.empty()) steps.lines.push_back({"(none)"});
    WorksheetRow& cont = row("5b continue with", false);
    for (const Operand& o : pme.operands) {
        const Shape s = shape_of(pme, inv, o);
        if (s != Shape::Whole) cont.lines.push_back({grid_text(quad_names(o, s)) + " <- " + grid_text(fine_names(o, s, blocked))});
    }
    row("1b postcondition", false).lines.push_back({pme.postcondition});
    WorksheetRow& finish = row("after the loop (m != n)", true);
    for (const Finish* f : finishes(pme, inv))
        finish.lines.push_back({f->description + (f->quadrant == "BL" ? "  (m > n)" : "  (n > m)"), f->call.text()});
    if (finish.lines.empty())
        finish.lines.push_back({rectangular(pme, inv) ? "nothing: the invariant covers every quadrant the loop leaves non-empty"
                                                      : "nothing: the loop runs over the whole of index " + inv.index});
    return w;
}

} // namespace

Worksheet worksheet(const Derivation& d, const Invariant& inv, bool blocked)
{
    if (!inv.index.empty()) return derived_worksheet(d, inv, blocked);
    const Pme& pme = *d.pme;
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
    for (const std::string& name : inv.tasks) {
        const Task& t = *pme.task(name);
        invariant.lines.push_back({t.formula + "   [" + quadrants_text(t) + "]"});
    }
    std::set<std::string> covered;
    for (const std::string& name : inv.tasks)
        for (const std::string& q : pme.task(name)->quadrants) covered.insert(q);
    std::string rest;
    for (const Task& t : pme.tasks)
        for (const std::string& q : t.quadrants)
            if (!covered.count(q) && rest.find(q) == std::string::npos) rest += (rest.empty() ? "" : ", ") + q;
    if (!rest.empty()) invariant.lines.push_back({"and otherwise as it was: " + rest});
    row("3  loop guard", false).lines.push_back({pme.guard});
    WorksheetRow& partitioning = row("4  partitioning", false);
    for (const Operand& o : pme.operands)
        partitioning.lines.push_back({o.name + " -> " + grid_text(quadrant_names(o)) + ", " + quadrant_names(o)[0][0] +
                                      (o.two_by_two ? " 0 x 0" : " with 0 rows")});
    const std::string size = blocked ? "b x b, b = " + (pme.cpp.count("blocksize") ? pme.cpp.at("blocksize").front() : std::string("min(nb, ...)"))
                                     : "1 x 1";
    WorksheetRow& repartitioning = row("5a repartitioning", false);
    for (const Operand& o : pme.operands)
        repartitioning.lines.push_back({grid_text(quadrant_names(o)) + " -> " + grid_text(block_names(o, blocked))});
    repartitioning.lines.push_back({display(block_names(pme.operands.front(), blocked)[1][1]) + " is " + size});
    row("6  before the update", true).lines = states(pme, inv, blocked, false);
    row("7  after the update", true).lines = states(pme, inv, blocked, true);
    WorksheetRow& steps = row("8  updates", true);
    for (const Step* s : updates(pme, inv, blocked)) steps.lines.push_back({s->description, s->call.text()});
    if (steps.lines.empty()) steps.lines.push_back({"(none)"});
    WorksheetRow& cont = row("5b continue with", false);
    for (const Operand& o : pme.operands) cont.lines.push_back({grid_text(quadrant_names(o)) + " <- " + grid_text(block_names(o, blocked))});
    row("1b postcondition", false).lines.push_back({pme.postcondition});
    WorksheetRow& after = row("after the loop (m != n)", true);
    for (const Finish* f : finishes(pme, inv)) after.lines.push_back({f->description, f->call.text()});
    if (after.lines.empty()) after.lines.push_back({"nothing: every task outside the invariant lies in a quadrant that is then empty"});
    return w;
}

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
    if (pme.derived) {
        out << "  " << equation_text(pme.definition_lhs, pme.definition_rhs) << "\n";
        for (const Equation& e : pme.equations) out << "  partitioning " << e.index << ":  " << equation_text(e.lhs, e.rhs) << "\n";
    }
    size_t width = 0;
    for (const Task& t : pme.tasks) width = std::max(width, t.name.size());
    for (const Task& t : pme.tasks) {
        out << "  " << t.name << std::string(width + 2 - t.name.size(), ' ') << quadrants_text(t)
            << std::string(quadrants_text(t).size() < 7 ? 7 - quadrants_text(t).size() : 1, ' ') << t.formula;
        if (!t.needs.empty()) {
            out << "   needs";
            for (const Need& n : t.needs) out << " " << n.task;
        }
        for (const Need& n : t.excludes) out << "   excludes " << n.task;
        if (t.recursive) out << "   (the recursion)";
        out << "\n";
    }
    out << "\nLoop invariants: " << d.invariants.size() << " feasible\n";
    for (const Invariant& inv : d.invariants) {
        const std::string label = inv.number ? "variant " + std::to_string(inv.number) : "unnumbered";
        out << "  " << label << std::string(label.size() < 12 ? 12 - label.size() : 1, ' ') << invariant_label(inv);
        out << std::string(invariant_label(inv).size() < 20 ? 20 - invariant_label(inv).size() : 1, ' ')
            << libflame_name(pme, inv.number, blocked) << (inv.summary.empty() ? "" : "  " + inv.summary) << "\n";
    }
    for (const InfeasibleVariant& v : d.infeasible)
        out << "  variant " << v.number << "   " << braces(v.tasks) << " infeasible: " << v.reason << "\n";
    for (const Underivable& u : pme.underivable)
        out << "  variant " << u.number << "   not from this PME: " << u.reason << "\n";
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
        for (const Underivable& u : d.pme->underivable)
            out << "  variant " << u.number << "  not from this PME: " << u.reason << "\n";
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
