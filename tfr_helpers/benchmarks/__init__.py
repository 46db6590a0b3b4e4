"""tfr_helpers.benchmarks (public names listed in __all__)."""

__all__: list[str] = []
