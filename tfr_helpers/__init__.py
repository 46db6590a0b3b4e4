"""tfr: trust in test-execution feedback from LLM-generated tests."""
