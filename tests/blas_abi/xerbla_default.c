/* The library's own xerbla_ (no program one): the reference's message on stderr,
 * then the program ends as the reference's STOP does (status 0) before the line
 * after the bad call. ctest matches the message and the absence of "reached". */
#include <stdio.h>

void dgemv_(const char*, const int*, const int*, const double*, const double*, const int*, const double*,
            const int*, const double*, double*, const int*);

int main(void)
{
    const int two = 2, one = 1, zero = 0;
    const double a[4] = {1, 2, 3, 4}, x[2] = {1, 1}, alpha = 1.0, beta = 0.0;
    double y[2];
    dgemv_("N", &two, &two, &alpha, a, &two, x, &one, &beta, y, &zero); /* INCY = 0: parameter 11 */
    printf("reached\n");
    return 1;
}
