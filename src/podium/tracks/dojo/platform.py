"""The Sequence Dojo platform on one database: seasons and the problem lifecycle here, with its parts.

Users are ``users.py``, submissions ``submitting.py``.

``Dojo`` is the one place that changes the database; the CLI, the HTTP API and the judge workers call it. Time
comes from an injected ``Clock`` and salts from an injected byte source, so lifecycles are testable and a season
replays exactly. Every commitment, submission receipt, judgment and state change is appended to the hash-chained
audit log in the same transaction as the change it records.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, update

from podium.core.accounts import check_name
from podium.core.clock import Clock, parse_utc, utc_text
from podium.core.errors import ConfigError, NotFoundError, PermissionDenied
from podium.core.execution.sandbox import Sandbox
from podium.core.storage.sql import inserted_id
from podium.tracks.dojo.commit import SALT_BYTES, commit, terms_bytes
from podium.tracks.dojo.execute import solver_view
from podium.tracks.dojo.lifecycle import REVEALED_STATES, LifecycleError, ProblemState, check_transition
from podium.tracks.dojo.problem import ProblemFiles, admit_setter
from podium.tracks.dojo.published import BOARD_KINDS, Amendment, BoardVersion, amended, records_csv, versions_of
from podium.tracks.dojo.records import Problem, Role, Season, User
from podium.tracks.dojo.results import problem_leaderboard, problem_payloads
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.schema import problems, seasons
from podium.tracks.dojo.standings import problem_csv, problem_records
from podium.tracks.dojo.store import append_audit, audit_entries, audit_head, transaction
from podium.tracks.dojo.submitting import SubmissionDesk
from podium.tracks.dojo.users import Users
from podium.tracks.dojo.validate import SetterValidation, validate_setter
from podium.tracks.dojo.verification import VERIFIED_KIND, Verification, verifications_of, verify_rows


def unknown_problem(slug: str) -> NotFoundError:
    """The error for a problem that does not exist, also given for one the caller may not see (not published)."""
    return NotFoundError(f"no problem {slug!r}", fix="the problems are listed on /dojo/ (GET /dojo/api/problems)")


class Dojo(SubmissionDesk):
    """Operations on one dojo database (the submissions' part is ``submitting.SubmissionDesk``)."""

    def __init__(
        self,
        engine: Engine,
        clock: Clock,
        sandbox: Callable[[], Sandbox],
        salt_source: Callable[[int], bytes] = secrets.token_bytes,
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.users = Users(engine, clock)
        self._sandbox = sandbox
        self._salt_source = salt_source

    def now(self) -> str:
        """The clock's time as stored."""
        return utc_text(self.clock.now())

    # -- users and seasons ------------------------------------------------------------------------------------

    def add_user(self, name: str, role: Role) -> tuple[User, str]:
        """Create a user; returns the user and their API token (shown once, stored only as a hash)."""
        return self.users.add(name, role)

    def authenticate(self, token: str) -> User:
        """The user a token belongs to."""
        return self.users.authenticate(token)

    def user(self, name: str) -> User:
        """A user by name."""
        return self.users.by_name(name)

    def user_names(self) -> dict[int, str]:
        """Every user's name by id."""
        return self.users.names()

    def create_season(self, name: str, rules: ScoringRules | None = None) -> Season:
        """A new season under ``rules`` (default: the scoring rules v0.1 with ``NEW_SEASON_RULES``)."""
        rules = rules or ScoringRules.for_new_season()
        with transaction(self.engine) as db:
            if db.execute(select(seasons.c.id).where(seasons.c.name == check_name("season", name))).first():
                raise ConfigError(f"season {name!r} exists already")
            now = self.now()
            rules_json = json.dumps(rules.to_json(), sort_keys=True)
            sid = inserted_id(db, insert(seasons).values(name=name, rules_json=rules_json, created_at=now))
            append_audit(db, now, "season_created", {"season": name, "rules": rules.to_json()})
        return Season(sid, name, rules)

    def season(self, name: str) -> Season:
        """A season by name."""
        with self.engine.connect() as db:
            row = db.execute(select(seasons).where(seasons.c.name == name)).first()
        if row is None:
            raise NotFoundError(f"no season {name!r}", fix="create it with `podium dojo season create`")
        return Season.from_row(row)

    def seasons_by_id(self) -> dict[int, Season]:
        """Every season, by id (one query where a loop over problems would ask ``season_of`` each time)."""
        with self.engine.connect() as db:
            return {row.id: Season.from_row(row) for row in db.execute(select(seasons))}

    def max_source_bytes(self) -> int:
        """The largest source any season accepts (the default rules' limit when there is no season yet)."""
        limits = [season.rules.max_source_bytes for season in self.seasons_by_id().values()]
        return max([ScoringRules().max_source_bytes, *limits])

    def season_of(self, problem: Problem) -> Season:
        """The season a problem belongs to."""
        with self.engine.connect() as db:
            return Season.from_row(db.execute(select(seasons).where(seasons.c.id == problem.season_id)).one())

    # -- problems ---------------------------------------------------------------------------------------------

    def add_problem(
        self,
        season: str,
        slug: str,
        setter: str,
        files: ProblemFiles,
        *,
        open_at: datetime | None = None,
        freeze_at: datetime | None = None,
        reveal_at: datetime | None = None,
    ) -> Problem:
        """Add a problem in DRAFT with its setter program and (optional) scheduled times."""
        owner = self.user(setter)
        if owner.role not in (Role.SETTER, Role.OPERATOR):
            raise PermissionDenied(f"user {setter!r} is a {owner.role.value}; only setters and operators add problems")
        times = [t for t in (open_at, freeze_at, reveal_at) if t is not None]
        if times != sorted(times):
            raise ConfigError("the times must be in order: open_at <= freeze_at <= reveal_at")
        target = self.season(season)
        admitted = admit_setter(files.setter_source, target.rules, where=files.folder / "setter.py")
        season_id = target.id
        with transaction(self.engine) as db:
            exists = select(problems.c.id).where(problems.c.season_id == season_id, problems.c.slug == slug)
            if db.execute(exists).first():
                raise ConfigError(f"season {season!r} has a problem {slug!r} already")
            now = self.now()
            db.execute(
                insert(problems).values(
                    season_id=season_id,
                    slug=check_name("problem", slug),
                    title=files.title,
                    statement=files.statement,
                    offset=files.offset,
                    n_visible=files.n_visible,
                    state=ProblemState.DRAFT.value,
                    setter_id=owner.id,
                    setter_source=admitted.canonical,
                    open_at=utc_text(open_at) if open_at else None,
                    freeze_at=utc_text(freeze_at) if freeze_at else None,
                    reveal_at=utc_text(reveal_at) if reveal_at else None,
                    created_at=now,
                )
            )
            append_audit(db, now, "problem_added", {"season": season, "problem": slug, "setter": setter})
        return self.problem(slug, season)

    def problem(self, slug: str, season: str | None = None) -> Problem:
        """A problem by slug (within ``season`` when several seasons use the slug)."""
        query = select(problems).where(problems.c.slug == slug)
        if season is not None:
            query = query.where(problems.c.season_id == self.season(season).id)
        with self.engine.connect() as db:
            rows = db.execute(query).all()
        if not rows:
            raise unknown_problem(slug)
        if len(rows) > 1:
            raise ConfigError(f"several seasons have a problem {slug!r}", fix="name the season with --season")
        return Problem.from_row(rows[0])

    def problem_by_id(self, problem_id: int) -> Problem:
        """A problem by its id (as submissions refer to it)."""
        with self.engine.connect() as db:
            return Problem.from_row(db.execute(select(problems).where(problems.c.id == problem_id)).one())

    def problems_by_id(self, problem_ids: Iterable[int]) -> dict[int, Problem]:
        """The problems with these ids, by id, in one query (for lists of submissions)."""
        wanted = set(problem_ids)
        if not wanted:
            return {}
        with self.engine.connect() as db:
            rows = db.execute(select(problems).where(problems.c.id.in_(wanted)))
            return {row.id: Problem.from_row(row) for row in rows}

    def problems(self, season: str | None = None) -> list[Problem]:
        """Every problem (of one season), in id order."""
        return self._problems(None if season is None else self.season(season).id)

    def _problems(self, season_id: int | None) -> list[Problem]:
        query = select(problems).order_by(problems.c.id)
        if season_id is not None:
            query = query.where(problems.c.season_id == season_id)
        with self.engine.connect() as db:
            return [Problem.from_row(row) for row in db.execute(query)]

    def _move(self, db: Connection, problem: Problem, target: ProblemState, **values: Any) -> None:
        check_transition(problem.state, target, problem.slug)
        moved = db.execute(
            update(problems)
            .where(problems.c.id == problem.id, problems.c.state == problem.state.value)
            .values(state=target.value, **values)
        ).rowcount
        if moved != 1:  # another process moved it first: the caller's view is stale
            raise LifecycleError(f"problem {problem.slug!r} changed state meanwhile", fix="run the command again")

    def validate(self, slug: str, season: str | None = None) -> SetterValidation:
        """DRAFT → VALIDATING, then run every setter check; failures make it REJECTED (fix, then back to DRAFT)."""
        problem = self.problem(slug, season)
        rules = self.season_of(problem).rules
        with transaction(self.engine) as db:
            self._move(db, problem, ProblemState.VALIDATING)
            append_audit(db, self.now(), "validating", {"problem": slug})
        others = [p.visible_terms for p in self._problems(problem.season_id) if p.id != problem.id]
        result = validate_setter(
            problem.setter_source,
            self._sandbox(),
            rules,
            n_visible=problem.n_visible,
            other_visible=[o for o in others if o],
            where=f"problem {slug}",
        )
        validating = self.problem_by_id(problem.id)
        with transaction(self.engine) as db:
            report = {"problems": result.problems, "warnings": result.warnings}
            if result.accepted:
                db.execute(
                    update(problems)
                    .where(problems.c.id == problem.id)
                    .values(terms=terms_bytes(result.terms).decode("ascii"), validation_json=json.dumps(report))
                )
            else:
                self._move(db, validating, ProblemState.REJECTED, validation_json=json.dumps(report))
            append_audit(db, self.now(), "validated", {"problem": slug, "accepted": result.accepted, **report})
        return result

    def redraft(self, slug: str, files: ProblemFiles, season: str | None = None) -> Problem:
        """REJECTED → DRAFT with a corrected setter."""
        problem = self.problem(slug, season)
        admitted = admit_setter(files.setter_source, self.season_of(problem).rules, where=files.folder / "setter.py")
        with transaction(self.engine) as db:
            self._move(db, problem, ProblemState.DRAFT, setter_source=admitted.canonical, validation_json=None)
            append_audit(db, self.now(), "redrafted", {"problem": slug})
        return self.problem_by_id(problem.id)

    def open(self, slug: str, season: str | None = None, *, at: datetime | None = None) -> Problem:
        """VALIDATING (validated) → OPEN: draw the salt and publish both commitments and the visible terms."""
        problem = self.problem(slug, season)
        check_transition(problem.state, ProblemState.OPEN, slug)
        if problem.terms is None:
            raise LifecycleError(f"problem {slug!r} has not passed validation", fix="run `podium dojo validate` first")
        salt = self._salt_source(SALT_BYTES)
        commitments = commit(salt, problem.setter_source, problem.terms)
        when = utc_text(at) if at else self.now()
        with transaction(self.engine) as db:
            self._move(
                db,
                problem,
                ProblemState.OPEN,
                salt_hex=salt.hex(),
                setter_commit=commitments.setter_commit,
                seq_commit=commitments.seq_commit,
                opened_at=when,
            )
            append_audit(
                db,
                when,
                "opened",
                {
                    "problem": slug,
                    "setter_commit": commitments.setter_commit,
                    "seq_commit": commitments.seq_commit,
                    "offset": problem.offset,
                    "visible_terms": list(problem.visible_terms),
                    "freeze_at": problem.freeze_at,
                    "reveal_at": problem.reveal_at,
                },
            )
        return self.problem_by_id(problem.id)

    def freeze(self, slug: str, season: str | None = None, *, at: datetime | None = None) -> str:
        """OPEN → FROZEN: the diversity window closes at ``at`` (default now); returns the audit head hash."""
        problem = self.problem(slug, season)
        when = utc_text(at) if at else self.now()
        with transaction(self.engine) as db:
            self._move(db, problem, ProblemState.FROZEN, freeze_started_at=when)
            return append_audit(
                db, when, "frozen", {"problem": slug, "freeze_started_at": when, "head_before": audit_head(db)}
            )

    def reveal(self, slug: str, season: str | None = None, *, at: datetime | None = None) -> str:
        """FROZEN → REVEALED: publish salt, setter and terms, and the final leaderboard; returns the head hash.

        A problem not verified since its freeze is verified first (``verify``); the rows its newest verification
        found unverified are withdrawn from the board at once, by an amendment beside the board as revealed.
        """
        problem = self.problem(slug, season)
        check_transition(problem.state, ProblemState.REVEALED, slug)
        self._check_judged(problem)
        verifications = self.verifications(problem)
        if not verifications:
            verifications = [self.verify(slug, season)[0]]
        when = utc_text(at) if at else self.now()
        standings, payloads = problem_leaderboard(self, problem), problem_payloads(self, problem)
        names, excluded, season_name = self.user_names(), self.users.disabled_ids(), self.season_of(problem).name
        with transaction(self.engine) as db:
            self._move(db, problem, ProblemState.REVEALED, revealed_at=when)
            head = append_audit(
                db,
                when,
                "revealed",
                {
                    "problem": slug,
                    "season": season_name,
                    "salt_hex": problem.salt_hex,
                    "setter_sha256": hashlib.sha256(problem.setter_source).hexdigest(),
                    "terms_sha256": hashlib.sha256(terms_bytes(problem.terms or ())).hexdigest(),
                    # the board as published: from now on it is served from here, never recomputed (published.py)
                    "leaderboard_csv": problem_csv(standings),
                    "leaderboard": problem_records(standings),
                    "excluded_users": sorted(names[user_id] for user_id in excluded),
                    "literal_payloads": payloads,
                },
            )
            newest = verifications[-1]
            if gone := newest.withdrawn():
                self._amend(db, slug, season_name, lambda r: r["submission"] in gone, newest.withdrawal_reason())
                return audit_head(db)
            return head

    def _check_judged(self, problem: Problem) -> None:
        """LifecycleError unless every submission to ``problem`` is judged."""
        pending = self.pending(problem.id)
        if pending:
            shown = ", ".join(str(submission_id) for submission_id in pending[:10])
            raise LifecycleError(
                f"problem {problem.slug!r} has {len(pending)} submission(s) not judged yet: {shown}"
                + (", ..." if len(pending) > 10 else ""),
                fix="run `podium dojo worker`; one that cannot be judged is ended by "
                "`podium dojo skip ID --reason TEXT` (an internal error, audited)",
            )

    def board_versions(self, problem: Problem) -> list[BoardVersion]:
        """The published versions of a revealed problem's board, oldest first (empty before reveal)."""
        return self.published_boards([problem]).get(problem.id, [])

    def published_boards(self, problems: Iterable[Problem]) -> dict[int, list[BoardVersion]]:
        """The published versions of the revealed ones of ``problems``, by problem id: one read of the audit log."""
        revealed = [p for p in problems if p.state in REVEALED_STATES]
        if not revealed:
            return {}
        seasons = self.seasons_by_id()
        with self.engine.connect() as db:
            entries = audit_entries(db, BOARD_KINDS)
        return {p.id: versions_of(entries, p.slug, seasons[p.season_id].name) for p in revealed}

    def disqualify(self, slug: str, amendment: Amendment, season: str | None = None) -> BoardVersion:
        """Publish a new version of a revealed problem's board without the rows ``amendment`` names (audited).

        No other score is recomputed (published.py); the versions before stay published beside it.
        """
        problem = self.problem(slug, season)
        if problem.state not in REVEALED_STATES:
            raise LifecycleError(
                f"problem {slug!r} is {problem.state.value}: its board is not published yet",
                fix="disable the user (`podium dojo user disable NAME --reason ...`): a board revealed later leaves "
                "their submissions out",
            )
        if not amendment.reason.strip():
            raise ConfigError("a disqualification needs a reason", fix="give --reason TEXT: it is published")
        season_name = self.season_of(problem).name
        with transaction(self.engine) as db:
            version = self._amend(db, slug, season_name, amendment.matches, amendment.reason)
            if version is None:
                who = f"user {amendment.user}" if amendment.user is not None else f"submission {amendment.submission}"
                newest = versions_of(audit_entries(db, BOARD_KINDS), slug, season_name)[-1]
                raise NotFoundError(
                    f"{who} has no row on version {newest.version} of {slug}'s published board",
                    fix=f"see the board: podium dojo leaderboard --problem {slug}",
                )
        return version

    def _amend(
        self, db: Connection, slug: str, season: str, takes_out: Callable[[dict[str, Any]], bool], reason: str
    ) -> BoardVersion | None:
        """Append an ``amended`` version of the board without the rows ``takes_out`` names; None if it has none."""
        versions = versions_of(audit_entries(db, BOARD_KINDS), slug, season)
        if not versions:
            raise NotFoundError(f"problem {slug!r} has no published board in the audit log")
        latest = versions[-1]
        kept, removed = amended(latest.records, takes_out)
        if not removed:
            return None
        when, board = self.now(), records_csv(kept)
        payload = {"problem": slug, "season": season, "version": latest.version + 1, "reason": reason}
        append_audit(
            db, when, "amended", {**payload, "removed": removed, "leaderboard_csv": board, "leaderboard": kept}
        )
        return BoardVersion(latest.version + 1, when, tuple(kept), board, reason, tuple(removed))

    def verify(self, slug: str, season: str | None = None) -> tuple[Verification, BoardVersion | None]:
        """Judge each Reward Correct row of a frozen or revealed problem's board again in the clean room (audited).

        On a revealed board the unverified rows are withdrawn at once by an amendment (returned); on a frozen one,
        at reveal (verification.py).
        """
        problem = self.problem(slug, season)
        if problem.state is not ProblemState.FROZEN and problem.state not in REVEALED_STATES:
            raise LifecycleError(
                f"problem {slug!r} is {problem.state.value}: verification checks a board that no longer changes",
                fix=f"freeze it first: podium dojo freeze {slug}",
            )
        self._check_judged(problem)
        the_season = self.season_of(problem)
        board = (
            self.board_versions(problem)[-1].records
            if problem.state in REVEALED_STATES
            else problem_records(problem_leaderboard(self, problem))
        )
        rows = [(self.submission(int(r["submission"])), str(r["user"])) for r in board if r["reward_correct"]]
        view = solver_view(the_season.rules.box_host_paths)
        checks = verify_rows(rows, problem.terms or (), the_season.rules, self._sandbox(), view)
        verification = Verification(self.now(), slug, the_season.name, problem.freeze_started_at, tuple(checks))
        with transaction(self.engine) as db:
            append_audit(db, verification.at, VERIFIED_KIND, verification.payload())
            if problem.state not in REVEALED_STATES or not verification.withdrawn():
                return verification, None
            gone = verification.withdrawn()
            version = self._amend(
                db, slug, the_season.name, lambda r: r["submission"] in gone, verification.withdrawal_reason()
            )
        return verification, version

    def verifications(self, problem: Problem) -> list[Verification]:
        """The problem's verifications since its freeze, oldest first."""
        with self.engine.connect() as db:
            entries = audit_entries(db, (VERIFIED_KIND,))
        found = verifications_of(entries, problem.slug, self.season_of(problem).name)
        return [v for v in found if v.freeze_started_at == problem.freeze_started_at]

    def set_state(self, slug: str, target: ProblemState, season: str | None = None) -> Problem:
        """The operator's other moves: ARCHIVED, WITHDRAWN, VOID."""
        if target not in (ProblemState.ARCHIVED, ProblemState.WITHDRAWN, ProblemState.VOID):
            raise ConfigError(f"use the dedicated command to make a problem {target.value}")
        problem = self.problem(slug, season)
        with transaction(self.engine) as db:
            self._move(db, problem, target)
            append_audit(db, self.now(), target.value.lower(), {"problem": slug})
        return self.problem_by_id(problem.id)

    def tick(self) -> list[str]:
        """Make every scheduled move that is due (open, freeze, reveal); returns what happened, one line each."""
        now = self.clock.now()
        done = []
        season_names = {sid: season.name for sid, season in self.seasons_by_id().items()}
        for problem in self.problems():
            season = season_names[problem.season_id]
            due_to_open = problem.terms and problem.open_at and parse_utc(problem.open_at) <= now
            if problem.state is ProblemState.VALIDATING and due_to_open and problem.open_at:
                problem = self.open(problem.slug, season, at=parse_utc(problem.open_at))
                done.append(f"{problem.slug}: opened")
            if problem.state is ProblemState.OPEN and problem.freeze_at and parse_utc(problem.freeze_at) <= now:
                # frozen at the scheduled time, however late the tick: the window must not depend on the tick
                self.freeze(problem.slug, season, at=parse_utc(problem.freeze_at))
                done.append(f"{problem.slug}: frozen")
                problem = self.problem_by_id(problem.id)
            if problem.state is ProblemState.FROZEN and problem.reveal_at and parse_utc(problem.reveal_at) <= now:
                if self.pending(problem.id):
                    done.append(f"{problem.slug}: reveal due, waiting for the judge")
                else:
                    self.reveal(problem.slug, season)
                    done.append(f"{problem.slug}: revealed")
        return done
