"""The rules that pick the subset of a benchmark the experiments run on: BigCodeBench's selection (:mod:`.selection`,
which builds the committed file :mod:`tfr_helpers.benchmarks.selection_file` reads) and the stratified sample by
library group (:mod:`.library_sample`)."""
