// The kernels that the `opencl` (kernels/exact.cl) and `opencl-plain`
// (kernels/plain.cl) programs share, written once: both files contain the line
// #include "elementwise.cl", which opencl::embedded_source replaces by this file,
// so each program is built from (and cached under) the whole expanded text. The
// host side is blas/opencl/elementwise.cpp.
//
// Every result here is the same on any device and for any launch geometry: one
// IEEE operation (or a copy) per element, or a reduction in a total order. The
// two programs' scal and axpy are not here: they differ (plain.cl follows BLIS,
// exact.cl rounds once per element with an fma).
//
// Conventions (those of kernels/plain.cl): a matrix is a buffer, an element offset
// and row / column strides, transposition folded into the strides by the host;
// work-group sizes need not be powers of two. Standard OpenCL C 1.2, FP_CONTRACT
// off, built without relaxed-math options.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

// The largest power of two strictly below n (n >= 2), 0 for n <= 1: the first
// stride of a reduction tree over a work-group of n work-items.
uint half_span(uint n)
{
    uint h = 1;
    while (h < n) h <<= 1;
    return h >> 1;
}

// --- element-wise vector and matrix operations ----------------------------------

// x := x / alpha, a true division
__kernel void invscal(long n, double alpha, __global double* x, long xoff, long incx)
{
    const long i = get_global_id(0);
    if (i < n) x[xoff + i * incx] = x[xoff + i * incx] / alpha;
}

// x_l := x_l / d_l, d_l the diagonal of a square matrix (element l at d[doff + l * dinc])
__kernel void diag_invscal(long n, __global const double* d, long doff, long dinc, __global double* x, long xoff,
                           long incx)
{
    const long l = get_global_id(0);
    if (l < n) x[xoff + l * incx] = x[xoff + l * incx] / d[doff + l * dinc];
}

// alpha := sqrt(alpha) and alpha := 1 / alpha for a scalar held on the device: one
// work-item, one IEEE operation (correctly rounded for double in OpenCL C).
__kernel void scalar_sqrt(__global double* alpha, long off)
{
    if (get_global_id(0) == 0) alpha[off] = sqrt(alpha[off]);
}

__kernel void scalar_reciprocal(__global double* alpha, long off)
{
    if (get_global_id(0) == 0) alpha[off] = 1.0 / alpha[off];
}

// Y := X, both m x n (a vector is an m x 1 matrix whose row stride is its increment)
__kernel void copy_matrix(long m, long n, __global const double* x, long xoff, long xrs, long xcs,
                          __global double* y, long yoff, long yrs, long ycs)
{
    const long i = get_global_id(0), j = get_global_id(1);
    if (i < m && j < n) y[yoff + i * yrs + j * ycs] = x[xoff + i * xrs + j * xcs];
}

// For i = 0 .. k-1 swap rows i and i + p[i] of the m x n matrix A; one work-item
// per column applies every swap in order.
__kernel void apply_pivots(long k, __global const int* p, long n, __global double* a, long aoff, long ars, long acs)
{
    const long j = get_global_id(0);
    if (j >= n) return;
    __global double* col = a + aoff + j * acs;
    for (long i = 0; i < k; ++i) {
        const long r = i + p[i];
        if (r != i) {
            const double t = col[i * ars];
            col[i * ars] = col[r * ars];
            col[r * ars] = t;
        }
    }
}

// --- iamax ------------------------------------------------------------------------
// The first index of the largest |x_i|, with BLIS's amaxv rule for NaN (the exact
// backend's too): a NaN beats every number, and the first NaN wins. The order
// "(v, i) before (w, j)" below is a total order, so the reduction tree does not
// change the answer. Two launches: iamax_partial leaves one (value, index) per
// work-group, iamax_finish (one work-group) picks the first of them.

int amax_before(double v, long i, double w, long j)
{
    const int vn = isnan(v), wn = isnan(w);
    if (vn != wn) return vn;
    if (!vn && v != w) return v > w;
    return i < j;
}

void amax_tree(__local double* sv, __local long* si)
{
    const uint lid = get_local_id(0), wg = get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = half_span(wg); h > 0; h >>= 1) {
        if (lid < h && lid + h < wg && amax_before(sv[lid + h], si[lid + h], sv[lid], si[lid])) {
            sv[lid] = sv[lid + h];
            si[lid] = si[lid + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel void iamax_partial(long n, __global const double* x, long xoff, long incx,
                            __global double* partial_value, __global long* partial_index,
                            __local double* sv, __local long* si)
{
    const long stride = get_global_size(0);
    double best = -1.0; // below every magnitude: an empty work-item never wins
    long at = LONG_MAX;
    for (long i = get_global_id(0); i < n; i += stride) {
        const double v = fabs(x[xoff + i * incx]);
        if (amax_before(v, i, best, at)) {
            best = v;
            at = i;
        }
    }
    sv[get_local_id(0)] = best;
    si[get_local_id(0)] = at;
    amax_tree(sv, si);
    if (get_local_id(0) == 0) {
        partial_value[get_group_id(0)] = sv[0];
        partial_index[get_group_id(0)] = si[0];
    }
}

__kernel void iamax_finish(long parts, __global const double* partial_value, __global const long* partial_index,
                           __global long* out, __local double* sv, __local long* si)
{
    const uint lid = get_local_id(0), wg = get_local_size(0);
    double best = -1.0;
    long at = LONG_MAX;
    for (long i = lid; i < parts; i += wg)
        if (amax_before(partial_value[i], partial_index[i], best, at)) {
            best = partial_value[i];
            at = partial_index[i];
        }
    sv[lid] = best;
    si[lid] = at;
    amax_tree(sv, si);
    if (lid == 0) out[0] = si[0] == LONG_MAX ? 0 : si[0];
}
