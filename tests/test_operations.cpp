// The generic path (variants/operations.hpp): every variant of every operation's own
// registry is reachable by name, gives the bits its own driver gives on the exact
// backend, reports the driver's failure column, and refuses bad names and operand
// counts; `flamex run` writes the file the operation's own command writes.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "blas/blas.hpp"
#include "io/matrix_market.hpp"
#include "support/test_support.hpp"
#include "variants/chol.hpp"
#include "variants/ldlt_blas.hpp"
#include "variants/lu.hpp"
#include "variants/operations.hpp"
#include "variants/syrk.hpp"
#include "variants/trinv.hpp"
#include "variants/trmm.hpp"
#include "variants/trsm.hpp"
#include "variants/ttmm.hpp"

using flamex::dim_t;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;

namespace {

constexpr dim_t kN = 19; // blocks of 4 leave a remainder

// Symmetric and diagonally dominant with a positive diagonal: positive definite, so
// every operation takes it (Cholesky and LDL^T read its lower triangle).
Matrix definite(dim_t n, std::uint64_t seed)
{
    Matrix A = flamex::test::diagonally_dominant(n, seed);
    for (dim_t j = 0; j < n; ++j) {
        A(j, j) = std::fabs(A(j, j));
        for (dim_t i = 0; i < j; ++i) A(i, j) = A(j, i);
    }
    return A;
}

// Operands every operation can take: a definite matrix and a 19 x 5 right-hand side.
std::vector<Matrix> operands_for(const flamex::Operation& op)
{
    const Matrix A = definite(kN, 7);
    std::vector<Matrix> out;
    for (const flamex::OperandSpec& o : op.operands)
        out.push_back(o.name == "B" ? flamex::test::random_matrix(kN, 5, 11) : A);
    return out;
}

std::vector<Obj> views_of(std::vector<Matrix>& ms)
{
    std::vector<Obj> v;
    for (Matrix& m : ms) v.push_back(m);
    return v;
}

// The same variant through the operation's own driver and registry.
dim_t run_directly(const flamex::Blas& blas, const std::string& op, const std::string& name, std::vector<Matrix>& m, Pivots& p)
{
    if (op == "lu_piv" || op == "lu_nopiv") {
        flamex::LuControl c;
        c.block = 4;
        return flamex::lu(blas, flamex::find_lu_variant(name), m[0], p, c).zero_pivot;
    }
    if (op == "chol") {
        flamex::CholControl c;
        c.block = 4;
        return flamex::chol(blas, flamex::find_chol_variant(name), m[0], c).not_positive_definite;
    }
    if (op == "ldlt") return flamex::ldlt(blas, flamex::find_ldlt_driver_variant(name), m[0]).breakdown;
    if (op == "trinv") {
        flamex::TrinvControl c;
        c.block = 4;
        return flamex::trinv(blas, flamex::find_trinv_variant(name), m[0], c).zero_diagonal;
    }
    if (op == "trinv_un") {
        flamex::TrinvControl c;
        c.block = 4;
        return flamex::trinv_un(blas, flamex::find_trinv_un_variant(name), m[0], c).zero_diagonal;
    }
    if (op == "trsm_lln") {
        flamex::TrsmControl c;
        c.block = 4;
        return flamex::trsm_lln(blas, flamex::find_trsm_variant(name), m[0], m[1], c).zero_diagonal;
    }
    if (op == "trsm_lun") {
        flamex::TrsmControl c;
        c.block = 4;
        return flamex::trsm_lun(blas, flamex::find_trsm_lun_variant(name), m[0], m[1], c).zero_diagonal;
    }
    if (op == "chol_u") {
        flamex::CholControl c;
        c.block = 4;
        return flamex::chol_u(blas, flamex::find_chol_u_variant(name), m[0], c).not_positive_definite;
    }
    if (op == "trmm_lln" || op == "trmm_lun") {
        flamex::TrmmControl c;
        c.block = 4;
        flamex::trmm(blas, flamex::find_trmm_variant(name), m[0], m[1], c);
        return 0;
    }
    if (op == "syrk_ln") {
        flamex::SyrkControl c;
        c.block = 4;
        flamex::syrk_ln(blas, flamex::find_syrk_variant(name), m[0], m[1], c);
        return 0;
    }
    if (op == "ttmm_l") {
        flamex::TtmmControl c;
        c.block = 4;
        flamex::ttmm_l(blas, flamex::find_ttmm_variant(name), m[0], c);
        return 0;
    }
    ADD_FAILURE() << "no direct driver known to this test for " << op;
    return -1;
}

TEST(Operations, EveryVariantOfEveryRegistryIsReachable)
{
    std::set<std::string> generic;
    for (const flamex::Operation& op : flamex::operations())
        for (const flamex::OperationVariant& v : op.variants()) EXPECT_TRUE(generic.insert(v.name).second) << v.name;
    std::set<std::string> registered;
    for (const auto& v : flamex::lu_variants()) registered.insert(v.name);
    for (const auto& v : flamex::chol_variants()) registered.insert(v.name);
    for (const auto& v : flamex::ldlt_driver_variants()) registered.insert(v.name);
    for (const auto& v : flamex::trinv_variants()) registered.insert(v.name);
    for (const auto& v : flamex::trinv_un_variants()) registered.insert(v.name);
    for (const auto& v : flamex::trsm_variants()) registered.insert(v.name);
    for (const auto& v : flamex::trsm_lun_variants()) registered.insert(v.name);
    for (const auto& v : flamex::chol_u_variants()) registered.insert(v.name);
    for (const auto& v : flamex::trmm_variants()) registered.insert(v.name);
    for (const auto& v : flamex::syrk_variants()) registered.insert(v.name);
    for (const auto& v : flamex::ttmm_variants()) registered.insert(v.name);
    EXPECT_EQ(generic, registered);
}

TEST(Operations, EachVariantGivesItsDriversBitsOnExact)
{
    const auto blas = flamex::make_backend("exact");
    flamex::OperationControl control;
    control.block = 4;
    for (const flamex::Operation& op : flamex::operations())
        for (const flamex::OperationVariant& v : op.variants()) {
            SCOPED_TRACE(op.name + " " + v.name);
            std::vector<Matrix> generic = operands_for(op), direct = operands_for(op);
            Pivots pg(op.pivots ? kN : 0), pd(op.pivots ? kN : 0);
            std::vector<Obj> views = views_of(generic);
            ASSERT_EQ(flamex::run_operation(*blas, op, v.name, views, pg, control), 0);
            ASSERT_EQ(run_directly(*blas, op.name, v.name, direct, pd), 0);
            for (size_t i = 0; i < generic.size(); ++i) EXPECT_TRUE(flamex::test::bitwise_equal(generic[i], direct[i]));
            for (dim_t i = 0; i < pg.size(); ++i) EXPECT_EQ(pg[i], pd[i]);
        }
}

TEST(Operations, TheInnerVariantReachesTheDriver)
{
    // chol_blk_var3 with every inner variant: a different inner variant in the
    // generic path than in the driver would change the bits on some of them.
    const auto blas = flamex::make_backend("exact");
    const flamex::Operation& op = flamex::find_operation("chol");
    for (const char* inner : {"chol_unb_var1", "chol_unb_var2", "chol_unb_var3"}) {
        SCOPED_TRACE(inner);
        std::vector<Matrix> generic = operands_for(op), direct = operands_for(op);
        Pivots none(0);
        flamex::OperationControl control;
        control.block = 6;
        control.inner = inner;
        std::vector<Obj> views = views_of(generic);
        ASSERT_EQ(flamex::run_operation(*blas, op, "chol_blk_var3", views, none, control), 0);
        flamex::CholControl c;
        c.block = 6;
        c.inner = &flamex::find_chol_variant(inner);
        ASSERT_TRUE(flamex::chol(*blas, flamex::find_chol_variant("chol_blk_var3"), direct[0], c).ok());
        EXPECT_TRUE(flamex::test::bitwise_equal(generic[0], direct[0]));
    }
}

TEST(Operations, FailuresNameTheDriversColumn)
{
    const auto blas = flamex::make_backend("blis");
    Matrix A = definite(6, 3);
    for (dim_t j = 0; j < 6; ++j) A(3, j) = A(j, 3) = 0.0; // row and column 4 zero: singular, not definite
    for (const flamex::Operation& op : flamex::operations()) {
        if (op.failure_text.empty()) continue; // a product cannot fail
        SCOPED_TRACE(op.name);
        std::vector<Matrix> m;
        for (const flamex::OperandSpec& o : op.operands) m.push_back(o.name == "B" ? flamex::test::random_matrix(6, 2, 1) : A);
        Pivots p(op.pivots ? 6 : 0);
        std::vector<Obj> views = views_of(m);
        EXPECT_EQ(flamex::run_operation(*blas, op, op.default_variant, views, p), 4);
    }
}

TEST(Operations, BadNamesAndOperandCountsAreErrors)
{
    const auto blas = flamex::make_backend("blis");
    Matrix A = flamex::test::diagonally_dominant(3, 1);
    Pivots p(3);
    const flamex::Operation& lu = flamex::find_operation("lu_piv");
    EXPECT_THROW(flamex::find_operation("lu"), flamex::Error);
    EXPECT_THROW(flamex::run_operation(*blas, lu, "lu_nopiv_unb_var1", {A}, p), flamex::Error);
    EXPECT_THROW(flamex::run_operation(*blas, lu, "lu_piv_unb_var3", {A, A}, p), flamex::Error);
    flamex::OperationControl inner_on_unblocked;
    inner_on_unblocked.inner = "lu_piv_unb_var5";
    EXPECT_THROW(flamex::run_operation(*blas, lu, "lu_piv_unb_var3", {A}, p, inner_on_unblocked), flamex::Error);
    try {
        flamex::run_operation(*blas, flamex::find_operation("trsm_lln"), "trsm_lln_unb_var1", {A}, Pivots(0));
        ADD_FAILURE() << "one operand for trsm_lln was accepted";
    } catch (const flamex::Error& e) {
        EXPECT_NE(std::string(e.what()).find("(L, B)"), std::string::npos) << e.what();
    }
}

TEST(Operations, ZeroOutsideKeepsOnlyTheStructure)
{
    Matrix A = flamex::test::random_matrix(4, 4, 5);
    const Matrix before = A;
    flamex::zero_outside(flamex::Structure::Lower, A);
    for (dim_t j = 0; j < 4; ++j)
        for (dim_t i = 0; i < 4; ++i) EXPECT_EQ(A(i, j), i >= j ? before(i, j) : 0.0) << i << "," << j;
    Matrix U = before;
    flamex::zero_outside(flamex::Structure::Upper, U);
    for (dim_t j = 0; j < 4; ++j)
        for (dim_t i = 0; i < 4; ++i) EXPECT_EQ(U(i, j), i <= j ? before(i, j) : 0.0) << i << "," << j;
}

// --- the command line -------------------------------------------------------------

class RunCommand : public testing::Test {
protected:
    flamex::test::ProgramRun run(const std::vector<std::string>& args) const
    {
        return flamex::test::run_program(FLAMEX_CLI, args, scratch_);
    }
    std::string path(const std::string& name) const { return scratch_.path(name); }
    flamex::test::ScratchDir scratch_{"run_command"};
};

TEST_F(RunCommand, WritesWhatTheOperationsOwnCommandWrites)
{
    const Matrix A = definite(9, 4);
    flamex::io::write_matrix_market(path("A.mtx"), A);
    for (const char* cmd : {"chol", "trinv"}) {
        SCOPED_TRACE(cmd);
        const std::vector<std::string> common{path("A.mtx"), "--variant", std::string(cmd) + "_blk_var2", "--block", "4",
                                              "--backend", "exact"};
        std::vector<std::string> own{cmd}, generic{"run", cmd};
        own.insert(own.end(), common.begin(), common.end());
        generic.insert(generic.end(), common.begin(), common.end());
        own.insert(own.end(), {"-o", path("own.mtx")});
        generic.insert(generic.end(), {"-o", path("generic.mtx")});
        ASSERT_EQ(run(own).status, 0);
        ASSERT_EQ(run(generic).status, 0);
        EXPECT_TRUE(flamex::test::bitwise_equal(flamex::io::read_matrix_market(path("own.mtx")),
                                                flamex::io::read_matrix_market(path("generic.mtx"))));
    }
    ASSERT_EQ(run({"lu", path("A.mtx"), "--variant", "lu_piv_blk_var4", "--block", "4", "--backend", "exact", "-o",
                   path("own.mtx"), "--pivots", path("own.piv")})
                  .status,
              0);
    ASSERT_EQ(run({"run", "lu_piv", path("A.mtx"), "--variant", "lu_piv_blk_var4", "--block", "4", "--backend", "exact", "-o",
                   path("generic.mtx"), "--pivots", path("generic.piv")})
                  .status,
              0);
    EXPECT_TRUE(flamex::test::bitwise_equal(flamex::io::read_matrix_market(path("own.mtx")),
                                            flamex::io::read_matrix_market(path("generic.mtx"))));
    EXPECT_EQ(flamex::test::slurp(path("own.piv")), flamex::test::slurp(path("generic.piv")));
}

TEST_F(RunCommand, TrsmReadsOnlyLsLowerTriangle)
{
    Matrix L = flamex::test::diagonally_dominant(6, 2);
    Matrix B = flamex::test::random_matrix(6, 3, 9);
    flamex::io::write_matrix_market(path("L.mtx"), L);
    flamex::io::write_matrix_market(path("B.mtx"), B);
    for (dim_t j = 1; j < 6; ++j)
        for (dim_t i = 0; i < j; ++i) L(i, j) = 1e300; // what the upper triangle holds must not matter
    flamex::io::write_matrix_market(path("Lnoise.mtx"), L);
    ASSERT_EQ(run({"run", "trsm_lln", path("L.mtx"), path("B.mtx"), "--backend", "exact", "-o", path("X.mtx")}).status, 0);
    ASSERT_EQ(run({"run", "trsm_lln", path("Lnoise.mtx"), path("B.mtx"), "--backend", "exact", "-o", path("Xn.mtx")}).status, 0);
    EXPECT_TRUE(flamex::test::bitwise_equal(flamex::io::read_matrix_market(path("X.mtx")),
                                            flamex::io::read_matrix_market(path("Xn.mtx"))));
}

TEST_F(RunCommand, FailuresAndBadInput)
{
    flamex::io::write_matrix_market(path("Z.mtx"), Matrix(2, 2, {0.0, 1.0, 1.0, 0.0}));
    const auto zero_pivot = run({"run", "lu_nopiv", path("Z.mtx"), "-o", path("out.mtx")});
    EXPECT_EQ(zero_pivot.status, 1);
    EXPECT_NE(zero_pivot.err.find("zero pivot in column 1"), std::string::npos) << zero_pivot.err;
    const auto not_pd = run({"run", "chol", path("Z.mtx")});
    EXPECT_EQ(not_pd.status, 1);
    EXPECT_NE(not_pd.err.find("not positive definite: column 1"), std::string::npos) << not_pd.err;
    for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"run", "nosuch", path("Z.mtx")}, "unknown operation 'nosuch'"},
             {{"run", "trsm_lln", path("Z.mtx")}, "trsm_lln takes 2 matrix files: L.mtx B.mtx"},
             {{"run", "chol", path("Z.mtx"), "--variant", "lu_piv_unb_var3"}, "unknown chol variant"},
             {{"run", "chol", path("Z.mtx"), "--pivots", path("p")}, "--pivots applies only"},
             {{"run", "chol", path("missing.mtx")}, "missing.mtx"},
         }) {
        const auto r = run(args);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find(says), std::string::npos) << "'" << says << "' not in: " << r.err;
    }
}

TEST_F(RunCommand, ListsOperationsAndTheirVariants)
{
    const auto all = run({"run", "--list"});
    ASSERT_EQ(all.status, 0);
    for (const flamex::Operation& op : flamex::operations()) EXPECT_NE(all.out.find(op.name), std::string::npos) << op.name;
    const auto chol = run({"run", "chol", "--list"});
    ASSERT_EQ(chol.status, 0);
    for (const flamex::OperationVariant& v : flamex::find_operation("chol").variants())
        EXPECT_NE(chol.out.find(v.name), std::string::npos) << v.name;
}

} // namespace
