"""``python -m tfr_helpers.notebooks [--check]``: rewrite (or check) the notebooks' generated parameters cells."""

from tfr_helpers.notebooks.parameters import main

if __name__ == "__main__":
    raise SystemExit(main())
