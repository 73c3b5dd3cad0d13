"""Build ``examples/pcg-2023-unity`` from the Unity acceptance data of the 2023 competition.

The 150 published levels (prompts V1–V5 as five teams × letters I, L, U × 10 trials) came from ChatGPT responses
that were not published. This script turns each level back into a response whose fenced code block drops the
same blocks (``ab_drop``, the 2023 function), and copies Unity's stability files and the 2023 ViT's similarity
files for the levels that today's converter rebuilds byte for byte. The 12 levels of the pre-2023-03-20
converter cannot be rebuilt (podium's build fails them with "Width boundary is intruded."), so their entries
are left out of the score inputs: they score 0, as a failed trial does.

Usage: python scripts/make_pcg_example.py [UNITY_2023_DIR] [OUT]
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from podium.tracks.pcg.official.levelxml import drops_from_level, level_xml_text, parse_level
from podium.tracks.pcg.rules.build import GridLevel, drop_blocks

RESPONSE = """Here is a structure that looks like the letter "{letter}". Blocks are dropped from the bottom up:

```
{calls}
```

Each call drops one block at the given slot."""


def main(source: Path, out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    for team_dir in sorted(source.glob("v*")):
        team = team_dir.name
        rebuilt: set[str] = set()
        for level_path in sorted(team_dir.glob("levels/*/*.xml")):
            letter = level_path.parent.name
            drops = drops_from_level(parse_level(level_path.read_bytes()))
            calls = "\n".join(f"ab_drop('{code}', {slot})" for code, slot in drops)
            raw = out / team / "raw" / letter / f"{level_path.stem}.txt"
            raw.parent.mkdir(parents=True, exist_ok=True)
            raw.write_text(RESPONSE.format(letter=letter, calls=calls), encoding="utf-8")
            level = drop_blocks([(code.upper(), slot) for code, slot in drops])
            if isinstance(level, GridLevel) and level_xml_text(level).encode() == level_path.read_bytes():
                rebuilt.add(level_path.stem)
        for letter_file in sorted((team_dir / "stability").glob("*.json")):
            document = json.loads(letter_file.read_text("utf-8"))
            document["raws"] = [r for r in document["raws"] if _stem(r["tag"]) in rebuilt]
            _write(out / team / "stability" / letter_file.name, document, indent=4)
        for letter_file in sorted((team_dir / "similarity-vit-base-letter").glob("*.json")):
            document = json.loads(letter_file.read_text("utf-8"))
            document["trials"] = [t for t in document["trials"] if _stem(t["id"]) in rebuilt]
            document["similarities"] = [s for s in document["similarities"] if _stem(s["id"]) in rebuilt]
            document["count"] = len(document["trials"])
            _write(out / team / "similarity" / letter_file.name, document, indent=2)


def _stem(name: str) -> str:
    return name.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]


def _write(path: Path, document: object, indent: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=indent), encoding="utf-8")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        Path(args[0] if args else "tests/data/pcg/unity-2023"),
        Path(args[1] if len(args) > 1 else "examples/pcg-2023-unity"),
    )
