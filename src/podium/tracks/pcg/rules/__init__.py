"""The competition's rules as pure functions of one item: a response, a level, a character's trials, a ranking.

Each module here is the rule of one pipeline verb (``extract``, ``build``, ``simulate`` with ``physics`` and
``render``, ``classify``, ``diversity``, ``score``, ``qualify`` with ``wordcount``, ``winner``); it reads no folder
and writes no file. The driver that runs it over the official layout has the same name under ``stages/``.
The rules restated with their sources: ``docs/rules/pcg.md``.
"""
