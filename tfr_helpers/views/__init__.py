"""tfr_helpers.views (public names listed in __all__)."""

__all__: list[str] = []
