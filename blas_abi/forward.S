// The forwarded routines (forwarded.inc): each symbol is one jump through its slot
// (forward.cpp fills the slots from BLIS, loaded privately, when the library is
// loaded), so every argument, in registers or on the stack, reaches BLIS as the
// caller passed it, whatever the routine's signature. endbr64 first: a no-op
// unless indirect-branch tracking is on.
#define FORWARD(name)                                           \
    .globl name;                                                \
    .type name, @function;                                      \
    .p2align 4;                                                 \
name:                                                           \
    endbr64;                                                    \
    jmp *flamex_blas_abi_slots + 8 * __COUNTER__(%rip);         \
    .size name, . - name;

    .text
#include "blas_abi/forwarded.inc"

    .section .note.GNU-stack, "", @progbits
