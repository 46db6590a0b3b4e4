"""The replayed self-repair trajectories arm's analysis: the steps' numbers (:mod:`.trajectories`), their
answers, cases, contrast, exclusion bounds, rewards and screening, the dose series over fixed test lists
(:mod:`.dose`, :mod:`.dose_response`, :mod:`.dose_report`), and the arm's report (:mod:`.trajectories_report`)."""
