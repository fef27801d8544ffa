// Fills the forwarded routines' slots (forward.S) when the library is loaded: from
// BLIS (libblis.so.4, the library the exact gemm calls through its typed API)
// opened RTLD_LOCAL, or, for the few routines BLIS lacks, from the reference BLAS
// opened the same way. Looked up by dlsym in those libraries alone, so a
// forwarded call never comes back to this library's own symbols, and neither
// library's symbols interpose this library's.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

extern "C" {
__attribute__((visibility("hidden"))) void* flamex_blas_abi_slots[] = {
#define FORWARD(name) nullptr,
#include "blas_abi/forwarded.inc"
#undef FORWARD
};
}

namespace {

const char* const names[] = {
#define FORWARD(name) #name,
#include "blas_abi/forwarded.inc"
#undef FORWARD
};

static_assert(sizeof names / sizeof names[0] == sizeof flamex_blas_abi_slots / sizeof flamex_blas_abi_slots[0]);

[[noreturn]] void unavailable()
{
    std::fprintf(stderr, "flamex libblas: a forwarded routine was called but neither BLIS (" FLAMEX_BLIS_SONAME
                         ") nor the reference BLAS (" FLAMEX_REFERENCE_BLAS ") defines it\n");
    std::abort();
}

__attribute__((constructor(101))) void resolve_forwarded()
{
    void* blis = dlopen(FLAMEX_BLIS_SONAME, RTLD_NOW | RTLD_LOCAL);
    void* reference = nullptr;
    for (std::size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        void* f = blis != nullptr ? dlsym(blis, names[i]) : nullptr;
        if (f == nullptr) {
            if (reference == nullptr) reference = dlopen(FLAMEX_REFERENCE_BLAS, RTLD_NOW | RTLD_LOCAL);
            if (reference != nullptr) f = dlsym(reference, names[i]);
        }
        flamex_blas_abi_slots[i] = f != nullptr ? f : reinterpret_cast<void*>(&unavailable);
    }
}

} // namespace
