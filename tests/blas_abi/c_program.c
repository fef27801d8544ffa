/* A C program linked against flamex's libblas.so.3 (-lblas): the Fortran and the
 * CBLAS interfaces, an exact routine and forwarded ones, and the program's own
 * xerbla_ taking an error report. Exit status 0 when every check holds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

double ddot_(const int*, const double*, const int*, const double*, const int*);
double cblas_ddot(int, const double*, int, const double*, int);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
            const int*, const double*, const int*, const double*, double*, const int*);
void cblas_dgemm(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*,
                 int);
float sdot_(const int*, const float*, const int*, const float*, const int*);
void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
void zaxpy_(const int*, const double*, const double*, const int*, double*, const int*);

static char reported[8];
static int reported_info;

/* The program's own xerbla_: it, not the library's, takes the report. */
void xerbla_(const char* name, const int* info, size_t len)
{
    size_t n = len < 7 ? len : 7;
    memcpy(reported, name, n);
    reported[n] = '\0';
    reported_info = *info;
}

static int failures;
static void check(int ok, const char* what)
{
    if (!ok) {
        fprintf(stderr, "FAILED: %s\n", what);
        ++failures;
    }
}

int main(void)
{
    const double x[] = {1e16, 1.0, -1e16, 0.0}, ones[] = {1, 1, 1, 1};
    const int four = 4, one = 1, two = 2, minus = -1;
    check(ddot_(&four, x, &one, ones, &one) == 1.0, "ddot_ cancelling sum is 1");
    check(cblas_ddot(4, x, 1, ones, 1) == 1.0, "cblas_ddot cancelling sum is 1");

    /* C = A B with one exactly cancelling element: (1e16 1; 1 1) (1; -1e16)... */
    const double A[] = {1e16, 1.0, 1.0, 1.0}; /* column major 2 x 2 */
    const double B[] = {1.0, -1e16, 1.0, 1.0};
    double C[4] = {0}, Cr[4] = {0};
    const double alpha = 1.0, beta = 0.0;
    dgemm_("N", "N", &two, &two, &two, &alpha, A, &two, B, &two, &beta, C, &two);
    check(C[0] == 0.0 && C[1] == 1.0 - 1e16 && C[2] == 1e16 + 1.0 && C[3] == 2.0, "dgemm_ small product");
    cblas_dgemm(102, 111, 111, 2, 2, 2, 1.0, A, 2, B, 2, 0.0, Cr, 2);
    check(memcmp(C, Cr, sizeof C) == 0, "cblas_dgemm = dgemm_");

    /* Forwarded routines (BLIS): plain single and complex arithmetic. */
    const float fx[] = {1.5f, 2.0f, -3.0f}, fy[] = {2.0f, 0.25f, 1.0f};
    const int three = 3;
    check(sdot_(&three, fx, &one, fy, &one) == 0.5f, "sdot_ forwarded");
    float fc[4] = {0};
    const float fa[] = {1, 2, 3, 4}, fb[] = {1, 0, 0, 1};
    cblas_sgemm(102, 111, 111, 2, 2, 2, 1.0f, fa, 2, fb, 2, 0.0f, fc, 2);
    check(fc[0] == 1 && fc[1] == 2 && fc[2] == 3 && fc[3] == 4, "cblas_sgemm forwarded");
    const double za[] = {0.0, 1.0}; /* alpha = i */
    const double zx[] = {2.0, 3.0};
    double zy[] = {1.0, 1.0};
    zaxpy_(&one, za, zx, &one, zy, &one); /* y += i (2 + 3i) = -3 + 2i */
    check(zy[0] == -2.0 && zy[1] == 3.0, "zaxpy_ forwarded");

    /* An argument error goes to this program's xerbla_, nothing is computed. */
    dgemm_("N", "N", &minus, &two, &two, &alpha, A, &two, B, &two, &beta, C, &two);
    check(strncmp(reported, "DGEMM", 5) == 0 && reported_info == 3, "xerbla_: DGEMM parameter 3");

    if (failures == 0) printf("c_program: all checks hold\n");
    return failures == 0 ? 0 : 1;
}
