// The usage text of `flamex` exists once, generated from its command tables; the
// docs/cli.md's command summary is a copy, held to it here.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "support/test_support.hpp"

namespace {

using flamex::test::run_program;
using flamex::test::ScratchDir;

// The subcommand lines of `flamex --help`: from "subcommands:" to the blank line.
std::string synopses_from_help(const std::string& help)
{
    const std::string head = "subcommands:\n";
    const size_t begin = help.find(head);
    if (begin == std::string::npos) return "";
    const size_t end = help.find("\n\n", begin);
    return help.substr(begin + head.size(), end - begin - head.size() + 1);
}

// The fenced block after docs/cli.md's "<!-- flamex --help -->" marker.
std::string synopses_from_readme(const std::string& readme)
{
    const size_t marker = readme.find("<!-- flamex --help -->");
    if (marker == std::string::npos) return "";
    const size_t open = readme.find("```\n", marker);
    const size_t close = readme.find("```\n", open + 4);
    if (open == std::string::npos || close == std::string::npos) return "";
    return readme.substr(open + 4, close - open - 4);
}

TEST(CliUsage, ReadmeSummaryIsTheProgramsUsage)
{
    ScratchDir scratch("usage");
    const auto help = run_program(FLAMEX_CLI, {"--help"}, scratch);
    ASSERT_EQ(help.status, 0) << help.err;
    const std::string program = synopses_from_help(help.out);
    ASSERT_NE(program.find("flamex lu A.mtx"), std::string::npos) << help.out;
    const std::string readme = synopses_from_readme(flamex::test::slurp(std::string(FLAMEX_SOURCE_DIR) + "/docs/cli.md"));
    EXPECT_EQ(readme, program) << "docs/cli.md's block after <!-- flamex --help --> must be `flamex --help`'s "
                                  "subcommand lines; paste them from the program";
}

TEST(CliUsage, EveryOptionOfEveryHelpIsInTheSynopsis)
{
    ScratchDir scratch("usage");
    const std::string synopses = synopses_from_help(run_program(FLAMEX_CLI, {"--help"}, scratch).out);
    for (const char* sub : {"lu", "chol", "ldlt", "trinv", "solve", "dot", "gemv", "trsv", "gen", "backends", "devices", "batch", "derive"}) {
        const auto help = run_program(FLAMEX_CLI, {sub, "--help"}, scratch);
        ASSERT_EQ(help.status, 0) << sub << ": " << help.err;
        std::istringstream lines(help.out.substr(help.out.find("options:")));
        for (std::string line; std::getline(lines, line);) {
            std::istringstream words(line);
            std::string option;
            words >> option;
            if (option.rfind("--", 0) != 0 || option == "--help") continue;
            const bool in_synopsis = synopses.find("[" + option) != std::string::npos ||
                                     synopses.find(" " + option + " ") != std::string::npos;
            EXPECT_TRUE(in_synopsis) << sub << " --help lists " << option << ", the synopsis does not";
        }
    }
}

TEST(CliUsage, VersionIsTheProjects)
{
    ScratchDir scratch("usage");
    const auto r = run_program(FLAMEX_CLI, {"--version"}, scratch);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string("flamex ") + FLAMEX_VERSION + "\n");
}

} // namespace
