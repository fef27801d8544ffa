#include "experiments/bench_report.hpp"

#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <thread>

#include "exact/exact.hpp"
#include "bench_commit.hpp" // FLAMEX_BENCH_COMMIT, written at every build (cmake/bench_commit.cmake)

namespace flamex::bench {

namespace {

std::string cpuinfo_field(const char* key)
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) {
            const std::size_t colon = line.find(':');
            if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
        }
    return "";
}

} // namespace

bool take_flag(int& argc, char** argv, const char* flag)
{
    bool found = false;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], flag)) found = true;
        else argv[kept++] = argv[i];
    }
    argc = kept;
    argv[argc] = nullptr;
    return found;
}

std::string cpu_model()
{
    const std::string model = cpuinfo_field("model name");
    return model.empty() ? "unknown CPU" : model;
}

std::string cpu_clock()
{
    const std::string mhz = cpuinfo_field("cpu MHz");
    return mhz.empty() ? "clock unknown" : mhz + " MHz";
}

std::string load_average()
{
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a.empty() ? "?" : a + " " + b + " " + c;
}

std::string build_commit() { return FLAMEX_BENCH_COMMIT; }

std::string utc_now()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
    return text;
}

Report::Report(const char* program, int& argc, char** argv) : command_(program)
{
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--markdown")) markdown_ = true;
        else if (!std::strcmp(argv[i], "--columns")) columns_ = true;
        else {
            command_ += std::string(" ") + argv[i];
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    argv[argc] = nullptr;
}

void Report::print_columns(const std::vector<Table>& tables) const
{
    for (const Table& t : tables)
        std::printf("<!-- BEGIN %s -->\n%s\n<!-- END %s -->\n", t.name.c_str(), t.header.c_str(), t.name.c_str());
}

void Report::begin(const Table& table, const std::string& caption) const
{
    if (markdown_) {
        std::printf("<!-- BEGIN %s -->\n", table.name.c_str());
        if (!caption.empty()) std::printf("%s\n\n", caption.c_str());
        std::printf("Written by `%s --markdown` on %s (%s, %u hardware threads), %s, commit %s, exact kernels %s, "
                    "load average %s.\n\n",
                    command_.c_str(), cpu_model().c_str(), cpu_clock().c_str(), std::thread::hardware_concurrency(),
                    utc_now().c_str(), build_commit().c_str(), exact::kernel_isa(), load_average().c_str());
    } else if (!caption.empty()) {
        std::printf("%s\n\n", caption.c_str());
    }
    std::printf("%s\n%s\n", table.header.c_str(), table.alignment.c_str());
    std::fflush(stdout);
}

void Report::end(const Table& table) const
{
    if (markdown_) std::printf("<!-- END %s -->\n", table.name.c_str());
    std::printf("\n");
    std::fflush(stdout);
}

} // namespace flamex::bench
