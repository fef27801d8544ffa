#include "tools/flamex/cli.hpp"

#include <algorithm>
#include <iostream>
#include <limits>

#include "io/matrix_market.hpp"

namespace flamex::cli {

const Option kBackend{"--backend", nullptr, "NAME", "BLAS backend (default $FLAMEX_BACKEND, else blis; see `flamex backends`)"};
const Option kThreads{"--threads", nullptr, "T", "threads the backend may use (>= 1, default 1)"};
const Option kBlock{"--block", nullptr, "NB", "block size of blocked variants and of the backend's kernels (>= 1)"};
const Option kDevice{"--device", nullptr, "DEV", "OpenCL device, by index or name (default $FLAMEX_OPENCL_DEVICE; see `flamex devices`)"};
const Option kOutput{"--output", "-o", "FILE", "write the result to FILE (Matrix Market; - for stdout)"};
const Option kSeed{"--seed", nullptr, "S", "random seed (default 0)"};
const Option kHelp{"--help", "-h", nullptr, "show this help"};

const std::vector<Command>& commands()
{
    static const std::vector<Command> list = [] {
        std::vector<Command> all = dense_commands();
        for (Command& c : batch_commands()) all.push_back(std::move(c));
        for (Command& c : derive_commands()) all.push_back(std::move(c));
        return all;
    }();
    return list;
}

const Command& command(const std::string& name)
{
    for (const Command& c : commands())
        if (name == c.name) return c;
    throw UsageError("unknown subcommand '" + name + "'");
}

namespace {

std::string option_synopsis(const Option& o)
{
    std::string s = o.alias ? o.alias : o.name;
    if (o.value) s += std::string(" ") + o.value;
    return "[" + s + "]";
}

} // namespace

std::string synopsis(const Command& c)
{
    constexpr std::size_t kWidth = 100;
    std::string text = std::string("flamex ") + c.name;
    const std::string indent(text.size() + 1, ' ');
    std::size_t column = text.size();
    const auto append = [&](const std::string& word) {
        if (column + 1 + word.size() > kWidth) {
            text += "\n" + indent;
            column = indent.size();
        } else {
            text += " ";
            ++column;
        }
        text += word;
        column += word.size();
    };
    for (const char* o : c.operands) append(o);
    for (const Option* o : c.options) {
        if (o == &kHelp) continue;
        const bool required = std::find(c.required.begin(), c.required.end(), o) != c.required.end();
        const std::string word = option_synopsis(*o);
        append(required ? word.substr(1, word.size() - 2) : word);
    }
    return text;
}

void print_help(const Command& c, std::ostream& out)
{
    out << "usage: " << synopsis(c) << "\n\n" << c.description << "\n\noptions:\n";
    for (const Option* o : c.options) {
        std::string left = std::string("  ") + (o->alias ? std::string(o->alias) + ", " : std::string()) + o->name;
        if (o->value) left += std::string(" ") + o->value;
        out << left << std::string(left.size() < 24 ? 24 - left.size() : 1, ' ') << o->help << "\n";
    }
#ifdef FLAMEX_MPI
    if (const Command* d = distributed_form(c); d != nullptr && d != &c)
        out << "\ndistributed, under mpirun (`flamex " << c.name << " --grid PxQ --help` describes it):\n"
            << synopsis(*d) << "\n";
#endif
}

void print_usage(std::ostream& out)
{
    out << "usage: flamex <subcommand> [arguments] [options]\n\nsubcommands:\n";
    for (const Command& c : commands()) out << synopsis(c) << "\n";
    out << "flamex --version\n"
           "\n`flamex <subcommand> --help` describes one. Exit status: 0 success, 1 numerical\n"
           "failure (singular matrix), 2 bad usage or input.\n";
#ifdef FLAMEX_MPI
    out << "\ndistributed, under mpirun -np P*Q (docs/mpi.md; `flamex lu --grid PxQ --help` describes one):\n";
    for (const Command& c : distributed_commands()) out << synopsis(c) << "\n";
#endif
}

Args parse(const Command& c, int first, int argc, char** argv)
{
    Args a;
    a.command = c.name;
    bool options_done = false;
    for (int i = first; i < argc; ++i) {
        const std::string arg = argv[i];
        if (options_done || arg.size() < 2 || arg[0] != '-') {
            a.operands.push_back(arg);
            continue;
        }
        if (arg == "--") {
            options_done = true;
            continue;
        }
        const size_t eq = arg.rfind("--", 0) == 0 ? arg.find('=') : std::string::npos;
        const std::string name = arg.substr(0, eq);
        const auto named = [&](const Option* o) { return name == o->name || (o->alias != nullptr && name == o->alias); };
        const auto found = std::find_if(c.options.begin(), c.options.end(), named);
        if (found == c.options.end()) {
            const auto sibling = std::find_if(c.foreign.begin(), c.foreign.end(), named);
            if (sibling != c.foreign.end())
                throw UsageError(std::string("option ") + (*sibling)->name + " does not apply to " + c.name);
            throw UsageError("unknown option '" + name + "'");
        }
        const Option& o = **found;
        if (a.values.count(o.name) != 0) throw UsageError(std::string("option ") + o.name + " given more than once");
        std::string value;
        if (o.value == nullptr) {
            if (eq != std::string::npos) throw UsageError(std::string("option ") + o.name + " takes no value");
        } else if (eq != std::string::npos) {
            value = arg.substr(eq + 1);
        } else {
            if (i + 1 >= argc || std::string(argv[i + 1]).rfind("--", 0) == 0)
                throw UsageError(std::string("option ") + o.name + " requires a value (" + o.value + ")");
            value = argv[++i];
        }
        a.values[o.name] = value;
    }
    const bool variadic = !c.operands.empty() && std::string(c.operands.back()).find("...") != std::string::npos;
    if (a.operands.size() > c.operands.size() && !variadic)
        throw UsageError("unexpected argument '" + a.operands[c.operands.size()] + "'");
    for (const Option* o : c.required)
        if (!a.has(*o)) throw UsageError(std::string("option ") + (o->alias ? o->alias : o->name) + " is required");
    return a;
}

void require_operands(const Command& c, const Args& a)
{
    if (a.operands.size() < c.operands.size())
        throw UsageError(std::string("missing argument ") + c.operands[a.operands.size()]);
}

long long integer_option(const Args& a, const Option& o, long long fallback, long long min, long long max)
{
    const auto text = a.get(o);
    if (!text) return fallback;
    const auto v = io::parse_integer(*text, std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
    if (!v) throw UsageError(std::string("option ") + o.name + ": '" + *text + "' is not an integer");
    if (*v < min || *v > max)
        throw UsageError(std::string("option ") + o.name + ": " + *text + " is out of range [" + std::to_string(min) +
                         ", " + std::to_string(max) + "]");
    return *v;
}

double real_option(const Args& a, const Option& o, double fallback)
{
    const auto text = a.get(o);
    if (!text) return fallback;
    const auto v = io::parse_real(*text);
    if (!v) throw UsageError(std::string("option ") + o.name + ": '" + *text + "' is not a number");
    return *v;
}

Summary& Summary::real(const std::string& key, double value) { return add(key, io::format_real(value)); }

void Summary::print() const { std::cout << line_ << "\n"; }

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace flamex::cli
