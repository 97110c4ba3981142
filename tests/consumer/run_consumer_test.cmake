# Installs the build tree into a scratch prefix, then configures, builds and
# runs tests/consumer against it. Invoked by CTest with -DBUILD_DIR, -DSOURCE_DIR.
set(prefix "${BUILD_DIR}/consumer-test/prefix")
set(consumer_build "${BUILD_DIR}/consumer-test/build")
file(REMOVE_RECURSE "${BUILD_DIR}/consumer-test")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer" -B "${consumer_build}"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build "${consumer_build}")
run("${consumer_build}/consumer")

# The installed program finds the installed data next to itself
# (<prefix>/share/iklab/data, lab/data.h), with no variable set.
if(NOT EXISTS "${prefix}/share/iklab/data/robots/panda.urdf")
  message(FATAL_ERROR "the data folder was not installed to ${prefix}/share/iklab/data")
endif()
set(ENV{IKLAB_DATA_DIR} "")
execute_process(COMMAND "${prefix}/bin/iklab" bench --robots ur5 --targets 5
                        --solvers bounded-lm --seeds mid-limits
                        --out "${BUILD_DIR}/consumer-test/bench"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "robot models from ${prefix}/share/iklab/data (installed package)" found)
if(NOT rc EQUAL 0 OR found EQUAL -1)
  message(FATAL_ERROR "installed iklab bench did not use the installed data (${rc}):\n${out}\n${err}")
endif()
