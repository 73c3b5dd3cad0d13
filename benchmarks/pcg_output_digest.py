"""Digest of what ``podium pcg evaluate`` wrote, to show that a change to the code changed no result.

A refactor or a speed-up of the evaluator must leave the stability, similarity, diversity and result files
byte-identical and the images' pixels identical (their PNG encoding may differ). This prints one line per file,
``<sha256>  <path relative to ROOT>``: the bytes for JSON and CSV files, the decoded RGBA pixels (and size) for
PNG files. Logs, ledgers and the report are left out: they hold times and paths.

Usage, with the same root path for both versions (the stability files embed the root's name)::

    python benchmarks/pcg_output_digest.py make-letters RAW          # the 7,800-trial letters workload, once
    python benchmarks/pcg_output_digest.py make-towers RAW           # the towers workload, once
    cp -r RAW /tmp/digest-root && podium pcg evaluate /tmp/digest-root --edition 2024 --workers 2
    python benchmarks/pcg_output_digest.py digest /tmp/digest-root > before.txt
    ... the same with the new code > after.txt; diff before.txt after.txt
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pcg_classify import write_letter_responses  # noqa: E402
from bench_pcg_text_pipeline import team_names, write_raw_responses  # noqa: E402

from podium.tracks.pcg.editions import TRIALS_PER_CHARACTER  # noqa: E402

COMPARED_FOLDERS = ("stability", "similarity", "diversity", "images")
COMPARED_RESULTS = (".csv", ".json")


def file_digest(path: Path) -> str:
    """SHA-256 of the file's bytes, or of a PNG's size and decoded RGBA pixels."""
    if path.suffix == ".png":
        with Image.open(path) as image:
            pixels = image.convert("RGBA")
            return hashlib.sha256(f"{pixels.size}".encode() + pixels.tobytes()).hexdigest()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compared_files(root: Path) -> list[Path]:
    """Every output file the evaluator's results depend on, in a stable order."""
    found = []
    for path in root.rglob("*"):
        parts = path.relative_to(root).parts
        if not path.is_file():
            continue
        in_stage = any(part in COMPARED_FOLDERS for part in parts[:-1])
        in_result = "result" in parts[:-1] and path.suffix in COMPARED_RESULTS
        if in_stage or in_result:
            found.append(path)
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("make-letters", "make-towers", "digest"))
    parser.add_argument("root", type=Path)
    parser.add_argument("--teams", type=int, default=30)
    args = parser.parse_args()
    if args.action == "make-letters":
        write_letter_responses(args.root, 2024, team_names(args.teams))
    elif args.action == "make-towers":
        write_raw_responses(args.root, 2024, team_names(args.teams), TRIALS_PER_CHARACTER)
    else:
        for path in compared_files(args.root):
            print(f"{file_digest(path)}  {path.relative_to(args.root)}")


if __name__ == "__main__":
    main()
