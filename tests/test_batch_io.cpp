// The batch file format (batched/batched.hpp): systems and solutions round-trip bit for
// bit in both precisions, and every kind of malformed file is a flamex::Error that
// names the file and says what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <variant>

#include "batched/batched.hpp"
#include "io/batch_file.hpp"
#include "support/test_support.hpp"

namespace batched = flamex::batched;

namespace {

using flamex::test::slurp;

class BatchFile : public testing::Test {
protected:
    std::string path(const std::string& name) const { return scratch_.path(name); }
    std::string write_raw(const std::string& name, const std::string& bytes) const
    {
        std::ofstream(path(name), std::ios::binary) << bytes;
        return path(name);
    }
    // read_batch(file) throws a flamex::Error whose message contains every one of `says`.
    template <class F>
    void expect_error(F read, const std::string& file, const std::vector<std::string>& says) const
    {
        try {
            read(file);
            ADD_FAILURE() << "no error for " << file;
        } catch (const flamex::Error& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.rfind(file + ": ", 0), 0u) << what;
            for (const std::string& s : says) EXPECT_NE(what.find(s), std::string::npos) << "'" << s << "' not in: " << what;
        }
    }

    flamex::test::ScratchDir scratch_{"batch_io"};
};

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

void set_u32(std::string& bytes, std::size_t offset, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i) bytes[offset + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void set_u64(std::string& bytes, std::size_t offset, std::uint64_t v)
{
    for (int i = 0; i < 8; ++i) bytes[offset + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

} // namespace

TEST_F(BatchFile, SystemsRoundTripBitForBit)
{
    batched::SpdSpec spec;
    spec.n = 5;
    spec.count = 7;
    batched::Batch<double> d = batched::generate_spd<double>(spec);
    d.A[3] = -0.0;
    d.y[1] = std::numeric_limits<double>::quiet_NaN();
    d.y[2] = -std::numeric_limits<double>::infinity();
    d.A[4] = std::numeric_limits<double>::denorm_min();
    batched::write_batch(path("d.bin"), d);
    const batched::AnyBatch rd = batched::read_batch(path("d.bin"));
    ASSERT_TRUE(std::holds_alternative<batched::Batch<double>>(rd));
    const auto& d2 = std::get<batched::Batch<double>>(rd);
    EXPECT_EQ(d2.n, 5);
    EXPECT_EQ(d2.count, 7u);
    EXPECT_TRUE(same_bits(d.A, d2.A));
    EXPECT_TRUE(same_bits(d.y, d2.y));
    EXPECT_EQ(slurp(path("d.bin")).size(), 32u + 7 * (25 + 5) * 8);

    const batched::Batch<float> f = batched::convert<float>(d);
    batched::write_batch(path("f.bin"), f);
    const batched::AnyBatch rf = batched::read_batch(path("f.bin"));
    ASSERT_TRUE(std::holds_alternative<batched::Batch<float>>(rf));
    EXPECT_TRUE(same_bits(f.A, std::get<batched::Batch<float>>(rf).A));
    EXPECT_TRUE(same_bits(f.y, std::get<batched::Batch<float>>(rf).y));
    // The header, byte by byte.
    const std::string bytes = slurp(path("f.bin"));
    ASSERT_EQ(bytes.size(), 32u + 7 * 30 * 4);
    EXPECT_EQ(bytes.substr(0, 8), "FLXBATCH");
    EXPECT_EQ(bytes[8], 1);  // version
    EXPECT_EQ(bytes[12], 1); // systems
    EXPECT_EQ(bytes[16], 4); // float
    EXPECT_EQ(bytes[20], 5); // n
    EXPECT_EQ(bytes[24], 7); // count
    float a0;
    std::memcpy(&a0, bytes.data() + 32, 4); // little-endian host: A_0(0,0) first
    EXPECT_EQ(a0, f.A[0]);

    // Zero systems.
    batched::write_batch(path("empty.bin"), batched::Batch<float>(3, 0));
    EXPECT_EQ(std::get<batched::Batch<float>>(batched::read_batch(path("empty.bin"))).count, 0u);
}

TEST_F(BatchFile, SolutionsRoundTrip)
{
    batched::SpdSpec spec;
    spec.n = 4;
    spec.count = 9;
    batched::Batch<float> b = batched::generate_spd<float>(spec);
    b.A[0] = 0; // system 0 breaks down in LDL^T
    batched::Options o;
    o.method = batched::Method::Ldlt;
    const batched::Result<float> r = batched::solve(b, o);
    batched::write_solutions(path("x.bin"), r);
    const batched::AnySolutions any = batched::read_solutions(path("x.bin"));
    ASSERT_TRUE(std::holds_alternative<batched::Solutions<float>>(any));
    const auto& s = std::get<batched::Solutions<float>>(any);
    EXPECT_EQ(s.n, 4);
    EXPECT_EQ(s.count, 9u);
    EXPECT_TRUE(same_bits(r.x, s.x));
    for (std::size_t k = 0; k < 9; ++k) {
        EXPECT_EQ(s.report[k].status, r.report[k].status);
        EXPECT_EQ(s.report[k].solved_by, r.report[k].solved_by);
        EXPECT_EQ(s.report[k].column, r.report[k].column);
        EXPECT_EQ(std::memcmp(&s.report[k].residual, &r.report[k].residual, 8), 0);
    }
    EXPECT_EQ(s.report[0].status, batched::Status::Breakdown);
    EXPECT_EQ(s.report[0].column, 1);
    EXPECT_EQ(slurp(path("x.bin")).size(), 32u + 9 * (4 * 4 + 24));
    // A solutions file is not a systems file, and the other way round.
    expect_error([](const std::string& p) { batched::read_batch(p); }, path("x.bin"), {"holds solutions, expected systems"});
    batched::write_batch(path("b.bin"), b);
    expect_error([](const std::string& p) { batched::read_solutions(p); }, path("b.bin"), {"holds systems, expected solutions"});
    // A bad status code in a record.
    std::string bytes = slurp(path("x.bin"));
    bytes[32 + 9 * 16 + 2 * 24] = 9;
    expect_error([](const std::string& p) { batched::read_solutions(p); }, write_raw("badstatus.bin", bytes),
                 {"system 2", "bad status code 9"});
}

TEST_F(BatchFile, BadFilesAreClearErrors)
{
    auto read = [](const std::string& p) { batched::read_batch(p); };
    expect_error(read, path("missing.bin"), {"cannot open"});
    expect_error(read, write_raw("empty.bin", ""), {"too short", "0 bytes"});
    expect_error(read, write_raw("short.bin", "FLXBATCH\x01"), {"too short"});

    batched::Batch<double> b(3, 2);
    for (std::size_t i = 0; i < b.A.size(); ++i) b.A[i] = static_cast<double>(i);
    batched::write_batch(path("good.bin"), b);
    const std::string good = slurp(path("good.bin"));

    std::string bytes = good;
    bytes[0] = 'X';
    expect_error(read, write_raw("magic.bin", bytes), {"not a flamex batch file", "bad magic"});
    expect_error(read, write_raw("text.bin", std::string(40, 'a')), {"bad magic"});
    bytes = good;
    set_u32(bytes, 8, 2);
    expect_error(read, write_raw("version.bin", bytes), {"unsupported batch format version 2"});
    bytes = good;
    set_u32(bytes, 12, 7);
    expect_error(read, write_raw("content.bin", bytes), {"bad content code 7"});
    bytes = good;
    set_u32(bytes, 16, 2);
    expect_error(read, write_raw("scalar.bin", bytes), {"bad scalar size 2"});
    bytes = good;
    set_u32(bytes, 20, 0);
    expect_error(read, write_raw("n0.bin", bytes), {"order n = 0", "[1, 64]"});
    set_u32(bytes, 20, 65);
    expect_error(read, write_raw("n65.bin", bytes), {"order n = 65"});
    bytes = good;
    set_u64(bytes, 24, 3);
    expect_error(read, write_raw("count.bin", bytes), {"truncated", "3 systems of order 3", std::to_string(good.size())});
    set_u64(bytes, 24, ~std::uint64_t{0});
    expect_error(read, write_raw("huge.bin", bytes), {"truncated"});
    expect_error(read, write_raw("cut.bin", good.substr(0, good.size() - 1)), {"truncated", std::to_string(good.size())});
    expect_error(read, write_raw("trailing.bin", good + "x"), {"1 trailing bytes"});
    // Writing where no file can be created.
    EXPECT_THROW(batched::write_batch(path("no/such/dir.bin"), b), flamex::Error);
}

// The interleaved layout on disk (content 3): round trip bit for bit in both
// precisions, read as stored by read_batch_file and converted by read_batch; its sizes
// (blocks of 64 / scalar size systems, the last padded) checked like the other layout's.
TEST_F(BatchFile, InterleavedSystemsRoundTripAndBadOnesAreClearErrors)
{
    batched::SpdSpec spec;
    spec.n = 5;
    spec.count = 19; // one full block of 16 (8 in double) and a partial one
    const batched::Batch<double> d = batched::generate_spd<double>(spec);
    const batched::InterleavedBatch<double> di = batched::interleave(d);
    batched::write_batch(path("di.bin"), di);
    const std::string bytes = slurp(path("di.bin"));
    EXPECT_EQ(bytes[12], 3); // interleaved systems
    EXPECT_EQ(bytes.size(), 32u + 3 * (15 + 5) * 8 * 8); // ceil(19 / 8) blocks of 8
    const batched::AnyBatchFile stored = batched::read_batch_file(path("di.bin"));
    ASSERT_TRUE(std::holds_alternative<batched::InterleavedBatch<double>>(stored));
    EXPECT_TRUE(same_bits(std::get<batched::InterleavedBatch<double>>(stored).A, di.A));
    EXPECT_TRUE(same_bits(std::get<batched::InterleavedBatch<double>>(stored).y, di.y));
    // read_batch: the system-major form, the lower triangles mirrored (generate_spd's
    // matrices are exactly symmetric, so the same bits as d).
    const batched::AnyBatch sys = batched::read_batch(path("di.bin"));
    ASSERT_TRUE(std::holds_alternative<batched::Batch<double>>(sys));
    EXPECT_TRUE(same_bits(std::get<batched::Batch<double>>(sys).A, d.A));
    EXPECT_TRUE(same_bits(std::get<batched::Batch<double>>(sys).y, d.y));
    // A system-major file read as stored.
    batched::write_batch(path("ds.bin"), d);
    EXPECT_TRUE(std::holds_alternative<batched::Batch<double>>(batched::read_batch_file(path("ds.bin"))));

    const batched::InterleavedBatch<float> fi = batched::interleave(batched::convert<float>(d));
    batched::write_batch(path("fi.bin"), fi);
    EXPECT_EQ(slurp(path("fi.bin")).size(), 32u + 2 * (15 + 5) * 16 * 4); // ceil(19 / 16) blocks of 16
    const batched::AnyBatchFile fstored = batched::read_batch_file(path("fi.bin"));
    ASSERT_TRUE(std::holds_alternative<batched::InterleavedBatch<float>>(fstored));
    EXPECT_TRUE(same_bits(std::get<batched::InterleavedBatch<float>>(fstored).A, fi.A));

    auto read = [](const std::string& p) { batched::read_batch_file(p); };
    expect_error(read, write_raw("icut.bin", bytes.substr(0, bytes.size() - 8)),
                 {"truncated", "19 interleaved systems of order 5", std::to_string(bytes.size())});
    expect_error(read, write_raw("itrail.bin", bytes + "xy"), {"2 trailing bytes", "interleaved systems"});
    // A count that needs one more block than the file holds.
    std::string more = bytes;
    set_u64(more, 24, 25);
    expect_error(read, write_raw("icount.bin", more), {"truncated", "25 interleaved systems", std::to_string(bytes.size())});
    // Within the last block a smaller count is the same size, a valid file.
    set_u64(more, 24, 17);
    EXPECT_EQ(std::get<batched::InterleavedBatch<double>>(batched::read_batch_file(write_raw("i17.bin", more))).count, 17u);
    expect_error([](const std::string& p) { batched::read_solutions(p); }, path("di.bin"),
                 {"holds interleaved systems, expected solutions"});
    EXPECT_THROW(batched::write_batch(path("no/such/dir.bin"), di), flamex::Error);
    batched::InterleavedBatch<double> inconsistent = di;
    inconsistent.y.pop_back();
    EXPECT_THROW(batched::write_batch(path("bad.bin"), inconsistent), flamex::Error);
}
