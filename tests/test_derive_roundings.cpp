// `flamex derive OP --roundings` against measurement, for every operation but LU
// (tests/test_derive.cpp holds LU's): the groups of variants it predicts give
// identical bits on a correctly rounded backend are exactly the partition of the
// library's variants by bit equality of their results on `exact`, over several
// matrices, unblocked and (block 3, each variant's own unblocked form inside, as the
// prediction assumes) blocked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "derive/derive.hpp"
#include "support/test_support.hpp"
#include "variants/chol.hpp"
#include "variants/syrk.hpp"
#include "variants/ldlt_blas.hpp"
#include "variants/trinv.hpp"
#include "variants/trmm.hpp"
#include "variants/trsm.hpp"
#include "variants/ttmm.hpp"

namespace {

using namespace flamex;
using Groups = std::vector<std::vector<int>>;

// Variant `number` of the operation, blocked or not, run on `exact` on problem k:
// the matrices it wrote, in operand order.
using Runner = std::function<std::vector<Matrix>(int number, bool blocked, size_t k)>;

const Blas& exact()
{
    static const std::unique_ptr<Blas> blas = make_backend("exact");
    return *blas;
}

std::string name_of(const std::string& prefix, int number, bool blocked)
{
    return prefix + (blocked ? "_blk_var" : "_unb_var") + std::to_string(number);
}

// B B^T + n I: symmetric positive definite.
Matrix spd(dim_t n, std::uint64_t seed)
{
    const Matrix B = test::random_matrix(n, n, seed);
    Matrix A(n, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < n; ++i) {
            double s = i == j ? static_cast<double>(n) : 0.0;
            for (dim_t k = 0; k < n; ++k) s += B(i, k) * B(j, k);
            A(i, j) = s;
        }
    return A;
}

// Random with n added to the diagonal: a well-conditioned lower triangle.
Matrix dominant(dim_t n, std::uint64_t seed)
{
    Matrix A = test::random_matrix(n, n, seed);
    for (dim_t i = 0; i < n; ++i) A(i, i) += static_cast<double>(n);
    return A;
}

const std::vector<dim_t> kOrders = {17, 33, 40};

// The partition of `numbers` by bit equality of every result on every problem.
Groups measured_groups(const std::vector<int>& numbers, bool blocked, const Runner& run)
{
    std::vector<std::vector<std::vector<Matrix>>> results; // [variant][problem][operand]
    for (const int v : numbers) {
        results.emplace_back();
        for (size_t k = 0; k < kOrders.size(); ++k) results.back().push_back(run(v, blocked, k));
        // Groups of one would also come from bits that vary from run to run: they do not.
        const std::vector<Matrix> again = run(v, blocked, 0);
        for (size_t o = 0; o < again.size(); ++o)
            EXPECT_TRUE(test::bitwise_equal(again[o], results.back()[0][o])) << "variant " << v << " is not reproducible";
    }
    const auto same = [&](size_t a, size_t b) {
        for (size_t k = 0; k < kOrders.size(); ++k)
            for (size_t o = 0; o < results[a][k].size(); ++o)
                if (!test::bitwise_equal(results[a][k][o], results[b][k][o])) return false;
        return true;
    };
    Groups groups;
    std::vector<bool> placed(numbers.size(), false);
    for (size_t i = 0; i < numbers.size(); ++i) {
        if (placed[i]) continue;
        groups.push_back({numbers[i]});
        for (size_t j = i + 1; j < numbers.size(); ++j)
            if (!placed[j] && same(i, j)) {
                groups.back().push_back(numbers[j]);
                placed[j] = true;
            }
    }
    return groups;
}

// The predicted groups restricted to the variants the library has (`numbers`).
Groups restricted(const Groups& predicted, const std::vector<int>& numbers)
{
    Groups out;
    for (const auto& g : predicted) {
        std::vector<int> kept;
        for (const int v : g)
            if (std::find(numbers.begin(), numbers.end(), v) != numbers.end()) kept.push_back(v);
        if (!kept.empty()) out.push_back(kept);
    }
    return out;
}

void expect_predicted_groups_measured(const std::string& op, const std::vector<int>& numbers, bool blocked, const Runner& run)
{
    const derive::Pme pme = derive::load_operation(op);
    const derive::Derivation d = derive::derive_invariants(pme);
    const derive::RoundingReport predicted = derive::roundings(d, blocked);
    const Groups measured = measured_groups(numbers, blocked, run);
    EXPECT_EQ(restricted(predicted.groups, numbers), measured) << op << (blocked ? " blocked" : " unblocked") << "\n"
                                                               << predicted.text;
    std::string text;
    for (const auto& g : measured) {
        text += " {";
        for (size_t k = 0; k < g.size(); ++k) text += (k ? ", " : "") + std::to_string(g[k]);
        text += "}";
    }
    std::printf("[ measured ] %s %s on exact: groups%s\n", op.c_str(), blocked ? "blocked" : "unblocked", text.c_str());
}

TEST(DeriveRoundings, CholeskyGroupsAreTheMeasuredBitEqualityOnExact)
{
    const Runner run = [](int number, bool blocked, size_t k) {
        Matrix A = spd(kOrders[k], 100 + k);
        CholControl control;
        control.block = 3;
        control.inner = &find_chol_variant(name_of("chol", number, false));
        EXPECT_TRUE(chol(exact(), find_chol_variant(name_of("chol", number, blocked)), A, control).ok());
        return std::vector<Matrix>{A};
    };
    for (const bool blocked : {false, true}) expect_predicted_groups_measured("chol", {1, 2, 3}, blocked, run);
}

TEST(DeriveRoundings, TriangularInverseGroupsAreTheMeasuredBitEqualityOnExact)
{
    const Runner run = [](int number, bool blocked, size_t k) {
        Matrix A = dominant(kOrders[k], 200 + k);
        TrinvControl control;
        control.block = 3;
        control.inner = &find_trinv_variant(name_of("trinv", number, false));
        EXPECT_TRUE(trinv(exact(), find_trinv_variant(name_of("trinv", number, blocked)), A, control).ok());
        return std::vector<Matrix>{A};
    };
    for (const bool blocked : {false, true}) expect_predicted_groups_measured("trinv", {1, 2, 3, 4}, blocked, run);
}

TEST(DeriveRoundings, UpperTriangularInverseGroupsAreTheMeasuredBitEqualityOnExact)
{
    const Runner run = [](int number, bool blocked, size_t k) {
        Matrix A = dominant(kOrders[k], 300 + k);
        TrinvControl control;
        control.block = 3;
        control.inner = &find_trinv_un_variant(name_of("trinv_un", number, false));
        EXPECT_TRUE(trinv_un(exact(), find_trinv_un_variant(name_of("trinv_un", number, blocked)), A, control).ok());
        return std::vector<Matrix>{A};
    };
    for (const bool blocked : {false, true}) expect_predicted_groups_measured("trinv_un", {1, 2, 3, 4}, blocked, run);
}

TEST(DeriveRoundings, TriangularSolveGroupsAreTheMeasuredBitEqualityOnExact)
{
    const Runner run = [](int number, bool blocked, size_t k) {
        const Matrix L = dominant(kOrders[k], 300 + k);
        Matrix B = test::random_matrix(kOrders[k], 1 + 3 * static_cast<dim_t>(k), 400 + k);
        TrsmControl control;
        control.block = 3;
        control.inner = &find_trsm_variant(name_of("trsm_lln", number, false));
        EXPECT_TRUE(trsm_lln(exact(), find_trsm_variant(name_of("trsm_lln", number, blocked)), L, B, control).ok());
        return std::vector<Matrix>{B};
    };
    for (const bool blocked : {false, true}) expect_predicted_groups_measured("trsm_lln", {1, 2, 3, 4}, blocked, run);
}

// The operations the engine derived from their PME alone (issue 27).
TEST(DeriveRoundings, DerivedOperationsGroupsAreTheMeasuredBitEqualityOnExact)
{
    for (const std::string op : {"trmm_lln", "trmm_lun"}) {
        const Runner run = [&](int number, bool blocked, size_t k) {
            Matrix T = dominant(kOrders[k], 600 + k);
            Matrix B = test::random_matrix(kOrders[k], 1 + 3 * static_cast<dim_t>(k), 610 + k);
            TrmmControl control;
            control.block = 3;
            control.inner = &find_trmm_variant(name_of(op, number, false));
            trmm(exact(), find_trmm_variant(name_of(op, number, blocked)), T, B, control);
            return std::vector<Matrix>{B};
        };
        for (const bool blocked : {false, true}) expect_predicted_groups_measured(op, {1, 2, 3, 4}, blocked, run);
    }
    const Runner lun = [](int number, bool blocked, size_t k) {
        Matrix U = dominant(kOrders[k], 620 + k);
        for (dim_t j = 0; j < U.width(); ++j)
            for (dim_t i = j + 1; i < U.length(); ++i) U(i, j) = U(j, i);
        Matrix B = test::random_matrix(kOrders[k], 1 + 3 * static_cast<dim_t>(k), 630 + k);
        TrsmControl control;
        control.block = 3;
        control.inner = &find_trsm_lun_variant(name_of("trsm_lun", number, false));
        EXPECT_TRUE(trsm_lun(exact(), find_trsm_lun_variant(name_of("trsm_lun", number, blocked)), U, B, control).ok());
        return std::vector<Matrix>{B};
    };
    for (const bool blocked : {false, true}) expect_predicted_groups_measured("trsm_lun", {1, 2, 3, 4}, blocked, lun);
    const Runner syrk = [](int number, bool blocked, size_t k) {
        const Matrix A = test::random_matrix(kOrders[k], 2 + static_cast<dim_t>(k), 640 + k);
        Matrix C = test::random_matrix(kOrders[k], kOrders[k], 650 + k);
        SyrkControl control;
        control.block = 3;
        syrk_ln(exact(), find_syrk_variant(name_of("syrk_ln", number, blocked)), A, C, control);
        return std::vector<Matrix>{C};
    };
    for (const bool blocked : {false, true}) expect_predicted_groups_measured("syrk_ln", {1, 2, 3, 4, 5, 6}, blocked, syrk);
    const Runner chol_upper = [](int number, bool blocked, size_t k) {
        Matrix A = spd(kOrders[k], 660 + k);
        CholControl control;
        control.block = 3;
        control.inner = &find_chol_u_variant(name_of("chol_u", number, false));
        EXPECT_TRUE(chol_u(exact(), find_chol_u_variant(name_of("chol_u", number, blocked)), A, control).ok());
        return std::vector<Matrix>{A};
    };
    for (const bool blocked : {false, true}) expect_predicted_groups_measured("chol_u", {1, 2, 3}, blocked, chol_upper);
    const Runner ttmm = [](int number, bool blocked, size_t k) {
        Matrix A = dominant(kOrders[k], 670 + k);
        TtmmControl control;
        control.block = 3;
        control.inner = &find_ttmm_variant(name_of("ttmm_l", number, false));
        ttmm_l(exact(), find_ttmm_variant(name_of("ttmm_l", number, blocked)), A, control);
        return std::vector<Matrix>{A};
    };
    for (const bool blocked : {false, true}) expect_predicted_groups_measured("ttmm_l", {1, 2, 3}, blocked, ttmm);
}

TEST(DeriveRoundings, LdltGroupsAreTheMeasuredBitEqualityOnExact)
{
    const Runner run = [](int number, bool, size_t k) {
        Matrix A = spd(kOrders[k], 500 + k);
        EXPECT_TRUE(ldlt_blas(exact(), find_ldlt_blas_variant(name_of("ldlt_blas", number, false)), A).ok());
        return std::vector<Matrix>{A};
    };
    expect_predicted_groups_measured("ldlt", {1, 2, 3}, false, run);
    const derive::Pme pme = derive::load_operation("ldlt");
    EXPECT_EQ(derive::roundings(derive::derive_invariants(pme), false).groups, (Groups{{1}, {2}, {3}}));
}

} // namespace
