"""Score (``stability`` + ``similarity`` (+ ``diversity``) → ``result/``): weights, scores, normalisation, ranks.

Writes the four official files exactly as the scoring script does (``constants.json``, ``trial_scores.csv``,
``character_scores.csv``, ``prompt_scores_ranks.csv``), with two visible departures, both documented in
``docs/design/pcg-scoring.md``:

- ranks apply the published tie-break (equal normalised scores: the shorter prompt ranks first, else the teams
  share the rank). ``official_ranks=True`` restores the script's ranks (tied teams ranked by folder order);
- when a team's numbers of stability/similarity/diversity files differ, the official script aborts the whole
  run. podium scores what is there and reports the inconsistency; ``strict=True`` aborts like the script.

A multi-model root (2025) is scored per model (each model folder gets its own official ``result/``), then the
per-model prompt scores are summed, normalised and ranked into ``<root>/result/``.

Editions whose record has ``winner_rule`` (2025) also declare a winner (``rules/winner.py``: the highest total
that beats the zero-shot baseline); the verdict goes to ``<root>/result/winner.json``, a file of podium's beside
the official ones, which are unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from podium.core.errors import InputError
from podium.core.ranking.leaderboard import TieBreak, TieMethod, rank_entries
from podium.core.storage.files import read_json, write_atomic
from podium.tracks.pcg.competition import Competition
from podium.tracks.pcg.editions import CHARACTERS, TRIALS_PER_CHARACTER, Edition, ResultFiles
from podium.tracks.pcg.folders import CHARACTER_FILE_FOLDERS
from podium.tracks.pcg.official import jsnum
from podium.tracks.pcg.official.json2csv import json2csv_text
from podium.tracks.pcg.official.rundir import Platform, base_name, list_visible_files
from podium.tracks.pcg.rules.score import (
    CompetitionScores,
    ModelTotal,
    ScoringRules,
    TeamInputs,
    TrialValue,
    normalized_share,
    score_competition,
    sum_over_models,
)
from podium.tracks.pcg.rules.winner import DEFAULT_BASELINE, Standing, WinnerVerdict, declare_winner
from podium.tracks.pcg.stages.driver import StageRun, stage_run
from podium.tracks.pcg.standings import RankedTeam, ScoreRun


@dataclass(frozen=True, slots=True)
class ScoreOptions:
    """Settings of the scoring stage."""

    trials: int = TRIALS_PER_CHARACTER
    use_weights: bool = True
    official_ranks: bool = False
    strict: bool = False
    prompt_lengths: Mapping[str, int] | None = None  # team → prompt length in words, for the tie-break
    baseline: str = DEFAULT_BASELINE  # the team the 2025 winner must beat
    not_competing: frozenset[str] | None = None  # entries never declared winner; None: names starting "baseline"


@dataclass(frozen=True, slots=True)
class TrialEntries:
    """The usable trials of one input file, and a message for each entry left out."""

    values: list[TrialValue]
    problems: list[str]


@dataclass(frozen=True, slots=True)
class LoadedTeam:
    """One team's score inputs, and how many files each input stage folder holds."""

    inputs: TeamInputs
    counts: dict[str, int]


@dataclass(frozen=True, slots=True)
class RootScores:
    """One official root's scores and the warnings met while reading it."""

    scores: CompetitionScores
    warnings: list[str]


@dataclass(frozen=True, slots=True)
class TeamRow:
    """A team to rank: its normalised and prompt scores, and its per-model scores on a multi-model root."""

    team: str
    normalized: Decimal
    prompt: Decimal
    per_model: Mapping[str, Decimal] | None = None


def _entries(document: Any, list_key: str, value_key: str, id_key: str) -> TrialEntries:
    """Read a file's trial list; an unusable entry is left out (it scores 0) and reported, the rest is kept."""
    items = document.get(list_key) if isinstance(document, dict) else None
    if not isinstance(items, list):
        raise ValueError(f"has no {list_key!r} list")
    values, problems = [], []
    for position, item in enumerate(items):
        try:
            values.append(TrialValue(str(item[id_key]), jsnum.number_from_json(item[value_key])))
        except (KeyError, TypeError, ValueError) as error:
            problems.append(f"{list_key}[{position}] has no usable {id_key!r}/{value_key!r} ({error}); left out")
    return TrialEntries(values, problems)


def load_team_inputs(run: StageRun, team: str, edition: Edition) -> LoadedTeam:
    """Read one team's score inputs; unreadable files are reported and count as absent."""
    stability: dict[str, list[TrialValue]] = {}
    similarity: dict[str, list[TrialValue]] = {}
    diversity: dict[str, Decimal] = {}
    counts: dict[str, int] = {}
    stages = CHARACTER_FILE_FOLDERS if edition.diversity is not None else CHARACTER_FILE_FOLDERS[:2]
    for stage in stages:
        files = [p for p in list_visible_files(run.root / team / stage) if p.suffix == ".json"]
        counts[stage] = len(files)
        for path in files:
            character = base_name(path.name)
            if character not in CHARACTERS:
                run.warn(f"team {team}: {path} is not named after a character A..Z; ignored")
                continue
            try:
                document = read_json(path)
                problems: list[str] = []
                if stage == "stability":
                    entries = _entries(document, "raws", "score", "tag")
                    stability[character], problems = entries.values, entries.problems
                elif stage == "similarity":
                    entries = _entries(document, "trials", "similarity", "id")
                    similarity[character], problems = entries.values, entries.problems
                else:
                    diversity[character] = jsnum.number_from_json(document["diversityRate"])
                for problem in problems:
                    run.warn(f"team {team}: {path}: {problem}")
            except InputError as error:
                run.warn(f"team {team}: {error.describe()}; counted as absent (scores 0)")
            except (ValueError, KeyError, TypeError) as error:
                run.warn(f"team {team}: {path}: {error}; counted as absent (scores 0)")
    return LoadedTeam(TeamInputs(team, stability, similarity, diversity), counts)


def _stage_count_problem(team: str, counts: dict[str, int]) -> str | None:
    if len(set(counts.values())) <= 1:
        return None
    listing = ", ".join(f"{stage}/ {n}" for stage, n in counts.items())
    return f"team {team}: different numbers of files ({listing}); scored with what is there"


def write_official_results(
    result_dir: Path, scores: CompetitionScores, edition: Edition, ranked: Sequence[RankedTeam], platform: Platform
) -> None:
    """Write the four files of the official scoring script into ``result_dir``."""
    fixed = jsnum.to_fixed
    three_factor = edition.result_files is ResultFiles.THREE_FACTOR
    weights = []
    for w in scores.weights:
        if three_factor:
            weights.append(
                {
                    "character": w.character,
                    "weight": fixed(w.weight),
                    "weightStability": fixed(w.stability),
                    "weightSimilarity": fixed(w.similarity),
                    "weightDiversity": fixed(w.diversity if w.diversity is not None else Decimal(0)),
                }
            )
        else:
            weights.append(
                {
                    "character": w.character,
                    "weight": fixed(w.weight),
                    "stabilityWeight": fixed(w.stability),
                    "similarityWeight": fixed(w.similarity),
                }
            )
    constants = {"competitionScore": fixed(scores.competition), "weights": weights}
    write_atomic(
        result_dir / "constants.json", json.dumps(constants, separators=(",", ":"), ensure_ascii=False).encode()
    )

    trial_header = [
        "teamName",
        "character",
        "trial",
        "trial_score" if three_factor else "trial_Score",
        "stabilityScore",
        "similarityScore",
    ]
    char_header = [
        "teamName",
        "character",
        "characterScore",
        "nonWeightedAverageStabilityScore",
        "nonWeightedAverageSimilarityScore",
    ]
    trial_rows: list[list[str | int | None]] = []
    for t in scores.trials:
        trial_rows.append([t.team, t.character, t.trial, fixed(t.score), fixed(t.stability), fixed(t.similarity)])
        if three_factor:
            trial_rows[-1].append(fixed(t.diversity))
    char_rows: list[list[str | int | None]] = []
    for c in scores.characters:
        char_rows.append([c.team, c.character, fixed(c.score), fixed(c.mean_stability), fixed(c.mean_similarity)])
        if three_factor:
            char_rows[-1].append(fixed(c.diversity))
    if three_factor:
        trial_header.append("diversityScore")
        char_header.append("diversityScore")
    write_atomic(result_dir / "trial_scores.csv", json2csv_text(trial_header, trial_rows, platform.eol).encode())
    write_atomic(result_dir / "character_scores.csv", json2csv_text(char_header, char_rows, platform.eol).encode())
    _write_ranks(result_dir, ranked, platform)


def _write_ranks(result_dir: Path, ranked: Sequence[RankedTeam], platform: Platform) -> None:
    rows: list[list[str | int | None]] = [
        [r.team, jsnum.to_fixed(r.normalized), jsnum.to_fixed(r.prompt), r.rank] for r in ranked
    ]
    text = json2csv_text(["team", "normalizedPromptScore", "promptScore", "rank"], rows, platform.eol)
    write_atomic(result_dir / "prompt_scores_ranks.csv", text.encode())


def rank_teams(rows: Sequence[TeamRow], options: ScoreOptions) -> list[RankedTeam]:
    """Rank rows best first (ties: see the module docstring)."""
    lengths = options.prompt_lengths or {}
    tie_breaks: list[TieBreak[TeamRow]] = [
        TieBreak("shorter prompt", lambda row: lengths.get(row.team), lower_wins=True)
    ]
    method = TieMethod.POSITION if options.official_ranks else TieMethod.SHARED
    ranked = rank_entries(rows, lambda row: row.normalized, tie_breaks=tie_breaks, method=method)
    return [
        RankedTeam(r.rank, r.entry.team, r.entry.normalized, r.entry.prompt, r.decided_by, r.entry.per_model)
        for r in ranked
    ]


def _score_one_root(root: Path, competition: Competition, options: ScoreOptions) -> RootScores:
    """Read and score one official root, returning its scores and warnings (without writing results)."""
    edition = competition.edition
    with stage_run(root, "score", platform=competition.platform, ledger=False) as run:
        teams = run.teams(fix="a competition root holds one folder per team")
        inputs = []
        for team in teams:
            loaded = load_team_inputs(run, team, edition)
            if all(n == 0 for n in loaded.counts.values()):
                run.warn(f"team {team}: no score input files; it scores 0 and still counts in P")
            elif problem := _stage_count_problem(team, loaded.counts):
                if options.strict:
                    raise InputError(
                        problem.removesuffix("; scored with what is there"),
                        path=root / team,
                        fix="rerun the missing stages, or drop --strict to score what is there",
                    )
                run.warn(problem)
            inputs.append(loaded.inputs)
        rules = ScoringRules(
            with_diversity=edition.diversity is not None, trials=options.trials, use_weights=options.use_weights
        )
        scores = score_competition(inputs, rules)
        for prompt in scores.prompts:
            run.log.write(f"team: {prompt.team} - promptScore: {jsnum.to_fixed(prompt.prompt)} - Succeed")
        return RootScores(scores, list(run.summary().warnings))


def run_score(competition: Competition, options: ScoreOptions | None = None) -> ScoreRun:
    """Score the competition (one model, or every model of a multi-model root) and write ``result/``."""
    options = options or ScoreOptions()
    root, edition, platform = competition.root, competition.edition, competition.platform
    if not competition.multi_model:
        one = _score_one_root(root, competition, options)
        scores = one.scores
        ranked = rank_teams([TeamRow(p.team, p.normalized, p.prompt) for p in scores.prompts], options)
        write_official_results(root / "result", scores, edition, ranked, platform)
        winner = _declare_winner(root / "result", ranked, edition, options)
        return ScoreRun(
            tuple(ranked), scores.competition, root / "result", tuple(one.warnings), scores={"": scores}, winner=winner
        )

    per_model = {}
    all_scores: dict[str, CompetitionScores] = {}
    warnings = []
    team_order: list[str] = []
    for model_root in competition.model_roots:
        assert model_root.model is not None
        scored = _score_one_root(model_root.path, competition, options)
        scores, model_warnings = scored.scores, scored.warnings
        ranked = rank_teams([TeamRow(p.team, p.normalized, p.prompt) for p in scores.prompts], options)
        write_official_results(model_root.path / "result", scores, edition, ranked, platform)
        per_model[model_root.model] = scores.prompts
        all_scores[model_root.model] = scores
        warnings += [f"model {model_root.model}: {w}" for w in model_warnings]
        team_order += [p.team for p in scores.prompts if p.team not in team_order]
    for model, prompts in per_model.items():
        missing = sorted(set(team_order) - {p.team for p in prompts})
        if missing:
            warnings.append(f"model {model}: no folder for {', '.join(missing)}; they score 0 for this model")
    sums = sum_over_models(per_model, team_order)
    totals = sums.totals
    ranked = rank_teams([TeamRow(t.team, t.normalized, t.total, t.per_model) for t in totals], options)
    total = sums.competition
    _write_model_results(root / "result", total, list(per_model), totals, platform)
    _write_ranks(root / "result", ranked, platform)
    winner = _declare_winner(root / "result", ranked, edition, options)
    return ScoreRun(tuple(ranked), total, root / "result", tuple(warnings), tuple(per_model), all_scores, winner)


def _declare_winner(
    result_dir: Path, ranked: Sequence[RankedTeam], edition: Edition, options: ScoreOptions
) -> WinnerVerdict | None:
    """Where the edition has a winner rule: apply it to the final standings and write ``winner.json``."""
    if not edition.winner_rule:
        return None
    lengths = options.prompt_lengths or {}
    not_competing = options.not_competing
    if not_competing is None:
        not_competing = frozenset(r.team for r in ranked if r.team.startswith("baseline"))
    standings = [Standing(r.team, r.normalized, lengths.get(r.team)) for r in ranked]
    verdict = declare_winner(standings, options.baseline, not_competing)
    document = verdict.as_json() | {"notCompeting": sorted(not_competing | {options.baseline})}
    write_atomic(result_dir / "winner.json", (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode())
    return verdict


def _write_model_results(
    result_dir: Path, competition: Decimal, models: list[str], totals: list[ModelTotal], platform: Platform
) -> None:
    """2025 extras: the summed competition score and each team's per-model share (the "Model-Specific" table)."""
    constants = {"competitionScore": jsnum.to_fixed(competition), "models": models}
    write_atomic(
        result_dir / "constants.json", json.dumps(constants, separators=(",", ":"), ensure_ascii=False).encode()
    )
    rows: list[list[str | int | None]] = []
    for total in totals:
        for model in models:
            prompt = total.per_model.get(model, Decimal(0))
            share = normalized_share(prompt, competition)
            rows.append([total.team, model, jsnum.to_fixed(prompt), jsnum.to_fixed(share)])
    header = ["team", "model", "promptScore", "normalizedModelScore"]
    write_atomic(result_dir / "model_scores.csv", json2csv_text(header, rows, platform.eol).encode())
