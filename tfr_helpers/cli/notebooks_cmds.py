"""CLI commands for the notebooks layer (registered on import)."""
