// flamex.derive and flamex.derive_invariants: the derivation of derive/derive.hpp,
// what `flamex derive OP [--variant N] [--blocked] [--emit text|cpp|latex]` prints.
#include "bindings.hpp"

#include "derive/derive.hpp"

namespace flamex::python {

namespace {

derive::Derivation derivation_of(const derive::Pme& pme, bool blocked)
{
    if (blocked && !pme.has_blocked()) throw Error(pme.name + ": the description has no blocked form");
    return derive::derive_invariants(pme);
}

} // namespace

void bind_derive(py::module_& m)
{
    m.def("derive_operations", &derive::operation_names,
          R"(The operations flamex.derive can derive: those with a PME description.

Returns
-------
list of str
    The operations' names (derive/pme/*.pme, or $FLAMEX_PME_DIR's).)");

    m.def("derive", [](const std::string& operation, std::optional<int> variant, bool blocked, const std::string& emit) {
        if (emit != "text" && emit != "cpp" && emit != "latex")
            throw Error("derive: emit is 'text', 'cpp' or 'latex', not '" + emit + "'");
        std::string out;
        {
            py::gil_scoped_release nogil;
            const derive::Pme pme = derive::load_operation(operation);
            const derive::Derivation d = derivation_of(pme, blocked);
            const derive::Invariant* inv = variant ? &derive::find_variant(d, *variant) : nullptr;
            if (emit == "latex")
                out = derive::emit_latex(d, blocked);
            else if (emit == "text")
                out = derive::text_report(d, variant.value_or(0), blocked);
            else if (!inv)
                throw Error("derive: emit='cpp' needs variant=N");
            else
                out = derive::emit_cpp(pme, *inv, blocked);
        }
        return out;
    }, py::arg("operation"), py::arg("variant") = py::none(), py::arg("blocked") = false, py::arg("emit") = "text",
       R"(Derive an operation's algorithms from its PME description, as `flamex derive` prints it.

Parameters
----------
operation : str
    An operation from flamex.derive_operations(), e.g. "chol".
variant : int or None, optional
    One variant (libflame's number); None: every variant (text and latex only).
blocked : bool, optional
    The blocked form of the algorithm.
emit : {"text", "cpp", "latex"}, optional
    "text" (default): the PME, the loop invariants and each variant's worksheet;
    "cpp": the variant's C++ file (needs variant); "latex": the worksheets as a LaTeX
    document.

Returns
-------
str
    The derivation.

Raises
------
flamex.Error
    An unknown operation, emit or variant, an infeasible variant (with its reason),
    or emit="cpp" without a variant (a ValueError).)");

    m.def("derive_invariants", [](const std::string& operation) {
        derive::Pme pme; // the derivation points into it
        derive::Derivation d;
        {
            py::gil_scoped_release nogil;
            pme = derive::load_operation(operation);
            d = derive::derive_invariants(pme);
        }
        py::list out;
        for (const derive::Invariant& inv : d.invariants) {
            // The values each quadrant holds, the index the loop partitions and its direction.
            std::vector<std::string> holds;
            for (const auto& [lhs, rhs] : inv.holds) holds.push_back(derive::equation_text(lhs, rhs));
            out.append(py::dict(py::arg("number") = inv.number, py::arg("summary") = inv.summary,
                                py::arg("holds") = holds, py::arg("index") = inv.index,
                                py::arg("direction") = inv.backward ? "backward" : "forward"));
        }
        py::list infeasible;
        for (const derive::InfeasibleVariant& v : d.infeasible)
            infeasible.append(py::dict(py::arg("number") = v.number, py::arg("holds") = v.holds, py::arg("reason") = v.reason));
        return py::make_tuple(out, infeasible);
    }, py::arg("operation"),
       R"(The loop invariants of an operation, derived from its PME.

Parameters
----------
operation : str
    An operation from flamex.derive_operations().

Returns
-------
invariants : list of dict
    The feasible loop invariants: "number" (libflame's, 0 when unnumbered),
    "summary", "holds" (the values its quadrants hold, as equations), "index" (the
    index space the loop partitions) and "direction" ("forward" or "backward").
infeasible : list of dict
    The declared variants that are not feasible: "number", "holds" and "reason".

Raises
------
flamex.Error
    An unknown operation (a ValueError).)");
}

} // namespace flamex::python
