"""CLI commands for the models layer (registered on import)."""
