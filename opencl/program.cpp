// Programs: built once per context, their binaries cached on disk; and the kernel
// sources embedded at build time (embedded_source), in which a line
// `#include "OTHER.cl"` stands for kernels/OTHER.cl and `#include "OTHER.h"` for
// kernels/OTHER.h (a C-subset header the host code includes too): it is expanded here,
// so a program is built from, and its cache entry keyed on, the whole expanded text.
//
// A cache entry is the file <dir>/<name>-<hash>.clbin:
//   "FLAMEX-OCL-BIN1\n" | key hash A | key hash B | binary size | binary checksum | binary
// (four little 64-bit words), where the key is source + build options + device name
// + device and driver versions + platform. An entry whose header, key, size or
// checksum does not match, or whose binary the driver refuses, is ignored (counted
// as rejected) and replaced by a fresh build. Entries are written to a temporary
// file and renamed, so a concurrent reader never sees half a file.
#include "opencl/host.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "opencl/embedded.hpp"

namespace flamex::opencl {

namespace {

std::atomic<std::uint64_t> built_count{0}, loaded_count{0}, rejected_count{0}, stored_count{0};

constexpr char kMagic[16] = {'F', 'L', 'A', 'M', 'E', 'X', '-', 'O', 'C', 'L', '-', 'B', 'I', 'N', '1', '\n'};

std::uint64_t fnv1a(const std::string& s)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

// An independent second hash (multiply-xorshift), so that the pair is a 128-bit key.
std::uint64_t mix_hash(const unsigned char* p, std::size_t n)
{
    std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (std::size_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
    }
    return h;
}

std::string hex(std::uint64_t v)
{
    static const char* const digits = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 15];
    return s;
}

struct CacheKey {
    std::uint64_t a = 0, b = 0;
};

CacheKey cache_key(const std::string& source, const std::string& options, const OpenClDeviceInfo& d)
{
    std::string key = "flamex-opencl-program v1";
    for (const std::string* part : {&source, &options, &d.name, &d.vendor, &d.version, &d.driver_version, &d.platform,
                                    &d.platform_version}) {
        key += '\0';
        key += std::to_string(part->size());
        key += ':';
        key += *part;
    }
    return {fnv1a(key), mix_hash(reinterpret_cast<const unsigned char*>(key.data()), key.size())};
}

void put64(std::string& out, std::uint64_t v)
{
    for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint64_t get64(const std::string& in, std::size_t at)
{
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)]);
    return v;
}

constexpr std::size_t kHeader = sizeof kMagic + 4 * 8;

// The binary in the cache file, or empty when the file is missing or does not match.
std::vector<unsigned char> read_entry(const std::string& path, const CacheKey& key, bool& existed)
{
    std::ifstream in(path, std::ios::binary);
    existed = static_cast<bool>(in);
    if (!in) return {};
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (data.size() < kHeader || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) return {};
    if (get64(data, 16) != key.a || get64(data, 24) != key.b) return {};
    const std::uint64_t size = get64(data, 32), checksum = get64(data, 40);
    if (size == 0 || size != data.size() - kHeader) return {};
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data()) + kHeader;
    if (mix_hash(bytes, static_cast<std::size_t>(size)) != checksum) return {};
    return std::vector<unsigned char>(bytes, bytes + size);
}

bool write_entry(const std::string& path, const CacheKey& key, const std::vector<unsigned char>& binary)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    std::string data(kMagic, sizeof kMagic);
    put64(data, key.a);
    put64(data, key.b);
    put64(data, binary.size());
    put64(data, mix_hash(binary.data(), binary.size()));
    data.append(reinterpret_cast<const char*>(binary.data()), binary.size());
    static std::atomic<unsigned> serial{0};
    const std::string temporary = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) return false;
        out.write(data.data(), static_cast<std::streamsize>(data.size()));
        out.close();
        if (!out) {
            fs::remove(temporary, ec);
            return false;
        }
    }
    fs::rename(temporary, path, ec);
    if (ec) fs::remove(temporary, ec);
    return !ec;
}

std::string build_log(const cl::Program& program, const cl::Device& device)
{
    cl_int err = CL_SUCCESS;
    std::string log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device, &err);
    if (err != CL_SUCCESS) return "(no build log: " + error_name(err) + ")";
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return log.empty() ? "(the build log is empty)" : log;
}

} // namespace

std::string program_cache_dir()
{
    if (const char* dir = std::getenv("FLAMEX_OPENCL_CACHE")) {
        const std::string d = dir;
        return d == "off" ? std::string() : d;
    }
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
        return std::string(xdg) + "/flamex";
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
        return std::string(home) + "/.cache/flamex";
    return "";
}

ProgramCacheStats program_cache_stats()
{
    return {built_count.load(), loaded_count.load(), rejected_count.load(), stored_count.load()};
}

cl::Kernel Program::kernel(const char* kernel_name) const
{
    cl_int err = CL_SUCCESS;
    cl::Kernel k(program_, kernel_name, &err);
    if (err != CL_SUCCESS) fail("creating kernel '" + std::string(kernel_name) + "' of program '" + name_ + "'", err);
    return k;
}

std::shared_ptr<const Program> Context::program(const std::string& name, const std::string& source,
                                                const std::string& options)
{
    const std::string key = name + '\0' + options + '\0' + source;
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = programs_.find(key);
    if (found != programs_.end()) return found->second;
    std::shared_ptr<const Program> p = build(name, source, options);
    programs_.emplace(key, p);
    return p;
}

std::shared_ptr<const Program> Context::build(const std::string& name, const std::string& source,
                                              const std::string& options)
{
    const std::vector<cl::Device> devices = {device_.device};
    const CacheKey key = cache_key(source, options, info());
    const std::string file = cache_dir_.empty() ? std::string() : cache_dir_ + "/" + name + "-" + hex(key.a) + ".clbin";

    if (!file.empty()) {
        bool existed = false;
        std::vector<unsigned char> binary = read_entry(file, key, existed);
        if (!binary.empty()) {
            cl_int err = CL_SUCCESS;
            std::vector<cl_int> status;
            cl::Program program(context_, devices, cl::Program::Binaries{binary}, &status, &err);
            if (err == CL_SUCCESS && program.build(devices, options.c_str()) == CL_SUCCESS) {
                ++loaded_count;
                return std::make_shared<Program>(name, program, Program::Origin::DiskCache, file);
            }
        }
        if (existed) ++rejected_count;
    }

    cl_int err = CL_SUCCESS;
    cl::Program program(context_, source, false, &err);
    if (err != CL_SUCCESS) fail("creating program '" + name + "'", err);
    err = program.build(devices, options.c_str());
    if (err != CL_SUCCESS)
        throw Error("opencl: program '" + name + "' failed to build on '" + info().name + "' (" + error_name(err) +
                    ", options \"" + options + "\"); build log:\n" + build_log(program, device_.device));
    ++built_count;

    if (!file.empty()) {
        cl_int berr = CL_SUCCESS;
        const cl::Program::Binaries binaries = program.getInfo<CL_PROGRAM_BINARIES>(&berr);
        if (berr == CL_SUCCESS && binaries.size() == 1 && !binaries.front().empty() &&
            write_entry(file, key, binaries.front()))
            ++stored_count;
    }
    return std::make_shared<Program>(name, program, Program::Origin::Source, file);
}

namespace {

// The embedded name of a line `#include "X.cl"` (X) or `#include "X.h"` (X.h), the
// line without its newline; else "".
std::string included_name(const std::string& line)
{
    static const std::string head = "#include \"";
    if (line.size() <= head.size() + 3 || line.compare(0, head.size(), head) != 0 || line.back() != '"') return "";
    const std::string file = line.substr(head.size(), line.size() - head.size() - 1);
    const auto ends_with = [&file](const std::string& tail) {
        return file.size() > tail.size() && file.compare(file.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends_with(".cl")) return file.substr(0, file.size() - 3);
    if (ends_with(".h")) return file;
    return "";
}

// kernels/NAME.cl with each line `#include "OTHER.cl"` (or "OTHER.h") replaced by
// kernels/OTHER.cl (kernels/OTHER.h), itself expanded (`depth` guards against a cycle).
std::string expand_includes(const std::map<std::string, std::string>& raw, const std::string& name, int depth)
{
    const std::string& text = raw.at(name);
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        end = end == std::string::npos ? text.size() : end + 1;
        std::string line = text.substr(at, end - at);
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
        const std::string other = included_name(line);
        if (other.empty()) {
            out.append(text, at, end - at);
        } else {
            if (raw.count(other) == 0)
                throw Error("opencl: kernels/" + name + " includes \"" + other + "\", which is not embedded");
            if (depth >= 8) throw Error("opencl: kernels/" + name + ": #include nested too deeply (a cycle?)");
            out += expand_includes(raw, other, depth + 1);
            if (!out.empty() && out.back() != '\n') out += '\n';
        }
        at = end;
    }
    return out;
}

} // namespace

const std::string& embedded_source(const std::string& name)
{
    static const std::map<std::string, std::string> sources = [] {
        std::map<std::string, std::string> raw;
        for (std::size_t i = 0; i < embedded::source_count; ++i) {
            std::string text;
            for (std::size_t c = 0; c < embedded::sources[i].count; ++c) text += embedded::sources[i].chunks[c];
            raw.emplace(embedded::sources[i].name, std::move(text));
        }
        std::map<std::string, std::string> m;
        for (const auto& entry : raw) m.emplace(entry.first, expand_includes(raw, entry.first, 0));
        return m;
    }();
    auto found = sources.find(name);
    if (found == sources.end()) throw Error("opencl: no embedded kernel source '" + name + "' (kernels/" + name + ".cl)");
    return found->second;
}

} // namespace flamex::opencl
