"""The public API documents itself: every public class, function, method and
property has a docstring, solver options show in help(), the shipped type
stubs equal a fresh generation from the module, and __version__ is the
project's version."""

import ast
import os
import re
import sys

import numpy as np
import pytest

import iklab
from iklab import _iklab

SOURCE = os.environ.get("IKLAB_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "python", "tools"))

SIGNATURE = re.compile(r"^(?:\d+\. )?\w+\(.*\)(?: -> .+)?$")


def has_doc(obj):
    """A docstring beyond pybind11's generated signature lines and beyond a
    bare "Default: 0." (a default is not a meaning)."""
    lines = [line.strip() for line in (getattr(obj, "__doc__", None) or "").splitlines()]
    return any(line and not SIGNATURE.match(line) and line != "Overloaded function."
               and not re.fullmatch(r"Default: .*\.", line)
               for line in lines)


def undocumented():
    missing = []
    for name in sorted(vars(_iklab)):
        if name.startswith("_"):
            continue
        obj = getattr(_iklab, name)
        if not isinstance(obj, type):
            if callable(obj) and not has_doc(obj):
                missing.append(name)
            continue
        if not has_doc(obj):
            missing.append(name)
        members = getattr(obj, "__members__", {})
        for attribute_name, attribute in vars(obj).items():
            if attribute_name.startswith("_") or attribute_name in members:
                continue
            if isinstance(attribute, type):
                continue
            if isinstance(attribute, (property, staticmethod)) or callable(attribute):
                target = attribute.__func__ if isinstance(attribute, staticmethod) else attribute
                if not has_doc(target):
                    missing.append(f"{name}.{attribute_name}")
    return missing


def test_every_public_name_has_a_docstring():
    missing = undocumented()
    assert not missing, f"{len(missing)} public names without a docstring: {missing}"


def test_array_arguments_name_their_shape():
    """help() names what each argument expects, not pybind11's `handle`."""
    untyped = []
    for name in sorted(vars(_iklab)):
        obj = getattr(_iklab, name)
        callables = [(name, obj)] if not isinstance(obj, type) and callable(obj) else []
        if isinstance(obj, type):
            callables += [(f"{name}.{a}", v.__func__ if isinstance(v, staticmethod) else v)
                          for a, v in vars(obj).items()
                          if (not a.startswith("_") or a == "__init__") and callable(v)
                          and not isinstance(v, type)]
        for qualified, function in callables:
            for line in (getattr(function, "__doc__", None) or "").splitlines():
                if SIGNATURE.match(line.strip()) and re.search(r": handle\b", line):
                    untyped.append(qualified)
    assert not untyped, untyped
    signature = iklab.solve_batch.__doc__.splitlines()[0]
    assert "targets: numpy.ndarray[numpy.float64[B, 7]]" in signature
    assert "q0: numpy.ndarray[numpy.float64[B, nq]]" in signature
    assert "quaternion_wxyz" in iklab.PositionOrientationGoal.__init__.__doc__
    assert "options: iklab._iklab.BoundedLmOptions | None" in iklab.BoundedLmSolver.__init__.__doc__


def test_solver_options_show_in_help_with_their_header_text():
    doc = iklab.BoundedLmSolver.__doc__
    assert "initial_damping:" in doc and "max_iterations:" in doc
    # The field's docstring is the comment above it in the C++ header.
    header = open(os.path.join(SOURCE, "solvers", "optimization",
                               "bounded_lm_solver.h"), encoding="utf-8").read()
    assert "λ ← λ / damping_decrease after a step whose gain ratio is > 0.75." in header
    assert iklab.BoundedLmOptions.damping_decrease.__doc__.startswith(
        "λ ← λ / damping_decrease after a step whose gain ratio is > 0.75.")
    assert "Default: 3.0." in iklab.BoundedLmOptions.damping_decrease.__doc__


def test_shipped_stubs_equal_a_fresh_generation():
    import generate_stubs
    shipped = os.path.join(os.path.dirname(iklab.__file__), "_iklab.pyi")
    assert os.path.exists(os.path.join(os.path.dirname(iklab.__file__), "py.typed"))
    with open(shipped, encoding="utf-8") as f:
        text = f.read()
    assert text == generate_stubs.generate(), "the stubs are stale: rebuild iklab_python"
    tree = ast.parse(text)
    defined = {node.name for node in tree.body
               if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    public = {n for n in vars(_iklab) if not n.startswith("_")}
    assert public <= defined, sorted(public - defined)


def test_version_is_the_projects():
    text = open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8").read()
    version = re.search(r"project\(iklab VERSION ([0-9.]+)", text).group(1)
    assert iklab.__version__ == version


def test_status_names_from_enums_ints_and_arrays():
    statuses = np.array([int(iklab.SolveStatus.CONVERGED), int(iklab.SolveStatus.UNREACHABLE)],
                        dtype=np.int8)
    names = iklab.solve_status_name(statuses)
    assert list(names) == [iklab.solve_status_name(iklab.SolveStatus.CONVERGED),
                           iklab.solve_status_name(iklab.SolveStatus.UNREACHABLE)]
    assert iklab.solve_status_name(int(iklab.SolveStatus.LOCAL_MINIMUM)) == \
        iklab.solve_status_name(iklab.SolveStatus.LOCAL_MINIMUM)
    with pytest.raises(ValueError, match="status 99 is not a SolveStatus value"):
        iklab.solve_status_name(99)


def test_quaternion_order_helpers_match_scipy(panda):
    q = panda.mid_limits() + 0.3
    position, quaternion_wxyz = panda.site_position_quaternion(q, "panda_hand")
    xyzw = iklab.quaternion_to_scipy(quaternion_wxyz)
    assert xyzw[3] == quaternion_wxyz[0] and np.array_equal(xyzw[:3], quaternion_wxyz[1:])
    assert np.array_equal(iklab.quaternion_from_scipy(xyzw), quaternion_wxyz)
    rotation = pytest.importorskip("scipy.spatial.transform").Rotation
    assert np.allclose(rotation.from_quat(xyzw).as_matrix(),
                       panda.site_pose(q, "panda_hand")[:3, :3], atol=1e-12)


def test_reprs_say_what_objects_are(panda):
    problem = iklab.Problem(panda)
    problem.add_goal(iklab.PositionGoal(panda, "panda_hand", [0.4, 0.1, 0.5]))
    assert repr(panda).startswith(f"<iklab.Model: {panda.nq} coordinates")
    assert repr(problem).startswith("<iklab.Problem: 1 goals")
    assert repr(iklab.BoundedLmSolver()) == "<iklab.BoundedLmSolver 'bounded-lm'>"
    batch = iklab.solve_batch(problem, np.array([[0.4, 0.1, 0.5]]),
                              panda.mid_limits()[None, :], iklab.BoundedLmSolver(), threads=1)
    assert repr(batch) == f"<iklab.BatchResult: 1 items, {int(batch.converged.sum())} converged>"
