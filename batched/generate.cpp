// Seeded generators of batches (random SPD with a spread of condition numbers; the
// paper's Black & Scholes regression matrices) and the condition numbers of a batch.
// See batched/batched.hpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "batched/batched.hpp"
#include "batched/per_system.hpp"
#include "batched/parallel.hpp"

namespace flamex::batched {

namespace {

std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Random numbers of system k of a generator: std::mt19937_64 (fixed by the
// standard) seeded from (seed, stream, k); the distributions are written here.
class Rng {
public:
    Rng(std::uint64_t seed, std::uint64_t stream, std::uint64_t k)
        : engine_(splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ k))
    {
    }
    double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; } // [0, 1)
    double uniform(double a, double b) { return a + (b - a) * uniform(); }
    double normal() // Box-Muller
    {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        const double u1 = 1.0 - uniform(); // (0, 1]
        const double u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double a = 6.283185307179586476925 * u2;
        spare_ = r * std::sin(a);
        has_spare_ = true;
        return r * std::cos(a);
    }

private:
    std::mt19937_64 engine_;
    double spare_ = 0.0;
    bool has_spare_ = false;
};

constexpr std::uint64_t kSpdStream = 0x5350440000000001ULL, kRegressionStream = 0x5245470000000002ULL;

void check_spec(int n, int threads, const char* what)
{
    if (n < 1 || n > kMaxOrder)
        throw Error(std::string(what) + ": order n = " + std::to_string(n) + " is out of range [1, " +
                    std::to_string(kMaxOrder) + "]");
    if (threads < 1) throw Error(std::string(what) + ": threads must be at least 1");
}

} // namespace

template <class T>
Batch<T> generate_spd(const SpdSpec& spec, std::vector<double>* kappa_out)
{
    check_spec(spec.n, spec.threads, "generate spd");
    if (!(spec.cond_min >= 1.0) || !(spec.cond_max >= spec.cond_min) || !std::isfinite(spec.cond_max))
        throw Error("generate spd: the condition numbers need 1 <= cond_min <= cond_max < inf (got " +
                    std::to_string(spec.cond_min) + ", " + std::to_string(spec.cond_max) + ")");
    const int n = spec.n;
    Batch<T> batch(n, spec.count);
    std::vector<double> kappas(spec.count);
    const double lmin = std::log(spec.cond_min), lmax = std::log(spec.cond_max);
    struct Scratch {
        std::vector<double> A, v, w;
    };
    detail::parallel_for(
        spec.count, spec.threads, 16,
        [n]() { return Scratch{std::vector<double>(static_cast<std::size_t>(n) * n), std::vector<double>(n), std::vector<double>(n)}; },
        [&](std::size_t k, Scratch& s) {
            Rng rng(spec.seed, kSpdStream, k);
            const double kappa = n == 1 ? 1.0 : (lmax > lmin ? std::exp(rng.uniform(lmin, lmax)) : spec.cond_min);
            kappas[k] = kappa;
            double* A = s.A.data();
            std::fill(s.A.begin(), s.A.end(), 0.0);
            const double lk = std::log(kappa);
            for (int i = 0; i < n; ++i)
                A[i + i * n] = i == 0 ? 1.0 : i == n - 1 ? kappa : std::exp(rng.uniform() * lk);
            // A := H A H for n - 1 reflectors of Gaussian vectors on rows j .. n-1.
            for (int j = n - 2; j >= 0; --j) {
                double vv = 0;
                for (int i = j; i < n; ++i) {
                    s.v[i] = rng.normal();
                    vv += s.v[i] * s.v[i];
                }
                if (vv == 0) continue;
                const double beta = 2.0 / vv;
                double pv = 0;
                for (int i = 0; i < n; ++i) { // p := beta A v (A full, symmetric)
                    double acc = 0;
                    for (int l = j; l < n; ++l) acc += A[i + l * n] * s.v[l];
                    s.w[i] = beta * acc;
                }
                for (int i = j; i < n; ++i) pv += s.w[i] * s.v[i];
                const double half = -0.5 * beta * pv; // w := p - (beta/2)(p^T v) v
                for (int i = j; i < n; ++i) s.w[i] += half * s.v[i];
                for (int c = 0; c < n; ++c)
                    for (int i = 0; i < n; ++i) {
                        const double vi = i >= j ? s.v[i] : 0.0, vc = c >= j ? s.v[c] : 0.0;
                        A[i + c * n] -= vi * s.w[c] + s.w[i] * vc;
                    }
            }
            T* out = batch.matrix(k);
            for (int c = 0; c < n; ++c)
                for (int i = c; i < n; ++i) out[i + c * n] = out[c + i * n] = static_cast<T>(A[i + c * n]);
            T* y = batch.rhs(k);
            for (int i = 0; i < n; ++i) y[i] = static_cast<T>(rng.uniform(-1.0, 1.0));
        });
    if (kappa_out) *kappa_out = std::move(kappas);
    return batch;
}

namespace {

// The regression systems one at a time, each accumulated in a scratch system-major
// matrix and right-hand side and handed to store(k, A, y) (A: both triangles).
template <class T, class Store>
void regression_systems(const RegressionSpec& spec, Store store)
{
    check_spec(spec.n, spec.threads, "generate regression");
    if (spec.paths < 1) throw Error("generate regression: paths must be at least 1 (got " + std::to_string(spec.paths) + ")");
    if (!(spec.sigma >= 0) || !(spec.t >= 0) || !std::isfinite(spec.mu) || !std::isfinite(spec.s0) ||
        !std::isfinite(spec.strike))
        throw Error("generate regression: bad model parameters (sigma, t >= 0; all finite)");
    const int n = spec.n, d = n - 1, assets = std::max(d, 1);
    const double drift = (spec.mu - spec.sigma * spec.sigma / 2) * spec.t, vol = spec.sigma * std::sqrt(spec.t);
    struct Scratch {
        std::vector<T> psi, A, y;
    };
    // Chunks of 16 systems: whole blocks of the interleaved layout per thread.
    detail::parallel_for(
        spec.count, spec.threads, 16,
        [n]() { return Scratch{std::vector<T>(n), std::vector<T>(static_cast<std::size_t>(n) * n), std::vector<T>(n)}; },
        [&](std::size_t k, Scratch& s) {
            Rng rng(spec.seed, kRegressionStream, k);
            std::fill(s.A.begin(), s.A.end(), T(0));
            std::fill(s.y.begin(), s.y.end(), T(0));
            T* A = s.A.data();
            T* y = s.y.data();
            T* psi = s.psi.data();
            for (int j = 0; j < spec.paths; ++j) {
                double mean = 0;
                psi[0] = T(1);
                for (int i = 0; i < assets; ++i) {
                    const double S = spec.s0 * std::exp(drift + vol * rng.normal());
                    mean += S;
                    if (i + 1 < n) psi[i + 1] = static_cast<T>(S);
                }
                mean /= assets;
                const T payoff = static_cast<T>(std::max(spec.strike - mean, 0.0));
                for (int c = 0; c < n; ++c) { // accumulated in T, lower triangle
                    for (int i = c; i < n; ++i) A[i + c * n] += psi[i] * psi[c];
                    y[c] += psi[c] * payoff;
                }
            }
            const T M = static_cast<T>(spec.paths);
            for (int c = 0; c < n; ++c) {
                for (int i = c; i < n; ++i) A[c + i * n] = A[i + c * n] = A[i + c * n] / M;
                y[c] /= M;
            }
            store(k, A, y);
        });
}

} // namespace

template <class T>
Batch<T> generate_regression(const RegressionSpec& spec)
{
    Batch<T> batch;
    if (spec.n >= 1 && spec.n <= kMaxOrder) batch = Batch<T>(spec.n, spec.count);
    const std::size_t nn = static_cast<std::size_t>(spec.n) * spec.n;
    regression_systems<T>(spec, [&](std::size_t k, const T* A, const T* y) {
        std::copy(A, A + nn, batch.matrix(k));
        std::copy(y, y + spec.n, batch.rhs(k));
    });
    return batch;
}

template <class T>
InterleavedBatch<T> generate_regression_interleaved(const RegressionSpec& spec)
{
    InterleavedBatch<T> batch;
    if (spec.n >= 1 && spec.n <= kMaxOrder) batch = InterleavedBatch<T>(spec.n, spec.count);
    regression_systems<T>(spec, [&](std::size_t k, const T* A, const T* y) { batch.set(k, A, y); });
    return batch;
}

template <class T>
std::vector<double> condition_numbers(const Batch<T>& batch, int threads)
{
    const int n = batch.n;
    std::vector<double> kappa(batch.count);
    struct Scratch {
        std::vector<double> A, d, e, tau, lambda, V;
        DcWork<double> dc;
    };
    detail::parallel_for(
        batch.count, threads, 16,
        [n]() {
            const auto nn = static_cast<std::size_t>(n) * n;
            return Scratch{std::vector<double>(nn), std::vector<double>(n), std::vector<double>(n), std::vector<double>(n),
                           std::vector<double>(n), std::vector<double>(nn), DcWork<double>{}};
        },
        [&](std::size_t k, Scratch& s) {
            const T* A = batch.matrix(k);
            bool finite = true;
            for (std::size_t i = 0; i < s.A.size(); ++i) {
                s.A[i] = static_cast<double>(A[i]);
                finite = finite && std::isfinite(s.A[i]);
            }
            if (!finite) {
                kappa[k] = std::numeric_limits<double>::quiet_NaN();
                return;
            }
            tridiagonalize(n, s.A.data(), s.d.data(), s.e.data(), s.tau.data());
            tridiagonal_eigen_dc(n, s.d.data(), s.e.data(), s.lambda.data(), s.V.data(), s.dc);
            double lo = std::numeric_limits<double>::infinity(), hi = 0;
            for (double l : s.lambda) {
                lo = std::min(lo, std::fabs(l));
                hi = std::max(hi, std::fabs(l));
            }
            kappa[k] = lo == 0 ? std::numeric_limits<double>::infinity() : hi / lo;
        });
    return kappa;
}

template Batch<float> generate_spd<float>(const SpdSpec&, std::vector<double>*);
template Batch<double> generate_spd<double>(const SpdSpec&, std::vector<double>*);
template Batch<float> generate_regression<float>(const RegressionSpec&);
template Batch<double> generate_regression<double>(const RegressionSpec&);
template InterleavedBatch<float> generate_regression_interleaved<float>(const RegressionSpec&);
template InterleavedBatch<double> generate_regression_interleaved<double>(const RegressionSpec&);
template std::vector<double> condition_numbers<float>(const Batch<float>&, int);
template std::vector<double> condition_numbers<double>(const Batch<double>&, int);

} // namespace flamex::batched
