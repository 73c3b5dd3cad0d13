"""The pcg pipeline as its stage drivers, one module per stage, named by its verb.

In order: ``qualify`` (2023 prompts), ``extract``, ``build``, ``simulate``, ``classify``, ``diversity`` (2024+),
``score``; ``evaluate`` runs them all and writes the report. Each driver walks the official folder layout with the
shared skeleton of ``driver`` (teams, characters, trials, one logged event per item, resumability, stale outputs,
warnings, summary) and calls the per-item logic of the modules beside this package (``extract``, ``build``,
``physics``, ``render``, ``classifiers``, ``diversity``, ``score``, ...).
"""
