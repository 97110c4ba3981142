"""iklab: inverse kinematics posed as constrained optimization.

NumPy arrays in and out; poses as 4x4 arrays or (position, quaternion w x y z):
quaternions are always w first (quaternion_to_scipy / quaternion_from_scipy
convert to and from SciPy's x-first order).
Solver options are keyword arguments: ``iklab.LbfgsbSolver(max_iterations=100)``.
C++ ``std::invalid_argument`` arrives as ``ValueError`` with the same text.

    import numpy as np, iklab
    arm = iklab.load_urdf(iklab.data_file("robots/panda.urdf"),
                          base_link="panda_link0", tip_link="panda_hand")
    model = arm.compile()
    problem = iklab.Problem(model)
    problem.add_goal(iklab.PositionOrientationGoal(model, "panda_hand", np.eye(4)))
    result = iklab.LbfgsbSolver().solve(problem, model.mid_limits())
"""

import os as _os

from ._iklab import *  # noqa: F401,F403
from ._iklab import __version__  # noqa: F401
from . import _docs, _extras

_docs.apply(globals())
_extras.install(globals())

# The package installed by pip carries the shipped robots and motions in
# iklab/data; they come before the C++ lookup (which would look next to the
# interpreter or in the source tree the module was built from), unless
# IKLAB_DATA_DIR names another folder.
_PACKAGE_DATA = _os.path.join(_os.path.dirname(__file__), "data")
if _os.path.isdir(_PACKAGE_DATA) and not _os.environ.get("IKLAB_DATA_DIR"):
    set_data_directory(_PACKAGE_DATA, origin="the installed Python package")  # noqa: F405
