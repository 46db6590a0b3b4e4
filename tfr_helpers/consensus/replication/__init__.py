"""The replication of Menet et al.'s selection table: drawn sub-studies (:mod:`.subsample`), selection over seeds
of them (:mod:`.seed_draws`) and the estimator diagnostics (:mod:`.diagnostics`)."""
