"""The judge's side of one team's trials: it hands them out in order, makes every model call and enforces the rules.

A sandboxed program reaches the model only through this session (its channel handler). The session:

* hands out the trials in the official order (letters as given, trials 1..N), skipping those whose file exists,
  logging each as the official package does, and starts the trial's clock when it hands the trial out;
* per chat request, does what ``chat_with_chatgpt`` / ``chat_with_llm`` do, with the parent's own clock and the
  server's own token counts: the time check before the call (``TimeoutError``), the call with the edition's model,
  temperature, seed and the program's ``n``, the official log lines, the token check after it (``ValueError``);
* writes the response file (UTF-8, verbatim, atomically) when the program returns a text;
* keeps the trial's hard wall limit on the channel: ``max_time`` plus a grace, not counting time spent waiting for
  the model, so that a program that never returns is killed and only that trial fails.

A trial whose program catches the time or token limit's exception and returns a text gets that text written, as
the official package does (``strict_limits`` fails it instead, as podium did before: the response is marked in the
outcome's reason either way). Departures from the official package, on purpose: any other exception, a result that
is not text, a malformed request or a model server that stays down fails that trial (the official
package stops the whole run), and the run goes on with the next trial. Two answers end the run at once instead:
one saying that the server, the model or the key is wrong (``FailureKind.SERVER``: every trial would fail alike),
and a server found down (``ServerHealth``, shared by the teams that ask it). A conversation longer than the model's
context fails its trial as ``context_limit``, once, without a retry.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from podium.core.execution.sandbox.channel import Channel
from podium.core.llm import ChatMessage, ChatModel, ChatRequest, FailureKind, ModelCallError
from podium.core.llm.transport import request_label
from podium.core.storage.files import write_atomic
from podium.tracks.pcg.editions import GenerationRules, trial_seed
from podium.tracks.pcg.generation.records import GenerateVerdict, TrialKey, TrialOutcome
from podium.tracks.pcg.official.rawlog import RawLog

ROLES = frozenset({"system", "user", "assistant"})
MAX_CHOICES = 64
GRACE_S = 60.0
"""Beyond ``max_time``, how long a trial may run outside model calls before it is killed (a program may compute
after its last call, which the official check allows)."""
PROGRAM_LOG_CHARS = 4 << 20
"""How much a program may add to its team's log through ``log()`` over a run; the rest is dropped."""
CAUGHT_LIMITS = frozenset({GenerateVerdict.TIME_LIMIT, GenerateVerdict.TOKEN_LIMIT})
"""The official limits a program may catch and still have its returned text written (unless ``strict_limits``)."""
BETWEEN_TRIALS_S = 60.0
"""How long a program may take to start, or between ending one trial and asking for the next."""


def verdict_of(error: ModelCallError) -> GenerateVerdict:
    """A failed model call's trial verdict: the context window's own, or the server's."""
    return GenerateVerdict.CONTEXT_LIMIT if error.kind is FailureKind.CONTEXT else GenerateVerdict.MODEL_ERROR


def response_path(root: Path, team: str, key: TrialKey) -> Path:
    """``ROOT/<TEAM>/raw/<C>/<TEAM>_<C>_<n>.txt``."""
    return root / team / "raw" / key.character / f"{team}_{key.character}_{key.number}.txt"


class Transcript:
    """Every model call of a run as JSON Lines beside the log: request, answer, tokens, time. Thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)

    def record(self, entry: dict[str, Any]) -> None:
        """Append one call."""
        line = json.dumps({"time": datetime.now(UTC).isoformat(timespec="milliseconds"), **entry}, ensure_ascii=False)
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")


SERVER_DOWN_AFTER = 3
"""Trials in a row, across every team asking one server, that gave up on it while it still answered a probe."""


@dataclass
class ServerHealth:
    """What a run knows of one model server, shared by every team that asks it (thread-safe).

    A trial gives up on the server when every retry of a call failed on a transient error (refused, reset, timed
    out, 429/5xx). Then the server is probed (``ChatModel.probe``: its list of models, within the connect timeout):
    if the probe fails too, the server is down and no team asks it anything more. A server that answers the probe
    but fails its calls (hung, overloaded) is declared down after ``SERVER_DOWN_AFTER`` give-ups in a row across
    teams; a call that succeeds anywhere resets the count, so a slow but healthy server never stops a run. Once
    down, every trial not yet asked fails at once (no timeout paid again per team); the run ends with an error and
    a rerun asks only for the missing trials.
    """

    probe: Callable[[], str | None]
    address: str = "the model server"
    streak: int = 0
    down: str | None = None
    fix: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def answered(self) -> None:
        """A call got its answer."""
        with self._lock:
            self.streak = 0

    def gave_up(self, why: str) -> str | None:
        """A trial gave up on the server (``why``); the reason the server is down, if it is now."""
        with self._lock:
            if self.down is not None:
                return self.down
            self.streak += 1
            unreachable = self.probe()
            if unreachable is not None:
                self.down = f"the model server stopped answering ({why}); a probe failed too: {unreachable}"
                self.fix = f"start {self.address} again (or correct --base-url)"
            elif self.streak >= SERVER_DOWN_AFTER:
                self.down = (
                    f"the model server failed {self.streak} trials in a row after every retry ({why}), though it "
                    "still answers a probe"
                )
                self.fix = (
                    f"{self.address} is up but its calls fail or time out: look at its load and logs, or give "
                    "it more time (--timeout)"
                )
            return self.down


@dataclass
class _Trial:
    key: TrialKey
    started: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    model_time_s: float = 0.0
    failure: tuple[GenerateVerdict, str] | None = None
    server_gave_up: str | None = None  # a call failed on a transient error after every retry

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class SessionSettings:
    """What a session needs besides the trials: where to write, the rules, the model and how long a trial may run."""

    root: Path
    team: str
    rules: GenerationRules
    model: ChatModel
    model_name: str  # as the program's context reports it (2025's ``get_model_name``)
    base_url: str | None
    master_seed: int | None = None
    grace_s: float = GRACE_S
    between_trials_s: float = BETWEEN_TRIALS_S
    strict_limits: bool = False  # a limit the program caught fails its trial (the official package writes the text)


@dataclass
class TeamSession:
    """One team's trials, served to one sandboxed process after another until none is left."""

    settings: SessionSettings
    plan: list[tuple[TrialKey, bool]]  # every trial in the official order, and whether its file exists
    log: RawLog
    transcript: Transcript
    clock: Callable[[], float] = time.monotonic
    on_outcome: Callable[[TrialOutcome], None] | None = None  # progress: told of each trial as it ends
    outcomes: list[TrialOutcome] = field(default_factory=list)
    aborted: str | None = None
    abort_verdict: GenerateVerdict = GenerateVerdict.PROGRAM_REJECTED  # what the trials not run get
    abort_fix: str | None = None  # what the operator should do, where the failure said
    server: ServerHealth = field(default_factory=lambda: ServerHealth(lambda: None))  # shared across teams
    handed_out: int = 0  # to the current process
    _cursor: int = 0
    _program_log_chars: int = 0
    _last_character: str | None = None
    _trial: _Trial | None = None
    _channel: Channel | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, outcome: TrialOutcome) -> None:
        """Keep a trial's outcome and tell the progress display."""
        self.outcomes.append(outcome)
        if self.on_outcome is not None:
            self.on_outcome(outcome)

    # the process's side

    def attach(self, channel: Channel) -> None:
        """Serve a new process through ``channel``."""
        self._channel, self.handed_out = channel, 0
        channel.set_timeout(self.settings.between_trials_s)

    def handle(self, request: Any) -> dict[str, Any]:
        """Answer one request of the program (the channel's handler)."""
        with self._lock:
            op = request.get("op") if isinstance(request, dict) else None
            handler = _OPS.get(op) if isinstance(op, str) else None
            if handler is None:
                return {"channel_error": f"unknown request {str(op)[:40]!r}"}
            return handler(self, request)

    @property
    def finished(self) -> bool:
        """Whether every trial has an outcome (or none can run)."""
        return self.aborted is not None or (self._cursor >= len(self.plan) and self._trial is None)

    def process_ended(self, why: str, verdict: GenerateVerdict) -> None:
        """The process died or was killed: the trial it was running fails with ``why``."""
        with self._lock:
            if self._trial is not None:
                self._end(verdict, why)

    def reject_rest(self, reason: str, verdict: GenerateVerdict = GenerateVerdict.PROGRAM_REJECTED) -> None:
        """No process can run the program: every trial not yet run fails with ``reason``."""
        with self._lock:
            self.aborted = self.aborted or reason
            self.log.line(f"{'Stopped' if verdict is GenerateVerdict.MODEL_ERROR else 'Program rejected'}: {reason}")
            for key in self._pending():
                self.record(TrialOutcome(key, verdict, reason))

    # requests

    def _hello(self, request: dict[str, Any]) -> dict[str, Any]:
        settings = self.settings
        return {
            "team": settings.team,
            "package": settings.rules.program_package,
            "log_file": f"logs/{self.log.path.name}",
            "model_name": settings.model_name,
            "base_url": settings.base_url,
        }

    def _next(self, request: dict[str, Any]) -> dict[str, Any]:
        if self._trial is not None:
            self._end(GenerateVerdict.PROGRAM_ERROR, "asked for the next trial before ending this one")
        while self.aborted is None and self._cursor < len(self.plan):
            key, exists = self.plan[self._cursor]
            self._cursor += 1
            if key.character != self._last_character:
                self.log.character(self.settings.team, key.character)
                self._last_character = key.character
            self.log.trial(self.settings.team, key.character, key.number)
            if exists:
                self.log.skipped(self.settings.team, key.character, key.number)
                self.record(TrialOutcome(key, GenerateVerdict.SKIPPED))
                continue
            self._trial = _Trial(key, self.clock())
            self.handed_out += 1
            self._arm()
            return {"trial": {"character": key.character, "number": key.number}}
        return {"trial": None}

    def _chat(self, request: dict[str, Any]) -> dict[str, Any]:
        trial = self._trial
        if trial is None:
            return {"raise": "RuntimeError", "message": "podium: no trial is running"}
        if self.aborted is not None:  # a program that retries on its own asks no more of a server found wrong
            return {"raise": "RuntimeError", "message": f"podium: the run has stopped: {self.aborted}"}
        rules = self.settings.rules
        parsed = _parse_chat(request)
        if isinstance(parsed, str):
            trial.failure = trial.failure or (GenerateVerdict.PROGRAM_ERROR, parsed)
            return {"raise": "RuntimeError", "message": f"podium: {parsed}"}
        messages, n = parsed
        elapsed = self.clock() - trial.started
        self.log.line(f"Elapsed time: {elapsed}")
        if rules.max_time_s is not None and elapsed > rules.max_time_s:
            message = f"Time limit exceeded. {elapsed} > {rules.max_time_s:g}"
            self.log.line(message)
            trial.failure = trial.failure or (GenerateVerdict.TIME_LIMIT, message)
            return {"raise": "TimeoutError", "message": message}
        seed = rules.seed
        if self.settings.master_seed is not None:
            seed = trial_seed(self.settings.master_seed, trial.key.character, trial.key.number)
        chat = ChatRequest(
            tuple(ChatMessage(m["role"], m["content"]) for m in messages),
            temperature=rules.temperature,
            n=n if rules.sends_n else None,
            seed=seed,
        )
        answer = self._call(trial, chat, messages)
        if isinstance(answer, str):
            trial.failure = trial.failure or (GenerateVerdict.MODEL_ERROR, answer)
            return {"raise": "RuntimeError", "message": f"podium: the model call failed: {answer}"}
        if isinstance(answer, ModelCallError):
            trial.failure = trial.failure or (verdict_of(answer), str(answer))
            if answer.fatal:
                self.stop(str(answer), answer.fix)
            return {"raise": "RuntimeError", "message": f"podium: the model call failed: {answer}"}
        responses, prompt, completion = answer
        trial.prompt_tokens += prompt
        trial.completion_tokens += completion
        self.log.line(f"Messages: {messages}")
        self.log.line(f"Response: {responses}")
        self.log.line(f"Prompt token count: {prompt}")
        self.log.line(f"Output token count: {completion}")
        self.log.line(f"Total token count: {trial.total_tokens}")
        counts = {"prompt_tokens": prompt, "completion_tokens": completion}
        if rules.token_limit is not None and trial.total_tokens > rules.token_limit:
            message = f"Prompt token limit exceeded. {trial.total_tokens} > {rules.token_limit}"
            self.log.line(message)
            trial.failure = trial.failure or (GenerateVerdict.TOKEN_LIMIT, message)
            return {"raise": "ValueError", "message": message, **counts}
        return {"responses": responses, **counts}

    def _call(
        self, trial: _Trial, chat: ChatRequest, messages: list[dict[str, str]]
    ) -> tuple[list[str], int, int] | ModelCallError | str:
        """One model call, off the trial's clock, recorded in the transcript; the texts and usage, or why not."""
        if self._channel is not None:
            self._channel.set_deadline(math.inf)  # a slow model is not the program's fault
        if self.server.down is not None:  # another team found it down: no timeout paid again
            self.stop(self.server.down, self.server.fix)
            return self.server.down
        started = self.clock()
        entry: dict[str, Any] = {
            "team": self.settings.team,
            "character": trial.key.character,
            "trial": trial.key.number,
            "model": self.settings.model.name,
            "request": {"messages": messages, "temperature": chat.temperature, "n": chat.n, "seed": chat.seed},
        }
        try:
            with request_label(f"{self.settings.team}, letter {trial.key.character}, trial {trial.key.number}"):
                reply = self.settings.model.chat(chat)
        except ModelCallError as error:
            self.transcript.record(
                {**entry, "error": str(error), "error_kind": error.kind.value, "elapsed_s": self.clock() - started}
            )
            if error.transient:
                trial.server_gave_up = str(error)
            return error
        finally:
            trial.model_time_s += self.clock() - started
            trial.calls += 1
            self._arm()
        self.server.answered()
        self.transcript.record(
            {
                **entry,
                "responses": list(reply.contents),
                "prompt_tokens": reply.usage.prompt_tokens,
                "completion_tokens": reply.usage.completion_tokens,
                "finish_reasons": list(reply.finish_reasons),
                "elapsed_s": reply.elapsed_s,
                "attempts": reply.attempts,
            }
            | ({"choice_seeds": list(reply.choice_seeds)} if reply.choice_seeds else {})
        )
        if len(reply.contents) < chat.choices:
            return (
                f"the server answered {len(reply.contents)} of {chat.choices} choices (it ignores n, as llama.cpp's "
                "and Ollama's /v1 do): run without --official-n, and podium asks it for the rest one at a time"
            )
        return list(reply.contents[: chat.choices]), reply.usage.prompt_tokens, reply.usage.completion_tokens

    def _done(self, request: dict[str, Any]) -> dict[str, Any]:
        response = request.get("response")
        if self._trial is None:
            return {"channel_error": "no trial is running"}
        if not isinstance(response, str):
            self._end(GenerateVerdict.PROGRAM_ERROR, "run() did not return a text")
            return {}
        note = ""
        if self._trial.failure is not None:
            verdict, reason = self._trial.failure
            if verdict not in CAUGHT_LIMITS or self.settings.strict_limits:
                self._end(verdict, reason)
                return {}
            note = f"{verdict.value} caught by the program, its own response written, as officially: {reason}"
        key = self._trial.key
        try:
            data = response.encode("utf-8")
        except UnicodeEncodeError:
            self._end(GenerateVerdict.PROGRAM_ERROR, "the response is not encodable as UTF-8 (a lone surrogate)")
            return {}
        write_atomic(response_path(self.settings.root, self.settings.team, key), data)
        self._end(GenerateVerdict.OK, note)
        return {}

    def _failed(self, request: dict[str, Any]) -> dict[str, Any]:
        if self._trial is None:
            return {"channel_error": "no trial is running"}
        message = str(request.get("message", ""))[:2000]
        if self._trial.failure is None:
            self._trial.failure = (GenerateVerdict.PROGRAM_FAILED, message)
        self._end(self._trial.failure[0], message)
        return {}

    def _crashed(self, request: dict[str, Any]) -> dict[str, Any]:
        if self._trial is None:
            return {"channel_error": "no trial is running"}
        text = str(request.get("traceback", "")).strip()
        last = text.splitlines()[-1] if text else "the program failed"
        if self._trial.failure is not None:  # the judge's own reason (a limit, a model failure), logged once
            self._end(*self._trial.failure)
            return {}
        self._end(GenerateVerdict.PROGRAM_ERROR, last, detail=text)
        return {}

    def _log(self, request: dict[str, Any]) -> dict[str, Any]:
        line = str(request.get("message", ""))[:10_000]
        self._program_log_chars += len(line)
        if self._program_log_chars <= PROGRAM_LOG_CHARS:  # the judge's disk is not the program's to fill
            self.log.line(line)
        return {}

    def _abort(self, request: dict[str, Any]) -> dict[str, Any]:
        self.aborted = str(request.get("reason", "the program gave up"))[:4000]
        return {}

    # bookkeeping

    def _arm(self) -> None:
        """Put the running trial's hard deadline on the channel (or the between-trials one)."""
        if self._channel is None:
            return
        trial, rules, settings = self._trial, self.settings.rules, self.settings
        if trial is None:
            self._channel.set_timeout(settings.between_trials_s)
            return
        budget = (rules.max_time_s or 0.0) + settings.grace_s
        self._channel.set_deadline(trial.started + trial.model_time_s + budget)

    def hard_limit_s(self) -> float:
        """The wall time a trial may spend outside model calls before it is killed."""
        return (self.settings.rules.max_time_s or 0.0) + self.settings.grace_s

    def _end(self, verdict: GenerateVerdict, reason: str, detail: str = "") -> None:
        trial = self._trial
        assert trial is not None
        if verdict is GenerateVerdict.OK:
            self.log.succeeded(trial.key.number)
        else:
            self.log.failed(trial.key.number, reason)
            if detail and detail != reason:
                for line in detail.splitlines():
                    self.log.line(f"  {line}")
        self.record(TrialOutcome(trial.key, verdict, reason, trial.calls, trial.total_tokens))
        self._trial = None
        self._arm()
        self.stop_if_server_down(trial.server_gave_up if verdict is GenerateVerdict.MODEL_ERROR else None)

    def stop_if_server_down(self, gave_up: str | None) -> None:
        """Count a finished trial (``gave_up``: why the server failed it); stop once the server is down."""
        if gave_up is None:
            return
        down = self.server.gave_up(gave_up)
        if down is not None:
            self.stop(down, self.server.fix)

    def stop(self, reason: str, fix: str | None = None) -> None:
        """Ask the model server nothing more: every trial not yet run fails as a model error with ``reason``."""
        if self.aborted is None:
            self.aborted, self.abort_verdict, self.abort_fix = reason, GenerateVerdict.MODEL_ERROR, fix

    def planned(self) -> Iterator[tuple[TrialKey, bool]]:
        """The trials not yet handed out, in the official order, each taken as it is yielded."""
        while self._cursor < len(self.plan):
            self._cursor += 1
            yield self.plan[self._cursor - 1]

    def _pending(self) -> Iterator[TrialKey]:
        for key, exists in self.planned():
            if exists:
                self.record(TrialOutcome(key, GenerateVerdict.SKIPPED))
            else:
                yield key


def _parse_chat(request: dict[str, Any]) -> tuple[list[dict[str, str]], int] | str:
    """The messages and ``n`` of a chat request, or why the rules refuse it."""
    messages, n = request.get("messages"), request.get("n", 1)
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_CHOICES:
        return f"n must be a whole number from 1 to {MAX_CHOICES}, not {n!r}"
    if not isinstance(messages, list) or not messages:
        return "messages must be a non-empty list"
    for message in messages:
        if (
            not isinstance(message, dict)
            or set(message) != {"role", "content"}
            or message["role"] not in ROLES
            or not isinstance(message["content"], str)
        ):
            return f"each message is {{'role': system|user|assistant, 'content': text}}, not {str(message)[:200]}"
    return messages, n


_OPS: dict[str, Callable[[TeamSession, dict[str, Any]], dict[str, Any]]] = {
    "hello": TeamSession._hello,
    "next": TeamSession._next,
    "chat": TeamSession._chat,
    "done": TeamSession._done,
    "failed": TeamSession._failed,
    "crashed": TeamSession._crashed,
    "log": TeamSession._log,
    "abort": TeamSession._abort,
}
