"""Reusable Textual widgets, one per module."""
