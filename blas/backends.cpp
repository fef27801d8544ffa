#include <cstdlib>

#include "blas/backend_factories.hpp"

namespace flamex {

const std::vector<BackendInfo>& backends()
{
    static const std::vector<BackendInfo> list = {
        {"blis", "BLIS typed API: the fast baseline; its bits depend on the CPU and BLIS's blocking", make_blis_backend},
        {"exact", "correctly rounded exact kernels on the CPU: bit-reproducible for any threads and block size", make_exact_backend},
        {"opencl-plain", "plain double-precision OpenCL kernels (the parallel baseline), not reproducible", make_opencl_plain_backend},
        {"opencl", "exact kernels on an OpenCL device: correctly rounded, bit-identical to exact on any device and launch geometry", make_opencl_exact_backend},
    };
    return list;
}

std::unique_ptr<Blas> make_backend(const std::string& name, const BackendOptions& options)
{
    if (options.threads < 1) throw Error("backend: thread count must be at least 1, got " + std::to_string(options.threads));
    if (options.block < 0) throw Error("backend: block size must not be negative, got " + std::to_string(options.block));
    std::string known;
    for (const BackendInfo& b : backends()) {
        if (b.name == name) return b.make(options);
        known += (known.empty() ? "" : ", ") + b.name;
    }
    throw Error("unknown backend '" + name + "' (known: " + known + ")");
}

std::string default_backend_name()
{
    const char* env = std::getenv("FLAMEX_BACKEND");
    return env != nullptr && *env != '\0' ? env : "blis";
}

} // namespace flamex
