"""Sequence Dojo: setters publish integer sequences as programs; solvers submit the shortest ``solver.py``.

The judge is a chain of stages, one module each: ``admit`` (size, encoding, canonical bytes, hash), ``screen``
(the static anti-hardcode policy), ``execute`` (the sandboxed run and its printed terms), ``gate`` (Stage Pass /
Reward Correct) and ``bonus`` (brevity and diversity). ``rules`` holds every number a season fixes; ``judge``
chains the stages for one submission against one problem.
"""
