# Helpers of the OS/2 example checks (run_example.cmake, run_log_example.cmake).

# Runs a command; its standard output lands in the caller's `out`. Any exit status but 0 fails.
function(run_checked)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}):\n${output}\n${err}")
  endif()
  set(out "${output}" PARENT_SCOPE)
endfunction()

# Fails unless `text` matches every regular expression that follows.
function(expect_matches text)
  foreach(expected ${ARGN})
    if(NOT text MATCHES "${expected}")
      message(FATAL_ERROR "tracefmt output lacks '${expected}':\n${text}")
    endif()
  endforeach()
endfunction()

set(time "[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\\.[0-9][0-9]")
