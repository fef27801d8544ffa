// Matrix Market I/O for dense matrices, and LAPACK-convention pivot files.
//
// Matrices are read and written in the Matrix Market *array* format:
//
//   %%MatrixMarket matrix array real general
//   % optional comment lines
//   m n
//   a(1,1)
//   a(2,1)          values one per line, column by column (column-major)
//   ...
//
// Written values carry 17 significant digits, so every double (subnormals and
// -0 included) reads back bit-identical; NaN and the infinities are written as
// `nan`, `inf` and `-inf` (a NaN's sign and payload are not kept).
//
// Reading accepts the field `real` (also `double`) and `integer` (read as real),
// the symmetries `general`, `symmetric` and `skew-symmetric` (the lower triangle,
// column by column, as the format stores it), comment lines starting with `%` and
// blank lines after the banner, CRLF line ends, and the special values nan / inf /
// infinity with any sign and in any case. It also reads the sparse `coordinate`
// format into a dense matrix (zeros where no entry is listed): a size line
// `rows columns entries`, then one `row column value` line per entry (1-based;
// `row column` for the `pattern` field, whose entries are ones); entries listed
// twice are summed, a symmetric file's entries are mirrored (negated for
// skew-symmetric, which must not list its diagonal), and at most 2^28 elements are
// read that way (a coordinate file can name a matrix far larger than itself).
// Everything else is rejected with a flamex::Error whose message starts with
// "FILE:LINE: " (or "FILE: " when no line applies, such as a file that cannot be
// opened): `complex` and `hermitian` matrices, `pattern` in the array format, a
// missing or malformed banner or size line, negative sizes, indices out of range,
// non-numeric tokens, too few or too many values or entries.
//
// The path "-" stands for standard input (reading) or standard output (writing).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "flame/flame.hpp"

namespace flamex::io {

// --- numbers --------------------------------------------------------------------

// Parses the whole token as a double: an optional sign and a decimal number
// (digits with an optional point and exponent: "1", "-2.5", ".5", "1e-3"), or
// nan / inf / infinity in any case with an optional sign. Correctly rounded and
// independent of the C locale; values below the smallest subnormal round to a
// signed zero. nullopt for anything else: empty, trailing characters ("12abc"),
// hexadecimal, or a finite number too large for a double ("1e400").
std::optional<double> parse_real(std::string_view token);

// Parses the whole token as a decimal integer with an optional sign into
// [min, max]; nullopt when it is not one or lies outside.
std::optional<long long> parse_integer(std::string_view token, long long min, long long max);

// 17 significant digits ("%.17g"), or "nan", "inf", "-inf"; locale-independent.
std::string format_real(double value);

// --- matrices -------------------------------------------------------------------

// Reads a Matrix Market file (array or coordinate) into a dense matrix. `name` is what error messages call the stream.
Matrix read_matrix_market(const std::string& path);
Matrix read_matrix_market(std::istream& in, const std::string& name);

// Writes A (any view) as `%%MatrixMarket matrix array real general`. Each line of
// `comment`, if any, is written as a `%` comment after the banner. Throws
// flamex::Error naming the file when it cannot be created or written.
void write_matrix_market(const std::string& path, Obj A, const std::string& comment = "");
void write_matrix_market(std::ostream& out, Obj A, const std::string& comment = "");

// --- pivots ---------------------------------------------------------------------

// LAPACK's convention, one 1-based absolute row index per line (ipiv(i) >= i):
// Pivots::to_lapack() of p.
void write_pivots(const std::string& path, const Pivots& p);
void write_pivots(std::ostream& out, const Pivots& p);

// Reads such a file back into FLAME's offsets (Pivots::from_lapack). Blank lines
// and lines starting with '%' or '#' are skipped. When rows > 0 every index must
// also be at most rows. Errors name the file and the line.
Pivots read_pivots(const std::string& path, dim_t rows = 0);
Pivots read_pivots(std::istream& in, const std::string& name, dim_t rows = 0);

} // namespace flamex::io
