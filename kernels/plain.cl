// The `opencl-plain` kernels: ordinary double-precision arithmetic, the paper's
// "parallel" baselines. Standard OpenCL C 1.2 (built with -cl-std=CL1.2 and no
// relaxed-math options), so any driver with cl_khr_fp64 runs them.
//
// Conventions shared by every kernel:
//  - a matrix operand is a buffer plus an element offset and row / column strides:
//    element (i, j) is at buf[off + i * rs + j * cs]; a vector is a buffer, an
//    offset and an increment. Transposition is folded into the strides by the host.
//  - FP_CONTRACT is off: a * b + c is two rounded operations on every device.
//  - reductions are two launches: a *_partial kernel leaves one value per
//    work-group, and a *_finish kernel run as a single work-group combines them.
//    No work-group ever waits for another inside a kernel.
//  - work-group sizes need not be powers of two (tree_sum handles any size).
// invscal, copy_matrix, apply_pivots and iamax (and half_span, the reduction
// trees' first stride) are kernels/elementwise.cl, shared with kernels/exact.cl.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#include "elementwise.cl"

// Sums s[0 .. wg-1] into s[0]; every work-item of the group must call it.
void tree_sum(__local double* s)
{
    const uint lid = get_local_id(0), wg = get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = half_span(wg); h > 0; h >>= 1) {
        if (lid < h && lid + h < wg) s[lid] += s[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// --- sum, dot, dots ---------------------------------------------------------------

__kernel void sum_partial(long n, __global const double* x, long xoff, long incx,
                          __global double* partial, __local double* scratch)
{
    const long stride = get_global_size(0);
    double s = 0.0;
    for (long i = get_global_id(0); i < n; i += stride) s += x[xoff + i * incx];
    scratch[get_local_id(0)] = s;
    tree_sum(scratch);
    if (get_local_id(0) == 0) partial[get_group_id(0)] = scratch[0];
}

__kernel void dot_partial(long n, __global const double* x, long xoff, long incx,
                          __global const double* y, long yoff, long incy,
                          __global double* partial, __local double* scratch)
{
    const long stride = get_global_size(0);
    double s = 0.0;
    for (long i = get_global_id(0); i < n; i += stride) s += x[xoff + i * incx] * y[yoff + i * incy];
    scratch[get_local_id(0)] = s;
    tree_sum(scratch);
    if (get_local_id(0) == 0) partial[get_group_id(0)] = scratch[0];
}

// One work-group: s = sum of the partials; then
//   scaled == 0: out[off] := s
//   scaled != 0: out[off] := beta * out[off] + alpha * s, BLIS's dotxv rules: beta == 0
//                overwrites out without reading it, alpha == 0 leaves s out.
__kernel void sum_finish(long parts, __global const double* partial, __global double* out, long off,
                         int scaled, double alpha, double beta, __local double* scratch)
{
    const uint lid = get_local_id(0), wg = get_local_size(0);
    double s = 0.0;
    for (long i = lid; i < parts; i += wg) s += partial[i];
    scratch[lid] = s;
    tree_sum(scratch);
    if (lid == 0) {
        if (scaled == 0) {
            out[off] = scratch[0];
        } else {
            const double r = beta == 0.0 ? 0.0 : beta * out[off];
            out[off] = alpha == 0.0 ? r : r + alpha * scratch[0];
        }
    }
}

// --- element-wise vector and matrix operations (the others: elementwise.cl) ---------

// x := alpha x (alpha == 0 stores zeros, as BLIS's scalv does)
__kernel void scal(long n, double alpha, __global double* x, long xoff, long incx)
{
    const long i = get_global_id(0);
    if (i < n) x[xoff + i * incx] = alpha == 0.0 ? 0.0 : alpha * x[xoff + i * incx];
}

// y := alpha x + y
__kernel void axpy(long n, double alpha, __global const double* x, long xoff, long incx,
                   __global double* y, long yoff, long incy)
{
    const long i = get_global_id(0);
    if (i < n) y[yoff + i * incy] = y[yoff + i * incy] + alpha * x[xoff + i * incx];
}

// A := A + x (alpha y)^T, column by column as BLIS's ger: a_ij + x_i (alpha y_j)
__kernel void ger(long m, long n, double alpha, __global const double* x, long xoff, long incx,
                  __global const double* y, long yoff, long incy,
                  __global double* a, long aoff, long ars, long acs)
{
    const long i = get_global_id(0), j = get_global_id(1);
    if (i < m && j < n) {
        const double ay = alpha * y[yoff + j * incy];
        a[aoff + i * ars + j * acs] = a[aoff + i * ars + j * acs] + x[xoff + i * incx] * ay;
    }
}

// --- gemv -------------------------------------------------------------------------
// y := beta y + alpha A x for an m x k matrix A (op(A) with the strides folded in).
// beta == 0 overwrites y without reading it; alpha == 0 leaves A x out (BLIS's rules).

void gemv_store(__global double* y, long at, double alpha, double t, double beta)
{
    const double r = beta == 0.0 ? 0.0 : beta * y[at];
    y[at] = alpha == 0.0 ? r : r + alpha * t;
}

// One work-item per element of y: used when the rows of A are adjacent in memory
// (ars == 1), so that neighbouring work-items read neighbouring elements.
__kernel void gemv_rows(long m, long k, double alpha, __global const double* a, long aoff, long ars, long acs,
                        __global const double* x, long xoff, long incx, double beta,
                        __global double* y, long yoff, long incy)
{
    const long i = get_global_id(0);
    if (i >= m) return;
    double t = 0.0;
    for (long l = 0; l < k; ++l) t += a[aoff + i * ars + l * acs] * x[xoff + l * incx];
    gemv_store(y, yoff + i * incy, alpha, t, beta);
}

// One work-group per element of y, its work-items splitting the row and summing
// their parts in local memory: used when each row is contiguous (acs == 1).
__kernel void gemv_groups(long m, long k, double alpha, __global const double* a, long aoff, long ars, long acs,
                          __global const double* x, long xoff, long incx, double beta,
                          __global double* y, long yoff, long incy, __local double* scratch)
{
    const long i = get_group_id(0);
    const uint lid = get_local_id(0), wg = get_local_size(0);
    double t = 0.0;
    for (long l = lid; l < k; l += wg) t += a[aoff + i * ars + l * acs] * x[xoff + l * incx];
    scratch[lid] = t;
    tree_sum(scratch);
    if (lid == 0 && i < m) gemv_store(y, yoff + i * incy, alpha, scratch[0], beta);
}

// --- gemm -------------------------------------------------------------------------
// C := beta C + alpha A B for A m x k, B k x n (op() folded into the strides), on
// square ts x ts tiles staged in local memory, ts = get_local_size(0) = (1). Each
// element of C sums its k products in order l = 0 .. k-1, whatever the tile size.
__kernel void gemm_tiled(long m, long n, long k, double alpha,
                         __global const double* a, long aoff, long ars, long acs,
                         __global const double* b, long boff, long brs, long bcs, double beta,
                         __global double* c, long coff, long crs, long ccs,
                         __local double* at, __local double* bt)
{
    const long ts = get_local_size(0);
    const long i = get_global_id(0), j = get_global_id(1);
    const long li = get_local_id(0), lj = get_local_id(1);
    double t = 0.0;
    for (long l0 = 0; l0 < k; l0 += ts) {
        const long la = l0 + lj, lb = l0 + li;
        at[li * ts + lj] = (i < m && la < k) ? a[aoff + i * ars + la * acs] : 0.0;
        bt[li * ts + lj] = (lb < k && j < n) ? b[boff + lb * brs + j * bcs] : 0.0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const long len = min(ts, k - l0);
        for (long l = 0; l < len; ++l) t += at[li * ts + l] * bt[l * ts + lj];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i < m && j < n) {
        const long o = coff + i * crs + j * ccs;
        const double r = beta == 0.0 ? 0.0 : beta * c[o];
        c[o] = alpha == 0.0 ? r : r + alpha * t;
    }
}

// --- trsv and trsm ----------------------------------------------------------------
// The alpha of trsm_left and trmm_left, by the work-group before the substitution:
// x := alpha x (zeros for alpha == 0, as BLIS). False when alpha == 0: B := 0 is the
// whole result. alpha is uniform, so every work-item reaches the barrier or none.
bool scale_column(long n, double alpha, __global double* x, long brs)
{
    if (alpha == 1.0) return true;
    for (long i = get_local_id(0); i < n; i += get_local_size(0)) x[i * brs] = alpha == 0.0 ? 0.0 : alpha * x[i * brs];
    if (alpha == 0.0) return false;
    barrier(CLK_GLOBAL_MEM_FENCE);
    return true;
}

// B := alpha T^{-1} B for T n x n triangular (lower != 0: lower) with op() and the
// side already folded into the strides by the host, B n x nrhs. One work-group per
// column of B: column-oriented substitution, x_j := b_j / t_jj (by one work-item)
// then b_i -= t_ij x_j for the rest of the column (by all of them), with barriers
// between the steps. trsv is the case nrhs = 1, alpha = 1.
__kernel void trsm_left(long n, long nrhs, int lower, int unit, double alpha,
                        __global const double* t, long toff, long trs, long tcs,
                        __global double* b, long boff, long brs, long bcs)
{
    const long col = get_group_id(0);
    const long lid = get_local_id(0), wg = get_local_size(0);
    if (col >= nrhs) return; // uniform across the work-group
    __global double* x = b + boff + col * bcs;
    if (!scale_column(n, alpha, x, brs)) return;
    for (long s = 0; s < n; ++s) {
        const long j = lower ? s : n - 1 - s;
        if (!unit) {
            if (lid == 0) x[j * brs] = x[j * brs] / t[toff + j * trs + j * tcs];
            barrier(CLK_GLOBAL_MEM_FENCE);
        }
        const double xj = x[j * brs];
        if (lower) {
            for (long i = j + 1 + lid; i < n; i += wg) x[i * brs] = x[i * brs] - t[toff + i * trs + j * tcs] * xj;
        } else {
            for (long i = lid; i < j; i += wg) x[i * brs] = x[i * brs] - t[toff + i * trs + j * tcs] * xj;
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

// --- syrk -------------------------------------------------------------------------
// C := beta C + alpha A A^T for A n x k (op() folded into the strides), only the
// lower (lower != 0) or upper triangle of C: one work-item per element, its k
// products summed in order. BLIS's rules: beta == 0 overwrites without reading.
__kernel void syrk(long n, long k, int lower, double alpha, __global const double* a, long aoff, long ars, long acs,
                   double beta, __global double* c, long coff, long crs, long ccs)
{
    const long i = get_global_id(0), j = get_global_id(1);
    if (i >= n || j >= n || (lower ? i < j : i > j)) return;
    double t = 0.0;
    for (long l = 0; l < k; ++l) t += a[aoff + i * ars + l * acs] * a[aoff + j * ars + l * acs];
    const long o = coff + i * crs + j * ccs;
    const double r = beta == 0.0 ? 0.0 : beta * c[o];
    c[o] = alpha == 0.0 ? r : r + alpha * t;
}

// --- diag_dots, diag_gemv -----------------------------------------------------------
// y := beta y + alpha A diag(d) x for A m x k (diag_dots: m = 1, A = x^T): one
// work-item per output, its k products (a_il (d_l x_l)) summed in order. BLIS's
// rules as syrk: beta == 0 overwrites without reading, alpha == 0 leaves the sum out.
__kernel void diag_mv(long m, long k, double alpha, __global const double* a, long aoff, long ars, long acs,
                      __global const double* d, long doff, long dinc, __global const double* x, long xoff, long xinc,
                      double beta, __global double* y, long yoff, long yinc)
{
    const long i = get_global_id(0);
    if (i >= m) return;
    double t = 0.0;
    for (long l = 0; l < k; ++l) t += a[aoff + i * ars + l * acs] * (d[doff + l * dinc] * x[xoff + l * xinc]);
    const long o = yoff + i * yinc;
    const double r = beta == 0.0 ? 0.0 : beta * y[o];
    y[o] = alpha == 0.0 ? r : r + alpha * t;
}

// --- trmv and trmm ----------------------------------------------------------------
// B := alpha T B for T n x n triangular (lower != 0: lower) with op() and the side
// folded into the strides by the host, B n x nrhs. One work-group per column of B,
// in place as the reference BLAS's dtrmv: column j of T at a time, from the last
// (lower) or the first (upper), b_i += t_ij b_j for the rows it reaches, then
// b_j := t_jj b_j; barriers between the steps. trmv is nrhs = 1, alpha = 1.
__kernel void trmm_left(long n, long nrhs, int lower, int unit, double alpha,
                        __global const double* t, long toff, long trs, long tcs,
                        __global double* b, long boff, long brs, long bcs)
{
    const long col = get_group_id(0);
    const long lid = get_local_id(0), wg = get_local_size(0);
    if (col >= nrhs) return; // uniform across the work-group
    __global double* x = b + boff + col * bcs;
    if (!scale_column(n, alpha, x, brs)) return;
    for (long s = 0; s < n; ++s) {
        const long j = lower ? n - 1 - s : s;
        const double xj = x[j * brs];
        if (lower) {
            for (long i = j + 1 + lid; i < n; i += wg) x[i * brs] = x[i * brs] + t[toff + i * trs + j * tcs] * xj;
        } else {
            for (long i = lid; i < j; i += wg) x[i * brs] = x[i * brs] + t[toff + i * trs + j * tcs] * xj;
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (!unit) {
            if (lid == 0) x[j * brs] = t[toff + j * trs + j * tcs] * xj;
            barrier(CLK_GLOBAL_MEM_FENCE);
        }
    }
}
