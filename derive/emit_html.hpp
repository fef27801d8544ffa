// The derivation as web pages: one self-contained HTML page per operation (the PME,
// the invariants, and each worksheet with its formulas in MathML beside the generated
// code), and an index of them. No script, no network: the CSS is inline and browsers
// lay out MathML natively. The formulas come from the worksheet's cells through
// derive/notation.hpp, the same renderer the LaTeX worksheet uses.
#pragma once

#include <string>
#include <vector>

#include "derive/derive.hpp"

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

// The file names the site uses for an operation's page.
std::string html_page_name(const std::string& operation, bool blocked);

} // namespace flamex::derive
