"""Command steps: a profile's shell command run as a step, timed and measured at the disk (engine.py),
and the zpaq archive the built-in zpaq-extract profile extracts (archive.py, `labtui make-archive`).
"""
