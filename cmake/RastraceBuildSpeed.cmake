# What makes the build cheaper without changing what it builds or tests: a faster linker and less
# debug information where line tables are enough. scripts/test.sh builds four configurations on
# two cores, so each saving is paid back four times (docs/performance.md, "Test-suite time").

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
