"""The learned gold-free screener: reference-free features of a test-fail feedback, a small fitted model, and the
``learned_gold_free`` screening strategy (docs/screening.md)."""
