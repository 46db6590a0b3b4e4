"""tfr_helpers.models (public names listed in __all__)."""

__all__: list[str] = []
