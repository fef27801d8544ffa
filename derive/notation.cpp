#include "derive/notation.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace flamex::derive::notation {

namespace {

using Kind = Node::Kind;

struct Greek {
    const char* name;
    const char* utf8;
};
constexpr Greek kGreek[] = {{"alpha", "\u03b1"},   {"beta", "\u03b2"},  {"gamma", "\u03b3"},   {"delta", "\u03b4"},
                            {"epsilon", "\u03b5"}, {"zeta", "\u03b6"},  {"eta", "\u03b7"},     {"theta", "\u03b8"},
                            {"iota", "\u03b9"},    {"kappa", "\u03ba"}, {"lambda", "\u03bb"},  {"mu", "\u03bc"},
                            {"nu", "\u03bd"},      {"xi", "\u03be"},    {"pi", "\u03c0"},      {"rho", "\u03c1"},
                            {"sigma", "\u03c3"},   {"tau", "\u03c4"},   {"upsilon", "\u03c5"}, {"phi", "\u03c6"},
                            {"chi", "\u03c7"},     {"psi", "\u03c8"},   {"omega", "\u03c9"}};

const Greek* greek(const std::string& name)
{
    for (const Greek& g : kGreek)
        if (name == g.name) return &g;
    return nullptr;
}

bool is_quadrant(const std::string& s) { return s == "TL" || s == "TR" || s == "BL" || s == "BR"; }
bool is_part(const std::string& s) { return is_quadrant(s) || s == "T" || s == "B" || s == "L" || s == "R"; }

// The hatted letters of Latin-1 (UTF-8 0xC3 0x..), as their base letter.
char hatted(unsigned char second)
{
    switch (second) {
    case 0xa2: return 'a';
    case 0xaa: return 'e';
    case 0xae: return 'i';
    case 0xb4: return 'o';
    case 0xbb: return 'u';
    case 0x82: return 'A';
    case 0x8a: return 'E';
    case 0x8e: return 'I';
    case 0x94: return 'O';
    case 0x9b: return 'U';
    default: return 0;
    }
}

Node make(Kind kind, std::string text = {})
{
    Node n;
    n.kind = kind;
    n.text = std::move(text);
    return n;
}

// A word of letters and digits as FLAME's notation reads it: alpha11 -> alpha sub 11,
// a10t -> a sub 10 transposed, ATL -> A sub TL, Ahat / uhat01 -> hatted; a lowercase
// word that is not a name is prose (a function name when a '(' follows).
Node classify(std::string word, bool hat, bool call)
{
    Node n = make(Kind::Ident);
    size_t letters = 0;
    while (letters < word.size() && std::isalpha(static_cast<unsigned char>(word[letters]))) ++letters;
    std::string base = word.substr(0, letters), digits;
    size_t end = letters;
    while (end < word.size() && std::isdigit(static_cast<unsigned char>(word[end]))) ++end;
    digits = word.substr(letters, end - letters);
    const std::string rest = word.substr(end);
    // Ahat, uhat01, alphahat11: a letter or a Greek name and "hat" (not "that", "what": a
    // lowercase letter needs digits).
    const bool hat_suffix = base.size() > 3 && base.compare(base.size() - 3, 3, "hat") == 0;
    const std::string unhatted = hat_suffix ? base.substr(0, base.size() - 3) : std::string();
    if (hat_suffix && ((unhatted.size() == 1 && (std::isupper(static_cast<unsigned char>(base[0])) || !digits.empty())) ||
                       (greek(unhatted) && !digits.empty()))) {
        hat = true;
        base = unhatted;
    }
    // Abar, abar01, alphabar11: an original with the row interchanges applied (LU with
    // pivoting's states), barred.
    bool bar = false;
    const bool bar_suffix = !hat && base.size() > 3 && base.compare(base.size() - 3, 3, "bar") == 0;
    const std::string unbarred = bar_suffix ? base.substr(0, base.size() - 3) : std::string();
    if (bar_suffix && ((unbarred.size() == 1 && (std::isupper(static_cast<unsigned char>(base[0])) || !digits.empty())) ||
                       (greek(unbarred) && !digits.empty()))) {
        bar = true;
        base = unbarred;
    }
    const bool single = base.size() == 1 || greek(base);
    if (!digits.empty() && single && (rest.empty() || (rest == "t" && std::islower(static_cast<unsigned char>(base[0]))))) {
        n.text = base;
        n.sub = digits;
        if (rest == "t") n.sup = "T";
    } else if (!rest.empty() || !digits.empty()) {
        n.text = word; // a name such as x2y: upright, as written
    } else if (single || is_quadrant(base)) {
        n.text = base;
    } else if (base.size() > 1 && is_part(base.substr(1))) {
        n.text = base.substr(0, 1); // BT, BB, LTL, pT: B sub T, L sub TL, p sub T
        n.sub = base.substr(1);
    } else if (std::isupper(static_cast<unsigned char>(base[0])) || call) {
        n.text = base; // LU, Chol, sqrt(, tril(: a named operation, upright
    } else {
        return make(Kind::Text, word); // prose
    }
    n.hat = hat;
    n.bar = bar;
    return n;
}

struct Parser {
    const std::string& s;
    size_t i = 0;
    int depth = 0; // of nested groups: past kMaxDepth a bracket is text, so no input exhausts the stack
    static constexpr int kMaxDepth = 64;

    bool at(const char* token) const { return s.compare(i, std::strlen(token), token) == 0; }

    // A script after _ or ^: {...} (balanced), or a run of letters and digits, with a
    // leading minus (^-1, ^-T).
    std::string script()
    {
        if (i < s.size() && s[i] == '{') {
            int depth = 0;
            const size_t start = i + 1;
            for (; i < s.size(); ++i) {
                depth += s[i] == '{' ? 1 : s[i] == '}' ? -1 : 0;
                if (depth == 0) break;
            }
            const std::string inside = s.substr(start, i - start);
            if (i < s.size()) ++i;
            return inside;
        }
        const size_t start = i;
        if (i < s.size() && s[i] == '-') ++i;
        while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
        return s.substr(start, i - start);
    }

    // The nodes up to `closer` (not consumed) or the end.
    std::vector<Node> sequence(char closer)
    {
        std::vector<Node> out;
        while (true) {
            bool space = false;
            while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) {
                ++i;
                space = true;
            }
            if (i >= s.size() || s[i] == closer) break;
            Node n = primary();
            n.space_before = space;
            // Scripts: _ and ^ on any node; ^T after a word that already ends in t is the same transpose.
            while (i < s.size() && (s[i] == '_' || s[i] == '^') && n.kind != Kind::Op && n.kind != Kind::Text) {
                const bool sub = s[i] == '_';
                ++i;
                const std::string sc = script();
                std::string& slot = sub ? n.sub : n.sup;
                slot += slot.empty() ? sc : "," + sc;
            }
            out.push_back(std::move(n));
        }
        return merge_prose(std::move(out));
    }

    Node primary()
    {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if ((c == '(' || c == '[' || c == '{') && depth < kMaxDepth) {
            const char closer = c == '(' ? ')' : c == '[' ? ']' : '}';
            ++i;
            ++depth;
            std::vector<Node> inside = sequence(closer);
            --depth;
            Node n = make(Kind::Fence);
            n.open = std::string(1, static_cast<char>(c));
            if (i < s.size()) {
                n.close = std::string(1, closer);
                ++i;
            }
            n.children = std::move(inside);
            if (c == '{' && !n.close.empty()) {
                // {L\U}00, {L\U}TL: the block's subscript written against the braces.
                size_t end = i;
                while (end < s.size() && std::isalnum(static_cast<unsigned char>(s[end]))) ++end;
                const std::string run = s.substr(i, end - i);
                if (!run.empty() && (is_part(run) || std::all_of(run.begin(), run.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); }))) {
                    n.sub = run;
                    i = end;
                }
            }
            return c == '(' ? partitioned(std::move(n)) : n;
        }
        if (std::isdigit(c) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            const size_t start = i;
            while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
            return make(Kind::Number, s.substr(start, i - start));
        }
        if (std::isalpha(c) || (c == 0xc3 && i + 1 < s.size() && hatted(static_cast<unsigned char>(s[i + 1])))) {
            std::string word;
            bool hat = false;
            while (i < s.size()) {
                const unsigned char d = static_cast<unsigned char>(s[i]);
                if (std::isalnum(d)) {
                    word += s[i++];
                } else if (d == '_' && word.size() > 3 && std::islower(static_cast<unsigned char>(word[0])) && i + 1 < s.size() &&
                           std::islower(static_cast<unsigned char>(s[i + 1]))) {
                    word += s[i++]; // a name in C++'s style: determine_blocksize
                } else if (d == 0xc3 && i + 1 < s.size() && hatted(static_cast<unsigned char>(s[i + 1]))) {
                    word += hatted(static_cast<unsigned char>(s[i + 1]));
                    hat = true;
                    i += 2;
                } else if (d == 0xcc && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x82) {
                    hat = true; // a combining circumflex
                    i += 2;
                } else {
                    break;
                }
            }
            const bool call = i < s.size() && s[i] == '(';
            if (word == "sqrt" && call) {
                Node inner = primary();
                Node n = make(Kind::Sqrt);
                n.children = inner.kind == Kind::Fence ? std::move(inner.children) : std::vector<Node>{std::move(inner)};
                return n;
            }
            return classify(word, hat, call);
        }
        for (const char* op : {":=", "->", "<-", "<=", ">=", "!=", "==", "+=", "-="})
            if (at(op)) {
                i += std::strlen(op);
                return make(Kind::Op, op);
            }
        if (std::strchr("+-*/=<>,;:?|\\!.')]}&([{", static_cast<char>(c))) {
            ++i;
            return make(Kind::Op, std::string(1, static_cast<char>(c)));
        }
        // Anything else (other UTF-8, $, #, ...): text, one character (its UTF-8 bytes).
        size_t len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        len = std::min(len, s.size() - i);
        Node n = make(Kind::Text, s.substr(i, len));
        i += len;
        return n;
    }

    // Consecutive prose words become one text; "x" between two sizes is a times sign.
    static std::vector<Node> merge_prose(std::vector<Node> in)
    {
        std::vector<Node> out;
        for (size_t k = 0; k < in.size(); ++k) {
            Node& n = in[k];
            const auto operand = [](const Node& m) {
                return m.kind == Kind::Number || (m.kind == Kind::Ident && m.sub.empty() && m.sup.empty() && m.text.size() == 1);
            };
            if (n.kind == Kind::Ident && n.text == "x" && n.sub.empty() && n.sup.empty() && !n.hat && !out.empty() &&
                k + 1 < in.size() && operand(out.back()) && operand(in[k + 1]) && n.space_before && in[k + 1].space_before) {
                n.kind = Kind::Op;
                n.text = "\u00d7";
            }
            // A lone letter between two words ("lies in a quadrant") is a word too.
            if (n.kind == Kind::Ident && n.text.size() == 1 && n.sub.empty() && n.sup.empty() && !n.hat && !out.empty() &&
                out.back().kind == Kind::Text && k + 1 < in.size() && in[k + 1].kind == Kind::Text && std::islower(static_cast<unsigned char>(n.text[0])))
                n.kind = Kind::Text;
            if (n.kind == Kind::Text && !out.empty() && out.back().kind == Kind::Text && n.sub.empty() && n.sup.empty()) {
                out.back().text += (n.space_before ? " " : "") + n.text;
                continue;
            }
            out.push_back(std::move(n));
        }
        return out;
    }

    // A parenthesized group that is a partitioned matrix: rows split at ';', each row
    // one cell when it holds an operator or prose, else one cell per block, when the
    // blocks are of one matrix (A00 a01 A02: one letter, either case; numbers and
    // Greek letters allowed, as in ( LTL 0 ; LBL LBR ) and alpha11).
    static Node partitioned(Node fence)
    {
        std::vector<std::vector<Node>> rows(1);
        for (Node& n : fence.children) {
            if (n.kind == Kind::Op && n.text == ";" && n.sub.empty() && n.sup.empty())
                rows.emplace_back();
            else
                rows.back().push_back(std::move(n));
        }
        char letter = 0;
        bool blocks = true;
        for (const auto& row : rows)
            for (const Node& n : row) {
                if (n.kind == Kind::Number) continue;
                if (n.kind != Kind::Ident || n.text.empty() || (n.sub.empty() && n.text.size() > 1)) {
                    blocks = false;
                    continue;
                }
                if (greek(n.text)) continue;
                const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(n.text[0])));
                if (n.text.size() > 1 || (letter && letter != l)) blocks = false;
                letter = l;
            }
        size_t width = 0;
        for (const auto& row : rows) width = std::max(width, row.size());
        const bool grid = blocks && width > 1 && std::all_of(rows.begin(), rows.end(), [&](const auto& r) { return r.size() == width; });
        if (rows.size() == 1 && !grid) {
            fence.children = std::move(rows.front());
            return fence;
        }
        Node m = make(Kind::Matrix);
        m.open = fence.open;
        m.close = fence.close;
        for (auto& row : rows) {
            m.cells.emplace_back();
            if (grid) {
                for (Node& n : row) {
                    Node cell = make(Kind::Row);
                    cell.children.push_back(std::move(n));
                    m.cells.back().push_back(std::move(cell));
                }
            } else {
                Node cell = make(Kind::Row);
                cell.children = std::move(row);
                m.cells.back().push_back(std::move(cell));
            }
        }
        return m;
    }
};

// --- MathML ------------------------------------------------------------------------

std::string op_mathml(const std::string& op)
{
    if (op == "-") return "\u2212";
    if (op == "*") return "\u22c5";
    if (op == "->") return "\u2192";
    if (op == "<-") return "\u2190";
    if (op == "<=") return "\u2264";
    if (op == ">=") return "\u2265";
    if (op == "!=") return "\u2260";
    return xml_escape(op);
}

std::string script_mathml(const std::string& script);

std::string node_mathml(const Node& n);

std::string row_mathml(const std::vector<Node>& nodes)
{
    std::string out;
    for (const Node& n : nodes) out += node_mathml(n);
    return nodes.size() == 1 ? out : "<mrow>" + out + "</mrow>";
}

std::string base_mathml(const Node& n)
{
    switch (n.kind) {
    case Kind::Ident: {
        const Greek* g = greek(n.text);
        std::string mi = "<mi>" + (g ? std::string(g->utf8) : xml_escape(n.text)) + "</mi>";
        if (n.hat) mi = "<mover accent=\"true\">" + mi + "<mo>^</mo></mover>";
        if (n.bar) mi = "<mover accent=\"true\">" + mi + "<mo>&#xAF;</mo></mover>";
        return mi;
    }
    case Kind::Number: return "<mn>" + xml_escape(n.text) + "</mn>";
    case Kind::Op: return "<mo>" + op_mathml(n.text) + "</mo>";
    case Kind::Text: return "<mtext>" + std::string(n.space_before ? "\u00a0" : "") + xml_escape(n.text) + "\u00a0</mtext>";
    case Kind::Fence:
        return "<mrow><mo>" + xml_escape(n.open == "{" ? "{" : n.open) + "</mo>" + row_mathml(n.children) +
               (n.close.empty() ? "" : "<mo>" + xml_escape(n.close) + "</mo>") + "</mrow>";
    case Kind::Sqrt: return "<msqrt>" + row_mathml(n.children) + "</msqrt>";
    case Kind::Matrix: {
        // FLAME's partition lines: a rule after every column but the last, under every row but the last.
        std::string t = "<mtable class=\"fx-part\">";
        for (size_t r = 0; r < n.cells.size(); ++r) {
            t += "<mtr>";
            for (size_t c = 0; c < n.cells[r].size(); ++c) {
                std::string cls;
                if (c + 1 < n.cells[r].size()) cls += "fx-r";
                if (r + 1 < n.cells.size()) cls += cls.empty() ? "fx-b" : " fx-b";
                t += (cls.empty() ? "<mtd>" : "<mtd class=\"" + cls + "\">") + node_mathml(n.cells[r][c]) + "</mtd>";
            }
            t += "</mtr>";
        }
        t += "</mtable>";
        return "<mrow><mo>" + xml_escape(n.open) + "</mo>" + t + (n.close.empty() ? "" : "<mo>" + xml_escape(n.close) + "</mo>") + "</mrow>";
    }
    case Kind::Row: return row_mathml(n.children);
    }
    return {};
}

// Scripts are parsed when drawn: a counter bounds scripts within scripts (a^{a^{...}}),
// past which a script is drawn as its text.
thread_local int script_depth = 0;
struct ScriptDepth {
    ScriptDepth() { ++script_depth; }
    ~ScriptDepth() { --script_depth; }
    ScriptDepth(const ScriptDepth&) = delete;
    ScriptDepth& operator=(const ScriptDepth&) = delete;
    static bool too_deep() { return script_depth > 16; }
};

std::string script_mathml(const std::string& script)
{
    // Digits and quadrant letters as they are; anything else through the parser (-1, -T, {-1}).
    if (!script.empty() && std::all_of(script.begin(), script.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return "<mn>" + script + "</mn>";
    if (!script.empty() && std::all_of(script.begin(), script.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
        return "<mi>" + xml_escape(script) + "</mi>";
    const ScriptDepth guard;
    if (ScriptDepth::too_deep()) return "<mtext>" + xml_escape(script) + "</mtext>";
    return node_mathml(parse(script));
}

std::string node_mathml(const Node& n)
{
    const std::string base = base_mathml(n);
    if (!n.sub.empty() && !n.sup.empty()) return "<msubsup>" + base + script_mathml(n.sub) + script_mathml(n.sup) + "</msubsup>";
    if (!n.sub.empty()) return "<msub>" + base + script_mathml(n.sub) + "</msub>";
    if (!n.sup.empty()) return "<msup>" + base + script_mathml(n.sup) + "</msup>";
    return base;
}

// --- LaTeX -------------------------------------------------------------------------

// Text for \mbox{}: LaTeX's special characters escaped; a character outside ASCII as
// LaTeX's own symbol when it has one (Greek, *, x, minus, <=, >=), else '?', so that the
// document never needs a Unicode font.
std::string text_latex(const std::string& s)
{
    static const std::pair<const char*, const char*> kSymbols[] = {
        {"\u2217", "$\\ast$"}, {"\u00d7", "$\\times$"}, {"\u2212", "$-$"},  {"\u2264", "$\\le$"}, {"\u2265", "$\\ge$"},
        {"\u22c5", "$\\cdot$"}, {"\u2192", "$\\rightarrow$"}, {"\u2190", "$\\leftarrow$"}, {"\u00b7", "$\\cdot$"}};
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const unsigned char u = static_cast<unsigned char>(c);
        if (u >= 0x80) {
            size_t len = u >= 0xf0 ? 4 : u >= 0xe0 ? 3 : u >= 0xc0 ? 2 : 1;
            len = std::min(len, s.size() - i);
            const std::string ch = s.substr(i, len);
            i += len - 1;
            std::string symbol = "?";
            for (const auto& [utf8, tex] : kSymbols)
                if (ch == utf8) symbol = tex;
            for (const Greek& g : kGreek)
                if (ch == g.utf8) symbol = std::string("$\\") + g.name + "$";
            out += symbol;
            continue;
        }
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
    return out;
}

std::string op_latex(const std::string& op)
{
    if (op == ":=") return "\\mathrel{:=}";
    if (op == "->") return "\\rightarrow";
    if (op == "<-") return "\\leftarrow";
    if (op == "<=") return "\\le";
    if (op == ">=") return "\\ge";
    if (op == "!=") return "\\ne";
    if (op == "*") return "\\cdot";
    if (op == "\\") return "\\backslash";
    if (op == "\u00d7") return "\\times";
    if (op == "\u2217") return "\\ast";
    if (op == ";") return ";\\;";
    if (op == ",") return ",\\,";
    if (op == "{" || op == "}" || op == "&" || op == "%" || op == "#" || op == "$" || op == "_") return "\\" + op;
    if (op == "^") return "\\hat{}";
    return op;
}

std::string node_latex(const Node& n);

std::string row_latex(const std::vector<Node>& nodes)
{
    std::string out;
    for (const Node& n : nodes) out += (out.empty() ? "" : " ") + node_latex(n);
    return out;
}

std::string base_latex(const Node& n)
{
    switch (n.kind) {
    case Kind::Ident: {
        std::string b;
        if (greek(n.text))
            b = (n.text == "epsilon" ? "\\varepsilon" : "\\" + n.text);
        else if (n.text.size() == 1)
            b = n.text;
        else
            b = "\\mathrm{" + n.text + "}";
        if (n.bar) return "\\bar{" + b + "}";
        return n.hat ? (n.text.size() == 1 || greek(n.text) ? "\\hat{" + b + "}" : "\\widehat{" + b + "}") : b;
    }
    case Kind::Number: return n.text;
    case Kind::Op: return op_latex(n.text);
    case Kind::Text: return "\\mbox{" + std::string(n.space_before ? " " : "") + text_latex(n.text) + " }";
    case Kind::Fence: {
        const auto delim = [](const std::string& d) { return d == "{" ? "\\{" : d == "}" ? "\\}" : d.empty() ? "." : d; };
        return "\\left" + std::string(delim(n.open)) + " " + row_latex(n.children) + " \\right" + delim(n.close);
    }
    case Kind::Sqrt: return "\\sqrt{" + row_latex(n.children) + "}";
    case Kind::Matrix: {
        size_t width = 0;
        for (const auto& row : n.cells) width = std::max(width, row.size());
        std::string spec;
        for (size_t c = 0; c < width; ++c) spec += c ? "|c" : "c";
        std::string t = "\\left" + (n.open.empty() ? std::string(".") : n.open) + "\\begin{array}{" + spec + "}";
        for (size_t r = 0; r < n.cells.size(); ++r) {
            for (size_t c = 0; c < n.cells[r].size(); ++c) t += (c ? " & " : " ") + node_latex(n.cells[r][c]);
            if (r + 1 < n.cells.size()) t += " \\\\ \\hline";
        }
        return t + " \\end{array}\\right" + (n.close.empty() ? std::string(".") : n.close);
    }
    case Kind::Row: return row_latex(n.children);
    }
    return {};
}

std::string script_latex(const std::string& script)
{
    if (!script.empty() && std::all_of(script.begin(), script.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
        return "{" + script + "}";
    const ScriptDepth guard;
    if (ScriptDepth::too_deep()) return "{\\mbox{" + text_latex(script) + "}}";
    return "{" + node_latex(parse(script)) + "}";
}

std::string node_latex(const Node& n)
{
    std::string base = base_latex(n);
    if (n.sub.empty() && n.sup.empty()) return base;
    if (n.kind != Kind::Ident && n.kind != Kind::Number) base = "{" + base + "}";
    if (!n.sub.empty()) base += "_" + script_latex(n.sub);
    if (!n.sup.empty()) base += "^" + script_latex(n.sup);
    return base;
}

} // namespace

Node parse(const std::string& text)
{
    Parser p{text};
    Node row = make(Kind::Row);
    while (p.i < text.size()) {
        std::vector<Node> part = p.sequence('\0');
        for (Node& n : part) row.children.push_back(std::move(n));
        if (p.i < text.size() && text[p.i] == '\0') ++p.i;
    }
    return row;
}

std::string mathml(const Node& node, bool block)
{
    return std::string(block ? "<math display=\"block\">" : "<math>") + node_mathml(node) + "</math>";
}
std::string mathml(const std::string& text, bool block) { return mathml(parse(text), block); }

std::string latex(const Node& node) { return node_latex(node); }
std::string latex(const std::string& text) { return latex(parse(text)); }

std::string xml_escape(const std::string& text)
{
    std::string out;
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

} // namespace flamex::derive::notation
