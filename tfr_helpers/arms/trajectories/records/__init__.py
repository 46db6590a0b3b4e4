"""The replayed trajectories arm's records: each step judged (:mod:`.trajectories`, with the arm's part of
``results.json``), screened (:mod:`.trajectory_screening`), every trajectory's attempts judged
(:mod:`.trajectory_outcomes`) and the fixed test lists measured on the reference (:mod:`.list_doses`)."""
