"""World Model as Evaluator: annotators score generated robot videos 0-3 against the real-robot reference.

The pipeline is one module per stage: ``ingest`` (GT strips and team videos, made playable by ``media``),
``assign`` (the fixed episode-to-annotator mapping and each annotator's shuffled queue), ``annotate`` (scores from
the pages, the API and CSV imports, with every change audited), ``score`` (exact per-task and final scores) and
``stats`` (bootstrap intervals, agreement, annotator severity and gold accuracy); ``report`` renders them.
"""
