"""The fio engine: a step as fio's command line (engine.py), fio's JSON reports read (parse.py).

parse.py also reads the fio results people import, and fio's client mode's reports (labtui.fleet.fio_client).
"""
