"""``python -m chunkers``: see chunkers.cli."""

import sys

from chunkers.cli import main

sys.exit(main())
