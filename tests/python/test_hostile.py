"""Hostile inputs to every public entry point of the Python module.

The cases are generated: for each entry point (solve, solve_batch,
run_study, run_benchmark, reach_map, the model loaders, the data readers)
and each of its arguments, the bad values of that argument's kind (NaN and
infinities, wrong shapes and dtypes, a zero quaternion, a transposed pose,
negative, zero and huge thread counts and sizes, wrong types, missing,
folder, empty and damaged files). A case is clean when the call raises the
exception type of the rule for that kind (framework/validate.h: ValueError
for a bad value, TypeError for a wrong type, OSError never, a signal never)
with a message that names the argument, within the time limit. Calls that
may crash run in a child interpreter: a runner executes the cases one after
another and reports each before the next; when a case kills it (a signal)
or overruns its limit, the case is recorded as not clean and a new runner
continues with the next case.
"""

import json
import re
import os
import select
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

# Seconds a single case may take (the slowest clean ones take well under one).
CASE_LIMIT_S = 20.0

# What every case's code may use (run once per runner).
SETUP = textwrap.dedent("""
    import os, tempfile
    import numpy as np
    import iklab
    arm = iklab.load_urdf(iklab.data_file("robots/panda.urdf"),
                          base_link="panda_link0", tip_link="panda_hand")
    model = arm.compile()
    nq = model.nq
    tip = "panda_hand"
    q0 = model.mid_limits()
    pose = model.site_pose(q0 + 0.1, tip)
    problem = iklab.Problem(model)
    problem.add_goal(iklab.PositionOrientationGoal(model, tip, pose))
    solver = iklab.BoundedLmSolver()
    targets7 = np.array([[0.4, 0.1, 0.5, 1.0, 0.0, 0.0, 0.0]] * 2)
    seeds = np.stack([q0, q0])
    spec = [iklab.GoalSpec.position(tip)]
    tmp = tempfile.mkdtemp(prefix="iklab-hostile-")
    def file_with(name, data):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path
    urdf_text = open(iklab.data_file("robots/panda.urdf"), "rb").read()
    bvh_path = os.path.join(iklab.data_directory(), "motions",
                            sorted(os.listdir(os.path.join(iklab.data_directory(),
                                                           "motions")))[0])
    bvh_text = open(bvh_path, "rb").read()
    small_map = iklab.reach_map(model, tip, resolution=0.5, approach_axes=1,
                                max_attempts=1, threads=1)
    map_path = os.path.join(tmp, "map.h5")
    small_map.write_hdf5(map_path)
    map_bytes = open(map_path, "rb").read()
    def damaged(data, at, name):
        b = bytearray(data)
        b[at] ^= 0xFF
        return file_with(name, bytes(b))
""")


def _bad_arrays(good):
    """(label, expression, exception) for an array argument whose valid
    value is the expression `good` (None: the call must return)."""
    return [
        ("nan", f"np.where(np.arange(np.asarray({good}).size).reshape(np.shape({good})) == 0, np.nan, {good})", "ValueError"),
        ("inf", f"np.full(np.shape({good}), np.inf)", "ValueError"),
        ("-inf", f"np.full(np.shape({good}), -np.inf)", "ValueError"),
        ("wrong shape (one short)", f"np.asarray({good}).ravel()[:-1]", "ValueError"),
        ("wrong shape (extra axis)", f"np.asarray({good})[None, None]", "ValueError"),
        ("empty", "np.zeros((0,))", "ValueError"),
        ("string dtype", f"np.full(np.shape({good}), 'x')", "ValueError|TypeError"),
        ("object dtype", f"np.full(np.shape({good}), None, dtype=object)", "ValueError|TypeError"),
        ("complex dtype", f"np.asarray({good}) + 1j", "ValueError|TypeError"),
        ("None", "None", "ValueError|TypeError"),
        ("a string", "'0.1 0.2'", "ValueError|TypeError"),
        ("huge finite 1e308", f"np.full(np.shape({good}), 1e308)", None),
    ]


def _bad_thread_counts():
    """The rule of framework/validate.h: an int >= 1, capped at the hardware
    threads; a bool or a float is the wrong type."""
    return [
        ("0", "0", "ValueError"),
        ("-1", "-1", "ValueError"),
        ("-2**31", "-2**31", "ValueError"),
        ("2**40 (overflows int)", "2**40", "ValueError"),
        ("10**6 (capped)", "10**6", None),
        ("'2'", "'2'", "TypeError"),
        ("2.5", "2.5", "TypeError"),
        ("True", "True", "TypeError"),
    ]


def _bad_scalars(kind):
    """Bad values of a float setting: tolerance (finite > 0), budget (not
    NaN), size (finite > 0)."""
    out = [("nan", "float('nan')", "ValueError"),
           ("a string", "'1e-5'", "TypeError"),
           ("None", "None", "TypeError")]
    if kind in ("tolerance", "size"):
        out += [("0", "0.0", "ValueError"), ("-1", "-1.0", "ValueError"),
                ("inf", "float('inf')", "ValueError")]
    return out


def _bad_counts():
    """Bad values of an int count (trials, count, iterations)."""
    return [("-1", "-1", "ValueError"), ("2**40 (overflows int)", "2**40", "ValueError|TypeError"),
            ("'3'", "'3'", "TypeError"), ("2.5", "2.5", "TypeError")]


def _bad_files(kind, good_bytes):
    """Bad paths for a reader of `kind` files whose valid content is the
    expression `good_bytes`: (label, expression, exception, text the message
    must hold: the file's name)."""
    return [
        ("missing file", "os.path.join(tmp, 'no-such-file')", "ValueError|RuntimeError",
         "no-such-file"),
        ("a folder", "tmp", "ValueError|RuntimeError", "iklab-hostile-"),
        ("empty file", f"file_with('empty.{kind}', b'')", "ValueError|RuntimeError",
         f"empty.{kind}"),
        ("binary garbage", f"file_with('garbage.{kind}', bytes(range(256)) * 8)",
         "ValueError|RuntimeError", f"garbage.{kind}"),
        ("truncated to half", f"file_with('half.{kind}', {good_bytes}[:len({good_bytes}) // 2])",
         "ValueError|RuntimeError", f"half.{kind}"),
        ("name too long", "os.path.join(tmp, 'x' * 5000)", "ValueError|RuntimeError", "xxxx"),
        ("None", "None", "TypeError", "path"),
        ("an int", "3", "TypeError", "path"),
    ]


def _cases():
    """Every case: (surface, label, code, exception regex or None, texts of
    which the message must hold one: the argument's name; for a file, its
    name; for a name that is not known, that name)."""
    cases = []

    def add(surface, argument, label, call, exception, names=None):
        cases.append((surface, f"{argument}: {label}", call, exception,
                      names or [argument]))

    # solve: q0 of every bad kind; the problem and solver of the wrong type.
    for label, value, exc in _bad_arrays("q0"):
        if label in ("nan", "inf", "-inf"):
            # Solver::Solve never throws for a bad start: its Result says why.
            exc = "status SolveStatus.INVALID_INPUT"
        add("solve", "q0", label, f"solver.solve(problem, {value})", exc)
        add("solve", "q0", label + " (iklab.solve)", f"iklab.solve(problem, {value}, solver)",
            exc)
    add("solve", "problem", "None", "solver.solve(None, q0)", "TypeError")
    add("solve", "problem", "a model", "solver.solve(model, q0)", "TypeError")
    add("solve", "solver", "a string", "iklab.solve(problem, q0, 'bounded-lm')", "TypeError")
    add("solve", "q0", "int dtype (converted)", "solver.solve(problem, np.zeros(nq, dtype=int))", None)
    add("solve", "q0", "float32 (converted)", "solver.solve(problem, q0.astype(np.float32))", None)
    add("solve", "q0", "strided (converted)", "solver.solve(problem, np.repeat(q0, 2)[::2])", None)

    # solve_batch: targets, q0 and threads.
    batch = "iklab.solve_batch(problem, {targets}, {q0}, solver, threads={threads})"
    for label, value, exc in _bad_arrays("targets7"):
        add("solve_batch", "targets", label,
            batch.format(targets=value, q0="seeds", threads=1), exc)
    for label, value, exc in _bad_arrays("seeds"):
        add("solve_batch", "q0", label,
            batch.format(targets="targets7", q0=value, threads=1), exc)
    add("solve_batch", "targets", "zero quaternion",
        batch.format(targets="np.array([[0.4, 0.1, 0.5, 0, 0, 0, 0]] * 2)", q0="seeds",
                     threads=1), "ValueError")
    add("solve_batch", "targets", "(B, 4) columns",
        batch.format(targets="np.ones((2, 4))", q0="seeds", threads=1), "ValueError")
    add("solve_batch", "targets", "transposed (7, B)",
        batch.format(targets="targets7.T.copy()", q0="seeds", threads=1), "ValueError")
    add("solve_batch", "q0", "rows differ from targets",
        batch.format(targets="targets7", q0="np.stack([q0] * 3)", threads=1), "ValueError")
    add("solve_batch", "targets", "list with a non-Problem",
        batch.format(targets="[problem, 3]", q0="seeds", threads=1), "ValueError")
    add("solve_batch", "targets", "empty list",
        batch.format(targets="[]", q0="seeds", threads=1), "ValueError")
    for label, value, exc in _bad_thread_counts():
        add("solve_batch", "threads", label,
            batch.format(targets="targets7", q0="seeds", threads=value), exc)
    add("solve_batch", "goal", "index out of range",
        "iklab.solve_batch(problem, targets7, seeds, solver, goal=5)", "ValueError")

    # Goals and poses (the conversions every pose argument goes through).
    goal = "iklab.PositionOrientationGoal(model, tip, {target})"
    for label, value, exc in [
            ("transposed 4x4", "pose.T.copy()", "ValueError"),
            ("zero quaternion", "([0.4, 0.1, 0.5], [0, 0, 0, 0])", "ValueError"),
            ("nan quaternion", "([0.4, 0.1, 0.5], [np.nan, 0, 0, 1])", "ValueError"),
            ("shear 4x4", "pose @ np.diag([1.0, 2.0, 1.0, 1.0])", "ValueError"),
            ("mirror 4x4", "pose @ np.diag([1.0, 1.0, -1.0, 1.0])", "ValueError"),
            ("3x3", "np.eye(3)", "ValueError"),
            ("nan 4x4", "np.full((4, 4), np.nan)", "ValueError"),
            ("quaternion of 3", "([0.4, 0.1, 0.5], [1, 0, 0])", "ValueError")]:
        add("goals", "target", label, goal.format(target=value), exc)
    add("goals", "site", "unknown name", "iklab.PositionGoal(model, 'nope', [0, 0, 0])",
        "ValueError", ["site", "'nope'"])
    add("goals", "site", "index -1", "iklab.PositionGoal(model, -1, [0, 0, 0])", "ValueError")
    add("goals", "site", "index 2**40", "iklab.PositionGoal(model, 2**40, [0, 0, 0])",
        "ValueError")
    add("goals", "target", "nan position", "iklab.PositionGoal(model, tip, [np.nan, 0, 0])",
        "ValueError")
    add("goals", "weight", "nan", "iklab.PositionGoal(model, tip, [0, 0, 0], weight=np.nan)",
        "ValueError")
    add("goals", "weight", "-1", "iklab.PositionGoal(model, tip, [0, 0, 0], weight=-1.0)",
        "ValueError")
    add("goals", "index", "Bounds.set out of range",
        "problem.bounds.set(nq, 0.0, 1.0)", "ValueError", ["index"])
    add("goals", "lower", "Bounds lower > upper",
        "iklab.Bounds(np.ones(nq), np.zeros(nq))", "ValueError", ["lower", "upper"])

    # run_study: goals, solvers, trials, threads, tolerances, budget.
    study = ("iklab.run_study(model, {goals}, solvers={solvers}, trials={trials}, "
             "threads={threads}, time_budget_seconds={budget}, "
             "position_tolerance={tol}, angle_tolerance=1e-5)")
    base = dict(goals="spec", solvers="['bounded-lm']", trials=2, threads=1, budget=0.005,
                tol=1e-5)
    for label, value, exc in _bad_thread_counts():
        add("run_study", "threads", label, study.format(**{**base, "threads": value}), exc)
    for label, value, exc in _bad_counts():
        add("run_study", "trials", label, study.format(**{**base, "trials": value}), exc)
    for label, value, exc in _bad_scalars("tolerance"):
        add("run_study", "position_tolerance", label,
            study.format(**{**base, "tol": value}), exc)
    for label, value, exc in _bad_scalars("budget"):
        add("run_study", "time_budget_seconds", label,
            study.format(**{**base, "budget": value}), exc)
    add("run_study", "solvers", "unknown name",
        study.format(**{**base, "solvers": "['fastest']"}), "ValueError",
        ["solvers", "'fastest'"])
    add("run_study", "goals", "empty", study.format(**{**base, "goals": "[]"}), "ValueError")
    add("run_study", "goals", "unknown site",
        study.format(**{**base, "goals": "[iklab.GoalSpec.position('nope')]"}), "ValueError",
        ["goal 1", "'nope'"])
    add("run_study", "goals", "a string", study.format(**{**base, "goals": "'position'"}),
        "TypeError")

    # run_benchmark: poses (with quaternions), seeds, threads, tolerance.
    bench = ("iklab.run_benchmark(model, tip, 'bounded-lm', {poses}, {seeds}, "
             "threads={threads}, tolerance={tol})")
    bbase = dict(poses="targets7", seeds="seeds", threads=1, tol=1e-5)
    for label, value, exc in _bad_arrays("targets7"):
        add("run_benchmark", "poses", label, bench.format(**{**bbase, "poses": value}), exc)
    add("run_benchmark", "poses", "zero quaternion",
        bench.format(**{**bbase, "poses": "np.array([[0.4, 0.1, 0.5, 0, 0, 0, 0]] * 2)"}),
        "ValueError")
    for label, value, exc in _bad_arrays("seeds"):
        add("run_benchmark", "seeds", label, bench.format(**{**bbase, "seeds": value}), exc)
    for label, value, exc in _bad_thread_counts():
        add("run_benchmark", "threads", label, bench.format(**{**bbase, "threads": value}), exc)
    for label, value, exc in _bad_scalars("tolerance"):
        add("run_benchmark", "tolerance", label, bench.format(**{**bbase, "tol": value}), exc)
    add("run_benchmark", "solver", "unknown name",
        "iklab.run_benchmark(model, tip, 'fastest', targets7, seeds)", "ValueError",
        ["solver", "'fastest'"])

    # reach_map: resolution, counts, threads, tolerance, site.
    reach = ("iklab.reach_map(model, {site}, resolution={res}, approach_axes={axes}, "
             "max_attempts=1, threads={threads}, tolerance={tol})")
    rbase = dict(site="tip", res=0.5, axes=1, threads=1, tol=1e-5)
    for label, value, exc in _bad_scalars("size"):
        add("reach_map", "resolution", label, reach.format(**{**rbase, "res": value}), exc)
    add("reach_map", "resolution", "1e-9 (too many voxels)",
        reach.format(**{**rbase, "res": "1e-9"}), "ValueError")
    for label, value, exc in _bad_thread_counts():
        add("reach_map", "threads", label, reach.format(**{**rbase, "threads": value}), exc)
    for label, value, exc in _bad_counts():
        add("reach_map", "approach_axes", label, reach.format(**{**rbase, "axes": value}), exc)
    add("reach_map", "approach_axes", "0", reach.format(**{**rbase, "axes": 0}), "ValueError")
    for label, value, exc in _bad_scalars("tolerance"):
        add("reach_map", "tolerance", label, reach.format(**{**rbase, "tol": value}), exc)
    add("reach_map", "site", "unknown name", reach.format(**{**rbase, "site": "'nope'"}),
        "ValueError", ["site", "'nope'"])

    # Model loading: URDF and BVH files and strings, chain links.
    for label, value, exc, name in _bad_files("urdf", "urdf_text"):
        add("load_urdf", "path", label,
            f"iklab.load_urdf({value}, base_link='panda_link0', tip_link=tip)", exc, [name])
    add("load_urdf", "path", "damaged XML",
        "iklab.load_urdf(damaged(urdf_text, 200, 'damaged.urdf'), "
        "base_link='panda_link0', tip_link=tip)", "ValueError", ["damaged.urdf"])
    add("load_urdf", "tip_link", "unknown link",
        "iklab.load_urdf(iklab.data_file('robots/panda.urdf'), base_link='panda_link0', "
        "tip_link='nope')", "ValueError", ["tip_link", "'nope'"])
    add("load_urdf", "text", "nan joint limit",
        "iklab.load_urdf_from_string(urdf_text.decode().replace('lower=\"-2.8973\"', "
        "'lower=\"nan\"', 1), base_link='panda_link0', tip_link=tip)", "ValueError",
        ["<string>"])
    add("load_urdf", "text", "empty", "iklab.load_urdf_from_string('')", "ValueError",
        ["<string>"])
    for label, value, exc, name in _bad_files("bvh", "bvh_text"):
        add("load_bvh", "path", label, f"iklab.load_bvh({value})", exc, [name])
    add("load_bvh", "text", "nan offset",
        "iklab.load_bvh_from_string(bvh_text.decode().replace('OFFSET', 'OFFSET nan', 1))",
        "ValueError", ["<string>:"])
    add("load_bvh", "text", "offset 1e308",
        "iklab.load_bvh_from_string(bvh_text.decode().replace('OFFSET', 'OFFSET 1e308', 1))",
        "ValueError", ["<string>:"])
    add("load_bvh", "text", "empty", "iklab.load_bvh_from_string('')", "ValueError",
        ["<string>"])

    # Data readers: reach maps (HDF5 with a checked header).
    for label, value, exc, name in _bad_files("h5", "map_bytes"):
        add("read_reach_map", "path", label, f"iklab.read_reach_map({value})", exc, [name])
    for at in (0, 8, 100, 511, 600, 2000, -100):
        add("read_reach_map", "path", f"byte {at} flipped",
            f"iklab.read_reach_map(damaged(map_bytes, {at}, 'flip{at + 1000}.h5'))",
            "ValueError|RuntimeError", [f"flip{at + 1000}.h5"])
    add("read_reach_map", "path", "an URDF", "iklab.read_reach_map(iklab.data_file("
        "'robots/panda.urdf'))", "ValueError|RuntimeError", ["panda.urdf"])
    add("read_reach_map", "path", "written to a folder",
        "small_map.write_hdf5(tmp)", "ValueError|RuntimeError", ["iklab-hostile-"])
    add("generate_targets", "count", "-1", "iklab.generate_targets(model, tip, -1)",
        "ValueError")
    add("generate_targets", "count", "2**40", "iklab.generate_targets(model, tip, 2**40)",
        "ValueError|TypeError")
    return cases


CASES = _cases()
SURFACES = sorted({c[0] for c in CASES})

# The runner: reads case numbers, runs each, prints one JSON line per case.
RUNNER = SETUP + textwrap.dedent("""
    import json, re, sys
    cases = json.loads(sys.argv[1])
    for index, code in cases:
        print(json.dumps({"start": index}), flush=True)
        try:
            value = eval(code)
            # A solve that refuses its input returns a Result saying so.
            outcome = {"index": index, "raised": None,
                       "message": getattr(value, "message", ""),
                       "status": str(getattr(value, "status", ""))}
        except BaseException as e:  # noqa: B036 - the verdict is the parent's
            outcome = {"index": index, "raised": type(e).__name__, "message": str(e)}
        print(json.dumps(outcome), flush=True)
""")


def _run_cases(indices):
    """{index: (verdict, detail)} for the cases `indices`, each in a runner
    child; a case that kills its runner or overruns is not clean and a new
    runner continues after it."""
    verdicts = {}
    pending = list(indices)
    while pending:
        payload = json.dumps([[i, CASES[i][2]] for i in pending])
        with tempfile.TemporaryFile() as stderr:
            child = subprocess.Popen([sys.executable, "-c", RUNNER, payload],
                                     stdout=subprocess.PIPE, stderr=stderr,
                                     env=os.environ.copy())
            current, ended = _follow(child, verdicts)
            if current is not None:
                stderr.seek(0)
                tail = stderr.read().decode(errors="replace")[-500:]
                verdicts[current] = ("not clean", f"{ended}: {tail}")
            elif ended != "finished":
                stderr.seek(0)
                pytest.fail(f"the runner {ended} in its set-up: "
                            f"{stderr.read().decode(errors='replace')[-2000:]}")
        pending = [i for i in pending if i not in verdicts]
    return verdicts


def _follow(child, verdicts):
    """Reads the runner's lines into `verdicts` until it ends or a case
    overruns. Returns (the case running when it stopped or None, how it
    ended)."""
    current = None
    deadline = time.monotonic() + 300.0  # the set-up (one small reach map)
    buffer = b""
    fd = child.stdout.fileno()
    while True:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            child.kill()
            child.wait()
            return current, f"over the {CASE_LIMIT_S} s limit"
        chunk = os.read(fd, 65536)
        if not chunk:
            child.wait()
            if current is None and child.returncode == 0:
                return None, "finished"
            return current, f"runner ended with code {child.returncode} (signal if negative)"
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            record = json.loads(line)
            if "start" in record:
                current = record["start"]
            else:
                verdicts[record["index"]] = _judge(record)
                current = None
            deadline = time.monotonic() + CASE_LIMIT_S


def _judge(record):
    """(verdict, detail) of one case's outcome."""
    surface, label, code, expected, names = CASES[record["index"]]
    raised, message = record["raised"], record["message"]
    if expected is None:
        if raised is None:
            return ("clean", "returned")
        return ("not clean", f"raised {raised}: {message}")
    if expected.startswith("status "):  # a Result with this status, naming it
        if raised is not None:
            return ("not clean", f"raised {raised}: {message}")
        if record["status"] != expected[len("status "):]:
            return ("not clean", f"returned status {record['status']}; expected {expected}")
    elif raised is None:
        return ("not clean", f"returned; expected {expected}")
    elif not re.fullmatch(expected, raised):
        return ("not clean", f"raised {raised} (expected {expected}): {message}")
    if not any(n in message for n in names):
        return ("not clean", f"{raised or record['status']}: the message names none of "
                             f"{names}: {message}")
    if "Unable to cast" in message:
        return ("not clean", f"pybind11's generic message: {message[:200]}")
    return ("clean", f"{raised or record['status']}: {message[:120]}")


@pytest.mark.parametrize("surface", SURFACES)
def test_hostile_inputs(surface):
    indices = [i for i, c in enumerate(CASES) if c[0] == surface]
    verdicts = _run_cases(indices)
    bad = {f"{CASES[i][1]}": detail for i, (verdict, detail) in verdicts.items()
           if verdict != "clean"}
    print(f"{surface}: {len(indices)} cases, {len(indices) - len(bad)} clean, "
          f"{len(bad)} not clean")
    assert not bad, json.dumps(bad, indent=1)
