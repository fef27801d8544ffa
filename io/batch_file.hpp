// The binary batch file of `flamex batch` (batched/batched.hpp's Batch and Result on
// disk): what the CLI, the experiments and the Python module read and write.
#pragma once

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "batched/batched.hpp"

namespace flamex::batched {

// Binary, little-endian, a 32-byte header and then the payload:
//
//   offset  size  field
//        0     8  magic "FLXBATCH"
//        8     4  uint32 version = 1
//       12     4  uint32 content: 1 = systems, 2 = solutions, 3 = interleaved systems
//       16     4  uint32 scalar size in bytes: 4 = IEEE binary32, 8 = binary64
//       20     4  uint32 n, 1 .. 64
//       24     8  uint64 count
//       32        payload
//
// Systems (content 1): count * n * n scalars, the matrices one after another, each
// column-major with both triangles (Batch::A), then count * n scalars, the right-hand
// sides one after another (Batch::y).
// Interleaved systems (content 3; the layout of InterleavedBatch, batched/batched.hpp):
// B = 64 / scalar size systems per block (16 single, 8 double), ceil(count / B)
// blocks, the last padded (the padding lanes are written as zeros and never read);
// first every block's n(n+1)/2 packed lower-triangle entries, B scalars each (lane l:
// system b B + l), then every block's n right-hand-side entries, B scalars each
// (InterleavedBatch::A, then ::y).
// Solutions (content 2): count * n scalars x (Result::x), then count records of 24
// bytes, one per system: uint8 status (Status), uint8 solved_by (Method), uint16
// discarded, int32 column, float64 residual, float64 first_residual.
//
// The file size must be exactly 32 + payload. Readers throw flamex::Error whose
// message starts with "FILE: " and says what is wrong: cannot open, shorter than a
// header, bad magic, unsupported version, wrong content, bad scalar size, n outside
// [1, 64], truncated or with trailing bytes (expected and actual sizes, in the
// header's layout), a bad status or method code.

using AnyBatch = std::variant<Batch<float>, Batch<double>>;
using AnyBatchFile = std::variant<Batch<float>, Batch<double>, InterleavedBatch<float>, InterleavedBatch<double>>;

template <class T>
void write_batch(const std::string& path, const Batch<T>& batch);
template <class T>
void write_batch(const std::string& path, const InterleavedBatch<T>& batch);
// The systems of a file of either layout, in the system-major layout.
AnyBatch read_batch(const std::string& path);
// The systems in the file's own layout (content 1 or 3).
AnyBatchFile read_batch_file(const std::string& path);

template <class T>
void write_solutions(const std::string& path, const Result<T>& result);

template <class T>
struct Solutions {
    int n = 0;
    std::size_t count = 0;
    std::vector<T> x;
    std::vector<SystemReport> report;
};
using AnySolutions = std::variant<Solutions<float>, Solutions<double>>;
AnySolutions read_solutions(const std::string& path);

} // namespace flamex::batched
