"""Hostile inputs, as tables: one module of cases per area, one runner (tests/test_hostile.py).

Every case is a command a user (or a pull request) can run, with the files it is given, and
what must come back: the exit code, a message naming the input, never a traceback, and,
where the case says so, a check that nothing the user owns was damaged.
"""
