"""`python -m bot` is `shbot`."""

import sys

from .cli import main

sys.exit(main())
