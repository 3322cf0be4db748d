# What makes the build cheaper without changing what it builds or tests: a faster linker and less
# debug information where line tables are enough. scripts/test.sh builds three configurations on
# two cores, so each saving is paid back three times (docs/performance.md, "Test-suite time").

include(CheckLinkerFlag)

# About a hundred binaries are linked per configuration; mold and lld link them several times
# faster than GNU ld (dyntrace_test: 0.38 s CPU with GNU ld, 0.15 s with lld). "auto" takes the
# first one found, "default" keeps the compiler's own linker.
set(RASTRACE_LINKER "auto" CACHE STRING "Linker: auto, mold, lld or default")
set_property(CACHE RASTRACE_LINKER PROPERTY STRINGS auto mold lld default)

function(rastrace_use_fast_linker)
  if(RASTRACE_LINKER STREQUAL "default")
    return()
  elseif(RASTRACE_LINKER STREQUAL "auto")
    set(candidates mold lld)
  else()
    set(candidates ${RASTRACE_LINKER})
  endif()
  foreach(linker IN LISTS candidates)
    # One check per linker, cached, so a compiler that cannot use it falls back quietly.
    check_linker_flag(CXX "-fuse-ld=${linker}" RASTRACE_HAVE_LD_${linker})
    if(RASTRACE_HAVE_LD_${linker})
      add_link_options(-fuse-ld=${linker})
      message(STATUS "rastrace: linking with ${linker}")
      return()
    endif()
  endforeach()
  if(NOT RASTRACE_LINKER STREQUAL "auto")
    message(FATAL_ERROR "RASTRACE_LINKER=${RASTRACE_LINKER}: the compiler cannot link with it")
  endif()
endfunction()

# "lines" keeps only line tables and function names (gcc -g1, clang -gline-tables-only): enough
# for sanitizer and crash stack traces with file:line, and about 40 % less compile time than full
# DWARF at -O2 (10-30 % at -O0). The programs the dyntrace tests trace ask for full -g themselves
# (src/dyntrace/CMakeLists.txt), so their DWARF is unchanged. Debug information never changes
# the generated code.
set(RASTRACE_DEBUG_INFO "full" CACHE STRING
    "Debug information: full (the build type's -g) or lines")
set_property(CACHE RASTRACE_DEBUG_INFO PROPERTY STRINGS full lines)

function(rastrace_set_debug_info)
  if(RASTRACE_DEBUG_INFO STREQUAL "full")
    return()
  elseif(NOT RASTRACE_DEBUG_INFO STREQUAL "lines")
    message(FATAL_ERROR "RASTRACE_DEBUG_INFO must be full or lines, not '${RASTRACE_DEBUG_INFO}'")
  endif()
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  foreach(lang C CXX)
    if(CMAKE_${lang}_COMPILER_ID MATCHES "Clang")
      set(lines_flag -gline-tables-only)
    else()
      set(lines_flag -g1)
    endif()
    set(flags " ${CMAKE_${lang}_FLAGS_${config}} ")
    string(REPLACE " -g " " ${lines_flag} " flags "${flags}")
    string(STRIP "${flags}" flags)
    set(CMAKE_${lang}_FLAGS_${config} "${flags}" PARENT_SCOPE)
  endforeach()
endfunction()

# GoogleTest, GoogleMock, fmt and the standard headers every test includes cost 1.2-1.5 CPU s per
# test file to parse; about a hundred test files and two gcc configurations make that some 230
# CPU s of scripts/test.sh. They are precompiled once, in a donor target with the test binaries'
# flags, and reused by all of them.
option(RASTRACE_TEST_PCH "Precompile the headers common to the test binaries once" ON)

function(rastrace_use_test_pch target)
  if(NOT RASTRACE_TEST_PCH)
    return()
  endif()
  if(NOT TARGET rastrace_test_pch)
    # An executable like the tests, so that it is compiled with their flags (-fPIE included).
    add_executable(rastrace_test_pch ${PROJECT_SOURCE_DIR}/cmake/test_pch.cc)
    target_link_libraries(rastrace_test_pch PRIVATE GTest::gtest GTest::gtest_main GTest::gmock
                          fmt::fmt)
    target_compile_definitions(rastrace_test_pch PRIVATE
      RASTRACE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      RASTRACE_BINARY_DIR="${PROJECT_BINARY_DIR}")
    rastrace_test_flags(rastrace_test_pch)
    # Not a command: it stays out of bin/ with the tests.
    set_target_properties(rastrace_test_pch PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                          ${PROJECT_BINARY_DIR}/tests)
    target_precompile_headers(rastrace_test_pch PRIVATE
      <gtest/gtest.h> <gmock/gmock.h> <fmt/format.h>
      <algorithm> <cstdint> <cstdio> <cstdlib> <cstring> <filesystem> <fstream> <functional>
      <map> <memory> <optional> <span> <sstream> <string> <string_view> <utility> <vector>)
  endif()
  target_precompile_headers(${target} REUSE_FROM rastrace_test_pch)
  # With the headers precompiled, gcc 12 at -O2 reports false -Warray-bounds, -Wstringop-overflow
  # and -Wstringop-overread errors inside libstdc++'s std::string copies in some test files (the
  # same files compile cleanly with the headers included as text): gcc 12's known false positives
  # of this family, so the test binaries that use the header go without these three warnings.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow
                           -Wno-stringop-overread)
  endif()
endfunction()

# Unity ("jumbo") builds of the test binaries: each test binary's sources are compiled a few at a
# time as one translation unit, so the inline functions and templates they share (GoogleTest's
# assertions, fmt, the standard library, the parts' headers) are instantiated, instrumented and
# optimised once per batch instead of once per file. Off by default, since editing one test file
# then recompiles its whole batch; scripts/test.sh turns it on for its clean builds. A file that
# cannot share a translation unit (helpers of the same name in an anonymous namespace) is listed
# with rastrace_unity_exclude().
option(RASTRACE_UNITY_TESTS
       "Compile the sources of each test binary and command in batches (unity build)" OFF)
set(RASTRACE_UNITY_BATCH "8" CACHE STRING "Sources per unity translation unit")

function(rastrace_use_unity target)
  get_target_property(sources ${target} SOURCES)
  list(LENGTH sources count)
  # A binary of one source gains nothing.
  if(RASTRACE_UNITY_TESTS AND count GREATER 1)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                          UNITY_BUILD_BATCH_SIZE ${RASTRACE_UNITY_BATCH})
  endif()
endfunction()

# rastrace_unity_exclude(<source>...): sources compiled on their own in a unity build (paths
# relative to the calling CMakeLists.txt), with the reason in a comment beside the call.
function(rastrace_unity_exclude)
  set_source_files_properties(${ARGN} DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
                              PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()
