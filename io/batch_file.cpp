// The batch file format (see io/batch_file.hpp): a 32-byte little-endian header,
// then systems or solutions. Every malformed file is a flamex::Error naming the file
// and what is wrong; sizes are checked against the header before anything large is
// allocated.
#include <cstring>
#include <fstream>
#include <limits>
#include <type_traits>
#include <utility>

#include "io/batch_file.hpp"

namespace flamex::batched {

namespace {

constexpr char kMagic[8] = {'F', 'L', 'X', 'B', 'A', 'T', 'C', 'H'};
constexpr std::uint32_t kVersion = 1, kSystems = 1, kSolutions = 2, kInterleavedSystems = 3;
constexpr std::size_t kHeaderBytes = 32, kRecordBytes = 24;

bool little_endian_host()
{
    const std::uint16_t one = 1;
    unsigned char b;
    std::memcpy(&b, &one, 1);
    return b == 1;
}

template <class U>
void put_le(std::string& out, U value)
{
    for (std::size_t i = 0; i < sizeof(U); ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

template <class U>
U get_le(const unsigned char* p)
{
    U v = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i) v |= static_cast<U>(p[i]) << (8 * i);
    return v;
}

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// Scalars to / from little-endian bytes, in bulk.
template <class T>
void write_scalars(std::ostream& out, const T* data, std::size_t count)
{
    if (little_endian_host()) {
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(count * sizeof(T)));
        return;
    }
    std::string buffer;
    buffer.reserve(count * sizeof(T));
    for (std::size_t i = 0; i < count; ++i) {
        Bits<T> b;
        std::memcpy(&b, data + i, sizeof(T));
        put_le(buffer, b);
    }
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

template <class T>
void read_scalars(std::istream& in, T* data, std::size_t count)
{
    in.read(reinterpret_cast<char*>(data), static_cast<std::streamsize>(count * sizeof(T)));
    if (little_endian_host()) return;
    for (std::size_t i = 0; i < count; ++i) {
        const auto* p = reinterpret_cast<const unsigned char*>(data + i);
        const Bits<T> b = get_le<Bits<T>>(p);
        std::memcpy(data + i, &b, sizeof(T));
    }
}

std::string header(std::uint32_t content, std::uint32_t scalar, int n, std::size_t count)
{
    std::string h(kMagic, kMagic + 8);
    put_le<std::uint32_t>(h, kVersion);
    put_le<std::uint32_t>(h, content);
    put_le<std::uint32_t>(h, scalar);
    put_le<std::uint32_t>(h, static_cast<std::uint32_t>(n));
    put_le<std::uint64_t>(h, static_cast<std::uint64_t>(count));
    return h;
}

std::ofstream open_out(const std::string& path)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path + ": cannot create the file");
    return out;
}

void finish(std::ofstream& out, const std::string& path)
{
    out.flush();
    if (!out) throw Error(path + ": error writing the file");
}

struct Header {
    std::uint32_t content = 0, scalar = 0;
    int n = 0;
    std::uint64_t count = 0;
};

const char* content_name(std::uint32_t c)
{
    return c == kSystems ? "systems" : c == kInterleavedSystems ? "interleaved systems" : "solutions";
}

bool holds_systems(std::uint32_t c) { return c == kSystems || c == kInterleavedSystems; }

// Opens, checks the header and the exact file size for `content` (kSystems: either
// layout of systems).
std::ifstream open_in(const std::string& path, std::uint32_t content, Header& h)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open the file");
    in.seekg(0, std::ios::end);
    const std::streamoff size_off = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size_off < 0) throw Error(path + ": cannot determine the file's size");
    const auto size = static_cast<std::uint64_t>(size_off);
    if (size < kHeaderBytes)
        throw Error(path + ": too short for a flamex batch file (" + std::to_string(size) + " bytes; the header alone is " +
                    std::to_string(kHeaderBytes) + ")");
    unsigned char raw[kHeaderBytes];
    in.read(reinterpret_cast<char*>(raw), kHeaderBytes);
    if (!in) throw Error(path + ": cannot read the header");
    if (std::memcmp(raw, kMagic, 8) != 0) throw Error(path + ": not a flamex batch file (bad magic; expected \"FLXBATCH\")");
    const std::uint32_t version = get_le<std::uint32_t>(raw + 8);
    if (version != kVersion)
        throw Error(path + ": unsupported batch format version " + std::to_string(version) + " (this build reads version " +
                    std::to_string(kVersion) + ")");
    h.content = get_le<std::uint32_t>(raw + 12);
    if (h.content != kSystems && h.content != kSolutions && h.content != kInterleavedSystems)
        throw Error(path + ": bad content code " + std::to_string(h.content) +
                    " (1 = systems, 2 = solutions, 3 = interleaved systems)");
    if (holds_systems(h.content) != holds_systems(content) || (content == kSolutions && h.content != kSolutions))
        throw Error(path + ": the file holds " + content_name(h.content) + ", expected " + content_name(content));
    h.scalar = get_le<std::uint32_t>(raw + 16);
    if (h.scalar != 4 && h.scalar != 8)
        throw Error(path + ": bad scalar size " + std::to_string(h.scalar) + " (4 for single or 8 for double precision)");
    const std::uint32_t n = get_le<std::uint32_t>(raw + 20);
    if (n < 1 || n > static_cast<std::uint32_t>(kMaxOrder))
        throw Error(path + ": order n = " + std::to_string(n) + " is out of range [1, " + std::to_string(kMaxOrder) + "]");
    h.n = static_cast<int>(n);
    h.count = get_le<std::uint64_t>(raw + 24);
    // Expected payload, with overflow checks: per system n*n + n scalars, or n
    // scalars and a record; interleaved, per block of 64 / scalar systems (the last
    // one padded) n(n+1)/2 + n scalars per system.
    const std::uint64_t block = h.content == kInterleavedSystems ? 64 / h.scalar : 1;
    const std::uint64_t per = h.content == kSystems ? (std::uint64_t(n) * n + n) * h.scalar
                              : h.content == kInterleavedSystems
                                  ? (std::uint64_t(n) * (n + 1) / 2 + n) * h.scalar * block
                                  : std::uint64_t(n) * h.scalar + kRecordBytes;
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - kHeaderBytes;
    const std::uint64_t units = h.count / block + (h.count % block != 0); // systems, or blocks
    if (h.count > limit / per)
        throw Error(path + ": truncated: the header promises " + std::to_string(h.count) + " systems of order " +
                    std::to_string(n) + ", more than any file holds, but the file has " + std::to_string(size) + " bytes");
    const std::uint64_t expected = kHeaderBytes + units * per;
    if (size < expected)
        throw Error(path + ": truncated: the header promises " + std::to_string(h.count) + " " + content_name(h.content) +
                    " of order " + std::to_string(n) + " (" + std::to_string(expected) + " bytes) but the file has " +
                    std::to_string(size) + " bytes");
    if (size > expected)
        throw Error(path + ": " + std::to_string(size - expected) + " trailing bytes after the " + std::to_string(h.count) +
                    " " + content_name(h.content) + " of order " + std::to_string(n) + " (expected " +
                    std::to_string(expected) + " bytes)");
    if (h.count > std::numeric_limits<std::size_t>::max() / (std::uint64_t(n) * n + n))
        throw Error(path + ": too many systems for this machine's memory");
    return in;
}

void check_read(std::istream& in, const std::string& path)
{
    if (!in) throw Error(path + ": error reading the file");
}

template <class T>
Batch<T> read_systems(std::istream& in, const Header& h, const std::string& path)
{
    Batch<T> b(h.n, static_cast<std::size_t>(h.count));
    read_scalars(in, b.A.data(), b.A.size());
    read_scalars(in, b.y.data(), b.y.size());
    check_read(in, path);
    return b;
}

template <class T>
InterleavedBatch<T> read_interleaved_systems(std::istream& in, const Header& h, const std::string& path)
{
    InterleavedBatch<T> b(h.n, static_cast<std::size_t>(h.count));
    read_scalars(in, b.A.data(), b.A.size());
    read_scalars(in, b.y.data(), b.y.size());
    check_read(in, path);
    return b;
}

template <class T>
Solutions<T> read_solution_payload(std::istream& in, const Header& h, const std::string& path)
{
    Solutions<T> s;
    s.n = h.n;
    s.count = static_cast<std::size_t>(h.count);
    s.x.resize(s.count * h.n);
    read_scalars(in, s.x.data(), s.x.size());
    s.report.resize(s.count);
    unsigned char rec[kRecordBytes];
    for (std::size_t k = 0; k < s.count; ++k) {
        in.read(reinterpret_cast<char*>(rec), kRecordBytes);
        check_read(in, path);
        SystemReport& r = s.report[k];
        if (rec[0] >= kStatusCount)
            throw Error(path + ": system " + std::to_string(k) + ": bad status code " + std::to_string(rec[0]));
        if (rec[1] > static_cast<unsigned char>(Method::DivideConquer))
            throw Error(path + ": system " + std::to_string(k) + ": bad method code " + std::to_string(rec[1]));
        r.status = static_cast<Status>(rec[0]);
        r.solved_by = static_cast<Method>(rec[1]);
        r.discarded = get_le<std::uint16_t>(rec + 2);
        r.column = static_cast<std::int32_t>(get_le<std::uint32_t>(rec + 4));
        const std::uint64_t b1 = get_le<std::uint64_t>(rec + 8), b2 = get_le<std::uint64_t>(rec + 16);
        std::memcpy(&r.residual, &b1, 8);
        std::memcpy(&r.first_residual, &b2, 8);
    }
    check_read(in, path);
    return s;
}

} // namespace

template <class T>
void write_batch(const std::string& path, const Batch<T>& b)
{
    if (b.n < 1 || b.n > kMaxOrder || b.A.size() != b.count * b.n * b.n || b.y.size() != b.count * b.n)
        throw Error(path + ": cannot write an inconsistent batch (n = " + std::to_string(b.n) + ", count = " +
                    std::to_string(b.count) + ")");
    std::ofstream out = open_out(path);
    const std::string h = header(kSystems, sizeof(T), b.n, b.count);
    out.write(h.data(), static_cast<std::streamsize>(h.size()));
    write_scalars(out, b.A.data(), b.A.size());
    write_scalars(out, b.y.data(), b.y.size());
    finish(out, path);
}

template <class T>
void write_batch(const std::string& path, const InterleavedBatch<T>& b)
{
    constexpr std::size_t B = InterleavedBatch<T>::kBlock;
    if (b.n < 1 || b.n > kMaxOrder || b.A.size() != b.blocks() * packed_size(b.n) * B || b.y.size() != b.blocks() * b.n * B)
        throw Error(path + ": cannot write an inconsistent interleaved batch (n = " + std::to_string(b.n) + ", count = " +
                    std::to_string(b.count) + ")");
    std::ofstream out = open_out(path);
    const std::string h = header(kInterleavedSystems, sizeof(T), b.n, b.count);
    out.write(h.data(), static_cast<std::streamsize>(h.size()));
    write_scalars(out, b.A.data(), b.A.size());
    write_scalars(out, b.y.data(), b.y.size());
    finish(out, path);
}

AnyBatchFile read_batch_file(const std::string& path)
{
    Header h;
    std::ifstream in = open_in(path, kSystems, h);
    if (h.content == kInterleavedSystems) {
        if (h.scalar == 4) return read_interleaved_systems<float>(in, h, path);
        return read_interleaved_systems<double>(in, h, path);
    }
    if (h.scalar == 4) return read_systems<float>(in, h, path);
    return read_systems<double>(in, h, path);
}

AnyBatch read_batch(const std::string& path)
{
    return std::visit(
        [](auto&& b) -> AnyBatch {
            using B = std::decay_t<decltype(b)>;
            if constexpr (std::is_same_v<B, Batch<float>> || std::is_same_v<B, Batch<double>>)
                return std::move(b);
            else
                return deinterleave(b);
        },
        read_batch_file(path));
}

template <class T>
void write_solutions(const std::string& path, const Result<T>& r)
{
    if (r.n < 1 || r.n > kMaxOrder || r.x.size() != r.count * r.n || r.report.size() != r.count)
        throw Error(path + ": cannot write inconsistent solutions");
    std::ofstream out = open_out(path);
    const std::string h = header(kSolutions, sizeof(T), r.n, r.count);
    out.write(h.data(), static_cast<std::streamsize>(h.size()));
    write_scalars(out, r.x.data(), r.x.size());
    std::string records;
    records.reserve(r.count * kRecordBytes);
    for (const SystemReport& s : r.report) {
        records.push_back(static_cast<char>(s.status));
        records.push_back(static_cast<char>(s.solved_by));
        put_le<std::uint16_t>(records, s.discarded);
        put_le<std::uint32_t>(records, static_cast<std::uint32_t>(s.column));
        std::uint64_t b1, b2;
        std::memcpy(&b1, &s.residual, 8);
        std::memcpy(&b2, &s.first_residual, 8);
        put_le<std::uint64_t>(records, b1);
        put_le<std::uint64_t>(records, b2);
    }
    out.write(records.data(), static_cast<std::streamsize>(records.size()));
    finish(out, path);
}

AnySolutions read_solutions(const std::string& path)
{
    Header h;
    std::ifstream in = open_in(path, kSolutions, h);
    if (h.scalar == 4) return read_solution_payload<float>(in, h, path);
    return read_solution_payload<double>(in, h, path);
}

template void write_batch<float>(const std::string&, const Batch<float>&);
template void write_batch<double>(const std::string&, const Batch<double>&);
template void write_batch<float>(const std::string&, const InterleavedBatch<float>&);
template void write_batch<double>(const std::string&, const InterleavedBatch<double>&);
template void write_solutions<float>(const std::string&, const Result<float>&);
template void write_solutions<double>(const std::string&, const Result<double>&);

} // namespace flamex::batched
