// Internal: the `exact` backend's gemm on top of BLIS dgemm (Ozaki slicing), for
// C := alpha op(A) op(B) + beta C with every c_ij the correctly rounded
// alpha (A B)_ij + beta c_ij (one rounding).
//
// The split. Row i of op(A) is scaled by 2^-e_i (e_i: the exponent that bounds
// the row's largest magnitude) and cut into slices of beta bits,
// a_il 2^-e_i = sum_s A_s(i, l) 2^-beta (s + 1), each A_s an integer matrix with
// |A_s| <= 2^beta (round to nearest, the rest carried to the next slice);
// columns of op(B) likewise with their own exponents f_j. With
// beta = floor((53 - ceil(log2 k)) / 2), every product A_s B_t is a matrix of
// integers below 2^53: BLIS dgemm computes it exactly, whatever its blocking,
// kernel or threads. Level d collects the pairs s + t = d, scaled by
// 2^(e_i + f_j - beta (d + 2)). Levels d < L give the exact product up to a tail
// bounded by k 2^(e_i + f_j) ((L + 3) 2^-beta L); they are summed per element as
// a double-double whose own error is bounded too.
//
// The rounding. alpha times that sum plus beta c_ij is formed as a double-double
// (two_prod for the products) and rounded; the result is kept only when the whole
// interval the exact value may lie in (the bounds above) rounds to it, i.e. lies
// strictly inside its rounding interval: then it is the correctly rounded exact
// value. Elements undecided after L levels take one more level (up to MAX_LEVELS)
// while many of a tile's elements are undecided; the rest, and every element the
// split cannot represent (a row or column that is all zero or all subnormal,
// e_i + f_j outside the range where every level is a normal double, a non-finite
// or out-of-range c_ij, an exact-zero result, whose sign needs the zero-sign
// rule), get the per-element exact dot product (exact::accumulate_dot, the
// Accumulator's scale / add_product / round: the same bits as the backend's
// per-element kernel). So the result is the exact backend's whatever takes which
// path, for any tile size and thread count.
//
// Not applicable (plan() returns false; the caller keeps its per-element
// kernel): alpha zero or not finite, beta not finite, any entry of A or B not
// finite (IEEE specials keep the per-element contract).
//
// Memory: C is processed in tiles of mb x nb; a tile holds the slices of its
// rows of op(A) and columns of op(B) (up to MAX_LEVELS each, made as the levels
// need them), one dgemm product and the double-double sums: about
// 8 (MAX_LEVELS k (mb + nb) + 4 mb nb) bytes per thread.
#pragma once

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

struct Tiling {
    index_t mb = 0, nb = 0; // tile of C; 0: chosen from k (the memory bound above)
};

inline constexpr int MAX_LEVELS = 6;

struct Plan {
    index_t m = 0, n = 0, k = 0;
    double alpha = 0, beta = 0;
    Operand A{}, B{};
    double* c = nullptr;
    index_t crs = 0, ccs = 0;
    int slice_bits = 0;    // beta of the header
    int first_levels = 0;  // L tried first
    index_t mb = 0, nb = 0;
    std::vector<int> row_exp, col_exp; // e_i, f_j; NO_EXPONENT: the row / column goes per element
};

inline constexpr int NO_EXPONENT = -100000;

// Checks applicability and computes the exponents; false: use the per-element kernel.
bool plan(index_t m, index_t n, index_t k, double alpha, Operand A, Operand B, double beta, double* c, index_t crs,
          index_t ccs, const Tiling& tiling, Plan& out);

// Columns [j0, j1) of C (threads take disjoint column ranges; any split gives the same bits).
void run(const Plan& plan, index_t j0, index_t j1);

// Elements of C computed per element since the process started (tests: that the
// fallback paths are taken).
std::uint64_t fallback_elements();

} // namespace flamex::exact_gemm
