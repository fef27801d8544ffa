// The experiment suite: section 5 of Iakymchuk, Graillat, Defour and Quintana-Orti
// (2019) as one program, flamex_experiments, whose sections each write CSV files
// into one results folder (docs/main-job.md documents every column):
//
//   lu       LU error vs condition number, every variant x backend (Fig. 7c)  lu_accuracy.csv
//   repro    bits of the factors that change with threads, runs, block sizes,
//            backends, every variant x backend                               lu_reproducibility.csv
//   lu-time  LU time vs size, every variant x backend (Figs. 7a-b)           lu_time.csv
//   gemv     gemv time vs size: square, row panel, column panel (5a-c)       gemv_time.csv
//            gemv forward error vs condition number (5d)                     gemv_accuracy.csv
//   trsv     trsv time vs size, with and without refinement (6a-c)           trsv_time.csv
//            trsv forward error vs condition number, with and without
//            iterative refinement (6d)                                       trsv_accuracy.csv
//   chol     Cholesky (chol_{unb,blk}_var1..3) and LDL^T (ldlt_blas_unb_var1..3) error
//            vs condition number of SPD matrices, every variant x backend    chol_accuracy.csv
//            bits that change with threads and against the exact backend     chol_reproducibility.csv
//   batch    Abbas-Turki and Graillat (2017): the condition numbers of their
//            regression matrices (Fig. 2)                                    batch_conditioning.csv
//            every batched method's residual and forward error on them,
//            CPU and OpenCL device                                           batch_accuracy.csv
//
// plus backends.csv (which backends ran, and why one was skipped) and summary.txt
// (the summary table the program prints). This header is what the sections share:
// the configuration, CSV files, timing, the progress bar, the backend probe and
// the summary.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "flame/flame.hpp"
#include "reference/generators.hpp"

namespace flamex::expt {

// --- configuration ---------------------------------------------------------------

struct Config {
    std::string out = "results";
    std::string preset = "default";        // default, tiny or full
    std::vector<std::string> sections;      // empty: all, in the order of sections()
    std::vector<std::string> backends;      // empty: every registered backend
    int threads = 1;                        // threads for the timed and accuracy runs
    int reps = 3;                           // repetitions of each timing (min and median kept)
    double time_budget = 1.0;               // seconds one timing may take (see time_reps)
    // lu, repro, lu-time
    std::vector<dim_t> lu_sizes{64, 128, 256};
    std::vector<double> lu_conds{1e2, 1e8, 1e16, 1e24, 1e32, 1e40};
    dim_t mpfr_max = 128;                   // MPFR residual and condition number up to this n
    dim_t block = 32;                       // algorithmic block size of the blocked variants
    std::vector<dim_t> lu_time_sizes{128, 256, 512};
    dim_t repro_size = 128;
    // chol (sizes: lu_sizes; block: block; reproducibility matrix: repro_size)
    std::vector<double> chol_conds{1e1, 1e4, 1e8, 1e12, 1e15};
    // gemv
    std::vector<dim_t> gemv_sizes{256, 512, 1024, 2048};
    dim_t panel = 256;                      // the fixed dimension of the panels (the paper's 256)
    dim_t gemv_n = 256;                     // n x n for the accuracy runs
    std::vector<double> gemv_conds;
    // trsv
    std::vector<dim_t> trsv_sizes{256, 512, 1024, 2048};
    dim_t trsv_n = 100;
    std::vector<double> trsv_conds;
    int refine = 5;                         // at most this many refinement steps
    // batch (the regression matrices of Abbas-Turki and Graillat, section 2)
    int batch_n = 30;
    std::size_t batch_count = 1000;         // the paper's l = 1 .. 1000
    int batch_paths = 300;                  // M, inner paths per matrix
    std::string command_line;
};

// Parses the command line (presets first, then the explicit options over them);
// prints the usage and exits with status 2 on bad usage.
Config parse_config(int argc, char** argv);

// 10^from, 10^(from+step), ..., up to 10^to.
std::vector<double> powers_of_ten(int from, int to, int step);

// --- CSV ---------------------------------------------------------------------------

// One CSV file with a fixed header; every row must have as many fields. Fields
// with a comma, quote or newline are quoted (RFC 4180).
class Csv {
public:
    Csv(const std::string& path, std::vector<std::string> columns);
    void row(const std::vector<std::string>& fields);
    static std::string header(const std::vector<std::string>& columns);

private:
    std::string path_;
    size_t columns_;
    std::ofstream out_;
};

// Field formatting: reals with 6 significant digits in exponent form ("nan", "inf").
std::string real(double v);
std::string integer(long long v);

// --- measurements ------------------------------------------------------------------

struct Timing {
    double min = 0.0, median = 0.0;
    int reps = 0;
};
// `setup` (not timed) then `body` (timed): one warm-up call, then up to c.reps
// timed calls, stopping once c.time_budget seconds have passed since the warm-up
// began; a warm-up longer than the budget is returned as the only run (first-call
// effects are negligible next to it).
Timing time_reps(const Config& c, const std::function<void()>& setup, const std::function<void()>& body);

// Errors as the paper plots them: an error above 1 (no correct digit), or NaN,
// becomes 1.
double capped(double error);
// max_i sum_j |a_ij| in long double, NaN when any entry is (the error measures' scale).
long double norm_inf(Obj A);
// b = A x* for x* = ones (n x 1), each entry the long-double row sum rounded once:
// the right-hand side of the forward-error measures, so that the error measured is
// the solver's, not b's.
Matrix ones_rhs(Obj A);

// The larger of a and b, NaN when either is (std::max drops a NaN second argument,
// which would let a NaN row vanish from an error measure).
template <class T>
T max_nan(T a, T b)
{
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : std::max(a, b);
}

// Seeded data for the timing runs: gen::uniform_matrix, gen::diagonally_dominant,
// gen::well_conditioned_lower (reference/generators.hpp).
using gen::diagonally_dominant;
using gen::uniform_matrix;
using gen::well_conditioned_lower;

// --- reproducibility ----------------------------------------------------------------

// Entries of two same-shaped matrices whose bits differ, the largest distance in
// units in the last place (INT64_MAX when one is NaN and the other not), and the
// number of differing bits.
struct BitDiff {
    long long elements = 0, bits = 0;
    std::int64_t max_ulps = 0;
};
BitDiff compare_bits(Obj A, Obj B);

// The exact backend keeps operations below FLAMEX_EXACT_PARALLEL_MIN products
// (2^17 by default) on one thread: at the repro sizes (24 with --tiny) "threads 1
// vs 2" would compare one thread with itself. While one of these lives the
// threshold is 1, so that every operation of a 2-thread run splits; the previous
// value (or its absence) is restored after.
class ExactThreadsAlwaysSplit {
public:
    ExactThreadsAlwaysSplit();
    ~ExactThreadsAlwaysSplit();
    ExactThreadsAlwaysSplit(const ExactThreadsAlwaysSplit&) = delete;
    ExactThreadsAlwaysSplit& operator=(const ExactThreadsAlwaysSplit&) = delete;

private:
    bool had_ = false;
    std::string previous_;
};

// --- progress ------------------------------------------------------------------------

// A one-line progress bar on stderr over a known number of steps; notes are
// printed on their own lines without breaking it.
class Progress {
public:
    explicit Progress(size_t total = 0) : total_(total) {}
    void reset(size_t total) { total_ = total; done_ = 0; }
    void step(const std::string& what);
    void note(const std::string& line);
    void finish();

private:
    void draw(const std::string& what);
    size_t total_, done_ = 0;
    std::string last_;
};

// --- backends --------------------------------------------------------------------------

struct BackendStatus {
    std::string name;
    std::string description;
    bool usable = false;
    bool reproducible = false;
    std::string note; // why it was skipped (first line of the error)
};
// Creates each backend and runs a small gemv on it; a backend that throws (e.g.
// an OpenCL backend with no platform) is marked unusable, with the reason.
// Unknown names throw flamex::Error (bad usage, not a failed backend).
std::vector<BackendStatus> probe_backends(const std::vector<std::string>& names);

std::unique_ptr<Blas> make(const std::string& backend, int threads, dim_t kernel_block = 0);

// --- what the sections share ----------------------------------------------------------

// Per (backend, variant): what the summary table shows.
struct LuSummary {
    double worst_backward = -1;      // ||PA - LU|| / (||A|| n u), worst over lu's runs
    long long differing = -1;        // entries differing: threads, runs, kernel block
    long long vs_exact = -1;         // entries differing from the exact backend
    double seconds = -1;             // lu-time at its largest size
};
struct KernelSummary {
    double gemv_seconds = -1, gemv_worst = -1;            // square, largest size; worst error
    double trsv_seconds = -1, trsv_refined_seconds = -1;  // largest size
    double trsv_worst = -1, trsv_refined_worst = -1;      // worst error for cond < 1/u
    int trsv_max_steps = -1;                              // most refinement steps taken
};

// Per (backend, Cholesky or LDL^T variant).
struct CholSummary {
    double worst_backward = -1;      // ||A - L L^T|| (or L D L^T) / (||A|| n u), worst over chol's runs
                                     // of matrices found positive definite (NaN counts as HUGE_VAL)
    long long differing = -1;        // entries differing between 1 and 2 threads
    long long vs_exact = -1;         // entries differing from the exact backend
};

struct BatchMethodSummary {
    std::size_t flagged = 0, repaired = 0, failed = 0; // failed: breakdown or invalid input
    double residual_median = -1, residual_max = -1, error_median = -1, error_max = -1;
    double tolerance = -1;
    long long differs_from_cpu = -1; // device: systems whose x has other bits than the CPU's
};
struct BatchSummary {
    int n = 0;
    std::size_t count = 0;
    double kappa_min = -1, kappa_max = -1;
    std::map<std::pair<std::string, std::string>, BatchMethodSummary> rows; // (engine, method)
};

struct Context {
    const Config& config;
    std::vector<std::string> backends; // the usable ones, in registry order
    Progress& progress;
    std::map<std::pair<std::string, std::string>, LuSummary> lu;
    std::map<std::pair<std::string, std::string>, CholSummary> chol;
    std::map<std::string, KernelSummary> kernels;
    BatchSummary batch;
    std::vector<std::string> failures;
    std::set<std::pair<std::string, std::string>> failed; // (section, backend): skipped from then on

    bool has_backend(const std::string& name) const;
    std::string path(const std::string& file) const { return config.out + "/" + file; }
    // Runs `work` for (section, backend) unless that pair failed before; an
    // exception is noted (one line), counted, and ends that backend's section.
    // FLAMEX_EXPERIMENTS_FAIL=SECTION:BACKEND makes the pair's second attempt throw.
    void attempt(const std::string& section, const std::string& backend, const std::function<void()>& work);
};

struct Section {
    const char* name;
    const char* summary;
    size_t (*steps)(const Context&); // progress steps it will take
    void (*run)(Context&);
};

// The sections, in the order they run (LU first: the main job is an LU variant
// comparison before anything else).
const std::vector<Section>& sections();

// Defined in section_lu.cpp, section_chol.cpp, section_blas.cpp and section_batch.cpp.
size_t lu_accuracy_steps(const Context&);
void run_lu_accuracy(Context&);
size_t lu_repro_steps(const Context&);
void run_lu_repro(Context&);
size_t lu_time_steps(const Context&);
void run_lu_time(Context&);
size_t chol_steps(const Context&);
void run_chol(Context&);
size_t gemv_steps(const Context&);
void run_gemv(Context&);
size_t trsv_steps(const Context&);
void run_trsv(Context&);
size_t batch_steps(const Context&);
void run_batch(Context&);

// The summary table (summary.txt).
std::string render_summary(const Context& ctx, const std::vector<BackendStatus>& statuses, double seconds);

} // namespace flamex::expt
