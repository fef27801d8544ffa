# Writes OUTPUT, a header defining FLAMEX_BENCH_COMMIT: the commit of SOURCE_DIR
# (git describe --always --dirty), which the benchmarks' --markdown tables name.
# Run at every build; the file is rewritten only when the commit changes.
execute_process(COMMAND git -C ${SOURCE_DIR} describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
set(content "#define FLAMEX_BENCH_COMMIT \"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUTPUT} "${content}")
endif()
