"""The study's inference: cluster bootstrap, single-sample intervals, classifier measures, the common screening set."""
