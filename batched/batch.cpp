// The batch container, names of methods / statuses / precisions, defaults, the
// precision conversion and the summary statistics: see batched/batched.hpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "batched/batched.hpp"

namespace flamex::batched {

template <class T>
Batch<T>::Batch(int n_, std::size_t count_) : n(n_), count(count_)
{
    if (n_ < 1 || n_ > kMaxOrder)
        throw Error("batch: order n = " + std::to_string(n_) + " is out of range [1, " + std::to_string(kMaxOrder) + "]");
    const std::size_t nn = static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_);
    if (count_ > std::numeric_limits<std::size_t>::max() / (nn * sizeof(T) + n_ * sizeof(T)))
        throw Error("batch: " + std::to_string(count_) + " systems of order " + std::to_string(n_) + " do not fit in memory");
    A.assign(count_ * nn, T(0));
    y.assign(count_ * static_cast<std::size_t>(n_), T(0));
}

template struct Batch<float>;
template struct Batch<double>;

template <class T>
InterleavedBatch<T>::InterleavedBatch(int n_, std::size_t count_) : n(n_), count(count_)
{
    if (n_ < 1 || n_ > kMaxOrder)
        throw Error("interleaved batch: order n = " + std::to_string(n_) + " is out of range [1, " + std::to_string(kMaxOrder) + "]");
    const std::size_t per_block = (static_cast<std::size_t>(packed_size(n_)) + n_) * kBlock;
    if (count_ > std::numeric_limits<std::size_t>::max() / (per_block * sizeof(T)) * kBlock - kBlock)
        throw Error("interleaved batch: " + std::to_string(count_) + " systems of order " + std::to_string(n_) + " do not fit in memory");
    A.assign(blocks() * packed_size(n_) * kBlock, T(0));
    y.assign(blocks() * n_ * kBlock, T(0));
}

template <class T>
void InterleavedBatch<T>::get(std::size_t k, T* matrix, T* rhs) const
{
    for (int j = 0; j < n; ++j) {
        for (int i = j; i < n; ++i) matrix[i + j * n] = matrix[j + i * n] = A[a_index(k, i, j)];
        rhs[j] = y[y_index(k, j)];
    }
}

template <class T>
void InterleavedBatch<T>::set(std::size_t k, const T* matrix, const T* rhs)
{
    for (int j = 0; j < n; ++j) {
        for (int i = j; i < n; ++i) A[a_index(k, i, j)] = matrix[i + j * n];
        y[y_index(k, j)] = rhs[j];
    }
}

template struct InterleavedBatch<float>;
template struct InterleavedBatch<double>;

template <class T>
InterleavedBatch<T> interleave(const Batch<T>& b)
{
    InterleavedBatch<T> out(b.n, b.count);
    for (std::size_t k = 0; k < b.count; ++k) out.set(k, b.matrix(k), b.rhs(k));
    return out;
}

template <class T>
Batch<T> deinterleave(const InterleavedBatch<T>& b)
{
    Batch<T> out(b.n, b.count);
    for (std::size_t k = 0; k < b.count; ++k) b.get(k, out.matrix(k), out.rhs(k));
    return out;
}

template InterleavedBatch<float> interleave<float>(const Batch<float>&);
template InterleavedBatch<double> interleave<double>(const Batch<double>&);
template Batch<float> deinterleave<float>(const InterleavedBatch<float>&);
template Batch<double> deinterleave<double>(const InterleavedBatch<double>&);

// The block width depends on the precision: system by system.
template <class To, class From>
InterleavedBatch<To> convert(const InterleavedBatch<From>& b)
{
    if constexpr (std::is_same_v<To, From>) {
        return b;
    } else {
        InterleavedBatch<To> out(b.n, b.count);
        for (std::size_t k = 0; k < b.count; ++k)
            for (int j = 0; j < b.n; ++j) {
                for (int i = j; i < b.n; ++i) out.A[out.a_index(k, i, j)] = static_cast<To>(b.A[b.a_index(k, i, j)]);
                out.y[out.y_index(k, j)] = static_cast<To>(b.y[b.y_index(k, j)]);
            }
        return out;
    }
}

template InterleavedBatch<float> convert<float, double>(const InterleavedBatch<double>&);
template InterleavedBatch<double> convert<double, float>(const InterleavedBatch<float>&);
template InterleavedBatch<float> convert<float, float>(const InterleavedBatch<float>&);
template InterleavedBatch<double> convert<double, double>(const InterleavedBatch<double>&);

template <class To, class From>
Batch<To> convert(const Batch<From>& b)
{
    Batch<To> out;
    out.n = b.n;
    out.count = b.count;
    out.A.assign(b.A.begin(), b.A.end());
    out.y.assign(b.y.begin(), b.y.end());
    return out;
}

template Batch<float> convert<float, double>(const Batch<double>&);
template Batch<double> convert<double, float>(const Batch<float>&);
template Batch<float> convert<float, float>(const Batch<float>&);
template Batch<double> convert<double, double>(const Batch<double>&);

const char* precision_name(Precision p) { return p == Precision::Single ? "single" : "double"; }

std::optional<Precision> parse_precision(std::string_view name)
{
    if (name == "single" || name == "float") return Precision::Single;
    if (name == "double") return Precision::Double;
    return std::nullopt;
}

const char* method_name(Method m)
{
    switch (m) {
    case Method::Ldlt: return "ldlt";
    case Method::HouseholderPcr: return "householder-pcr";
    case Method::DivideConquer: return "dc";
    case Method::Auto: return "auto";
    }
    return "?";
}

std::optional<Method> parse_method(std::string_view name)
{
    for (Method m : {Method::Ldlt, Method::HouseholderPcr, Method::DivideConquer, Method::Auto})
        if (name == method_name(m)) return m;
    return std::nullopt;
}

const char* status_name(Status s)
{
    switch (s) {
    case Status::Ok: return "ok";
    case Status::Breakdown: return "breakdown";
    case Status::Flagged: return "flagged";
    case Status::Repaired: return "repaired";
    case Status::InvalidInput: return "invalid";
    }
    return "?";
}

template <class T>
double default_tolerance(int n)
{
    return 16.0 * std::max(n, 1) * (std::numeric_limits<T>::epsilon() / 2);
}

template <class T>
double default_threshold()
{
    return sizeof(T) == 4 ? 1e-5 : 1e-12;
}

template double default_tolerance<float>(int);
template double default_tolerance<double>(int);
template double default_threshold<float>();
template double default_threshold<double>();

namespace {
ResidualStats stats_of(std::vector<double>& values)
{
    ResidualStats s;
    s.systems = values.size();
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    s.min = values.front();
    s.max = values.back();
    const std::size_t m = values.size();
    s.median = m % 2 == 1 ? values[m / 2] : (values[m / 2 - 1] + values[m / 2]) / 2;
    return s;
}
} // namespace

template <class T>
Summary summarize(const Result<T>& result)
{
    Summary s;
    s.count = result.count;
    std::vector<double> by_method[4], repaired_first;
    for (const SystemReport& r : result.report) {
        ++s.by_status[static_cast<int>(r.status)];
        if (r.status == Status::Breakdown || r.status == Status::InvalidInput) continue;
        const int m = static_cast<int>(r.solved_by);
        ++s.by_method[m];
        if (std::isfinite(r.residual)) by_method[m].push_back(r.residual);
        if (r.status == Status::Repaired && std::isfinite(r.first_residual)) repaired_first.push_back(r.first_residual);
    }
    for (int m = 0; m < 4; ++m) s.residual[m] = stats_of(by_method[m]);
    s.first_residual_of_repaired = stats_of(repaired_first);
    return s;
}

template Summary summarize<float>(const Result<float>&);
template Summary summarize<double>(const Result<double>&);

} // namespace flamex::batched
