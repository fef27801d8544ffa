#include "support/backend_checks.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <utility>

#include "blas/backend_factories.hpp"

namespace flamex::test {

namespace {

double guard_value()
{
    double d;
    std::memcpy(&d, &GUARD_BITS, sizeof d);
    return d;
}

std::uint64_t bits(double d)
{
    std::uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

} // namespace

Guarded::Guarded(dim_t m, dim_t n, dim_t margin)
    : storage_(m + 2 * margin, n + 2 * margin), margin_(margin)
{
    const Obj s = storage_.view();
    for (dim_t j = 0; j < s.width(); ++j)
        for (dim_t i = 0; i < s.length(); ++i) s(i, j) = guard_value();
    view_ = s.sub(margin, margin, m, n);
    for (dim_t j = 0; j < n; ++j)
        for (dim_t i = 0; i < m; ++i) view_(i, j) = 0.0;
}

Guarded::Guarded(Obj A, dim_t margin) : Guarded(A.length(), A.width(), margin)
{
    for (dim_t j = 0; j < A.width(); ++j)
        for (dim_t i = 0; i < A.length(); ++i) view_(i, j) = A(i, j);
}

std::string Guarded::damage() const
{
    std::ostringstream out;
    const Obj s = storage_.view();
    for (dim_t j = 0; j < s.width(); ++j)
        for (dim_t i = 0; i < s.length(); ++i) {
            const bool inside =
                i >= margin_ && i < margin_ + view_.length() && j >= margin_ && j < margin_ + view_.width();
            if (!inside && bits(s(i, j)) != GUARD_BITS) out << " (" << i << ", " << j << ") = " << s(i, j);
        }
    return out.str();
}

ExpectThreadsSplit::ExpectThreadsSplit(std::string what)
    : what_(std::move(what)), before_(exact_backend_parallel_runs())
{
}

ExpectThreadsSplit::~ExpectThreadsSplit()
{
    EXPECT_GT(exact_backend_parallel_runs(), before_) << what_ << ": the exact backend never split work among threads";
}

namespace {

std::unique_ptr<Blas> exact_backend_with(const char* path_variable, const char* path, int threads)
{
    ::setenv("FLAMEX_EXACT_PARALLEL_MIN", "1", 1);
    ::setenv(path_variable, path, 1);
    auto backend = make_backend("exact", {threads, 0, ""});
    ::unsetenv("FLAMEX_EXACT_PARALLEL_MIN");
    ::unsetenv(path_variable);
    return backend;
}

} // namespace

std::string describe(BackendConfig c)
{
    return "threads " + std::to_string(c.threads) + ", block " + std::to_string(c.block);
}

const Blas& cached_backend(const std::string& name, BackendConfig c)
{
    static const bool lowered = (::setenv("FLAMEX_EXACT_PARALLEL_MIN", "1", 1), true);
    (void)lowered;
    static std::map<std::string, std::unique_ptr<Blas>> made;
    std::unique_ptr<Blas>& slot = made[name + "/" + describe(c)];
    if (!slot) slot = make_backend(name, {c.threads, c.block, ""});
    return *slot;
}

SplitPathBackends::SplitPathBackends(const char* path_variable)
    : split1_(exact_backend_with(path_variable, "always", 1)), split2_(exact_backend_with(path_variable, "always", 2)),
      elementwise_(exact_backend_with(path_variable, "never", 1))
{
}

} // namespace flamex::test
