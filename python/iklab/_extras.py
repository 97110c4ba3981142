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


def _study_to_pandas(result):
    """The per-solve numbers of a study as a pandas DataFrame, one row per
    solve with the columns of the study's trials.csv: solver (its label),
    trial, frame, status (its name), claimed, success, within_bounds,
    iterations, evaluations, attempts, each goal's errors and targets, each
    hard constraint's violations, q_<coordinate> (the answer; NaN where the
    solver returned no usable pose), microseconds and message. Raises
    ImportError when pandas is not installed (e.g. apt install
    python3-pandas)."""
    import pandas as pd

    arrays = result.arrays()
    q = arrays.pop("q")
    arrays.pop("q0")
    labels = np.array(result.solver_labels, dtype=object)
    arrays["solver"] = pd.Categorical(labels[arrays["solver"]],
                                      categories=result.solver_labels)
    arrays["status"] = solve_status_name(arrays["status"])
    study = getattr(result, "study", None)
    names = (list(study.model.dof_names) if study is not None
             else [str(i) for i in range(q.shape[1])])
    columns = {}
    for name, values in arrays.items():
        if name == "microseconds":  # trials.csv puts q before the time
            columns.update({f"q_{dof}": q[:, i] for i, dof in enumerate(names)})
        columns[name] = values
    return pd.DataFrame(columns)


def install(namespace):
    """Puts the conveniences into the package namespace."""
    namespace["solve_status_name"] = solve_status_name
    namespace["quaternion_to_scipy"] = quaternion_to_scipy
    namespace["quaternion_from_scipy"] = quaternion_from_scipy
    _iklab.Model.__repr__ = _model_repr
    _iklab.Problem.__repr__ = _problem_repr
    _iklab.BatchResult.__repr__ = _batch_result_repr
    _iklab.Solver.__repr__ = _solver_repr
    _iklab.StudyResult.to_pandas = _study_to_pandas
