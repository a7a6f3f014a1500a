# Fuzz regressions, included from the top-level CMakeLists.txt in test builds.
#
# fuzz-replay/<name>: replay_<name> (fuzz/fuzz_<name>.c + fuzz/replay_main.c,
#   linked to tlcore, any compiler, so also under gcc ASan+UBSan) runs the
#   target once on every file of fuzz/corpus/<name>/: the seeds and every
#   input that ever crashed a target.
# fuzz-smoke/<name>: clang only: a short libFuzzer session (fuzz/run.sh, on a
#   temporary copy of the corpus) with fuzzsmoke_<name>, built against
#   tlcore_fuzzsmoke, a copy of tlcore compiled with
#   -fsanitize=fuzzer-no-link,address,undefined so the fuzzer sees coverage.
set(TL_FUZZ_DIR ${PROJECT_SOURCE_DIR}/fuzz)
file(GLOB TL_FUZZ_SOURCES CONFIGURE_DEPENDS ${TL_FUZZ_DIR}/fuzz_*.c)

foreach(src ${TL_FUZZ_SOURCES})
  get_filename_component(target ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" name ${target})
  add_executable(replay_${name} ${src} ${TL_FUZZ_DIR}/replay_main.c)
  target_link_libraries(replay_${name} PRIVATE tlcore)
  tl_warnings(replay_${name})
  if(EXISTS ${TL_FUZZ_DIR}/corpus/${name})
    add_test(NAME fuzz-replay/${name} COMMAND replay_${name} ${TL_FUZZ_DIR}/corpus/${name})
    set_tests_properties(fuzz-replay/${name} PROPERTIES LABELS fuzz
                         ENVIRONMENT "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
  endif()
endforeach()

# libFuzzer smoke runs: clang with the libFuzzer runtime only.
set(TL_FUZZ_SMOKE_SECONDS 3 CACHE STRING "Seconds per fuzz-smoke ctest")
set(tl_fuzzsmoke_flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
set(tl_have_libfuzzer OFF)
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
  set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=fuzzer")
  check_c_source_compiles([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return d && n ? 0 : 0; }
]] TL_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  set(tl_have_libfuzzer ${TL_HAVE_LIBFUZZER})
endif()

if(tl_have_libfuzzer)
  # tlcore again, same sources and settings, with coverage and sanitizers.
  get_target_property(tl_core_srcs tlcore SOURCES)
  add_library(tlcore_fuzzsmoke STATIC ${tl_core_srcs})
  foreach(prop INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS LINK_LIBRARIES
               INTERFACE_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS
               INTERFACE_LINK_LIBRARIES C_VISIBILITY_PRESET)
    get_target_property(v tlcore ${prop})
    if(v)
      set_property(TARGET tlcore_fuzzsmoke PROPERTY ${prop} "${v}")
    endif()
  endforeach()
  target_compile_options(tlcore_fuzzsmoke PRIVATE
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all)

  foreach(src ${TL_FUZZ_SOURCES})
    get_filename_component(target ${src} NAME_WE)
    string(REGEX REPLACE "^fuzz_" "" name ${target})
    add_executable(fuzzsmoke_${name} ${src})
    target_link_libraries(fuzzsmoke_${name} PRIVATE tlcore_fuzzsmoke)
    target_compile_options(fuzzsmoke_${name} PRIVATE ${tl_fuzzsmoke_flags})
    target_link_options(fuzzsmoke_${name} PRIVATE ${tl_fuzzsmoke_flags})
    tl_warnings(fuzzsmoke_${name})
    add_test(NAME fuzz-smoke/${name}
             COMMAND sh ${TL_FUZZ_DIR}/run.sh ${PROJECT_BINARY_DIR} ${TL_FUZZ_SMOKE_SECONDS} ${name})
    set_tests_properties(fuzz-smoke/${name} PROPERTIES LABELS fuzz-smoke
                         ENVIRONMENT "FUZZ_SHARED=0")
  endforeach()
endif()
