"""The notebooks in python/notebooks run top to bottom without a cell raising (their
own asserts check what they show), executed by nbclient on a python3 kernel that
imports the module from the build tree (PYTHONPATH, inherited by the kernel)."""
import glob
import os

import nbclient
import nbformat
import pytest

NOTEBOOKS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "notebooks", "*.ipynb")))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[os.path.basename(p) for p in NOTEBOOKS])
def test_notebook_runs(path, tmp):
    nb = nbformat.read(path, as_version=4)
    # Run in a scratch directory: figures the notebook saves land there, not in the tree.
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp)}})
    client.execute()  # raises CellExecutionError when a cell raises
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
