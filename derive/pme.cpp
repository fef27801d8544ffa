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

const Task* Pme::task(const std::string& name) const
{
    for (const Task& t : tasks)
        if (t.name == name) return &t;
    return nullptr;
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

bool is_number(const std::string& s)
{
    if (s.empty()) return false;
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}

bool is_quadrant(const std::string& q) { return q == "TL" || q == "TR" || q == "BL" || q == "BR" || q == "T" || q == "B"; }

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
        } else if (keyword == "guard") {
            pme_.guard = l.text("the loop guard");
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
            pme_.derived = true;
            while (!l.at_end()) pme_.indices.push_back(l.word("an index space's name"));
        } else if (keyword == "equation") {
            pme_.derived = true;
            Location at;
            const std::string text = l.rest(at);
            parse_equation(pme_, text, at, pme_.definition_lhs, pme_.definition_rhs);
        } else if (keyword == "pme") {
            pme_.derived = true;
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
        } else if (keyword == "task") {
            task(l, where);
        } else if (keyword == "variant") {
            variant(l, where);
        } else if (keyword == "underivable") {
            Underivable u;
            u.where = where;
            u.number = variant_number(l);
            u.reason = l.text("why the variant does not come from this PME");
            pme_.underivable.push_back(u);
        } else if (keyword == "finish") {
            Finish f;
            f.where = where;
            f.task = l.word("a task");
            f.description = l.text("the finishing update");
            l.expect(':');
            f.call = parse_expr(l);
            pme_.finishes.push_back(f);
        } else if (keyword == "form") {
            const Location at = l.here();
            const std::string form = l.word("unblocked or blocked");
            if (form != "unblocked" && form != "blocked") throw Error(at.str() + ": form is unblocked or blocked, not '" + form + "'");
            form_ = form == "blocked" ? &pme_.blocked : &pme_.unblocked;
        } else if (keyword == "step") {
            if (form_ == nullptr) throw Error(where.str() + ": step before any `form unblocked` or `form blocked`");
            step(l, where);
        } else if (keyword == "cpp") {
            const std::string key = l.word("the cpp key");
            std::vector<std::string>& lines = pme_.cpp[key];
            lines.clear();
            do {
                lines.push_back(l.text("a line of C++"));
            } while (!l.at_end());
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
        if (pme_.derived) {
            if (!pme_.tasks.empty() || !pme_.unblocked.empty() || !pme_.blocked.empty() || !pme_.finishes.empty())
                throw Error(eof.str() + ": a description with `pme` equations derives its updates: no task, step or finish lines");
            if (pme_.equations.empty()) throw Error(eof.str() + ": the description has no `pme` equation");
            if (pme_.definition_rhs.is_zero() && pme_.definition_lhs.operand.empty())
                throw Error(eof.str() + ": the description has no `equation` (the operation, unpartitioned)");
            for (const Operand& o : pme_.operands)
                if (o.role.empty()) throw Error(o.where.str() + ": mixes the step format's operand with the derived one's");
            return pme_;
        }
        require(pme_.guard, "guard");
        if (!pme_.operands.front().two_by_two || pme_.operands.front().pivots)
            throw Error(pme_.operands.front().where.str() + ": the first operand must be a 2x2 matrix");
        if (pme_.tasks.empty()) throw Error(eof.str() + ": the description has no task");
        if (pme_.unblocked.empty()) throw Error(eof.str() + ": the description has no `form unblocked` steps");
        for (const Task& t : pme_.tasks) {
            for (const Need& n : t.needs) known_task(n.task, n.where);
            for (const Need& n : t.excludes) known_task(n.task, n.where);
            for (const std::string& q : t.quadrants) known_quadrant(q, t.where);
        }
        for (const VariantDecl& v : pme_.variants) {
            for (const std::string& t : v.tasks) known_task(t, v.where);
            for (const VariantDecl& w : pme_.variants)
                if (&w != &v && w.number == v.number) throw Error(w.where.str() + ": variant " + std::to_string(v.number) + " declared twice");
        }
        for (const Underivable& u : pme_.underivable) {
            for (const VariantDecl& v : pme_.variants)
                if (v.number == u.number)
                    throw Error(u.where.str() + ": variant " + std::to_string(u.number) + " is declared (line " +
                                std::to_string(v.where.line) + ") and underivable");
            for (const Underivable& w : pme_.underivable)
                if (&w != &u && w.number == u.number) throw Error(w.where.str() + ": variant " + std::to_string(u.number) + " declared underivable twice");
        }
        for (const Input& in : pme_.inputs) {
            if (in.sizes.size() != pme_.inputs.front().sizes.size())
                throw Error(in.where.str() + ": every input names as many sizes as the first (" + std::to_string(pme_.inputs.front().sizes.size()) + ")");
            if (std::none_of(pme_.operands.begin(), pme_.operands.end(), [&](const Operand& o) { return o.name == in.operand && !o.pivots; }))
                throw Error(in.where.str() + ": unknown matrix operand '" + in.operand + "'");
        }
        for (const Finish& f : pme_.finishes) {
            known_task(f.task, f.where);
            check_call(f.call, true);
        }
        for (const auto* form : {&pme_.unblocked, &pme_.blocked})
            for (const Step& s : *form) check_step(s);
        return pme_;
    }

private:
    void operand(Line& l, const Location& where)
    {
        Operand o;
        o.where = where;
        o.name = l.word("the operand's name");
        const Location kind_at = l.here();
        const std::string kind = l.word("in, out, inout (or, in the step format, matrix or pivots)");
        if (kind == "in" || kind == "out" || kind == "inout") {
            // `operand L in lower m m lambda`: the derived format.
            pme_.derived = true;
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
        if (kind != "matrix" && kind != "pivots") throw Error(kind_at.str() + ": an operand is a matrix or pivots, not '" + kind + "'");
        o.pivots = kind == "pivots";
        const Location shape_at = l.here();
        const std::string shape = l.word("2x2 or 2x1");
        if (shape != "2x2" && shape != "2x1") throw Error(shape_at.str() + ": an operand is partitioned 2x2 or 2x1, not '" + shape + "'");
        o.two_by_two = shape == "2x2";
        if (o.pivots && o.two_by_two) throw Error(shape_at.str() + ": pivots are partitioned 2x1");
        o.scalar = l.word("the scalar's name (alpha)");
        for (const Operand& p : pme_.operands)
            if (p.name == o.name) throw Error(where.str() + ": operand " + o.name + " declared twice");
        pme_.operands.push_back(o);
    }

    void task(Line& l, const Location& where)
    {
        Task t;
        t.where = where;
        t.name = l.word("the task's name");
        if (pme_.task(t.name)) throw Error(where.str() + ": task " + t.name + " declared twice");
        do {
            t.quadrants.push_back(l.word("a quadrant (TL, TR, BL, BR)"));
        } while (l.punct(','));
        t.formula = l.text("the task's formula");
        while (!l.at_end()) {
            const Location at = l.here();
            const std::string word = l.word("needs, excludes or recursive");
            if (word == "recursive") {
                t.recursive = true;
            } else if (word == "needs" || word == "excludes") {
                auto& list = word == "needs" ? t.needs : t.excludes;
                do {
                    Need n;
                    n.where = l.here();
                    n.task = l.word("a task");
                    if (l.peek().kind == Token::Text) n.reason = l.next().value;
                    list.push_back(n);
                } while (l.peek().kind == Token::Word && l.peek().value != "needs" && l.peek().value != "excludes" &&
                         l.peek().value != "recursive");
            } else {
                throw Error(at.str() + ": expected needs, excludes or recursive, found '" + word + "'");
            }
        }
        pme_.tasks.push_back(t);
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
        VariantDecl v;
        v.where = where;
        v.number = variant_number(l);
        if (pme_.derived) { // `variant N "summary" Q = EXPR ; Q = EXPR`
            InvariantDecl d;
            d.where = where;
            d.number = v.number;
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
            return;
        }
        while (l.peek().kind == Token::Word) v.tasks.push_back(l.next().value);
        v.summary = l.text("the variant's summary");
        pme_.variants.push_back(v);
    }

    void step(Line& l, const Location& where)
    {
        Step s;
        s.where = where;
        s.description = l.text("the step's update");
        bool after_seen = false, before_seen = false;
        while (!l.punct(':')) {
            const Location at = l.here();
            const std::string word = l.word("after, before, divides or ':'");
            if (word == "divides") {
                s.divides = true;
                continue;
            }
            if (word != "after" && word != "before") throw Error(at.str() + ": expected after, before, divides or ':', found '" + word + "'");
            (word == "after" ? after_seen : before_seen) = true;
            auto& list = word == "after" ? s.after : s.before;
            while (l.peek().kind == Token::Word && l.peek().value != "after" && l.peek().value != "before" &&
                   l.peek().value != "divides") {
                const Location name_at = l.here();
                const std::string name = l.next().value;
                if (name == "none") continue;
                for (size_t begin = 0;;) { // tl+bla: a step of both tasks
                    const size_t plus = name.find('+', begin);
                    known_task(name.substr(begin, plus - begin), name_at);
                    if (plus == std::string::npos) break;
                    begin = plus + 1;
                }
                list.push_back(name);
            }
        }
        if (!after_seen || s.after.empty()) throw Error(where.str() + ": a step names the tasks it belongs to after the repartitioning (after TASK ...)");
        if (!before_seen) throw Error(where.str() + ": a step names the tasks it belongs to before the repartitioning (before TASK ..., or before none)");
        s.call = parse_expr(l);
        form_->push_back(s);
    }

    void known_task(const std::string& name, const Location& where) const
    {
        if (!pme_.task(name)) throw Error(where.str() + ": unknown task '" + name + "'");
    }

    void known_quadrant(const std::string& q, const Location& where) const
    {
        const size_t dot = q.find('.');
        const std::string operand = dot == std::string::npos ? pme_.operands.front().name : q.substr(0, dot);
        const std::string part = dot == std::string::npos ? q : q.substr(dot + 1);
        for (const Operand& o : pme_.operands)
            if (o.name == operand && is_quadrant(part) && (part.size() == 2) == o.two_by_two) return;
        throw Error(where.str() + ": unknown quadrant '" + q + "'");
    }

    // The blocks a view argument names (merges looked into); a finishing update may
    // also name whole operands and quadrants.
    void blocks_of(const Expr& e, std::vector<std::pair<Block, Location>>& out, bool finishing) const
    {
        if (e.call) {
            if (e.name != "merge_2x1" && e.name != "merge_1x2") throw Error(e.where.str() + ": '" + e.name + "' is not a view (merge_2x1, merge_1x2 or a block)");
            if (e.args.size() < 2) throw Error(e.where.str() + ": " + e.name + " merges at least two views");
            for (const Expr& a : e.args) blocks_of(a, out, finishing);
            return;
        }
        Block b;
        if (find_block(pme_, e.name, b)) {
            out.push_back({b, e.where});
            return;
        }
        if (finishing)
            for (const Operand& o : pme_.operands) {
                if (e.name == o.name) return;
                for (const auto& row : quadrant_names(o))
                    for (const std::string& q : row)
                        if (q == e.name) return;
            }
        throw Error(e.where.str() + ": unknown block '" + e.name + "'");
    }

    // Checks the operation and its arguments; returns the blocks it writes.
    std::vector<std::pair<Block, Location>> check_call(const Expr& call, bool finishing) const
    {
        if (!call.call) throw Error(call.where.str() + ": expected an operation, found '" + call.name + "'");
        const Operation* op = find_operation(call.name);
        if (!op) {
            std::string known;
            for (const Operation& o : operations()) known += (known.empty() ? "" : ", ") + o.name;
            throw Error(call.where.str() + ": unknown operation '" + call.name + "' (known: " + known + ")");
        }
        std::vector<std::pair<Block, Location>> written;
        if (op->params == "*") return written;
        if (call.args.size() != op->params.size())
            throw Error(call.where.str() + ": " + call.name + " takes " + std::to_string(op->params.size()) + " arguments, found " +
                        std::to_string(call.args.size()));
        for (size_t i = 0; i < call.args.size(); ++i) {
            const Expr& a = call.args[i];
            const char kind = op->params[i];
            if (kind == 'f') {
                static const char* flags[] = {"LOWER", "UPPER", "NO_TRANSPOSE", "TRANSPOSE", "UNIT", "NONUNIT", "LEFT", "RIGHT"};
                if (a.call || std::find(std::begin(flags), std::end(flags), a.name) == std::end(flags))
                    throw Error(a.where.str() + ": argument " + std::to_string(i + 1) + " of " + call.name + " is a flag (LOWER, TRANSPOSE, UNIT, LEFT, ...), not '" + a.text() + "'");
            } else if (kind == 's') {
                Block b;
                const std::string block = !a.name.empty() && a.name[0] == '-' ? a.name.substr(1) : a.name;
                if (!is_number(a.name) && (a.call || !find_block(pme_, block, b)))
                    throw Error(a.where.str() + ": argument " + std::to_string(i + 1) + " of " + call.name + " is a scalar (a number or a 1x1 block), not '" + a.text() + "'");
            } else {
                std::vector<std::pair<Block, Location>> blocks;
                blocks_of(a, blocks, finishing);
                if (kind == 'o') written.insert(written.end(), blocks.begin(), blocks.end());
            }
        }
        return written;
    }

    void check_step(const Step& s) const
    {
        const auto written = check_call(s.call, false);
        for (const auto& [block, where] : written) {
            for (const bool after : {false, true}) {
                const auto& tasks = after ? s.after : s.before;
                if (tasks.empty()) continue;
                const std::string q = quadrant_of(pme_, block, after);
                bool covered = false;
                for (const std::string& name : tasks)
                    for (const std::string& tq : pme_.task(name.substr(0, name.find('+')))->quadrants) covered |= tq == q;
                if (!covered)
                    throw Error(where.str() + ": this block lies in " + q + (after ? " after" : " before") +
                                " the repartitioning, where none of the step's tasks (" + join(tasks) + ") computes");
            }
        }
    }

    static std::string join(const std::vector<std::string>& v)
    {
        std::string s;
        for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
        return s;
    }

    Pme pme_;
    std::vector<Step>* form_ = nullptr;
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
