#include "derive/pme.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace flamex::derive {

std::string Expr::text() const
{
    if (!call) return name;
    std::string s = name + "(";
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].text();
    return s + ")";
}


const std::vector<Operation>& operations()
{
    // syrk, trmv, trmm, sqrt and reciprocal are the operations the Cholesky and
    // triangular-inverse derivations call for (issue 12, item 6).
    static const std::vector<Operation> list = {
        {"dots", "siiso"},      {"scal", "so"},          {"invscal", "so"},   {"axpy", "sio"},
        {"copy", "io"},         {"gemv", "fsiiso"},      {"trsv", "fffio"},   {"ger", "siio"},
        {"gemm", "ffsiiso"},    {"trsm", "ffffsio"},     {"apply_pivots", "po"},
        {"syrk", "ffsiso"},     {"trmv", "fffio"},       {"trmm", "ffffsio"}, {"sqrt", "o"},
        {"reciprocal", "o"},    {"iamax", "pi"},         {"check", "i"},      {"inner", "*"},
        {"diag_invscal", "io"}, {"diag_dots", "siiiso"}, {"diag_gemv", "siiiso"},
    };
    return list;
}

const Operation* find_operation(const std::string& name)
{
    for (const Operation& o : operations())
        if (o.name == name) return &o;
    return nullptr;
}

// --- names of blocks ----------------------------------------------------------------

namespace {

std::string lower(std::string s)
{
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

std::vector<std::vector<std::string>> block_names(const Operand& o, bool blocked)
{
    const std::string& A = o.name;
    if (!o.two_by_two) {
        if (blocked) return {{A + "0"}, {A + "1"}, {A + "2"}};
        const std::string middle = o.pivots ? o.scalar + "1" : lower(A) + "1t";
        return {{A + "0"}, {middle}, {A + "2"}};
    }
    if (blocked)
        return {{A + "00", A + "01", A + "02"}, {A + "10", A + "11", A + "12"}, {A + "20", A + "21", A + "22"}};
    const std::string a = lower(A);
    return {{A + "00", a + "01", A + "02"}, {a + "10t", o.scalar + "11", a + "12t"}, {A + "20", a + "21", A + "22"}};
}

std::vector<std::vector<std::string>> quadrant_names(const Operand& o)
{
    if (!o.two_by_two) return {{o.name + "T"}, {o.name + "B"}};
    return {{o.name + "TL", o.name + "TR"}, {o.name + "BL", o.name + "BR"}};
}

bool find_block(const Pme& pme, const std::string& name, Block& block)
{
    for (const Operand& o : pme.operands)
        for (const bool blocked : {false, true}) {
            const auto names = block_names(o, blocked);
            for (size_t i = 0; i < names.size(); ++i)
                for (size_t j = 0; j < names[i].size(); ++j)
                    if (names[i][j] == name) {
                        block = {&o, static_cast<int>(i), static_cast<int>(j)};
                        return true;
                    }
        }
    return false;
}

std::string quadrant_of(const Pme& pme, const Block& b, bool after)
{
    const int boundary = after ? 1 : 0; // the last block row / column in T / L
    std::string q = b.row <= boundary ? "T" : "B";
    if (b.operand->two_by_two) q += b.col <= boundary ? "L" : "R";
    return b.operand == &pme.operands.front() ? q : b.operand->name + "." + q;
}

// --- the parser -----------------------------------------------------------------------

namespace {

struct Token {
    enum Kind { Word, Text, Punct, End } kind = End;
    std::string value;
    int column = 0;
};

class Line {
public:
    Line(const std::string& file, int number, const std::string& text) : file_(file), number_(number), text_(text)
    {
        advance();
    }

    const Token& peek() const { return token_; }
    Location here() const { return {file_, number_, token_.column}; }
    Location at(int column) const { return {file_, number_, column}; }
    [[noreturn]] void fail(const std::string& what) const { fail_at(token_.column, what); }
    [[noreturn]] void fail_at(int column, const std::string& what) const
    {
        throw Error(Location{file_, number_, column}.str() + ": " + what);
    }

    Token next()
    {
        Token t = token_;
        advance();
        return t;
    }
    bool at_end() const { return token_.kind == Token::End; }
    // The rest of the line as written, from the current token on (an expression).
    std::string rest(Location& at)
    {
        at = here();
        std::string r = token_.kind == Token::End ? "" : text_.substr(static_cast<size_t>(token_.column - 1));
        const size_t hash = r.find('#');
        if (hash != std::string::npos) r = r.substr(0, hash);
        pos_ = text_.size();
        token_ = Token();
        token_.column = static_cast<int>(pos_) + 1;
        return r;
    }
    std::string word(const char* what)
    {
        if (token_.kind != Token::Word) fail(std::string("expected ") + what + describe());
        return next().value;
    }
    std::string text(const char* what)
    {
        if (token_.kind != Token::Text) fail(std::string("expected ") + what + " in double quotes" + describe());
        return next().value;
    }
    bool punct(char c)
    {
        if (token_.kind == Token::Punct && token_.value[0] == c) {
            advance();
            return true;
        }
        return false;
    }
    void expect(char c)
    {
        if (!punct(c)) fail(std::string("expected '") + c + "'" + describe());
    }
    void end()
    {
        if (!at_end()) fail("unexpected " + describe().substr(2));
    }

private:
    std::string describe() const
    {
        switch (token_.kind) {
        case Token::End: return ", found the end of the line";
        case Token::Text: return ", found \"" + token_.value + "\"";
        default: return ", found '" + token_.value + "'";
        }
    }

    void advance()
    {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        token_ = Token();
        token_.column = static_cast<int>(pos_) + 1;
        if (pos_ >= text_.size() || text_[pos_] == '#') {
            pos_ = text_.size();
            return;
        }
        const char c = text_[pos_];
        if (c == '"') {
            const size_t close = text_.find('"', pos_ + 1);
            if (close == std::string::npos) fail_at(token_.column, "unterminated \"");
            token_.kind = Token::Text;
            token_.value = text_.substr(pos_ + 1, close - pos_ - 1);
            pos_ = close + 1;
            return;
        }
        if (c == '(' || c == ')' || c == ',' || c == ':') {
            token_.kind = Token::Punct;
            token_.value = std::string(1, c);
            ++pos_;
            return;
        }
        const size_t begin = pos_;
        while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) &&
               std::string("()\",:#").find(text_[pos_]) == std::string::npos)
            ++pos_;
        token_.kind = Token::Word;
        token_.value = text_.substr(begin, pos_ - begin);
    }

    std::string file_;
    int number_;
    std::string text_;
    size_t pos_ = 0;
    Token token_;
};

Expr parse_expr(Line& line)
{
    Expr e;
    e.where = line.here();
    e.name = line.word("an operation, a block name or a number");
    if (!line.punct('(')) return e;
    e.call = true;
    if (line.punct(')')) return e;
    do {
        e.args.push_back(parse_expr(line));
    } while (line.punct(','));
    line.expect(')');
    return e;
}

class Parser {
public:
    explicit Parser(const std::string& file) { pme_.file = file; }

    void line(Line& l)
    {
        if (l.at_end()) return;
        const Location where = l.here();
        const std::string keyword = l.word("a keyword");
        if (keyword == "operation") {
            pme_.name = l.word("the operation's name");
        } else if (keyword == "title") {
            pme_.title = l.text("the title");
        } else if (keyword == "statement") {
            pme_.statement = l.text("the statement");
        } else if (keyword == "precondition") {
            pme_.precondition = l.text("the precondition");
        } else if (keyword == "postcondition") {
            pme_.postcondition = l.text("the postcondition");
        } else if (keyword == "libflame") {
            pme_.libflame = l.word("the libflame routine pattern");
        } else if (keyword == "definition") {
            pme_.definition_where = l.here();
            pme_.definition = l.text("the definition");
        } else if (keyword == "input") {
            Input in;
            in.where = where;
            in.operand = l.word("an operand");
            in.kind = l.word("random, dominant or spd");
            while (!l.at_end()) {
                const Location at = l.here();
                const std::string size = l.word("a size (6x4)");
                const size_t x = size.find('x');
                char* end = nullptr;
                const long m = x == std::string::npos ? -1 : std::strtol(size.c_str(), &end, 10);
                const bool good = x != std::string::npos && end == size.c_str() + x && m >= 0;
                const long n = good ? std::strtol(size.c_str() + x + 1, &end, 10) : -1;
                if (!good || n < 0 || end != size.c_str() + size.size()) throw Error(at.str() + ": a size is MxN, not '" + size + "'");
                in.sizes.push_back({m, n});
            }
            pme_.inputs.push_back(in);
        } else if (keyword == "note") {
            pme_.notes.push_back(l.text("the note"));
        } else if (keyword == "directions") {
            const std::string d = l.word("forward or backward");
            if (d != "forward" && d != "backward") l.fail_at(l.here().column - 1, "directions is forward or backward, not '" + d + "'");
            pme_.forward_only = d == "forward";
            pme_.backward_only = d == "backward";
        } else if (keyword == "zero_pivot") {
            const std::string policy = l.word("stop or continue");
            if (policy != "stop" && policy != "continue") l.fail_at(l.here().column - 1, "zero_pivot is stop or continue, not '" + policy + "'");
            pme_.continue_on_zero_pivot = policy == "continue";
        } else if (keyword == "operand") {
            operand(l, where);
        } else if (keyword == "index") {
            while (!l.at_end()) pme_.indices.push_back(l.word("an index space's name"));
        } else if (keyword == "equation") {
            Location at;
            const std::string text = l.rest(at);
            parse_equation(pme_, text, at, pme_.definition_lhs, pme_.definition_rhs);
        } else if (keyword == "pme") {
            Equation e;
            e.where = where;
            const Location index_at = l.here();
            // One index space, or two that move together ("m,n": the diagonal of an
            // m x n operand, which may be rectangular).
            e.index = l.word("the index space the PME partitions");
            while (l.punct(','))
                e.index += "," + l.word("the second index space, moving with the first");
            for (size_t at = 0; at <= e.index.size();) {
                const size_t comma = std::min(e.index.find(',', at), e.index.size());
                const std::string one = e.index.substr(at, comma - at);
                if (std::find(pme_.indices.begin(), pme_.indices.end(), one) == pme_.indices.end())
                    throw Error(index_at.str() + ": unknown index space '" + one + "' (declare it with `index`)");
                at = comma + 1;
            }
            Location at;
            e.text = l.rest(at);
            parse_equation(pme_, e.text, at, e.lhs, e.rhs);
            const Operand* o = pme_.operand(e.lhs.operand);
            if (o->input_only()) throw Error(at.str() + ": " + o->name + " is an input; the PME's equations give outputs");
            pme_.equations.push_back(e);
        } else if (keyword == "variant") {
            variant(l, where);
        } else if (keyword == "cpp") {
            const std::string key = l.word("the cpp key");
            std::vector<std::string>& lines = pme_.cpp[key];
            lines.clear();
            do {
                lines.push_back(l.text("a line of C++"));
            } while (!l.at_end());
        } else if (keyword == "task" || keyword == "step" || keyword == "form" || keyword == "finish" || keyword == "guard" ||
                   keyword == "underivable") {
            // The step format (hand-written 3x3 steps, tasks and tags) was removed (issue 27).
            throw Error(where.str() + ": '" + keyword + "' is not a statement of the PME format (the step format is gone: "
                        "write the operation's `pme` equations, from which the engine derives the invariants and the updates; "
                        "docs/derivation.md)");
        } else {
            throw Error(where.str() + ": unknown keyword '" + keyword + "'");
        }
        l.end();
    }

    Pme finish(int last_line)
    {
        const Location eof{pme_.file, last_line, 1};
        const auto require = [&](const std::string& value, const char* what) {
            if (value.empty()) throw Error(eof.str() + ": the description has no " + what);
        };
        require(pme_.name, "operation");
        require(pme_.title, "title");
        if (pme_.operands.empty()) throw Error(eof.str() + ": the description has no operand");
        if (pme_.equations.empty()) throw Error(eof.str() + ": the description has no `pme` equation");
        if (pme_.definition_rhs.is_zero() && pme_.definition_lhs.operand.empty())
            throw Error(eof.str() + ": the description has no `equation` (the operation, unpartitioned)");
        for (const Input& in : pme_.inputs) {
            if (in.sizes.size() != pme_.inputs.front().sizes.size())
                throw Error(in.where.str() + ": every input names as many sizes as the first (" + std::to_string(pme_.inputs.front().sizes.size()) + ")");
            if (std::none_of(pme_.operands.begin(), pme_.operands.end(), [&](const Operand& o) { return o.name == in.operand && !o.pivots; }))
                throw Error(in.where.str() + ": unknown matrix operand '" + in.operand + "'");
        }
        return pme_;
    }

private:
    void operand(Line& l, const Location& where)
    {
        Operand o;
        o.where = where;
        o.name = l.word("the operand's name");
        const Location kind_at = l.here();
        const std::string kind = l.word("in, out or inout");
        if (kind == "in" || kind == "out" || kind == "inout") {
            // `operand L in lower m m lambda`.
            o.role = kind;
            const Location structure_at = l.here();
            o.structure = l.word("the structure (general, lower, upper, unit_lower, unit_upper, symmetric_lower, symmetric_upper, pivots)");
            if (o.structure == "pivots") {
                // `operand p out pivots m pi`: the row interchanges of a factorization,
                // one per row index m (P( p_T ) in the PME); pi the unblocked form's pi1.
                o.pivots = true;
                o.two_by_two = false;
                const Location index_at = l.here();
                o.row_index = l.word("the index space of its rows");
                if (std::find(pme_.indices.begin(), pme_.indices.end(), o.row_index) == pme_.indices.end())
                    throw Error(index_at.str() + ": unknown index space '" + o.row_index + "' (declare it with `index` first)");
                o.scalar = l.word("the scalar's name (pi)");
                for (const Operand& p : pme_.operands)
                    if (p.name == o.name) throw Error(where.str() + ": operand " + o.name + " declared twice");
                pme_.operands.push_back(o);
                return;
            }
            static const char* structures[] = {"general", "lower", "upper", "unit_lower", "unit_upper", "symmetric_lower", "symmetric_upper"};
            if (std::none_of(std::begin(structures), std::end(structures), [&](const char* x) { return o.structure == x; }))
                throw Error(structure_at.str() + ": unknown structure '" + o.structure +
                            "' (general, lower, upper, unit_lower, unit_upper, symmetric_lower, symmetric_upper)");
            for (std::string* index : {&o.row_index, &o.col_index}) {
                const Location index_at = l.here();
                *index = l.word("the index space of its rows, then of its columns");
                if (std::find(pme_.indices.begin(), pme_.indices.end(), *index) == pme_.indices.end())
                    throw Error(index_at.str() + ": unknown index space '" + *index + "' (declare it with `index` first)");
            }
            if (o.structure != "general" && o.row_index != o.col_index)
                throw Error(structure_at.str() + ": a " + o.structure + " operand is square (one index space for rows and columns)");
            o.scalar = l.word("the scalar's name (alpha)");
            if (l.peek().kind == Token::Word && l.peek().value == "->") { // the result's structure
                l.next();
                const Location result_at = l.here();
                o.result = l.word("the result's structure");
                if (std::none_of(std::begin(structures), std::end(structures), [&](const char* x) { return o.result == x; }))
                    throw Error(result_at.str() + ": unknown structure '" + o.result + "'");
            }
            for (const Operand& p : pme_.operands)
                if (p.name == o.name) throw Error(where.str() + ": operand " + o.name + " declared twice");
            pme_.operands.push_back(o);
            return;
        }
        if (kind == "matrix" || kind == "pivots")
            throw Error(kind_at.str() + ": `operand NAME " + kind + " ...` is the removed step format's; an operand is `operand NAME in|out|inout "
                        "STRUCTURE ROWS COLS SCALAR` (pivots: `operand p out pivots m pi`)");
        throw Error(kind_at.str() + ": an operand's role is in, out or inout, not '" + kind + "'");
    }

    static int variant_number(Line& l)
    {
        const Location at = l.here();
        const std::string number = l.word("the variant's number");
        if (number.empty() || number.size() > 2 || !std::all_of(number.begin(), number.end(), ::isdigit) || number == "0")
            throw Error(at.str() + ": a variant's number is 1..99, not '" + number + "'");
        return std::stoi(number);
    }

    void variant(Line& l, const Location& where)
    {
        { // `variant N "summary" Q = EXPR ; Q = EXPR`
            InvariantDecl d;
            d.where = where;
            d.number = variant_number(l);
            d.summary = l.text("the variant's summary");
            Location at;
            const std::string text = l.rest(at);
            size_t begin = 0;
            for (;;) {
                // The next ';' outside parentheses (a panel ( X ; Y ) has its own).
                size_t semicolon = std::string::npos;
                for (size_t k = begin, depth = 0; k < text.size() && semicolon == std::string::npos; ++k) {
                    if (text[k] == '(') ++depth;
                    else if (text[k] == ')' && depth > 0) --depth;
                    else if (text[k] == ';' && depth == 0) semicolon = k;
                }
                const std::string part = text.substr(begin, semicolon == std::string::npos ? std::string::npos : semicolon - begin);
                Math lhs, rhs;
                parse_equation(pme_, part, Location{at.file, at.line, at.column + static_cast<int>(begin)}, lhs, rhs);
                d.holds.push_back({lhs, rhs});
                if (semicolon == std::string::npos) break;
                begin = semicolon + 1;
            }
            for (const InvariantDecl& w : pme_.declared)
                if (w.number == d.number) throw Error(where.str() + ": variant " + std::to_string(d.number) + " declared twice");
            pme_.declared.push_back(d);
        }
    }

    Pme pme_;
};

} // namespace

Pme parse_pme(const std::string& text, const std::string& file)
{
    Parser parser(file);
    std::istringstream in(text);
    int number = 0;
    for (std::string content; std::getline(in, content);) {
        ++number;
        Line line(file, number, content);
        parser.line(line);
    }
    return parser.finish(number + 1);
}

Pme read_pme(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw Error("cannot read PME description '" + path + "'");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_pme(text.str(), path);
}

} // namespace flamex::derive
