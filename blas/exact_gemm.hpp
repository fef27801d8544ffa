// Internal: the `exact` backend's gemm on top of BLIS dgemm (Ozaki slicing), for
// C := alpha op(A) op(B) + beta C with every c_ij the correctly rounded
// alpha (A B)_ij + beta c_ij (one rounding).
//
// The split. Row i of op(A) is scaled by 2^-e_i (e_i: the exponent that bounds
// the row's largest magnitude), a = a_il 2^-e_i, and cut into two slices of beta
// bits and a rest, a = A_0 2^-beta + (A_1 + R_A) 2^-2 beta, A_0, A_1 integers
// (|A_0| <= 2^beta, |A_1| <= 2^(beta-1): round to nearest, the rest carried),
// |R_A| <= 1/2; columns of op(B) likewise (exponents f_j). With
// beta = floor((53 - ceil(log2 k)) / 2), the four products A_s B_t are matrices of
// integers below 2^53: BLIS dgemm computes them exactly, whatever its blocking,
// kernel or threads. Then, exactly,
//   a b = A_0 B_0 2^-2b + (A_0 B_1 + A_1 B_0) 2^-3b + A_1 B_1 2^-4b
//         + (A_0 2^b + A_1) R_B 2^-4b + R_A b 2^-2b,
// and the last two products (two more dgemms, rounded) are small: their rounding
// error is at most gamma_k k 2^-2 beta, about k^2 2^-(53 + 2 beta) (2^-73 at
// k = 2048) of 2^(e_i + f_j). Six dgemms in all; the six results are summed per
// element as a double-double, whose own error is bounded too. (The first version
// took exact slice products only, levels s + t < 4: ten dgemms for the same 2^-70.)
//
// The rounding. alpha times that sum plus beta c_ij is formed as a double-double
// (two_prod for the products) and rounded; the result is kept only when the whole
// interval the exact value may lie in (the bounds above) rounds to it, i.e. lies
// strictly inside its rounding interval: then it is the correctly rounded exact
// value. The rest, and every element the split cannot represent (a row or column
// that is all zero, or whose largest magnitude is below 2^-1000 or above 2^1000,
// e_i + f_j outside the range where every term is a normal double, a non-finite
// or out-of-range c_ij, an exact-zero result, whose sign needs the zero-sign
// rule), go through the screen (each one's dot product in double-double, its own
// interval, the same decision; Engine below) and what that leaves gets the
// per-element exact dot product (exact::accumulate_dot, the
// Accumulator's scale / add_product / round: the same bits as the backend's
// per-element kernel). So the result is the exact backend's whatever takes which
// path, for any tile size and thread count.
//
// Not applicable (plan() returns false; the caller keeps its per-element
// kernel): alpha zero or not finite, beta not finite, any entry of A or B not
// finite (IEEE specials keep the per-element contract).
//
// Memory: C is processed in tiles of mb x nb; a tile holds up to five k-long
// matrices (the scaled operand, two slices, their sum, the rest) for its rows of
// op(A) and for its columns of op(B), six dgemm products of a chunk and the
// double-double sums: about 8 (5 k (mb + nb) + 9 mb nb) bytes per thread (mb = nb
// chosen for 48 MiB of the first term); where elements go per element, op(A)'s rows
// transposed (m k doubles, up to 64 MiB; beyond, one tile's). The buffers are the
// thread's, kept between calls.
//
// Since issue 30 this is the engine Six; Engine below names the others (Four, Screen,
// and Modular, which replaces the dgemms by int8 products and the CRT), and the
// bound is taken per element from its row's and column's 1-norms (exact_gemm.cpp,
// struct Bound).
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <vector>

#include "exact/exact.hpp"

namespace flamex::exact_gemm {

using index_t = exact::index_t;

// op(X): element (i, j) at p[i * rs + j * cs].
struct Operand {
    const double* p;
    index_t rs, cs;
    double operator()(index_t i, index_t j) const { return p[i * rs + j * cs]; }
};

// The engines: dgemm (Modular: int8) products per element of C.
//   Six: the header's (two slices of beta bits per operand, four exact products, two
//        rounded ones; the rest's error about k^2 2^-(53 + 2 beta) of 2^(e_i + f_j)).
//   Four: op(A) in one slice of L bits, A_full = round(a 2^L); op(B) in two, of W - L
//        and 2L - W bits (W = 53 - ceil(log2 k), L = floor((2W + 1) / 3)), so that
//        A_full B_0 and A_full B_1 are exact (terms below 2^W, k of them below 2^53);
//        A_full R_B and R_A b rounded, each term below 2^-(L+1) of 2^(e_i + f_j): the
//        error about k^2 2^-(53 + L) (2^-59 at k = 2048, against 2^-73 for Six).
//   Modular (issue 30, third round): no dgemm. Rows of op(A) scaled by 2^(P - e_i),
//        columns of op(B) by 2^(P - f_j), rounded to integers A', B' (|A'|, |B'| <=
//        2^P), rests R_A, R_B (|R| <= 1/2); A'B' exactly by the Chinese remainder
//        theorem from N int8 products of the residues modulo N pairwise coprime moduli
//        <= 256 (256, 255, 253, 251, 247, 241, ...), M = prod m_t >= 4 k 2^(2P): the
//        residues u8 / s8 in an int8 gemm on AVX-512 VNNI (blas/exact_int8_gemm.hpp,
//        int32 sums, k in chunks of at most 2^16 terms), each product reduced mod m_t
//        and all N summed as sum r_t W_t in five 32-bit limbs, q = round(S / M) taken
//        off, the integer as a double-double (blas/exact_modular.hpp). The dropped
//        R_A b + A' R_B are not computed: bounded by 2^-P (sum_l |R_A,il| + sum_l
//        |R_B,lj|) of 2^(e_i + f_j) (exact_gemm.cpp, ModularBound). A scaled entry
//        within 2^(P - 53) of its row's largest is an integer: R = 0 there, so uniform
//        data have a bound near 2^-61 (Four: 2^-64), while data spread over 2^+-20
//        have rests of up to 1/2 in nearly every entry and lose nearly every element.
//        N = 18 and the largest P it allows, at most 62 (k = 2048: P = 62), more
//        moduli where P would fall below 62 (modular_geometry). Residues of op(A)'s
//        rows are made once per call and thread (N m k bytes), of op(B)'s columns once
//        per column tile; tiles of 384 x 384 (N int32 products of a tile: 11 MiB).
//        Only where modular_available() (AVX-512 VNNI, and FLAMEX_EXACT_ISA not below
//        AVX-512) and op(A)'s residues fit in 512 MiB; elsewhere, forced, it is Four. Time: int8 products about 200 int8 MACs/ns
//        against BLIS dgemm's 26 fp64 MACs/ns, 18 of them 2.1 dgemms at n = 2048 (Four's
//        four dgemms 3.75-4.4); in all 2.8-2.9x dgemm on uniform data (Four 5.1x).
//   Hybrid (issue 30, third round, helper hybrid): Four's remainders with Modular's
//        exact part. Rows of op(A) and columns of op(B) each in one slice of P bits,
//        A' = round(a 2^P), B' = round(b 2^P) (rests R_A, R_B, |R| <= 1/2); A'B' exactly
//        by Modular's CRT (its residues, int8 products and reconstruction) with the
//        fewest moduli from 9 that give P >= 28 (k = 2048: 9 moduli, P = 29: |A'B'| <=
//        k 2^58 against M / 4 = 2^69.6), A' R_B and R_A b by BLIS dgemm, rounded, in
//        chunks of 256 terms, covered by Bound with R = P (as Four with R = L), plus the
//        reconstruction's k 2^-97 (hybrid_geometry). The bound follows the rests' real
//        size, so spread data (2^+-20, 2^+-40) keep nearly every element, as with Four,
//        at 9 int8 products and 2 dgemms rather than 4 dgemms. Where modular_available()
//        (else, forced, it is Four); op(A)'s residues of a row tile are made when a tile
//        first takes the engine, op(B)'s once per column tile; tiles of 768 (or the
//        whole dimension up to 1024) for k <= 2048. n = 2048, one thread: 2^+-20 and
//        2^+-40 3.8-3.9x dgemm (Four 5.0-5.3x).
//   Auto (k > 128): Modular where it applies, k >= 512, m and n >= 64 and a sample of
//        8 x 8 elements predicts at most 1/16 lost to its bound (exact_gemm.cpp,
//        modular_pays; uniform data); else Four; a thread whose tile sent more than 1/64
//        of its elements per element takes Six for its following tiles (spread data,
//        whose results lie far below 2^(e_i + f_j)); a Six tile that sent more than 7/8
//        per element sends the following tiles per element from the start. Where Modular
//        is not taken but applies (modular_available(), k >= 512, m, n >= 64), a tile
//        the sample gives to Four is Hybrid instead (Plan::hybrid); where moreover k >
//        1024 and the call's sample (8 x 8) says Four would lose more than 1/32 (spread
//        data), Hybrid takes its wider geometry (hybrid_spread_geometry, P >= 40) and
//        also the tiles that would be Six, unless its bound predicts more than 1/8 of the
//        tile's sample lost beyond Six's (Plan::hybrid_spread; n = 2048, 2^+-200: 4.8x
//        dgemm, 1.3% screened, against Six's 7.0-7.2x).
//   Screen: no products; every element's dot product in double-double (Dot2, one
//        chain of k terms, the tile's rows in the vector lanes), its interval from the
//        sum of the products' magnitudes: about 2k^2 2^-106 of it, whatever 2^(e_i + f_j).
//   Auto: Screen for k <= 128; else as above.
// Every engine sends the elements it leaves undecided through the screen (exact_gemm.cpp,
// screen: the element's dot product in double-double, Dot2, with its own error bound,
// which follows the products present rather than 2^(e_i + f_j)) before the per-element
// kernel. Whatever the engine, every element is kept only when its interval rounds to one
// double: the bits do not depend on it. FLAMEX_EXACT_GEMM_ENGINE = auto | four | six |
// screen | modular | hybrid (tests, benchmarks; anything else: flamex::Error).
enum class Engine { Auto, Four, Six, Screen, Modular, Hybrid };
Engine engine_from_environment();

// The Modular engine's choice for depth k: P, the moduli N, and the most terms one
// int8 product sums before it is reduced (int32 accumulators: 2^16).
struct ModularGeometry {
    int P = 0, moduli = 0;
    index_t depth = 0;
};
// 0 moduli: the engine does not apply (k too large for 20 moduli at P >= 56).
ModularGeometry modular_geometry(index_t k);

// The Hybrid engine's choice for depth k: the fewest moduli from 9 on whose largest P
// (M >= 4 k 2^(2P), P <= 62) is at least 28, and that P (the settings below override
// either as for Modular).
ModularGeometry hybrid_geometry(index_t k);

// Hybrid's geometry for Auto's calls of spread data (Plan::hybrid_spread): the fewest
// moduli from 9 whose largest P is at least 40 (k = 2048: 12 moduli, P = 41), a bound
// 2^-(P - 29) of the default's, so that data spread over 2^+-200 keep nearly every element.
ModularGeometry hybrid_spread_geometry(index_t k);

// Whether the Modular engine can run in this process: the CPU has AVX-512 VNNI (BW)
// and the exact kernels' set is an AVX-512 one (FLAMEX_EXACT_ISA=avx2 or generic,
// which stand for a CPU without AVX-512, turn it off too).
bool modular_available();

// Tests: override P, the number of moduli and the depth of one int8 product (a
// multiple of 4) for calls planned after this (0: the default of each). A number of
// moduli too small for P and k breaks the CRT: the tests that set one check that
// it is caught.
struct ModularSettings {
    int P = 0, moduli = 0;
    index_t depth = 0;
};
void set_modular_settings(const ModularSettings& s);

// Slice widths for depth k: W = 53 - ceil(log2 k) bits of exact product per term.
struct Geometry {
    index_t chunk = 0; // the products go to dgemm in chunks of this many terms along k
    int width = 0;     // W (of the chunk)
    int six_bits = 0;  // beta = floor(W / 2)
    int four_bits = 0; // L = floor((2W + 1) / 3)
    int hybrid_bits = 0; // Hybrid's P (plan() sets it where the engine may run)
};

// The geometry for depth k (tests).
Geometry geometry(index_t k);

struct Tiling {
    index_t mb = 0, nb = 0; // tile of C; 0: chosen from k (the memory bound above)
    Engine engine = Engine::Auto;
};

// Where the engine's time went (thread CPU time, summed over the threads), since
// the process started or reset_profile(): benchmarks.
struct Profile {
    double scan_s = 0, slice_s = 0, product_s = 0, fold_s = 0, decide_s = 0, element_s = 0;
    std::uint64_t products = 0, kept = 0, per_element = 0, tiles_four = 0, tiles_six = 0, tiles_elementwise = 0;
    std::uint64_t screened = 0; // of kept: decided by the double-double screen (exact_gemm.cpp, screen)
    std::uint64_t tiles_screen = 0;
    double residue_s = 0, reconstruct_s = 0; // Modular: residues of A and B; the CRT (product_s: its int8 gemms)
    std::uint64_t tiles_modular = 0;
    std::uint64_t tiles_hybrid = 0;
};
Profile profile();
void reset_profile();

struct Plan {
    index_t m = 0, n = 0, k = 0;
    double alpha = 0, beta = 0;
    Operand A{}, B{};
    double* c = nullptr;
    index_t crs = 0, ccs = 0;
    Geometry geometry;
    Engine engine = Engine::Auto;
    ModularGeometry modular; // Engine::Modular; Hybrid's where hybrid
    bool hybrid = false;     // Hybrid runs: forced, or Auto's tiles that the sample gives to Four
    bool hybrid_spread = false; // Auto, spread data: hybrid_spread_geometry, and Hybrid also for tiles that would be Six
    index_t mb = 0, nb = 0;
    std::vector<int> row_exp, col_exp; // e_i, f_j; NO_EXPONENT: the row / column goes per element
};

inline constexpr int NO_EXPONENT = -100000;

// (hi, lo) += v, a double-double sum (two_sum; the error of the low part's
// rounding is bounded by the caller).
inline void add_dd(double& hi, double& lo, double v)
{
    const double s = hi + v;
    const double z = s - hi;
    lo += (hi - (s - z)) + (v - z);
    hi = s;
}

// Half the spacing of doubles next to r on the side of zero (the smaller side):
// any value within less than that of r rounds to r. r normal, finite, non-zero.
inline double half_spacing(double r)
{
    std::uint64_t bits;
    std::memcpy(&bits, &r, sizeof bits);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    const bool power_of_two = (bits & ((std::uint64_t{1} << 52) - 1)) == 0;
    const std::uint64_t half = static_cast<std::uint64_t>(biased - 53 - (power_of_two ? 1 : 0)) << 52; // 2^(e - 53 [- 1])
    double d;
    std::memcpy(&d, &half, sizeof d);
    return d;
}

// Whether an operation (gemm, trsm) goes through the split (BLIS dgemm on exact
// slices) rather than element by element: where that pays (the operation's
// split_pays), or, by its environment variable (tests, benchmarks), always (where it
// applies) or never.
enum class Split { Auto, Always, Never };

// The first of `variables` that is set and not empty: auto, always or never (any
// other value is a flamex::Error naming the variable); Auto when none is set.
Split split_from_environment(std::initializer_list<const char*> variables);

// The index in `names` of the value of the first of `variables` that is set and not
// empty; -1 where none is set. Any other value is a flamex::Error naming the variable
// and the names ("exact backend: V must be a, b or c, got 'x'"). The engines' and the
// trsm's settings are read through it.
int choice_from_environment(std::initializer_list<const char*> variables, std::initializer_list<const char*> names);

// The whole number in `variable`, from lowest to highest; `unset` where it is not set or
// empty. Anything else is a flamex::Error naming the variable and the range ("exact
// backend: V must be a whole number from 1 to 8192, got 'x'"). The backend's and the
// trsm's sizes are read through it.
index_t whole_number_from_environment(const char* variable, index_t lowest, index_t highest, index_t unset);

// Whether the split is faster than the per-element kernel for these dimensions
// (measured, one thread: from 128 x 128 x 128 and 1024 x 1024 x 16 on it is 1.3-2.5x
// faster; at 64 x 64 x 1024 2x slower: the slicing of A and B, O((m + n) k), is not
// paid back by few elements).
bool split_pays(index_t m, index_t n, index_t k);

// Whether the Screen engine is faster than the per-element kernel where the split
// does not pay (k <= 128, at least 8 rows and 256 elements: the kernel's exact
// accumulators cost about 1 ns a term, the screen's Dot2 about 0.4).
bool screen_pays(index_t m, index_t n, index_t k);

// Checks applicability and computes the exponents; false: use the per-element kernel.
bool plan(index_t m, index_t n, index_t k, double alpha, Operand A, Operand B, double beta, double* c, index_t crs,
          index_t ccs, const Tiling& tiling, Plan& out);

// Columns [j0, j1) of C (threads take disjoint column ranges; any split gives the same bits).
void run(const Plan& plan, index_t j0, index_t j1);

// The products alone, for the exact trsm (blas/exact_trsm.hpp): S = op(A) op(B),
// m x n x k, on the calling thread, in one tile (the caller keeps m and n small).
// Element (i, j) (column-major, q = i + j m): per_element[q] == 0: the exact S_ij
// lies within err[q] of hi[q] + lo[q] (a row or column of zeros: exactly 0);
// per_element[q] == 1: the split cannot represent it (a row or column with an
// entry below 2^-1000 as its largest, or at least 2^1000; e_i + f_j out of range),
// the caller computes it exactly. The bound is the engine's (exact_gemm.cpp, Bound).
struct ProductSums {
    index_t m = 0, n = 0;
    std::vector<double> hi, lo, err;
    std::vector<unsigned char> per_element;
};

// False when some entry of A or B is not finite (then nothing is computed).
// engine: as for gemm (Auto: chosen from a sample of the data; when it predicts
// that the split would lose nearly every element, every representable element is
// marked per_element instead, and nothing is computed; Auto never takes Modular
// here, Modular and Hybrid forced are taken where they apply, the err their bounds').
bool product_sums(index_t m, index_t n, index_t k, Operand A, Operand B, ProductSums& out,
                  Engine engine = Engine::Six);

// op(B) for product_sums, sliced once as it grows by rows (issue 30, fourth round: the
// exact trsm appends each block's solved rows X_I and asks for E_{J,<J} X_{<J}; slicing
// X_{<J} again for every block was about a tenth of its time at 1024 x 256). Four's
// slices of each entry are made when its row is appended, with the geometry of the depth
// last asked (product_sums cuts every row again where W and L change: at most twice,
// while k < 256) and the column's exponent
// f_j of its largest magnitude so far: a row whose entry reaches 2^f_j makes the column's
// new f_j and re-slices the column's rows so far (solutions that grow). The columns'
// 1-norms are summed as rows arrive, in row order (as Slicer::start sums them). Memory:
// four doubles per entry (max_k x n), the caller's (the trsm keeps one per thread).
class GrowingColumns {
public:
    GrowingColumns();
    ~GrowingColumns();
    GrowingColumns(const GrowingColumns&) = delete;
    GrowingColumns& operator=(const GrowingColumns&) = delete;
    // Empty, for n columns and at most max_k rows.
    void reset(index_t n, index_t max_k);
    // Appends `rows` rows: row t's column j at x[t * rs + j * cs].
    void append(index_t rows, const double* x, index_t rs, index_t cs);
    index_t rows() const;
    // Columns re-sliced since the process started (tests, benchmarks).
    static std::uint64_t resliced();
    struct Impl;
    Impl* impl() { return impl_.get(); }

private:
    std::unique_ptr<Impl> impl_;
};

// product_sums with op(B)'s k = B.rows() rows already sliced: B_op must hold the same
// values (it is read where the operand's Four slices are not what the engine takes:
// Six, Screen, Modular, Hybrid forced; once Auto has chosen Six for a block, B is no
// longer sliced, and this block and the following ones take the overload above, Auto
// choosing per block again). Same results, bound and contract.
bool product_sums(index_t m, index_t n, index_t k, Operand A, Operand B_op, GrowingColumns& B, ProductSums& out,
                  Engine engine);

// The screen (exact_gemm.cpp, screen_sum): sum_l a[l inca] b[l incb], l < k, in
// double-double (Dot2, 16 lanes where both strides are 1) with a rigorous bound on its
// error: the exact sum lies within err of hi + lo (|lo| not normalized against hi).
// The bound follows the products present, not the operands' largest entries. False
// where anything overflowed or was not finite (then nothing is known). Strides may be
// negative. The exact trsm's undecided elements go through it before the kernel.
bool screen_dot(index_t k, const double* a, index_t inca, const double* b, index_t incb, double& hi, double& lo,
                double& err);

// Elements of C computed per element since the process started (tests: that the
// fallback paths are taken).
std::uint64_t fallback_elements();

} // namespace flamex::exact_gemm
