"""Scoring (``docs/rules/pcg.md`` §8): character weights, trial, character and prompt scores, normalisation.

Arithmetic follows bignumber.js as the official script uses it: inputs are ``Decimal(repr(float))``, sums and
products are exact, every division is rounded half-up to 20 decimal places. With T trials, C = 26 characters
and P teams (every team folder, baselines and empty teams included):

    w_sta_j = max(1 - Σ_k Σ_(every entry of the file) sta / (P·T), 1/C)        (likewise w_sim_j)
    w_div_j = max(1 - Σ_k div_jk / P, 1/C)                                      (2024+)
    weight_j = w_sta_j · w_sim_j [· w_div_j]
    trial_ijk = weight_j · sta_ijk · sim_ijk           (i = 1..T, matched by the trial number in the name)
    char_jk = (Σ_i trial_ijk / T) [· div_jk]
    prompt_k = Σ_j char_jk / C;  norm_k = 100 · prompt_k / Σ_k prompt_k
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from podium.tracks.pcg.editions import CHARACTERS, TRIALS_PER_CHARACTER
from podium.tracks.pcg.official import jsnum

ZERO = Decimal(0)
ONE = Decimal(1)


@dataclass(frozen=True, slots=True)
class TrialValue:
    """One entry of a stability ``raws`` or similarity ``trials`` list: its file name and value."""

    name: str
    value: Decimal


@dataclass(frozen=True, slots=True)
class TeamInputs:
    """What scoring reads for one team; a character missing from a mapping counts as absent (zeros)."""

    team: str
    stability: Mapping[str, Sequence[TrialValue]] = field(default_factory=dict)
    similarity: Mapping[str, Sequence[TrialValue]] = field(default_factory=dict)
    diversity: Mapping[str, Decimal] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ScoringRules:
    """The knobs of the formula."""

    with_diversity: bool
    trials: int = TRIALS_PER_CHARACTER
    characters: tuple[str, ...] = CHARACTERS
    use_weights: bool = True  # the official script's DISABLE_WEIGHTS flag, inverted


@dataclass(frozen=True, slots=True)
class CharacterWeight:
    """The weight of one character and its factors (``diversity`` is None without diversity)."""

    character: str
    weight: Decimal
    stability: Decimal
    similarity: Decimal
    diversity: Decimal | None


@dataclass(frozen=True, slots=True)
class TrialScore:
    """One row of ``trial_scores.csv``."""

    team: str
    character: str
    trial: int
    score: Decimal
    stability: Decimal
    similarity: Decimal
    diversity: Decimal


@dataclass(frozen=True, slots=True)
class CharacterScore:
    """One row of ``character_scores.csv``."""

    team: str
    character: str
    score: Decimal
    mean_stability: Decimal
    mean_similarity: Decimal
    diversity: Decimal


@dataclass(frozen=True, slots=True)
class PromptScore:
    """A team's prompt score and its normalised share of the competition (percent)."""

    team: str
    prompt: Decimal
    normalized: Decimal


@dataclass(frozen=True, slots=True)
class CompetitionScores:
    """Everything the scoring stage computes."""

    competition: Decimal
    weights: tuple[CharacterWeight, ...]
    trials: tuple[TrialScore, ...]
    characters: tuple[CharacterScore, ...]
    prompts: tuple[PromptScore, ...]  # in team order, not ranked


def trial_index(file_name: str) -> int | None:
    """The trial number of a level tag or image id: last ``_`` piece, cut at the first ``.``, ``parseInt``."""
    return jsnum.js_parse_int(file_name.split("_")[-1].split(".")[0])


def _value_of_trial(entries: Sequence[TrialValue], trial: int) -> Decimal:
    for entry in entries:
        if trial_index(entry.name) == trial:
            return entry.value
    return ZERO


def _factor(mean_sum: Decimal, count: int, floor: Decimal) -> Decimal:
    return max(jsnum.sub(ONE, jsnum.div(mean_sum, count)), floor)


def character_weights(teams: Sequence[TeamInputs], rules: ScoringRules) -> list[CharacterWeight]:
    """The weight of each character: harder characters (low mean scores over all teams) weigh more."""
    floor = jsnum.div(ONE, len(rules.characters))
    count = len(teams) * rules.trials
    weights = []
    for char in rules.characters:
        sta = _factor(jsnum.total([e.value for t in teams for e in t.stability.get(char, ())]), count, floor)
        sim = _factor(jsnum.total([e.value for t in teams for e in t.similarity.get(char, ())]), count, floor)
        div: Decimal | None = None
        weight = jsnum.mul(sta, sim)
        if rules.with_diversity:
            div = _factor(jsnum.total([t.diversity.get(char, ZERO) for t in teams]), len(teams), floor)
            weight = jsnum.mul(weight, div)
        if not rules.use_weights:
            weight = ONE
        weights.append(CharacterWeight(char, weight, sta, sim, div))
    return weights


def score_competition(teams: Sequence[TeamInputs], rules: ScoringRules) -> CompetitionScores:
    """Score every team of one competition (one model)."""
    weights = character_weights(teams, rules) if teams else []
    trial_rows: list[TrialScore] = []
    char_rows: list[CharacterScore] = []
    prompt_sums: list[tuple[str, Decimal]] = []
    for team in teams:
        char_scores = []
        for weight in weights:
            char = weight.character
            diversity = team.diversity.get(char, ZERO) if rules.with_diversity else ZERO
            stabilities, similarities, trial_scores = [], [], []
            for trial in range(1, rules.trials + 1):
                sta = _value_of_trial(team.stability.get(char, ()), trial)
                sim = _value_of_trial(team.similarity.get(char, ()), trial)
                score = jsnum.mul(jsnum.mul(weight.weight, sta), sim)
                stabilities.append(sta)
                similarities.append(sim)
                trial_scores.append(score)
                trial_rows.append(TrialScore(team.team, char, trial, score, sta, sim, diversity))
            char_score = jsnum.div(jsnum.total(trial_scores), rules.trials)
            if rules.with_diversity:
                char_score = jsnum.mul(char_score, diversity)
            char_scores.append(char_score)
            char_rows.append(
                CharacterScore(
                    team.team,
                    char,
                    char_score,
                    jsnum.div(jsnum.total(stabilities), rules.trials),
                    jsnum.div(jsnum.total(similarities), rules.trials),
                    diversity,
                )
            )
        prompt_sums.append((team.team, jsnum.div(jsnum.total(char_scores), len(rules.characters))))
    competition = jsnum.total([prompt for _, prompt in prompt_sums])
    return CompetitionScores(
        competition,
        tuple(weights),
        tuple(trial_rows),
        tuple(char_rows),
        tuple(PromptScore(team, prompt, normalized_share(prompt, competition)) for team, prompt in prompt_sums),
    )


def normalized_share(prompt: Decimal, competition: Decimal) -> Decimal:
    """``100 · prompt / competition``, dividing by 1 when the competition total is 0 (as the script does)."""
    return jsnum.mul(jsnum.div(prompt, competition if competition != 0 else ONE), Decimal(100))


@dataclass(frozen=True, slots=True)
class ModelTotal:
    """A team's summed prompt score over the models of a 2025-style competition."""

    team: str
    per_model: Mapping[str, Decimal]
    total: Decimal
    normalized: Decimal


@dataclass(frozen=True, slots=True)
class ModelSums:
    """2025's sums over models: the competition score and each team's total."""

    competition: Decimal
    totals: list[ModelTotal]


def sum_over_models(per_model: Mapping[str, Sequence[PromptScore]], team_order: Sequence[str]) -> ModelSums:
    """2025: total_k = Σ_m prompt_{k,m}; competition = Σ_k total_k; norm_k = 100 · total_k / competition."""
    by_team: dict[str, dict[str, Decimal]] = {team: {} for team in team_order}
    for model, prompts in per_model.items():
        for prompt in prompts:
            by_team.setdefault(prompt.team, {})[model] = prompt.prompt
    totals = {team: jsnum.total(list(scores.values())) for team, scores in by_team.items()}
    competition = jsnum.total(list(totals.values()))
    return ModelSums(
        competition,
        [
            ModelTotal(team, scores, totals[team], normalized_share(totals[team], competition))
            for team, scores in by_team.items()
        ],
    )
