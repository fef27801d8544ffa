// Checks of what a backend must not do and tests must not assume: write outside
// the views it is given, or claim a 1-vs-2-thread comparison that never split.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "blas/blas.hpp"
#include "flame/flame.hpp"

namespace flamex::test {

// A signalling NaN with a payload no arithmetic produces: every element of a
// guarded allocation outside its view holds it, so a write there (of any value,
// NaN included) changes the bits, and a read of it turns a result into NaN.
inline constexpr std::uint64_t GUARD_BITS = 0x7ff00000deadbeefULL;

// An m x n view inside a larger column-major allocation: `margin` rows above and
// below it (so the leading dimension is m + 2 margin, larger than the view) and
// `margin` columns on each side, all GUARD_BITS. As a row vector (m = 1) the view's
// stride is the leading dimension, so its gaps are guarded too.
class Guarded {
public:
    Guarded(dim_t m, dim_t n, dim_t margin = 2);
    // The same, its view holding a copy of A.
    explicit Guarded(Obj A, dim_t margin = 2);
    Obj view() const { return view_; }
    Obj storage() const { return storage_.view(); }
    // Every guard element whose bits changed, as "(i, j) = value" in the
    // allocation's coordinates ("" when none did).
    std::string damage() const;

private:
    Matrix storage_;
    Obj view_;
    dim_t margin_;
};

// Over its scope the `exact` backend must split work among threads at least once
// (exact_backend_parallel_runs() advances); a failure naming `what` is added at
// the end of the scope otherwise. For tests that claim 1- and 2-thread identity.
class ExpectThreadsSplit {
public:
    explicit ExpectThreadsSplit(std::string what = "this test");
    ~ExpectThreadsSplit();
    ExpectThreadsSplit(const ExpectThreadsSplit&) = delete;
    ExpectThreadsSplit& operator=(const ExpectThreadsSplit&) = delete;

private:
    std::string what_;
    std::uint64_t before_;
};

// How a cached backend is made: its threads and its block size (0: the backend's own).
struct BackendConfig {
    int threads = 1;
    dim_t block = 0;
};
std::string describe(BackendConfig c); // "threads T, block B"

// The backend `name` made with `c`, once per process and kept. The exact backend
// splits every operation among its threads, however small (FLAMEX_EXACT_PARALLEL_MIN
// = 1, set before the first is made), so that the 2-thread configurations run the
// threaded paths on small test problems and one-element hand cases too (tests that
// claim 1- and 2-thread identity assert it with ExpectThreadsSplit).
const Blas& cached_backend(const std::string& name, BackendConfig c = {});

// The `exact` backends a split path (the gemm or trsm on BLIS's dgemm) is tested
// with: `split(1)` and `split(2)` take it wherever it applies, `elementwise()` never
// (the per-element kernel). `path_variable` is the backend's switch
// (FLAMEX_EXACT_GEMM_SPLIT, FLAMEX_EXACT_TRSM_SPLIT), read when a backend is made;
// threads split even small operations.
class SplitPathBackends {
public:
    explicit SplitPathBackends(const char* path_variable);
    const Blas& split(int threads) const { return threads == 1 ? *split1_ : *split2_; }
    const Blas& elementwise() const { return *elementwise_; }

private:
    std::unique_ptr<Blas> split1_, split2_, elementwise_;
};

} // namespace flamex::test
