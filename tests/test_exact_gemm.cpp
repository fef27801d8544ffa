// The `exact` backend's gemm: every blocked LU variant keeps the bits it had before
// gemm got its BLIS-based path (fixed-seed golden hashes recorded with the
// per-element kernel, before the change).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "blas/blas.hpp"
#include "support/test_support.hpp"
#include "variants/lu.hpp"

using flamex::Blas;
using flamex::Matrix;
using flamex::Obj;
using flamex::Pivots;
using Dim = flamex::dim_t;
namespace support = flamex::test;

namespace {

// FNV-1a over the bytes of every element (column by column), then of the pivots and the info.
std::uint64_t fnv1a(std::uint64_t h, const void* data, std::size_t n)
{
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::uint64_t lu_hash(const Blas& blas, const flamex::LuVariant& v, Dim m, Dim n, Dim block, std::uint64_t seed)
{
    Matrix A = support::random_matrix(m, n, seed);
    if (!v.pivoting)
        for (Dim i = 0; i < std::min(m, n); ++i) A(i, i) += (A(i, i) < 0 ? -1.0 : 1.0) * static_cast<double>(std::max(m, n));
    Pivots p(std::min(m, n));
    flamex::LuControl control;
    control.block = block;
    const flamex::LuInfo info = flamex::lu(blas, v, A, p, control);
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (Dim j = 0; j < n; ++j)
        for (Dim i = 0; i < m; ++i) h = fnv1a(h, &A(i, j), sizeof(double));
    for (Dim i = 0; i < p.size(); ++i) h = fnv1a(h, &p[i], sizeof(int));
    return fnv1a(h, &info.zero_pivot, sizeof info.zero_pivot);
}

struct GoldenCase {
    Dim m, n, block;
};

const GoldenCase kGoldenCases[] = {{300, 300, 64}, {260, 140, 48}, {140, 260, 100}};

} // namespace

// FLAMEX_PRINT_GOLDEN=1 prints the table below (how it was recorded).
TEST(ExactGemmGolden, BlockedLuVariantsKeepTheirBits)
{
    const std::map<std::string, std::uint64_t> golden = {
#include "exact_gemm_golden.inc"
    };
    const bool print = std::getenv("FLAMEX_PRINT_GOLDEN") != nullptr;
    for (const int threads : {1, 2}) {
        const std::unique_ptr<Blas> exact = flamex::make_backend("exact", {threads, 0, ""});
        for (const flamex::LuVariant& v : flamex::lu_variants()) {
            if (!v.blocked) continue;
            for (const GoldenCase& c : kGoldenCases) {
                const std::string key = v.name + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + " block " +
                                        std::to_string(c.block);
                const std::uint64_t h = lu_hash(*exact, v, c.m, c.n, c.block, 4242);
                if (print) {
                    if (threads == 1) std::printf("    {\"%s\", 0x%016llxULL},\n", key.c_str(), static_cast<unsigned long long>(h));
                    continue;
                }
                const auto it = golden.find(key);
                ASSERT_NE(it, golden.end()) << key << " has no recorded hash";
                EXPECT_EQ(h, it->second) << key << " threads " << threads;
            }
        }
    }
}
