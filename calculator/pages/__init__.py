"""One module per calculator (its declaration, its inputs read once, compute/check/chart), and the field groups and
presets they share. The registry finds every module that defines ``CALCULATOR``.
"""
