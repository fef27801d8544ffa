// flamex_experiments: the experiment suite (see suite.hpp and docs/main-job.md).
// Probes the backends (skipping, with a note, those that fail to
// initialise), runs the selected sections under one progress bar, writes the CSV
// files, backends.csv and summary.txt into the results folder and prints the
// summary. Exit status: 0, or 1 when some section failed on some backend (the rest
// still ran), 2 on bad usage.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "experiments/suite.hpp"

using namespace flamex;
using namespace flamex::expt;

int main(int argc, char** argv)
{
    const auto start = std::chrono::steady_clock::now();
    const Config config = parse_config(argc, argv);
    try {
        std::filesystem::create_directories(config.out);
    } catch (const std::exception& e) {
        std::cerr << "flamex_experiments: cannot create " << config.out << ": " << e.what() << "\n";
        return 2;
    }

    std::vector<std::string> names = config.backends;
    if (names.empty())
        for (const BackendInfo& b : backends()) names.push_back(b.name);
    std::vector<BackendStatus> statuses;
    try {
        statuses = probe_backends(names);
    } catch (const Error& e) {
        std::cerr << "flamex_experiments: " << e.what() << "\n";
        return 2;
    }

    Progress progress;
    Context ctx{config, {}, progress, {}, {}, {}, {}, {}, {}};
    try {
        Csv csv(ctx.path("backends.csv"), {"backend", "status", "reproducible", "description", "note"});
        for (const BackendStatus& b : statuses) {
            csv.row({b.name, b.usable ? "ran" : "skipped", b.usable ? (b.reproducible ? "yes" : "no") : "",
                     b.description, b.note});
            if (b.usable) ctx.backends.push_back(b.name);
            else std::cerr << "note: backend '" << b.name << "' skipped: " << b.note << "\n";
        }
    } catch (const std::exception& e) {
        std::cerr << "flamex_experiments: " << e.what() << "\n";
        return 2;
    }
    if (ctx.backends.empty()) {
        std::cerr << "flamex_experiments: no backend could be initialised\n";
        return 1;
    }

    std::vector<const Section*> selected;
    for (const Section& s : sections())
        if (config.sections.empty() ||
            std::find(config.sections.begin(), config.sections.end(), s.name) != config.sections.end())
            selected.push_back(&s);
    size_t total = 0;
    for (const Section* s : selected) total += s->steps(ctx);
    progress.reset(total);
    for (const Section* s : selected) {
        try {
            s->run(ctx);
        } catch (const std::exception& e) { // a CSV file that cannot be written, a bad configuration
            ctx.failures.push_back(std::string(s->name) + ": " + e.what());
            progress.note(std::string("note: section ") + s->name + " stopped: " + e.what());
        }
    }
    progress.finish();

    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string summary = render_summary(ctx, statuses, seconds);
    std::ofstream(ctx.path("summary.txt")) << summary;
    std::cout << "\n" << summary;
    return ctx.failures.empty() ? 0 : 1;
}
