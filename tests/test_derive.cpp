// The derivation (derive/): the variant files it emits are the checked-in ones in
// derive/generated/, and they perform exactly the operations of the hand-written LU
// variants: identical call logs through a RecordingBlas on every shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "blas/recording.hpp"
#include "derive/derive.hpp"
#include "support/test_support.hpp"
#include "variants/chol.hpp"
#include "variants/lu.hpp"
#include "variants/trinv.hpp"
#include "variants/trsm.hpp"

// The generated variants, compiled here beside the library's hand-written ones of the
// same names: the namespace keeps them apart.
namespace generated {
using namespace ::flamex;
#include "derive/generated/lu_nopiv_blk_var1.cpp"
#include "derive/generated/lu_nopiv_blk_var2.cpp"
#include "derive/generated/lu_nopiv_blk_var3.cpp"
#include "derive/generated/lu_nopiv_blk_var4.cpp"
#include "derive/generated/lu_nopiv_blk_var5.cpp"
#include "derive/generated/lu_nopiv_unb_var1.cpp"
#include "derive/generated/lu_nopiv_unb_var2.cpp"
#include "derive/generated/lu_nopiv_unb_var3.cpp"
#include "derive/generated/lu_nopiv_unb_var4.cpp"
#include "derive/generated/lu_nopiv_unb_var5.cpp"
#include "derive/generated/lu_piv_blk_var3.cpp"
#include "derive/generated/lu_piv_blk_var4.cpp"
#include "derive/generated/lu_piv_blk_var5.cpp"
#include "derive/generated/lu_piv_unb_var3.cpp"
#include "derive/generated/lu_piv_unb_var4.cpp"
#include "derive/generated/lu_piv_unb_var5.cpp"
#include "derive/generated/chol_blk_var1.cpp"
#include "derive/generated/chol_blk_var2.cpp"
#include "derive/generated/chol_blk_var3.cpp"
#include "derive/generated/chol_unb_var1.cpp"
#include "derive/generated/chol_unb_var2.cpp"
#include "derive/generated/chol_unb_var3.cpp"
#include "derive/generated/trinv_blk_var1.cpp"
#include "derive/generated/trinv_blk_var2.cpp"
#include "derive/generated/trinv_blk_var3.cpp"
#include "derive/generated/trinv_blk_var4.cpp"
#include "derive/generated/trinv_unb_var1.cpp"
#include "derive/generated/trinv_unb_var2.cpp"
#include "derive/generated/trinv_unb_var3.cpp"
#include "derive/generated/trinv_unb_var4.cpp"
#include "derive/generated/trsm_lln_blk_var1.cpp"
#include "derive/generated/trsm_lln_blk_var2.cpp"
#include "derive/generated/trsm_lln_unb_var1.cpp"
#include "derive/generated/trsm_lln_unb_var2.cpp"
} // namespace generated

namespace {

using namespace flamex;
namespace gen = generated::flamex;

using Run = LuInfo (*)(const Blas&, Obj, PivObj, const LuControl&);

template <LuInfo (*F)(const Blas&, Obj)>
LuInfo nopiv_unb(const Blas& blas, Obj A, PivObj, const LuControl&) { return F(blas, A); }
template <LuInfo (*F)(const Blas&, Obj, PivObj)>
LuInfo piv_unb(const Blas& blas, Obj A, PivObj p, const LuControl&) { return F(blas, A, p); }
template <LuInfo (*F)(const Blas&, Obj, const LuControl&)>
LuInfo nopiv_blk(const Blas& blas, Obj A, PivObj, const LuControl& c) { return F(blas, A, c); }
template <LuInfo (*F)(const Blas&, Obj, PivObj, const LuControl&)>
LuInfo piv_blk(const Blas& blas, Obj A, PivObj p, const LuControl& c) { return F(blas, A, p, c); }

struct Generated {
    const char* name; // the hand-written variant's, and the generated file's
    Run run;
};

const std::vector<Generated>& generated_variants()
{
    static const std::vector<Generated> list = {
        {"lu_nopiv_unb_var1", nopiv_unb<gen::lu_nopiv_unb_var1>}, {"lu_nopiv_unb_var2", nopiv_unb<gen::lu_nopiv_unb_var2>},
        {"lu_nopiv_unb_var3", nopiv_unb<gen::lu_nopiv_unb_var3>}, {"lu_nopiv_unb_var4", nopiv_unb<gen::lu_nopiv_unb_var4>},
        {"lu_nopiv_unb_var5", nopiv_unb<gen::lu_nopiv_unb_var5>}, {"lu_piv_unb_var3", piv_unb<gen::lu_piv_unb_var3>},
        {"lu_piv_unb_var4", piv_unb<gen::lu_piv_unb_var4>},       {"lu_piv_unb_var5", piv_unb<gen::lu_piv_unb_var5>},
        {"lu_nopiv_blk_var1", nopiv_blk<gen::lu_nopiv_blk_var1>}, {"lu_nopiv_blk_var2", nopiv_blk<gen::lu_nopiv_blk_var2>},
        {"lu_nopiv_blk_var3", nopiv_blk<gen::lu_nopiv_blk_var3>}, {"lu_nopiv_blk_var4", nopiv_blk<gen::lu_nopiv_blk_var4>},
        {"lu_nopiv_blk_var5", nopiv_blk<gen::lu_nopiv_blk_var5>}, {"lu_piv_blk_var3", piv_blk<gen::lu_piv_blk_var3>},
        {"lu_piv_blk_var4", piv_blk<gen::lu_piv_blk_var4>},       {"lu_piv_blk_var5", piv_blk<gen::lu_piv_blk_var5>},
    };
    return list;
}

// Every file in derive/generated/ (OP_unb_varN.cpp, OP_blk_varN.cpp) is what the
// description emits today, and the LU ones are all there.
TEST(Derive, GeneratedFilesAreWhatTheDescriptionsEmit)
{
    const std::string dir = std::string(FLAMEX_SOURCE_DIR) + "/derive/generated";
    std::vector<std::string> files;
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d))
            if (std::string(e->d_name).find(".cpp") != std::string::npos) files.push_back(e->d_name);
        closedir(d);
    }
    for (const Generated& g : generated_variants())
        EXPECT_NE(std::find(files.begin(), files.end(), std::string(g.name) + ".cpp"), files.end()) << g.name;
    EXPECT_GE(files.size(), 35u);
    for (const std::string& file : files) {
        const std::string name = file.substr(0, file.size() - 4);
        const size_t form = name.find(name.find("_blk_var") != std::string::npos ? "_blk_var" : "_unb_var");
        ASSERT_NE(form, std::string::npos) << file;
        const bool blocked = name.compare(form, 5, "_blk_") == 0;
        const derive::Pme pme = derive::load_operation(name.substr(0, form));
        const derive::Derivation d = derive::derive_invariants(pme);
        const std::string emitted = derive::emit_cpp(pme, derive::find_variant(d, std::stoi(name.substr(form + 8))), blocked);
        if (emitted == test::slurp(dir + "/" + file)) continue;
        test::ScratchDir scratch("derive-regenerate");
        std::ofstream(scratch.path("emitted.cpp")) << emitted;
        ADD_FAILURE() << dir << "/" << file << " is not what derive/pme/ emits (run derive/regenerate.sh):\n"
                      << test::run_program("diff", {"-u", dir + "/" + file, scratch.path("emitted.cpp")}, scratch).out;
    }
}

// A matrix whose column k is zero: every variant meets an exactly zero pivot there,
// with or without pivoting, in any order of operations.
Matrix zero_column(dim_t n, dim_t k, std::uint64_t seed)
{
    Matrix A = test::random_matrix(n, n, seed);
    for (dim_t i = 0; i < n; ++i) A(i, k) = 0.0;
    return A;
}

struct Shape {
    std::string label;
    Matrix A;
};

std::vector<Shape> shapes()
{
    std::vector<Shape> list;
    const std::pair<dim_t, dim_t> sizes[] = {{0, 0}, {1, 1}, {7, 7}, {33, 33}, {50, 20}, {20, 50}};
    std::uint64_t seed = 11;
    for (const auto& [m, n] : sizes) list.push_back({std::to_string(m) + "x" + std::to_string(n), test::random_matrix(m, n, seed++)});
    list.push_back({"7x7, zero pivot at column 3", zero_column(7, 2, 31)});
    list.push_back({"33x33, zero pivot at column 18", zero_column(33, 17, 32)});
    return list;
}

TEST(Derive, GeneratedLuVariantsMakeTheHandWrittenCalls)
{
    const auto exact = make_backend("exact");
    for (const Generated& g : generated_variants()) {
        const LuVariant& hand = find_lu_variant(g.name);
        LuControl control;
        control.block = 8;
        control.inner = &find_lu_variant(hand.pivoting ? "lu_piv_unb_var5" : "lu_nopiv_unb_var5");
        for (const Shape& s : shapes()) {
            SCOPED_TRACE(std::string(g.name) + " on " + s.label);
            Matrix A1 = s.A, A2 = s.A;
            const dim_t k = std::min(s.A.length(), s.A.width());
            Pivots p1(hand.pivoting ? k : 0), p2(hand.pivoting ? k : 0);
            RecordingBlas hand_log(*exact), generated_log(*exact);
            const LuInfo info1 = hand.run(hand_log, A1, p1, control);
            const LuInfo info2 = g.run(generated_log, A2, p2, control);
            EXPECT_EQ(hand_log.log(), generated_log.log());
            if (k > 0) {
                EXPECT_FALSE(hand_log.log().empty());
            }
            EXPECT_EQ(info1.zero_pivot, info2.zero_pivot);
            EXPECT_TRUE(test::bitwise_equal(A1, A2));
            if (hand.pivoting) {
                EXPECT_EQ(p1.to_lapack(), p2.to_lapack());
            }
            if (s.label.find("zero pivot") != std::string::npos) {
                EXPECT_EQ(info1.zero_pivot, s.label.find("column 3") != std::string::npos ? 3 : 18);
            }
        }
    }
}

TEST(Derive, RecordingBlasLogsOperationFlagsScalarsAndViews)
{
    const auto blis = make_backend("blis");
    RecordingBlas rec(*blis);
    Matrix A = test::random_matrix(5, 4, 3);
    auto [ATL, ATR, ABL, ABR] = part_2x2(A.view(), 2, 1, TL);
    Matrix x = test::random_matrix(3, 1, 4), y = test::random_matrix(3, 1, 5);
    rec.gemv(TRANSPOSE, -1.5, ABR, x, 0.25, y);
    (void)ATL;
    (void)ATR;
    (void)ABL;
    ASSERT_EQ(rec.log().size(), 1u);
    EXPECT_EQ(rec.log()[0], "gemv Yes -1.5 A(2,1 3x3) x(0,0 3x1) 0.25 y(0,0 3x1)");
}

} // namespace

namespace {

// The partition of `numbers` by bit equality of their factors on every matrix.
// Blocked variants run with block 3 and, for their diagonal blocks, the unblocked
// variant of the same number: what derive::roundings() assumes.
std::vector<std::vector<int>> measured_groups(const std::string& prefix, const std::vector<int>& numbers,
                                              const std::vector<Matrix>& matrices, bool blocked)
{
    const auto exact = make_backend("exact");
    std::vector<std::vector<Matrix>> factors; // [variant][matrix]
    for (const int v : numbers) {
        const LuVariant& variant = find_lu_variant(prefix + (blocked ? "_blk_var" : "_unb_var") + std::to_string(v));
        LuControl control;
        control.block = 3;
        control.inner = &find_lu_variant(prefix + "_unb_var" + std::to_string(v));
        factors.emplace_back();
        for (const Matrix& M : matrices) {
            Matrix A = M;
            Pivots p(variant.pivoting ? std::min(A.length(), A.width()) : 0);
            EXPECT_TRUE(lu(*exact, variant, A, p, control).ok());
            factors.back().push_back(A);
        }
    }
    std::vector<std::vector<int>> groups;
    std::vector<bool> placed(numbers.size(), false);
    for (size_t i = 0; i < numbers.size(); ++i) {
        if (placed[i]) continue;
        groups.push_back({numbers[i]});
        for (size_t j = i + 1; j < numbers.size(); ++j) {
            bool same = true;
            for (size_t k = 0; k < matrices.size(); ++k) same &= test::bitwise_equal(factors[i][k], factors[j][k]);
            if (same && !placed[j]) {
                groups.back().push_back(numbers[j]);
                placed[j] = true;
            }
        }
    }
    return groups;
}

TEST(Derive, PredictedRoundingGroupsAreTheMeasuredBitEqualityOnExact)
{
    std::vector<Matrix> dominant, general;
    for (const auto& [m, n] : std::vector<std::pair<dim_t, dim_t>>{{40, 40}, {50, 30}, {30, 50}, {17, 17}}) {
        Matrix A = test::random_matrix(m, n, static_cast<std::uint64_t>(m * 100 + n));
        general.push_back(A);
        for (dim_t i = 0; i < std::min(m, n); ++i) A(i, i) += static_cast<double>(std::max(m, n));
        dominant.push_back(A);
    }
    for (const auto& [op, matrices] : {std::pair<std::string, const std::vector<Matrix>*>{"lu_nopiv", &dominant},
                                       std::pair<std::string, const std::vector<Matrix>*>{"lu_piv", &general}}) {
        const derive::Pme pme = derive::load_operation(op);
        const derive::Derivation d = derive::derive_invariants(pme);
        for (const bool blocked : {false, true}) {
            const derive::RoundingReport predicted = derive::roundings(d, blocked);
            std::vector<int> numbers;
            for (const auto& g : predicted.groups) numbers.insert(numbers.end(), g.begin(), g.end());
            std::sort(numbers.begin(), numbers.end());
            EXPECT_EQ(predicted.groups, measured_groups(op, numbers, *matrices, blocked)) << op << "\n" << predicted.text;
        }
    }
    const derive::Pme lu = derive::load_operation("lu_nopiv");
    EXPECT_EQ(derive::roundings(derive::derive_invariants(lu), false).groups, (std::vector<std::vector<int>>{{1, 2}, {3, 4}, {5}}));
}

} // namespace

namespace {

// The derived Cholesky, triangular-inverse and trsm variants make exactly the calls
// of the hand-written ones (variants/chol_*, trinv_*, trsm_lln_*), on every shape.
template <class Info, class Control, Info (*F)(const Blas&, Obj)>
Info unb(const Blas& blas, Obj A, const Control&) { return F(blas, A); }
template <class Info, class Control, Info (*F)(const Blas&, Obj, const Control&)>
Info blk(const Blas& blas, Obj A, const Control& c) { return F(blas, A, c); }
template <TrsmInfo (*F)(const Blas&, Obj, Obj)>
TrsmInfo trsm_unb(const Blas& blas, Obj L, Obj B, const TrsmControl&) { return F(blas, L, B); }

Matrix spd(dim_t n, std::uint64_t seed)
{
    const Matrix X = test::random_matrix(n, n, seed);
    Matrix A(n, n);
    for (dim_t i = 0; i < n; ++i)
        for (dim_t j = 0; j < n; ++j) {
            double s = i == j ? static_cast<double>(n) : 0.0;
            for (dim_t k = 0; k < n; ++k) s += X(i, k) * X(j, k);
            A(i, j) = s;
        }
    return A;
}

TEST(Derive, GeneratedCholTrinvTrsmVariantsMakeTheHandWrittenCalls)
{
    const auto exact = make_backend("exact");
    const std::vector<std::pair<const char*, CholInfo (*)(const Blas&, Obj, const CholControl&)>> chol = {
        {"chol_unb_var1", unb<CholInfo, CholControl, gen::chol_unb_var1>}, {"chol_unb_var2", unb<CholInfo, CholControl, gen::chol_unb_var2>},
        {"chol_unb_var3", unb<CholInfo, CholControl, gen::chol_unb_var3>}, {"chol_blk_var1", blk<CholInfo, CholControl, gen::chol_blk_var1>},
        {"chol_blk_var2", blk<CholInfo, CholControl, gen::chol_blk_var2>}, {"chol_blk_var3", blk<CholInfo, CholControl, gen::chol_blk_var3>}};
    const std::vector<std::pair<const char*, TrinvInfo (*)(const Blas&, Obj, const TrinvControl&)>> trinv = {
        {"trinv_unb_var1", unb<TrinvInfo, TrinvControl, gen::trinv_unb_var1>}, {"trinv_unb_var2", unb<TrinvInfo, TrinvControl, gen::trinv_unb_var2>},
        {"trinv_unb_var3", unb<TrinvInfo, TrinvControl, gen::trinv_unb_var3>}, {"trinv_unb_var4", unb<TrinvInfo, TrinvControl, gen::trinv_unb_var4>},
        {"trinv_blk_var1", blk<TrinvInfo, TrinvControl, gen::trinv_blk_var1>}, {"trinv_blk_var2", blk<TrinvInfo, TrinvControl, gen::trinv_blk_var2>},
        {"trinv_blk_var3", blk<TrinvInfo, TrinvControl, gen::trinv_blk_var3>}, {"trinv_blk_var4", blk<TrinvInfo, TrinvControl, gen::trinv_blk_var4>}};
    const std::vector<std::pair<const char*, TrsmInfo (*)(const Blas&, Obj, Obj, const TrsmControl&)>> trsm = {
        {"trsm_lln_unb_var1", trsm_unb<gen::trsm_lln_unb_var1>}, {"trsm_lln_unb_var2", trsm_unb<gen::trsm_lln_unb_var2>},
        {"trsm_lln_blk_var1", gen::trsm_lln_blk_var1}, {"trsm_lln_blk_var2", gen::trsm_lln_blk_var2}};
    for (const dim_t n : {0, 1, 7, 33}) {
        for (const auto& [name, run] : chol) {
            SCOPED_TRACE(std::string(name) + ", n = " + std::to_string(n));
            CholControl control;
            control.block = 8;
            control.inner = &find_chol_variant("chol_unb_var3");
            Matrix A1 = spd(n, 5), A2 = A1;
            if (n == 33) A1(20, 20) = A2(20, 20) = -1.0; // not positive definite at column 21
            RecordingBlas hand(*exact), derived(*exact);
            find_chol_variant(name).run(hand, A1, control);
            run(derived, A2, control);
            EXPECT_EQ(hand.log(), derived.log());
            EXPECT_EQ(hand.log().empty(), n == 0);
            EXPECT_TRUE(test::bitwise_equal(A1, A2));
        }
        for (const auto& [name, run] : trinv) {
            SCOPED_TRACE(std::string(name) + ", n = " + std::to_string(n));
            TrinvControl control;
            control.block = 8;
            control.inner = &find_trinv_variant("trinv_unb_var3");
            Matrix A1 = test::diagonally_dominant(n, 6), A2 = A1;
            RecordingBlas hand(*exact), derived(*exact);
            find_trinv_variant(name).run(hand, A1, control);
            run(derived, A2, control);
            EXPECT_EQ(hand.log(), derived.log());
            EXPECT_EQ(hand.log().empty(), n == 0);
            EXPECT_TRUE(test::bitwise_equal(A1, A2));
        }
        for (const auto& [name, run] : trsm) {
            SCOPED_TRACE(std::string(name) + ", n = " + std::to_string(n));
            TrsmControl control;
            control.block = 8;
            control.inner = &find_trsm_variant("trsm_lln_unb_var2");
            const Matrix L = test::diagonally_dominant(n, 7);
            Matrix B1 = test::random_matrix(n, 5, 8), B2 = B1;
            RecordingBlas hand(*exact), derived(*exact);
            find_trsm_variant(name).run(hand, L, B1, control);
            run(derived, L, B2, control);
            EXPECT_EQ(hand.log(), derived.log());
            EXPECT_EQ(hand.log().empty(), n == 0);
            EXPECT_TRUE(test::bitwise_equal(B1, B2));
        }
    }
}

} // namespace

namespace {

// The partition of variants 1..count by bit equality of what `run(v, matrix)` leaves.
std::vector<std::vector<int>> partition(int count, size_t matrices, const std::function<Matrix(int, size_t)>& run)
{
    std::vector<std::vector<Matrix>> results(static_cast<size_t>(count));
    for (int v = 1; v <= count; ++v)
        for (size_t k = 0; k < matrices; ++k) results[static_cast<size_t>(v - 1)].push_back(run(v, k));
    std::vector<std::vector<int>> groups;
    std::vector<bool> placed(static_cast<size_t>(count), false);
    for (int i = 0; i < count; ++i) {
        if (placed[static_cast<size_t>(i)]) continue;
        groups.push_back({i + 1});
        for (int j = i + 1; j < count; ++j) {
            bool same = !placed[static_cast<size_t>(j)];
            for (size_t k = 0; k < matrices && same; ++k)
                same = test::bitwise_equal(results[static_cast<size_t>(i)][k], results[static_cast<size_t>(j)][k]);
            if (same) {
                groups.back().push_back(j + 1);
                placed[static_cast<size_t>(j)] = true;
            }
        }
    }
    return groups;
}

std::vector<std::vector<int>> predicted(const std::string& op, bool blocked)
{
    const derive::Pme pme = derive::load_operation(op);
    return derive::roundings(derive::derive_invariants(pme), blocked).groups;
}

// As for LU: the predicted groups of the Cholesky, triangular-inverse and trsm
// variants are their measured bit equality on exact (blocked: b = 3, the diagonal
// blocks by the unblocked variant of the same number).
TEST(Derive, PredictedRoundingGroupsOfCholTrinvTrsmAreMeasuredOnExact)
{
    const auto exact = make_backend("exact");
    const std::vector<dim_t> sizes = {17, 24, 31};
    for (const bool blocked : {false, true}) {
        const std::string form = blocked ? "_blk_var" : "_unb_var";
        EXPECT_EQ(predicted("chol", blocked), partition(3, sizes.size(), [&](int v, size_t k) {
                      CholControl control;
                      control.block = 3;
                      control.inner = &find_chol_variant("chol_unb_var" + std::to_string(v));
                      Matrix A = spd(sizes[k], 40 + k);
                      EXPECT_TRUE(chol(*exact, find_chol_variant("chol" + form + std::to_string(v)), A, control).ok());
                      return A;
                  })) << "chol" << form;
        EXPECT_EQ(predicted("trinv", blocked), partition(4, sizes.size(), [&](int v, size_t k) {
                      TrinvControl control;
                      control.block = 3;
                      control.inner = &find_trinv_variant("trinv_unb_var" + std::to_string(v));
                      Matrix A = test::diagonally_dominant(sizes[k], 50 + k);
                      EXPECT_TRUE(trinv(*exact, find_trinv_variant("trinv" + form + std::to_string(v)), A, control).ok());
                      return A;
                  })) << "trinv" << form;
        EXPECT_EQ(predicted("trsm_lln", blocked), partition(2, sizes.size(), [&](int v, size_t k) {
                      TrsmControl control;
                      control.block = 3;
                      control.inner = &find_trsm_variant("trsm_lln_unb_var" + std::to_string(v));
                      const Matrix L = test::diagonally_dominant(sizes[k], 60 + k);
                      Matrix B = test::random_matrix(sizes[k], 4, 70 + k);
                      find_trsm_variant("trsm_lln" + form + std::to_string(v)).run(*exact, L, B, control);
                      return B;
                  })) << "trsm_lln" << form;
    }
}

} // namespace
