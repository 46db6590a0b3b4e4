"""The pipeline's side of the study's arms: each arm package's declaration made into the stages, part and calls the
runner and ``finalize_results`` use (:mod:`.declaration`)."""
