"""Rebuild official score inputs (stability/similarity/diversity JSON files) from a published trial table."""

from __future__ import annotations

import csv
import json
from pathlib import Path


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def rebuild_inputs(published: Path, root: Path, with_diversity: bool) -> None:
    """Write <root>/<TEAM>/{stability,similarity,diversity}/<C>.json with the per-trial values of the table."""
    files: dict[tuple[str, str], dict[str, list[tuple[int, str, str, str]]]] = {}
    for row in read_csv(published / "trial_scores.csv"):
        key = (row["teamName"], row["character"])
        files.setdefault(key, {"rows": []})["rows"].append(
            (int(row["trial"]), row["stabilityScore"], row["similarityScore"], row.get("diversityScore", "0"))
        )
    for (team, char), entry in files.items():
        rows = entry["rows"]
        stability = {
            "dataCount": len(rows),
            "rate": 0,
            "raws": [
                {"tag": f"competition\\{team}\\levels\\{char}\\{team}_{char}_{n}.xml", "score": float(sta)}
                for n, sta, _, _ in rows
            ],
        }
        similarity = {
            "count": len(rows),
            "similarityRate": 0,
            "trials": [
                {"id": f"{team}_{char}_{n}.png", "label": char, "similarity": float(sim)} for n, _, sim, _ in rows
            ],
            "similarities": [],
        }
        _write(root / team / "stability" / f"{char}.json", stability)
        _write(root / team / "similarity" / f"{char}.json", similarity)
        if with_diversity:
            _write(root / team / "diversity" / f"{char}.json", {"diversityRate": float(rows[0][3])})


def _write(path: Path, document: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
