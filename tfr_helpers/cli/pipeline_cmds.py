"""CLI commands for the pipeline layer (registered on import)."""
