"""The repository stands alone: nothing it tracks cites a document that a clone does not have.

Every rule podium implements is restated in ``docs/rules/`` and every convention in ``docs/design/``, so code,
tests and notes cite those (``docs/rules/dojo-scoring.md §6.1``), never the project's shared folder outside the
repository, the original file names of documents that are not here (``SCORING.md 6.1``, ``CONVENTIONS.md 9``,
``spec dojo.md 6``, a bare ``spec 11``) or a ``../`` path that climbs out of the checkout. Every ``docs/...md`` a
tracked file names, and every relative ``.md`` link of a Markdown file, must exist. Each failure is listed as
``file:line: what``, so the fix is a search away.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[2]
THIS_FILE = Path(__file__).resolve().relative_to(ROOT).as_posix()


OUTSIDE_REFERENCES = (
    (re.compile(r"\bshared/(?:spec|seeds|data)\b"), "a path into the project's shared folder outside the repository"),
    (re.compile(r"(?<![\w.])(?:\.\./)+shared\b"), "a relative path to a 'shared' folder beside the repository"),
    (re.compile(r"\bCONVENTIONS\.md\b"), "CONVENTIONS.md is not in the repository: cite docs/design/conventions.md §N"),
    (re.compile(r"\bSCORING\.md\b"), "SCORING.md is not in the repository: cite docs/rules/dojo-scoring.md §N"),
    (
        re.compile(r"\bspec\W{0,4}(?:dojo|pcg|wmeval)\.md\b"),
        "a research spec outside the repository: cite docs/rules/<track>.md §N",
    ),
    (
        re.compile(r"\bspec\s+(?:§\s*|sections?\s+)?(?:\d|A\d{1,2}\b)"),
        "a section of a spec outside the repository: cite docs/rules/<track>.md §N",
    ),
    (
        re.compile(r"\bseeds/|\b(?:dojo-scoring|pcg-rules-2023|pcg-evaluation-2025|wm-evaluation-rubric)\.txt\b"),
        "a seed text outside the repository: cite its restatement in docs/rules/",
    ),
    (
        re.compile(r"\bpcg-(?:physics|classifier)-notes\b"),
        "prototype notes outside the repository: cite docs/design/physics.md or docs/pcg-classifier-model-card.md",
    ),
)

# The only places a name above may stand, each as the exact text given and nowhere else in the line:
# - the name that seasons store for the scoring rules v0.1 (`SCORING_VERSION` in rules.py) is a stored value, not a
#   citation: allowed quoted exactly as stored, in rules.py and in test modules (which assert it);
# - the restatement of those rules names its original by title, in its Sources paragraph and in the index.
ALLOWED = (
    ('"SCORING.md v0.1"', re.compile(r"src/podium/tracks/dojo/rules\.py|tests/.+\.py")),
    ("SCORING.md — Sequence Dojo Scoring (Draft v0.1)", re.compile(r"docs/rules/(?:dojo-scoring|README)\.md")),
)

DOCS_PATH = re.compile(r"(?<![\w./-])docs/[\w./-]*?\.md\b")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s#]+\.md)(?:#[^)\s]*)?\)")
TOKEN_SEPARATORS = re.compile(r"[\s'\"`()\[\]{},;|*]+")


@dataclass(frozen=True, slots=True)
class Finding:
    """One line that breaks the rule, and why."""

    path: str
    line: int
    why: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.why}"


def leaves_the_repository(folder: PurePosixPath, target: str) -> bool:
    """Whether ``target``, read relative to ``folder`` (a folder inside the repository), climbs out of it."""
    if "://" in target or target.startswith("/"):
        return False
    depth = len(folder.parts)
    for part in target.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def scan_text(path: str, text: str, tracked: frozenset[str]) -> list[Finding]:
    """Every outside reference in one tracked file's ``text``, and every ``docs/...md`` it names that is missing."""
    findings = []
    folder = PurePosixPath(path).parent
    allowed = [phrase for phrase, files in ALLOWED if files.fullmatch(path)]
    for number, line in enumerate(text.splitlines(), start=1):
        for phrase in allowed:
            line = line.replace(phrase, "")
        findings += [Finding(path, number, why) for pattern, why in OUTSIDE_REFERENCES if pattern.search(line)]
        if "../" in line:
            for target in TOKEN_SEPARATORS.split(line):
                if "../" in target and leaves_the_repository(folder, target):
                    findings.append(Finding(path, number, f"{target!r} leaves the repository"))
        for cited in DOCS_PATH.findall(line) if "docs/" in line else ():
            if cited not in tracked:
                findings.append(Finding(path, number, f"{cited} is cited but not in the repository"))
        if path.endswith(".md") and "](" in line:
            for link in MARKDOWN_LINK.findall(line):
                if "://" in link:
                    continue
                target = PurePosixPath(*_normalised(folder / link))
                if leaves_the_repository(folder, link) or target.as_posix() not in tracked:
                    findings.append(Finding(path, number, f"the link {link} points to no file of the repository"))
    return findings


def _normalised(path: PurePosixPath) -> list[str]:
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return parts


def tracked_files(root: Path) -> list[str]:
    """The files git tracks under ``root`` (staged ones included), as repository paths."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"not a git checkout, so there is no list of tracked files: {error}")
    return [name for name in listed.stdout.decode("utf-8").split("\0") if name]


def checked(path: str) -> bool:
    """Whether ``path`` is scanned: not this test (which spells out what it forbids), not a folder not yet checked."""
    return path != THIS_FILE


def scan_repository(root: Path) -> list[Finding]:
    """Every finding in the text files git tracks under ``root``; binary files are skipped."""
    names = tracked_files(root)
    tracked = frozenset(names)
    findings = []
    for name in filter(checked, names):
        try:
            data = (root / name).read_bytes()
        except (FileNotFoundError, IsADirectoryError):  # deleted but not yet staged; a submodule
            continue
        if b"\0" in data[:8192]:
            continue
        findings += scan_text(name, data.decode("utf-8", errors="replace"), tracked)
    return findings


def test_nothing_tracked_cites_a_document_outside_the_repository() -> None:
    findings = scan_repository(ROOT)
    assert not findings, "outside references or missing documents:\n" + "\n".join(map(str, findings))


def test_the_allowed_stored_name_is_still_the_one_rules_py_stores() -> None:
    # if the stored name changes, the allowance above must change (or go) with it
    rules = (ROOT / "src/podium/tracks/dojo/rules.py").read_text("utf-8")
    assert re.search(r'^SCORING_VERSION = "SCORING\.md v0\.1"$', rules, re.MULTILINE)


# The scanner on crafted lines: each of these must be caught...
OFFENDING = [
    ("README.md", "Sequence Dojo (`../shared/seeds/dojo-scoring.txt` is the rule)"),
    ("docs/design/wmeval.md", "the ambiguities are in `shared/spec/wmeval.md`"),
    ("docs/design/physics.md", "prototype notes in `shared/data/pcg/unity-2023`"),
    ("docs/design/deep/note.md", "see ../../../shared/CONVENTIONS-like/thing"),
    ("src/podium/tracks/dojo/bonus.py", '"""The score of one submission (SCORING.md 4–6)."""'),
    ("src/podium/tracks/dojo/screen.py", 'NAME = "SCORING.md v0.1"  # the stored value, but not in rules.py'),
    ("tests/tracks/dojo/test_x.py", "# passes SCORING.md v0.1, word for word (a citation, not the quoted value)"),
    ("src/podium/tracks/dojo/rules.py", '"SCORING.md v0.1" is defined as in SCORING.md 3'),
    ("tests/test_architecture.py", '"the Executor\'s distributed backend (CONVENTIONS.md 9)"'),
    ("src/podium/tracks/pcg/build.py", "The official converter's rules (spec ``pcg.md`` 4)"),
    ("src/podium/tracks/wmeval/submission_folders.py", "# the human-evaluated half (spec wmeval.md 1.3)"),
    ("src/podium/core/execution/sandbox/cgroups.py", "costs about 33 ms (spec 11), more than"),
    ("src/podium/tracks/wmeval/score.py", "ties share a rank, spec A9)"),
    ("README.md", "scoring script defines it (spec §8.1)"),
    ("docs/design/physics.md", "the notes in pcg-physics-notes.md"),
    ("src/podium/tracks/pcg/winner.py", "The rules' ranking policy (``seeds/pcg-evaluation-2025.txt``)"),
    ("docs/design/wmeval.md", "the rubric (wm-evaluation-rubric.txt)"),
    ("Makefile", "\tcp ../elsewhere/file ."),
    ("docs/a.md", "[the rules](rules/missing.md)"),
    ("docs/rules/README.md", "[up and out](../../../outside.md)"),
    ("src/podium/cli/main.py", "# see docs/rules/nowhere.md §2"),
]
# ... and none of these.
INNOCENT = [
    ("src/podium/tracks/dojo/rules.py", 'SCORING_VERSION = "SCORING.md v0.1"'),
    ("tests/tracks/dojo/test_rules.py", 'assert ScoringRules().version == "SCORING.md v0.1"'),
    ("docs/rules/dojo-scoring.md", '"SCORING.md — Sequence Dojo Scoring (Draft v0.1)", the only published document'),
    ("src/podium/tracks/dojo/bonus.py", '"""The score of one submission (docs/rules/dojo-scoring.md §4–§6)."""'),
    ("README.md", "the official scoring (`docs/rules/pcg.md` §8.1) and `docs/design/dojo.md`"),
    ("README.md", "copies qualified prompts to `PROMPTS_DIR/../qualified/`"),
    ("src/podium/tracks/dojo/pages.py", "f\"<a href='../problems/{esc(p.slug)}'>\""),
    ("tests/core/test_sandbox.py", 'for name in ("../x.py", "/etc/x.py", "a/../../b"):'),
    ("src/podium/tracks/wmeval/annotate.py", '(``POST .../score`` with ``{"cant_judge": REASON}``)'),
    ("src/podium/core/llm/models.py", "def parse_model_spec(spec: str) -> ModelSpec:"),
    ("docs/design/pcg-report.md", "the classifier spec and the SHA-256 of its weights"),
    ("docs/rules/README.md", "[the scoring rules](dojo-scoring.md#64-window-deduplication-finalisation)"),
    ("docs/rules/pcg.md", "[physics](../design/physics.md) and the shared bonus"),
    ("tools/pcg_classifier/train_classifier.py", "an ensemble of N networks from seeds ``--seed``, ``--seed`` + 1"),
]
CRAFTED_TREE = frozenset(
    {"docs/rules/pcg.md", "docs/rules/dojo-scoring.md", "docs/design/dojo.md", "docs/design/physics.md"}
)


@pytest.mark.parametrize(("path", "line"), OFFENDING)
def test_the_scanner_catches(path: str, line: str) -> None:
    assert scan_text(path, line, CRAFTED_TREE), (path, line)


@pytest.mark.parametrize(("path", "line"), INNOCENT)
def test_the_scanner_lets_through(path: str, line: str) -> None:
    assert scan_text(path, line, CRAFTED_TREE) == [], (path, line)


def test_the_scanner_reports_file_and_line_of_a_real_checkout(tmp_path: Path) -> None:
    git = ["git", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ok.md").write_text("# ok\n", "utf-8")
    (tmp_path / "README.md").write_text("Fine.\nRead `../shared/spec/dojo.md` and docs/ok.md.\n", "utf-8")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0 SCORING.md 6.1")  # binary: skipped
    (tmp_path / "untracked.md").write_text("SCORING.md 6.1\n", "utf-8")  # git does not track it: skipped
    subprocess.run(["git", "add", "README.md", "docs/ok.md", "logo.png"], cwd=tmp_path, check=True)
    found = [str(finding) for finding in scan_repository(tmp_path)]
    assert found == [
        "README.md:2: a path into the project's shared folder outside the repository",
        "README.md:2: a relative path to a 'shared' folder beside the repository",
        "README.md:2: a research spec outside the repository: cite docs/rules/<track>.md §N",
        "README.md:2: '../shared/spec/dojo.md' leaves the repository",
    ]
