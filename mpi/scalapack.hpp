// Internal: the BLACS and ScaLAPACK entry points mpi/ calls (Debian's
// libscalapack-openmpi, which carries the BLACS). No header ships with them.
#pragma once

#include <mpi.h>

extern "C" {
int Csys2blacs_handle(MPI_Comm comm);
MPI_Comm Cblacs2sys_handle(int handle);
void Cfree_blacs_system_handle(int handle);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
int Cblacs_pnum(int context, int prow, int pcol);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
void pdgetrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca, int* ipiv,
              int* info);
}
