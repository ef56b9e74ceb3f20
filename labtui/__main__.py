"""`python -m labtui` is the same as the `labtui` console script."""

import sys

from labtui.cli import main

if __name__ == "__main__":
    sys.exit(main())
