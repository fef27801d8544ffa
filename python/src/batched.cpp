// flamex.batched: the batched symmetric solvers (batched/batched.hpp) on (k, n, n)
// matrices and (k, n) right-hand sides, float32 or float64 (the dtype picks the
// precision; nothing is converted). A[k, i, j] is system k's A(i, j); only the
// lower triangle is read. The library's Batch owns its arrays, so the systems are
// copied in once; results come back without a copy (the arrays own the library's
// vectors).
//
// The interleaved layout (batched/batched.hpp, InterleavedBatch) is two C-contiguous
// arrays, A of shape (blocks, n(n+1)/2, B) and y of shape (blocks, n, B), B = 16 for
// float32 and 8 for float64: A[b, e, l] is entry e of the packed lower triangle of
// system b B + l, exactly the library's vectors; the count of systems (the last
// block may be padded) travels beside them.
#include "bindings.hpp"

#include <cstring>
#include <memory>
#include <optional>

#include "batched/batched.hpp"
#include "batched/opencl_batched.hpp"

namespace flamex::python {

namespace {

template <class T>
py::capsule owning(T* heap)
{
    return py::capsule(heap, [](void* p) { delete static_cast<T*>(p); });
}

// (k, n, n) over count matrices stored one after another, each column-major.
template <class T>
py::array matrices_array(const T* data, std::size_t count, int n, const py::capsule& owner)
{
    const auto s = static_cast<py::ssize_t>(sizeof(T));
    return py::array(py::dtype::of<T>(), {static_cast<py::ssize_t>(count), py::ssize_t{n}, py::ssize_t{n}},
                     {s * n * n, s, s * n}, data, owner);
}

template <class T>
py::array vectors_array(const T* data, std::size_t count, int n, const py::capsule& owner)
{
    const auto s = static_cast<py::ssize_t>(sizeof(T));
    return py::array(py::dtype::of<T>(), {static_cast<py::ssize_t>(count), py::ssize_t{n}}, {s * n, s}, data, owner);
}

template <class T>
batched::Batch<T> batch_of(const py::array& A, const py::array& y)
{
    if (A.ndim() != 3 || A.shape(1) != A.shape(2))
        throw LayoutError("batched: A must have shape (k, n, n), got " + py::str(A.attr("shape")).cast<std::string>());
    if (y.ndim() != 2 || y.shape(0) != A.shape(0) || y.shape(1) != A.shape(1))
        throw LayoutError("batched: y must have shape (k, n) = (" + std::to_string(A.shape(0)) + ", " +
                          std::to_string(A.shape(1)) + "), got " + py::str(y.attr("shape")).cast<std::string>());
    if (!y.dtype().is(A.dtype())) throw LayoutError("batched: A and y must have the same dtype");
    const auto a = A.unchecked<T, 3>();
    const auto b = y.unchecked<T, 2>();
    batched::Batch<T> batch(static_cast<int>(A.shape(1)), static_cast<std::size_t>(A.shape(0)));
    const int n = batch.n;
    for (std::size_t k = 0; k < batch.count; ++k) {
        T* Ak = batch.matrix(k);
        T* yk = batch.rhs(k);
        const auto kk = static_cast<py::ssize_t>(k);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) Ak[i + j * n] = a(kk, i, j);
        for (int i = 0; i < n; ++i) yk[i] = b(kk, i);
    }
    return batch;
}

// The interleaved layout's two arrays, as (blocks, entries, B) views of the library's
// vectors.
template <class T>
py::tuple interleaved_arrays(batched::InterleavedBatch<T>&& b)
{
    auto* owned = new batched::InterleavedBatch<T>(std::move(b));
    const py::capsule owner = owning(owned);
    constexpr py::ssize_t B = batched::InterleavedBatch<T>::kBlock, s = sizeof(T);
    const auto blocks = static_cast<py::ssize_t>(owned->blocks());
    const py::ssize_t entries = batched::packed_size(owned->n), n = owned->n;
    return py::make_tuple(py::array(py::dtype::of<T>(), {blocks, entries, B}, {s * entries * B, s * B, s}, owned->A.data(), owner),
                          py::array(py::dtype::of<T>(), {blocks, n, B}, {s * n * B, s * B, s}, owned->y.data(), owner));
}

std::string shape_of(const py::array& a) { return py::str(a.attr("shape")).cast<std::string>(); }

// The interleaved arrays (see the top of this file) checked and copied into the
// library's InterleavedBatch; count: the number of systems, by default every lane of
// every block.
template <class T>
batched::InterleavedBatch<T> interleaved_of(const py::array& A, const py::array& y, std::optional<std::size_t> count)
{
    constexpr py::ssize_t B = batched::InterleavedBatch<T>::kBlock;
    const std::string lanes = std::to_string(B) + " for " + py::str(A.dtype()).cast<std::string>();
    if (!y.dtype().is(A.dtype())) throw LayoutError("batched: A and y must have the same dtype");
    if (y.ndim() != 3 || y.shape(2) != B)
        throw LayoutError("batched: interleaved y must have shape (blocks, n, B), B = " + lanes + ", got " + shape_of(y));
    const py::ssize_t blocks = y.shape(0), n = y.shape(1);
    const py::ssize_t entries = n * (n + 1) / 2;
    if (A.ndim() != 3 || A.shape(0) != blocks || A.shape(1) != entries || A.shape(2) != B)
        throw LayoutError("batched: interleaved A must have shape (blocks, n(n+1)/2, B) = (" + std::to_string(blocks) + ", " +
                          std::to_string(entries) + ", " + std::to_string(B) + ") for y of shape " + shape_of(y) + ", got " +
                          shape_of(A));
    constexpr int c_contiguous = py::array::c_style;
    if (!(A.flags() & c_contiguous) || !(y.flags() & c_contiguous))
        throw LayoutError("batched: interleaved A and y must be C-contiguous (the layout is their memory order); "
                          "use numpy.ascontiguousarray");
    const std::size_t lanes_held = static_cast<std::size_t>(blocks) * B;
    const std::size_t k = count.value_or(lanes_held);
    if (k > lanes_held || (blocks > 0 && k <= lanes_held - B))
        throw LayoutError("batched: count = " + std::to_string(k) + " does not fill " + std::to_string(blocks) +
                          " blocks of " + std::to_string(B) + " systems (it must be in [" +
                          std::to_string(blocks > 0 ? lanes_held - B + 1 : 0) + ", " + std::to_string(lanes_held) + "])");
    batched::InterleavedBatch<T> batch(static_cast<int>(n), k); // throws for n out of range
    std::memcpy(batch.A.data(), A.data(), batch.A.size() * sizeof(T));
    std::memcpy(batch.y.data(), y.data(), batch.y.size() * sizeof(T));
    return batch;
}

template <class T>
py::dict result_dict(batched::Result<T>&& r)
{
    auto* owned = new batched::Result<T>(std::move(r));
    const py::capsule owner = owning(owned);
    const std::size_t count = owned->count;
    py::array_t<std::uint8_t> status(static_cast<py::ssize_t>(count)), solved_by(static_cast<py::ssize_t>(count));
    py::array_t<std::int32_t> column(static_cast<py::ssize_t>(count));
    py::array_t<std::uint16_t> discarded(static_cast<py::ssize_t>(count));
    py::array_t<double> residual(static_cast<py::ssize_t>(count)), first(static_cast<py::ssize_t>(count));
    for (std::size_t k = 0; k < count; ++k) {
        const auto& rep = owned->report[k];
        const auto kk = static_cast<py::ssize_t>(k);
        status.mutable_at(kk) = static_cast<std::uint8_t>(rep.status);
        solved_by.mutable_at(kk) = static_cast<std::uint8_t>(rep.solved_by);
        column.mutable_at(kk) = rep.column;
        discarded.mutable_at(kk) = rep.discarded;
        residual.mutable_at(kk) = rep.residual;
        first.mutable_at(kk) = rep.first_residual;
    }
    return py::dict(py::arg("x") = vectors_array(owned->x.data(), count, owned->n, owner), py::arg("status") = status,
                    py::arg("solved_by") = solved_by, py::arg("column") = column, py::arg("discarded") = discarded,
                    py::arg("residual") = residual, py::arg("first_residual") = first,
                    py::arg("seconds") = owned->seconds, py::arg("tolerance") = owned->tolerance,
                    py::arg("threshold") = owned->threshold);
}

struct SolveArgs {
    batched::Options options;
    std::string device;
    batched::OpenClBatchOptions cl;
    bool interleaved = false;
    std::optional<std::size_t> count; // interleaved: the number of systems
};

template <class T>
py::dict solve_typed(const py::array& A, const py::array& y, const SolveArgs& args)
{
    if (args.interleaved) {
        const batched::InterleavedBatch<T> batch = interleaved_of<T>(A, y, args.count);
        batched::Result<T> r;
        {
            py::gil_scoped_release nogil;
            // The OpenCL organizations take the system-major batch (the same systems).
            r = args.device == "cpu" ? batched::solve(batch, args.options)
                                     : batched::solve_opencl(batched::deinterleave(batch), args.options, args.cl);
        }
        return result_dict(std::move(r));
    }
    if (args.count) throw LayoutError("batched.solve: count is for the interleaved layout (the system-major A has k systems)");
    const batched::Batch<T> batch = batch_of<T>(A, y);
    batched::Result<T> r;
    {
        py::gil_scoped_release nogil;
        if (args.device == "cpu")
            r = batched::solve(batch, args.options);
        else
            r = batched::solve_opencl(batch, args.options, args.cl);
    }
    return result_dict(std::move(r));
}

bool is_interleaved(const std::string& layout)
{
    if (layout != "system-major" && layout != "interleaved")
        throw LayoutError("batched: layout must be 'system-major' or 'interleaved', got '" + layout + "'");
    return layout == "interleaved";
}

template <class T>
py::tuple batch_arrays(batched::Batch<T>&& b)
{
    auto* owned = new batched::Batch<T>(std::move(b));
    const py::capsule owner = owning(owned);
    return py::make_tuple(matrices_array(owned->A.data(), owned->count, owned->n, owner),
                          vectors_array(owned->y.data(), owned->count, owned->n, owner));
}

bool is_single(const std::string& precision)
{
    const auto p = batched::parse_precision(precision);
    if (!p) throw LayoutError("batched: precision must be 'single' or 'double', got '" + precision + "'");
    return *p == batched::Precision::Single;
}

} // namespace

void bind_batched(py::module_& m)
{
    py::module_ b = m.def_submodule("batched", "Batched solvers for many small symmetric systems (batched/batched.hpp).");
    py::list statuses, methods;
    for (int s = 0; s < batched::kStatusCount; ++s) statuses.append(batched::status_name(static_cast<batched::Status>(s)));
    for (int k = 0; k < 4; ++k) methods.append(batched::method_name(static_cast<batched::Method>(k)));
    b.attr("STATUS_NAMES") = py::tuple(statuses);
    b.attr("METHOD_NAMES") = py::tuple(methods);

    b.def("solve", [](const py::array& A, const py::array& y, const std::string& method, std::optional<double> tolerance,
                      std::optional<double> threshold, int threads, int ldlt_variant, const std::string& device,
                      const std::string& organization, int cooperating, int work_group, const std::string& opencl_device,
                      const std::string& build_options, const std::string& layout, std::optional<std::size_t> count) {
        SolveArgs args;
        args.interleaved = is_interleaved(layout);
        args.count = count;
        const auto parsed = batched::parse_method(method);
        if (!parsed) throw LayoutError("batched.solve: unknown method '" + method + "' (ldlt, householder-pcr, dc, auto)");
        args.options.method = *parsed;
        args.options.tolerance = tolerance.value_or(-1.0);
        args.options.threshold = threshold.value_or(-1.0);
        args.options.threads = threads;
        args.options.ldlt_variant = ldlt_variant;
        if (device != "cpu" && device != "opencl")
            throw LayoutError("batched.solve: device must be 'cpu' or 'opencl', got '" + device + "'");
        args.device = device;
        const auto org = batched::parse_organization(organization);
        if (!org) throw LayoutError("batched.solve: organization must be simd, collaborative or hybrid");
        args.cl.organization = *org;
        args.cl.cooperating = cooperating;
        args.cl.work_group = work_group;
        args.cl.device = opencl_device;
        args.cl.build_options = build_options;
        if (A.dtype().is(py::dtype::of<float>())) return solve_typed<float>(A, y, args);
        if (A.dtype().is(py::dtype::of<double>())) return solve_typed<double>(A, y, args);
        throw LayoutError("batched.solve: dtype must be float32 or float64, got " + py::str(A.dtype()).cast<std::string>());
    }, py::arg("A"), py::arg("y"), py::arg("method") = "auto", py::arg("tolerance") = py::none(),
       py::arg("threshold") = py::none(), py::arg("threads") = 1, py::arg("ldlt_variant") = 3, py::arg("device") = "cpu",
       py::arg("organization") = "hybrid", py::arg("cooperating") = 0, py::arg("work_group") = 0,
       py::arg("opencl_device") = "", py::arg("build_options") = "", py::arg("layout") = "system-major",
       py::arg("count") = py::none(),
       R"(Solve A[k] x[k] = y[k] for every k: many small symmetric systems.

Numerical trouble is reported per system in the result, never raised.

Parameters
----------
A : numpy.ndarray
    (k, n, n), float32 or float64, lower triangles read; with layout="interleaved",
    the interleaved layout's C-contiguous (blocks, n(n+1)/2, B), B = 16 for float32
    and 8 for float64.
y : numpy.ndarray
    (k, n) in A's dtype; interleaved: (blocks, n, B).
method : str, optional
    "ldlt", "householder-pcr", "dc" or "auto" (default).
tolerance : float or None, optional
    A system whose residual exceeds it is flagged (None: 16 n u).
threshold : float or None, optional
    The dc method's cut of small eigenvalues, relative to max |lambda| (None: 1e-5
    in single precision, 1e-12 in double).
threads : int, optional
    CPU threads (default 1); the result does not depend on them.
ldlt_variant : int, optional
    The LDL^T variant, 1 to 3 (default 3).
device : {"cpu", "opencl"}, optional
    Where to solve.
organization : {"simd", "collaborative", "hybrid"}, optional
    The OpenCL kernels' organization (default "hybrid").
cooperating : int, optional
    Work-items per system of the collaborative kernels (0: the default).
work_group : int, optional
    The OpenCL work-group size (0: the default).
opencl_device : str, optional
    The OpenCL device, by index or name ("": the default).
build_options : str, optional
    Extra OpenCL compiler options.
layout : {"system-major", "interleaved"}, optional
    The layout of A and y (default "system-major").
count : int or None, optional
    Interleaved: the number of systems (default blocks * B).

Returns
-------
dict
    "x" (k, n), "status" (codes into STATUS_NAMES), "solved_by" (codes into
    METHOD_NAMES), "column", "discarded", "residual", "first_residual", "seconds",
    "tolerance" and "threshold". The layouts give the same result, bit for bit.

Raises
------
ValueError
    Bad shapes, dtypes or option names.
flamex.OpenCLError
    device="opencl" without a usable device.)");

    b.def("interleave", [](const py::array& A, const py::array& y) {
        if (A.dtype().is(py::dtype::of<float>())) return interleaved_arrays(batched::interleave(batch_of<float>(A, y)));
        if (A.dtype().is(py::dtype::of<double>())) return interleaved_arrays(batched::interleave(batch_of<double>(A, y)));
        throw LayoutError("batched.interleave: dtype must be float32 or float64, got " + py::str(A.dtype()).cast<std::string>());
    }, py::arg("A"), py::arg("y"),
       R"(Convert a batch to the interleaved layout.

Parameters
----------
A : numpy.ndarray
    (k, n, n), float32 or float64 (lower triangles read).
y : numpy.ndarray
    (k, n), in A's dtype.

Returns
-------
A : numpy.ndarray
    (blocks, n(n+1)/2, B), B = 16 for float32 and 8 for float64; the last block
    padded with zeros.
y : numpy.ndarray
    (blocks, n, B).

Raises
------
ValueError
    Bad shapes or dtypes.)");

    b.def("deinterleave", [](const py::array& A, const py::array& y, std::optional<std::size_t> count) {
        if (A.dtype().is(py::dtype::of<float>())) return batch_arrays(batched::deinterleave(interleaved_of<float>(A, y, count)));
        if (A.dtype().is(py::dtype::of<double>())) return batch_arrays(batched::deinterleave(interleaved_of<double>(A, y, count)));
        throw LayoutError("batched.deinterleave: dtype must be float32 or float64, got " + py::str(A.dtype()).cast<std::string>());
    }, py::arg("A"), py::arg("y"), py::arg("count") = py::none(),
       R"(Convert a batch from the interleaved layout back to one system after another.

Parameters
----------
A : numpy.ndarray
    The interleaved layout's (blocks, n(n+1)/2, B).
y : numpy.ndarray
    The interleaved layout's (blocks, n, B).
count : int or None, optional
    The number of systems (default every lane, blocks * B).

Returns
-------
A : numpy.ndarray
    (k, n, n), both triangles stored.
y : numpy.ndarray
    (k, n).

Raises
------
ValueError
    Bad shapes, dtypes or count.)");

    b.def("generate_spd", [](int n, std::size_t count, double cond_min, double cond_max, std::uint64_t seed,
                             const std::string& precision, int threads) {
        batched::SpdSpec spec;
        spec.n = n;
        spec.count = count;
        spec.cond_min = cond_min;
        spec.cond_max = cond_max;
        spec.seed = seed;
        spec.threads = threads;
        std::vector<double> kappa;
        py::tuple ay;
        if (is_single(precision)) {
            batched::Batch<float> batch;
            {
                py::gil_scoped_release nogil;
                batch = batched::generate_spd<float>(spec, &kappa);
            }
            ay = batch_arrays(std::move(batch));
        } else {
            batched::Batch<double> batch;
            {
                py::gil_scoped_release nogil;
                batch = batched::generate_spd<double>(spec, &kappa);
            }
            ay = batch_arrays(std::move(batch));
        }
        return py::make_tuple(ay[0], ay[1], py::array_t<double>(static_cast<py::ssize_t>(kappa.size()), kappa.data()));
    }, py::arg("n"), py::arg("count"), py::arg("cond_min") = 1.0, py::arg("cond_max") = 1e6, py::arg("seed") = 0,
       py::arg("precision") = "double", py::arg("threads") = 1,
       R"(Generate a batch of symmetric positive definite systems Q diag(lambda) Q^T.

Parameters
----------
n : int
    The order of each system.
count : int
    The number of systems.
cond_min : float, optional
    The smallest 2-norm condition number (default 1).
cond_max : float, optional
    The largest (default 1e6); each kappa_k is log-uniform in [cond_min, cond_max].
seed : int, optional
    The generator's seed.
precision : {"double", "single"}, optional
    float64 (default) or float32.
threads : int, optional
    Threads (the result does not depend on them).

Returns
-------
A : numpy.ndarray
    (count, n, n).
y : numpy.ndarray
    (count, n).
kappa : numpy.ndarray
    (count,), each system's condition number.

Raises
------
ValueError
    Bad sizes or precision.)");

    b.def("generate_regression", [](int n, std::size_t count, int paths, std::uint64_t seed, const std::string& precision,
                                    int threads, const std::string& layout) {
        const bool interleaved = is_interleaved(layout);
        batched::RegressionSpec spec;
        spec.n = n;
        spec.count = count;
        spec.paths = paths;
        spec.seed = seed;
        spec.threads = threads;
        const auto generate = [&spec, interleaved](auto zero) -> py::tuple {
            using T = decltype(zero);
            if (interleaved) {
                batched::InterleavedBatch<T> batch;
                {
                    py::gil_scoped_release nogil;
                    batch = batched::generate_regression_interleaved<T>(spec);
                }
                return interleaved_arrays(std::move(batch));
            }
            batched::Batch<T> batch;
            {
                py::gil_scoped_release nogil;
                batch = batched::generate_regression<T>(spec);
            }
            return batch_arrays(std::move(batch));
        };
        return is_single(precision) ? generate(0.0f) : generate(0.0);
    }, py::arg("n") = 30, py::arg("count") = 1000, py::arg("paths") = 300, py::arg("seed") = 0,
       py::arg("precision") = "double", py::arg("threads") = 1, py::arg("layout") = "system-major",
       R"(Generate the paper's Black & Scholes regression Gram matrices, accumulated in the precision.

Parameters
----------
n : int, optional
    The order of each system (default 30).
count : int, optional
    The number of systems (default 1000).
paths : int, optional
    The Monte Carlo paths each matrix accumulates (default 300).
seed : int, optional
    The generator's seed.
precision : {"double", "single"}, optional
    float64 (default) or float32.
threads : int, optional
    Threads (the result does not depend on them).
layout : {"system-major", "interleaved"}, optional
    "interleaved": written directly in the interleaved layout (the same bits; see
    solve).

Returns
-------
A : numpy.ndarray
    The matrices, in the layout.
y : numpy.ndarray
    The right-hand sides, in the layout.

Raises
------
ValueError
    Bad sizes, precision or layout.)");

    b.def("condition_numbers", [](const py::array& A, int threads) {
        // Only A is needed; y is a placeholder of the right shape.
        const py::object zeros = py::module_::import("numpy").attr("zeros");
        const py::array y = zeros(py::make_tuple(A.ndim() == 3 ? A.shape(0) : 0, A.ndim() == 3 ? A.shape(1) : 0),
                                  py::arg("dtype") = A.dtype());
        std::vector<double> kappa;
        if (A.dtype().is(py::dtype::of<float>())) {
            const auto batch = batch_of<float>(A, y);
            py::gil_scoped_release nogil;
            kappa = batched::condition_numbers(batch, threads);
        } else if (A.dtype().is(py::dtype::of<double>())) {
            const auto batch = batch_of<double>(A, y);
            py::gil_scoped_release nogil;
            kappa = batched::condition_numbers(batch, threads);
        } else {
            throw LayoutError("batched.condition_numbers: dtype must be float32 or float64");
        }
        return py::array_t<double>(static_cast<py::ssize_t>(kappa.size()), kappa.data());
    }, py::arg("A"), py::arg("threads") = 1, R"(The 2-norm condition number of every system of a batch.

Parameters
----------
A : numpy.ndarray
    (k, n, n), float32 or float64; the lower triangles are read.
threads : int, optional
    Threads (the result does not depend on them).

Returns
-------
numpy.ndarray
    (k,), float64.

Raises
------
ValueError
    Bad shapes or dtypes.)");
}

} // namespace flamex::python
