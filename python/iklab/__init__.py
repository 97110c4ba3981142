"""iklab: inverse kinematics posed as constrained optimization.

NumPy arrays in and out; poses as 4x4 arrays or (position, quaternion w x y z).
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

from ._iklab import *  # noqa: F401,F403
