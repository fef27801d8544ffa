// The libflame traps the object layer must absorb.
#include "flame/libflame.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

using flamex::Error;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;
namespace fla = flamex::fla;

TEST(FlameObjects, SubnormalsSurviveLibflameInitialization)
{
    Matrix A(2, 2); // first object: triggers FLA_Init
    volatile double tiny = DBL_MIN;
    volatile double half = 0.5;
    const double sub = tiny * half; // flushed to zero under FTZ
    EXPECT_NE(sub, 0.0);
    EXPECT_EQ(std::fpclassify(sub), FP_SUBNORMAL);
    volatile double denormal_in = DBL_MIN / 4;
    EXPECT_NE(denormal_in * 2.0, 0.0); // DAZ would read the operand as zero
}

TEST(FlameObjects, MatrixIsAnFlaObjectAndViewsMapToFlaViews)
{
    Matrix A(5, 4);
    for (long j = 0; j < 4; ++j)
        for (long i = 0; i < 5; ++i) A(i, j) = static_cast<double>(i + 10 * j);
    Obj sub = A.view().sub(1, 2, 3, 2);
    FLA_Obj obj = fla::to_fla(sub);
    EXPECT_EQ(FLA_Obj_length(obj), 3u);
    EXPECT_EQ(FLA_Obj_width(obj), 2u);
    const double* at = static_cast<double*>(FLA_Obj_buffer_at_view(obj));
    EXPECT_EQ(at, &A(1, 2));
    EXPECT_EQ(FLA_Obj_col_stride(obj), static_cast<::dim_t>(A.view().col_stride()));
}

TEST(FlameObjects, CopiesAreDeepAndMovesTransferOwnership)
{
    Matrix A(3, 3);
    A(1, 1) = 4.0;
    Matrix B = A;
    B(1, 1) = 5.0;
    EXPECT_EQ(A(1, 1), 4.0);
    Matrix C = std::move(B);
    EXPECT_EQ(C(1, 1), 5.0);
    EXPECT_EQ(B.length(), 0);
}

TEST(FlameObjects, PivotsConvertBetweenFlameAndLapackConventions)
{
    Pivots p(4);
    p[0] = 2; p[1] = 0; p[2] = 1; p[3] = 0;
    EXPECT_EQ(p.to_lapack(), (std::vector<int>{3, 2, 4, 4}));
    Pivots q = Pivots::from_lapack({3, 2, 4, 4});
    for (long i = 0; i < 4; ++i) EXPECT_EQ(q[i], p[i]);
    EXPECT_THROW(Pivots::from_lapack({1, 1}), Error);
}

TEST(FlameObjects, ApplyPivotsMatchesLibflame)
{
    Matrix A(6, 3), B(6, 3);
    for (long j = 0; j < 3; ++j)
        for (long i = 0; i < 6; ++i) A(i, j) = B(i, j) = static_cast<double>(i * 3 + j);
    Pivots p(4);
    p[0] = 3; p[1] = 0; p[2] = 2; p[3] = 1;
    flamex::apply_pivots_reference(p, A);
    FLA_Apply_pivots(FLA_LEFT, FLA_NO_TRANSPOSE, fla::to_fla(p.view()), fla::to_fla(B.view()));
    for (long j = 0; j < 3; ++j)
        for (long i = 0; i < 6; ++i) EXPECT_EQ(A(i, j), B(i, j));
}
