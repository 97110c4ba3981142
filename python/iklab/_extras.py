"""Conveniences written in Python over the compiled module: status names of
ints and arrays, quaternion order helpers (iklab: w first; SciPy: x first),
and reprs that say what an object is."""

import numpy as np

from . import _iklab

_compiled_solve_status_name = _iklab.solve_status_name


def solve_status_name(status):
    """The name of a solve status ('converged', 'local minimum', ...).

    status: a SolveStatus, an int (SolveStatus value, e.g. from
    BatchResult.status), or an array of them; an array gives an array of
    names of the same shape. Raises ValueError for an int that is no status.
    """
    if isinstance(status, _iklab.SolveStatus):
        return _compiled_solve_status_name(status)
    if isinstance(status, np.ndarray):
        names = np.empty(status.shape, dtype=object)
        for index, value in np.ndenumerate(status):
            names[index] = solve_status_name(int(value))
        return names
    value = int(status)
    valid = {int(s): s for s in _iklab.SolveStatus.__members__.values()}
    if value not in valid:
        raise ValueError(f"status {value} is not a SolveStatus value; valid: "
                         f"{sorted(valid)}")
    return _compiled_solve_status_name(valid[value])


def quaternion_to_scipy(quaternion_wxyz):
    """iklab's quaternion order (w, x, y, z) to SciPy's (x, y, z, w), for
    scipy.spatial.transform.Rotation.from_quat. Works on (..., 4) arrays."""
    q = np.asarray(quaternion_wxyz, dtype=float)
    if q.shape[-1:] != (4,):
        raise ValueError(f"quaternion_wxyz must have shape (..., 4), got {q.shape}")
    return np.concatenate([q[..., 1:], q[..., :1]], axis=-1)


def quaternion_from_scipy(quaternion_xyzw):
    """SciPy's quaternion order (x, y, z, w), e.g. Rotation.as_quat(), to
    iklab's (w, x, y, z). Works on (..., 4) arrays."""
    q = np.asarray(quaternion_xyzw, dtype=float)
    if q.shape[-1:] != (4,):
        raise ValueError(f"quaternion_xyzw must have shape (..., 4), got {q.shape}")
    return np.concatenate([q[..., 3:], q[..., :3]], axis=-1)


def _model_repr(model):
    return (f"<iklab.Model: {model.nq} coordinates, {model.num_links} links, "
            f"sites {list(model.site_names)}>")


def _problem_repr(problem):
    return (f"<iklab.Problem: {len(problem.goals)} goals, "
            f"{len(problem.regularizers)} regularizers, "
            f"{problem.num_equality_constraints} equality and "
            f"{problem.num_inequality_constraints} inequality constraints, "
            f"nq={problem.nq}>")


def _batch_result_repr(batch):
    return (f"<iklab.BatchResult: {len(batch)} items, "
            f"{int(np.count_nonzero(batch.converged))} converged>")


def _solver_repr(solver):
    return f"<iklab.{type(solver).__name__} '{solver.name}'>"


def install(namespace):
    """Puts the conveniences into the package namespace."""
    namespace["solve_status_name"] = solve_status_name
    namespace["quaternion_to_scipy"] = quaternion_to_scipy
    namespace["quaternion_from_scipy"] = quaternion_from_scipy
    _iklab.Model.__repr__ = _model_repr
    _iklab.Problem.__repr__ = _problem_repr
    _iklab.BatchResult.__repr__ = _batch_result_repr
    _iklab.Solver.__repr__ = _solver_repr
