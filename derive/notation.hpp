// The worksheet's text notation as formulas: one parser, two renderers (MathML for
// the web pages, LaTeX math for the LaTeX worksheet).
//
// The notation is what the worksheet's cells hold (derive.hpp's Worksheet): FLAME's
// names with their subscripts spelled out (A_TL or ATL, a01, alpha11, L00), the
// transpose as a trailing t or ^T (a10t, a10^T, L_TL^{-T}), inverses ^{-1}, hats (Ahat,
// uhat01, û01), {L\U}_TL, sums, products by juxtaposition, :=, =, -> and <-, sqrt( ),
// named operations (Chol( A11 ), LU(...)), and parenthesized blocks stacked with ';'
// (( x ; y ) is a column, ( ATL ATR ; ABL ABR ) a 2x2 partitioned matrix, drawn with
// FLAME's partition lines). Prose among the formulas ("as it was", "by tl") is text.
//
// Parsing never fails: what the grammar does not know is kept as text (<mtext>,
// \mbox{}), so a cell in a notation the parser has not seen still shows as written.
#pragma once

#include <string>
#include <vector>

namespace flamex::derive::notation {

struct Node {
    enum class Kind {
        Row,    // children side by side (a product is juxtaposition)
        Ident,  // base with its subscript, superscript and hat; upright when a word (LU, Chol)
        Number, // text
        Op,     // text: + - := = -> <- ; , ...
        Text,   // prose
        Fence,  // open, children, close: ( ), { }, [ ]
        Matrix, // open, cells (rows of Row nodes), close; partition lines between all
        Sqrt,   // children under the radical
    };
    Kind kind = Kind::Row;
    std::string text;          // Ident: the base ("A", "alpha", "LU"); Number, Op, Text
    std::string sub, sup;      // scripts on any node, as written ("TL", "01"; "T", "-1")
    bool hat = false;          // Ident
    bool bar = false;          // Ident: Abar, an original with row interchanges applied
    bool space_before = false; // whitespace preceded it in the source
    std::string open, close;   // Fence, Matrix
    std::vector<Node> children;
    std::vector<std::vector<Node>> cells; // Matrix
};

Node parse(const std::string& text);

// <math>...</math>: inline, or display="block".
std::string mathml(const Node& node, bool block = false);
std::string mathml(const std::string& text, bool block = false);
// The formula in LaTeX math (without the $ delimiters), needing only LaTeX's own macros
// (array for the partitioned matrices, \hat, \mbox): Debian's texlive-latex-base.
std::string latex(const Node& node);
std::string latex(const std::string& text);

// XML's five escapes, for text outside the formulas.
std::string xml_escape(const std::string& text);

} // namespace flamex::derive::notation
