# Runs the fuzz_exdot libFuzzer target for a bounded time (ctest: fuzz_exdot_bounded).
#   cmake -DCLANGXX=clang++ -DCLANGC=clang -DSOURCE_DIR=<flamex> -DWORK_DIR=<scratch>
#         -DCORPUS=<seed corpus> -DSECONDS=20 [-DFUZZER=<built fuzz_exdot>] -P run_fuzz.cmake
# Without FUZZER, it configures and builds fuzz_exdot in WORK_DIR/build with clang,
# the library instrumented too (-fsanitize=fuzzer-no-link, AddressSanitizer,
# UndefinedBehaviorSanitizer); the build is kept, so later runs are incremental.
# The seed corpus is copied to WORK_DIR/corpus (new inputs go there, not into the
# source tree). Prints FUZZ_SKIPPED (ctest's SKIP_REGULAR_EXPRESSION) when clang
# cannot link libFuzzer (Debian: libclang-rt-14-dev for clang 14).
cmake_minimum_required(VERSION 3.22)
foreach(var SOURCE_DIR WORK_DIR CORPUS SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzz.cmake: -D${var}=... is required")
  endif()
endforeach()
file(MAKE_DIRECTORY ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}")
  endif()
endfunction()

if(NOT FUZZER)
  if(NOT CLANGXX)
    message(STATUS "FUZZ_SKIPPED: clang++ not found")
    return()
  endif()
  # Can clang link a libFuzzer program here?
  file(WRITE ${WORK_DIR}/probe.cpp
       "#include <cstddef>\n#include <cstdint>\nextern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n")
  execute_process(COMMAND ${CLANGXX} -fsanitize=fuzzer ${WORK_DIR}/probe.cpp -o ${WORK_DIR}/probe
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(STATUS "FUZZ_SKIPPED: ${CLANGXX} -fsanitize=fuzzer does not link (libclang-rt-*-dev missing?)\n${out}")
    return()
  endif()
  if(NOT CLANGC)
    string(REGEX REPLACE "\\+\\+" "" CLANGC ${CLANGXX})
  endif()
  # -Wno-unknown-warning-option: clang 14 does not know GCC's -Wshadow=local (flamex_warnings)
  set(flags "-g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -Wno-unknown-warning-option")
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build
      -DCMAKE_CXX_COMPILER=${CLANGXX} -DCMAKE_C_COMPILER=${CLANGC} -DCMAKE_BUILD_TYPE=Release
      "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_C_FLAGS=${flags}"
      "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"
      -DFLAMEX_BUILD_TESTS=ON -DFLAMEX_BUILD_FUZZERS=ON -DFLAMEX_BUILD_BENCHMARKS=OFF)
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/build --target fuzz_exdot --parallel 2)
  set(FUZZER ${WORK_DIR}/build/tests/fuzz/fuzz_exdot)
endif()

file(REMOVE_RECURSE ${WORK_DIR}/corpus)
file(MAKE_DIRECTORY ${WORK_DIR}/corpus)
file(GLOB seeds ${CORPUS}/*)
file(COPY ${seeds} DESTINATION ${WORK_DIR}/corpus)
execute_process(COMMAND ${FUZZER} ${WORK_DIR}/corpus -max_total_time=${SECONDS} -max_len=4096 -timeout=60
                        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=${WORK_DIR}/
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz_exdot failed (${rc}); the crashing input is in ${WORK_DIR}/\n${out}")
endif()
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" runs "${out}")
message(STATUS "fuzz_exdot: ${SECONDS} s without a mismatch (${runs})")
