"""`python -m labtui` is the same as the `labtui` console script."""

import sys

from labtui.cli import main

sys.exit(main())
