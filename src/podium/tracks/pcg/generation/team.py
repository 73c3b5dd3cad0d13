"""Stage ``generate``: ask a model for one team's responses, by its program (2024, 2025) or its prompt (2023).

A program (a file, a folder or a zip: ``submission.py``) runs unchanged in the sandbox, all of the team's trials in
one process in the official order, as the official package runs them (a program may keep state between trials).
It runs as ``python ENTRY`` from its working folder would, on a private writable copy of the submission made for
this team's run, with its declared requirements installed beside it (``requirements.py``) and podium's stand-ins
for the official packages (``stand_ins.py``). Its chat calls cross the sandbox's channel to a ``TeamSession``,
which alone calls the model and enforces the edition's rules. When the process dies or is killed mid-trial (a hard
limit, a crash), that trial fails with the reason and a fresh process takes the remaining trials on the copy as
the last one left it; a program that cannot even start fails all of them, once, and so does one whose
requirements cannot be installed. A prompt is sent by the judge itself (no program runs): every ``<OBJECT>``
replaced by the letter in double quotes, one user message.

Output is the official layout, ``ROOT/<TEAM>/raw/<C>/<TEAM>_<C>_<n>.txt`` (the response's UTF-8 bytes, written
atomically), and beside the team folders ``ROOT/logs/<TEAM>_raw_<time>.log`` in the official wording plus
``...transcript.jsonl`` (every model call), ``...plan.json`` (the letters and trials asked), ``...environment.json``
(the submission's digest, entry, working folder and installed requirements) and ``....files/`` (what the program
wrote in its copy: files it added or changed). A file that exists is never asked for again, so a rerun after a
kill completes only what is missing. Nothing under ROOT is visible to the program.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from podium.core.errors import ConfigError
from podium.core.execution.sandbox import Limits, RunRequest, RunResult, RunStatus, Sandbox
from podium.core.execution.sandbox.channel import Channel
from podium.core.execution.sandbox.packages import InstallOptions
from podium.core.llm import ChatMessage, ChatModel, ChatRequest, ModelCallError
from podium.core.llm.transport import request_label
from podium.core.storage.files import write_atomic
from podium.tracks.pcg.editions import CHARACTERS, GenerationRules
from podium.tracks.pcg.generation.edition_choice import describe_facts
from podium.tracks.pcg.generation.records import GenerateVerdict, TeamRun, TrialKey, TrialOutcome
from podium.tracks.pcg.generation.requirements import Environment, RequirementError, prepare_environment
from podium.tracks.pcg.generation.session import (
    ServerHealth,
    SessionSettings,
    TeamSession,
    Transcript,
    response_path,
    verdict_of,
)
from podium.tracks.pcg.generation.stand_ins import START, stand_ins_folder
from podium.tracks.pcg.generation.submission import Program
from podium.tracks.pcg.official.rawlog import RawLog, raw_log_name
from podium.tracks.pcg.run_outcomes import write_outcomes
from podium.tracks.pcg.run_plan import write_plan

PROGRAM_ENV = {"PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"}
PROCESS_LIMITS = Limits(
    cpu_time_s=3600.0,  # per process; each trial's own wall limit ends a busy loop long before
    wall_time_s=30 * 86400.0,  # a run waits on the model for as long as the model takes; the trials have their limits
    memory_mib=2048,
    processes=32,
    file_size_mib=16,  # a program may write files of its own (results, caches), within its copy's quota
    tmp_mib=64,
    stdout_bytes=16 << 20,
    stderr_bytes=1 << 20,
)
FORBIDDEN_TEAM_NAMES = frozenset({"logs", "result", ".", ".."})


@dataclass(frozen=True, slots=True)
class Submission:
    """What a team submitted: a program (2024, 2025) or a 2023 prompt."""

    team: str
    program: Program | None = None
    prompt: str | None = None
    unusable: str | None = None  # why it could not be read (a run of several teams fails only this one)

    def __post_init__(self) -> None:
        check_team_name(self.team)
        if sum(part is not None for part in (self.program, self.prompt, self.unusable)) != 1:
            raise ConfigError("a submission is a program or a prompt", fix="give --program PATH or --prompt FILE")


def check_team_name(team: str) -> None:
    """A team name is one plain folder name the official layout can use."""
    if not team or "/" in team or "\\" in team or team in FORBIDDEN_TEAM_NAMES or team.startswith("."):
        raise ConfigError(f"team name {team!r} cannot be a folder of the run", fix="use a plain name such as team_a")


def plan_trials(characters: Sequence[str], trials: int) -> list[TrialKey]:
    """The trials in the official order: each letter as given, trials 1..N."""
    unknown = [c for c in characters if c not in CHARACTERS]
    if unknown:
        raise ConfigError(f"unknown characters {unknown}", fix="give upper-case letters A..Z")
    if trials < 1:
        raise ConfigError(f"--trials must be at least 1, not {trials}")
    return [TrialKey(c, n) for c in characters for n in range(1, trials + 1)]


@dataclass(frozen=True, slots=True)
class GenerateSettings:
    """One team's run: where, which rules and model, which trials, how long."""

    root: Path
    rules: GenerationRules
    model: ChatModel
    model_name: str
    base_url: str | None
    characters: tuple[str, ...] = CHARACTERS
    trials: int = 10
    master_seed: int | None = None
    limits: Limits = PROCESS_LIMITS
    grace_s: float = 60.0
    between_trials_s: float = 60.0
    install: InstallOptions = InstallOptions()  # where requirements' wheels come from
    server: ServerHealth | None = None  # shared by the teams that ask the same server (default: this team's own)
    strict_limits: bool = False  # a limit the program caught fails the trial (session.py)
    facts: Mapping[str, str] = dataclasses.field(default_factory=dict)  # edition, model, server: log and plan


def generate_team(
    submission: Submission,
    settings: GenerateSettings,
    sandbox: Sandbox | None,
    *,
    now: Callable[[], datetime] = datetime.now,
    clock: Callable[[], float] = time.monotonic,
    on_outcome: Callable[[TrialOutcome], None] | None = None,
) -> TeamRun:
    """Generate every missing response of one team; the outcome of every planned trial."""
    keys = plan_trials(settings.characters, settings.trials)
    root, team = settings.root, submission.team
    (root / team / "raw").mkdir(parents=True, exist_ok=True)
    started = now()
    log = RawLog(root / "logs" / raw_log_name(team, started), now)
    transcript = Transcript(log.path.with_name(log.path.name.removesuffix(".log") + ".transcript.jsonl"))
    if settings.facts:
        log.line(f"podium: {describe_facts(dict(settings.facts))}")
    write_plan(log.path, team, settings.characters, settings.trials, settings.facts)  # evaluate reads what was asked
    plan = [(key, response_path(root, team, key).is_file()) for key in keys]
    for key, _ in plan:
        response_path(root, team, key).parent.mkdir(parents=True, exist_ok=True)
    session_settings = SessionSettings(
        root,
        team,
        settings.rules,
        settings.model,
        settings.model_name,
        settings.base_url,
        settings.master_seed,
        settings.grace_s,
        settings.between_trials_s,
        settings.strict_limits,
    )
    server = settings.server or ServerHealth(settings.model.probe, settings.base_url or settings.model.name)
    session = TeamSession(session_settings, plan, log, transcript, clock, on_outcome, server=server)
    processes = 0
    if submission.unusable is not None:
        session.reject_rest(submission.unusable)
    elif submission.prompt is not None:
        _ask_prompt(session, submission.prompt)
    else:
        if sandbox is None:
            raise ConfigError("a program runs only in a sandbox", fix="open one with open_sandbox()")
        assert submission.program is not None
        processes = _run_program(session, submission.program, settings, sandbox, log.path)
    order = {key: index for index, key in enumerate(keys)}
    outcomes = sorted(session.outcomes, key=lambda o: order[o.key])
    no_response = (GenerateVerdict.OK, GenerateVerdict.SKIPPED)
    write_outcomes(log.path, team, [(o.key.character, o.key.number, o.verdict.value, o.reason)
                                    for o in outcomes if o.verdict not in no_response])  # fmt: skip
    server_down = session.aborted if session.abort_verdict is GenerateVerdict.MODEL_ERROR else None
    return TeamRun(team, tuple(outcomes), log.path, transcript.path, processes, server_down, session.abort_fix)


def _run_program(
    session: TeamSession, program: Program, settings: GenerateSettings, sandbox: Sandbox, log_path: Path
) -> int:
    """Run the program until every trial has an outcome; how many processes that took."""
    record = _RunRecord(session.settings.team, log_path, program)
    try:
        environment = prepare_environment(program.requirements, settings.install)
    except RequirementError as error:
        reason = f"{error.message} (fix: {error.fix})"
        record.write(None, {}, error=reason)
        session.reject_rest(reason)
        return 0
    session.log.line(environment.summary())
    record.write(environment, {})
    stand_ins = stand_ins_folder()
    folders = () if environment.folder is None else (environment.folder,)
    argv = ("python3", "-s", "-S", "-B", str(stand_ins / START), program.entry_from_workdir, program.loop or "")
    # the submission itself counts against its copy's quota: the program may write as much again as the limit
    limits = dataclasses.replace(settings.limits, box_mib=settings.limits.box_mib + (program.size >> 20) + 1)
    files, processes = program.files, 0
    while not session.finished:
        processes += 1
        channel = Channel(session.handle)
        session.attach(channel)
        request = RunRequest(
            (*argv, *map(str, folders)),
            files,
            limits,
            PROGRAM_ENV,
            channel=channel,
            writable=True,
            workdir=program.workdir,
            readable=(stand_ins, *folders),
        )
        result = sandbox.run(request)
        files = result.box if result.box is not None else files  # the next process goes on from this copy
        _after_process(session, result, channel)
        if session.aborted is not None or (not session.finished and session.handed_out == 0):
            verdict = session.abort_verdict if session.aborted is not None else GenerateVerdict.PROGRAM_REJECTED
            if result.status is RunStatus.INTERNAL_ERROR and session.aborted is None:
                verdict = GenerateVerdict.INTERNAL_ERROR  # the sandbox could not start: not the program's fault
            session.reject_rest(session.aborted or _why_it_ended(result, channel, session), verdict)
    written = record.write(environment, files)
    if written:
        session.log.line(f"podium: the program's copy kept {written} added or changed files in {record.files}")
    return processes


@dataclass(frozen=True, slots=True)
class _RunRecord:
    """``<log>.environment.json`` and ``<log>.files/`` beside a team's log: what it ran with, what it wrote."""

    team: str
    log_path: Path
    program: Program

    @property
    def stem(self) -> Path:
        return self.log_path.with_name(self.log_path.name.removesuffix(".log"))

    @property
    def files(self) -> Path:
        return self.stem.with_name(self.stem.name + ".files")

    def write(self, environment: Environment | None, files: Mapping[str, bytes], error: str | None = None) -> int:
        """Write both (the files only when there are any); how many files the program added or changed."""
        program = self.program
        changed = {path: data for path, data in files.items() if program.files.get(path) != data}
        removed = sorted(set(program.files) - set(files)) if files else []
        for path, data in changed.items():
            write_atomic(self.files / path, data)
        record = {
            "team": self.team,
            "submission": program.origin,
            "digest": program.digest,
            "entry": program.entry,
            "workdir": program.workdir,
            "loop": program.loop,
            "requirements_file": program.requirements_file,
            "left_out": list(program.left_out),
            "environment": None if environment is None else environment.as_json(),
            "error": error,
            "written": sorted(changed),
            "removed": removed,
        }
        write_atomic(self.stem.with_name(self.stem.name + ".environment.json"), json.dumps(record, indent=2).encode())
        return len(changed)


def _after_process(session: TeamSession, result: RunResult, channel: Channel) -> None:
    """Fail the trial the process was running when it ended, with the reason the sandbox found."""
    if channel.failures:
        session.log.line(f"podium internal error: {channel.failures[0]}")
    why = _why_it_ended(result, channel, session)
    verdict = {
        RunStatus.INTERNAL_ERROR: GenerateVerdict.INTERNAL_ERROR,
        RunStatus.OK: GenerateVerdict.PROGRAM_ERROR,
        RunStatus.RUNTIME_ERROR: GenerateVerdict.PROGRAM_ERROR,
    }.get(result.status, GenerateVerdict.HARD_LIMIT)
    session.process_ended(why, verdict)


def _why_it_ended(result: RunResult, channel: Channel, session: TeamSession) -> str:
    tail = result.stderr_tail.decode("utf-8", "replace").strip().splitlines()[-1:]
    if result.status is RunStatus.TIME_LIMIT and result.detail.startswith("wall time"):
        reason = (
            f"killed: the trial ran over its hard limit of {session.hard_limit_s():g} s outside model calls "
            f"(or the program took over {session.settings.between_trials_s:g} s to start or between trials)"
        )
    elif result.status is RunStatus.OK:
        reason = "the program's process ended during the trial"
    else:
        reason = f"{result.status.value}: {result.detail}"
    return f"{reason}{f' ({tail[0][:300]})' if tail else ''}"


def _ask_prompt(session: TeamSession, prompt: str) -> None:
    """2023: the judge sends each trial's prompt itself; an empty answer is an empty file, an error none."""
    settings, rules = session.settings, session.settings.rules
    last_character = None
    for key, exists in session.planned():
        if key.character != last_character:
            session.log.character(settings.team, key.character)
            last_character = key.character
        session.log.trial(settings.team, key.character, key.number)
        if exists:
            session.log.skipped(settings.team, key.character, key.number)
            session.record(TrialOutcome(key, GenerateVerdict.SKIPPED))
            continue
        if session.server.down is not None:  # another team found the server down
            session.stop(session.server.down, session.server.fix)
            session.reject_rest(session.server.down, session.abort_verdict)
            return
        text = prompt.replace("<OBJECT>", f'"{key.character}"')
        request = ChatRequest((ChatMessage("user", text),), temperature=rules.temperature, seed=rules.seed)
        try:
            with request_label(f"{settings.team}, letter {key.character}, trial {key.number}"):
                reply = settings.model.chat(request)
        except ModelCallError as error:
            session.transcript.record({"team": settings.team, "character": key.character, "trial": key.number,
                                       "request": {"messages": [{"role": "user", "content": text}]},
                                       "error": str(error), "error_kind": error.kind.value})  # fmt: skip
            session.log.failed(key.number, str(error))
            session.record(TrialOutcome(key, verdict_of(error), str(error), 1))
            if error.fatal:
                session.stop(str(error), error.fix)
            session.stop_if_server_down(str(error) if error.transient else None)
            if session.aborted is not None:
                session.reject_rest(session.aborted, session.abort_verdict)
                return
            continue
        session.transcript.record(
            {
                "team": settings.team,
                "character": key.character,
                "trial": key.number,
                "model": settings.model.name,
                "request": {"messages": [{"role": "user", "content": text}]},
                "responses": list(reply.contents),
                "prompt_tokens": reply.usage.prompt_tokens,
                "completion_tokens": reply.usage.completion_tokens,
                "finish_reasons": list(reply.finish_reasons),
                "elapsed_s": reply.elapsed_s,
                "attempts": reply.attempts,
            }
        )
        write_atomic(response_path(settings.root, settings.team, key), reply.contents[0].encode("utf-8"))
        session.log.succeeded(key.number)
        session.record(TrialOutcome(key, GenerateVerdict.OK, "", 1, reply.usage.total_tokens))
        session.server.answered()
