"""The example script runs as a user would run it."""

import os
import subprocess
import sys

SOURCE = os.environ.get("IKLAB_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))


def test_batch_example_runs(tmp_path):
    script = os.path.join(SOURCE, "examples", "python", "batch_solve.py")
    out = subprocess.run([sys.executable, script, "--targets", "200", "--threads", "2",
                          "--plot", str(tmp_path / "batch.png")],
                         check=True, capture_output=True, text=True).stdout
    assert "solved" in out and "panda" in out
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert (tmp_path / "batch.png").stat().st_size > 0
