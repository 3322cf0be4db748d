# Runs the log example with RASTRACE_LOG, compiles its TSF into format files, and checks that
# tracefmt formats the log's tracepoint hits (major 0x1234) with their FMT strings.
include(${CMAKE_CURRENT_LIST_DIR}/example_checks.cmake)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(ENV{RASTRACE_LOG} "${WORK}/os2log.trc")
run_checked(${EXAMPLE})
unset(ENV{RASTRACE_LOG})
run_checked(${TRCUST} ${TSF} -o ${WORK}/tff)
run_checked(${TRACEFMT} -t ${WORK}/tff ${WORK}/os2log.trc)
expect_matches("${out}"
    "^Log file [^\n]*os2log.trc: rastrace trace log, [0-9]+ events, 3 tracepoint hits\n"
    "0001  Major 0x1234  Minor 0x0001  PID [0-9]+  Time ${time}  request start\n  request GET /index id=00001001\n"
    "0002  Major 0x1234  Minor 0x0002  PID [0-9]+  Time ${time}  request done\n  status=00C8\n"
    "0003  Major 0x1234  Minor 0x0002  PID [0-9]+  Time ${time}  request done\n  status=<invalid address: 0x1000>\n"
    "Summary: 3 records in the log, 3 shown \\(3 formatted, 0 in hex\\), 0 filtered out\n  major 0x1234: 3 records\n$")
# Filters work on the wide major too.
execute_process(COMMAND ${TRACEFMT} -t ${WORK}/tff -M 0x1234 -m 2 ${WORK}/os2log.trc --no-summary
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR out MATCHES "Minor 0x0001" OR NOT out MATCHES "0003  Major 0x1234  Minor 0x0002")
  message(FATAL_ERROR "tracefmt -M 0x1234 -m 2 (${rc}):\n${out}")
endif()
# A log cut inside its last event: the hits before the cut are formatted, the problem is reported
# with its offset, exit status 2.
file(SIZE ${WORK}/os2log.trc size)
math(EXPR cut "${size} - 5")
execute_process(COMMAND head -c ${cut} ${WORK}/os2log.trc OUTPUT_FILE ${WORK}/cut.trc)
execute_process(COMMAND ${TRACEFMT} -t ${WORK}/tff ${WORK}/cut.trc RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "cut.trc: offset 0x[0-9a-f]+" OR NOT out MATCHES "0001  Major 0x1234")
  message(FATAL_ERROR "tracefmt on a cut log (${rc}):\n${out}\n${err}")
endif()
