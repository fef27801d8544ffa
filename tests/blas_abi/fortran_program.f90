! A Fortran program linked against flamex's libblas.so.3 and Debian's reference
! LAPACK (which then runs on it): an exact dot and gemm, a forwarded routine, and
! DGESV whose solution is checked against the system's exact solution.
program blas_abi_fortran
  implicit none
  double precision :: x(4), ones(4), a(3, 3), b(3), c(2, 2), p(2, 2), q(2, 2), lu(3, 3)
  double precision, external :: ddot, dnrm2
  real, external :: sdot
  real :: fx(3), fy(3)
  integer :: ipiv(3), info, failures
  failures = 0
  x = [1d16, 1d0, -1d16, 0d0]
  ones = 1d0
  if (ddot(4, x, 1, ones, 1) /= 1d0) call fail('ddot cancelling sum')
  if (dnrm2(2, [3d0, 4d0], 1) /= 5d0) call fail('dnrm2 of (3, 4)')
  p = reshape([1d16, 1d0, 1d0, 1d0], [2, 2])
  q = reshape([1d0, -1d16, 1d0, 1d0], [2, 2])
  call dgemm('N', 'N', 2, 2, 2, 1d0, p, 2, q, 2, 0d0, c, 2)
  if (c(1, 1) /= 0d0 .or. c(2, 2) /= 2d0) call fail('dgemm cancelling product')
  fx = [1.5, 2.0, -3.0]
  fy = [2.0, 0.25, 1.0]
  if (sdot(3, fx, 1, fy, 1) /= 0.5) call fail('sdot forwarded')
  ! A x = b with x = (1, 2, 3): LAPACK's DGESV over this BLAS.
  a = reshape([4d0, 2d0, 1d0, 2d0, 5d0, 3d0, 1d0, 3d0, 6d0], [3, 3])
  b = matmul(a, [1d0, 2d0, 3d0])
  lu = a
  call dgesv(3, 1, lu, 3, ipiv, b, 3, info)
  if (info /= 0 .or. maxval(abs(b - [1d0, 2d0, 3d0])) > 1d-14) call fail('dgesv through LAPACK')
  if (failures /= 0) stop 1
  print '(a)', 'fortran_program: all checks hold'
contains
  subroutine fail(what)
    character(*), intent(in) :: what
    print '(2a)', 'FAILED: ', what
    failures = failures + 1
  end subroutine fail
end program blas_abi_fortran
