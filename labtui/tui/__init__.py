"""The TUI's own helpers beside its screens and widgets: the command palette, themes, the profile
draft being edited, glyphs, styling, column layout, the UI's priority."""
