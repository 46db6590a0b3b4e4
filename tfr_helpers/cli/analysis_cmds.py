"""CLI commands for the analysis layer (registered on import)."""
