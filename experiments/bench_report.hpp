// The benchmarks' tables as Markdown for docs/benchmarks.md (tools/benchmarks.sh).
//
// Each benchmark program declares its tables once (a Table: the marker's name, the
// header row and the alignment row) and prints each between report.begin(table) and
// report.end(table). Two options, taken out of argv by the Report's constructor:
//   --markdown  each table is written between <!-- BEGIN name --> and <!-- END name -->,
//               with its caption and where it was measured: the command line, the CPU
//               model, its clock and hardware threads, the date (UTC), the commit the
//               program was built from, the exact kernel set and the load average.
//               tools/benchmarks.sh copies those blocks into docs/benchmarks.md.
//   --columns   prints each declared table's markers and header row, runs nothing:
//               the ctest bench_markdown_columns compares them with docs/benchmarks.md.
// Without either, a table is its header, rows and caption as before.
#pragma once

#include <string>
#include <vector>

namespace flamex::bench {

struct Table {
    std::string name;      // the marker's: "<program>.<table>", unique in docs/benchmarks.md
    std::string header;    // "| a | b |"
    std::string alignment; // "|---|---:|"
};

class Report {
public:
    // Removes --markdown and --columns from argv (argc updated) and remembers the rest of
    // the command line for the provenance line.
    Report(const char* program, int& argc, char** argv);

    bool markdown() const { return markdown_; }
    // --columns: print every table's markers and header row; the caller then exits 0.
    bool columns_only() const { return columns_; }
    void print_columns(const std::vector<Table>& tables) const;

    // caption: what the table holds (sizes, threads, data), one paragraph; may be empty.
    void begin(const Table& table, const std::string& caption = "") const;
    void end(const Table& table) const;

private:
    std::string command_;
    bool markdown_ = false;
    bool columns_ = false;
};

// Removes every `flag` from argv (argc updated); true when there was one.
bool take_flag(int& argc, char** argv, const char* flag);

std::string cpu_model();    // /proc/cpuinfo's model name
std::string cpu_clock();    // its "cpu MHz" of the first CPU (a VM's nominal clock), "... MHz"
std::string load_average(); // /proc/loadavg's three averages
std::string build_commit(); // the commit this program was built from (git describe --dirty)
std::string utc_now();      // "2026-11-28 09:30 UTC"

} // namespace flamex::bench
