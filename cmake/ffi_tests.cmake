# The custom-call libraries the golden cases load through
# --custom-call T=@LIBDIR@/...: a typed-FFI handler library written in C++
# against include/hlotools/ffi/ffi.h, and an old-style C one.  Only built
# when a C++ compiler is found: everything else in hlotools is C.
include(CheckLanguage)
check_language(CXX)
if(NOT CMAKE_CXX_COMPILER)
  message(STATUS "No C++ compiler: the FFI test handlers and header self-test are not built")
  add_library(hlo_test_oldcall MODULE ${CMAKE_SOURCE_DIR}/tests/ffi/old_style.c)
else()
  enable_language(CXX)
  set(CMAKE_CXX_STANDARD 17)
  set(CMAKE_CXX_STANDARD_REQUIRED ON)
  set(CMAKE_CXX_EXTENSIONS OFF)

  add_library(hlo_test_ffi MODULE ${CMAKE_SOURCE_DIR}/tests/ffi/handlers.cc)
  target_include_directories(hlo_test_ffi PRIVATE ${CMAKE_SOURCE_DIR}/include)
  # Only the XLA_FFI_DEFINE_HANDLER_SYMBOL functions are exported.
  set_target_properties(hlo_test_ffi PROPERTIES
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)

  # The header's own checks: hand-built call frames against the handlers
  # above (compiled in), through a fake function table.
  add_executable(ffi_header_selftest ${CMAKE_SOURCE_DIR}/tests/ffi/header_selftest.cc
                 ${CMAKE_SOURCE_DIR}/tests/ffi/handlers.cc)
  target_include_directories(ffi_header_selftest PRIVATE ${CMAKE_SOURCE_DIR}/include)
  add_test(NAME ffi/header-selftest COMMAND ffi_header_selftest)

  add_library(hlo_test_oldcall MODULE ${CMAKE_SOURCE_DIR}/tests/ffi/old_style.c)

  # docs/custom-calls.md's worked example, built as a user builds it and
  # run against numpy (scripts/check-custom-call-example.py).
  add_library(rms_norm MODULE ${CMAKE_SOURCE_DIR}/testdata/examples/custom-call/rms_norm.cc)
  target_include_directories(rms_norm PRIVATE ${CMAKE_SOURCE_DIR}/include)
  set_target_properties(rms_norm PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  if(SYSTEM_PYTHON3)
    add_test(NAME example/custom-call
             COMMAND ${SYSTEM_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/check-custom-call-example.py
                     ${CMAKE_BINARY_DIR}/bin ${CMAKE_BINARY_DIR}/lib)
  endif()
endif()

# FFI handlers in C against the ABI itself: stages, state, thread pool,
# futures (tests/ffi/stages.c).
add_library(hlo_test_stages MODULE ${CMAKE_SOURCE_DIR}/tests/ffi/stages.c)
target_include_directories(hlo_test_stages PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(hlo_test_stages PRIVATE Threads::Threads)
set_target_properties(hlo_test_stages PROPERTIES
  C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)

# XlaCustomCallStatusSetFailure stays undefined: hlorun exports it.  (No
# -Wl,--no-undefined, which a MODULE does not get by default.)
target_include_directories(hlo_test_oldcall PRIVATE ${CMAKE_SOURCE_DIR}/include)
set_target_properties(hlo_test_oldcall PROPERTIES
  C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
