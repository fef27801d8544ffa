// `flamex batch`, run for real: gen writes batches that solve reads; solve prints its
// statistics and writes solutions; exit status 1 when a system cannot be solved and 2,
// with a message that says what, for bad usage or a bad file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "batched/batched.hpp"
#include "io/batch_file.hpp"
#include "support/batch_reference.hpp"
#include "support/test_support.hpp"

namespace batched = flamex::batched;

namespace {

using Result = flamex::test::ProgramRun;
using flamex::test::slurp;

// The value of key=value on the line of `text` that has it.
std::string value_of(const std::string& text, const std::string& key)
{
    std::istringstream in(text);
    std::string field;
    while (in >> field)
        if (field.rfind(key + "=", 0) == 0) return field.substr(key.size() + 1);
    return "<missing " + key + ">";
}

class BatchCli : public testing::Test {
protected:
    std::string path(const std::string& name) const { return scratch_.path(name); }
    Result run(const std::vector<std::string>& args) const { return flamex::test::run_program(FLAMEX_CLI, args, scratch_); }

    void expect_bad_input(const std::vector<std::string>& args, const std::vector<std::string>& says) const
    {
        const Result r = run(args);
        EXPECT_EQ(r.status, 2) << "stderr: " << r.err;
        EXPECT_EQ(r.out, "");
        for (const std::string& s : says) EXPECT_NE(r.err.find(s), std::string::npos) << "'" << s << "' not in: " << r.err;
    }

    flamex::test::ScratchDir scratch_{"batch_cli"};
};

} // namespace

TEST_F(BatchCli, GenThenSolveEveryMethod)
{
    const std::string file = path("spd.bin");
    Result g = run({"batch", "gen", "spd", "--n", "12", "--count", "300", "--cond-max", "1e4", "--seed", "3", "-o", file});
    ASSERT_EQ(g.status, 0) << g.err;
    EXPECT_EQ(value_of(g.out, "file"), file);
    EXPECT_EQ(value_of(g.out, "precision"), "single");
    EXPECT_LE(std::stod(value_of(g.out, "kappa_max")), 1.1e4);
    const batched::AnyBatch any = batched::read_batch(file);
    ASSERT_TRUE(std::holds_alternative<batched::Batch<float>>(any));
    EXPECT_EQ(std::get<batched::Batch<float>>(any).count, 300u);

    for (const std::string method : {"ldlt", "householder-pcr", "dc", "auto"}) {
        const Result r = run({"batch", "solve", file, "--method", method, "--threads", "2", "-o", path("x.bin")});
        ASSERT_EQ(r.status, 0) << method << ": " << r.err;
        EXPECT_EQ(value_of(r.out, "method"), method);
        EXPECT_EQ(value_of(r.out, "count"), "300");
        EXPECT_EQ(value_of(r.out, "breakdown"), "0");
        EXPECT_GT(std::stod(value_of(r.out, "systems_per_s")), 0.0);
        EXPECT_NE(r.out.find("residual_median="), std::string::npos);
        const batched::AnySolutions sol = batched::read_solutions(path("x.bin"));
        ASSERT_TRUE(std::holds_alternative<batched::Solutions<float>>(sol));
        EXPECT_EQ(std::get<batched::Solutions<float>>(sol).count, 300u);
    }
    // auto reports the repairs and the PCR residuals that caused them.
    const Result a = run({"batch", "solve", file, "--tolerance", "1e-7"});
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_NE(value_of(a.out, "repaired"), "0");
    EXPECT_NE(a.out.find("solved_by=dc"), std::string::npos);
    EXPECT_NE(a.out.find("pcr_residual_max="), std::string::npos);
    // --precision double solves the float file in double.
    const Result d = run({"batch", "solve", file, "--precision", "double", "--method", "dc", "--threshold", "0"});
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_EQ(value_of(d.out, "precision"), "double");
    EXPECT_EQ(value_of(d.out, "threshold"), "0");
}

TEST_F(BatchCli, RegressionBatch)
{
    const std::string file = path("reg.bin");
    const Result g = run({"batch", "gen", "regression", "--n", "30", "--count", "50", "--precision", "double", "-o", file});
    ASSERT_EQ(g.status, 0) << g.err;
    EXPECT_EQ(value_of(g.out, "kind"), "regression");
    EXPECT_GT(std::stod(value_of(g.out, "kappa_min")), 1e5);
    const Result r = run({"batch", "solve", file, "--precision", "single"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(value_of(r.out, "precision"), "single");
    const Result p = run({"batch", "gen", "regression", "--n", "4", "--count", "3", "--paths", "2", "--no-measure", "-o", file});
    ASSERT_EQ(p.status, 0) << p.err;
    EXPECT_EQ(p.out.find("kappa"), std::string::npos);
}

TEST_F(BatchCli, BreakdownIsExitStatusOne)
{
    batched::Batch<double> b(2, 3);
    for (std::size_t k = 0; k < 3; ++k) {
        double* A = b.matrix(k);
        A[0] = k == 1 ? 0.0 : 2.0; // system 1: [0 1; 1 2] breaks LDL^T down in column 1
        A[1] = A[2] = 1.0;
        A[3] = 2.0;
        b.rhs(k)[0] = b.rhs(k)[1] = 1.0;
    }
    batched::write_batch(path("b.bin"), b);
    const Result r = run({"batch", "solve", path("b.bin"), "--method", "ldlt", "-o", path("x.bin")});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(value_of(r.out, "breakdown"), "1");
    EXPECT_NE(r.err.find("system 1"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("column 1"), std::string::npos) << r.err;
    const batched::AnySolutions any = batched::read_solutions(path("x.bin"));
    const auto& sol = std::get<batched::Solutions<double>>(any);
    EXPECT_EQ(sol.report[1].status, batched::Status::Breakdown);
    EXPECT_EQ(sol.report[0].status, batched::Status::Ok);
    // The Householder-based methods solve it.
    EXPECT_EQ(run({"batch", "solve", path("b.bin"), "--method", "dc"}).status, 0);
}

// A NaN or an infinity in the input is a numerical failure for every method, on the
// CPU and on a device: exit status 1, the first such system named, its solution NaN
// and its neighbours solved.
TEST_F(BatchCli, NonFiniteInputIsExitStatusOne)
{
    batched::Batch<double> good;
    batched::write_batch(path("b.bin"), flamex::test::troubled_batch(2, &good));
    std::vector<std::vector<std::string>> engines = {{}};
    if (flamex::test::have_opencl()) engines.push_back({"--device-backend", "opencl"});
    for (const auto& engine : engines)
        for (const std::string method : {"ldlt", "householder-pcr", "dc", "auto"}) {
            std::vector<std::string> args = {"batch", "solve", path("b.bin"), "--method", method, "-o", path("x.bin")};
            args.insert(args.end(), engine.begin(), engine.end());
            SCOPED_TRACE(method + (engine.empty() ? " cpu" : " opencl"));
            const Result r = run(args);
            EXPECT_EQ(r.status, 1) << r.err;
            // LDL^T breaks down on system 2 before system 7's NaN; the others get to 7.
            const std::string first = method == "ldlt" ? "system 2," : "system 7,";
            EXPECT_NE(r.err.find(first), std::string::npos) << r.err;
            const batched::AnySolutions any = batched::read_solutions(path("x.bin"));
            const auto& sol = std::get<batched::Solutions<double>>(any);
            for (std::size_t k : {7, 9}) {
                EXPECT_EQ(sol.report[k].status, batched::Status::InvalidInput) << k;
                for (int i = 0; i < good.n; ++i) EXPECT_TRUE(std::isnan(sol.x[k * good.n + i])) << k;
            }
            for (std::size_t k : {0, 1, 3, 4, 6, 8, 11}) EXPECT_NE(sol.report[k].status, batched::Status::InvalidInput) << k;
        }
}

TEST_F(BatchCli, BadUsageAndBadFilesAreExitStatusTwo)
{
    const std::string file = path("ok.bin");
    ASSERT_EQ(run({"batch", "gen", "spd", "--n", "3", "--count", "4", "-o", file}).status, 0);
    expect_bad_input({"batch"}, {"missing argument ACTION"});
    expect_bad_input({"batch", "solve"}, {"missing argument FILE"});
    expect_bad_input({"batch", "frobnicate", file}, {"unknown batch action 'frobnicate'"});
    expect_bad_input({"batch", "gen", "hilbert", "--n", "3", "--count", "2", "-o", file}, {"unknown batch kind 'hilbert'"});
    expect_bad_input({"batch", "gen", "spd", "--count", "2", "-o", file}, {"option --n is required"});
    expect_bad_input({"batch", "gen", "spd", "--n", "3", "-o", file}, {"option --count is required"});
    expect_bad_input({"batch", "gen", "spd", "--n", "3", "--count", "2"}, {"option -o is required"});
    expect_bad_input({"batch", "gen", "spd", "--n", "65", "--count", "2", "-o", file}, {"--n", "out of range [1, 64]"});
    expect_bad_input({"batch", "gen", "spd", "--n", "0", "--count", "2", "-o", file}, {"--n", "out of range"});
    expect_bad_input({"batch", "gen", "spd", "--n", "3", "--count", "0", "-o", file}, {"--count", "out of range"});
    expect_bad_input({"batch", "gen", "spd", "--n", "3", "--count", "2", "--cond-max", "0.5", "-o", file}, {"cond-max"});
    expect_bad_input({"batch", "gen", "spd", "--n", "3", "--count", "2", "--paths", "9", "-o", file},
                     {"--paths does not apply to batch gen spd"});
    expect_bad_input({"batch", "gen", "regression", "--n", "3", "--count", "2", "--cond-max", "9", "-o", file},
                     {"--cond-max does not apply"});
    expect_bad_input({"batch", "gen", "spd", "--n", "3", "--count", "2", "--method", "dc", "-o", file},
                     {"--method does not apply to batch gen"});
    expect_bad_input({"batch", "gen", "spd", "--n", "3", "--count", "2", "--precision", "half", "-o", file},
                     {"'half' is not single or double"});
    expect_bad_input({"batch", "solve", file, "--method", "cholesky"}, {"unknown method 'cholesky'"});
    expect_bad_input({"batch", "solve", file, "--threshold", "-1"}, {"--threshold"});
    expect_bad_input({"batch", "solve", file, "--tolerance", "0"}, {"--tolerance"});
    expect_bad_input({"batch", "solve", file, "--threads", "0"}, {"--threads"});
    expect_bad_input({"batch", "solve", file, "--n", "3"}, {"--n does not apply to batch solve"});
    expect_bad_input({"batch", "solve", file, "-o", "-"}, {"binary"});
    expect_bad_input({"batch", "solve", file, "--bogus"}, {"unknown option '--bogus'"});
    expect_bad_input({"batch", "solve", path("missing.bin")}, {"missing.bin: cannot open"});
    std::ofstream(path("junk.bin"), std::ios::binary) << std::string(64, 'j');
    expect_bad_input({"batch", "solve", path("junk.bin")}, {"junk.bin: not a flamex batch file"});
    std::string good = slurp(file);
    std::ofstream(path("cut.bin"), std::ios::binary) << good.substr(0, good.size() - 3);
    expect_bad_input({"batch", "solve", path("cut.bin")}, {"cut.bin: truncated"});
    const Result help = run({"batch", "--help"});
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.out.find("usage: flamex batch solve FILE"), std::string::npos);
    EXPECT_NE(help.out.find("usage: flamex batch gen spd|regression"), std::string::npos);
}

// --device-backend opencl: every organization writes the same solutions bit for bit,
// with the CPU's per-system reports; the device and organization are in the summary.
TEST_F(BatchCli, OpenClOrganizationsWriteTheSameSolutions)
{
    const std::string file = path("spd.bin");
    ASSERT_EQ(run({"batch", "gen", "spd", "--n", "11", "--count", "200", "--cond-max", "1e7", "--no-measure", "-o", file})
                  .status,
              0);
    const Result cpu = run({"batch", "solve", file, "-o", path("cpu.bin")});
    ASSERT_EQ(cpu.status, 0) << cpu.err;
    const auto cpu_any = batched::read_solutions(path("cpu.bin"));
    const auto& reference = std::get<batched::Solutions<float>>(cpu_any);
    std::string first;
    for (const std::string organization : {"simd", "collaborative", "hybrid"}) {
        const std::string out = path(organization + ".bin");
        const Result r = run({"batch", "solve", file, "--device-backend", "opencl", "--organization", organization, "-o", out});
        ASSERT_EQ(r.status, 0) << organization << ": " << r.err;
        EXPECT_EQ(value_of(r.out, "organization"), organization);
        EXPECT_NE(value_of(r.out, "device"), "<missing device>");
        EXPECT_LE(std::stod(value_of(r.out, "kernels_s")), std::stod(value_of(r.out, "time_s")));
        EXPECT_EQ(value_of(r.out, "repaired"), value_of(cpu.out, "repaired")) << organization;
        const std::string bytes = slurp(out);
        if (first.empty()) first = bytes;
        EXPECT_EQ(bytes, first) << organization << " differs from simd";
        const auto any = batched::read_solutions(out);
        const auto& sol = std::get<batched::Solutions<float>>(any);
        ASSERT_EQ(sol.count, reference.count);
        for (std::size_t k = 0; k < sol.count; ++k) {
            EXPECT_EQ(sol.report[k].status, reference.report[k].status) << organization << " system " << k;
            EXPECT_EQ(sol.report[k].solved_by, reference.report[k].solved_by) << organization << " system " << k;
        }
    }
    const Result p = run({"batch", "solve", file, "--device-backend", "opencl", "--cooperating", "3"});
    ASSERT_EQ(p.status, 0) << p.err;
    EXPECT_EQ(value_of(p.out, "cooperating"), "3");

    expect_bad_input({"batch", "solve", file, "--device-backend", "cuda"}, {"'cuda' is not cpu or opencl"});
    expect_bad_input({"batch", "solve", file, "--organization", "simd"}, {"--organization does not apply", "cpu"});
    expect_bad_input({"batch", "solve", file, "--device-backend", "opencl", "--organization", "warp"},
                     {"unknown organization 'warp'"});
    expect_bad_input({"batch", "solve", file, "--device-backend", "opencl", "--organization", "simd", "--cooperating", "2"},
                     {"--cooperating applies to --organization hybrid only"});
    expect_bad_input({"batch", "solve", file, "--device-backend", "opencl", "--cooperating", "12"},
                     {"cooperating work-items per system must be from 1 to n = 11"});
    expect_bad_input({"batch", "solve", file, "--device-backend", "opencl", "--work-group", "2"},
                     {"work-group of 2 work-items cannot hold one system"});
    expect_bad_input({"batch", "solve", file, "--device-backend", "opencl", "--threads", "2"},
                     {"--threads does not apply to batch solve on an OpenCL device"});
    expect_bad_input({"batch", "solve", file, "--device-backend", "opencl", "--device", "no-such-device"},
                     {"no OpenCL device matches 'no-such-device'"});
    expect_bad_input({"batch", "gen", "spd", "--n", "3", "--count", "2", "--device-backend", "opencl", "-o", file},
                     {"--device-backend does not apply to batch gen"});
}

// --layout interleaved: the regression generator writes the lane-per-system layout
// directly (spd by conversion), solve reads either layout, and the solutions files are
// the same bytes; a bad layout name is a usage error.
TEST_F(BatchCli, InterleavedLayoutGivesTheSameSolutions)
{
    for (const std::string kind : {"regression", "spd"}) {
        for (const std::string precision : {"single", "double"}) {
            const std::string sys = path(kind + precision + "s.bin"), lanes = path(kind + precision + "i.bin");
            const std::vector<std::string> gen{"batch", "gen", kind, "--n", "11", "--count", "37", "--seed", "5",
                                               "--precision", precision, "--no-measure"};
            std::vector<std::string> g1 = gen, g2 = gen;
            g1.insert(g1.end(), {"-o", sys});
            g2.insert(g2.end(), {"--layout", "interleaved", "-o", lanes});
            ASSERT_EQ(run(g1).status, 0);
            const Result r = run(g2);
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(value_of(r.out, "layout"), "interleaved");
            EXPECT_EQ(slurp(lanes)[12], 3) << "content: interleaved systems";
            for (const std::string method : {"ldlt", "householder-pcr", "dc", "auto"}) {
                const std::string xs = path("xs.bin"), xi = path("xi.bin");
                const Result a = run({"batch", "solve", sys, "--method", method, "--threads", "2", "-o", xs});
                const Result b = run({"batch", "solve", lanes, "--method", method, "--threads", "2", "-o", xi});
                EXPECT_EQ(a.status, b.status) << b.err;
                EXPECT_EQ(value_of(a.out, "ok"), value_of(b.out, "ok"));
                EXPECT_EQ(slurp(xs), slurp(xi)) << kind << " " << precision << " " << method;
            }
        }
    }
    expect_bad_input({"batch", "gen", "spd", "--n", "3", "--count", "2", "--layout", "diagonal", "-o", path("z.bin")},
                     {"--layout", "'diagonal'", "system or interleaved"});
    expect_bad_input({"batch", "solve", path("spdsingles.bin"), "--layout", "interleaved"}, {"--layout does not apply"});
}
