#include "derive/math.hpp"

#include <cctype>

#include "derive/pme.hpp"

namespace flamex::derive {

Math Math::unary(Kind k, Math x)
{
    Math m;
    m.kind = k;
    m.where = x.where;
    m.args.push_back(std::move(x));
    return m;
}

Math Math::nary(Kind k, std::vector<Math> xs)
{
    Math m;
    m.kind = k;
    if (!xs.empty()) m.where = xs.front().where;
    m.args = std::move(xs);
    return m;
}

bool same(const Math& a, const Math& b)
{
    if (a.kind != b.kind || a.args.size() != b.args.size()) return false;
    if (a.kind == Math::Kind::Block &&
        (a.operand != b.operand || a.hat != b.hat || a.located != b.located || a.quadrant != b.quadrant ||
         !(a.rows == b.rows) || !(a.cols == b.cols)))
        return false;
    if (a.kind == Math::Kind::Apply && a.name != b.name) return false;
    for (size_t i = 0; i < a.args.size(); ++i)
        if (!same(a.args[i], b.args[i])) return false;
    return true;
}

// --- the parser ------------------------------------------------------------------------

namespace {

bool is_quadrant(const std::string& q)
{
    return q == "TL" || q == "TR" || q == "BL" || q == "BR" || q == "T" || q == "B" || q == "L" || q == "R";
}

class MathParser {
public:
    MathParser(const Pme& pme, const std::string& text, const Location& at) : pme_(pme), text_(text), at_(at) {}

    Math expression()
    {
        std::vector<Math> terms;
        skip();
        bool negate = false;
        if (peek() == '-') {
            ++pos_;
            negate = true;
        } else if (peek() == '+') {
            ++pos_;
        }
        for (;;) {
            Math t = term();
            terms.push_back(negate ? Math::unary(Math::Kind::Neg, t) : t);
            skip();
            if (peek() == '+' || peek() == '-') {
                negate = peek() == '-';
                ++pos_;
                continue;
            }
            break;
        }
        return terms.size() == 1 ? terms.front() : Math::nary(Math::Kind::Sum, terms);
    }

    void expect_end()
    {
        skip();
        if (pos_ < text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    }
    void expect(char c)
    {
        skip();
        if (peek() != c) fail(std::string("expected '") + c + "'" + found());
        ++pos_;
    }
    [[noreturn]] void fail(const std::string& what) const
    {
        throw Error(Location{at_.file, at_.line, at_.column + static_cast<int>(pos_)}.str() + ": " + what);
    }
    Location here() const { return {at_.file, at_.line, at_.column + static_cast<int>(pos_)}; }
    size_t position() const { return pos_; }

    // A block as an equation's left side: an operand's quadrant, not its original.
    Math block()
    {
        skip();
        Math b = primary();
        if (b.kind != Math::Kind::Block) fail("expected an operand's block on the left of '='");
        return b;
    }

private:
    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
    void skip()
    {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    std::string found() const { return pos_ < text_.size() ? ", found '" + std::string(1, text_[pos_]) + "'" : ", found the end"; }

    Math term()
    {
        std::vector<Math> factors;
        factors.push_back(postfix());
        for (;;) {
            skip();
            if (peek() == '*') {
                ++pos_;
                factors.push_back(postfix());
                continue;
            }
            if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '(' || peek() == '0') {
                factors.push_back(postfix());
                continue;
            }
            break;
        }
        return factors.size() == 1 ? factors.front() : Math::nary(Math::Kind::Product, factors);
    }

    Math postfix()
    {
        Math x = primary();
        for (;;) {
            skip();
            if (peek() != '^') return x;
            const Location at = here();
            ++pos_;
            skip();
            std::string sup;
            if (peek() == '{') {
                const size_t close = text_.find('}', pos_);
                if (close == std::string::npos) fail("unterminated '{'");
                sup = text_.substr(pos_ + 1, close - pos_ - 1);
                pos_ = close + 1;
            } else {
                sup = std::string(1, peek());
                ++pos_;
            }
            if (sup == "T") {
                x = Math::unary(Math::Kind::Transpose, x);
            } else if (sup == "-1") {
                x = Math::unary(Math::Kind::Inverse, x);
            } else if (sup == "-T") {
                x = Math::unary(Math::Kind::Transpose, Math::unary(Math::Kind::Inverse, x));
            } else {
                throw Error(at.str() + ": a superscript is ^T, ^{-1} or ^{-T}, not ^" + sup);
            }
            x.where = at;
        }
    }

    Math primary()
    {
        skip();
        const Location at = here();
        if (peek() == '(') {
            ++pos_;
            Math e = expression();
            skip();
            if (peek() == ';') { // a panel of two blocks one above the other: ( X ; Y )
                ++pos_;
                Math below = expression();
                expect(')');
                Math m = Math::nary(Math::Kind::Apply, {e, below});
                m.name = "Stack";
                m.where = at;
                return m;
            }
            expect(')');
            return e;
        }
        if (peek() == '0') {
            ++pos_;
            Math z;
            z.where = at;
            return z;
        }
        if (!std::isalpha(static_cast<unsigned char>(peek()))) fail("expected a block, 0, '(' or a named operation" + found());
        const size_t begin = pos_;
        while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++pos_;
        const std::string word = text_.substr(begin, pos_ - begin);
        skip();
        if (peek() == '(' && !pme_.operand(word)) { // a named operation: LU( X )
            ++pos_;
            Math arg = expression();
            expect(')');
            Math m = Math::unary(Math::Kind::Apply, arg);
            m.name = word;
            m.where = at;
            return m;
        }
        const size_t underscore = word.find('_');
        std::string base = word.substr(0, underscore);
        Math b;
        b.kind = Math::Kind::Block;
        b.where = at;
        if (underscore != std::string::npos) b.quadrant = word.substr(underscore + 1);
        if (!pme_.operand(base) && base.size() > 3 && base.compare(base.size() - 3, 3, "hat") == 0 &&
            pme_.operand(base.substr(0, base.size() - 3))) {
            b.hat = true;
            base = base.substr(0, base.size() - 3);
        }
        const Operand* o = pme_.operand(base);
        if (!o) {
            std::string known;
            for (const Operand& p : pme_.operands) known += (known.empty() ? "" : ", ") + p.name;
            throw Error(at.str() + ": unknown operand '" + base + "' (operands: " + known + "; an original value is " +
                        (pme_.operands.empty() ? std::string("Ahat") : pme_.operands.front().name + "hat") + ")");
        }
        if (underscore != std::string::npos && !is_quadrant(b.quadrant))
            throw Error(Location{at.file, at.line, at.column + static_cast<int>(underscore) + 1}.str() + ": '" + b.quadrant +
                        "' is not a quadrant (T, B, L, R, TL, TR, BL, BR)");
        b.operand = base;
        if (o->input_only()) b.hat = false; // an input is its own original
        return b;
    }

    const Pme& pme_;
    std::string text_;
    Location at_;
    size_t pos_ = 0;
};

} // namespace

Math parse_math(const Pme& pme, const std::string& text, const Location& at)
{
    MathParser p(pme, text, at);
    Math e = p.expression();
    p.expect_end();
    return e;
}

void parse_equation(const Pme& pme, const std::string& text, const Location& at, Math& lhs, Math& rhs)
{
    MathParser p(pme, text, at);
    lhs = p.block();
    if (lhs.hat) p.fail("the left of '=' is the value after the operation, not an original (hat)");
    p.expect('=');
    rhs = p.expression();
    p.expect_end();
}

// --- normal form ---------------------------------------------------------------------------

Math normalize(const Math& e)
{
    using K = Math::Kind;
    switch (e.kind) {
    case K::Block:
    case K::Zero: return e;
    case K::Sum: {
        std::vector<Math> terms;
        for (const Math& a : e.args) {
            Math t = normalize(a);
            if (t.is_zero()) continue;
            if (t.kind == K::Sum)
                terms.insert(terms.end(), t.args.begin(), t.args.end());
            else
                terms.push_back(t);
        }
        if (terms.empty()) return Math::zero();
        if (terms.size() == 1) return terms.front();
        return Math::nary(K::Sum, terms);
    }
    case K::Neg: {
        Math x = normalize(e.args.front());
        if (x.is_zero()) return x;
        if (x.kind == K::Neg) return x.args.front();
        if (x.kind == K::Sum) {
            for (Math& t : x.args) t = normalize(Math::unary(K::Neg, t));
            return x;
        }
        return Math::unary(K::Neg, x);
    }
    case K::Product: {
        std::vector<Math> factors;
        bool negative = false;
        for (const Math& a : e.args) {
            Math f = normalize(a);
            if (f.is_zero()) return Math::zero();
            if (f.kind == K::Neg) {
                negative = !negative;
                f = Math(f.args.front()); // a copy first (the child lives in f)
            }
            if (f.kind == K::Product)
                factors.insert(factors.end(), f.args.begin(), f.args.end());
            else
                factors.push_back(f);
        }
        Math p = factors.size() == 1 ? factors.front() : Math::nary(K::Product, factors);
        return negative ? Math::unary(K::Neg, p) : p;
    }
    case K::Transpose:
    case K::Inverse:
    case K::Apply: {
        if (e.kind == K::Apply && e.args.size() > 1) { // a panel ( X ; Y ): its parts
            Math m = e;
            for (Math& a : m.args) a = normalize(a);
            return m;
        }
        Math x = normalize(e.args.front());
        if (x.is_zero()) return x; // an empty block's inverse or transpose is empty
        Math m = e;
        m.args.front() = x;
        return m;
    }
    }
    return e;
}

// --- the printer ---------------------------------------------------------------------------

namespace {

// Precedence: 0 a sum, 1 a product or negation, 2 a postfix, 3 a primary.
int level(const Math& e)
{
    switch (e.kind) {
    case Math::Kind::Sum: return 0;
    case Math::Kind::Neg:
    case Math::Kind::Product: return 1;
    case Math::Kind::Transpose:
    case Math::Kind::Inverse: return 2;
    default: return 3;
    }
}

std::string print_at(const Math& e, int need, BlockNamer namer, const void* context);

std::string print_raw(const Math& e, BlockNamer namer, const void* context)
{
    using K = Math::Kind;
    switch (e.kind) {
    case K::Zero: return "0";
    case K::Block:
        if (namer && e.located) return namer(context, e);
        return e.operand + (e.hat ? "hat" : "") + (e.quadrant.empty() ? "" : "_" + e.quadrant);
    case K::Sum: {
        std::string s;
        for (size_t i = 0; i < e.args.size(); ++i) {
            const Math& t = e.args[i];
            if (t.kind == K::Neg)
                s += (i ? " - " : "-") + print_at(t.args.front(), 1, namer, context);
            else
                s += (i ? " + " : "") + print_at(t, 1, namer, context);
        }
        return s;
    }
    case K::Neg: return "-" + print_at(e.args.front(), 2, namer, context);
    case K::Product: {
        std::string s;
        for (size_t i = 0; i < e.args.size(); ++i) s += (i ? " " : "") + print_at(e.args[i], 2, namer, context);
        return s;
    }
    case K::Transpose: {
        const Math& x = e.args.front();
        if (x.kind == K::Inverse) return print_at(x.args.front(), 3, namer, context) + "^{-T}";
        if (x.kind == K::Block && namer && x.located) { // a row stored as such: (a10^T)^T is a10
            const std::string name = namer(context, x);
            if (name.size() > 2 && name.compare(name.size() - 2, 2, "^T") == 0) return name.substr(0, name.size() - 2);
        }
        return print_at(x, 3, namer, context) + "^T";
    }
    case K::Inverse: return print_at(e.args.front(), 3, namer, context) + "^{-1}";
    case K::Apply:
        if (e.name == "Stack" && e.args.size() == 2)
            return "( " + print_at(e.args[0], 0, namer, context) + " ; " + print_at(e.args[1], 0, namer, context) + " )";
        return e.name + "( " + print_at(e.args.front(), 0, namer, context) + " )";
    }
    return "?";
}

std::string print_at(const Math& e, int need, BlockNamer namer, const void* context)
{
    const std::string s = print_raw(e, namer, context);
    // A block printed with ^T already (b1^T) is a primary for ^{-1}, but needs
    // parentheses under another superscript.
    if (level(e) < need) return "( " + s + " )";
    if (need == 3 && e.kind == Math::Kind::Block && s.find('^') != std::string::npos) return "( " + s + " )";
    return s;
}

} // namespace

std::string print(const Math& e, BlockNamer namer, const void* context) { return print_at(e, 0, namer, context); }

} // namespace flamex::derive
