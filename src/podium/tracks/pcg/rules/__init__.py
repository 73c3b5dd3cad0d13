"""The competition's rules as pure functions of one item: a response, a level, a character's trials, a ranking.

Each module here is the rule of one pipeline verb (``extract``, ``build``, ``simulate`` with ``physics`` and
``render``, ``classify``, ``diversity``, ``score``, ``qualify`` with ``wordcount``, ``winner``). None walks the
folder layout, logs or keeps a ledger (only ``simulate`` writes the one image it renders, where it renders it); the
driver that runs a rule over the official layout has the same name under ``stages/``.
The rules restated with their sources: ``docs/rules/pcg.md``.
"""
