"""Screening strategies (RQ3): the registry, the built-in strategies and the LLM judges."""
