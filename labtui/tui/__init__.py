"""The TUI's own helpers beside its screens and widgets: the command palette, themes, the profile
draft being edited, the target being chosen, glyphs, styling, column layout, the UI's priority."""
