"""Multi-round backprompting: fresh suites per round, their reference runs, and the chains refined round after round."""
