// `flamex derive`: the derivation of derive/derive.hpp from the command line.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "derive/derive.hpp"
#include "derive/emit_html.hpp"
#include "io/matrix_market.hpp"
#include "tools/flamex/cli.hpp"

namespace flamex::cli {
namespace {

const Option kDeriveVariant{"--variant", nullptr, "N", "only the variant libflame numbers N (needed by --emit cpp)"};
const Option kBlocked{"--blocked", nullptr, nullptr, "the blocked form (default: unblocked)"};
const Option kEmit{"--emit", nullptr, "text|cpp|latex|html",
                   "the worksheets (default), the variant file, or the worksheets as LaTeX or as a web page"};
const Option kDeriveOutput{"--output", "-o", "FILE", "write to FILE instead of stdout"};
const Option kCheckPme{"--check-pme", nullptr, nullptr,
                       "run every variant on small random problems against the operation's definition"};
const Option kRoundings{"--roundings", nullptr, nullptr,
                        "roundings per entry on a correctly rounded backend, and the variants that give identical bits"};
const Option kSite{"--site", nullptr, "DIR",
                   "write the web page of every operation (both forms) and an index.html into DIR, and exit"};
const Option kDeriveList{"--list", nullptr, nullptr, "list the operations and their loop invariants and exit"};
const Option kRun{"--run", nullptr, "A.mtx[,B.mtx]",
                  "run --variant N on these operands (the PME's order), interpreted on --backend; -o: the result"};

// Unknown operations and variants, and infeasible variants, are bad input: a
// flamex::Error (exit status 2, as an unknown variant of `flamex lu`). Exit status 1
// is --check-pme finding the description wrong.

void write(const Args& a, const std::string& text)
{
    const auto path = a.get(kDeriveOutput);
    if (!path || *path == "-") {
        std::cout << text;
        return;
    }
    std::ofstream out(*path);
    out << text;
    out.close();
    if (!out) throw Error("cannot write '" + *path + "'");
}

// The operations OP names: itself, or the family OP_*: `lu` is lu_nopiv and lu_piv.
std::vector<std::string> operations_named(const std::string& op)
{
    std::vector<std::string> names;
    for (const std::string& name : derive::operation_names()) {
        if (name == op) return {name};
        if (name.rfind(op + "_", 0) == 0) names.push_back(name);
    }
    if (names.empty()) {
        std::string known;
        for (const std::string& n : derive::operation_names()) known += (known.empty() ? "" : ", ") + n;
        throw Error("unknown operation '" + op + "' (known: " + known + ")");
    }
    return names;
}

// --run FILES: variant N interpreted on the backend (derive::run_interpreted), no file
// compiled; the overwritten operand (zeros outside its triangle) to -o or stdout.
int run_interpreted(const Args& a, const derive::Pme& pme)
{
    const int number = static_cast<int>(integer_option(a, kDeriveVariant, 0, 1, 99));
    if (number == 0) throw UsageError("--run needs --variant N");
    const bool blocked = a.has(kBlocked);
    const derive::Derivation d = derive::derive_invariants(pme);
    std::vector<std::string> files;
    std::string list = *a.get(kRun);
    for (size_t start = 0;;) {
        const size_t comma = list.find(',', start);
        files.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    std::vector<Matrix> matrices;
    for (const std::string& f : files) matrices.push_back(io::read_matrix_market(f));
    std::vector<Obj> views(matrices.begin(), matrices.end());
    const auto chosen = a.get(kBackend);
    BackendOptions options;
    options.threads = static_cast<int>(integer_option(a, kThreads, 1, 1, 1024));
    if (const auto device = a.get(kDevice)) options.device = *device;
    const auto blas = make_backend(chosen ? *chosen : default_backend_name(), options);
    const dim_t block = integer_option(a, kBlock, 128, 1, dim_t{1} << 30);
    const dim_t stopped = derive::run_interpreted(d, number, blocked, *blas, views, block);
    if (stopped != 0) {
        std::cerr << "flamex derive " << pme.name << ": variant " << number << " stopped at the pivot in column " << stopped << "\n";
        return kNumericalFailure;
    }
    size_t k = 0; // the overwritten operand
    for (size_t i = 0, j = 0; i < pme.operands.size(); ++i) {
        if (pme.operands[i].pivots) continue;
        if (!pme.operands[i].input_only()) {
            k = j;
            break;
        }
        ++j;
    }
    const derive::Operand* o = nullptr;
    for (size_t i = 0, j = 0; i < pme.operands.size() && !o; ++i)
        if (!pme.operands[i].pivots && j++ == k) o = &pme.operands[i];
    Matrix& R = matrices[k];
    for (dim_t j = 0; j < R.width(); ++j)
        for (dim_t i = 0; i < R.length(); ++i)
            if ((o->lower() && i < j) || (o->upper() && i > j)) R(i, j) = 0.0;
    const auto path = a.get(kDeriveOutput);
    io::write_matrix_market(path.value_or("-"), R,
                            pme.title + ": " + o->name + " of " + files[k] + " by variant " + std::to_string(number) +
                                (blocked ? " (blocked)" : "") + ", interpreted on " + blas->name());
    return kSuccess;
}

// What `flamex derive` prints for one operation; ok is false when --check-pme fails.
std::string derive_operation(const Args& a, const derive::Pme& pme, bool& ok)
{
    const derive::Derivation d = derive::derive_invariants(pme);
    const bool blocked = a.has(kBlocked);
    if (blocked && !pme.has_blocked()) throw Error(pme.name + ": the description has no blocked form");
    if (a.has(kCheckPme)) return derive::check_pme(d, ok);
    if (a.has(kRoundings)) return derive::roundings(d, blocked).text;
    const int number = static_cast<int>(integer_option(a, kDeriveVariant, 0, 1, 99));
    const derive::Invariant* inv = number != 0 ? &derive::find_variant(d, number) : nullptr;
    const std::string emit = a.get(kEmit).value_or("text");
    if (emit == "latex") return derive::emit_latex(d, blocked);
    if (emit == "html") return derive::emit_html(d, blocked);
    if (emit == "text") return derive::text_report(d, number, blocked);
    if (!inv) throw UsageError("--emit cpp needs --variant N");
    return derive::emit_cpp(pme, *inv, blocked);
}

void write_file(const std::string& path, const std::string& text)
{
    std::ofstream out(path);
    out << text;
    out.close();
    if (!out) throw Error("cannot write '" + path + "'");
}

// --site DIR (created when missing): OP.html and OP_blk.html for every operation, and index.html.
void write_site(const std::string& dir)
{
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw Error("cannot create '" + dir + "': " + error.message());
    std::vector<derive::SiteEntry> entries;
    for (const std::string& name : derive::operation_names()) {
        const derive::Pme pme = derive::load_operation(name);
        const derive::Derivation d = derive::derive_invariants(pme);
        entries.push_back({pme.name, pme.title, static_cast<int>(d.invariants.size()), pme.has_blocked()});
        write_file(dir + "/" + derive::html_page_name(name, false), derive::emit_html(d, false));
        if (pme.has_blocked()) write_file(dir + "/" + derive::html_page_name(name, true), derive::emit_html(d, true));
    }
    write_file(dir + "/index.html", derive::emit_html_index(entries));
}

int run_derive(const Args& a)
{
    if (const auto site = a.get(kSite)) {
        if (!a.operands.empty()) throw UsageError("--site takes no operation");
        write_site(*site);
        return kSuccess;
    }
    if (a.has(kDeriveList)) {
        if (!a.operands.empty()) throw UsageError("--list takes no operation");
        std::vector<derive::Pme> pmes;
        for (const std::string& name : derive::operation_names()) pmes.push_back(derive::load_operation(name));
        std::vector<derive::Derivation> all;
        for (const derive::Pme& pme : pmes) all.push_back(derive::derive_invariants(pme));
        write(a, derive::list_text(all));
        return kSuccess;
    }
    require_operands(command("derive"), a);
    const std::string emit = a.get(kEmit).value_or("text");
    if (emit != "text" && emit != "cpp" && emit != "latex" && emit != "html")
        throw UsageError("--emit is text, cpp, latex or html, not '" + emit + "'");
    integer_option(a, kDeriveVariant, 0, 1, 99); // a bad number is bad usage before anything is derived
    const std::vector<std::string> names = operations_named(a.operands[0]);
    if (names.size() > 1 && (a.has(kDeriveVariant) || emit != "text")) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        throw UsageError(a.operands[0] + " names several operations (" + list + "): --variant and --emit need one");
    }
    if (a.has(kRun)) {
        if (names.size() > 1) throw UsageError(a.operands[0] + " names several operations: --run needs one");
        if (a.has(kCheckPme) || a.has(kRoundings) || a.has(kEmit)) throw UsageError("--run takes none of --check-pme, --roundings, --emit");
        return run_interpreted(a, derive::load_operation(names.front()));
    }
    if (a.has(kBackend) || a.has(kBlock) || a.has(kThreads) || a.has(kDevice))
        throw UsageError("--backend, --block, --threads and --device apply only to --run");
    std::string text;
    bool ok = true;
    for (const std::string& name : names) {
        if (!text.empty()) text += "\n";
        text += derive_operation(a, derive::load_operation(name), ok);
        if (!ok) break;
    }
    write(a, text);
    return ok ? kSuccess : kNumericalFailure;
}

} // namespace

std::vector<Command> derive_commands()
{
    return {
        {"derive", {"OP"},
         "Derives the loop invariants of operation OP from its PME description\n"
         "(derive/pme/OP.pme) and prints the PME, the invariants (numbered as libflame\n"
         "numbers its variants) and each variant's worksheet, every step filled. --emit cpp\n"
         "writes the variant as a flamex source file, --emit latex the worksheets as a\n"
         "document, --emit html as a self-contained web page (MathML, no script); --site DIR\n"
         "writes every operation's page and an index; --check-pme runs every variant on small random problems against the\n"
         "operation's definition (exit status 1, listing the PME's equations, when\n"
         "one fails); --roundings counts the roundings each entry receives on a correctly\n"
         "rounded backend and groups the variants that must give identical bits there;\n"
         "--run A.mtx[,B.mtx] runs variant N (and --blocked) on those operands, interpreted\n"
         "from the derivation on --backend: the calls --emit cpp writes, with no rebuild.\n"
         "OP may name a family (lu: lu_nopiv and lu_piv). An unknown operation or variant,\n"
         "or an infeasible variant, is exit status 2 with the reason. FLAMEX_PME_DIR names\n"
         "another folder of descriptions.",
         {&kDeriveVariant, &kBlocked, &kEmit, &kDeriveOutput, &kCheckPme, &kRoundings, &kDeriveList, &kSite, &kRun, &kBackend,
          &kBlock, &kThreads, &kDevice, &kHelp},
         {},
         {},
         run_derive},
    };
}

} // namespace flamex::cli
