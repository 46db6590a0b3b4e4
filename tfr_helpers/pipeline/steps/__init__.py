"""Building blocks the stages and arms share: running code-test pairs, RQ1 labels, test-fail feedback text."""
