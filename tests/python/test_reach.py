"""Bindings of reach/: a map from Python equals `iklab reach`'s file byte for byte."""

import os
import subprocess

import numpy as np
import pytest

import iklab
from conftest import PANDA_TIP

SETTINGS = dict(resolution=0.2, approach_axes=4, max_attempts=4, seed=3)


def test_a_python_map_is_the_commands_file_byte_for_byte(panda, tmp_path):
    one = iklab.reach_map(panda, PANDA_TIP, threads=1, robot="panda",
                          base_link="panda_link0", **SETTINGS)
    two = iklab.reach_map(panda, PANDA_TIP, threads=2, robot="panda",
                          base_link="panda_link0", **SETTINGS)
    one.write_hdf5(str(tmp_path / "one.h5"))
    two.write_hdf5(str(tmp_path / "two.h5"))
    assert (tmp_path / "one.h5").read_bytes() == (tmp_path / "two.h5").read_bytes()

    subprocess.run([os.environ["IKLAB_PROGRAM"], "reach", "--robot", "panda",
                    "--resolution", "0.2", "--orientations", "4", "--attempts", "4",
                    "--seed", "3", "--no-plots", "--threads", "2",
                    "--out", str(tmp_path / "cli")],
                   check=True, capture_output=True)
    assert (tmp_path / "cli" / "reach.h5").read_bytes() == (tmp_path / "one.h5").read_bytes()

    back = iklab.read_reach_map(str(tmp_path / "cli" / "reach.h5"))
    np.testing.assert_array_equal(back.fraction, one.fraction)
    np.testing.assert_array_equal(back.manipulability_mean, one.manipulability_mean)
    assert back.shape == one.shape == one.fraction.shape
    assert one.orientations.shape == (4, 4)
    np.testing.assert_allclose(np.linalg.norm(one.orientations, axis=1), 1.0, atol=1e-12)


def test_the_map_agrees_with_the_chains_reach(panda):
    m = iklab.reach_map(panda, PANDA_TIP, position_only=True, threads=2,
                        resolution=0.15, max_attempts=4, seed=1)
    assert m.fraction.max() == 1.0 and m.fraction.min() == 0.0
    # The chain's root (panda_link0) is the world origin. No voxel centre farther
    # from it than sampled configurations reach (5 % and a voxel of slack for
    # the sampling) may be called reachable.
    samples = np.random.default_rng(0).uniform(panda.lower, panda.upper, (2000, 7))
    reach = max(np.linalg.norm(panda.site_pose(q, PANDA_TIP)[:3, 3]) for q in samples)
    reached = np.flatnonzero(m.fraction.ravel() > 0)
    assert reached.size > 0
    for index in reached:
        assert np.linalg.norm(m.centre(int(index))) <= reach * 1.05 + m.resolution
    assert m.state.shape == m.fraction.shape and set(np.unique(m.state)) <= {1, 2, 3}


def test_bad_settings_are_value_errors(panda):
    with pytest.raises(ValueError, match="resolution"):
        iklab.reach_map(panda, PANDA_TIP, resolution=-1.0)
    with pytest.raises(ValueError, match="solver: must be auto"):
        iklab.reach_map(panda, PANDA_TIP, solver="fastest")
    with pytest.raises(ValueError, match="threads must be >= 1"):
        iklab.reach_map(panda, PANDA_TIP, resolution=0.3, threads=0)
    m = iklab.reach_map(panda, PANDA_TIP, resolution=0.4, approach_axes=2, max_attempts=1)
    with pytest.raises(ValueError, match="voxel"):
        m.centre(-1)


def test_the_map_says_which_solver_answered(panda, tmp_path):
    m = iklab.reach_map(panda, PANDA_TIP, resolution=0.4, approach_axes=2,
                        max_attempts=2, seed=1)
    assert m.solver == "bounded-lm"
    assert m.solver_method.startswith("simd-bounded-lm (")
    assert m.solver_method.endswith(" lanes)")
    # The file keeps it.
    m.write_hdf5(str(tmp_path / "map.h5"))
    assert iklab.read_reach_map(str(tmp_path / "map.h5")).solver_method == m.solver_method
