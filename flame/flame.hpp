// The FLAME object layer: owned matrices and pivot vectors on libflame's FLA_Obj,
// views into them, and the partition / repartition / continue-with idiom.
//
// A view is what FLA_Obj is: a base buffer plus an (offm, offn, m, n) window.
// Partitioning never copies; it only moves window boundaries, so a variant written
// with these functions reads like its FLAME worksheet and touches exactly the
// regions the worksheet names.
//
// FLAME.h never appears here (it does not compile as C++ before the standard
// headers and cannot share a translation unit with blis.h): see flame/libflame.hpp
// for the bridge to libflame's own routines.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace flamex {

using dim_t = std::int64_t;

// Every error the library reports on bad input or a failed environment (OpenCL
// platform, file, dimensions). Numerical failures such as a zero pivot are not
// exceptions: they are reported through LuInfo, as LAPACK's info.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct FlaBase; // libflame's FLA_Base_obj, opaque outside flame/

// A window (offm, offn, m, n) of a column-major base buffer with strides (rs, cs).
template <class T>
class View {
public:
    View() = default;
    View(T* base, dim_t rs, dim_t cs, dim_t offm, dim_t offn, dim_t m, dim_t n,
         FlaBase* owner = nullptr)
        : base_(base), rs_(rs), cs_(cs), offm_(offm), offn_(offn), m_(m), n_(n), owner_(owner) {}

    dim_t length() const { return m_; }
    dim_t width() const { return n_; }
    dim_t min_dim() const { return m_ < n_ ? m_ : n_; }
    bool empty() const { return m_ == 0 || n_ == 0; }
    dim_t row_stride() const { return rs_; }
    dim_t col_stride() const { return cs_; }
    dim_t offset_m() const { return offm_; }
    dim_t offset_n() const { return offn_; }

    // Address of element (0,0) of the window; the base buffer for backends that
    // address views as offsets (OpenCL device buffers).
    T* buffer() const { return base_ + offm_ * rs_ + offn_ * cs_; }
    T* base_buffer() const { return base_; }
    FlaBase* owner() const { return owner_; }

    T& operator()(dim_t i, dim_t j) const { return buffer()[i * rs_ + j * cs_]; }

    // The sub-window starting at (i, j) of size m x n; throws if it leaves this view.
    View sub(dim_t i, dim_t j, dim_t m, dim_t n) const
    {
        if (i < 0 || j < 0 || m < 0 || n < 0 || i + m > m_ || j + n > n_)
            throw Error("flame: sub-view (" + std::to_string(i) + "," + std::to_string(j) + ") of size " +
                        std::to_string(m) + "x" + std::to_string(n) + " leaves a " +
                        std::to_string(m_) + "x" + std::to_string(n_) + " view");
        return View(base_, rs_, cs_, offm_ + i, offn_ + j, m, n, owner_);
    }

    // Vectors are m x 1 or 1 x n views; the element stride follows the orientation.
    bool is_vector() const { return m_ == 1 || n_ == 1 || empty(); }
    dim_t vector_length() const { return empty() ? 0 : (n_ == 1 ? m_ : n_); }
    dim_t vector_inc() const { return n_ == 1 ? rs_ : cs_; }
    T& operator[](dim_t k) const { return buffer()[k * vector_inc()]; }

private:
    T* base_ = nullptr;
    dim_t rs_ = 1, cs_ = 1;
    dim_t offm_ = 0, offn_ = 0, m_ = 0, n_ = 0;
    FlaBase* owner_ = nullptr;
};

using Obj = View<double>;
using PivObj = View<int>; // FLAME pivots: 0-based offsets relative to the pivot row

// A column-major m x n double matrix owned through libflame (FLA_Obj_create).
class Matrix {
public:
    Matrix() = default;
    Matrix(dim_t m, dim_t n);
    Matrix(dim_t m, dim_t n, const std::vector<double>& column_major);
    Matrix(const Matrix& other);
    Matrix& operator=(const Matrix& other);
    Matrix(Matrix&& other) noexcept;
    Matrix& operator=(Matrix&& other) noexcept;
    ~Matrix();

    Obj view() const { return view_; }
    operator Obj() const { return view_; }
    dim_t length() const { return view_.length(); }
    dim_t width() const { return view_.width(); }
    double& operator()(dim_t i, dim_t j) const { return view_(i, j); }

private:
    void release() noexcept;
    Obj view_;
};

// A pivot vector of k entries owned through libflame (FLA_INT). Entry i is FLAME's
// offset: row i was swapped with row i + p[i]. LAPACK's convention (1-based absolute
// row indices, ipiv[i] = i + p[i] + 1) is what files carry.
class Pivots {
public:
    Pivots() = default;
    explicit Pivots(dim_t k);
    Pivots(const Pivots& other);
    Pivots& operator=(const Pivots& other);
    Pivots(Pivots&& other) noexcept;
    Pivots& operator=(Pivots&& other) noexcept;
    ~Pivots();

    PivObj view() const { return view_; }
    operator PivObj() const { return view_; }
    dim_t size() const { return view_.length(); }
    int& operator[](dim_t i) const { return view_(i, 0); }

    std::vector<int> to_lapack() const;
    static Pivots from_lapack(const std::vector<int>& ipiv);

private:
    void release() noexcept;
    PivObj view_;
};

// Row interchanges as FLA_Apply_pivots(FLA_LEFT, FLA_NO_TRANSPOSE): for i = 0..k-1,
// swap rows i and i + p[i] of A. The host reference; backends have their own.
void apply_pivots_reference(PivObj p, Obj A);

// ---------------------------------------------------------------------------------
// Partitioning. Sides name where the partition starts (part_*), which block the
// repartition takes the new A11 from (repart_*), and where it joins (cont_with_*).

enum class Quadrant { TL, TR, BL, BR };
enum class Side { Top, Bottom, Left, Right };
inline constexpr Quadrant TL = Quadrant::TL, TR = Quadrant::TR, BL = Quadrant::BL, BR = Quadrant::BR;
inline constexpr Side TOP = Side::Top, BOTTOM = Side::Bottom, LEFT = Side::Left, RIGHT = Side::Right;

namespace detail {
[[noreturn]] void partition_error(const char* what);
template <class T>
void check_adjacent(bool ok, const char* what)
{
    if (!ok) partition_error(what);
}
} // namespace detail

// ( ATL ATR ; ABL ABR ) with the named quadrant of size mb x nb.
template <class T>
std::tuple<View<T>, View<T>, View<T>, View<T>> part_2x2(View<T> A, dim_t mb, dim_t nb, Quadrant q)
{
    if (mb < 0 || nb < 0 || mb > A.length() || nb > A.width()) detail::partition_error("part_2x2: block larger than the matrix");
    const dim_t mt = (q == TL || q == TR) ? mb : A.length() - mb;
    const dim_t nl = (q == TL || q == BL) ? nb : A.width() - nb;
    const dim_t mbot = A.length() - mt, nr = A.width() - nl;
    return {A.sub(0, 0, mt, nl), A.sub(0, nl, mt, nr), A.sub(mt, 0, mbot, nl), A.sub(mt, nl, mbot, nr)};
}

// ( AT ; AB ) with the named side holding mb rows.
template <class T>
std::tuple<View<T>, View<T>> part_2x1(View<T> A, dim_t mb, Side s)
{
    if (mb < 0 || mb > A.length() || (s != TOP && s != BOTTOM)) detail::partition_error("part_2x1: bad block or side");
    const dim_t mt = s == TOP ? mb : A.length() - mb;
    return {A.sub(0, 0, mt, A.width()), A.sub(mt, 0, A.length() - mt, A.width())};
}

// ( AL AR ) with the named side holding nb columns.
template <class T>
std::tuple<View<T>, View<T>> part_1x2(View<T> A, dim_t nb, Side s)
{
    if (nb < 0 || nb > A.width() || (s != LEFT && s != RIGHT)) detail::partition_error("part_1x2: bad block or side");
    const dim_t nl = s == LEFT ? nb : A.width() - nb;
    return {A.sub(0, 0, A.length(), nl), A.sub(0, nl, A.length(), A.width() - nl)};
}

// ( ATL ATR ; ABL ABR ) -> ( A00 A01 A02 ; A10 A11 A12 ; A20 A21 A22 ), A11 of size
// mb x nb taken from the named quadrant (BR: the algorithm moves to the bottom-right).
template <class T>
std::tuple<View<T>, View<T>, View<T>, View<T>, View<T>, View<T>, View<T>, View<T>, View<T>>
repart_2x2_to_3x3(View<T> ATL, View<T> ATR, View<T> ABL, View<T> ABR, dim_t mb, dim_t nb, Quadrant q)
{
    detail::check_adjacent<T>(ATL.length() == ATR.length() && ABL.length() == ABR.length() &&
                                  ATL.width() == ABL.width() && ATR.width() == ABR.width(),
                              "repart_2x2_to_3x3: the four quadrants do not form a matrix");
    const dim_t m = ATL.length() + ABL.length(), n = ATL.width() + ATR.width();
    const bool top = q == TL || q == TR, left = q == TL || q == BL;
    if (mb < 0 || nb < 0 || mb > (top ? ATL.length() : ABL.length()) || nb > (left ? ATL.width() : ATR.width()))
        detail::partition_error("repart_2x2_to_3x3: block larger than the quadrant it is taken from");
    // Rebuild the whole matrix from TL's window and cut it at the new boundaries.
    View<T> A = View<T>(ATL.base_buffer(), ATL.row_stride(), ATL.col_stride(), ATL.offset_m(), ATL.offset_n(), m, n,
                        ATL.owner());
    const dim_t m0 = top ? ATL.length() - mb : ATL.length();
    const dim_t n0 = left ? ATL.width() - nb : ATL.width();
    const dim_t m2 = m - m0 - mb, n2 = n - n0 - nb;
    return {A.sub(0, 0, m0, n0),        A.sub(0, n0, m0, nb),        A.sub(0, n0 + nb, m0, n2),
            A.sub(m0, 0, mb, n0),       A.sub(m0, n0, mb, nb),       A.sub(m0, n0 + nb, mb, n2),
            A.sub(m0 + mb, 0, m2, n0),  A.sub(m0 + mb, n0, m2, nb),  A.sub(m0 + mb, n0 + nb, m2, n2)};
}

// ( AT ; AB ) -> ( A0 ; A1 ; A2 ), A1 of mb rows taken from the named side.
template <class T>
std::tuple<View<T>, View<T>, View<T>> repart_2x1_to_3x1(View<T> AT, View<T> AB, dim_t mb, Side s)
{
    detail::check_adjacent<T>(AT.width() == AB.width(), "repart_2x1_to_3x1: AT and AB differ in width");
    if (mb < 0 || (s == TOP && mb > AT.length()) || (s == BOTTOM && mb > AB.length()) || (s != TOP && s != BOTTOM))
        detail::partition_error("repart_2x1_to_3x1: bad block or side");
    View<T> A(AT.base_buffer(), AT.row_stride(), AT.col_stride(), AT.offset_m(), AT.offset_n(),
              AT.length() + AB.length(), AT.width(), AT.owner());
    const dim_t m0 = s == TOP ? AT.length() - mb : AT.length();
    return {A.sub(0, 0, m0, A.width()), A.sub(m0, 0, mb, A.width()), A.sub(m0 + mb, 0, A.length() - m0 - mb, A.width())};
}

// ( AL AR ) -> ( A0 A1 A2 ), A1 of nb columns taken from the named side.
template <class T>
std::tuple<View<T>, View<T>, View<T>> repart_1x2_to_1x3(View<T> AL, View<T> AR, dim_t nb, Side s)
{
    detail::check_adjacent<T>(AL.length() == AR.length(), "repart_1x2_to_1x3: AL and AR differ in length");
    if (nb < 0 || (s == LEFT && nb > AL.width()) || (s == RIGHT && nb > AR.width()) || (s != LEFT && s != RIGHT))
        detail::partition_error("repart_1x2_to_1x3: bad block or side");
    View<T> A(AL.base_buffer(), AL.row_stride(), AL.col_stride(), AL.offset_m(), AL.offset_n(), AL.length(),
              AL.width() + AR.width(), AL.owner());
    const dim_t n0 = s == LEFT ? AL.width() - nb : AL.width();
    return {A.sub(0, 0, A.length(), n0), A.sub(0, n0, A.length(), nb), A.sub(0, n0 + nb, A.length(), A.width() - n0 - nb)};
}

// ( A00 A01 A02 ; A10 A11 A12 ; A20 A21 A22 ) -> ( ATL ATR ; ABL ABR ), A11 joining
// the named quadrant.
template <class T>
std::tuple<View<T>, View<T>, View<T>, View<T>>
cont_with_3x3_to_2x2(View<T> A00, View<T> A01, View<T> A02, View<T> A10, View<T> A11, View<T> A12, View<T> A20,
                     View<T> A21, View<T> A22, Quadrant q)
{
    (void)A02; (void)A10; (void)A12; (void)A20; (void)A21;
    detail::check_adjacent<T>(A00.length() == A01.length() && A11.length() == A10.length() && A22.length() == A21.length() &&
                                  A00.width() == A10.width() && A11.width() == A01.width() && A22.width() == A12.width(),
                              "cont_with_3x3_to_2x2: the nine blocks do not form a matrix");
    const dim_t m = A00.length() + A11.length() + A22.length(), n = A00.width() + A11.width() + A22.width();
    View<T> A(A00.base_buffer(), A00.row_stride(), A00.col_stride(), A00.offset_m(), A00.offset_n(), m, n, A00.owner());
    const bool top = q == TL || q == TR, left = q == TL || q == BL;
    const dim_t mt = A00.length() + (top ? A11.length() : 0);
    const dim_t nl = A00.width() + (left ? A11.width() : 0);
    return {A.sub(0, 0, mt, nl), A.sub(0, nl, mt, n - nl), A.sub(mt, 0, m - mt, nl), A.sub(mt, nl, m - mt, n - nl)};
}

// ( A0 ; A1 ; A2 ) -> ( AT ; AB ), A1 joining the named side.
template <class T>
std::tuple<View<T>, View<T>> cont_with_3x1_to_2x1(View<T> A0, View<T> A1, View<T> A2, Side s)
{
    detail::check_adjacent<T>(A0.width() == A1.width() && A1.width() == A2.width(), "cont_with_3x1_to_2x1: blocks differ in width");
    const dim_t m = A0.length() + A1.length() + A2.length();
    View<T> A(A0.base_buffer(), A0.row_stride(), A0.col_stride(), A0.offset_m(), A0.offset_n(), m, A0.width(), A0.owner());
    const dim_t mt = A0.length() + (s == TOP ? A1.length() : 0);
    return {A.sub(0, 0, mt, A.width()), A.sub(mt, 0, m - mt, A.width())};
}

// ( A0 A1 A2 ) -> ( AL AR ), A1 joining the named side.
template <class T>
std::tuple<View<T>, View<T>> cont_with_1x3_to_1x2(View<T> A0, View<T> A1, View<T> A2, Side s)
{
    detail::check_adjacent<T>(A0.length() == A1.length() && A1.length() == A2.length(), "cont_with_1x3_to_1x2: blocks differ in length");
    const dim_t n = A0.width() + A1.width() + A2.width();
    View<T> A(A0.base_buffer(), A0.row_stride(), A0.col_stride(), A0.offset_m(), A0.offset_n(), A0.length(), n, A0.owner());
    const dim_t nl = A0.width() + (s == LEFT ? A1.width() : 0);
    return {A.sub(0, 0, A.length(), nl), A.sub(0, nl, A.length(), n - nl)};
}

// The views ( A ; B ) and ( A B ) stacked / side by side, for updates such as
// ( a01 ; alpha11 ; a21 ) := P(p0) ( a01 ; alpha11 ; a21 ).
template <class T>
View<T> merge_2x1(View<T> AT, View<T> AB)
{
    detail::check_adjacent<T>(AT.width() == AB.width() && AT.base_buffer() == AB.base_buffer() &&
                                  AT.offset_n() == AB.offset_n() && AT.offset_m() + AT.length() == AB.offset_m(),
                              "merge_2x1: views are not vertically adjacent");
    return View<T>(AT.base_buffer(), AT.row_stride(), AT.col_stride(), AT.offset_m(), AT.offset_n(),
                   AT.length() + AB.length(), AT.width(), AT.owner());
}

template <class T>
View<T> merge_1x2(View<T> AL, View<T> AR)
{
    detail::check_adjacent<T>(AL.length() == AR.length() && AL.base_buffer() == AR.base_buffer() &&
                                  AL.offset_m() == AR.offset_m() && AL.offset_n() + AL.width() == AR.offset_n(),
                              "merge_1x2: views are not horizontally adjacent");
    return View<T>(AL.base_buffer(), AL.row_stride(), AL.col_stride(), AL.offset_m(), AL.offset_n(), AL.length(),
                   AL.width() + AR.width(), AL.owner());
}

template <class T, class... Rest>
View<T> merge_2x1(View<T> A0, View<T> A1, Rest... rest)
{
    return merge_2x1(merge_2x1(A0, A1), rest...);
}

template <class T, class... Rest>
View<T> merge_1x2(View<T> A0, View<T> A1, Rest... rest)
{
    return merge_1x2(merge_1x2(A0, A1), rest...);
}

} // namespace flamex
