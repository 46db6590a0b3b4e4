"""tfr_helpers.notebooks: running the notebook series, their generated parameters cells, and the HTML export."""

from tfr_helpers.notebooks.running import NOTEBOOKS, open_run, resolve_run_dir, run_notebooks

__all__ = ["NOTEBOOKS", "open_run", "resolve_run_dir", "run_notebooks"]
