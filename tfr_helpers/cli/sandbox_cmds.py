"""CLI commands for the sandbox layer (registered on import)."""
