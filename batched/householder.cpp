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
// The reflector, the correction of w and the application of Q are the shared routines
// of kernels/batched_system.h (the OpenCL kernels run the same code); the matrix-vector
// product and the rank-2 update are ordered here for the CPU (columns, contiguous), each
// element getting the operations, in the order, the kernel's rows get.
#include <cstddef>
#include <vector>

#include "batched/batched.hpp"
#include "batched/per_system.hpp"
#include "kernels/batched_system.h"

namespace flamex::batched {

template <class T>
void tridiagonalize(int n, T* A, T* d, T* e, T* tau)
{
    for (int j = 0; j + 1 < n; ++j) {
        const int m = n - j - 1;          // rows j+1 .. n-1
        T* x = A + (j + 1) + j * n;       // A(j+1 : n-1, j), v on return
        T* A22 = A + (j + 1) + (j + 1) * n;
        d[j] = A[j + j * n];
        T t;
        if (!shared::house_reflector(m, x, &t, &e[j])) { // nothing to annihilate: H_j = I
            tau[j] = 0;
            continue;
        }
        tau[j] = t;

        T* w = d + j + 1; // m entries of workspace
        for (int i = 0; i < m; ++i) w[i] = 0;
        for (int k = 0; k < m; ++k) {     // w := A22 v, from the lower triangle: row i's
            const T* col = A22 + k * n;   // sum over columns < i, plus its column's sum
            T acc = col[k] * x[k];
            for (int i = k + 1; i < m; ++i) {
                w[i] += col[i] * x[k];
                acc += col[i] * x[i];
            }
            w[k] += acc;
        }
        for (int i = 0; i < m; ++i) w[i] *= t; // p := tau A22 v
        shared::house_correct(m, t, x, w);      // w := p - (tau/2) (p^T v) v
        for (int k = 0; k < m; ++k) {     // A22 := A22 - v w^T - w v^T, lower
            T* col = A22 + k * n;
            const T vk = x[k], wk = w[k];
            for (int i = k; i < m; ++i) col[i] -= x[i] * wk + w[i] * vk;
        }
    }
    if (n >= 1) d[n - 1] = A[(n - 1) + (n - 1) * n];
    if (n >= 2) tau[n - 2] = 0;
}

namespace {

// Q^T y or Q y with the shared routine, one lane; its scratch on the stack up to the
// batch's largest order.
template <class T>
void apply(bool transposed, int n, const T* V, const T* tau, T* y)
{
    T stack[kMaxOrder + 1];
    std::vector<T> heap;
    T* prod = stack;
    if (n + 1 > kMaxOrder + 1) {
        heap.assign(static_cast<std::size_t>(n) + 1, T(0));
        prod = heap.data();
    }
    if (transposed)
        shared::apply_qt(n, 1, 0, 1, V, tau, y, prod, prod + n);
    else
        shared::apply_q(n, 1, 0, 1, V, tau, y, prod, prod + n);
}

} // namespace

template <class T>
void apply_qt(int n, const T* V, const T* tau, T* y)
{
    apply(true, n, V, tau, y); // Q^T y = H_{n-3} ... H_0 y
}

template <class T>
void apply_q(int n, const T* V, const T* tau, T* y)
{
    apply(false, n, V, tau, y); // Q y = H_0 ... H_{n-3} y
}

template void tridiagonalize<float>(int, float*, float*, float*, float*);
template void tridiagonalize<double>(int, double*, double*, double*, double*);
template void apply_qt<float>(int, const float*, const float*, float*);
template void apply_qt<double>(int, const double*, const double*, double*);
template void apply_q<float>(int, const float*, const float*, float*);
template void apply_q<double>(int, const double*, const double*, double*);

} // namespace flamex::batched
