"""The example notebooks (examples/python/*.ipynb) run top to bottom with a
Jupyter kernel (nbclient): a cell that raises fails the test. They are
stored without outputs, so that a change shows as a change of code."""

import glob
import os

import nbclient
import nbformat
import pytest

SOURCE = os.environ.get("IKLAB_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
NOTEBOOKS = sorted(glob.glob(os.path.join(SOURCE, "examples", "python", "*.ipynb")))


def test_there_are_the_two_notebooks():
    names = [os.path.basename(path) for path in NOTEBOOKS]
    assert names == ["first_solve.ipynb", "study.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_is_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, \
                f"{os.path.basename(path)}: clear the outputs before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_runs_without_an_error(path, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    # The kernel inherits PYTHONPATH (the build's iklab) and runs in tmp_path,
    # where the notebooks write their outputs.
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError naming the cell
    errors = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.outputs if output.output_type == "error"]
    assert not errors
