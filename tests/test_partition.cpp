// The partition API: at every step of a FLAME loop, in every direction and with
// any block size, the views cover the matrix exactly once.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "flame/flame.hpp"

using namespace flamex;

namespace {

// Marks every element of each view; after a step each element must be marked once.
class Coverage {
public:
    Coverage(dim_t m, dim_t n) : m_(m), n_(n), base_(static_cast<size_t>(m * n)), count_(base_.size(), 0) {}
    Obj whole() { return Obj(base_.data(), 1, m_, 0, 0, m_, n_); }
    template <class... V>
    void expect_exact_cover(const char* where, V... views)
    {
        std::fill(count_.begin(), count_.end(), 0);
        (mark(views), ...);
        for (size_t k = 0; k < count_.size(); ++k)
            ASSERT_EQ(count_[k], 1) << where << ": element " << k % m_ << "," << k / m_ << " covered " << count_[k] << " times";
    }

private:
    void mark(Obj V)
    {
        for (dim_t j = 0; j < V.width(); ++j)
            for (dim_t i = 0; i < V.length(); ++i) {
                const size_t k = static_cast<size_t>(&V(i, j) - base_.data());
                ASSERT_LT(k, count_.size());
                ++count_[k];
            }
    }
    dim_t m_, n_;
    std::vector<double> base_;
    std::vector<int> count_;
};

struct Direction {
    Quadrant start, take, join;
};

} // namespace

TEST(Partition, TwoByTwoSweepsCoverExactlyInEveryDirection)
{
    std::mt19937 gen(7);
    const Direction directions[] = {{TL, BR, TL}, {BR, TL, BR}, {TR, BL, TR}, {BL, TR, BL}};
    for (int trial = 0; trial < 60; ++trial) {
        const dim_t m = gen() % 13, n = gen() % 13, mb = 1 + gen() % 5, nb = 1 + gen() % 5;
        for (const Direction& d : directions) {
            Coverage cover(m, n);
            Obj A = cover.whole();
            auto [ATL, ATR, ABL, ABR] = part_2x2(A, 0, 0, d.start);
            cover.expect_exact_cover("part_2x2", ATL, ATR, ABL, ABR);
            int steps = 0;
            for (;;) {
                const Obj& from = d.take == BR ? ABR : d.take == TL ? ATL : d.take == BL ? ABL : ATR;
                const dim_t b_m = std::min(mb, from.length()), b_n = std::min(nb, from.width());
                if (b_m == 0 && b_n == 0) break;
                auto [A00, A01, A02, A10, A11, A12, A20, A21, A22] = repart_2x2_to_3x3(ATL, ATR, ABL, ABR, b_m, b_n, d.take);
                ASSERT_EQ(A11.length(), b_m);
                ASSERT_EQ(A11.width(), b_n);
                cover.expect_exact_cover("repart_2x2_to_3x3", A00, A01, A02, A10, A11, A12, A20, A21, A22);
                std::tie(ATL, ATR, ABL, ABR) = cont_with_3x3_to_2x2(A00, A01, A02, A10, A11, A12, A20, A21, A22, d.join);
                cover.expect_exact_cover("cont_with_3x3_to_2x2", ATL, ATR, ABL, ABR);
                ASSERT_LT(++steps, 100);
            }
            const Obj& done = d.join == TL ? ATL : d.join == BR ? ABR : d.join == TR ? ATR : ABL;
            EXPECT_EQ(done.length(), m);
            EXPECT_EQ(done.width(), n);
        }
    }
}

TEST(Partition, TwoByOneAndOneByTwoSweepsCoverExactly)
{
    std::mt19937 gen(11);
    for (int trial = 0; trial < 60; ++trial) {
        const dim_t m = gen() % 17, n = 1 + gen() % 4, b = 1 + gen() % 6;
        for (Side start : {TOP, BOTTOM}) {
            const Side take = start == TOP ? BOTTOM : TOP;
            Coverage cover(m, n);
            auto [AT, AB] = part_2x1(cover.whole(), 0, start);
            while ((take == BOTTOM ? AB : AT).length() > 0) {
                const dim_t bb = std::min(b, (take == BOTTOM ? AB : AT).length());
                auto [A0, A1, A2] = repart_2x1_to_3x1(AT, AB, bb, take);
                ASSERT_EQ(A1.length(), bb);
                cover.expect_exact_cover("repart_2x1_to_3x1", A0, A1, A2);
                std::tie(AT, AB) = cont_with_3x1_to_2x1(A0, A1, A2, start);
                cover.expect_exact_cover("cont_with_3x1_to_2x1", AT, AB);
            }
        }
        for (Side start : {LEFT, RIGHT}) {
            const Side take = start == LEFT ? RIGHT : LEFT;
            Coverage cover(n, m);
            auto [AL, AR] = part_1x2(cover.whole(), 0, start);
            while ((take == RIGHT ? AR : AL).width() > 0) {
                const dim_t bb = std::min(b, (take == RIGHT ? AR : AL).width());
                auto [A0, A1, A2] = repart_1x2_to_1x3(AL, AR, bb, take);
                ASSERT_EQ(A1.width(), bb);
                cover.expect_exact_cover("repart_1x2_to_1x3", A0, A1, A2);
                std::tie(AL, AR) = cont_with_1x3_to_1x2(A0, A1, A2, start);
                cover.expect_exact_cover("cont_with_1x3_to_1x2", AL, AR);
            }
        }
    }
}

TEST(Partition, ViewsOfViewsKeepOffsetsAndStrides)
{
    Matrix M(7, 9);
    for (dim_t j = 0; j < 9; ++j)
        for (dim_t i = 0; i < 7; ++i) M(i, j) = 10.0 * static_cast<double>(i) + static_cast<double>(j);
    Obj A = M.view().sub(2, 3, 4, 5);
    auto [ATL, ATR, ABL, ABR] = part_2x2(A, 1, 2, TL);
    EXPECT_EQ(ABR(0, 0), M(3, 5));
    EXPECT_EQ(ATR(0, 1), M(2, 6));
    EXPECT_EQ(ABL.offset_m(), 3);
    EXPECT_EQ(ABL.offset_n(), 3);
    Obj row = merge_1x2(ABL.sub(0, 0, 1, 2), ABR.sub(0, 0, 1, 3));
    EXPECT_EQ(row.vector_length(), 5);
    EXPECT_EQ(row[4], M(3, 7));
}

TEST(Partition, BadRequestsThrowInsteadOfAborting)
{
    Matrix M(4, 4);
    EXPECT_THROW(part_2x2(M.view(), 5, 0, TL), Error);
    EXPECT_THROW(part_2x1(M.view(), -1, TOP), Error);
    auto [ATL, ATR, ABL, ABR] = part_2x2(M.view(), 0, 0, TL);
    EXPECT_THROW(repart_2x2_to_3x3(ATL, ATR, ABL, ABR, 5, 1, BR), Error);
    EXPECT_THROW(M.view().sub(3, 3, 2, 1), Error);
    EXPECT_THROW(merge_2x1(M.view().sub(0, 0, 1, 4), M.view().sub(2, 0, 1, 4)), Error);
}
