"""A run's records as tidy rows: where each model's numbers come from, the frames, the refinement attempts."""
