# The rooms' one-way flow holds (CMakeLists.txt, hlo_room): each room's
# library compiles a header of a room it may see and fails to find one of a
# room it may not (cmake/room_probe.cmake).  The flags are the library's
# own, as the build uses them ($<TARGET_PROPERTY> includes what its
# dependencies pass on), so widening a room's include directories fails
# these tests.
#   hlo_room_probe(ROOM visible|hidden HEADER...)
function(hlo_room_probe room expect)
  foreach(header ${ARGN})
    string(REGEX REPLACE "[/.]" "_" tag ${header})
    add_test(NAME rooms/${room}-${expect}-${tag}
             COMMAND ${CMAKE_COMMAND} -DCC=${CMAKE_C_COMPILER}
                     "-DINCLUDES=$<JOIN:$<TARGET_PROPERTY:hlo_${room},INCLUDE_DIRECTORIES>,|>"
                     -DHEADER=${header} -DEXPECT=${expect}
                     -DWORK=${CMAKE_BINARY_DIR}/rooms-probe/${room}
                     -P ${CMAKE_SOURCE_DIR}/cmake/room_probe.cmake)
  endforeach()
endfunction()

hlo_room_probe(base visible base/error.h)
hlo_room_probe(base hidden layout/etype.h)
hlo_room_probe(layout visible base/arena.h layout/layout.h)
hlo_room_probe(layout hidden parser/ir.h kernels/kernels.h)
hlo_room_probe(kernels visible layout/etype.h kernels/kernels.h)
hlo_room_probe(kernels hidden parser/ir.h interp/value.h)
hlo_room_probe(parser visible layout/layout.h parser/ir.h parser/grammar.tab.h)
hlo_room_probe(parser hidden kernels/kernels.h interp/value.h cmd/common/cli.h)
hlo_room_probe(interp visible parser/ir.h kernels/kernels.h interp/io/npy.h)
hlo_room_probe(interp hidden cmd/common/cli.h parser/grammar.tab.h)
