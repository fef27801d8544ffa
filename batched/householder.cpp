// Householder tridiagonalization A = Q U Q^T of one small symmetric matrix (lower
// triangle), and the application of Q and Q^T: see batched/per_system.hpp.
//
// Step j (0-based) annihilates A(j+2 : n-1, j) with H_j = I - tau v v^T acting on rows
// and columns j+1..n-1, v = (1, x(1:) / (alpha - beta)), beta = -sign(alpha) ||x||,
// tau = (beta - alpha) / beta for x = A(j+1 : n-1, j), alpha = x(0); then the trailing
// matrix is updated as the paper's eqs. (12)-(13):
//     p := tau A22 v,   w := p - (tau/2) (p^T v) v,   A22 := A22 - v w^T - w v^T.
// The not yet computed part of d serves as the workspace for p and w (the paper keeps
// them in the undetermined part of the off-diagonal).
#include <cmath>

#include "batched/per_system.hpp"

namespace flamex::batched {

template <class T>
void tridiagonalize(int n, T* A, T* d, T* e, T* tau)
{
    for (int j = 0; j + 1 < n; ++j) {
        const int m = n - j - 1;          // rows j+1 .. n-1
        T* x = A + (j + 1) + j * n;       // A(j+1 : n-1, j)
        T* A22 = A + (j + 1) + (j + 1) * n;
        const T alpha = x[0];
        T scale = 0;
        for (int i = 1; i < m; ++i) {
            const T a = std::fabs(x[i]);
            if (!(a <= scale)) scale = a; // a NaN propagates
        }
        if (scale == T(0)) { // nothing to annihilate: H_j = I
            tau[j] = 0;
            e[j] = alpha;
            d[j] = A[j + j * n];
            continue;
        }
        T sum = 0;
        for (int i = 1; i < m; ++i) {
            const T s = x[i] / scale;
            sum += s * s;
        }
        const T xnorm = scale * std::sqrt(sum);
        const T beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
        const T t = (beta - alpha) / beta;
        const T inv = T(1) / (alpha - beta);
        for (int i = 1; i < m; ++i) x[i] *= inv;
        x[0] = T(1); // v(0)
        tau[j] = t;
        e[j] = beta;
        d[j] = A[j + j * n];

        T* w = d + j + 1; // m entries of workspace
        for (int i = 0; i < m; ++i) w[i] = 0;
        for (int k = 0; k < m; ++k) {     // w := A22 v, from the lower triangle
            const T* col = A22 + k * n;
            T acc = col[k] * x[k];
            for (int i = k + 1; i < m; ++i) {
                w[i] += col[i] * x[k];
                acc += col[i] * x[i];
            }
            w[k] += acc;
        }
        T pv = 0;
        for (int i = 0; i < m; ++i) {     // p := tau A22 v
            w[i] *= t;
            pv += w[i] * x[i];
        }
        const T half = -(t / 2) * pv;     // w := p - (tau/2) (p^T v) v
        for (int i = 0; i < m; ++i) w[i] += half * x[i];
        for (int k = 0; k < m; ++k) {     // A22 := A22 - v w^T - w v^T, lower
            T* col = A22 + k * n;
            const T vk = x[k], wk = w[k];
            for (int i = k; i < m; ++i) col[i] -= x[i] * wk + w[i] * vk;
        }
    }
    if (n >= 1) d[n - 1] = A[(n - 1) + (n - 1) * n];
    if (n >= 2) tau[n - 2] = 0;
}

template <class T>
void apply_qt(int n, const T* V, const T* tau, T* y)
{
    for (int j = 0; j + 2 < n; ++j) {     // Q^T y = H_{n-3} ... H_0 y
        if (tau[j] == T(0)) continue;
        const T* v = V + (j + 1) + j * n; // v(0) = 1 implicit
        T* z = y + j + 1;
        T s = z[0];
        for (int i = 1; i < n - j - 1; ++i) s += v[i] * z[i];
        s *= tau[j];
        z[0] -= s;
        for (int i = 1; i < n - j - 1; ++i) z[i] -= s * v[i];
    }
}

template <class T>
void apply_q(int n, const T* V, const T* tau, T* y)
{
    for (int j = n - 3; j >= 0; --j) {    // Q y = H_0 ... H_{n-3} y
        if (tau[j] == T(0)) continue;
        const T* v = V + (j + 1) + j * n;
        T* z = y + j + 1;
        T s = z[0];
        for (int i = 1; i < n - j - 1; ++i) s += v[i] * z[i];
        s *= tau[j];
        z[0] -= s;
        for (int i = 1; i < n - j - 1; ++i) z[i] -= s * v[i];
    }
}

template void tridiagonalize<float>(int, float*, float*, float*, float*);
template void tridiagonalize<double>(int, double*, double*, double*, double*);
template void apply_qt<float>(int, const float*, const float*, float*);
template void apply_qt<double>(int, const double*, const double*, double*);
template void apply_q<float>(int, const float*, const float*, float*);
template void apply_q<double>(int, const double*, const double*, double*);

} // namespace flamex::batched
