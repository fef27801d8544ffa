// What the experiment sections share: configuration, CSV, timing, progress, the
// backend probe and the summary table (see suite.hpp).
#include "experiments/suite.hpp"

#include <algorithm>
#include <bitset>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include "reference/generators.hpp"
#include "variants/chol.hpp"
#include "variants/ldlt_blas.hpp"
#include "variants/lu.hpp"

namespace flamex::expt {

// --- configuration ---------------------------------------------------------------

namespace {

const char* const kUsage =
    "usage: flamex_experiments [--tiny | --full] [--out DIR] [--sections LIST] [--backends LIST]\n"
    "                          [--threads T] [--reps R] [--time-budget S] [--block NB] [--refine K]\n"
    "                          [--sizes LIST] [--conds LIST] [--mpfr-max N] [--lu-time-sizes LIST] [--repro-size N]\n"
    "                          [--chol-conds LIST]\n"
    "                          [--gemv-sizes LIST] [--panel N] [--gemv-n N] [--gemv-conds LIST]\n"
    "                          [--trsv-sizes LIST] [--trsv-n N] [--trsv-conds LIST]\n"
    "                          [--batch-count K] [--batch-paths M]\n"
    "\n"
    "Section 5 of Iakymchuk et al. (2019) on every backend, and the batched solvers of Abbas-Turki\n"
    "and Graillat (2017) on their regression matrices: CSV files into DIR (default results/).\n"
    "  --tiny, --full     preset sizes: a seconds-long smoke run, or the paper-scale one\n"
    "                     (default: a few minutes on 2 cores); explicit options override them\n"
    "  --sections LIST    some of lu,repro,lu-time,chol,gemv,trsv,batch (default all)\n"
    "  --backends LIST    backends to run (default every registered one; those that fail to\n"
    "                     initialise are skipped with a note)\n"
    "  --threads T        threads of the timed and accuracy runs (default 1)\n"
    "  --reps R           repetitions of each timing; min and median are kept\n"
    "  --time-budget S    seconds one timing may take: repetitions stop once it is spent,\n"
    "                     a warm-up call longer than S is the only (timed) run (default 1)\n"
    "  --block NB         block size of the blocked LU variants (default 32)\n"
    "  --refine K         at most K steps of trsv iterative refinement (default 5)\n"
    "  --sizes, --conds   LU accuracy sizes and target condition numbers (kappa_inf)\n"
    "  --mpfr-max N       MPFR residual ||PA - LU|| and measured kappa_inf for n <= N\n"
    "  --lu-time-sizes    LU timing sizes;  --repro-size N: the reproducibility matrix\n"
    "  --chol-conds LIST  kappa_2 of the SPD matrices of the chol section (sizes: --sizes)\n"
    "  --gemv-sizes LIST  square n, row-panel n (m = --panel), column-panel m (n = --panel)\n"
    "  --gemv-n, --gemv-conds   size and condition numbers of the gemv accuracy runs\n"
    "  --trsv-sizes, --trsv-n, --trsv-conds   the same for trsv\n"
    "  --batch-count K, --batch-paths M   regression matrices (n = 30) and inner paths per matrix\n"
    "                     (default 1000 and 300, the paper's)\n";

[[noreturn]] void usage(const std::string& why)
{
    std::cerr << "flamex_experiments: " << why << "\n" << kUsage;
    std::exit(2);
}

std::vector<std::string> split(const std::string& text)
{
    std::vector<std::string> items;
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return items;
}

double positive(const std::string& item)
{
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(v > 0) || !std::isfinite(v)) usage("bad number '" + item + "'");
    return v;
}

std::vector<double> reals(const std::string& text)
{
    std::vector<double> v;
    for (const std::string& item : split(text)) v.push_back(positive(item));
    return v;
}

dim_t size_of(const std::string& item)
{
    const double v = positive(item);
    if (v != std::floor(v) || v < 2 || v > 1e6) usage("bad size '" + item + "' (an integer from 2)");
    return static_cast<dim_t>(v);
}

std::vector<dim_t> sizes(const std::string& text)
{
    std::vector<dim_t> v;
    for (const std::string& item : split(text)) v.push_back(size_of(item));
    return v;
}

void apply_preset(Config& c, const std::string& preset)
{
    c.preset = preset;
    c.gemv_conds = powers_of_ten(2, 38, 3);
    c.trsv_conds = powers_of_ten(2, 38, 3);
    if (preset == "tiny") {
        c.reps = 1;
        c.time_budget = 0.1;
        c.lu_sizes = {24};
        c.lu_conds = {1e2, 1e16};
        c.mpfr_max = 24;
        c.block = 8;
        c.lu_time_sizes = {16, 32};
        c.repro_size = 24;
        c.chol_conds = {1e2, 1e8, 1e15};
        c.gemv_sizes = {32, 64};
        c.panel = 16;
        c.gemv_n = 32;
        c.gemv_conds = {1e2, 1e20};
        c.trsv_sizes = {32, 64};
        c.trsv_n = 24;
        c.trsv_conds = {1e2, 1e20};
        c.refine = 3;
        c.batch_count = 40;
    } else if (preset == "full") {
        c.reps = 5;
        c.time_budget = 5;
        c.lu_sizes = {128, 256, 512, 1024};
        c.lu_conds = powers_of_ten(2, 40, 4);
        c.lu_conds.insert(c.lu_conds.begin() + 1, 1e4);
        c.mpfr_max = 256;
        c.lu_time_sizes = {256, 512, 1024, 2048};
        c.repro_size = 512;
        c.gemv_sizes = {256, 512, 1024, 2048, 4096, 8192};
        c.gemv_n = 1024;
        c.gemv_conds = powers_of_ten(2, 60, 2);
        c.trsv_sizes = {256, 512, 1024, 2048, 4096, 8192};
        c.trsv_n = 400;
        c.trsv_conds = powers_of_ten(2, 40, 2);
    }
}

} // namespace

std::vector<double> powers_of_ten(int from, int to, int step)
{
    std::vector<double> v;
    for (int e = from; e <= to; e += step) v.push_back(std::stod("1e" + std::to_string(e)));
    return v;
}

Config parse_config(int argc, char** argv)
{
    Config c;
    std::string preset = "default";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--tiny" || a == "--full") {
            if (preset != "default" && preset != a.substr(2)) usage("--tiny and --full exclude each other");
            preset = a.substr(2);
        }
        c.command_line += (i > 1 ? " " : "") + a;
    }
    apply_preset(c, preset);
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(a + " needs a value");
            return argv[++i];
        };
        auto count = [&](int lo) {
            const std::string text = value();
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0' || v != std::floor(v) || v < lo || v > 1e6)
                usage(a + " needs an integer from " + std::to_string(lo) + ", got '" + text + "'");
            return static_cast<int>(v);
        };
        if (a == "--tiny" || a == "--full") continue;
        else if (a == "--out") c.out = value();
        else if (a == "--sections") {
            c.sections = split(value());
            for (const std::string& s : c.sections) {
                const auto& all = sections();
                if (std::none_of(all.begin(), all.end(), [&](const Section& k) { return s == k.name; }))
                    usage("unknown section '" + s + "' (known: lu, repro, lu-time, chol, gemv, trsv, batch)");
            }
        } else if (a == "--backends") c.backends = split(value());
        else if (a == "--threads") c.threads = count(1);
        else if (a == "--reps") c.reps = count(1);
        else if (a == "--time-budget") c.time_budget = positive(value());
        else if (a == "--block") c.block = count(1);
        else if (a == "--refine") c.refine = count(0);
        else if (a == "--sizes") c.lu_sizes = sizes(value());
        else if (a == "--conds") c.lu_conds = reals(value());
        else if (a == "--chol-conds") c.chol_conds = reals(value());
        else if (a == "--mpfr-max") c.mpfr_max = size_of(value());
        else if (a == "--lu-time-sizes") c.lu_time_sizes = sizes(value());
        else if (a == "--repro-size") c.repro_size = size_of(value());
        else if (a == "--gemv-sizes") c.gemv_sizes = sizes(value());
        else if (a == "--panel") c.panel = size_of(value());
        else if (a == "--gemv-n") c.gemv_n = size_of(value());
        else if (a == "--gemv-conds") c.gemv_conds = reals(value());
        else if (a == "--trsv-sizes") c.trsv_sizes = sizes(value());
        else if (a == "--trsv-n") c.trsv_n = size_of(value());
        else if (a == "--trsv-conds") c.trsv_conds = reals(value());
        else if (a == "--batch-count") c.batch_count = static_cast<std::size_t>(count(1));
        else if (a == "--batch-paths") c.batch_paths = count(1);
        else if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            std::exit(0);
        } else usage("unknown option " + a);
    }
    return c;
}

// --- CSV ---------------------------------------------------------------------------

std::string Csv::header(const std::vector<std::string>& columns)
{
    std::string line;
    for (const std::string& c : columns) line += (line.empty() ? "" : ",") + c;
    return line;
}

Csv::Csv(const std::string& path, std::vector<std::string> columns)
    : path_(path), columns_(columns.size()), out_(path)
{
    if (!out_) throw Error("cannot write " + path);
    out_ << header(columns) << '\n';
}

void Csv::row(const std::vector<std::string>& fields)
{
    if (fields.size() != columns_)
        throw Error(path_ + ": a row of " + std::to_string(fields.size()) + " fields, the header has " +
                    std::to_string(columns_));
    std::string line;
    for (size_t i = 0; i < fields.size(); ++i) {
        const std::string& f = fields[i];
        if (i > 0) line += ',';
        if (f.find_first_of(",\"\n") == std::string::npos) {
            line += f;
            continue;
        }
        line += '"'; // RFC 4180 quoting
        for (char ch : f) line += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        line += '"';
    }
    out_ << line << '\n';
    out_.flush();
}

std::string real(double v)
{
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char text[32];
    std::snprintf(text, sizeof text, "%.6e", v);
    return text;
}

std::string integer(long long v) { return std::to_string(v); }

// --- measurements ------------------------------------------------------------------

Timing time_reps(const Config& c, const std::function<void()>& setup, const std::function<void()>& body)
{
    using clock = std::chrono::steady_clock;
    auto timed = [&] {
        if (setup) setup();
        const auto start = clock::now();
        body();
        return std::chrono::duration<double>(clock::now() - start).count();
    };
    const auto begin = clock::now();
    const double first = timed(); // warm-up: programs, caches, first-touch pages
    if (first > c.time_budget) return Timing{first, first, 1}; // long enough to count as it is
    std::vector<double> t;
    while (static_cast<int>(t.size()) < std::max(c.reps, 1)) {
        t.push_back(timed());
        if (std::chrono::duration<double>(clock::now() - begin).count() > c.time_budget) break;
    }
    std::sort(t.begin(), t.end());
    const size_t k = t.size();
    return Timing{t.front(), k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2, static_cast<int>(k)};
}

Matrix ones_rhs(Obj A)
{
    Matrix b(A.length(), 1);
    for (dim_t i = 0; i < A.length(); ++i) {
        long double s = 0;
        for (dim_t j = 0; j < A.width(); ++j) s += A(i, j);
        b(i, 0) = static_cast<double>(s);
    }
    return b;
}

long double norm_inf(Obj A)
{
    long double best = 0;
    for (dim_t i = 0; i < A.length(); ++i) {
        long double row = 0;
        for (dim_t j = 0; j < A.width(); ++j) row += std::fabs(static_cast<long double>(A(i, j)));
        best = max_nan(best, row);
    }
    return best;
}

double capped(double error) { return std::isnan(error) || error > 1.0 ? 1.0 : error; }

// --- progress ------------------------------------------------------------------------

void Progress::draw(const std::string& what)
{
    const int width = 30;
    const int filled = total_ ? static_cast<int>(width * std::min(done_, total_) / total_) : width;
    std::fprintf(stderr, "\r[%.*s%*s] %3zu%% %-52.52s", filled, "##############################", width - filled, "",
                 total_ ? 100 * std::min(done_, total_) / total_ : 100, what.c_str());
    std::fflush(stderr);
}

void Progress::step(const std::string& what)
{
    last_ = what;
    draw(what);
    ++done_;
}

void Progress::note(const std::string& line)
{
    std::fprintf(stderr, "\r%-90s\r%s\n", "", line.c_str());
    draw(last_);
}

void Progress::finish()
{
    done_ = total_;
    draw("done");
    std::fputc('\n', stderr);
    std::fflush(stderr);
}

// --- backends --------------------------------------------------------------------------

std::unique_ptr<Blas> make(const std::string& backend, int threads, dim_t kernel_block)
{
    return make_backend(backend, BackendOptions{threads, kernel_block, ""});
}

std::vector<BackendStatus> probe_backends(const std::vector<std::string>& names)
{
    std::vector<BackendStatus> result;
    for (const std::string& name : names) {
        const auto& all = backends();
        const auto info = std::find_if(all.begin(), all.end(), [&](const BackendInfo& b) { return b.name == name; });
        if (info == all.end()) {
            make_backend(name); // throws, listing the known names
            continue;
        }
        BackendStatus s{name, info->description, false, false, ""};
        try {
            auto blas = make(name, 1);
            s.reproducible = blas->reproducible();
            // A small gemv and two small factorizations: the operations, programs and
            // device transfers every section needs.
            Matrix A = diagonally_dominant(6, 7), x = uniform_matrix(6, 1, 8), y(6, 1);
            {
                Resident hold_a(*blas, A), hold_x(*blas, x), hold_y(*blas, y);
                blas->gemv(NO_TRANSPOSE, 1.0, A, x, 0.0, y);
                (void)blas->element(y, 0, 0);
            }
            for (const char* variant : {"lu_piv_unb_var3", "lu_piv_blk_var5"}) {
                Matrix LU = A;
                Pivots p(6);
                LuControl control;
                control.block = 4;
                lu(*blas, find_lu_variant(variant), LU, p, control);
            }
            s.usable = true;
        } catch (const std::exception& e) {
            std::string what = e.what();
            s.note = what.substr(0, what.find('\n'));
        }
        result.push_back(s);
    }
    return result;
}

// --- the context ------------------------------------------------------------------------

bool Context::has_backend(const std::string& name) const
{
    return std::find(backends.begin(), backends.end(), name) != backends.end();
}

namespace {

// FLAMEX_EXPERIMENTS_FAIL=SECTION:BACKEND: that backend throws at its second attempt
// in that section (after its first one ran), as a backend failing in the middle of a
// section would; the tests check the notes and the exit status with it.
bool injected_failure(const std::string& section, const std::string& backend)
{
    static const char* const spec = std::getenv("FLAMEX_EXPERIMENTS_FAIL");
    static int attempts = 0;
    return spec != nullptr && section + ":" + backend == spec && ++attempts == 2;
}

} // namespace

void Context::attempt(const std::string& section, const std::string& backend, const std::function<void()>& work)
{
    if (failed.count({section, backend})) return;
    try {
        if (injected_failure(section, backend)) throw Error("failure injected by FLAMEX_EXPERIMENTS_FAIL");
        work();
    } catch (const std::exception& e) {
        std::string what = e.what();
        what = what.substr(0, what.find('\n'));
        failed.insert({section, backend});
        failures.push_back(section + " on " + backend + ": " + what);
        progress.note("note: " + section + ": backend '" + backend + "' failed, skipped for the rest of the section: " +
                      what);
    }
}

// --- reproducibility ---------------------------------------------------------------------

namespace {

std::uint64_t bits_of(double d)
{
    std::uint64_t k;
    std::memcpy(&k, &d, sizeof k);
    return k;
}

std::int64_t ulps_apart(double a, double b)
{
    if (bits_of(a) == bits_of(b)) return 0;
    if (std::isnan(a) || std::isnan(b)) return INT64_MAX;
    auto key = [](double d) {
        const auto k = static_cast<std::int64_t>(bits_of(d));
        return k < 0 ? INT64_MIN - k : k;
    };
    const std::int64_t ka = key(a), kb = key(b);
    return ka > kb ? ka - kb : kb - ka;
}

} // namespace

BitDiff compare_bits(Obj A, Obj B)
{
    if (A.length() != B.length() || A.width() != B.width())
        throw Error("compare_bits: " + std::to_string(A.length()) + " x " + std::to_string(A.width()) + " vs " +
                    std::to_string(B.length()) + " x " + std::to_string(B.width()));
    BitDiff d;
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) {
            const std::int64_t u = ulps_apart(A(i, j), B(i, j));
            if (u == 0) continue;
            ++d.elements;
            d.max_ulps = std::max(d.max_ulps, u);
            d.bits += static_cast<long long>(std::bitset<64>(bits_of(A(i, j)) ^ bits_of(B(i, j))).count());
        }
    return d;
}

ExactThreadsAlwaysSplit::ExactThreadsAlwaysSplit()
{
    const char* saved = std::getenv("FLAMEX_EXACT_PARALLEL_MIN");
    had_ = saved != nullptr;
    if (had_) previous_ = saved;
    ::setenv("FLAMEX_EXACT_PARALLEL_MIN", "1", 1);
}

ExactThreadsAlwaysSplit::~ExactThreadsAlwaysSplit()
{
    if (had_)
        ::setenv("FLAMEX_EXACT_PARALLEL_MIN", previous_.c_str(), 1);
    else
        ::unsetenv("FLAMEX_EXACT_PARALLEL_MIN");
}

const std::vector<Section>& sections()
{
    static const std::vector<Section> list = {
        {"lu", "LU error vs condition number (Fig. 7c)", lu_accuracy_steps, run_lu_accuracy},
        {"repro", "LU reproducibility", lu_repro_steps, run_lu_repro},
        {"lu-time", "LU time vs size (Figs. 7a-b)", lu_time_steps, run_lu_time},
        {"chol", "Cholesky and LDL^T error vs condition number, reproducibility", chol_steps, run_chol},
        {"gemv", "gemv time and accuracy (Figs. 5a-d)", gemv_steps, run_gemv},
        {"trsv", "trsv time and accuracy, with iterative refinement (Figs. 6a-d)", trsv_steps, run_trsv},
        {"batch", "batched symmetric solvers on the regression matrices of Abbas-Turki and Graillat", batch_steps,
         run_batch},
    };
    return list;
}

// --- the summary -----------------------------------------------------------------------

namespace {

std::string fixed(const char* format, double v)
{
    if (v < 0) return "-";
    char text[48];
    std::snprintf(text, sizeof text, format, v);
    return text;
}

std::string count(long long v) { return v < 0 ? "-" : std::to_string(v); }

std::string seconds_text(double s)
{
    if (s < 0) return "-";
    char text[32];
    if (s < 1e-3) std::snprintf(text, sizeof text, "%.0fus", s * 1e6);
    else if (s < 1) std::snprintf(text, sizeof text, "%.3gms", s * 1e3);
    else std::snprintf(text, sizeof text, "%.3gs", s);
    return text;
}

std::string pad(const std::string& s, size_t width, bool left = false)
{
    if (s.size() >= width) return s;
    return left ? s + std::string(width - s.size(), ' ') : std::string(width - s.size(), ' ') + s;
}

std::string list(const std::vector<dim_t>& v)
{
    std::string s;
    for (dim_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
    return s;
}

std::string conds_text(const std::vector<double>& v)
{
    std::string s;
    for (double x : v) {
        char text[32];
        std::snprintf(text, sizeof text, "%.0e", x);
        s += (s.empty() ? "" : ",") + std::string(text);
    }
    return s;
}

bool ran(const Config& c, const std::string& section)
{
    return c.sections.empty() || std::find(c.sections.begin(), c.sections.end(), section) != c.sections.end();
}

} // namespace

std::string render_summary(const Context& ctx, const std::vector<BackendStatus>& statuses, double seconds)
{
    const Config& c = ctx.config;
    std::ostringstream s;
    s << "flamex_experiments " << c.command_line << "   (preset " << c.preset << ", " << c.threads
      << " thread(s), " << seconds_text(seconds) << ")\n";
    for (const BackendStatus& b : statuses)
        if (!b.usable) s << "skipped backend " << b.name << ": " << b.note << "\n";

    if (ran(c, "lu") || ran(c, "repro") || ran(c, "lu-time")) {
        s << "\nLU variants x backends:\n"
          << "  bwd   max ||PA - LU||_inf / (||A||_inf n u) over n = " << list(c.lu_sizes)
          << " and every condition number\n"
          << "  diff  entries of L\\U and pivots whose bits change between 1 and 2 threads, two runs and\n"
          << "        two kernel block sizes (n = " << c.repro_size << "); 0 = reproducible\n"
          << "  exact entries differing from the same variant on the exact backend\n"
          << "  time  factorization at n = " << (c.lu_time_sizes.empty() ? 0 : c.lu_time_sizes.back()) << "\n\n";
        const size_t cell = 27;
        s << pad("", 18, true);
        for (const std::string& b : ctx.backends) s << " | " << pad(b, cell, true);
        s << "\n" << pad("variant", 18, true);
        for (size_t i = 0; i < ctx.backends.size(); ++i)
            s << " | " << pad("bwd", 6) << pad("diff", 6) << pad("exact", 6) << pad("time", 9);
        s << "\n" << std::string(18, '-');
        for (size_t i = 0; i < ctx.backends.size(); ++i) s << "-+-" << std::string(cell, '-');
        s << "\n";
        for (const LuVariant& v : lu_variants()) {
            s << pad(v.name, 18, true);
            for (const std::string& b : ctx.backends) {
                const auto found = ctx.lu.find({b, v.name});
                LuSummary l;
                if (found != ctx.lu.end()) l = found->second;
                s << " | " << pad(fixed("%.2g", l.worst_backward), 6) << pad(count(l.differing), 6)
                  << pad(count(l.vs_exact), 6) << pad(seconds_text(l.seconds), 9);
            }
            s << "\n";
        }
    }

    if (ran(c, "chol")) {
        s << "\nCholesky and LDL^T variants x backends (SPD matrices Q diag Q^T, kappa_2 = " << conds_text(c.chol_conds)
          << "):\n"
          << "  bwd   max ||A - L L^T||_inf (LDL^T: ||A - L D L^T||_inf) / (||A||_inf n u) over n = "
          << list(c.lu_sizes) << ",\n"
          << "        matrices the variant found positive definite (nonzero pivots)\n"
          << "  diff  entries of the factor whose bits change between 1 and 2 threads (n = " << c.repro_size
          << "); 0 = reproducible\n"
          << "  exact entries differing from the same variant on the exact backend\n\n";
        const size_t cell = 18;
        s << pad("", 18, true);
        for (const std::string& b : ctx.backends) s << " | " << pad(b, cell, true);
        s << "\n" << pad("variant", 18, true);
        for (size_t i = 0; i < ctx.backends.size(); ++i) s << " | " << pad("bwd", 6) << pad("diff", 6) << pad("exact", 6);
        s << "\n" << std::string(18, '-');
        for (size_t i = 0; i < ctx.backends.size(); ++i) s << "-+-" << std::string(cell, '-');
        s << "\n";
        std::vector<std::string> names;
        for (const CholVariant& v : chol_variants()) names.push_back(v.name);
        for (const LdltBlasVariant& v : ldlt_blas_variants()) names.push_back(v.name);
        for (const std::string& name : names) {
            s << pad(name, 18, true);
            for (const std::string& b : ctx.backends) {
                const auto found = ctx.chol.find({b, name});
                CholSummary l;
                if (found != ctx.chol.end()) l = found->second;
                s << " | " << pad(fixed("%.2g", l.worst_backward), 6) << pad(count(l.differing), 6)
                  << pad(count(l.vs_exact), 6);
            }
            s << "\n";
        }
    }

    if (ran(c, "gemv") || ran(c, "trsv")) {
        const dim_t g = c.gemv_sizes.empty() ? 0 : c.gemv_sizes.back();
        const dim_t t = c.trsv_sizes.empty() ? 0 : c.trsv_sizes.back();
        s << "\nBLAS kernels (errors: relative forward error against MPFR, capped at 1):\n"
          << "  gemv time   square n = " << g << ";  gemv err: worst over every condition number (n = " << c.gemv_n
          << ")\n"
          << "  trsv time   n = " << t << ", one trsv / trsv_refined (<= " << c.refine << " refinement steps)\n"
          << "  trsv err    worst over condition numbers < 1/u (n = " << c.trsv_n
          << "), without -> with refinement\n\n";
        s << pad("backend", 14, true) << pad("gemv time", 11) << pad("gemv err", 10) << pad("trsv time", 11)
          << pad("trsv+IR", 10) << pad("trsv err -> with IR", 22) << pad("IR steps", 10) << "\n"
          << std::string(88, '-') << "\n";
        for (const std::string& b : ctx.backends) {
            KernelSummary k;
            const auto found = ctx.kernels.find(b);
            if (found != ctx.kernels.end()) k = found->second;
            s << pad(b, 14, true) << pad(seconds_text(k.gemv_seconds), 11) << pad(fixed("%.1e", k.gemv_worst), 10)
              << pad(seconds_text(k.trsv_seconds), 11) << pad(seconds_text(k.trsv_refined_seconds), 10)
              << pad(fixed("%.1e", k.trsv_worst) + " -> " + fixed("%.1e", k.trsv_refined_worst), 22)
              << pad(k.trsv_max_steps < 0 ? "-" : std::to_string(k.trsv_max_steps), 10) << "\n";
        }
    }
    if (ran(c, "batch") && !ctx.batch.rows.empty()) {
        const BatchSummary& b = ctx.batch;
        const double tolerance = b.rows.begin()->second.tolerance;
        s << "\nBatched symmetric solvers in single precision on the regression matrices of Abbas-Turki and\n"
          << "Graillat (2017): " << b.count << " systems, n = " << b.n << ", kappa_2 from " << fixed("%.1e", b.kappa_min)
          << " to " << fixed("%.1e", b.kappa_max) << "\n"
          << "  residual  ||A x - y|| / (||A|| ||x|| + ||y||) (inf-norms), checked against " << fixed("%.1e", tolerance)
          << " (16 n u)\n"
          << "  fwd err   max |x - z| / max |z|, z the double-precision solution of the same systems\n"
          << "  bits      systems whose x differs in any bit from the CPU's\n\n";
        s << pad("engine", 8, true) << pad("method", 17, true) << pad("flagged", 8) << pad("repaired", 9)
          << pad("failed", 7) << pad("residual med / max", 21) << pad("fwd err med / max", 21) << pad("bits", 6)
          << "\n"
          << std::string(97, '-') << "\n";
        for (const char* engine : {"cpu", "opencl"})
            for (const char* method : {"ldlt", "householder-pcr", "dc", "auto"}) {
                const auto found = b.rows.find({engine, method});
                if (found == b.rows.end()) continue;
                const BatchMethodSummary& r = found->second;
                s << pad(engine, 8, true) << pad(method, 17, true) << pad(std::to_string(r.flagged), 8)
                  << pad(std::to_string(r.repaired), 9) << pad(std::to_string(r.failed), 7)
                  << pad(fixed("%.1e", r.residual_median) + " / " + fixed("%.1e", r.residual_max), 21)
                  << pad(fixed("%.1e", r.error_median) + " / " + fixed("%.1e", r.error_max), 21)
                  << pad(count(r.differs_from_cpu), 6) << "\n";
            }
    }
    if (!ctx.failures.empty()) {
        s << "\nFAILURES (" << ctx.failures.size() << "):\n";
        for (const std::string& f : ctx.failures) s << "  " << f << "\n";
    }
    s << "\nCSV files and figures in " << c.out << "/ (docs/main-job.md documents the columns)\n";
    return s.str();
}

} // namespace flamex::expt
