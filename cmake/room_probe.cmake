# One probe of a room's include directories (tests/rooms.cmake): compiles a
# file holding only `#include "${HEADER}"` with the include flags of a room's
# library and checks the outcome.
#   cmake -DCC=compiler -DINCLUDES="dir|dir|..." -DHEADER=parser/ir.h
#         -DEXPECT=visible|hidden -DWORK=scratch-dir -P room_probe.cmake
# visible: the file must compile.  hidden: the compile must fail because
# the header is not found ("No such file"); failing for any other reason
# proves nothing, so that fails the probe too.
# The probe file is written under WORK, not at the source root: a file at the
# root would find "parser/ir.h" beside itself, whatever the flags say.
foreach(var CC INCLUDES HEADER EXPECT WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "room_probe.cmake: -D${var}= is missing")
  endif()
endforeach()
string(MAKE_C_IDENTIFIER "${HEADER}-${EXPECT}" stem)
set(probe ${WORK}/${stem}.c)
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${probe} "#include \"${HEADER}\"\n")
string(REPLACE "|" ";" dirs "${INCLUDES}")
set(flags)
foreach(d ${dirs})
  list(APPEND flags -I${d})
endforeach()
execute_process(COMMAND ${CC} -std=gnu17 -fsyntax-only ${flags} ${probe}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REPLACE ";" " " shown "${flags}")
if(EXPECT STREQUAL "visible")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "\"${HEADER}\" should compile with ${shown}, but:\n${out}")
  endif()
  message(STATUS "\"${HEADER}\" compiles with ${shown}")
elseif(EXPECT STREQUAL "hidden")
  if(rc EQUAL 0)
    message(FATAL_ERROR "\"${HEADER}\" should not be found with ${shown}, but it compiles")
  endif()
  # gcc: "No such file or directory"; clang: "file not found".
  if(NOT out MATCHES "${HEADER}.*(No such file|file not found)")
    message(FATAL_ERROR "\"${HEADER}\" failed to compile for another reason than not being found:\n${out}")
  endif()
  message(STATUS "\"${HEADER}\" is not found with ${shown}")
else()
  message(FATAL_ERROR "room_probe.cmake: EXPECT is visible or hidden, not '${EXPECT}'")
endif()
