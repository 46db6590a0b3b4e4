"""Providers and batch APIs over the official openai and anthropic SDKs, and the mapping of their errors."""
