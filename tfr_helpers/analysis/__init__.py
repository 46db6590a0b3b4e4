"""tfr_helpers.analysis (public names listed in __all__)."""

__all__: list[str] = []
