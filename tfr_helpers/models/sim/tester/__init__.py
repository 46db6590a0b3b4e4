"""The simulated tester: example-based and property-based tests from the benchmark's examples, some corrupted on purpose."""
