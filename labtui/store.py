"""The store at the path the product card names (DESIGN.md: `labtui/store.py`), for scripts that import it.

It lives in labtui.results.store, beside the result file format and the summary index; this module
is that one under its first name, so `import labtui.store` keeps working. labtui's own code imports
labtui.results.store.
"""

from labtui.results.store import *  # noqa: F403 - the whole public store, under the card's name
