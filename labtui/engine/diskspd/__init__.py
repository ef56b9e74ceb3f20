"""The DiskSpd engine: a step as DiskSpd's command line (engine.py), its XML and text reports read (parse.py).

parse.py also reads the DiskSpd results people import (labtui.results.imports).
"""
