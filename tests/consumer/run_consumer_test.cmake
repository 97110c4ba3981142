# Installs the build tree into a scratch prefix, then, against it, as a user
# would: builds and runs tests/consumer (the documented per-folder targets),
# runs the installed `iklab` program, and builds every project of examples/
# and runs its studies in their quick configuration, checking that each
# writes its report. Invoked by CTest with -DBUILD_DIR, -DSOURCE_DIR.
set(root "${BUILD_DIR}/consumer-test")
set(prefix "${root}/prefix")
file(REMOVE_RECURSE "${root}")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()

# A project of its own against the installed package (Release, at -O1: the
# test is that it finds, compiles and links; the solving runs in the
# installed -O3 libraries).
function(build_project name source_dir)
  run(${CMAKE_COMMAND} -S "${source_dir}" -B "${root}/${name}"
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
      "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG"
      -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
  run(${CMAKE_COMMAND} --build "${root}/${name}")
endfunction()

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")

build_project(consumer "${SOURCE_DIR}/tests/consumer")
run("${root}/consumer/consumer")

run("${prefix}/bin/iklab" list)

# The installed Python module imports from <prefix>/<PYTHON_PACKAGE_DIR> and
# solves (when the module was built).
if(PYTHON)
  set(ENV{PYTHONPATH} "${prefix}/${PYTHON_PACKAGE_DIR}")
  file(WRITE "${root}/import_installed.py" "
import numpy as np
import iklab
assert iklab.__file__.startswith('${prefix}/'), iklab.__file__
model = iklab.planar_chain([1.0, 1.0]).compile()
problem = iklab.Problem(model)
problem.add_goal(iklab.PositionGoal(model, model.site_names[-1], [1.0, 1.0, 0.0]))
assert iklab.LbfgsbSolver().solve(problem, np.array([0.3, 0.3])).converged
print('installed Python module: ok')
")
  run(${PYTHON} "${root}/import_installed.py")
  unset(ENV{PYTHONPATH})
endif()

file(GLOB examples LIST_DIRECTORIES true "${SOURCE_DIR}/examples/*")
foreach(example_dir ${examples})
  if(NOT EXISTS "${example_dir}/CMakeLists.txt")
    continue()
  endif()
  get_filename_component(example ${example_dir} NAME)
  build_project(${example} "${example_dir}")
  run("${root}/${example}/${example}" run all --quick --out "${root}/${example}-out")
  foreach(report REPORT.md index.html assets/three.min.js assets/viewer.js)
    if(NOT EXISTS "${root}/${example}-out/${report}")
      message(FATAL_ERROR "example ${example} wrote no ${report}")
    endif()
  endforeach()
  # A study's page embeds its 3D scene (its trials drawn).
  file(GLOB scenes "${root}/${example}-out/*/scene.json")
  if(NOT scenes)
    message(FATAL_ERROR "example ${example} wrote no study scene.json")
  endif()
  file(GLOB csvs "${root}/${example}-out/*/trials.csv")
  if(NOT csvs)
    message(FATAL_ERROR "example ${example} wrote no trials.csv")
  endif()
  message("example ${example}: REPORT.md, HTML report, scenes and trials written")
endforeach()

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
