// Matrix Market array I/O and LAPACK pivot files; see matrix_market.hpp.
#include "io/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <system_error>
#include <vector>

namespace flamex::io {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::vector<std::string_view> split(std::string_view line)
{
    std::vector<std::string_view> tokens;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        const size_t start = i;
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        if (i > start) tokens.push_back(line.substr(start, i - start));
    }
    return tokens;
}

// A token quoted for an error message, shortened when long.
// A token quoted for an error message: shortened when long, bytes that do not print
// (binary files) shown as \xNN.
std::string quote(std::string_view token)
{
    constexpr size_t limit = 40;
    std::string out = "'";
    for (size_t i = 0; i < token.size() && i < limit; ++i) {
        const auto c = static_cast<unsigned char>(token[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            static const char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out + (token.size() > limit ? "...'" : "'");
}

// The decimal exponent e with 10^(e-1) <= |value| < 10^e of an unsigned decimal
// token already checked by parse_real (digits, optional point, optional exponent),
// saturated far outside the range of doubles. Only called for nonzero mantissas.
long long decimal_magnitude(std::string_view body)
{
    size_t p = 0;
    long long magnitude = 0;
    bool found = false;
    while (p < body.size() && is_digit(body[p])) {
        if (!found && body[p] != '0') found = true;
        if (found) ++magnitude;
        ++p;
    }
    if (p < body.size() && body[p] == '.') {
        ++p;
        long long zeros = 0;
        while (p < body.size() && is_digit(body[p])) {
            if (!found) {
                if (body[p] != '0') {
                    found = true;
                    magnitude = -zeros;
                } else {
                    ++zeros;
                }
            }
            ++p;
        }
    }
    long long exponent = 0;
    if (p < body.size() && (body[p] == 'e' || body[p] == 'E')) {
        ++p;
        bool negative = false;
        if (p < body.size() && (body[p] == '+' || body[p] == '-')) negative = body[p++] == '-';
        for (; p < body.size(); ++p) exponent = std::min<long long>(exponent * 10 + (body[p] - '0'), 1000000000LL);
        if (negative) exponent = -exponent;
    }
    return magnitude + exponent;
}

// Reads lines, counting them, with CR of CRLF line ends removed.
class LineReader {
public:
    LineReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

    bool next(std::string& line)
    {
        if (!std::getline(in_, line)) {
            if (in_.bad()) throw Error(name_ + ":" + std::to_string(number_ + 1) + ": read error");
            return false;
        }
        ++number_;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return true;
    }

    // The next line that is neither blank nor a '%' comment; false at the end.
    bool next_content(std::string& line, std::vector<std::string_view>& tokens, const char* comment_starts = "%")
    {
        while (next(line)) {
            tokens = split(line);
            if (tokens.empty()) continue;
            if (std::strchr(comment_starts, tokens[0][0]) != nullptr) continue;
            return true;
        }
        return false;
    }

    long number() const { return number_; }
    const std::string& name() const { return name_; }

    [[noreturn]] void fail(const std::string& what) const
    {
        throw Error(name_ + ":" + std::to_string(std::max(number_, 1L)) + ": " + what);
    }

private:
    std::istream& in_;
    std::string name_;
    long number_ = 0;
};

enum class Format { Array, Coordinate };
enum class Field { Real, Integer, Pattern };
enum class Symmetry { General, Symmetric, SkewSymmetric };

struct Header {
    Format format = Format::Array;
    Field field = Field::Real;
    Symmetry symmetry = Symmetry::General;
};

constexpr const char* kBanner = "%%MatrixMarket matrix array real general";

Header read_banner(LineReader& reader)
{
    std::string line;
    if (!reader.next(line)) reader.fail("empty file: expected the banner '" + std::string(kBanner) + "'");
    const auto tokens = split(line);
    if (tokens.empty() || !iequals(tokens[0], "%%MatrixMarket"))
        reader.fail("missing Matrix Market banner: expected '" + std::string(kBanner) + "', found " + quote(line));
    if (tokens.size() != 5)
        reader.fail("malformed banner " + quote(line) + ": expected '%%MatrixMarket matrix <format> <field> <symmetry>'");

    if (!iequals(tokens[1], "matrix"))
        reader.fail("object " + quote(tokens[1]) + " is not supported (only 'matrix')");
    Header h;
    if (iequals(tokens[2], "array"))
        h.format = Format::Array;
    else if (iequals(tokens[2], "coordinate"))
        h.format = Format::Coordinate;
    else
        reader.fail("unknown format " + quote(tokens[2]) + " (expected 'array' or 'coordinate')");

    const std::string field = lower(tokens[3]);
    if (field == "real" || field == "double")
        h.field = Field::Real;
    else if (field == "integer")
        h.field = Field::Integer;
    else if (field == "pattern" && h.format == Format::Coordinate)
        h.field = Field::Pattern;
    else if (field == "pattern")
        reader.fail("field 'pattern' is only valid with the 'coordinate' format");
    else if (field == "complex")
        reader.fail("field 'complex' is not supported: flamex reads real matrices only (real, integer or pattern)");
    else
        reader.fail("unknown field " + quote(tokens[3]) + " (expected 'real', 'integer' or 'pattern')");

    const std::string symmetry = lower(tokens[4]);
    if (symmetry == "general")
        h.symmetry = Symmetry::General;
    else if (symmetry == "symmetric")
        h.symmetry = Symmetry::Symmetric;
    else if (symmetry == "skew-symmetric")
        h.symmetry = Symmetry::SkewSymmetric;
    else if (symmetry == "hermitian")
        reader.fail("symmetry 'hermitian' is not supported for a real matrix");
    else
        reader.fail("unknown symmetry " + quote(tokens[4]) + " (expected 'general', 'symmetric' or 'skew-symmetric')");
    if (h.field == Field::Pattern && h.symmetry == Symmetry::SkewSymmetric)
        reader.fail("a 'pattern' matrix cannot be 'skew-symmetric' (it has no values to negate)");
    return h;
}

bool integer_syntax(std::string_view t)
{
    size_t i = (!t.empty() && (t[0] == '+' || t[0] == '-')) ? 1 : 0;
    if (i == t.size()) return false;
    for (; i < t.size(); ++i)
        if (!is_digit(t[i])) return false;
    return true;
}

std::ifstream open_for_reading(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error(path + ": cannot read: is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open for reading: " + std::strerror(errno));
    return in;
}

std::ofstream open_for_writing(const std::string& path)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path + ": cannot open for writing: " + std::strerror(errno));
    return out;
}

void finish_writing(std::ofstream& out, const std::string& path)
{
    out.close();
    if (!out) throw Error(path + ": write failed");
}

enum class RealStatus { Ok, NotANumber, OutOfRange };

struct ScannedReal {
    RealStatus status;
    double value;
};

// parse_real, telling a malformed token from a number too large for a double.
ScannedReal scan_real(std::string_view token)
{
    constexpr ScannedReal not_a_number{RealStatus::NotANumber, 0.0};
    if (token.empty()) return not_a_number;
    const bool negative = token[0] == '-';
    const std::string_view body = (token[0] == '+' || token[0] == '-') ? token.substr(1) : token;
    const double sign = negative ? -1.0 : 1.0;
    if (iequals(body, "nan")) return {RealStatus::Ok, std::numeric_limits<double>::quiet_NaN()};
    if (iequals(body, "inf") || iequals(body, "infinity"))
        return {RealStatus::Ok, sign * std::numeric_limits<double>::infinity()};

    // digits [ '.' digits ] | '.' digits, then an optional exponent
    size_t p = 0, digits = 0;
    bool nonzero = false;
    const auto mantissa_digits = [&] {
        for (; p < body.size() && is_digit(body[p]); ++p, ++digits) nonzero = nonzero || body[p] != '0';
    };
    mantissa_digits();
    if (p < body.size() && body[p] == '.') {
        ++p;
        mantissa_digits();
    }
    if (digits == 0) return not_a_number;
    if (p < body.size() && (body[p] == 'e' || body[p] == 'E')) {
        ++p;
        if (p < body.size() && (body[p] == '+' || body[p] == '-')) ++p;
        size_t exponent_digits = 0;
        for (; p < body.size() && is_digit(body[p]); ++p) ++exponent_digits;
        if (exponent_digits == 0) return not_a_number;
    }
    if (p != body.size()) return not_a_number;
    if (!nonzero) return {RealStatus::Ok, sign * 0.0};

    double value = 0.0;
    const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value, std::chars_format::general);
    if (ec == std::errc() && end == body.data() + body.size()) return {RealStatus::Ok, sign * value};
    // Out of range: below the subnormals it rounds to zero; above DBL_MAX it is no double.
    if (ec == std::errc::result_out_of_range && decimal_magnitude(body) <= 0) return {RealStatus::Ok, sign * 0.0};
    return {RealStatus::OutOfRange, 0.0};
}

} // namespace

// --- numbers --------------------------------------------------------------------

std::optional<double> parse_real(std::string_view token)
{
    const ScannedReal r = scan_real(token);
    if (r.status != RealStatus::Ok) return std::nullopt;
    return r.value;
}

std::optional<long long> parse_integer(std::string_view token, long long min, long long max)
{
    if (!integer_syntax(token)) return std::nullopt;
    const std::string_view body = token[0] == '+' ? token.substr(1) : token;
    long long value = 0;
    const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
    if (ec != std::errc() || end != body.data() + body.size() || value < min || value > max) return std::nullopt;
    return value;
}

std::string format_real(double value)
{
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 17);
    return std::string(buffer, result.ptr);
}

// --- matrices -------------------------------------------------------------------

namespace {

constexpr dim_t kMaxDenseFromCoordinate = dim_t{1} << 28;

// The entries of a coordinate file ("i j value", or "i j" for pattern; 1-based),
// one per line, into a dense m x n matrix of zeros. Entries listed twice are summed
// (what scipy and the Matrix Market reference reader do); symmetric files list one
// triangle and the other is mirrored (negated for skew-symmetric, whose diagonal is
// zero by definition and must not be listed).
Matrix read_entries(LineReader& reader, const Header& header, dim_t m, dim_t n, dim_t entries)
{
    Matrix A(m, n);
    std::string line;
    std::vector<std::string_view> tokens;
    const size_t per_line = header.field == Field::Pattern ? 2 : 3;
    const char* entry_words = header.field == Field::Pattern ? "'row column'" : "'row column value'";
    const bool skew = header.symmetry == Symmetry::SkewSymmetric;
    dim_t read = 0;
    while (reader.next_content(line, tokens)) {
        if (read == entries)
            reader.fail("too many entries: the size line says " + std::to_string(entries));
        if (tokens.size() != per_line)
            reader.fail("bad entry " + quote(line) + ": expected " + entry_words + " (" + std::to_string(per_line) + " tokens)");
        const auto i = parse_integer(tokens[0], 1, m), j = parse_integer(tokens[1], 1, n);
        if (!i || !j)
            reader.fail("entry " + quote(line) + ": indices must be integers in 1.." + std::to_string(m) + " and 1.." +
                        std::to_string(n));
        double v = 1.0;
        if (header.field != Field::Pattern) {
            const ScannedReal r = scan_real(tokens[2]);
            if (r.status == RealStatus::OutOfRange) reader.fail("value " + quote(tokens[2]) + " is out of the range of a double");
            if (header.field == Field::Integer && (!integer_syntax(tokens[2]) || r.status != RealStatus::Ok))
                reader.fail("expected an integer, found " + quote(tokens[2]));
            if (r.status != RealStatus::Ok) reader.fail("expected a real number, found " + quote(tokens[2]));
            v = r.value;
        }
        const dim_t r0 = *i - 1, c0 = *j - 1;
        if (skew && r0 == c0) reader.fail("entry " + quote(line) + " is on the diagonal of a skew-symmetric matrix");
        A(r0, c0) += v;
        if (header.symmetry != Symmetry::General && r0 != c0) A(c0, r0) += skew ? -v : v;
        ++read;
    }
    if (read < entries)
        reader.fail("too few entries: the size line says " + std::to_string(entries) + ", but the file ends after " +
                    std::to_string(read));
    return A;
}

} // namespace

Matrix read_matrix_market(std::istream& in, const std::string& name)
{
    LineReader reader(in, name);
    const Header header = read_banner(reader);

    std::string line;
    std::vector<std::string_view> tokens;
    const bool coordinate = header.format == Format::Coordinate;
    const char* size_words = coordinate ? "'rows columns entries' (three integers) for the coordinate format"
                                        : "'rows columns' (two integers) for the array format";
    if (!reader.next_content(line, tokens)) reader.fail(std::string("missing the size line ") + size_words);
    if (tokens.size() != (coordinate ? 3u : 2u)) reader.fail("bad size line " + quote(line) + ": expected " + size_words);
    dim_t size[3] = {0, 0, 0};
    for (size_t k = 0; k < tokens.size(); ++k) {
        const auto v = parse_integer(tokens[k], std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
        if (!v) reader.fail("bad size line " + quote(line) + ": " + quote(tokens[k]) + " is not an integer");
        if (*v < 0) reader.fail("bad size line " + quote(line) + ": negative size " + std::to_string(*v));
        size[k] = static_cast<dim_t>(*v);
    }
    const dim_t m = size[0], n = size[1];
    // The array format lists every value, so the file bounds the memory; a coordinate
    // file of a few lines can name a dense matrix no machine holds.
    const dim_t max_elements = coordinate ? kMaxDenseFromCoordinate : dim_t{1} << 50;
    if (n != 0 && m > max_elements / n)
        reader.fail("size " + std::to_string(m) + "x" + std::to_string(n) + " is too large" +
                    (coordinate ? " to read as a dense matrix (at most 2^28 elements)" : ""));
    if (header.symmetry != Symmetry::General && m != n)
        reader.fail("a symmetric or skew-symmetric matrix must be square, the size line says " + std::to_string(m) + "x" +
                    std::to_string(n));
    if (coordinate) return read_entries(reader, header, m, n, size[2]);

    dim_t expected = m * n;
    if (header.symmetry == Symmetry::Symmetric) expected = n * (n + 1) / 2;
    if (header.symmetry == Symmetry::SkewSymmetric) expected = n * (n - 1) / 2;
    const std::string what = header.symmetry == Symmetry::General ? "" : " (the lower triangle, column by column)";

    std::vector<double> values;
    values.reserve(static_cast<size_t>(std::min<dim_t>(expected, dim_t{1} << 20)));
    while (reader.next_content(line, tokens)) {
        for (std::string_view t : tokens) {
            if (static_cast<dim_t>(values.size()) == expected)
                reader.fail("too many values: the size line says " + std::to_string(m) + "x" + std::to_string(n) + ", " +
                            std::to_string(expected) + " values" + what);
            const ScannedReal v = scan_real(t);
            if (v.status == RealStatus::OutOfRange) reader.fail("value " + quote(t) + " is out of the range of a double");
            if (header.field == Field::Integer && (!integer_syntax(t) || v.status != RealStatus::Ok))
                reader.fail("expected an integer, found " + quote(t));
            if (v.status != RealStatus::Ok) reader.fail("expected a real number, found " + quote(t));
            values.push_back(v.value);
        }
    }
    if (static_cast<dim_t>(values.size()) < expected)
        reader.fail("too few values: the size line says " + std::to_string(m) + "x" + std::to_string(n) + ", " +
                    std::to_string(expected) + " values" + what + ", but the file ends after " +
                    std::to_string(values.size()));

    if (header.symmetry == Symmetry::General) return Matrix(m, n, values);
    Matrix A(m, n);
    size_t k = 0;
    const bool skew = header.symmetry == Symmetry::SkewSymmetric;
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = skew ? j + 1 : j; i < m; ++i) {
            const double v = values[k++];
            A(i, j) = v;
            A(j, i) = skew ? -v : v;
        }
    return A;
}

Matrix read_matrix_market(const std::string& path)
{
    if (path == "-") return read_matrix_market(std::cin, "<stdin>");
    std::ifstream in = open_for_reading(path);
    return read_matrix_market(in, path);
}

void write_matrix_market(std::ostream& out, Obj A, const std::string& comment)
{
    std::string text = kBanner;
    text += '\n';
    size_t start = 0;
    while (start < comment.size()) {
        const size_t end = std::min(comment.find('\n', start), comment.size());
        text += "% " + comment.substr(start, end - start) + "\n";
        start = end + 1;
    }
    text += std::to_string(A.length()) + " " + std::to_string(A.width()) + "\n";
    out << text;
    text.clear();
    for (dim_t j = 0; j < A.width(); ++j) {
        for (dim_t i = 0; i < A.length(); ++i) {
            text += format_real(A(i, j));
            text += '\n';
        }
        out << text;
        text.clear();
    }
    out.flush();
    if (!out) throw Error("write failed");
}

void write_matrix_market(const std::string& path, Obj A, const std::string& comment)
{
    if (path == "-") {
        write_matrix_market(std::cout, A, comment);
        return;
    }
    std::ofstream out = open_for_writing(path);
    try {
        write_matrix_market(out, A, comment);
    } catch (const Error&) {
        throw Error(path + ": write failed");
    }
    finish_writing(out, path);
}

// --- pivots ---------------------------------------------------------------------

void write_pivots(std::ostream& out, const Pivots& p)
{
    std::string text;
    for (int row : p.to_lapack()) text += std::to_string(row) + "\n";
    out << text;
    out.flush();
    if (!out) throw Error("write failed");
}

void write_pivots(const std::string& path, const Pivots& p)
{
    if (path == "-") {
        write_pivots(std::cout, p);
        return;
    }
    std::ofstream out = open_for_writing(path);
    try {
        write_pivots(out, p);
    } catch (const Error&) {
        throw Error(path + ": write failed");
    }
    finish_writing(out, path);
}

Pivots read_pivots(std::istream& in, const std::string& name, dim_t rows)
{
    LineReader reader(in, name);
    std::string line;
    std::vector<std::string_view> tokens;
    std::vector<int> ipiv;
    while (reader.next_content(line, tokens, "%#")) {
        if (tokens.size() != 1) reader.fail("expected one row index per line, found " + quote(line));
        const auto row = parse_integer(tokens[0], 1, std::numeric_limits<int>::max());
        if (!row) reader.fail("expected a 1-based row index, found " + quote(tokens[0]));
        const dim_t position = static_cast<dim_t>(ipiv.size()) + 1;
        if (*row < position)
            reader.fail("pivot " + std::to_string(position) + " is row " + std::to_string(*row) +
                        ", above its own row (LAPACK pivots satisfy ipiv(i) >= i)");
        if (rows > 0 && *row > rows)
            reader.fail("pivot " + std::to_string(position) + " is row " + std::to_string(*row) + " of a matrix with " +
                        std::to_string(rows) + " rows");
        ipiv.push_back(static_cast<int>(*row));
    }
    return Pivots::from_lapack(ipiv);
}

Pivots read_pivots(const std::string& path, dim_t rows)
{
    if (path == "-") return read_pivots(std::cin, "<stdin>", rows);
    std::ifstream in = open_for_reading(path);
    return read_pivots(in, path, rows);
}

} // namespace flamex::io
