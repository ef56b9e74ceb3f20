"""Textual screens and modals, one per module."""
