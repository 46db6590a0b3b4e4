"""tfr_helpers.sandbox (public names listed in __all__)."""

__all__: list[str] = []
