// The BLAS ABI layer (blas_abi/): what its files share. The layer checks the
// arguments as the reference BLAS does, reports a bad one through xerbla_ (the
// routine's name, the parameter's position), takes the reference's quick returns,
// and calls the framework: the exact backend (blas/blas.hpp, through views onto
// the caller's arrays) or the storage forms (blas/storage_forms.hpp). It does no
// arithmetic of its own. Single and complex routines are forwarded to BLIS
// (forward.cpp, forward.S).
#pragma once

#include <cstddef>
#include <exception>

#include "blas/blas.hpp"
#include "blas/storage_forms.hpp"

extern "C" void xerbla_(const char* name, const int* info, std::size_t len);

namespace flamex::blas_abi {

using forms::index_t;

// The exact backend with FLAMEX_THREADS threads (default 1), made on first use.
const Blas& exact();

// xerbla_ with the reference's 6-character name ("DGEMM ").
void report(const char* name, int info);

[[noreturn]] void fatal(const char* name, const char* what) noexcept;

// Runs body; an exception (which the checks should have made impossible) is
// reported on stderr and aborts: nothing unwinds into a Fortran or C caller.
template <class Body>
void guarded(const char* name, Body&& body) noexcept
{
    try {
        body();
    } catch (const std::exception& e) {
        fatal(name, e.what());
    }
}

// LSAME: the same letter, either case.
inline bool is(const char* c, char upper) { return (*c & ~0x20) == upper; }

// The reference's start of a vector of n elements with increment inc: element 0
// is x[0] for inc >= 0, x[(n - 1) |inc|] for inc < 0 (then p[i inc] walks back).
template <class T>
T* start(T* x, index_t n, index_t inc)
{
    return inc < 0 && n > 0 ? x - (n - 1) * inc : x;
}

inline Obj vec(const double* x, index_t n, index_t inc)
{
    return Obj(const_cast<double*>(start(x, n, inc)), inc, 1, 0, 0, n, 1);
}
inline Obj mat(const double* a, index_t m, index_t n, index_t ld)
{
    return Obj(const_cast<double*>(a), 1, ld, 0, 0, m, n);
}
inline index_t max1(index_t v) { return v > 1 ? v : 1; }

} // namespace flamex::blas_abi
