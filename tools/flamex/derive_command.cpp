// `flamex derive`: the derivation of derive/derive.hpp from the command line.
#include <algorithm>
#include <fstream>
#include <iostream>

#include "derive/derive.hpp"
#include "tools/flamex/cli.hpp"

namespace flamex::cli {
namespace {

const Option kDeriveVariant{"--variant", nullptr, "N", "only the variant libflame numbers N (needed by --emit cpp)"};
const Option kBlocked{"--blocked", nullptr, nullptr, "the blocked form (default: unblocked)"};
const Option kEmit{"--emit", nullptr, "text|cpp", "what to write: the worksheets (text, the default) or the variant file (cpp)"};
const Option kDeriveOutput{"--output", "-o", "FILE", "write to FILE instead of stdout"};
const Option kCheckPme{"--check-pme", nullptr, nullptr,
                       "run every variant on small random problems against the operation's definition"};
const Option kRoundings{"--roundings", nullptr, nullptr,
                        "roundings per entry on a correctly rounded backend, and the variants that give identical bits"};
const Option kDeriveList{"--list", nullptr, nullptr, "list the operations and their loop invariants and exit"};

// Unknown operations and variants, and infeasible variants, are failures of the
// derivation asked for (exit status 1), not malformed input.
class DerivationFailure : public Error {
public:
    using Error::Error;
};

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

int run_derive(const Args& a)
{
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
    if (emit != "text" && emit != "cpp") throw UsageError("--emit is text or cpp, not '" + emit + "'");
    const int number = static_cast<int>(integer_option(a, kDeriveVariant, 0, 1, 99));
    const bool blocked = a.has(kBlocked);
    try {
        // OP is an operation, or a family of them: `lu` is lu_nopiv and lu_piv.
        std::vector<std::string> names;
        for (const std::string& name : derive::operation_names())
            if (name == a.operands[0] || name.rfind(a.operands[0] + "_", 0) == 0) names.push_back(name);
        if (std::find(names.begin(), names.end(), a.operands[0]) != names.end()) names = {a.operands[0]};
        if (names.empty()) {
            std::string known;
            for (const std::string& n : derive::operation_names()) known += (known.empty() ? "" : ", ") + n;
            throw DerivationFailure("unknown operation '" + a.operands[0] + "' (known: " + known + ")");
        }
        if (names.size() > 1 && (number != 0 || emit != "text")) {
            std::string list;
            for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
            throw DerivationFailure(a.operands[0] + " names several operations (" + list + "): --variant and --emit cpp need one");
        }
        std::string text;
        for (const std::string& name : names) {
            const derive::Pme pme = derive::load_operation(name);
            const derive::Derivation d = derive::derive_invariants(pme);
            if (blocked && pme.blocked.empty()) throw DerivationFailure(pme.name + ": the description has no blocked form");
            const derive::Invariant* inv = nullptr;
            if (number != 0) {
                try {
                    inv = &derive::find_variant(d, number);
                } catch (const Error& e) {
                    throw DerivationFailure(e.what());
                }
            }
            if (a.has(kCheckPme)) {
                bool ok = true;
                text += derive::check_pme(d, ok);
                if (!ok) {
                    write(a, text);
                    return kNumericalFailure;
                }
                continue;
            }
            if (a.has(kRoundings)) {
                text += (text.empty() ? "" : "\n") + derive::roundings(d, blocked).text;
                continue;
            }
            if (emit == "cpp") {
                if (!inv) throw UsageError("--emit cpp needs --variant N");
                try {
                    text += derive::emit_cpp(pme, *inv, blocked);
                } catch (const Error& e) {
                    throw DerivationFailure(e.what());
                }
            } else {
                text += (text.empty() ? "" : "\n") + derive::text_report(d, number, blocked);
            }
        }
        write(a, text);
    } catch (const DerivationFailure& e) {
        std::cerr << "flamex derive: " << e.what() << "\n";
        return kNumericalFailure;
    }
    return kSuccess;
}

} // namespace

std::vector<Command> derive_commands()
{
    return {
        {"derive", {"OP"},
         "Derives the loop invariants of operation OP from its PME description\n"
         "(derive/pme/OP.pme) and prints the PME, the invariants (numbered as libflame\n"
         "numbers its variants) and each variant's worksheet, every step filled; with\n"
         "--emit cpp the variant as a flamex source file; with --check-pme, whether every\n"
         "variant meets the operation's definition on small random problems (exit status\n"
         "1 naming the steps and tasks to blame when not); with --roundings, how many\n"
         "roundings each entry receives on a correctly rounded backend and which variants\n"
         "must therefore give identical bits. An unknown operation or\n"
         "variant, or an infeasible variant, is exit status 1 with the reason.\n"
         "FLAMEX_PME_DIR names another folder of descriptions.",
         {&kDeriveVariant, &kBlocked, &kEmit, &kDeriveOutput, &kCheckPme, &kRoundings, &kDeriveList, &kHelp},
         {},
         {},
         run_derive},
    };
}

} // namespace flamex::cli
