// flamex.__version__ and the facts behind flamex.show_config(): the project's version
// (CMake's project(VERSION), the same FLAMEX_VERSION the CLI prints for --version), the
// registered backends, the OpenCL devices, the exact kernels' instruction set and the
// BLIS this module is linked with. show_config itself (printing, the dict) is Python's,
// in flamex/__init__.py.
#include "bindings.hpp"

#include <blis.h>

#include "exact/exact.hpp"
#include "opencl/devices.hpp"

#ifndef FLAMEX_VERSION
#error "FLAMEX_VERSION must be defined by the build (python/CMakeLists.txt)"
#endif

namespace flamex::python {

namespace {

py::dict config()
{
    py::list backend_list;
    for (const BackendInfo& b : backends())
        backend_list.append(py::dict(py::arg("name") = b.name, py::arg("description") = b.description));

    // No OpenCL platform is a configuration like any other here: an empty list and
    // the reason, never an exception (flamex.devices() raises it).
    py::list device_list;
    std::string opencl_error;
    try {
        for (const OpenClDeviceInfo& d : opencl_devices())
            device_list.append(py::dict(py::arg("index") = d.index, py::arg("name") = d.name, py::arg("platform") = d.platform,
                                        py::arg("type") = d.type, py::arg("version") = d.version, py::arg("fp64") = d.fp64,
                                        py::arg("description") = describe_device(d)));
    } catch (const Error& e) {
        opencl_error = e.what();
    }

    const char* env_isa = std::getenv("FLAMEX_EXACT_ISA");
    const char* env_backend = std::getenv("FLAMEX_BACKEND");
    return py::dict(
        py::arg("version") = FLAMEX_VERSION,
        py::arg("backends") = backend_list,
        py::arg("default_backend") = default_backend_name(),
        py::arg("opencl") = py::dict(py::arg("devices") = device_list, py::arg("error") = opencl_error),
        py::arg("exact") = py::dict(py::arg("kernel_isa") = exact::kernel_isa(),
                                    py::arg("FLAMEX_EXACT_ISA") = env_isa ? py::object(py::str(env_isa)) : py::object(py::none())),
        py::arg("blis") = py::dict(py::arg("version") = std::string(bli_info_get_version_str()),
                                   py::arg("arch") = std::string(bli_arch_string(bli_arch_query_id()))),
        py::arg("environment") = py::dict(
            py::arg("FLAMEX_BACKEND") = env_backend ? py::object(py::str(env_backend)) : py::object(py::none())));
}

} // namespace

void bind_config(py::module_& m)
{
    m.attr("__version__") = FLAMEX_VERSION;
    m.def("_config", &config,
          "The configuration flamex.show_config(mode='dicts') returns (see its docstring).");
}

} // namespace flamex::python
