# One place that knows how a part, a test, a benchmark and a fuzzer are built.

function(rastrace_set_warnings)
  add_compile_options(-Wall -Wextra -Werror -Wno-missing-field-initializers)
  if(RASTRACE_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                        -fno-sanitize-recover=undefined)
    add_link_options(-fsanitize=address,undefined)
    if(CMAKE_C_COMPILER_ID MATCHES "Clang")
      # clang links the C++ part of its sanitizer runtime (UBSan's vptr check, ASan's operator
      # new/delete) only into programs it links as C++; the C programs (examples, test helpers)
      # call the C++ libraries, so they get it, with libstdc++ it needs, too.
      add_link_options($<$<LINK_LANGUAGE:C>:-fsanitize-link-c++-runtime>
                       $<$<LINK_LANGUAGE:C>:-lstdc++>)
    endif()
  endif()
  if(RASTRACE_FUZZ)
    # Coverage feedback from every library the fuzzers call, not only from their entry points.
    # The sanitizer runtime defines the coverage callbacks weakly, so the tests and commands of
    # the same tree link and run without libFuzzer; the test sources themselves go without it
    # (rastrace_test_flags).
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
  # The shipped shared libraries are linked with --no-undefined. gcc's sanitizers put their
  # runtime in a shared library each instrumented library depends on; clang's is linked into the
  # executable, which resolves the library's references when it loads it, so clang's sanitizer
  # builds leave the check out.
  set(RASTRACE_NO_UNDEFINED -Wl,--no-undefined PARENT_SCOPE)
  if((RASTRACE_SANITIZE OR RASTRACE_TSAN) AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(RASTRACE_NO_UNDEFINED "" PARENT_SCOPE)
  endif()
  if(RASTRACE_TSAN)
    add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
    add_link_options(-fsanitize=thread)
  endif()
endfunction()

# The C compiler command, as one string, for tests that build programs themselves (a program
# linked with, or loading, an instrumented library must be instrumented too): in `out`.
function(rastrace_instrumented_cc out)
  set(cc ${CMAKE_C_COMPILER})
  if(RASTRACE_SANITIZE)
    set(cc "${CMAKE_C_COMPILER} -fsanitize=address,undefined")
    if(CMAKE_C_COMPILER_ID MATCHES "Clang")
      # The libraries' C++ code needs the C++ part of clang's sanitizer runtime
      # (rastrace_set_warnings).
      set(cc "${cc} -fsanitize-link-c++-runtime -lstdc++")
    endif()
  elseif(RASTRACE_TSAN)
    set(cc "${CMAKE_C_COMPILER} -fsanitize=thread")
  endif()
  set(${out} "${cc}" PARENT_SCOPE)
endfunction()

# What a test binary's own sources are compiled with besides the tree's flags (and the donor of
# their precompiled header with them, which must match): no libFuzzer coverage hooks, which only
# the fuzzers use and which would slow every comparison in the tests.
function(rastrace_test_flags target)
  if(RASTRACE_FUZZ)
    target_compile_options(${target} PRIVATE -fno-sanitize=fuzzer-no-link)
  endif()
endfunction()

function(rastrace_part_enabled part out)
  if(RASTRACE_PARTS STREQUAL "" OR part IN_LIST RASTRACE_PARTS OR part STREQUAL "common")
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()

# rastrace_library(<name> SOURCES ... [DEPS ...]): internal static library rastrace_<name>.
function(rastrace_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(rastrace_${name} STATIC ${ARG_SOURCES})
  target_include_directories(rastrace_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>)
  target_link_libraries(rastrace_${name} PUBLIC ${ARG_DEPS})
endfunction()

# rastrace_test(<name> SOURCES ... [DEPS ...]): a GoogleTest binary under build/tests, each test
# case registered with CTest.
function(rastrace_test name)
  if(NOT RASTRACE_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    RASTRACE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    RASTRACE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  rastrace_test_flags(${name})
  rastrace_use_test_pch(${name})
  rastrace_use_unity(${name})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
    PROPERTIES LABELS ${name}
    ENVIRONMENT "RASTRACE_BIN=${PROJECT_BINARY_DIR}/bin;RASTRACE_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()

# rastrace_bench(<name> SOURCES ... [DEPS ...]): a Google Benchmark binary under build/bench.
function(rastrace_bench name)
  if(NOT RASTRACE_BENCH)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
endfunction()

# rastrace_fuzzer(<name> SOURCE <file> [DEPS ...]): with RASTRACE_FUZZ a libFuzzer binary under
# build/fuzz; with RASTRACE_TESTS (also in the same tree) a replay binary that feeds every file of
# fuzz/corpus/<name> (and fuzz/regressions/<name>) to the same entry point, registered as a test,
# so the corpus and every crash ever found run in the ordinary and sanitizer suites.
# scripts/test.sh builds its ASan+UBSan tree with clang and RASTRACE_FUZZ, so the libraries are
# compiled once for the sanitizer suite and the fuzzers.
function(rastrace_fuzzer name)
  cmake_parse_arguments(ARG "" "SOURCE" "DEPS" ${ARGN})
  # The entry point is compiled once and linked into both binaries of a tree that has both (the
  # tree's flags already carry libFuzzer's coverage hooks there, rastrace_set_warnings).
  if(RASTRACE_FUZZ AND RASTRACE_TESTS)
    add_library(${name}_entry OBJECT ${ARG_SOURCE})
    target_link_libraries(${name}_entry PRIVATE ${ARG_DEPS})
    set(entry_sources $<TARGET_OBJECTS:${name}_entry>)
  else()
    set(entry_sources ${ARG_SOURCE})
  endif()
  if(RASTRACE_FUZZ)
    add_executable(${name} ${entry_sources})
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${name} PRIVATE ${ARG_DEPS})
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
    # `cmake --build B --target fuzzers` builds only what the fuzz step of scripts/test.sh runs.
    if(NOT TARGET fuzzers)
      add_custom_target(fuzzers)
    endif()
    add_dependencies(fuzzers ${name})
  endif()
  if(RASTRACE_TESTS)
    # One replay main for all of them, compiled once per tree.
    if(NOT TARGET rastrace_fuzz_replay_main)
      add_library(rastrace_fuzz_replay_main OBJECT ${PROJECT_SOURCE_DIR}/fuzz/replay_main.cc)
    endif()
    add_executable(${name}_replay ${entry_sources})
    target_link_libraries(${name}_replay PRIVATE rastrace_fuzz_replay_main ${ARG_DEPS})
    set_target_properties(${name}_replay PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                          ${PROJECT_BINARY_DIR}/tests)
    add_test(NAME fuzz_replay.${name}
             COMMAND ${name}_replay ${PROJECT_SOURCE_DIR}/fuzz/corpus/${name}
                     ${PROJECT_SOURCE_DIR}/fuzz/regressions/${name})
  endif()
endfunction()

# rastrace_tool(<name> SOURCES ... [DEPS ...]): a command under build/bin, installed.
function(rastrace_tool name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  # The command files that include CLI11 (header-only in Debian 12) cost 6-9 CPU s each at -O2,
  # mostly CLI11 itself; compiled as one unit, a command pays for it once.
  rastrace_use_unity(${name})
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

# rastrace_export(<target>...): a library users link against; installed and in the CMake package.
function(rastrace_export)
  install(TARGETS ${ARGN} EXPORT rastraceTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  set_property(GLOBAL APPEND PROPERTY RASTRACE_EXPORTED ${ARGN})
endfunction()
