// libFuzzer target: arbitrary bytes -> two equal-length double arrays with
// strides; exact::exact_dot, exact::exact_sum (with each first level forced too)
// and the `exact` backend's dot against MPFR's correctly rounded value (tests/support/exact_blas_reference.hpp),
// bit for bit; any mismatch prints the case and aborts.
//
// Input format (everything after the header is consumed pair by pair):
//   byte 0  bits 0-1  encoding of the elements
//             0  raw: x_i, y_i as 8-byte little-endian doubles (16 bytes a pair):
//                every bit pattern, NaN, inf, subnormals included
//             1  compact: 3 bytes an element: sign (bit 7) and exponent offset
//                (bits 0-6) in the first, 16 significand bits in the next two:
//                (1 + m / 2^16) 2^(base + offset - 64)
//             2  narrow: 2 bytes an element, 8 significand bits: many equal
//                magnitudes, exact cancellations, ties
//             3  x compact (3 bytes), y a signed power of two (1 byte):
//                sums of scaled x's, ties at every binade
//           bits 2-4  incx, bits 5-7  incy: one of {1, 2, 3, -1, -2, 0, 1, 5}
//                (exact_dot's pointer-arithmetic strides; the backend sees the
//                same logical vectors through views with stride |inc| or 1)
//   byte 1  base exponent for the compact encodings: -1100 + byte * 2150 / 255
// At most 2048 pairs are used.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "blas/backend_factories.hpp"
#include "blas/blas.hpp"
#include "exact/exact.hpp"
#include "exact/first_level.hpp"
#include "support/exact_blas_reference.hpp"
#include "support/exact_kernel_paths.hpp"

namespace {

namespace exref = flamex::test::exref;
using flamex::exact::index_t;

constexpr int STRIDES[8] = {1, 2, 3, -1, -2, 0, 1, 5};
constexpr std::size_t MAX_PAIRS = 2048;

double raw(const std::uint8_t* p)
{
    std::uint64_t b = 0;
    for (int i = 7; i >= 0; --i) b = (b << 8) | p[i];
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
}

double compact3(const std::uint8_t* p, int base)
{
    const int e = base + (p[0] & 0x7f) - 64;
    const double m = 1.0 + static_cast<double>((p[1] << 8) | p[2]) / 65536.0;
    const double v = std::ldexp(m, e); // may round to a subnormal, 0 or overflow to inf: still just data
    return (p[0] & 0x80) ? -v : v;
}

double narrow2(const std::uint8_t* p, int base)
{
    const int e = base + (p[0] & 0x7f) - 64;
    const double v = std::ldexp(1.0 + p[1] / 256.0, e);
    return (p[0] & 0x80) ? -v : v;
}

double power1(std::uint8_t b)
{
    const double v = std::ldexp(1.0, (b & 0x7f) - 64);
    return (b & 0x80) ? -v : v;
}

// Element i of a strided array lives at ptr[i * inc]; build the buffer and the
// pointer for the logical vector v (inc == 0: every element is v[0]).
struct Strided {
    std::vector<double> buffer;
    const double* ptr = nullptr;
};

Strided lay_out(const std::vector<double>& v, int inc)
{
    Strided s;
    const std::size_t n = v.size();
    const std::size_t step = static_cast<std::size_t>(inc < 0 ? -inc : inc);
    s.buffer.assign(n == 0 ? 1 : (n - 1) * step + 1, std::numeric_limits<double>::quiet_NaN());
    const std::size_t origin = inc < 0 && n > 0 ? (n - 1) * step : 0;
    for (std::size_t i = 0; i < n; ++i)
        s.buffer[static_cast<std::size_t>(static_cast<std::ptrdiff_t>(origin) + static_cast<std::ptrdiff_t>(i) * inc)] = v[i];
    s.ptr = s.buffer.data() + origin;
    return s;
}

[[noreturn]] void mismatch(const char* what, double got, double want, const std::vector<double>& x,
                           const std::vector<double>& y, int incx, int incy)
{
    std::fprintf(stderr, "fuzz_exdot: %s = %a, MPFR says %a (n = %zu, incx = %d, incy = %d)\n", what, got, want,
                 x.size(), incx, incy);
    for (std::size_t i = 0; i < x.size() && i < 64; ++i) std::fprintf(stderr, "  x[%zu] = %a  y[%zu] = %a\n", i, x[i], i, y[i]);
    std::abort();
}

// The 2-thread backend splits every dot (threshold 1 product instead of 2^17, which
// no input of at most MAX_PAIRS pairs would reach); each 2-thread call checks it did.
const flamex::Blas& backend(int threads)
{
    static std::unique_ptr<flamex::Blas> one = flamex::make_backend("exact", {1, 0, ""});
    static std::unique_ptr<flamex::Blas> two = [] {
        ::setenv("FLAMEX_EXACT_PARALLEL_MIN", "1", 1);
        auto b = flamex::make_backend("exact", {2, 0, ""});
        ::unsetenv("FLAMEX_EXACT_PARALLEL_MIN");
        return b;
    }();
    return threads == 1 ? *one : *two;
}

// The logical vector v as a backend view: a row of a |inc| x n matrix (stride |inc|)
// or, for inc <= 1, an n x 1 column; the rest of the storage is NaN.
flamex::Matrix as_view_storage(const std::vector<double>& v, int inc, flamex::Obj& view)
{
    const flamex::dim_t n = static_cast<flamex::dim_t>(v.size());
    const int s = inc < 0 ? -inc : inc;
    if (s <= 1) {
        flamex::Matrix M(n, 1);
        view = M.view();
        for (flamex::dim_t i = 0; i < n; ++i) view[i] = v[static_cast<std::size_t>(i)];
        return M;
    }
    flamex::Matrix M(s, n);
    for (flamex::dim_t j = 0; j < n; ++j)
        for (flamex::dim_t i = 0; i < s; ++i) M(i, j) = std::numeric_limits<double>::quiet_NaN();
    view = M.view().sub(s - 1, 0, 1, n);
    for (flamex::dim_t i = 0; i < n; ++i) view[i] = v[static_cast<std::size_t>(i)];
    return M;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 2) return 0;
    const int encoding = data[0] & 3;
    const int incx = STRIDES[(data[0] >> 2) & 7], incy = STRIDES[(data[0] >> 5) & 7];
    const int base = -1100 + data[1] * 2150 / 255;
    const std::uint8_t* p = data + 2;
    const std::size_t left = size - 2;
    constexpr std::size_t PAIR_BYTES[4] = {16, 6, 4, 4};
    const std::size_t pair_bytes = PAIR_BYTES[encoding];
    std::size_t n = left / pair_bytes;
    if (n > MAX_PAIRS) n = MAX_PAIRS;
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i, p += pair_bytes) {
        switch (encoding) {
        case 0: x[i] = raw(p); y[i] = raw(p + 8); break;
        case 1: x[i] = compact3(p, base); y[i] = compact3(p + 3, base); break;
        case 2: x[i] = narrow2(p, base); y[i] = narrow2(p + 2, base); break;
        default: x[i] = compact3(p, base); y[i] = power1(p[3]); break;
        }
    }
    // The logical vectors exact_dot sees (a zero stride repeats element 0).
    if (incx == 0) for (double& v : x) v = x.empty() ? 0.0 : x[0];
    if (incy == 0) for (double& v : y) v = y.empty() ? 0.0 : y[0];

    exref::ExactValue dot, sum;
    for (std::size_t i = 0; i < n; ++i) {
        dot.add_product(x[i], y[i]);
        sum.add(x[i]);
    }
    if (!dot.exact() || !sum.exact()) {
        std::fprintf(stderr, "fuzz_exdot: the MPFR reference rounded (a bug of the harness)\n");
        std::abort();
    }
    const double want_dot = dot.to_double(), want_sum = sum.to_double();

    const Strided xs = lay_out(x, incx), ys = lay_out(y, incy);
    const index_t len = static_cast<index_t>(n);
    const double got = flamex::exact::exact_dot(len, xs.ptr, incx, ys.ptr, incy);
    if (!exref::same_double(got, want_dot)) mismatch("exact_dot", got, want_dot, x, y, incx, incy);
    const double got_sum = flamex::exact::exact_sum(len, xs.ptr, incx);
    if (!exref::same_double(got_sum, want_sum)) mismatch("exact_sum", got_sum, want_sum, x, y, incx, incy);
    // Each first level forced in turn (exact/first_level.hpp; the calls above ran
    // the adaptive choice) on every kernel set (their radix paths differ: TwoProd
    // pairs, integer products).
    using flamex::exact::detail::FirstLevel;
    for (const FirstLevel level : {FirstLevel::Folds, FirstLevel::Radix, FirstLevel::Alternate}) {
        const flamex::exact::detail::ScopedFirstLevel forced(level);
        for (const auto& k : flamex::test::kernel_sets()) {
            const double forced_dot = flamex::test::kernel_dot(k, len, xs.ptr, incx, ys.ptr, incy);
            if (!exref::same_double(forced_dot, want_dot))
                mismatch((std::string(k.isa) + " dot, a forced first level").c_str(), forced_dot, want_dot, x, y, incx, incy);
            const double forced_sum = flamex::test::kernel_sum(k, len, xs.ptr, incx);
            if (!exref::same_double(forced_sum, want_sum))
                mismatch((std::string(k.isa) + " sum, a forced first level").c_str(), forced_sum, want_sum, x, y, incx, incy);
        }
    }

    if (n > 0) {
        flamex::Obj xv, yv;
        const flamex::Matrix xm = as_view_storage(x, incx, xv), ym = as_view_storage(y, incy, yv);
        const int threads = 1 + (data[1] & 1);
        const flamex::Blas& blas = backend(threads);
        const std::uint64_t splits = flamex::exact_backend_parallel_runs();
        const double got_backend = blas.dot(xv, yv);
        if (threads == 2 && flamex::exact_backend_parallel_runs() == splits) {
            std::fprintf(stderr, "fuzz_exdot: the 2-thread backend dot did not split (n = %zu)\n", x.size());
            std::abort();
        }
        if (!exref::same_double(got_backend, want_dot))
            mismatch(threads == 1 ? "backend dot (1 thread)" : "backend dot (2 threads)", got_backend, want_dot, x, y,
                     incx, incy);
    }
    return 0;
}
