// The derivation as web pages: one self-contained HTML page per operation (the PME,
// the invariants, and each worksheet with its formulas in MathML beside the generated
// code), and an index of them. No script, no network: the CSS is inline and browsers
// lay out MathML natively. The formulas come from the worksheet's cells through
// derive/notation.hpp, the same renderer the LaTeX worksheet uses.
#pragma once

#include <string>
#include <vector>

#include "derive/derive.hpp"
#include "derive/notation.hpp"

namespace flamex::derive {

// `flamex derive OP --emit html`: every variant's worksheet in the chosen form.
std::string emit_html(const Derivation& d, bool blocked);

// The site's index: one entry per operation, linking OP.html (unblocked) and, when the
// description has a blocked form, OP_blk.html.
struct SiteEntry {
    std::string name, title;
    int invariants = 0;
    bool blocked = false;
};
std::string emit_html_index(const std::vector<SiteEntry>& entries);

// The states of a worksheet's row 6 or 7 as FLAME draws them: each operand's 3x3
// repartitioning (from row 5a) with each block's state in its place, a block the row
// leaves out (not referenced) as *. Empty when a state is too long to sit in its block,
// or its block is in no drawing: the row is then listed. The LaTeX worksheet draws them too.
std::vector<notation::Node> state_drawings(const Worksheet& w, const WorksheetRow& states);

// The file names the site uses for an operation's page.
std::string html_page_name(const std::string& operation, bool blocked);

} // namespace flamex::derive
