// Internal: the two first levels of the exact sum and dot kernels and the choice
// between them, block by block (not part of the API).
//
// Every path is exact, so the choice changes the time, never the bits:
//
//  * the folds path (FirstLevel::Folds; exact/folds.inc, which replaced
//    TwoSum expansions): per SIMD lane four fixed-exponent fold
//    accumulators, 3 operations a fold, fast while a lane's terms lie within
//    about 2^74 of its largest; a remainder left after the last fold, or a term
//    outside the lane's range, is "spilled" into the superaccumulator, one
//    scalar addition per lane, which is what makes it slow on wide exponent
//    ranges and cancellation;
//  * the radix path: RadixBins, a large-radix accumulator in the style of Neal's
//    xsum: one signed 64-bit chunk per binade, each term (a double, or the two
//    doubles of an exact TwoProd) added to the chunk its exponent selects as its
//    53-bit integer significand, carries resolved every thousand terms; its
//    cost hardly depends on the data (the exponent range sets the cost of
//    resolving carries; tiny products take a second, scaled TwoProd).
//    In the avx512ifma kernel set (exact/kernels.hpp: CPUs that multiply 52-bit
//    integers) the dot's radix path enters each product instead as ONE term,
//    its exact 106-bit integer product cut into four pieces of at most 27 bits,
//    into ProductBins: one 256-bit read-modify-write a product, for every finite
//    product (tiny, subnormal and overflowing ones included), and no carries
//    before the end.
//
// PathChooser picks the path of each block of a kernel's input from what the
// blocks do: a block of the folds that spills moves the kernel to the
// radix path; on the radix path a short probe of the folds runs now and then (exponentially
// rarer while the probes keep spilling) and moves it back when a probe runs clean.
#pragma once

#include <cassert>
#include <cstdint>

#include "exact/exact.hpp"

namespace flamex::exact::detail {

// Which path the kernels take. Adaptive (the default) is PathChooser's choice;
// the others are for tests: one path throughout, or the two alternating block by
// block (every vector longer than a block switches paths mid-vector). Which
// radix path (TwoProd pairs or integer products) is the kernel set's: tests run
// every set (available_kernels).
enum class FirstLevel { Adaptive, Folds, Radix, Alternate };

// Process-wide; read once at the start of each kernel call.
void set_first_level(FirstLevel level) noexcept;
FirstLevel first_level() noexcept;

// Sets a first level for the lifetime of a scope (tests).
class ScopedFirstLevel {
public:
    explicit ScopedFirstLevel(FirstLevel level) noexcept : previous_(first_level()) { set_first_level(level); }
    ~ScopedFirstLevel() { set_first_level(previous_); }
    ScopedFirstLevel(const ScopedFirstLevel&) = delete;
    ScopedFirstLevel& operator=(const ScopedFirstLevel&) = delete;

private:
    FirstLevel previous_;
};

// Blocks run on each path by this thread's kernels so far (for tests).
struct FirstLevelCounts {
    long long folds_blocks = 0;
    long long radix_blocks = 0;
    long long product_blocks = 0; // of the radix blocks: on ProductBins
    long long range_rechecks = 0; // steps of the column panels' folds walks that failed the first range check
};
FirstLevelCounts& thread_first_level_counts() noexcept;

class PathChooser {
public:
    // Vector steps per block, and per probe of the folds path.
    static constexpr int BLOCK_STEPS = 16;
    static constexpr int PROBE_STEPS = 1;
    // Radix blocks between probes: doubles after each probe that spills, up to this.
    static constexpr int MAX_PROBE_INTERVAL = 64;

    // Adaptive starts with a probe: data the folds cannot take costs one
    // step of spills, not a block. Given `spilling` (the caller saw this data
    // spill: a multi-row kernel handing its rows over), it starts on the radix
    // path as if MAX_PROBE_INTERVAL probes had spilled already: a row's first
    // probe, a step of spills, cost as much as a few hundred of its products.
    explicit PathChooser(FirstLevel level, bool spilling = false) noexcept
        : PathChooser(level, spilling ? MAX_PROBE_INTERVAL : 0, MAX_PROBE_INTERVAL)
    {
    }
    // Adaptive, given the radix_interval() of a chooser before it on like data
    // (a multi-row kernel's previous block of rows; 0: none, or it ended on the
    // folds path): starts on the radix path at that interval, its first probe
    // after at most first_probe radix blocks (then as after a probe that
    // spilled), so that data which keeps spilling is not probed from scratch
    // by every block, while a change of the data shows at that probe.
    PathChooser(FirstLevel level, int radix_interval, int first_probe) noexcept
        : level_(level),
          radix_(level_ == FirstLevel::Radix || level_ == FirstLevel::Adaptive)
    {
        if (radix_interval > 0 && level_ == FirstLevel::Adaptive) {
            interval_ = radix_interval < MAX_PROBE_INTERVAL ? radix_interval : MAX_PROBE_INTERVAL;
            countdown_ = (interval_ < first_probe ? interval_ : first_probe) + 1;
        }
    }
    ~PathChooser()
    {
        FirstLevelCounts& counts = thread_first_level_counts();
        counts.folds_blocks += counts_.folds_blocks;
        counts.radix_blocks += counts_.radix_blocks;
    }
    PathChooser(const PathChooser&) = delete;
    PathChooser& operator=(const PathChooser&) = delete;

    struct Block {
        bool radix;
        int steps;
    };
    Block next() noexcept
    {
        const Block block = choose();
        ++(block.radix ? counts_.radix_blocks : counts_.folds_blocks);
        return block;
    }
    // The radix blocks between probes where the chooser stands on the radix
    // path (the interval its last probe set: 1 if none spilled yet), 0 on
    // the folds path.
    int radix_interval() const noexcept { return radix_ ? interval_ : 0; }
    // After a block on the folds path: `spilled` of its `steps` steps spilled.
    void folds_done(int steps, int spilled) noexcept
    {
        if (level_ != FirstLevel::Adaptive) return;
        if (radix_) { // a probe
            if (spilled == 0) {
                radix_ = false;
                interval_ = 1;
            } else {
                interval_ = interval_ * 2 > MAX_PROBE_INTERVAL ? MAX_PROBE_INTERVAL : interval_ * 2;
                countdown_ = interval_ + 1;
            }
        } else if (spilled * 8 > steps) { // a spill costs about as much as 10 clean steps
            radix_ = true;
            countdown_ = interval_ + 1;
        }
    }

private:
    Block choose() noexcept
    {
        if (level_ == FirstLevel::Alternate) radix_ = !radix_;
        if (level_ != FirstLevel::Adaptive || !radix_) return {radix_, BLOCK_STEPS};
        if (--countdown_ > 0) return {true, BLOCK_STEPS};
        return {false, PROBE_STEPS};
    }

    FirstLevelCounts counts_;
    FirstLevel level_;
    bool radix_;
    int interval_ = 1;
    int countdown_ = 0;
};

// The radix path's accumulator: chunk k holds an integer c_k and stands for
// c_k * 2^(k - BASE - 1075), so a double with biased exponent E >= 1 (E = 1 for
// subnormals) and integer significand m adds m to chunk E + BASE. Products
// below the range where TwoProd is exact are entered scaled by 2^SCALE, i.e. at
// chunks E + BASE - SCALE. Chunks outside [lo, hi) are zero.
//
// Capacity: after the kernels resolve carries (sum_dot_body.inc) every chunk
// lies in [-2^31, 2^31]; a term adds less than 2^53, so MAX_TERMS more terms
// into one chunk cannot overflow 64 bits, and the kernels resolve carries
// before that many terms.
struct RadixBins {
    static constexpr int SCALE = 1200;
    static constexpr int BASE = 1216;
    static constexpr int CARRY_STRIDE = 32; // a carry moves 32 binades up
    static constexpr int SIZE = BASE + 2048 + 8 * CARRY_STRIDE;
    static constexpr int MAX_TERMS = 1023;
    // Zero terms go to SINK + lane (they add 0 there, and would chain additions
    // into one chunk): never read.
    static constexpr int SINK = SIZE;

    alignas(64) std::int64_t chunk[SIZE + 8];
    int lo = SIZE;
    int hi = 0;

    // Chunks [from, to) may become non-zero (0 <= from, to <= SIZE - 2 CARRY_STRIDE).
    void cover(int from, int to) noexcept
    {
        assert(0 <= from && from < to && to <= SIZE - 2 * CARRY_STRIDE);
        if (from < lo) lo = from;
        if (to > hi) hi = to;
    }
    // acc += the value held, carries resolved; the bins are left empty (all zero).
    void move_to(Accumulator& acc) noexcept;
};

// This thread's bins, empty between kernel calls (zero-initialized once).
RadixBins& thread_bins() noexcept;

// The dot's radix path with integer products: bin k holds four integers
// w[k][0..3], w[k][j] standing for w[k][j] * 2^(k + SHIFT[j] - 2150). A product
// x y of finite doubles with biased exponents ex, ey (1 for subnormals) and
// integer significands mx, my is mx my 2^(ex + ey - 2150): its signed 106-bit
// integer +-mx my = sum_j p_j 2^SHIFT[j], |p_j| <= 2^27, adds p_j to w[ex + ey][j]
// (the low and the high 52-bit halves of the product, each cut in two).
// Exact zero products go to SINK + lane (they add 0 there, and would chain
// additions into one bin): never read.
//
// Capacity: a product adds at most 2^27 to a word, so MAX_PRODUCTS products
// leave every word within 2^46 in magnitude; the kernels move the bins to the
// accumulator before more (group_for's groups of bins rely on that bound, and
// grow for fewer products).
struct ProductBins {
    static constexpr int PIECES = 4;
    static constexpr int SHIFT[PIECES] = {0, 26, 52, 79};
    static constexpr int SIZE = 2 * 2047; // ex + ey <= 4092
    static constexpr int SINK = SIZE;
    static constexpr long long MAX_PRODUCTS = 1LL << 19;

    alignas(64) std::int64_t word[SIZE + 8][PIECES];
    int lo = SIZE;
    int hi = 0;

    // Bins [from, to) may have become non-zero (0 <= from < to <= SIZE).
    void cover(int from, int to) noexcept
    {
        assert(0 <= from && from < to && to <= SIZE);
        if (from < lo) lo = from;
        if (to > hi) hi = to;
    }
    // Moving the bins to the accumulator (the IFMA Simd's move_bins): G bins of
    // words within `products` 2^27 < 2^(27 + b) (b the bit length of
    // `products`) make one integer per piece below 2^(27 + b + G): four
    // accumulator additions per G binades, with G = 36 - b (16 at MAX_PRODUCTS,
    // 24 for a row of 4000).
    static int group_for(long long products) noexcept
    {
        const int b = 64 - __builtin_clzll(static_cast<unsigned long long>(products));
        return 36 - b < 32 ? 36 - b : 32;
    }
};

// This thread's product bins (128 KiB, allocated and zeroed at first use, empty
// between kernel calls).
ProductBins& thread_product_bins();

// The multi-row kernels' radix path in lanes (avx512ifma: exact/columns_body.inc):
// ProductBins' words for a block of up to ROWS rows, a row per lane, in bins of
// BINADES binades: a product of exponent sum k = BINADES K + s (s < BINADES)
// adds its pieces times 2^s to word[K][r] of its row r, whose word j stands for
// itself times 2^(BINADES K + SHIFT[j] - 2150). The rows of a bin are
// contiguous (the lanes of a vector never share a bin; the bins are moved two
// rows a vector), and coarse bins keep a block's footprint small: 32 rows of one
// binade each took 200 KiB on 2^+-50 data (L2, not L1) and 2 MiB on 2^+-500
// (past L2); here 25 KiB and 260 KiB.
//
// Capacity: a product adds less than 2^(27 + BINADES - 1) to a word, so
// MAX_PRODUCTS products keep every word below 2^53; the kernels move the bins to
// the accumulators before more (as ProductBins').
//
// The move (the IFMA Simd's move_row_bins) goes through RowDigits: row r's
// digit d of the accumulators' grid (weight 2^(32 d - Accumulator::BIAS)),
// all rows at once, a row per lane: each group of bins (group_for) makes one
// integer per piece and row, and since a bin, a piece and so their weight are
// the same for every row, each is cut into three digits at the same place in
// every lane. The digits are carried (digit 32-bit, top signed) and handed to
// each row's accumulator (Accumulator::add_digits) once, so a row costs one
// addition a digit of its range instead of four scalar additions a group.
struct RowProductBins {
    static constexpr int ROWS = 32;
    static constexpr int LOG2_BINADES = 3, BINADES = 1 << LOG2_BINADES;
    static constexpr int SIZE = (ProductBins::SIZE >> LOG2_BINADES) + 1; // bin of the largest k: SIZE - 1
    static constexpr int SINK = SIZE;
    alignas(64) std::int64_t word[SIZE + 8][ROWS][ProductBins::PIECES];

    // Bins moved to an accumulator as one integer per piece: after n < 2^b
    // products a word is below 2^(34 + b), so m bins shifted BINADES apart sum
    // below 2^(35 + b + BINADES (m - 1)) <= 2^63: m = 1 + (28 - b) / BINADES.
    static int group_for(long long products) noexcept
    {
        const int b = 64 - __builtin_clzll(static_cast<unsigned long long>(products));
        return 1 + (28 - b) / BINADES;
    }
    // The bit of the accumulators' grid (digit = bit / 32) where piece j of bin
    // K starts: word[K][r][j] stands for itself times 2^(position - BIAS).
    static constexpr int position(int K, int j) noexcept
    {
        return BINADES * K + ProductBins::SHIFT[j] - 2150 + Accumulator::BIAS;
    }
    // Piece j of a group starting at bin K, cut into three digits from
    // position(K, j) / 32, and one digit of carry above them: in range for
    // every bin (the last bin's pieces sum below 2^63, so its three digits
    // reach position(SIZE - 1, 3) + 63 + 31), and within add_digits' range.
    static_assert(((BINADES * (SIZE - 1) + ProductBins::SHIFT[3] - 2150 + Accumulator::BIAS) >> 5) + 4 <=
                      Accumulator::DIGITS - 3,
                  "the digits of the top bin's pieces and their carry lie on the accumulators' grid");
};

// This thread's row bins (allocated and zeroed at first use, empty between calls).
RowProductBins& thread_row_product_bins();

// The digits of RowProductBins' move: digit[d][r] is row r's digit d. (Apart
// from the bins: in them, the walk over 4096 x 4096 subnormal-heavy panels
// took 30-50% more time, an effect of where the bins lie, not of the digits.)
struct RowDigits {
    alignas(64) std::int64_t digit[Accumulator::DIGITS][RowProductBins::ROWS];
};

// This thread's digits (allocated and zeroed at first use, zero between moves).
RowDigits& thread_row_digits();

} // namespace flamex::exact::detail
