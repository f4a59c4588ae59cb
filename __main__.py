"""``python -m cuegym ...``: the same as the ``cuegym`` command (:mod:`cuegym.cli`)."""

import sys

from cuegym.cli import main

sys.exit(main())
