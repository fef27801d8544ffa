// flamex: the command-line front end to the LU variants, the solve driver, the
// abstract BLAS and the batched solvers. `flamex --help` lists the subcommands (the
// usage text is generated from the command tables: cli.hpp), `flamex SUB --help`
// describes one.
//
// Output: a result matrix goes to -o FILE, or as Matrix Market to stdout without
// -o (lu writes no factors without -o). When stdout carries no matrix, lu, solve,
// gemv and trsv print one summary line of key=value pairs there; dot prints its
// value alone. Diagnostics go to stderr. Exit status: see cli.hpp.
#include <algorithm>
#include <iostream>
#include <new>
#include <string>

#include "tools/flamex/cli.hpp"

namespace {

using namespace flamex::cli;

// The families whose subcommands are two words: "batch solve".
bool is_family(const std::string& word) { return word == "batch"; }

bool wants_help(int first, int argc, char** argv)
{
    for (int i = first; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") return false;
        if (arg == "--help" || arg == "-h") return true;
    }
    return false;
}

int run_family_help(const std::string& family, std::ostream& out)
{
    bool first = true;
    for (const Command& c : commands())
        if (std::string(c.name).rfind(family + " ", 0) == 0) {
            if (!first) out << "\n";
            print_help(c, out);
            first = false;
        }
    return kSuccess;
}

// The subcommand argv names, and the index of its first argument.
std::pair<const Command*, int> find_command(int argc, char** argv)
{
    const std::string word = argv[1];
    if (!is_family(word)) return {&command(word), 2};
    if (argc < 3 || std::string(argv[2]).rfind("-", 0) == 0) throw UsageError("missing argument ACTION");
    std::string known;
    for (const Command& c : commands()) {
        const std::string name = c.name;
        if (name.rfind(word + " ", 0) != 0) continue;
        if (name == word + " " + argv[2]) return {&c, 3};
        known += (known.empty() ? "" : ", ") + name.substr(word.size() + 1);
    }
    throw UsageError("unknown " + word + " action '" + argv[2] + "' (known: " + known + ")");
}

int run(int argc, char** argv)
{
    if (argc < 2) {
        print_usage(std::cerr);
        return kBadInput;
    }
    const std::string name = argv[1];
    if (name == "--version") {
        std::cout << "flamex " << FLAMEX_VERSION << "\n";
        return kSuccess;
    }
    if (name == "--help" || name == "-h" || name == "help") {
        if (argc > 2 && name == "help") {
            if (is_family(argv[2]) && argc == 3) return run_family_help(argv[2], std::cout);
            const std::string sub = argc > 3 && is_family(argv[2]) ? std::string(argv[2]) + " " + argv[3] : argv[2];
            print_help(command(sub), std::cout);
        } else {
            print_usage(std::cout);
        }
        return kSuccess;
    }
    if (is_family(name) && wants_help(2, argc, argv) && (argc < 3 || std::string(argv[2]).rfind("-", 0) == 0))
        return run_family_help(name, std::cout);
    auto [c, first] = find_command(argc, argv);
#ifdef FLAMEX_MPI
    if (const Command* distributed = distributed_command(*c, first, argc, argv)) c = distributed;
#endif
    if (wants_help(first, argc, argv)) {
        print_help(*c, std::cout);
        return kSuccess;
    }
    return c->run(parse(*c, first, argc, argv));
}

// "flamex lu" or "flamex batch solve" for the messages, as far as argv names one.
std::string who(int argc, char** argv)
{
    const auto known = [](const std::string& name) {
        return std::any_of(commands().begin(), commands().end(), [&](const Command& c) { return name == c.name; });
    };
    if (argc < 2) return "flamex";
    const std::string word = argv[1];
    if (is_family(word)) return argc > 2 && known(word + " " + argv[2]) ? "flamex " + word + " " + argv[2] : "flamex " + word;
    return known(word) ? "flamex " + word : "flamex";
}

} // namespace

int main(int argc, char** argv)
{
    const std::string me = who(argc, argv);
    int status = kBadInput;
    try {
        status = run(argc, argv);
    } catch (const UsageError& e) {
        std::cerr << me << ": " << e.what() << "\n";
        std::cerr << "Try '" << me << " --help'.\n";
        return kBadInput;
    } catch (const flamex::Error& e) {
        std::cerr << me << ": " << e.what() << "\n";
        return kBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << me << ": out of memory\n";
        return kBadInput;
    } catch (const std::exception& e) {
        std::cerr << me << ": " << e.what() << "\n";
        return kBadInput;
    } catch (...) {
        std::cerr << me << ": unexpected error\n";
        return kBadInput;
    }
    std::cout.flush();
    if (!std::cout) {
        std::cerr << me << ": error writing to standard output\n";
        return kBadInput;
    }
    return status;
}
