"""Response generation, the pipeline's first stage: ask a model for every trial's response under an edition's rules.

``team`` runs one team (a 2023 prompt, or a 2024/2025 program in the sandbox, served by ``session`` over the
sandbox's channel and laid out by ``box`` with the stand-ins of ``sandboxed``); ``competition`` runs every team and
model of a ``config`` file; ``rules`` holds each edition's limits; ``records`` the verdicts; ``cli`` the command.
"""
