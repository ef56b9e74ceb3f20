"""The export formats by name: how the TUI's export dialog names each and a file's ending.

Kept apart from the writers (labtui.render.export), so `labtui --help` lists the choices without
loading them; the writers are checked to be exactly these.
"""

from __future__ import annotations

from collections import namedtuple

# A named tuple, not a dataclass: `labtui --help` reads this, and dataclasses would cost it an import.
ExportFormat = namedtuple("ExportFormat", "label suffix")


# In the order they are offered: `labtui export --format`, the export dialog and its file endings.
FORMATS: dict[str, ExportFormat] = {
    "csv": ExportFormat("CSV", ".csv"),
    "markdown": ExportFormat("Markdown", ".md"),
    "json": ExportFormat("JSON", ".json"),
    "configmgr-csv": ExportFormat("ConfigMgr CSV", ".csv"),
}
