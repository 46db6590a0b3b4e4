"""``python -m tfr_helpers.notebooks [--check]``: rewrite (or check) the notebooks' generated parameters cells."""

import sys

from tfr_helpers.notebooks.parameters import main

sys.exit(main())
