// flamex.run and flamex.operations: every registered operation by name, through the
// generic path of variants/operations.hpp (what `flamex run OP` takes).
#include "bindings.hpp"

#include "variants/operations.hpp"

namespace flamex::python {

namespace {

const char* python_class(Failure f)
{
    switch (f) {
    case Failure::NotPositiveDefinite: return "NotPositiveDefiniteError";
    case Failure::Breakdown: return "ZeroPivotError";
    case Failure::Singular: break;
    }
    return "SingularMatrixError";
}

const char* structure_name(Structure s)
{
    switch (s) {
    case Structure::Lower: return "lower";
    case Structure::Upper: return "upper";
    case Structure::General: break;
    }
    return "general";
}

py::list describe_operations()
{
    py::list out;
    for (const Operation& op : operations()) {
        py::list operands, variants;
        for (const OperandSpec& o : op.operands)
            operands.append(py::dict(py::arg("name") = o.name, py::arg("structure") = structure_name(o.structure),
                                     py::arg("overwritten") = o.overwritten, py::arg("meaning") = o.meaning));
        for (const OperationVariant& v : op.variants())
            variants.append(py::dict(py::arg("name") = v.name, py::arg("blocked") = v.blocked, py::arg("number") = v.number,
                                     py::arg("summary") = v.summary));
        out.append(py::dict(py::arg("name") = op.name, py::arg("title") = op.title, py::arg("operands") = operands,
                            py::arg("pivots") = op.pivots, py::arg("default_variant") = op.default_variant,
                            py::arg("variants") = variants));
    }
    return out;
}

} // namespace

void bind_operations(py::module_& m)
{
    m.def("operations", &describe_operations,
          R"(Every registered operation, as `flamex run --list` lists them.

Returns
-------
list of dict
    One per operation: name, title, operands (each a dict: name, structure --
    "general", "lower" or "upper", the part read and written --, overwritten,
    meaning), pivots (whether it also returns row interchanges), default_variant and
    variants (each a dict: name, blocked, number, summary).)");

    m.def("run", [](const std::string& name, py::args operands, std::optional<std::string> variant, py::handle backend,
                    std::optional<dim_t> block, std::optional<std::string> inner, int threads, bool check_finite) -> py::object {
        const Operation& op = find_operation(name);
        if (operands.size() != op.operands.size()) {
            std::string names;
            for (const OperandSpec& o : op.operands) names += (names.empty() ? "" : ", ") + o.name;
            throw Error(op.name + " takes " + std::to_string(op.operands.size()) + " operand" +
                        (op.operands.size() == 1 ? "" : "s") + " (" + names + "), got " + std::to_string(operands.size()));
        }
        OperationControl control;
        if (block && *block < 1) throw Error("run: block size must be at least 1, got " + std::to_string(*block));
        control.block = block.value_or(0);
        control.inner = inner.value_or("");
        const std::string v = variant.value_or(op.default_variant);
        const PyBackend blas = backend_of(backend, threads);
        // Every operand is a new Fortran-ordered copy: the caller's arrays are never written.
        std::vector<InPlace> held;
        std::vector<Obj> views;
        for (size_t i = 0; i < op.operands.size(); ++i) {
            const OperandSpec& spec = op.operands[i];
            held.push_back(in_place_or_copy(operands[i], spec.name.c_str(), false));
            views.push_back(held.back().obj.view);
            // Only the structure's part is read, so only it is checked: the copy's other
            // part is cleared first (it is never read, and the result is written so).
            zero_outside(spec.structure, views.back());
            if (check_finite) require_finite(("run " + op.name).c_str(), spec.name.c_str(), views.back(), false);
        }
        size_t result = 0;
        for (size_t i = 0; i < op.operands.size(); ++i)
            if (op.operands[i].overwritten) result = i;
        Pivots p(op.pivots ? views[0].min_dim() : 0);
        dim_t info = 0;
        {
            py::gil_scoped_release nogil;
            info = run_operation(*blas.blas, op, v, views, p, control);
        }
        if (info != 0)
            throw ColumnFailure(python_class(op.failure),
                                "run " + op.name + ": " + op.failure_text + " " + std::to_string(info) + " (" + v + ")", info);
        if (!op.pivots) return held[result].result;
        const std::vector<int> ipiv = p.to_lapack();
        py::array_t<int> pivots(static_cast<py::ssize_t>(ipiv.size()));
        std::copy(ipiv.begin(), ipiv.end(), pivots.mutable_data());
        return py::make_tuple(held[result].result, pivots);
    }, py::arg("op"), py::kw_only(), py::arg("variant") = py::none(), py::arg("backend") = py::none(),
       py::arg("block") = py::none(), py::arg("inner") = py::none(), py::arg("threads") = 1, py::arg("check_finite") = true,
       R"(Runs any registered operation by one of its variants: the generic path.

Parameters
----------
op : str
    The operation's name, as flamex.operations() and `flamex run --list` give it
    (lu_piv, lu_nopiv, chol, ldlt, trinv, trsm_lln, ...).
*operands : array_like
    The operands in the operation's order (its "operands" entry). Each is copied to
    a new Fortran-ordered float64 array: the caller's arrays are never written. Only
    the part each operand's structure names is read.
variant : str, optional
    The variant's name; default the operation's default_variant.
backend : str or flamex.Backend, optional
    The backend; default FLAMEX_BACKEND, else blis.
block : int or None, optional
    Block size of a blocked variant (None: the operation's default, 128; LU's is the
    backend's choice for the matrix's size, as flamex.lu's).
inner : str, optional
    The unblocked variant a blocked one runs on its blocks; default the operation's.
threads : int, optional
    Threads of the backend (default 1); exact backends give the same bits for any.
check_finite : bool, optional
    Whether to check that the part of each operand its structure names holds no NaN
    or infinity (default True, scipy's convention); False skips the check.

Returns
-------
numpy.ndarray or tuple
    The overwritten operand's new value, zeros outside its structure; for an
    operation with pivots, (result, ipiv) with LAPACK's 1-based ipiv.

Raises
------
flamex.SingularMatrixError, flamex.NotPositiveDefiniteError, flamex.ZeroPivotError
    A numerical failure, with .column (1-based, LAPACK's info).
flamex.Error
    An unknown operation or variant, a wrong operand count or shape, or (with
    check_finite) a NaN or infinity in an operand, named with its first entry.)");
}

} // namespace flamex::python
