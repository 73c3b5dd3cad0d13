"""Print how far podium's physics and the embedded classifier move the 2023 prompt ranking (the report's caveat).

The measurement is ``tests/tracks/pcg/agreement.py`` (also checked against ``src/podium/tracks/pcg/agreement.json``
by ``tests/integration/tracks/pcg/test_agreement.py``); the figures go in ``docs/benchmarks.md``.

    PYTHONPATH=src:. python benchmarks/bench_pcg_agreement.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the measurement lives with the tests
from tests.tracks.pcg.agreement import measure  # noqa: E402


def main() -> None:
    """Measure and print."""
    found = measure()
    print(f"trials: {found.trials}")
    for name, ranking in found.rankings.items():
        print(f"{name:18} ranking {' > '.join(ranking):28} Spearman {found.spearman[name]:.2f}")
    print(f"per-trial similarity, embedded vs ViT: Pearson {found.similarity_pearson:.2f}")


if __name__ == "__main__":
    main()
