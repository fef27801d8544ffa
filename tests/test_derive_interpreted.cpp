// `flamex derive OP --variant N --run FILES` (derive::run_interpreted): a derived
// variant interpreted on a backend, with no file compiled, makes the calls the
// generated file makes, so it gives the compiled variant's bits: every variant of
// every derived operation the library registers, unblocked and blocked, on `blis`
// and `exact`, against the same variant through the generic path (variants/operations.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "derive/derive.hpp"
#include "io/matrix_market.hpp"
#include "support/backend_checks.hpp"
#include "support/test_support.hpp"
#include "variants/operations.hpp"

namespace {

using flamex::dim_t;
using flamex::Matrix;
using flamex::Obj;
namespace ts = flamex::test;

// Symmetric, diagonally dominant, positive diagonal: every operation takes it.
Matrix definite(dim_t n, std::uint64_t seed)
{
    Matrix A = ts::diagonally_dominant(n, seed);
    for (dim_t j = 0; j < n; ++j) {
        A(j, j) = std::fabs(A(j, j));
        for (dim_t i = 0; i < j; ++i) A(i, j) = A(j, i);
    }
    return A;
}

// The operands of `op` (registered under the PME's name): B a 13 x 5 right-hand
// side, the others a definite 13 x 13 matrix; lu_nopiv also 13 x 9 and 9 x 13.
std::vector<std::vector<Matrix>> problems(const flamex::Operation& op)
{
    std::vector<std::vector<Matrix>> out(1);
    for (const flamex::OperandSpec& o : op.operands) out[0].push_back(o.name == "B" ? ts::random_matrix(13, 5, 3) : definite(13, 4));
    if (op.name == "lu_nopiv") {
        for (const auto& [m, n] : {std::pair<dim_t, dim_t>{13, 9}, std::pair<dim_t, dim_t>{9, 13}}) {
            Matrix A(m, n);
            const Matrix D = definite(13, 5);
            for (dim_t j = 0; j < n; ++j)
                for (dim_t i = 0; i < m; ++i) A(i, j) = D(i, j);
            out.push_back({A});
        }
    }
    return out;
}

class Interpreted : public ::testing::TestWithParam<std::string> {};

TEST_P(Interpreted, GivesTheCompiledVariantsBits)
{
    const flamex::Operation& op = flamex::find_operation(GetParam());
    const flamex::derive::Pme pme = flamex::derive::load_operation(op.name);
    const flamex::derive::Derivation d = flamex::derive::derive_invariants(pme);
    int compared = 0;
    for (const char* backend : {"blis", "exact"}) {
        const flamex::Blas& blas = ts::cached_backend(backend, {1, 0});
        for (const flamex::derive::Invariant& inv : d.invariants) {
            if (inv.number == 0) continue;
            for (const bool blocked : {false, true}) {
                if (blocked && !pme.has_blocked()) continue;
                const std::string name = op.name + (blocked ? "_blk_var" : "_unb_var") + std::to_string(inv.number);
                flamex::OperationControl control;
                control.block = 4;
                // The interpreter runs the diagonal blocks by the same variant, unblocked.
                if (blocked && op.name != "syrk_ln") control.inner = op.name + "_unb_var" + std::to_string(inv.number);
                for (const std::vector<Matrix>& problem : problems(op)) {
                    SCOPED_TRACE(name + " on " + backend + ", " + std::to_string(problem[0].length()) + "x" +
                                 std::to_string(problem[0].width()));
                    std::vector<Matrix> compiled = problem, interpreted = problem;
                    std::vector<Obj> cv(compiled.begin(), compiled.end()), iv(interpreted.begin(), interpreted.end());
                    flamex::Pivots none(0);
                    ASSERT_EQ(flamex::run_operation(blas, op, name, cv, none, control), 0);
                    ASSERT_EQ(flamex::derive::run_interpreted(d, inv.number, blocked, blas, iv, 4), 0);
                    for (size_t k = 0; k < compiled.size(); ++k) EXPECT_TRUE(ts::bitwise_equal(compiled[k], interpreted[k])) << k;
                    ++compared;
                }
            }
        }
    }
    EXPECT_GE(compared, 2 * 2 * 3) << op.name;
}

// The derived operations the library compiles and registers under the PME's name
// (ldlt's registered variants are the hand-written loops; lu_piv has pivots).
INSTANTIATE_TEST_SUITE_P(Every, Interpreted,
                         ::testing::Values("chol", "chol_u", "lu_nopiv", "syrk_ln", "trinv", "trinv_un", "trmm_lln", "trmm_lun",
                                           "trsm_lln", "trsm_lun", "ttmm_l"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(Interpreted, StopsAtAZeroPivotAndRefusesBadOperands)
{
    const flamex::Blas& blas = ts::cached_backend("exact", {1, 0});
    const flamex::derive::Pme chol = flamex::derive::load_operation("chol");
    const flamex::derive::Derivation d = flamex::derive::derive_invariants(chol);
    Matrix A = definite(6, 9);
    A(3, 3) = -1.0;
    std::vector<Obj> ops{A};
    EXPECT_EQ(flamex::derive::run_interpreted(d, 3, false, blas, ops, 4), 4);
    Matrix B = definite(6, 9), C(6, 4);
    std::vector<Obj> two{B, C};
    EXPECT_THROW(flamex::derive::run_interpreted(d, 3, false, blas, two, 4), flamex::Error);
    EXPECT_THROW(flamex::derive::run_interpreted(d, 7, false, blas, ops, 4), flamex::Error);
    const flamex::derive::Pme trsm = flamex::derive::load_operation("trsm_lln");
    const flamex::derive::Derivation t = flamex::derive::derive_invariants(trsm);
    Matrix L = definite(6, 1), X(5, 2); // B's rows must be L's
    std::vector<Obj> bad{L, X};
    EXPECT_THROW(flamex::derive::run_interpreted(t, 1, false, blas, bad, 4), flamex::Error);
}

} // namespace
