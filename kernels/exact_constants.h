/* The constants of the exact OpenCL kernels (kernels/exact.cl) that the host shares:
 * the layout of a global superaccumulator in the pool and of a work-item's expansions
 * in local memory. C subset, read by both compilers: kernels/exact.cl includes it
 * (the host expands the line when it builds the program, opencl::embedded_source) and
 * so does blas/opencl/exact_backend.cpp, which sizes the buffers from it and checks,
 * with static_asserts, that the digits and the bias are the CPU exact::Accumulator's
 * and FAST_MAX its Expansion's: the device and the CPU accumulators are one layout. */
#ifndef FLAMEX_KERNELS_EXACT_CONSTANTS_H
#define FLAMEX_KERNELS_EXACT_CONSTANTS_H

#define FLAMEX_EXACT_DIGITS 206        /* digits of a superaccumulator (Accumulator::DIGITS) */
#define FLAMEX_EXACT_BIAS 3232         /* digit k weighs 2^(32 k - BIAS) (Accumulator::BIAS) */
#define FLAMEX_EXACT_META 4            /* ints of metadata per global one: flags, lo, hi, unused */
#define FLAMEX_EXACT_COMPONENTS 3      /* doubles of an expansion */
#define FLAMEX_EXACT_FAST_MAX 0x1p959  /* magnitudes below it go through TwoSum (Expansion::FAST_MAX) */
#define FLAMEX_EXACT_STAGING_COPIES 4  /* a work-group's copies of its staged digits (dot_partial) */

#endif
