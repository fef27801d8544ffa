// Internal: the `exact` backend's trsm for large systems on the exact gemm engine
// (blas/exact_gemm.hpp), with the contract of the per-element trsm unchanged:
// every x_k is the correctly rounded quotient (with a unit diagonal, the correctly
// rounded value) of the exact residual alpha b_k - sum_j e_kj x_j, the x_j being
// the already rounded results. So the bits are those of the per-element kernel.
//
// The unknowns are taken in blocks (System::block, 256 by default), the right-hand sides
// in tiles of 256. Inside a block each unknown's terms are added one by one, vectorized
// across the right-hand sides: on a grid fixed per column (exact_trsm.cpp,
// subtract_scaled: exact high parts, rounded rests, 5 operations a term), or, where the
// grid's bound would leave the rows undecided (spread data), in double-double with
// per-term magnitudes; the sums over the blocks before go through the split.
// A block whose split leaves most of its elements to the per-element path gives
// its tile of right-hand sides back, as it came, to the backend's per-element
// kernel (exact_trsm.cpp): the data chooses, and the trsm never costs much more
// than the per-element one. An element the split's bound leaves undecided goes
// through the screen (its whole residual in double-double with its own bound: Dot2
// as exact_gemm::screen_dot; on the right side, where X's columns are strided, a row's
// undecided elements together, in the vector lanes: Screen below) before the
// per-element arithmetic.
//
// Memory per thread (kept between calls): the split's operands, five matrices of
// k x (block + 256) doubles for k unknowns solved before a block (about 60 MiB at k = 4096;
// with X's rows sliced once, Slicing below, five n x 256 of them kept for the tile
// instead: 40 MiB at n = 4096), five block x 256 doubles of the block's solved unknowns
// and opened sums (2.5 MiB), and (when the caller gives a per-element kernel to fall
// back to) a copy of the tile's n x 256 right-hand sides (8 MiB at n = 4096).
#pragma once

#include <cstdint>
#include <functional>

#include "blas/exact_gemm.hpp"
#include "exact/exact.hpp"

namespace flamex::exact_trsm {

using index_t = exact::index_t;

// Whether trsm takes this path: where it pays (split_pays), or, by
// FLAMEX_EXACT_TRSM_SPLIT (else FLAMEX_EXACT_GEMM_SPLIT) = auto | always | never,
// always (tests) or never (tests, and the benchmark's "before"). A bad value is a
// flamex::Error.
using Split = exact_gemm::Split;
Split split_from_environment();

// How an element the split leaves undecided is screened (exact_trsm.cpp): Across, the
// unknown's undecided right-hand sides together (Dot2 with the right-hand sides in the
// vector lanes, X read row by row in place), or Element, each on its own
// (exact_gemm::screen_dot on its X column, copied when strided). Auto: Across where X's
// columns are strided and its rows contiguous (the right side), else Element. By
// FLAMEX_EXACT_TRSM_SCREEN = auto | across | element, read when a System is made (tests,
// benchmarks; anything else: flamex::Error). The bits do not depend on it.
enum class Screen { Auto, Across, Element };
Screen screen_from_environment();

// How the split's right operand, the solved rows X_{<I}, is sliced (its Four slices):
// Once, as each block's rows are solved (exact_gemm::GrowingColumns: a column again only
// where a later row exceeds its exponent), or PerBlock, all of X_{<I} again for every
// block (the third round's way; Six, Modular and Hybrid always slice per block). By
// FLAMEX_EXACT_TRSM_SLICING = once | block (tests, benchmarks; else flamex::Error), read
// when a System is made. The bits do not depend on it.
enum class Slicing { Once, PerBlock };
Slicing slicing_from_environment();

// Unknowns per block (exact_trsm.cpp, DEFAULT_BLOCK: 256, measured), by
// FLAMEX_EXACT_TRSM_BLOCK = a whole number from 1 to 8192 (tests: a small block takes
// the split at small sizes; anything else: flamex::Error), read when a System is made.
// The bits do not depend on it.
index_t block_from_environment();

// n unknowns, nrhs right-hand sides (measured, one thread: see exact_trsm.cpp).
bool split_pays(index_t n, index_t nrhs);
bool use_split(Split split, index_t n, index_t nrhs);

// E X = alpha B, solved in place for the right-hand sides [r0, r1): E n x n
// triangular, e_kj at e[k * ers + j * ecs]; lower: x_0 first (j < k read), else
// x_{n-1} first (j > k read); unit: the diagonal is not read (taken as 1).
// Unknown k of right-hand side r at x[k * inc + r * step]. Strides positive.
struct System {
    const double* e;
    index_t ers, ecs, n;
    bool lower, unit;
    double alpha;
    double* x;
    index_t inc, step;
    // The off-diagonal sums' engine (exact_gemm.hpp; Auto: chosen per block from a
    // sample of its data, and per element where the split would lose nearly all).
    exact_gemm::Engine engine = exact_gemm::Engine::Auto;
    Screen screen = screen_from_environment();
    Slicing slicing = slicing_from_environment();
    index_t block = block_from_environment();
};

// The backend's per-element trsm of the right-hand sides [r0, r1) (B as it came):
// where the split gives a tile up. Called on the thread that called solve.
using PerElement = std::function<void(index_t r0, index_t r1)>;

// On the calling thread; threads take disjoint ranges of right-hand sides (any
// split gives the same bits). Without per_element every tile stays on the split.
void solve(const System& system, index_t r0, index_t r1, const PerElement& per_element = {});

// Elements computed on their own since the process started (tests: that both
// paths are taken).
std::uint64_t per_element_count();
// Tiles of right-hand sides given up to the per-element kernel because a block
// lost most of its elements (exact_trsm.cpp, LOSE_NUM / LOSE_DEN), since the
// process started; their elements count in per_element_count.
std::uint64_t tiles_given_up();
// Rows of a tile whose in-block terms went on the fixed grid (exact_trsm.cpp,
// subtract_scaled), since the process started.
std::uint64_t rows_scaled();
// Elements that went through the screen across the right-hand sides (Screen::Across),
// decided there or not, since the process started.
std::uint64_t screened_across();

} // namespace flamex::exact_trsm
