// The `flamex` program's shared vocabulary: options, the command table, the parser,
// and the usage text, which is generated from the table and nowhere else written
// (`flamex --help` prints it; docs/cli.md's command summary is tested against it).
//
//   cli.cpp             the parser, the usage and help text, the options and output
//                       helpers several subcommands share
//   dense_commands.cpp  lu, chol, ldlt, trinv, solve, dot, gemv, trsv, gen, backends,
//                       devices: one dense problem in Matrix Market files, through the
//                       abstract BLAS
//   batch_commands.cpp  batch solve, batch gen: many small symmetric systems in one
//                       binary batch file (batched/batched.hpp)
//   derive_command.cpp  derive: loop invariants, worksheets and variant files from a
//                       PME description (derive/derive.hpp)
//   main.cpp            dispatch, --version, and the exit status of every error
//
// Exit status: 0 success; 1 numerical failure (a zero pivot, a matrix that is not
// positive definite, a zero on the diagonal of a triangular matrix, a batch system
// that could not be solved); 2 bad usage or
// bad input (option, number, file, dimensions, variant, backend).
#pragma once

#include <chrono>
#include <iosfwd>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "flame/flame.hpp"

namespace flamex::cli {

// Bad usage: reported with a pointer to the subcommand's --help; exit status 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

constexpr int kSuccess = 0, kNumericalFailure = 1, kBadInput = 2;

struct Option {
    const char* name;  // "--block"
    const char* alias; // "-o", or nullptr
    const char* value; // "NB" for an option with a value, nullptr for a flag
    const char* help;
};

struct Args {
    std::string command; // "lu", "batch solve"
    std::vector<std::string> operands;
    std::map<std::string, std::string> values; // by the option's name; flags map to ""

    bool has(const Option& o) const { return values.count(o.name) != 0; }
    std::optional<std::string> get(const Option& o) const
    {
        const auto it = values.find(o.name);
        return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
};

struct Command {
    const char* name;                  // "lu", or two words for a family's action: "batch solve"
    std::vector<const char*> operands; // names, all required; a last one with "..." takes any more
    const char* description;
    std::vector<const Option*> options;
    std::vector<const Option*> required; // of options: parse() rejects a command line without them
    std::vector<const Option*> foreign;  // a sibling's options: rejected as "does not apply to <name>"
    int (*run)(const Args&);
};

// Every subcommand, in the order `flamex --help` lists them.
const std::vector<Command>& commands();
std::vector<Command> dense_commands();
std::vector<Command> batch_commands();
std::vector<Command> derive_commands();
const Command& command(const std::string& name);
// With FLAMEX_MPI: the distributed form of c (lu, solve, dot) when its arguments
// (from argv[first]) name --grid, else nullptr (tools/flamex/mpi_commands.cpp).
const Command* distributed_command(const Command& c, int first, int argc, char** argv);
// The distributed forms (flamex --help lists them apart), and c's, or nullptr.
const std::vector<Command>& distributed_commands();
const Command* distributed_form(const Command& c);

// "flamex lu A.mtx [--variant NAME] ... [-o FILE]", wrapped at 100 columns.
std::string synopsis(const Command& c);
void print_help(const Command& c, std::ostream& out);
// The top-level usage: every synopsis, then how to get help.
void print_usage(std::ostream& out);

// Splits argv[first..] by the command's options: "--name value", "--name=value",
// flags, and operands ("--" ends the options; "-" alone is an operand).
Args parse(const Command& c, int first, int argc, char** argv);
void require_operands(const Command& c, const Args& a);

long long integer_option(const Args& a, const Option& o, long long fallback, long long min, long long max);
double real_option(const Args& a, const Option& o, double fallback);

// Options more than one subcommand takes.
extern const Option kBackend, kThreads, kBlock, kDevice, kOutput, kSeed, kHelp;

// One line of key=value pairs on stdout.
class Summary {
public:
    template <class T>
    Summary& add(const std::string& key, const T& value)
    {
        std::ostringstream s;
        s << value;
        line_ += (line_.empty() ? "" : " ") + key + "=" + s.str();
        return *this;
    }
    Summary& real(const std::string& key, double value);
    void print() const;

private:
    std::string line_;
};

double seconds_since(std::chrono::steady_clock::time_point start);

} // namespace flamex::cli
