"""Benchmark of PCG classification back-ends and of the whole ``evaluate`` pipeline with the embedded classifier.

1. Classify throughput (images/s, one process) for each back-end on level images rendered by podium from the 150
   Unity 2023 levels: ``embedded``; ``hf:`` on a ViT-base with the official architecture (random weights: the
   official weights cannot be downloaded here, and speed does not depend on the weights); its ``onnx:`` export in
   fp32 and int8. Images are decoded from PNG for each measurement, as the stage does.
2. ``podium pcg evaluate`` (extract, build, simulate, classify, diversity, score, report) on a synthetic
   competition of 30 teams × 26 letters × 10 trials = 7,800 trials, edition 2024, embedded classifier, 2 worker
   processes, on a fresh copy each repeat (the run with the median total is shown). Target: under 2 minutes on 2
   cores. Two workloads of raw responses:
   - ``letters`` (the target's workload): each response's drop calls are one letter-like structure of
     ``bench_pcg_simulate.py`` (3-25 blocks, median 3 like the 150 real ChatGPT levels of 2023, a quarter with a
     tipping bar), the levels whose simulation ``make bench-sim`` measures;
   - ``towers`` (a stress figure): the responses of ``bench_pcg_text_pipeline.py``, 5-30 random drops around one
     column, about 5 % failing trials: tall random stacks, most of which collapse and are simulated three times.

Run: ``make bench-classify`` (= ``.venv/bin/python benchmarks/bench_pcg_classify.py [--teams N] [--skip-hf]``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pcg_simulate import _block_count, synthetic_calls  # noqa: E402
from bench_pcg_text_pipeline import raw_trials, team_names, write_raw_responses  # noqa: E402
from machine import cpu_model  # benchmarks/machine.py, beside this script

from podium.core.execution.executor import ProcessPoolExecutor  # noqa: E402
from podium.tracks.pcg.classifiers import ClassifierSpec, LetterClassifier, load_classifier  # noqa: E402
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import TRIALS_PER_CHARACTER, edition  # noqa: E402
from podium.tracks.pcg.official.levelxml import parse_level  # noqa: E402
from podium.tracks.pcg.pipeline import evaluate  # noqa: E402
from podium.tracks.pcg.rules.physics import PhysicsParameters, evaluate_stability  # noqa: E402
from podium.tracks.pcg.rules.render import level_png  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "pcg" / "unity-2023"


def level_pngs(count: int) -> list[bytes]:
    levels = sorted(DATA.glob("v*/levels/*/*.xml"))[:count]
    params = PhysicsParameters()
    return [level_png(evaluate_stability(parse_level(p.read_bytes()), params).image_poses) for p in levels]


def images_per_second(classifier: LetterClassifier, pngs: list[bytes], repeats: int) -> list[float]:
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        images = [Image.open(io.BytesIO(data)) for data in pngs]
        classifier.predict(images)
        rates.append(len(pngs) / (time.perf_counter() - started))
    return rates


def classify_table(pngs: list[bytes], repeats: int, skip_hf: bool, workdir: Path) -> list[str]:
    rows = ["| back-end | batch | images/s median (min–max) | ms per image |", "|---|---:|---:|---:|"]
    backends: list[tuple[str, LetterClassifier, int]] = [("embedded", load_classifier("embedded"), 0)]
    if not skip_hf:
        import torch
        import transformers

        from podium.tracks.pcg.classifiers.onnx import export_onnx

        torch.manual_seed(0)
        vit = workdir / "vit-base"
        letters = [chr(65 + i) for i in range(26)]
        config = transformers.ViTConfig(num_labels=26, id2label=dict(enumerate(letters)))  # ViT-base/16, 224 px
        transformers.ViTForImageClassification(config).save_pretrained(vit)
        transformers.ViTImageProcessor(image_mean=[0.5] * 3, image_std=[0.5] * 3).save_pretrained(vit)
        fp32 = export_onnx(str(vit), workdir / "vit.onnx")
        int8 = export_onnx(str(vit), workdir / "vit-int8.onnx", int8=True)
        for batch in (1, 16):
            backends.append(
                (f"hf (ViT-base, torch {torch.__version__})", load_classifier(f"hf:{vit}", batch_size=batch), batch)
            )
            backends.append(("onnx fp32", load_classifier(f"onnx:{fp32}", batch_size=batch), batch))
            backends.append(("onnx int8", load_classifier(f"onnx:{int8}", batch_size=batch), batch))
    for name, classifier, batch in backends:
        sample = pngs if name == "embedded" else pngs[:32]
        rates = images_per_second(classifier, sample, repeats)
        median = statistics.median(rates)
        shown_batch = batch or "all"
        rows.append(
            f"| {name} | {shown_batch} | {median:.1f} ({min(rates):.1f}–{max(rates):.1f}) | {1000 / median:.1f} |"
        )
        print(rows[-1], flush=True)
    return rows


def write_letter_responses(root: Path, seed: int, teams: tuple[str, ...]) -> None:
    """``<TEAM>/raw/<C>/<TEAM>_<C>_<n>.txt``: a short answer around one letter-like structure's drop calls."""
    for team, character, n, path in raw_trials(root, teams, TRIALS_PER_CHARACTER):
        rng = random.Random(f"{seed}/letters/{team}/{character}/{n}")
        calls = synthetic_calls(rng, _block_count(rng), tipping=rng.random() < 0.25)
        code = "\n".join(f"drop_block('{block.lower()}', {slot})" for block, slot in calls)
        text = f"Here is the letter {character}:\n\n```python\n{code}\n```\n"
        path.write_text(text, encoding="utf-8")


def evaluate_table(workload: str, teams: int, repeats: int, workdir: Path) -> list[str]:
    """Evaluate a fresh copy of the competition ``repeats`` times; the run with the median total is shown."""
    runs = []
    for repeat in range(repeats):
        root = workdir / f"{workload}-{repeat}"
        names = team_names(teams)
        if workload == "letters":
            write_letter_responses(root, 2024, names)
        else:
            write_raw_responses(root, 2024, names, TRIALS_PER_CHARACTER)
        started = time.perf_counter()
        result = evaluate(
            open_competition(root, edition(2024)), ClassifierSpec("embedded"), executor=ProcessPoolExecutor(workers=2)
        )
        runs.append((time.perf_counter() - started, result))
        print(f"evaluate {workload} run {repeat + 1}: {runs[-1][0]:.1f} s", flush=True)
        shutil.rmtree(root)
    runs.sort(key=lambda run: run[0])
    total, result = runs[len(runs) // 2]
    rows = [f"| stage ({workload}) | items | seconds |", "|---|---:|---:|"]
    for report in result.stages:
        rows.append(f"| {report.stage} | {len(report.summary.events)} | {report.seconds:.1f} |")
    spread = f"{runs[0][0]:.1f}–{runs[-1][0]:.1f}"
    rows.append(
        f"| **total, including score and report** (median of {repeats}, {spread}) "
        f"| {teams * 26 * TRIALS_PER_CHARACTER} trials | **{total:.1f}** |"
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=30, help="team folders of the evaluate run (default 30)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-hf", action="store_true", help="only the embedded back-end")
    parser.add_argument("--skip-evaluate", action="store_true")
    parser.add_argument("--skip-classify", action="store_true", help="only the evaluate runs")
    parser.add_argument("--tower-repeats", type=int, default=1, help="evaluate runs of the towers workload (0: none)")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    today = f"{dt.datetime.now(dt.UTC):%Y-%m-%d}"
    print(f"- Machine: {cpu_model()}, Python {platform.python_version()}; git {commit}; {today}")
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        if not args.skip_classify:
            print("\n".join(classify_table(level_pngs(150), args.repeats, args.skip_hf, workdir)))
        if not args.skip_evaluate:
            print("\n".join(evaluate_table("letters", args.teams, args.repeats, workdir)))
            if args.tower_repeats:
                print("\n".join(evaluate_table("towers", args.teams, args.tower_repeats, workdir)))


if __name__ == "__main__":
    main()
