// A minimal check harness for programs run under mpirun: every rank checks, the
// failures are counted over all ranks at the end, and every rank exits with the
// same status (0, or 1 when any rank failed).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "mpi/mpi.hpp"

namespace flamex_mpi_test {

inline int failures = 0;

inline int world_rank()
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

inline void expect(bool ok, const std::string& what)
{
    if (ok) return;
    ++failures;
    if (failures <= 20) std::fprintf(stderr, "rank %d: FAILED: %s\n", world_rank(), what.c_str());
}

inline std::uint64_t bits(double x)
{
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

inline bool same_bits(double a, double b) { return bits(a) == bits(b); }

// A barrier with a deadline, after a step that raises an error on some ranks:
// every rank must arrive within `seconds` (a guard, far above the step's time),
// or the first to give up names the step and ends the whole job (MPI_Abort).
// An error that did not reach every rank leaves a rank waiting in a collective
// that never completes: this fails the check at once, by name, where it used to
// wait for ctest's timeout.
inline void checkpoint(const std::string& step, double seconds = 20)
{
    if (flamex::mpi::barrier_within(MPI_COMM_WORLD, seconds)) return;
    std::fprintf(stderr, "rank %d: FAILED: %s: not every rank got past it within %g s (one waits in a "
                         "collective: an error did not reach it); aborting\n",
                 world_rank(), step.c_str(), seconds);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

// Every rank's failures summed; prints a summary on rank 0; the exit status.
inline int finish(const char* name)
{
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int nranks = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (world_rank() == 0) std::printf("%s on %d ranks: %s (%d failures)\n", name, nranks, total ? "FAILED" : "ok", total);
    MPI_Finalize();
    return total ? 1 : 0;
}

} // namespace flamex_mpi_test
