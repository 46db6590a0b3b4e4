"""tfr_helpers.pipeline (public names listed in __all__)."""

__all__: list[str] = []
