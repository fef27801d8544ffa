// The variant file: variants/lu_piv_unb_var3.cpp's layout, line for line: the update
// box as the header comment with the BLAS operation in the margin, structured
// bindings that show the 2x2 and 3x3 shapes, the zero-pivot handling the
// description's `cpp` lines spell.
#include <cstdlib>
#include <sstream>

#include "derive/derive.hpp"

namespace flamex::derive {

namespace {

constexpr size_t kMargin = 68; // the column of the operation's name in the update box

using Grid = std::vector<std::vector<std::string>>;

std::string replace_all(std::string s, const std::string& from, const std::string& to)
{
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
}

const std::vector<std::string>& cpp_lines(const Pme& pme, const std::string& key)
{
    const auto it = pme.cpp.find(key);
    if (it == pme.cpp.end()) throw Error(pme.file + ": no `cpp " + key + "` line, which the generated C++ needs");
    return it->second;
}

// Rows of names, each column padded to its widest entry plus the comma; the last
// row ends with `last` instead of a comma. Returns the lines without indentation.
std::vector<std::string> grid_lines(const Grid& g, const std::string& last)
{
    std::vector<size_t> width(g.front().size(), 0);
    for (const auto& row : g)
        for (size_t j = 0; j < row.size(); ++j) width[j] = std::max(width[j], row[j].size() + 1);
    std::vector<std::string> lines;
    for (size_t i = 0; i < g.size(); ++i) {
        std::string line;
        for (size_t j = 0; j < g[i].size(); ++j) {
            const bool end = j + 1 == g[i].size();
            const std::string entry = g[i][j] + (end && i + 1 == g.size() ? last : ",");
            line += end ? entry : entry + std::string(width[j] + 1 - entry.size(), ' ');
        }
        lines.push_back(line);
    }
    return lines;
}

// "auto [ATL, ATR,\n      ABL, ABR]" and "= f(args" lines: `targets` as the grid on
// the left, the call's arguments as a grid after its "(" with `tail` after the last.
struct Binding {
    std::vector<std::string> left; // lines, first prefixed by opener
    std::string call;              // "part_2x2("
    std::vector<std::string> args; // lines of the call's arguments
};

void emit_bindings(std::ostream& out, const std::string& indent, const std::string& opener, const std::string& closer,
                   const std::vector<Binding>& group)
{
    size_t eq = 0; // the column of '=': after the longest last line
    for (const Binding& b : group) eq = std::max(eq, opener.size() + b.left.back().size() + closer.size() + 1);
    for (const Binding& b : group) {
        for (size_t i = 0; i < b.left.size(); ++i) {
            std::string line = indent + (i == 0 ? opener : std::string(opener.size(), ' ')) + b.left[i];
            if (i + 1 == b.left.size()) line += closer;
            if (i + 1 < b.left.size()) {
                out << line << "\n";
                continue;
            }
            const size_t used = line.size() - indent.size();
            line += std::string(eq > used ? eq - used : 1, ' ') + "= " + b.call;
            const std::string hang(line.size(), ' ');
            for (size_t k = 0; k < b.args.size(); ++k) out << (k == 0 ? line : hang) << b.args[k] << "\n";
        }
    }
}

// The last line of a binding's left side ends with `]` or `)` (closer), so grid_lines
// is given "" as the last entry's tail and the closer is appended.
Binding binding(const Grid& targets, const std::string& call, const Grid& args, const std::string& tail)
{
    Binding b;
    b.left = grid_lines(targets, "");
    b.call = call;
    b.args = grid_lines(args, tail);
    return b;
}

// --- an update's C++ --------------------------------------------------------------------

bool is_number(const std::string& s)
{
    if (s.empty()) return false;
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}

// A scalar named by a 1x1 block is read from the backend: blas.element(alpha11, 0, 0).
std::string argument(const Expr& a, char kind)
{
    if (kind != 's' || a.call || is_number(a.name)) return a.text();
    if (a.name[0] == '-') return "-blas.element(" + a.name.substr(1) + ", 0, 0)";
    return "blas.element(" + a.name + ", 0, 0)";
}

std::string blas_call(const Expr& call)
{
    const Operation* op = find_operation(call.name);
    std::string s = "blas." + call.name + "(";
    for (size_t i = 0; i < call.args.size(); ++i) s += (i ? ", " : "") + argument(call.args[i], op->params[i]);
    return s + ");";
}

// A view expression as a grid of block names: merge_2x1(merge_1x2(a, b), merge_1x2(c, d)).
Grid view_grid(const Expr& e)
{
    if (!e.call) return {{e.name}};
    Grid g;
    if (e.name == "merge_1x2") {
        g.emplace_back();
        for (const Expr& a : e.args) {
            const Grid part = view_grid(a);
            if (part.size() != 1) throw Error(e.where.str() + ": merge_1x2 of views that are not one block row");
            g.front().insert(g.front().end(), part.front().begin(), part.front().end());
        }
        return g;
    }
    for (const Expr& a : e.args) {
        const Grid part = view_grid(a);
        g.insert(g.end(), part.begin(), part.end());
    }
    return g;
}

// merge_2x1(merge_1x2(..), merge_1x2(..)) with one block row per line, aligned.
std::vector<std::string> view_lines(const Grid& g)
{
    if (g.size() == 1 && g.front().size() == 1) return {g.front().front()};
    if (g.front().size() == 1) {
        std::string s = "merge_2x1(";
        for (size_t i = 0; i < g.size(); ++i) s += (i ? ", " : "") + g[i].front();
        return {s + ")"};
    }
    if (g.size() == 1) {
        std::string s = "merge_1x2(";
        for (size_t j = 0; j < g.front().size(); ++j) s += (j ? ", " : "") + g.front()[j];
        return {s + ")"};
    }
    std::vector<std::string> rows = grid_lines(g, "");
    std::vector<std::string> lines;
    for (size_t i = 0; i < rows.size(); ++i) {
        // grid_lines pads for alignment and ends rows with ','; a row here is one merge_1x2.
        std::string row = rows[i];
        while (!row.empty() && (row.back() == ',' || row.back() == ' ')) row.pop_back();
        lines.push_back(std::string(i == 0 ? "merge_2x1(" : "          ") + "merge_1x2(" + row + ")" + (i + 1 < rows.size() ? "," : ")"));
    }
    return lines;
}

std::string grid_display(const Grid& g)
{
    std::string s = "(";
    for (size_t i = 0; i < g.size(); ++i) {
        s += i ? " ;" : "";
        for (const std::string& x : g[i]) s += " " + display(x);
    }
    return s + " )";
}

// Consecutive apply_pivots by one pivot vector on side-by-side block columns are
// one call (the hand-written variants swap whole block rows at once).
struct Swap {
    std::string pivots;
    Grid region;
};

bool column_index(const Pme& pme, const std::string& name, int& col)
{
    Block b;
    if (!find_block(pme, name, b)) return false;
    col = b.col;
    return true;
}

bool side_by_side(const Pme& pme, const Grid& left, const Grid& right)
{
    if (left.size() != right.size()) return false;
    int a = 0, b = 0;
    return column_index(pme, left.front().back(), a) && column_index(pme, right.front().front(), b) && b == a + 1;
}

struct Box {
    std::vector<std::pair<std::string, std::string>> lines; // text, operation
};

std::string box_line(const std::string& text, const std::string& op, size_t lhs_width)
{
    std::string line = "//   ";
    const size_t assign = text.find(" := ");
    if (assign != std::string::npos && assign < lhs_width)
        line += text.substr(0, assign) + std::string(lhs_width - assign, ' ') + text.substr(assign);
    else
        line += text;
    if (op.empty()) return line;
    if (line.size() < kMargin) return line + std::string(kMargin - line.size(), ' ') + op;
    return line;
}

// The C++ function: variant_name's, or with the description's `cpp name` prefix in place
// of the operation's name where the operation's own name is taken (ldlt_blas_unb_var3
// beside the templated ldlt_unb_var3 of variants/ldlt.hpp).
std::string function_name(const Pme& pme, int number, bool blocked)
{
    const std::string name = variant_name(pme, number, blocked);
    const auto it = pme.cpp.find("name");
    if (it == pme.cpp.end()) return name;
    return it->second.front() + name.substr(pme.name.size());
}

// Text as "// " comment lines of at most kCommentWidth columns, broken between words.
constexpr size_t kCommentWidth = 100;

std::string comment_lines(const std::string& text)
{
    std::string out, line;
    std::istringstream words(text);
    for (std::string w; words >> w;) {
        if (!line.empty() && 3 + line.size() + 1 + w.size() > kCommentWidth) {
            out += "// " + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + w;
    }
    return out + "// " + line + "\n";
}

class Emitter {
public:
    Emitter(const Pme& pme, const Invariant& inv, bool blocked) : pme_(pme), inv_(inv), blocked_(blocked) {}

    std::string run()
    {
        body_steps();
        std::ostringstream out;
        header(out);
        out << "#include \"" << cpp_lines(pme_, "header").front() << "\"\n\nnamespace flamex {\n\n";
        out << replace_all(cpp_lines(pme_, blocked_ ? "blocked" : "unblocked").front(), "{name}",
                           function_name(pme_, inv_.number, blocked_))
            << "\n{\n";
        const bool has_info = pme_.cpp.count("info") != 0;
        if (has_info) out << "    " << cpp_lines(pme_, "info").front() << " info;\n";
        partitions(out);
        out << "\n    while (" << loop_guard(pme_, inv_) << ") {\n";
        if (blocked_)
            out << "        const dim_t b = "
                << (inv_.index.empty() ? cpp_lines(pme_, "blocksize").front()
                                       : replace_all(replace_all(cpp_lines(pme_, "blocksize").front(), "{rest}", remaining(pme_, inv_)),
                                                     "{rest_view}", remaining(pme_, inv_).substr(0, remaining(pme_, inv_).find('.'))))
                << ";\n";
        repartitions(out);
        out << "        /*------------------------------------------------------------*/\n";
        for (const std::string& line : body_) out << "        " << line << "\n";
        out << "        /*------------------------------------------------------------*/\n";
        continue_with(out);
        out << "    }\n";
        after_loop(out);
        out << (has_info ? "    return info;\n" : "") << "}\n\n} // namespace flamex\n";
        return out.str();
    }

private:
    size_t lhs_width() const
    {
        if (inv_.index.empty()) return block_names(pme_.operands.front(), blocked_)[1][1].size();
        const Operand& o = driver(pme_, inv_);
        const Grid g = fine_names(o, shape_of(pme_, inv_, o), blocked_);
        return (g.size() == 1 ? g[0][1] : g[1].size() == 1 ? g[1][0] : g[1][1]).size();
    }

    void header(std::ostream& out)
    {
        out << comment_lines(pme_.title + ", " + (blocked_ ? "blocked" : "unblocked") + ", variant " +
                             std::to_string(inv_.number) + ": " + inv_.summary + ".");
        out << "// Generated from derive/pme/" << pme_.name << ".pme by `flamex derive " << pme_.name << " --variant "
            << inv_.number << (blocked_ ? " --blocked" : "") << " --emit cpp`"
            << (pme_.libflame.empty() ? ".\n//\n" : ";\n// libflame's " + libflame_name(pme_, inv_.number, blocked_) + ".\n//\n");
        for (const auto& [text, op] : box_.lines) out << box_line(text, op, lhs_width()) << "\n";
        const std::vector<Finish>& after = inv_.finishes;
        if (!rectangular(inv_)) {
            // A square-only operation: nothing to say about m != n.
        } else if (after.empty()) {
            out << "// The invariant covers every quadrant the loop leaves non-empty, so m != n needs nothing more.\n";
        } else {
            out << "// and, after the loop, the part of A it did not reach:\n";
            for (const Finish& f : after) {
                const std::string q = f.quadrant;
                std::string text = f.description;
                text += std::string(text.size() < 34 ? 34 - text.size() : 1, ' ') + (q == "BL" ? "when m > n" : "when n > m");
                out << box_line(text, f.call.name, lhs_width()) << "\n";
            }
        }
        for (const std::string& note : pme_.notes) out << "// " << note << "\n";
    }

    // How the loop partitions each operand: its shape and the side it starts from.
    struct Part {
        const Operand* o;
        Shape shape;
    };
    std::vector<Part> parts() const
    {
        std::vector<Part> list;
        for (const Operand& o : pme_.operands) {
            const Shape s = shape_of(pme_, inv_, o);
            if (s != Shape::Whole) list.push_back({&o, s});
        }
        return list;
    }

    void partitions(std::ostream& out)
    {
        const bool back = inv_.backward;
        std::vector<Binding> group;
        for (const Part& p : parts()) {
            const Grid q = quad_names(*p.o, p.shape);
            const std::string& X = p.o->name;
            const std::string call = p.shape == Shape::Grid2x2   ? "part_2x2(" + X + ", 0, 0, " + (back ? "BR" : "TL") + ");"
                                     : p.shape == Shape::Grid2x1 ? "part_2x1(" + X + ", 0, " + (back ? "BOTTOM" : "TOP") + ");"
                                                                 : "part_1x2(" + X + ", 0, " + (back ? "RIGHT" : "LEFT") + ");";
            Binding b;
            b.left = grid_lines(q, "");
            b.call = call;
            b.args = {""};
            group.push_back(b);
        }
        emit_bindings(out, "    ", "auto [", "]", group);
    }

    void repartitions(std::ostream& out)
    {
        const std::string size = blocked_ ? "b" : "1";
        const bool back = inv_.backward;
        std::vector<Binding> group;
        for (const Part& p : parts()) {
            const Grid q = quad_names(*p.o, p.shape), f = fine_names(*p.o, p.shape, blocked_);
            if (p.shape == Shape::Grid2x2)
                group.push_back(binding(f, "repart_2x2_to_3x3(", q, ", " + size + ", " + size + (back ? ", TL);" : ", BR);")));
            else if (p.shape == Shape::Grid2x1)
                group.push_back(binding(f, "repart_2x1_to_3x1(", q, ", " + size + (back ? ", TOP);" : ", BOTTOM);")));
            else
                group.push_back(binding(f, "repart_1x2_to_1x3(", q, ", " + size + (back ? ", LEFT);" : ", RIGHT);")));
        }
        emit_bindings(out, "        ", "auto [", "]", group);
    }

    void continue_with(std::ostream& out)
    {
        const bool back = inv_.backward;
        std::vector<Binding> group;
        for (const Part& p : parts()) {
            const Grid q = quad_names(*p.o, p.shape), f = fine_names(*p.o, p.shape, blocked_);
            if (p.shape == Shape::Grid2x2)
                group.push_back(binding(q, "cont_with_3x3_to_2x2(", f, back ? ", BR);" : ", TL);"));
            else if (p.shape == Shape::Grid2x1)
                group.push_back(binding(q, "cont_with_3x1_to_2x1(", f, back ? ", BOTTOM);" : ", TOP);"));
            else
                group.push_back(binding(q, "cont_with_1x3_to_1x2(", f, back ? ", RIGHT);" : ", LEFT);"));
        }
        emit_bindings(out, "        ", "std::tie(", ")", group);
    }

    void after_loop(std::ostream& out)
    {
        const std::vector<Finish>& after = inv_.finishes;
        if (after.empty()) return;
        // At most one of ABL (m > n) and ATR (n > m) is non-empty when the loop ends.
        const Operand& A = pme_.operands.front();
        const auto q = quad_names(A, Shape::Grid2x2);
        const std::vector<std::pair<std::string, std::string>> conditions = {{"BL", q[1][0] + ".length() > 0"},
                                                                             {"TR", q[0][1] + ".width() > 0"}};
        out << "\n";
        bool first = true;
        for (const auto& [quadrant, condition] : conditions) {
            std::vector<const Finish*> here;
            for (const Finish& f : after)
                if (f.quadrant == quadrant) here.push_back(&f);
            if (here.empty()) continue;
            out << "    " << (first ? "if (" : "else if (") << condition << ")" << (here.size() > 1 ? " {" : "") << "\n";
            for (const Finish* f : here) out << "        " << blas_call(f->call) << "\n";
            if (here.size() > 1) out << "    }\n";
            first = false;
        }
        for (const Finish& f : after) {
            const std::string quadrant = f.quadrant;
            if (quadrant != "BL" && quadrant != "TR")
                throw Error(f.where.str() + ": a finishing update completes ABL or ATR, not " + quadrant);
        }
    }

    void flush_swap()
    {
        if (swap_.pivots.empty()) return;
        const auto lines = view_lines(swap_.region);
        const std::string head = "blas.apply_pivots(" + swap_.pivots + ", ";
        for (size_t i = 0; i < lines.size(); ++i)
            body_.push_back((i == 0 ? head : std::string(head.size(), ' ')) + lines[i] + (i + 1 == lines.size() ? ");" : ""));
        const std::string region = grid_display(swap_.region);
        box_.lines.push_back({region + " := P(" + swap_.pivots + ") " + region, "apply_pivots"});
        swap_ = Swap();
    }

    void body_steps()
    {
        const auto list = updates(pme_, inv_, blocked_);
        for (size_t i = 0; i < list.size(); ++i) {
            const Update& s = *list[i];
            const std::string& op = s.call.name;
            if (op == "apply_pivots") {
                const std::string pivots = s.call.args[0].text();
                const Grid region = view_grid(s.call.args[1]);
                if (!swap_.pivots.empty() && swap_.pivots == pivots && side_by_side(pme_, swap_.region, region)) {
                    for (size_t r = 0; r < region.size(); ++r)
                        swap_.region[r].insert(swap_.region[r].end(), region[r].begin(), region[r].end());
                } else {
                    flush_swap();
                    swap_ = {pivots, region};
                }
                continue;
            }
            flush_swap();
            if (op == "check") {
                // Without a `cpp check` line the driver checks before the variant runs
                // (trinv, as LAPACK's trtri), so the loop does not.
                if (pme_.cpp.count("check") == 0) continue;
                const std::string pivot = s.call.args[0].text();
                std::vector<const Update*> guarded;
                while (pme_.continue_on_zero_pivot && i + 1 < list.size() && list[i + 1]->divides) guarded.push_back(list[++i]);
                if (guarded.empty()) {
                    body_.push_back(replace_all(cpp_lines(pme_, "check").front(), "{0}", pivot));
                } else {
                    body_.push_back(replace_all(cpp_lines(pme_, "guard").front(), "{0}", pivot) + (guarded.size() > 1 ? " {" : ""));
                    for (const Update* g : guarded) {
                        body_.push_back("    " + blas_call(g->call));
                        box_.lines.push_back({g->description, g->call.name});
                    }
                    if (guarded.size() > 1) body_.push_back("}");
                }
                continue;
            }
            if (op == "inner") {
                std::string args;
                for (size_t k = 0; k < s.call.args.size(); ++k) args += (k ? ", " : "") + s.call.args[k].text();
                for (const std::string& line : cpp_lines(pme_, "inner")) body_.push_back(replace_all(line, "{args}", args));
                box_.lines.push_back({s.description, "inner variant"});
                continue;
            }
            if (op == "iamax") {
                body_.push_back(s.call.args[0].text() + "(0, 0) = static_cast<int>(blas.iamax(" + s.call.args[1].text() + "));");
                box_.lines.push_back({s.description, ""});
                continue;
            }
            if (negation_folds(list, i)) {
                // scal negates vectors only: a block's negation is the alpha of the
                // triangular operation on it that follows (its sign commutes with the
                // rounding, so the bits are those of the two steps).
                Expr next = list[i + 1]->call;
                next.args[4].name = "-1.0";
                body_.push_back(blas_call(next));
                box_.lines.push_back({s.description, "(" + next.name + "'s alpha)"});
                box_.lines.push_back({list[i + 1]->description, next.name});
                ++i;
                continue;
            }
            body_.push_back(blas_call(s.call));
            box_.lines.push_back({s.description, op});
        }
        flush_swap();
    }

    // A blocked form's scal(-1.0, X) followed by trsm or trmm(..., 1.0, T, X).
    bool negation_folds(const std::vector<const Update*>& list, size_t i) const
    {
        const Expr& c = list[i]->call;
        if (!blocked_ || c.name != "scal" || c.args[0].text() != "-1.0" || i + 1 == list.size()) return false;
        const Expr& next = list[i + 1]->call;
        return (next.name == "trsm" || next.name == "trmm") && next.args[4].text() == "1.0" &&
               next.args[6].text() == c.args[1].text();
    }

    const Pme& pme_;
    const Invariant& inv_;
    bool blocked_;
    std::vector<std::string> body_;
    Box box_;
    Swap swap_;
};

} // namespace

std::string emit_cpp(const Pme& pme, const Invariant& inv, bool blocked)
{
    if (inv.number == 0) throw Error(pme.name + ": an unnumbered invariant has no variant name to emit");
    if (blocked && !pme.has_blocked()) throw Error(pme.name + ": the description has no blocked form");
    return Emitter(pme, inv, blocked).run();
}

} // namespace flamex::derive
