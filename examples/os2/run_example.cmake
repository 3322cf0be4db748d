# Runs the example, compiles its TSF into format files, formats the save file and checks every
# tracepoint's formatted lines.
include(${CMAKE_CURRENT_LIST_DIR}/example_checks.cmake)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
run_checked(${EXAMPLE} ${WORK}/os2demo.stda)
run_checked(${TRCUST} ${TSF} -o ${WORK}/tff)
run_checked(${TRACEFMT} -t ${WORK}/tff ${WORK}/os2demo.stda)
expect_matches("${out}"
    "0001  Major 0x42  Minor 0x0001  PID [0-9]+  Time ${time}  open_file entry\n  open_file path=/etc/os2/config.sys mode=00000042\n"
    "0002  Major 0x42  Minor 0x0002  PID [0-9]+  Time ${time}  open_file exit\n  result=0003\n"
    "0003  Major 0x42  Minor 0x0003 [^\n]*record read\n  record=07 00 0A 00 70 61 79 6C 6F 61\n"
    "0004  Major 0x42  Minor 0x0004 [^\n]*through a pointer\n  value=0000CAFE then BEEF\n"
    "0005  Major 0x42  Minor 0x0004 [^\n]*through a pointer\n  value=<invalid address: 0x0> then \\?\n"
    "0006  Major 0x42  Minor 0x0004 [^\n]*through a pointer\n  value=<invalid address: 0x1000> then \\?\n"
    "0007  Major 0x42  Minor 0x0004 [^\n]*through a pointer\n  value=<invalid address: 0x2000> then \\?\n"
    "Summary: 7 records in the buffer, 7 shown \\(7 formatted, 0 in hex\\)")
