#include "flame/libflame.hpp"

#include <algorithm>
#include <mutex>
#include <utility>

namespace flamex {

// FlaBase is never defined: a FlaBase* is an FLA_Base_obj* kept opaque.

namespace fla {

void ensure_initialized()
{
    static std::once_flag once;
    std::call_once(once, [] {
        std::fenv_t saved;
        std::fegetenv(&saved);
        FLA_Init();
        std::fesetenv(&saved);
    });
}

namespace {
template <class T>
FLA_Obj view_to_fla(View<T> A)
{
    if (A.owner() == nullptr) throw Error("flame: view is not backed by a libflame object");
    FLA_Obj obj;
    obj.offm = static_cast<::dim_t>(A.offset_m());
    obj.offn = static_cast<::dim_t>(A.offset_n());
    obj.m = static_cast<::dim_t>(A.length());
    obj.n = static_cast<::dim_t>(A.width());
    obj.m_inner = obj.m;
    obj.n_inner = obj.n;
    obj.base = reinterpret_cast<FLA_Base_obj*>(A.owner());
    return obj;
}

template <class T>
View<T> create(FLA_Datatype type, dim_t m, dim_t n)
{
    if (m < 0 || n < 0) throw Error("flame: negative dimensions " + std::to_string(m) + "x" + std::to_string(n));
    ensure_initialized();
    FLA_Obj obj;
    // libflame aborts on failure instead of returning: validate the arguments first.
    if (FLA_Obj_create(type, static_cast<::dim_t>(m), static_cast<::dim_t>(n), 0, 0, &obj) != FLA_SUCCESS)
        throw Error("flame: FLA_Obj_create failed for " + std::to_string(m) + "x" + std::to_string(n));
    auto* buf = static_cast<T*>(FLA_Obj_buffer_at_view(obj));
    return View<T>(buf, static_cast<dim_t>(FLA_Obj_row_stride(obj)), static_cast<dim_t>(FLA_Obj_col_stride(obj)), 0, 0,
                   m, n, reinterpret_cast<FlaBase*>(obj.base));
}

template <class T>
void destroy(View<T>& v) noexcept
{
    if (v.owner() == nullptr) return;
    FLA_Obj obj = view_to_fla(v);
    FLA_Obj_free(&obj);
    v = View<T>();
}

template <class T>
void copy_contents(View<T> from, View<T> to)
{
    for (dim_t j = 0; j < from.width(); ++j)
        for (dim_t i = 0; i < from.length(); ++i) to(i, j) = from(i, j);
}
} // namespace

FLA_Obj to_fla(Obj A) { return view_to_fla(A); }
FLA_Obj to_fla(PivObj p) { return view_to_fla(p); }

} // namespace fla

// --- Matrix ---------------------------------------------------------------------

Matrix::Matrix(dim_t m, dim_t n) : view_(fla::create<double>(FLA_DOUBLE, m, n))
{
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) view_(i, j) = 0.0;
}

Matrix::Matrix(dim_t m, dim_t n, const std::vector<double>& column_major) : Matrix(m, n)
{
    if (static_cast<dim_t>(column_major.size()) != m * n)
        throw Error("flame: " + std::to_string(column_major.size()) + " values given for a " + std::to_string(m) + "x" +
                    std::to_string(n) + " matrix");
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) view_(i, j) = column_major[static_cast<size_t>(i + j * m)];
}

Matrix::Matrix(const Matrix& other) : Matrix(other.length(), other.width())
{
    fla::copy_contents(other.view_, view_);
}

Matrix& Matrix::operator=(const Matrix& other)
{
    if (this != &other) {
        Matrix copy(other);
        *this = std::move(copy);
    }
    return *this;
}

Matrix::Matrix(Matrix&& other) noexcept : view_(std::exchange(other.view_, Obj())) {}

Matrix& Matrix::operator=(Matrix&& other) noexcept
{
    if (this != &other) {
        release();
        view_ = std::exchange(other.view_, Obj());
    }
    return *this;
}

Matrix::~Matrix() { release(); }
void Matrix::release() noexcept { fla::destroy(view_); }

// --- Pivots ---------------------------------------------------------------------

Pivots::Pivots(dim_t k) : view_(fla::create<int>(FLA_INT, k, 1))
{
    for (dim_t i = 0; i < k; ++i) view_(i, 0) = 0;
}

Pivots::Pivots(const Pivots& other) : Pivots(other.size()) { fla::copy_contents(other.view_, view_); }

Pivots& Pivots::operator=(const Pivots& other)
{
    if (this != &other) {
        Pivots copy(other);
        *this = std::move(copy);
    }
    return *this;
}

Pivots::Pivots(Pivots&& other) noexcept : view_(std::exchange(other.view_, PivObj())) {}

Pivots& Pivots::operator=(Pivots&& other) noexcept
{
    if (this != &other) {
        release();
        view_ = std::exchange(other.view_, PivObj());
    }
    return *this;
}

Pivots::~Pivots() { release(); }
void Pivots::release() noexcept { fla::destroy(view_); }

std::vector<int> Pivots::to_lapack() const
{
    std::vector<int> ipiv(static_cast<size_t>(size()));
    for (dim_t i = 0; i < size(); ++i) ipiv[static_cast<size_t>(i)] = static_cast<int>(i) + (*this)[i] + 1;
    return ipiv;
}

Pivots Pivots::from_lapack(const std::vector<int>& ipiv)
{
    Pivots p(static_cast<dim_t>(ipiv.size()));
    for (dim_t i = 0; i < p.size(); ++i) {
        const int row = ipiv[static_cast<size_t>(i)];
        if (row < i + 1) // LAPACK's getrf only ever swaps with a row at or below the pivot row
            throw Error("pivots: LAPACK pivot " + std::to_string(row) + " at position " + std::to_string(i + 1) +
                        " points above its row");
        p[i] = row - 1 - static_cast<int>(i);
    }
    return p;
}

} // namespace flamex
