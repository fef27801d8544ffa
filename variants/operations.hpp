// Every operation flamex registers, behind one interface: the generic path that
// `flamex run OP` and `flamex.run` take, so that every variant of every operation is
// reachable from the command line and from Python without a driver of its own.
//
// An entry names the operation as `flamex derive` knows its PME (lu_piv, chol, ...),
// its operands with the part of each that is read and written (its structure), and
// adapts the operation's own registry and driver (variants/lu.hpp, chol.hpp, ...),
// which keep their checks. Adding an operation is its variant files, its registry,
// and one entry in operations.cpp.
//
// A numerical failure is a 1-based column, as LAPACK's info: a zero pivot, a matrix
// that is not positive definite, a zero on a triangle's diagonal. `failure` says which
// in words, and `result_on_failure` whether the operands still hold a result then
// (LU with pivoting goes on past a zero pivot, as getrf; the others stop or refuse).
#pragma once

#include <string>
#include <vector>

#include "blas/blas.hpp"

namespace flamex {

// The part of a stored square matrix an operation reads and writes; every other
// entry is neither read nor written. General operands may be rectangular.
enum class Structure { General, Lower, Upper };

struct OperandSpec {
    std::string name;    // "A", "L", "B"
    Structure structure; // what is read; for an overwritten operand, also what is written
    bool overwritten;    // the result is written over it
    std::string meaning; // one line for listings: "L lower triangular (non-unit)"
};

struct OperationVariant {
    std::string name; // "chol_blk_var2"
    bool blocked = false;
    int number = 0;   // libflame's number of the variant
    std::string summary;
};

// A blocked variant's block size and its inner (unblocked) variant by name; empty:
// the operation's default inner variant. block 0: the operation's default block (LU's
// is the backend's choice for the matrix's size, variants/lu.hpp; the others' 128).
struct OperationControl {
    dim_t block = 0;
    std::string inner;
};

// What a numerical failure means: a singular matrix (a zero pivot of LU, a zero on a
// triangle's diagonal), one that is not positive definite (Cholesky), or a zero or
// non-finite pivot of a factorization without pivoting of a symmetric matrix (LDL^T).
enum class Failure { Singular, NotPositiveDefinite, Breakdown };

struct Operation {
    std::string name;  // "chol"
    std::string title; // "Cholesky factorization A = L L^T (lower)"
    std::vector<OperandSpec> operands;
    bool pivots = false; // also writes row interchanges (min(m, n) of them)
    std::string default_variant;
    Failure failure;
    std::string failure_text; // "zero pivot in column"; empty: the operation cannot fail
    bool result_on_failure = false;
    std::vector<OperationVariant> (*variants)();
    // Runs a variant of this operation by name on operands in `operands`' order; p holds
    // min(m, n) pivots when `pivots`, else is empty. Returns the failure's column or 0.
    dim_t (*run)(const Blas& blas, const std::string& variant, const std::vector<Obj>& operands, PivObj p,
                 const OperationControl& control);
};

const std::vector<Operation>& operations();
// Throws flamex::Error listing the known names when `name` is unknown.
const Operation& find_operation(const std::string& name);
// Throws flamex::Error listing the operation's variants when `name` is not one.
OperationVariant find_variant(const Operation& op, const std::string& name);

// Runs a variant after checking the operand count (flamex::Error naming the operation
// and its operands' names otherwise); the operation's driver checks the shapes.
dim_t run_operation(const Blas& blas, const Operation& op, const std::string& variant, const std::vector<Obj>& operands,
                    PivObj p, const OperationControl& control = {});

// Zeros the entries of A outside `s`: what a result is written as (a triangular
// factor with zeros in the other triangle, as LAPACK's users and scipy expect).
void zero_outside(Structure s, Obj A);

} // namespace flamex
