# Criterion unit tests: one binary per tests/test_<area>.c.
if(CRITERION_FOUND)
  file(GLOB UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/test_*.c)
  foreach(src ${UNIT_TESTS})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE hlo PkgConfig::CRITERION)
    # --jobs 1: CTest already runs binaries in parallel.
    add_test(NAME unit/${name} COMMAND ${name} --jobs=1 --short-filename)
  endforeach()
else()
  message(STATUS "Criterion not found: unit tests are not built (scripts/bootstrap.sh --tests installs it)")
endif()

# Golden cases: every testdata/**/<case>.yaml manifest is one test.
add_executable(golden_runner ${CMAKE_SOURCE_DIR}/tests/golden/golden_runner.c)
target_link_libraries(golden_runner PRIVATE hlo)
file(GLOB_RECURSE GOLDEN_MANIFESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/testdata/*.yaml)
foreach(manifest ${GOLDEN_MANIFESTS})
  file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR}/testdata ${manifest})
  string(REGEX REPLACE "\\.yaml$" "" case_name ${rel})
  add_test(NAME golden/${case_name}
           COMMAND golden_runner ${CMAKE_BINARY_DIR}/bin ${manifest})
endforeach()

# Whole-corpus checks over ../shared/conformance (when present beside the repo).
set(CONFORMANCE_DIR ${CMAKE_SOURCE_DIR}/../shared/conformance CACHE PATH "conformance corpus")
if(EXISTS ${CONFORMANCE_DIR} AND EXISTS ${CMAKE_SOURCE_DIR}/scripts/conformance.sh)
  foreach(mode check roundtrip layout run)
    add_test(NAME conformance/${mode}
             COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/conformance.sh ${mode}
                     ${CMAKE_BINARY_DIR}/bin ${CONFORMANCE_DIR})
  endforeach()
endif()

# Devices as MPI processes: every multi-device module under mpirun -np 1, 2, 4
# gives the in-process run's npz byte for byte (scripts/mpi-compare.sh).
find_program(MPIRUN mpirun)
if(MPI_C_FOUND AND MPIRUN)
  file(GLOB MPI_COLLECTIVE_MODULES ${CMAKE_SOURCE_DIR}/testdata/interp-collectives/*.hlo)
  add_test(NAME mpi/collectives
           COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/mpi-compare.sh ${CMAKE_BINARY_DIR}/bin
                   ${MPI_COLLECTIVE_MODULES})
  set_tests_properties(mpi/collectives PROPERTIES RUN_SERIAL TRUE TIMEOUT 300)
  # Per-device inputs, a failing rank, uneven ranks (testdata/mpi/).
  add_test(NAME mpi/goldens
           COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/mpi-goldens.sh ${CMAKE_BINARY_DIR}/bin)
  set_tests_properties(mpi/goldens PROPERTIES RUN_SERIAL TRUE TIMEOUT 400)
  if(HLO_SANITIZE)
    # Open MPI's plugins keep memory past MPI_Finalize and are unloaded by
    # then, so LeakSanitizer can neither name nor suppress them: these runs
    # check memory errors only (the same code's leaks are checked in-process).
    set_tests_properties(mpi/collectives mpi/goldens PROPERTIES
      ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0")
  endif()
  # The conformance comparison is the release build's (minutes under ASan).
  if(EXISTS ${CONFORMANCE_DIR} AND NOT HLO_SANITIZE)
    add_test(NAME mpi/conformance
             COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/mpi-compare.sh ${CMAKE_BINARY_DIR}/bin
                     --corpus ${CONFORMANCE_DIR})
    # Every multi-device module, the three real dumps that take 10-16 s a
    # run included (08-llama, 26-bert-large, 28-gptneox: ~45 s together).
    set_tests_properties(mpi/conformance PROPERTIES RUN_SERIAL TRUE TIMEOUT 900)
  endif()
endif()

# The bundled example (testdata/examples/mlp.hlo) against numpy's result.
find_program(SYSTEM_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(SYSTEM_PYTHON3)
  add_test(NAME example/mlp
           COMMAND ${SYSTEM_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/check-example.py ${CMAKE_BINARY_DIR}/bin)
  # Multi-device --output FILE.npz: entry names and values.
  add_test(NAME collectives/npz-output
           COMMAND ${SYSTEM_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/check-collectives-npz.py ${CMAKE_BINARY_DIR}/bin)
  # docs/ops.md: the generator's self-test, then every opcode has one header
  # and the page is current (scripts/gen-ops-doc.py).
  add_test(NAME docs/ops
           COMMAND ${SYSTEM_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/gen-ops-doc.py --self-test --check)
  # The --report page in headless Chromium (docs/report.md); SKIP (77)
  # only when Chromium is missing (bootstrap.sh --tests installs it).
  add_test(NAME report/browser
           COMMAND ${SYSTEM_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/report/test_report_page.py
                   ${CMAKE_BINARY_DIR}/bin ${CMAKE_SOURCE_DIR}/testdata/report)
  set_tests_properties(report/browser PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
  if(EXISTS ${CONFORMANCE_DIR})
    # The largest corpus module's page: <= 5 MB, loads in <= 2 s.
    add_test(NAME report/scale
             COMMAND ${SYSTEM_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/report/test_report_scale.py
                     ${CMAKE_BINARY_DIR}/bin ${CONFORMANCE_DIR})
    set_tests_properties(report/scale PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
  endif()
endif()

# Benchmarks: tests/bench/bench_<name>.c, run by scripts/bench-*.sh (not by ctest).
file(GLOB BENCHES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/bench/bench_*.c)
foreach(src ${BENCHES})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE hlo)
endforeach()

# cmake --install puts both tools in PREFIX/bin, and they run from there.
add_test(NAME cli/install
         COMMAND sh -c "rm -rf install-test && ${CMAKE_COMMAND} --install . --prefix install-test >/dev/null && install-test/bin/hlorun --version && install-test/bin/hlolayout --version && test -f install-test/share/doc/hlotools/cli.md"
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})

# A failed write of the results (a full disk; /dev/full here) is exit 1 with
# a message, never a silent exit 0.
if(EXISTS /dev/full)
  add_test(NAME cli/stdout-full
           COMMAND sh -c "for a in '${CMAKE_SOURCE_DIR}/testdata/cli/add.hlo' --help --version; do bin/hlorun $a >/dev/full 2>err.txt; rc=$?; [ $rc -eq 1 ] && grep -q 'cannot write' err.txt || { echo \"hlorun $a: exit $rc\"; cat err.txt; exit 1; }; done; bin/hlolayout 'f32[4]' >/dev/full 2>err.txt; [ $? -eq 1 ] && grep -q 'cannot write' err.txt"
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
endif()

# Each room's library sees only the rooms below it.
include(${CMAKE_SOURCE_DIR}/tests/rooms.cmake)
