"""Benchmark of the PCG report: building it, its size, and opening it in headless Chromium at 7,800 trials.

1. Thumbnails of real level images (podium's 1024² renders of the 150 Unity levels of 2023): milliseconds per image
   in one process, and images/s through a 2-process pool; these are what a first ``evaluate`` pays for the report's
   embedded pictures (a rerun finds them in the cache).
2. A fabricated run of 39 teams × 20 letters × 10 trials = 7,800 trials (``tests/tracks/pcg/large_report.py``:
   stage outputs written directly, about 84 % of trials with an image): the report's build time (cold and warm
   thumbnail cache) and size.
3. Opening that page in Debian's Chromium (``/usr/bin/chromium``, headless, through Playwright), a fresh browser
   context each repeat: the load event, DOMContentLoaded, images decoded at load, the JS heap, and the time to open a
   closed team's section (toggle to every image decoded). Target: load under 2 s.

Run: ``PYTHONPATH=src:. .venv/bin/python benchmarks/bench_pcg_report.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Page

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' run fabricator
from machine import cpu_model  # noqa: E402

from podium.core.execution.executor import ProcessPoolExecutor  # noqa: E402
from podium.tracks.pcg.official.levelxml import parse_level  # noqa: E402
from podium.tracks.pcg.rules.physics import PhysicsParameters, evaluate_stability  # noqa: E402
from podium.tracks.pcg.rules.render import level_png  # noqa: E402
from podium.tracks.pcg.thumbnails import make_thumbnails, thumbnail_png  # noqa: E402
from tests.tracks.pcg.large_report import LARGE_LETTERS, build_report, fabricate_run  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "pcg" / "unity-2023"
CHROMIUM_ARGS = [
    *("--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update"),
    *("--disable-sync", "--no-first-run", "--enable-precise-memory-info"),
]


def thumbnail_costs(workdir: Path) -> list[str]:
    params = PhysicsParameters()
    pngs = [level_png(evaluate_stability(parse_level(p.read_bytes()), params).image_poses)
            for p in sorted(DATA.glob("v*/levels/*/*.xml"))]  # fmt: skip
    started = time.perf_counter()
    sizes = [len(thumbnail_png(png)) for png in pngs]
    serial_ms = (time.perf_counter() - started) / len(pngs) * 1000
    paths = {}
    for i, png in enumerate(pngs * 4):  # 600 files, each distinct by a trailing byte (a new cache key)
        path = workdir / f"{i}.png"
        path.write_bytes(png + bytes([i % 251]) + i.to_bytes(4, "little"))
        paths[str(i)] = path
    started = time.perf_counter()
    made = make_thumbnails(paths, executor=ProcessPoolExecutor(2))
    pool_rate = len(made) / (time.perf_counter() - started)
    return [
        f"- thumbnails of {len(pngs)} real 1024² renders: {serial_ms:.1f} ms/image in one process, "
        f"{pool_rate:.0f} images/s with 2 processes (600 images); mean size {statistics.mean(sizes):.0f} bytes",
    ]


def _record_errors(page: Page, errors: list[str]) -> None:
    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(str(error)))


def open_page(report: Path, repeats: int) -> list[str]:
    from playwright.sync_api import sync_playwright

    figures: dict[str, list[float]] = {"load": [], "dcl": [], "heap": [], "open": [], "images": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for _ in range(repeats):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            errors: list[str] = []
            _record_errors(page, errors)
            page.goto(report.resolve().as_uri(), wait_until="load")
            timing = page.evaluate("(() => { const n = performance.getEntriesByType('navigation')[0];"
                                   " return [n.loadEventEnd, n.domContentLoadedEventEnd,"
                                   " performance.memory.usedJSHeapSize, document.images.length]; })()")  # fmt: skip
            figures["load"].append(timing[0])
            figures["dcl"].append(timing[1])
            figures["heap"].append(timing[2] / 2**20)
            figures["images"].append(timing[3])
            figures["open"].append(
                page.evaluate("""new Promise(done => {
                const section = document.querySelectorAll('details.team')[5], start = performance.now();
                section.addEventListener('toggle', () => Promise.all([...section.querySelectorAll('img')]
                    .map(i => i.decode())).then(() => done(performance.now() - start)), {once: true});
                section.open = true; })""")
            )
            assert not errors, errors
            context.close()
        browser.close()

    def spread(values: list[float], unit: str, digits: int = 0) -> str:
        return (
            f"median {statistics.median(values):.{digits}f} {unit} ({min(values):.{digits}f}–{max(values):.{digits}f})"
        )

    return [
        f"- load event: {spread(figures['load'], 'ms')}; DOMContentLoaded {spread(figures['dcl'], 'ms')}",
        f"- images decoded at load: {spread(figures['images'], '')} (the first team's section, open by default)",
        f"- JS heap after load: {spread(figures['heap'], 'MiB', 1)}",
        f"- opening a closed team's section until its images are decoded: {spread(figures['open'], 'ms')}",
    ]


def main() -> None:
    """Print the figures as Markdown lines for docs/benchmarks.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    chromium = subprocess.run(["/usr/bin/chromium", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"- machine: {cpu_model()}, Python {platform.python_version()}, {chromium}; git {commit}; "
          f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for line in thumbnail_costs(Path(tmp)):
            print(line)
        root = Path(tmp) / "competition"
        with_image = fabricate_run(root, teams=39, letters=LARGE_LETTERS)
        started = time.perf_counter()
        report = build_report(root)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        build_report(root)
        warm = time.perf_counter() - started
        print(
            f"- 7,800 trials ({with_image} with an image): report built in {cold:.2f} s (40 distinct images to "
            f"thumbnail), {warm:.2f} s again; {report.stat().st_size / 2**20:.2f} MiB"
        )
        for line in open_page(report, args.repeats):
            print(line)


if __name__ == "__main__":
    main()
