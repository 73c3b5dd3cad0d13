"""Benchmark of podium's PCG text pipeline (extract + build + score) on a synthetic competition.

By default the synthetic competition has 30 team folders x 26 characters x 10 trials = 7,800 raw responses in the
official layout (``<TEAM>/raw/<C>/<TEAM>_<C>_<n>.txt``, docs/rules/pcg.md §0): three times the real 2024 edition
(10 folders, 2,600 trials), as large as 2025's 10 teams x 3 models. ``--teams 10`` gives the 2024 size.
The responses look like LLM answers: prose around a fenced ```python block of 5-30 ``drop_block`` calls, with
comments, loops, variables and double quotes here and there, sometimes a draft block before the final one, and
about 5% of trials that fail (no fenced block / empty response / no usable call: "Code not found."; a block off
the grid or stacked above row 15: a boundary error at build).

podium has no physics evaluator or classifier yet, so the set-up (not timed) writes the inputs of the scoring stage
itself: ``stability/<C>.json``, ``similarity/<C>.json`` and ``diversity/<C>.json`` for the trials whose level
was built, with deterministic pseudo-random values (``random.Random(seed)``) in the formats of docs/rules/pcg.md §5-§7
(float32-looking stability scores, 26 softmax probabilities per image, diversity = mean cosine distance over 45
pairs).

Measured, each ``--repeats`` times on a fresh copy of the competition (nothing current, no ledger, no outputs):
extract, build, score and extract+build+score (one ``time.perf_counter`` span); then, on the same copy, a warm
re-run of extract+build where every item is current (outputs skipped, recorded failures replayed),
and, for reference, the time to write the same intermediate/level files with plain ``write_bytes``: the cost of
creating one file per trial on this file system, which no stage can avoid (``--workdir /dev/shm`` takes the disk
out of the measurement). Everything runs in this one process (the pipeline is single-threaded), pinned to one CPU
unless ``--no-pin``. ``--profile`` adds one cProfile run per stage. The synthetic competition lives in a temporary
folder (or ``--workdir``) and is removed at the end unless ``--keep``.

Run: ``make bench`` or ``.venv/bin/python benchmarks/bench_pcg_text_pipeline.py [--repeats N] [--profile]``.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import json
import math
import os
import platform
import pstats
import random
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from machine import cpu_model  # benchmarks/machine.py, beside this script

from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import CHARACTERS, TRIALS_PER_CHARACTER, edition
from podium.tracks.pcg.stages.build import run_build
from podium.tracks.pcg.stages.extract import run_extract
from podium.tracks.pcg.stages.score import ScoreOptions, run_score

EDITION_YEAR = 2024  # prefix drop_block, with diversity
TARGET_SECONDS = 5.0  # the target for the whole text pipeline on one core
DEFAULT_TEAMS = 30  # 30 x 26 x 10 = 7,800 trials
NAMED_TEAMS = (
    "AlmostEngineers",
    "Birds_of_Prey",
    "LetterLab",
    "PromptSmith",
    "Shot_Few",
    "TetrisMind",
    "baseline_zero_shot",
    "baseline_zero_shot_multi_turn",
    "chain_of_blocks",
    "zz_organizers",
)
MAX_TEAMS = 99


def team_names(count: int) -> tuple[str, ...]:
    """``count`` team folder names: the named ones first, then ``team_11``, ``team_12``, ..."""
    extra = tuple(f"team_{i:02d}" for i in range(len(NAMED_TEAMS) + 1, count + 1))
    return (NAMED_TEAMS + extra)[:count]


# Share of trials per failure kind (the rest are good responses): about 5% fail in all.
FAILURE_MIX = (
    ("no_fence", 0.012),  # prose only, inline `code`, or an unclosed fence => "Code not found."
    ("empty", 0.004),  # an error during the trial => empty response => "Code not found."
    ("no_call", 0.006),  # a fenced block whose calls all use variables => "Code not found."
    ("width", 0.012),  # b31 at slot 0 or 19 => "Width boundary is intruded."
    ("height_slot", 0.008),  # slot 20..25 => "Height boundary is intruded."
    ("height_stack", 0.008),  # six b13 on one column => "Height boundary is intruded."
)

STAGES = ("intermediate", "levels")  # the per-trial output folders of extract and build
GRID_WIDTH = 20
GRID_HEIGHT = 16
BLOCK_CELLS = {"b11": (1, 1), "b31": (3, 1), "b13": (1, 3)}  # width, height in grid cells

INTROS = (
    'Sure! Here is a structure that resembles the letter "{c}". I will build it from the bottom up with the '
    "drop_block function, keeping the vertical strokes made of b13 blocks and the horizontal strokes made of b31 "
    "blocks so that the shape stays stable.",
    "To create the character {c} in the Science Birds grid, we need to think about the strokes of the letter. "
    "The letter {c} has a few distinct parts, so I will place the blocks column by column.",
    "Let's think step by step.\n\n1. The grid is 20 slots wide and blocks fall until they hit another block.\n"
    "2. Tall blocks (b13) make vertical lines, wide blocks (b31) make horizontal lines.\n"
    "3. Small blocks (b11) fill gaps.\n\nFollowing this plan, here is the code for {c}:",
    "Here's the program:",
    "Below is a Python sequence of drop_block calls that draws an uppercase {c}. Remember that the slot is the "
    "centre column of the block and that b31 needs a free column on both sides.",
)
OUTROS = (
    "",
    "\n\nThis arrangement forms a recognisable {c} while keeping every block supported.",
    "\n\nExplanation:\n- The first blocks form the base.\n- The middle blocks form the body of the letter.\n"
    "- The last blocks finish the top stroke.\n\nLet me know if you want a wider or taller version!",
    "\n\nNote: the structure is symmetric, so it should be stable when the level starts.",
)
COMMENTS = ("# base", "# left stroke", "# right stroke", "# middle bar", "# top", "# fill the gap", "# support")


@dataclass
class Competition:
    """What the set-up wrote, for the report."""

    trials: int = 0
    raw_bytes: int = 0
    calls: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    score_files: int = 0
    score_bytes: int = 0


# ---------------------------------------------------------------------------------------------------- responses


def _good_calls(rng: random.Random, count: int) -> list[tuple[str, int]]:
    """``count`` (block, slot) calls that all land inside the 20x16 grid (checked on a height map)."""
    heights = [0] * GRID_WIDTH
    centre = rng.randint(6, 13)
    spread = rng.randint(3, 6)
    calls: list[tuple[str, int]] = []
    for _ in range(count):
        for _attempt in range(20):
            block = rng.choices(("b11", "b31", "b13"), weights=(3, 4, 4))[0]
            width, height = BLOCK_CELLS[block]
            low, high = (1, GRID_WIDTH - 2) if width == 3 else (0, GRID_WIDTH - 1)
            slot = min(high, max(low, centre + rng.randint(-spread, spread)))
            columns = range(slot - width // 2, slot + width // 2 + 1)
            landing = max(heights[c] for c in columns)
            if landing + height <= GRID_HEIGHT - 2:
                for c in columns:
                    heights[c] = landing + height
                calls.append((block, slot))
                break
    return calls


def _call_line(rng: random.Random, block: str, slot: int) -> str:
    quote = '"' if rng.random() < 0.05 else "'"
    space = "" if rng.random() < 0.03 else " "
    return f"drop_block({quote}{block}{quote},{space}{slot})"


def _code_block(rng: random.Random, calls: list[tuple[str, int]], character: str) -> str:
    lines = [f"# Letter {character}"] if rng.random() < 0.5 else []
    for block, slot in calls:
        if rng.random() < 0.12:
            lines.append(rng.choice(COMMENTS))
        lines.append(_call_line(rng, block, slot))
    if rng.random() < 0.08:  # a loop is not executed: its body is extracted once (still a good call)
        lines.insert(len(lines) // 2, f"for i in range(2):\n    drop_block('b11', {rng.randint(2, 17)})")
    if rng.random() < 0.05:  # calls with variables are silently dropped by the extractor
        lines.append("x = 10\ndrop_block('b31', x)")
    return "```python\n" + "\n".join(lines) + "\n```"


def _response(rng: random.Random, character: str, kind: str) -> tuple[str, int]:
    """One raw response of kind ``kind`` (``good`` or a failure kind) and its number of drop calls."""
    intro = rng.choice(INTROS).format(c=character)
    outro = rng.choice(OUTROS).format(c=character)
    calls = _good_calls(rng, rng.randint(5, 30))
    if kind == "empty":
        return "", 0
    if kind == "no_fence":
        inline = " ".join(f"`{_call_line(rng, b, s)}`" for b, s in calls[:4])
        if rng.random() < 0.5:
            return f"{intro}\n\nYou can use {inline} and so on.{outro}", 0
        return f"{intro}\n\n```python\n" + "\n".join(_call_line(rng, b, s) for b, s in calls), 0  # never closed
    if kind == "no_call":
        body = "```python\nfor slot in range(8, 12):\n    drop_block('b13', slot)\ndrop_block(\"b31\", x)\n```"
        return f"{intro}\n\n{body}{outro}", 0
    if kind == "width":
        calls.insert(rng.randrange(len(calls) + 1), ("b31", rng.choice((0, GRID_WIDTH - 1))))
    elif kind == "height_slot":
        calls.insert(rng.randrange(len(calls) + 1), (rng.choice(("b11", "b13")), rng.randint(20, 25)))
    elif kind == "height_stack":
        slot, position = rng.randint(0, GRID_WIDTH - 1), rng.randrange(len(calls) + 1)
        calls[position:position] = [("b13", slot)] * 6
    text = f"{intro}\n\n{_code_block(rng, calls, character)}{outro}"
    if rng.random() < 0.06:  # a draft block first: only the LAST fenced block counts
        draft = _code_block(rng, _good_calls(rng, rng.randint(3, 8)), character)
        text = f"First attempt:\n\n{draft}\n\nOn second thought, this is better.\n\n{text}"
    return text, len(calls)


def _trial_kind(rng: random.Random) -> str:
    draw = rng.random()
    for kind, share in FAILURE_MIX:
        if draw < share:
            return kind
        draw -= share
    return "good"


def raw_trials(root: Path, teams: tuple[str, ...], trials: int) -> Iterator[tuple[str, str, int, Path]]:
    """(team, character, n, path) of every ``<TEAM>/raw/<C>/<TEAM>_<C>_<n>.txt``, its folder made."""
    for team in teams:
        for character in CHARACTERS:
            folder = root / team / "raw" / character
            folder.mkdir(parents=True)
            for n in range(1, trials + 1):
                yield team, character, n, folder / f"{team}_{character}_{n}.txt"


def write_raw_responses(root: Path, seed: int, teams: tuple[str, ...], trials: int) -> Competition:
    """Write ``<TEAM>/raw/<C>/<TEAM>_<C>_<n>.txt`` for every team, character and trial."""
    info = Competition()
    for team, character, n, path in raw_trials(root, teams, trials):
        rng = random.Random(f"{seed}/raw/{team}/{character}/{n}")
        kind = _trial_kind(rng)
        text, calls = _response(rng, character, kind)
        data = text.encode("utf-8")
        path.write_bytes(data)
        info.trials += 1
        info.raw_bytes += len(data)
        info.calls += calls
        info.kinds[kind] = info.kinds.get(kind, 0) + 1
    return info


# ---------------------------------------------------------------------------------------------------- score inputs


def _float32(value: float) -> float:
    """``value`` rounded to float32 and back, as Unity's and PyTorch's numbers look in the JSON files."""
    return float(struct.unpack("f", struct.pack("f", value))[0])


def _softmax(rng: random.Random, target: int) -> list[float]:
    logits = [rng.gauss(0.0, 1.0) for _ in CHARACTERS]
    logits[target] += rng.gauss(2.0, 1.5)
    top = max(logits)
    exps = [math.exp(v - top) for v in logits]
    total = sum(exps)
    return [_float32(e / total) for e in exps]


def _softmax_raws(image: str, vector: list[float]) -> list[dict[str, Any]]:
    return [{"id": image, "label": c, "softmax_prob": p} for c, p in zip(CHARACTERS, vector, strict=True)]


def _cosine_distance(u: list[float], v: list[float]) -> float:
    dot = sum(a * b for a, b in zip(u, v, strict=True))
    return abs(1.0 - dot / math.sqrt(sum(a * a for a in u) * sum(b * b for b in v)))


def _write_json(path: Path, document: Any, indent: int) -> int:
    data = json.dumps(document, indent=indent).encode("utf-8")
    path.write_bytes(data)
    return len(data)


def write_score_inputs(
    root: Path, built: dict[tuple[str, str], list[tuple[int, int]]], seed: int, info: Competition
) -> None:
    """Write stability/similarity/diversity JSON for the built levels: ``built[(team, C)] = [(trial, blocks)]``."""
    for (team, character), levels in sorted(built.items()):
        rng = random.Random(f"{seed}/score/{team}/{character}")
        for stage in ("stability", "similarity", "diversity"):
            (root / team / stage).mkdir(exist_ok=True)
        raws = []
        for trial, blocks in levels:
            moving = 0 if rng.random() < 0.6 else rng.randint(1, blocks)
            raws.append(
                {
                    "tag": f"competition\\{team}\\levels\\{character}\\{team}_{character}_{trial}.xml",
                    "score": _float32(1 - moving / blocks),
                    "startingObjects": blocks,
                    "movingObjects": moving,
                }
            )
        stability = {"dataCount": len(raws), "rate": sum(r["score"] for r in raws) / len(raws), "raws": raws}
        target = ord(character) - ord("A")
        images = [f"{team}_{character}_{trial}.png" for trial, _ in levels]
        vectors = [_softmax(rng, target) for _ in images]
        trials = [{"id": i, "label": character, "similarity": v[target]} for i, v in zip(images, vectors, strict=True)]
        similarity = {
            "count": len(images),
            "similarityRate": sum(t["similarity"] for t in trials) / len(trials),
            "trials": trials,
            "similarities": [{"id": i, "raws": _softmax_raws(i, v)} for i, v in zip(images, vectors, strict=True)],
        }
        pairs = []
        for a in range(len(images)):
            for b in range(a + 1, len(images)):
                pair = {"trial1": images[a].split(".")[0], "trial2": images[b].split(".")[0]}
                pairs.append({"pair": pair, "distance": _cosine_distance(vectors[a], vectors[b])})
        denominator = 0.5 * TRIALS_PER_CHARACTER * (TRIALS_PER_CHARACTER + 1) - TRIALS_PER_CHARACTER
        diversity = {
            "diversityRate": sum(p["distance"] for p in pairs) / denominator,
            "trials": [{"trial": i.split(".")[0], "vector": v} for i, v in zip(images, vectors, strict=True)],
            "diversities": pairs,
            "count": len(images),
        }
        info.score_bytes += _write_json(root / team / "stability" / f"{character}.json", stability, 4)
        info.score_bytes += _write_json(root / team / "similarity" / f"{character}.json", similarity, 2)
        info.score_bytes += _write_json(root / team / "diversity" / f"{character}.json", diversity, 2)
        info.score_files += 3


def built_levels(root: Path) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """The levels a pipeline run built: ``(team, C) -> [(trial, number of blocks)]`` in trial order."""
    built: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for path in sorted(root.glob("*/levels/*/*.xml")):
        team, character = path.parts[-4], path.parts[-2]
        trial = int(path.stem.rsplit("_", 1)[1])
        built.setdefault((team, character), []).append((trial, path.read_text("utf-8").count("<Block ")))
    for levels in built.values():
        levels.sort()
    return built


# ---------------------------------------------------------------------------------------------------- measuring


@dataclass
class Timings:
    """Seconds of each measurement, one value per repetition."""

    rows: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        self.rows.setdefault(name, []).append(seconds)


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"benchmark check failed: {message}")


def run_once(root: Path, timings: Timings | None, expected: dict[str, Any] | None) -> dict[str, Any]:
    """One cold run of extract + build + score, then a warm extract + build, on a fresh copy ``root``."""
    ed = edition(EDITION_YEAR)
    start = time.perf_counter()
    extracted = run_extract(open_competition(root, ed))
    after_extract = time.perf_counter()
    built = run_build(open_competition(root, ed))
    after_build = time.perf_counter()
    scored = run_score(open_competition(root, ed), ScoreOptions())
    end = time.perf_counter()
    warm_extract = run_extract(open_competition(root, ed))
    after_warm_extract = time.perf_counter()
    warm_build = run_build(open_competition(root, ed))
    after_warm_build = time.perf_counter()

    outcome = {
        "extract_ok": extracted.count("ok"),
        "extract_failed": len(extracted.failures),
        "build_ok": built.count("ok"),
        "build_failed": len(built.failures),
        "competition": str(scored.competition),
        "teams_ranked": len(scored.leaderboard),
        "warm_extract": (warm_extract.count("skipped"), len(warm_extract.failures)),
        "warm_build": (warm_build.count("skipped"), len(warm_build.failures)),
    }
    # Warm: every item is current: outputs are skipped and recorded failures replayed
    _check(
        outcome["warm_extract"] == (outcome["extract_ok"], outcome["extract_failed"])
        and outcome["warm_build"] == (outcome["build_ok"], outcome["build_failed"]),
        f"warm re-run did not skip exactly the current outputs: {outcome}",
    )
    if expected is not None:
        _check(outcome == expected, f"runs differ: {outcome} != {expected}")
    if timings is not None:
        timings.add("extract (cold)", after_extract - start)
        timings.add("build (cold)", after_build - after_extract)
        timings.add("score", end - after_build)
        timings.add("**extract + build + score (cold)**", end - start)
        timings.add("extract (warm, all current)", after_warm_extract - end)
        timings.add("build (warm, all current)", after_warm_build - after_warm_extract)
        timings.add("extract + build (warm, all current)", after_warm_build - end)
        timings.add(
            f"reference: plain write of the {outcome['extract_ok'] + outcome['build_ok']} output files",
            file_floor(root),
        )
    return outcome


def file_floor(root: Path) -> float:
    """Seconds to write the intermediate and level files of ``root`` again with plain ``write_bytes`` (no podium).

    The floor that creating one file per trial and stage costs on this file system, whatever the stage computes.
    """
    outputs = [(p.relative_to(root), p.read_bytes()) for p in sorted(root.glob("*/*/*/*")) if p.parts[-3] in STAGES]
    target = root / "floor"
    start = time.perf_counter()
    made: set[Path] = set()
    for relative, data in outputs:
        path = target / relative
        if path.parent not in made:
            path.parent.mkdir(parents=True)
            made.add(path.parent)
        path.write_bytes(data)
    return time.perf_counter() - start


def profile_stages(root: Path, top: int) -> str:
    """cProfile each stage of one cold run; return the top functions by own time and by cumulative time."""
    ed = edition(EDITION_YEAR)
    stages: list[tuple[str, Callable[[], object]]] = [
        ("extract", lambda: run_extract(open_competition(root, ed))),
        ("build", lambda: run_build(open_competition(root, ed))),
        ("score", lambda: run_score(open_competition(root, ed), ScoreOptions())),
    ]
    out = io.StringIO()
    for name, call in stages:
        profiler = cProfile.Profile()
        profiler.runcall(call)
        for order in ("tottime", "cumulative"):
            out.write(f"\n### profile of {name} (cold), top {top} by {order}\n")
            stats = pstats.Stats(profiler, stream=out)
            stats.strip_dirs().sort_stats(order).print_stats(top)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------------- report


def machine_description(pinned: int | None) -> list[str]:
    cpu = cpu_model()
    try:
        commit = subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, check=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    pin = f", pinned to CPU {pinned}" if pinned is not None else ", not pinned"
    return [
        f"- Machine: {cpu}, {os.cpu_count()} cores{pin}, {platform.platform()}",
        f"- Python: {platform.python_version()} ({platform.python_implementation()})",
        f"- podium: git {commit}",
        f"- Date: {dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
    ]


def timings_table(timings: Timings, trials: int) -> list[str]:
    lines = [
        "| measurement | median (s) | min (s) | max (s) | median per trial (ms) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, values in timings.rows.items():
        median = statistics.median(values)
        lines.append(
            f"| {name} | {median:.3f} | {min(values):.3f} | {max(values):.3f} | {1000 * median / trials:.3f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="repetitions of each measurement (default 5)")
    parser.add_argument(
        "--teams", type=int, default=DEFAULT_TEAMS, help=f"team folders (default {DEFAULT_TEAMS}: 7,800 trials)"
    )
    parser.add_argument("--seed", type=int, default=2024, help="seed of the synthetic competition")
    parser.add_argument("--workdir", type=Path, help="where to put the synthetic competition (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the synthetic competition afterwards")
    parser.add_argument("--no-pin", action="store_true", help="do not pin the process to one CPU")
    parser.add_argument("--profile", action="store_true", help="also cProfile one cold run of each stage")
    parser.add_argument("--profile-top", type=int, default=12, help="functions listed per profile (default 12)")
    args = parser.parse_args(argv)
    if args.repeats < 1 or not 1 <= args.teams <= MAX_TEAMS:
        parser.error(f"--repeats must be >= 1 and --teams between 1 and {MAX_TEAMS}")
    teams = team_names(args.teams)

    pinned = None
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        pinned = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {pinned})

    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="pcg-bench-", dir=args.workdir))
    else:
        work = Path(tempfile.mkdtemp(prefix="pcg-bench-"))
    try:
        template = work / "template"
        print(f"setting up the synthetic competition in {template} ...", file=sys.stderr)
        info = write_raw_responses(template, args.seed, teams, TRIALS_PER_CHARACTER)
        # A first untimed run finds which levels get built; the score inputs are written for exactly those.
        scratch = work / "scratch"
        shutil.copytree(template, scratch)
        ed = edition(EDITION_YEAR)
        run_extract(open_competition(scratch, ed))
        run_build(open_competition(scratch, ed))
        write_score_inputs(template, built_levels(scratch), args.seed, info)
        shutil.rmtree(scratch)

        timings = Timings()
        expected = None
        for repeat in range(args.repeats):
            root = work / f"run-{repeat}"
            shutil.copytree(template, root)
            print(f"repetition {repeat + 1}/{args.repeats} ...", file=sys.stderr)
            outcome = run_once(root, timings, expected)
            expected = expected or outcome
            shutil.rmtree(root)
        assert expected is not None

        profile = ""
        if args.profile:
            root = work / "profile"
            shutil.copytree(template, root)
            profile = profile_stages(root, args.profile_top)
            shutil.rmtree(root)
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)

    kinds = ", ".join(f"{k} {v}" for k, v in sorted(info.kinds.items(), key=lambda kv: -kv[1]))
    total = statistics.median(timings.rows["**extract + build + score (cold)**"])
    lines = [
        "## PCG text pipeline (extract + build + score)",
        "",
        *machine_description(pinned),
        f"- Command: `{' '.join([os.path.relpath(sys.executable), *sys.argv])}` ({args.repeats} repetitions)",
        "",
        f"Synthetic competition (edition {EDITION_YEAR}, seed {args.seed}): {len(teams)} teams x {len(CHARACTERS)} "
        f"characters x {TRIALS_PER_CHARACTER} trials = {info.trials} raw responses, {info.raw_bytes / 1e6:.2f} MB, "
        f"{info.calls} drop calls written (mean {info.raw_bytes / info.trials:.0f} bytes and "
        f"{info.calls / info.trials:.1f} calls per response); trial kinds: {kinds}. "
        f"Extract: {expected['extract_ok']} ok, {expected['extract_failed']} failed; build: {expected['build_ok']} ok, "
        f"{expected['build_failed']} failed; score inputs: {info.score_files} JSON files, "
        f"{info.score_bytes / 1e6:.1f} MB; {expected['teams_ranked']} teams ranked.",
        "",
        *timings_table(timings, info.trials),
        "",
        f"Target: whole text pipeline (extract + build + score, cold) under {TARGET_SECONDS:g} s on one core: "
        f"{'MET' if total < TARGET_SECONDS else 'NOT MET'} (median {total:.2f} s).",
    ]
    print("\n".join(lines))
    if profile:
        print(profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
