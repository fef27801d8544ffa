// The level-3 part of flamex_bench_exact (issue 15): gemm and blocked LU of the
// `exact` backend, and the order-fixed gemm and LU, against BLIS dgemm and
// libflame's FLA_LU_piv. Its own file: FLA_LU_piv needs FLAME.h in its translation
// unit.
#pragma once

#include <utility>
#include <vector>

#include "experiments/bench_report.hpp"

namespace flamex::bench {

struct Level3Options {
    int reps = 3;
    bool quick = false;         // small sizes, one repetition: checks that everything runs
    int only_threads = 0;       // 0: 1 and 2 threads
    std::vector<long> gemm_sizes = {512, 1024, 2048};
    std::vector<long> lu_sizes = {2048, 4096};
    std::vector<long> lu_blocks = {128, 256};                                  // of the blocked exact variants
    std::vector<std::pair<long, long>> trsm_shapes = {{128, 1920}, {256, 1792}, {1024, 256}}; // triangle, right-hand sides
};

// Prints the markdown tables; each time the best of reps runs, both sides
// interleaved in one run.
void run_level3(const Level3Options& options, const Report& report);
// Its tables (gemm, trsm, LU), for --columns.
std::vector<Table> level3_tables();

} // namespace flamex::bench
