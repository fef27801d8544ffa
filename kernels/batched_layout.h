/* What the batched solvers' kernels (kernels/batched_solvers.cl) and their host
 * (batched/opencl_batched.cpp) must agree on: the status codes and each kernel's
 * per-system workspace. C subset, read by both compilers (the host expands the
 * .cl's #include line when it builds the program: opencl::embedded_source). The host
 * sizes the workspace from the *_REALS / *_INTS totals and checks the status codes
 * against batched::Status with static_asserts. */
#ifndef FLAMEX_KERNELS_BATCHED_LAYOUT_H
#define FLAMEX_KERNELS_BATCHED_LAYOUT_H

/* Status of a system: batched::Status. */
#define ST_OK 0
#define ST_BREAKDOWN 1
#define ST_FLAGGED 2
#define ST_REPAIRED 3
#define ST_INVALID 4

/* ldlt_solve: reals L (the lower triangle packed by columns), l (n), x (n); ints: a flag. */
#define LDLT_L(n) 0
#define LDLT_LVEC(n) ((n) * ((n) + 1) / 2)
#define LDLT_X(n) (LDLT_LVEC(n) + (n))
#define LDLT_REALS(n) (LDLT_X(n) + (n))
#define LDLT_INTS(n) 2

/* householder_pcr: reals A (n x n), d, e, tau, w, v, prod (n each), PCR's buffers
 * (6n), 8 scalars; ints: 8 scalars, PCR's indices (6n). */
#define HP_A(n) 0
#define HP_VEC(n, j) ((n) * (n) + (j) * (n)) /* j = 0 d, 1 e, 2 tau, 3 w, 4 v, 5 prod */
#define HP_PCR(n) HP_VEC(n, 6)
#define HP_SC(n) (HP_PCR(n) + PCR_REALS(n))
#define HP_REALS(n) (HP_SC(n) + 8)
#define HP_IPCR(n) 8
#define HP_INTS(n) (HP_IPCR(n) + PCR_INTS(n))

/* pcr_solve's workspace (kernels/batched_system.h): two arrangements of d, c, v;
 * of the original index, the segment start and the segment length. */
#define PCR_REALS(n) (6 * (n))
#define PCR_INTS(n) (6 * (n))

/* dc_solve: reals V (n x n), Wb (n x n), DC_RVECS vectors of n, 8 scalars; ints
 * DC_ISCALARS scalars (DC_SKIP ..), DC_IVECS vectors of n, the tree walk's stack of
 * offsets (n + 1) and of sizes (n + 1). */
#define DC_RVECS 20
#define DC_RVEC(n, j) (2 * (n) * (n) + (j) * (n))
#define DC_REALS(n) (DC_RVEC(n, DC_RVECS) + 8)
#define DC_ISCALARS 16
#define DC_IVECS 10
#define DC_IVEC(n, j) (DC_ISCALARS + (j) * (n))
#define DC_STOFF(n) DC_IVEC(n, DC_IVECS)
#define DC_STM(n) (DC_STOFF(n) + (n) + 1)
#define DC_INTS(n) (DC_STM(n) + (n) + 1)
/* dc_solve's integer scalars */
#define DC_SKIP 0
#define DC_NMERGE 1
#define DC_NK 2
#define DC_ND 3
#define DC_NROT 4
#define DC_EX 5
#define DC_SORTED 6
#define DC_DISC 7

/* residual: doubles |r|, row sums of |A|, |x|, |y| (n each); ints: a flag per row. */
#define RES_DOUBLES(n) (4 * (n))
#define RES_INTS(n) (n)

#endif
