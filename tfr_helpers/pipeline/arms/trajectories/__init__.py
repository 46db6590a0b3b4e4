"""The trajectory arm: real, published self-repair trajectories replayed through RQ1 and RQ2 (``trajectories``)."""
