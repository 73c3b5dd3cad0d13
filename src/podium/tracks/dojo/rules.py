"""Every number a Sequence Dojo season fixes, in one record (the scoring rules v0.1 and the platform rules).

The defaults are the appendix of docs/rules/dojo-scoring.md and the limits of docs/rules/dojo-platform.md. A season
stores its ``ScoringRules`` so that a finished season can be rescored and replayed with the numbers it
was judged under, even after the defaults change.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from podium.core.errors import ConfigError
from podium.core.execution.sandbox.records import Limits

# The name seasons store for the scoring rules v0.1 (docs/rules/dojo-scoring.md): a stored value, never reworded.
SCORING_VERSION = "SCORING.md v0.1"
DIVERSITY_RULES = ("v0.1", "diversity-v2")
"""How the diversity bonus counts tags: ``v0.1`` as docs/rules/dojo-scoring.md §6.2 says; ``diversity-v2`` one tag
per user, no bonus for ``unspecified`` (``bonus.py``; docs/rules/dojo-platform.md §9)."""
NEW_SEASON_RULES = {"diversity_rule": "diversity-v2", "literal_policy": "payload-budget-v2"}
"""What a season created now gets unless its rules file says otherwise; a season stored without them keeps v0.1."""
LITERAL_POLICIES = ("v0.1", "payload-budget-v1", "payload-budget-v2")
"""How literals are limited: ``v0.1`` counts tokens and string lengths exactly as docs/rules/dojo-scoring.md §3 says;
``payload-budget-v1`` adds a cap on the literal payload in bytes (``docs/design/dojo.md``, "The payload budget");
``payload-budget-v2`` counts identifier characters beyond 8 per distinct name into that payload too, and a claimed
method tag on code that runs code it builds (``exec``, ``eval``, ``compile``, names looked up from strings) counts
as ``unspecified``: the review cannot read it."""


@dataclass(frozen=True, slots=True)
class ScoringRules:
    """Gates, policy thresholds, brevity and diversity parameters; defaults from docs/rules/dojo-scoring.md (v0.1)."""

    n_check: int = 200
    n_stage: int = 100  # Stage Pass compares the first n_stage terms (docs/rules/dojo-scoring.md §2.1)
    stage_base: int = 200
    reward_base: int = 1000
    brevity_max: int = 200  # B_max
    brevity_scale_chars: float = 800.0  # 1/beta
    max_numeric_literals: int = 120
    max_string_literal_chars: int = 2000
    max_list_tuple_elements: int = 400
    literal_policy: str = "v0.1"  # one of LITERAL_POLICIES; a season that stored none was judged under v0.1
    max_literal_payload_bytes: int = 256  # payload budgets only: digits of numbers plus UTF-8 bytes of strings
    max_source_bytes: int = 64 * 1024
    diversity_enabled: bool = True
    diversity_first_tag_bonus: int = 30
    diversity_shared_bonus_each: int = 10
    diversity_shared_bonus_repeats: int = 2
    diversity_min_tags_for_shared: int = 2
    diversity_bonus_cap: int = 50
    diversity_rule: str = "v0.1"  # one of DIVERSITY_RULES; a season that stored none was judged under v0.1
    max_method_tag_chars: int = 64
    # how fast one user may submit, over the season's problems: at most this many in any sliding window (a season
    # stored before these existed gets these defaults; 0 submissions means no limit)
    max_submissions_per_window: int = 20
    submission_window_s: int = 600
    # the sandbox limits a solver runs under (docs/rules/dojo-platform.md §6), stored with the season like every number
    # above, so a replay runs under the season's numbers even after the core's sandbox defaults change
    solver_cpu_time_s: float = 2.0
    solver_wall_time_s: float = 5.0
    solver_memory_mib: int = 256
    solver_processes: int = 16
    solver_file_size_mib: int = 1
    solver_tmp_mib: int = 8
    solver_stdout_bytes: int = 1 << 20
    solver_stderr_bytes: int = 64 << 10
    solver_box_mib: int = 64
    max_term_digits: int = 10_000
    # host paths a program's box may read beyond the Python interpreter (binary, standard library, its shared
    # libraries): the season's allow-list, empty by default (docs/rules/dojo-platform.md §6)
    box_host_paths: tuple[str, ...] = ()
    version: str = SCORING_VERSION

    def __post_init__(self) -> None:
        object.__setattr__(self, "box_host_paths", tuple(self.box_host_paths))  # a list, as JSON gives it
        if any(not path.startswith("/") for path in self.box_host_paths):
            raise ConfigError(f"box_host_paths must be absolute paths, not {list(self.box_host_paths)}")
        if not 0 < self.n_stage <= self.n_check:
            raise ConfigError(f"n_stage must be in 1..n_check ({self.n_check}), not {self.n_stage}")
        if self.brevity_scale_chars <= 0:
            raise ConfigError(f"brevity_scale_chars must be positive, not {self.brevity_scale_chars}")
        if self.literal_policy not in LITERAL_POLICIES:
            raise ConfigError(
                f"unknown literal_policy {self.literal_policy!r}", fix=f"choose one of: {', '.join(LITERAL_POLICIES)}"
            )
        if self.diversity_rule not in DIVERSITY_RULES:
            raise ConfigError(
                f"unknown diversity_rule {self.diversity_rule!r}", fix=f"choose one of: {', '.join(DIVERSITY_RULES)}"
            )
        if self.max_submissions_per_window < 0 or self.submission_window_s <= 0:
            raise ConfigError("max_submissions_per_window must be >= 0 and submission_window_s > 0")
        if self.max_literal_payload_bytes < 0:
            raise ConfigError(f"max_literal_payload_bytes must not be negative, not {self.max_literal_payload_bytes}")

    @property
    def payload_budget(self) -> bool:
        """Whether the literal payload is capped (``payload-budget-v1`` and ``-v2``)."""
        return self.literal_policy != "v0.1"

    @property
    def names_count_as_payload(self) -> bool:
        """``payload-budget-v2``: long identifiers count as payload, and code built at run time is unreviewable."""
        return self.literal_policy == "payload-budget-v2"

    def solver_limits(self) -> Limits:
        """The sandbox limits of a solver's run, every one given (none left to the core's defaults)."""
        return Limits(
            cpu_time_s=self.solver_cpu_time_s,
            wall_time_s=self.solver_wall_time_s,
            memory_mib=self.solver_memory_mib,
            processes=self.solver_processes,
            file_size_mib=self.solver_file_size_mib,
            tmp_mib=self.solver_tmp_mib,
            stdout_bytes=self.solver_stdout_bytes,
            stderr_bytes=self.solver_stderr_bytes,
            box_mib=self.solver_box_mib,
        )

    def to_json(self) -> dict[str, Any]:
        """The rules as a JSON object (stored with a season)."""
        return dataclasses.asdict(self)

    @classmethod
    def for_new_season(cls, data: dict[str, Any] | None = None) -> ScoringRules:
        """The rules of a season created now: ``NEW_SEASON_RULES`` under what ``data`` (a rules file) sets."""
        return cls.from_json({**NEW_SEASON_RULES, **(data or {})})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScoringRules:
        """Rules from a JSON object; unknown keys are an error so a typo never silently keeps a default."""
        known = {field.name for field in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"unknown scoring rule(s): {', '.join(unknown)}", fix=f"use only: {', '.join(sorted(known))}"
            )
        return cls(**data)
