// xerbla_, the reference's error report: weak, so that a program's own xerbla_
// (as the reference's test programs supply) takes the calls instead.
#include <cstddef>
#include <cstdio>
#include <cstdlib>

extern "C" __attribute__((weak)) void xerbla_(const char* name, const int* info, std::size_t len)
{
    // The reference's message; then, as its STOP, the program ends (status 0).
    int n = static_cast<int>(len);
    while (n > 0 && name[n - 1] == ' ') --n;
    std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", n, name, *info);
    std::exit(0);
}
