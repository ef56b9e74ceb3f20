"""labtui.results.store under the name the product owner's acceptance checks import (`import labtui.store`).

Their `foundation` check imports labtui.store to show the core loads no Textual; labtui's own code
and tests import labtui.results.store, and nothing else is here.
"""

from labtui.results.store import *  # noqa: F403 - the whole public store, under the name the checks use
