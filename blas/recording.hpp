// A backend wrapper that records every call: what the derivation's tests compare.
//
// RecordingBlas forwards each operation of the abstract BLAS to another backend and
// appends one line to its log: the operation, its flags, its scalars (17 significant
// digits) and, for each view, its offsets in the base matrix and its size, e.g.
//   trsv Lower No Unit T(0,0 3x3) x(0,3 3x1)
// Two variants that leave identical logs on the same input perform the same
// operations on the same views in the same order. Host reads through element() are
// recorded too (a zero-pivot test is a call); acquire and release are not.
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"

namespace flamex {

class RecordingBlas : public Blas {
public:
    explicit RecordingBlas(const Blas& inner) : inner_(inner) {}

    const std::vector<std::string>& log() const { return log_; }
    void clear() { log_.clear(); }

    std::string name() const override { return "recording(" + inner_.name() + ")"; }
    bool reproducible() const override { return inner_.reproducible(); }

    double sum(Obj x) const override;
    double dot(Obj x, Obj y) const override;
    void dots(double alpha, Obj x, Obj y, double beta, Obj rho) const override;
    void scal(double alpha, Obj x) const override;
    void invscal(double alpha, Obj x) const override;
    void axpy(double alpha, Obj x, Obj y) const override;
    void copy(Obj x, Obj y) const override;
    void gemv(Trans trans, double alpha, Obj A, Obj x, double beta, Obj y) const override;
    void trsv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override;
    void ger(double alpha, Obj x, Obj y, Obj A) const override;
    void gemm(Trans transa, Trans transb, double alpha, Obj A, Obj B, double beta, Obj C) const override;
    void trsm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override;
    void syrk(Uplo uplo, Trans trans, double alpha, Obj A, double beta, Obj C) const override;
    void trmv(Uplo uplo, Trans trans, Diag diag, Obj T, Obj x) const override;
    void trmm(Side side, Uplo uplo, Trans trans, Diag diag, double alpha, Obj T, Obj B) const override;
    void diag_invscal(Obj D, Obj x) const override;
    void diag_dots(double alpha, Obj x, Obj D, Obj y, double beta, Obj rho) const override;
    void diag_gemv(double alpha, Obj A, Obj D, Obj x, double beta, Obj y) const override;
    void sqrt(Obj alpha) const override;
    void reciprocal(Obj alpha) const override;
    void gemm_ordered(Obj A, Obj B, Obj C) const override;
    void trsm_ordered(Diag diag, Obj L, Obj B) const override;
    dim_t iamax(Obj x) const override;
    void apply_pivots(PivObj p, Obj A) const override;

    dim_t lu_block(dim_t m, dim_t n) const override { return inner_.lu_block(m, n); }
    double element(Obj A, dim_t i, dim_t j) const override;
    void acquire(Obj A) const override { inner_.acquire(A); }
    void release(Obj A) const override { inner_.release(A); }

private:
    void record(const std::string& line) const { log_.push_back(line); }

    const Blas& inner_;
    mutable std::vector<std::string> log_; // the calls are const, as every backend's
};

} // namespace flamex
