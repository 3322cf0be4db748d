# Appends the members of the archives in LIBS to the archive OUT (an ar MRI script). The script
# creates a new archive from OUT and LIBS and then replaces OUT: GNU ar's MRI knows `open`,
# llvm-ar's (what CMake takes with clang) only `create`, and both know `create` and `addlib`.
set(script "create ${OUT}.merged\naddlib ${OUT}\n")
foreach(lib IN LISTS LIBS)
  string(APPEND script "addlib ${lib}\n")
endforeach()
string(APPEND script "save\nend\n")
file(WRITE ${OUT}.mri "${script}")
execute_process(COMMAND ${AR} -M INPUT_FILE ${OUT}.mri RESULT_VARIABLE rc ERROR_VARIABLE err)
file(REMOVE ${OUT}.mri)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.merged)
  message(FATAL_ERROR "merging ${LIBS} into ${OUT} failed: ${err}")
endif()
file(RENAME ${OUT}.merged ${OUT})
