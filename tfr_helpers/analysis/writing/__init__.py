"""Writing a run's analysis to files: summary.json, the ``.tex`` tables and the figures (:mod:`.export`), the tables
fitted to a page as LaTeX (:mod:`.latex`)."""
