"""The back-ends: Ollama's native chat API, the OpenAI-compatible one, and the scripted fake; and ``open_model``.

Ollama (``POST /api/chat``, not streamed) reports usage as ``prompt_eval_count`` and ``eval_count`` and answers one
choice per call, so a request for ``n`` choices makes ``n`` calls and sums their usage. An OpenAI-compatible
server (``POST /v1/chat/completions``) answers ``n`` choices and ``usage`` at once. The API key of an OpenAI-style
server comes from the environment variable ``PODIUM_LLM_API_KEY`` (else ``OPENAI_API_KEY``), never from a file in
a run folder: a participant's program must never be able to read it.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from podium.core.errors import ConfigError, InputError
from podium.core.llm.records import ChatReply, ChatRequest, FailureKind, ModelCallError, ModelSpec, TokenUsage
from podium.core.llm.transport import JsonPoster, RetryPolicy

BACKENDS = ("ollama", "openai", "scripted")
DEFAULT_BASE_URLS = {"ollama": "http://localhost:11434", "openai": "https://api.openai.com/v1"}
API_KEY_VARIABLES = ("PODIUM_LLM_API_KEY", "OPENAI_API_KEY")
OFFICIAL_OPENAI_HOST = "api.openai.com"
CHECK_TIMEOUT_S = 60.0
"""The longest the model check waits for the server's list of models (a call may wait the policy's 600 s)."""


def parse_model_spec(spec: str) -> ModelSpec:
    """``BACKEND:MODEL`` (the model name may itself hold colons, as Ollama tags do)."""
    backend, _, model = spec.partition(":")
    if backend not in BACKENDS or not model:
        raise ConfigError(
            f"unknown model {spec!r}",
            fix="name it BACKEND:MODEL with BACKEND one of ollama, openai, scripted "
            "(e.g. ollama:qwen2.5:32b-instruct-fp16, openai:gpt-3.5-turbo-0125, scripted:answers.jsonl)",
        )
    return ModelSpec(backend, model)


def _int(body: Mapping[str, Any], key: str) -> int:
    value = body.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ModelCallError(
            f"the server's answer has no valid token count {key!r}: {value!r}", kind=FailureKind.REQUEST
        )
    return value


class _ServerChat:
    """What both server back-ends share: the model's name on its server, the poster, and a clock for timing."""

    backend = ""
    _LISTING = ""  # the path that lists the server's models

    def __init__(self, model: str, poster: JsonPoster, clock: Callable[[], float] = time.monotonic) -> None:
        self.model = model
        self._poster = poster
        self._clock = clock

    @property
    def name(self) -> str:
        """``BACKEND:MODEL``, as the model was named."""
        return f"{self.backend}:{self.model}"

    def _listing(self, path: str, not_there: str) -> dict[str, Any]:
        """The server's list of models; a path it does not have means the wrong address or back-end."""
        try:  # a list of models comes at once even from a busy server: a hung one is told within a minute
            policy = self._poster.policy.timeout_s
            return self._poster.get(path, CHECK_TIMEOUT_S if policy is None else min(policy, CHECK_TIMEOUT_S)).body
        except ModelCallError as error:
            if error.status in (404, 405):
                url = f"{self._poster.base_url}{path}"
                raise ModelCallError(f"{url} is not there (HTTP {error.status}): {not_there}", kind=FailureKind.SERVER,
                                     status=error.status, fix=_ADDRESS_FIX) from None  # fmt: skip
            raise

    def probe(self) -> str | None:
        """Whether the server answers at all (its list of models, within the connect timeout): None, or why not."""
        return self._poster.probe(self._LISTING)

    def _require(self, names: list[str], accepted: set[str]) -> None:
        if not accepted & set(names):
            listed = ", ".join(names[:12]) + (" ..." if len(names) > 12 else "") or "none"
            raise ModelCallError(
                f"the server at {self._poster.base_url} does not serve the model {self.model!r} (it lists: {listed})",
                kind=FailureKind.SERVER,
                fix=f"name a model it serves, e.g. --model {self.backend}:{names[0]}" if names else "load a model",
            )


_ADDRESS_FIX = (
    "give the server's base URL: an OpenAI-compatible server's ends in /v1 (openai:MODEL, e.g. --base-url "
    "http://localhost:8000/v1), Ollama's own API has none (ollama:MODEL, http://localhost:11434); a server that "
    "lists no models can be used with --no-model-check"
)


def _names(listing: Mapping[str, Any], key: str, field: str) -> list[str] | None:
    entries = listing.get(key)
    if not isinstance(entries, list):
        return None
    return [e[field] for e in entries if isinstance(e, dict) and isinstance(e.get(field), str)]


class OllamaChat(_ServerChat):
    """A model on an Ollama server, through ``/api/chat``."""

    backend = "ollama"
    _LISTING = "/api/tags"

    def check(self) -> None:
        """The model must be among ``/api/tags`` (a name without a tag means ``:latest``, as Ollama reads it)."""
        names = _names(self._listing(self._LISTING, "not an Ollama server"), "models", "name")
        if names is None:
            raise ModelCallError("the server's /api/tags has no list of models: not an Ollama server",
                                 kind=FailureKind.SERVER, fix=_ADDRESS_FIX)  # fmt: skip
        self._require(names, {self.model, f"{self.model}:latest"})

    def chat(self, request: ChatRequest) -> ChatReply:
        """One call per requested choice (Ollama answers one)."""
        options: dict[str, Any] = {}
        if request.temperature is not None:
            options["temperature"] = request.temperature
        if request.seed is not None:
            options["seed"] = request.seed
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_json() for m in request.messages],
            "stream": False,
        } | ({"options": options} if options else {})
        start = self._clock()
        contents, raws, finishes, usage, attempts = [], [], [], TokenUsage(0, 0), 0
        for _ in range(request.choices):
            answer = self._poster.post("/api/chat", payload)
            message = answer.body.get("message")
            if not isinstance(message, dict) or not isinstance(message.get("content"), str):
                raise ModelCallError("the server's answer has no message content", kind=FailureKind.REQUEST)
            contents.append(message["content"])
            raws.append(answer.body)
            finishes.append(_text_or_none(answer.body.get("done_reason")))
            usage += TokenUsage(_int(answer.body, "prompt_eval_count"), _int(answer.body, "eval_count"))
            attempts += answer.attempts
        elapsed = self._clock() - start
        return ChatReply(tuple(contents), usage, elapsed, attempts, self.name, tuple(raws), tuple(finishes))


class OpenAIChat(_ServerChat):
    """A model on an OpenAI-compatible server, through ``/chat/completions`` under its ``/v1`` base URL.

    ``fill_choices``: a server that answers fewer choices than ``n`` asked (llama.cpp's and Ollama's ``/v1`` answer
    one) is asked for the rest one request at a time, choice ``i`` with seed ``seed + i`` where a seed is sent; the
    reply counts the prompt's tokens once, as one call for ``n`` would, and records each choice's seed. Off, the
    reply has what the server gave, as the official client's would.
    """

    backend = "openai"
    _LISTING = "/models"

    def __init__(
        self,
        model: str,
        poster: JsonPoster,
        clock: Callable[[], float] = time.monotonic,
        *,
        fill_choices: bool = True,
    ) -> None:
        super().__init__(model, poster, clock)
        self.fill_choices = fill_choices

    def check(self) -> None:
        """The model must be among ``/models`` (the ``id`` of an entry of its ``data``)."""
        names = _names(self._listing(self._LISTING, "not an OpenAI-compatible API"), "data", "id")
        if names is None:
            raise ModelCallError("the server's /models has no list of models: not an OpenAI-compatible API",
                                 kind=FailureKind.SERVER, fix=_ADDRESS_FIX)  # fmt: skip
        self._require(names, {self.model})

    def chat(self, request: ChatRequest) -> ChatReply:
        """One call for every choice, and one more for each choice the server left out (``fill_choices``)."""
        start = self._clock()
        contents, finishes, usage, attempts, body = self._ask(request, request.n, request.seed)
        raws, seeds = [body], [request.seed] * len(contents)
        while self.fill_choices and len(contents) < request.choices:
            seed = None if request.seed is None else request.seed + len(contents)
            more, more_finishes, more_usage, more_attempts, more_body = self._ask(request, None, seed)
            taken = more[: request.choices - len(contents)]
            contents += taken
            finishes += more_finishes[: len(taken)]
            seeds += [seed] * len(taken)
            usage += TokenUsage(0, more_usage.completion_tokens)  # the prompt counted once, as one n call would
            attempts += more_attempts
            raws.append(more_body)
        filled = tuple(seeds) if len(raws) > 1 else ()
        return ChatReply(tuple(contents), usage, self._clock() - start, attempts, self.name, tuple(raws),
                         tuple(finishes), filled)  # fmt: skip

    def _ask(
        self, request: ChatRequest, n: int | None, seed: int | None
    ) -> tuple[list[str], list[str | None], TokenUsage, int, dict[str, Any]]:
        payload: dict[str, Any] = {"model": self.model, "messages": [m.to_json() for m in request.messages]}
        if request.temperature is not None:
            payload["temperature"] = request.temperature
        if n is not None:
            payload["n"] = n
        if seed is not None:
            payload["seed"] = seed
        answer = self._poster.post("/chat/completions", payload)
        choices = answer.body.get("choices")
        if not isinstance(choices, list) or not choices:
            raise ModelCallError("the server's answer has no choices", kind=FailureKind.REQUEST)
        contents, finishes = [], []
        for choice in choices:
            message = choice.get("message") if isinstance(choice, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            contents.append(content if isinstance(content, str) else "")  # a refusal or tool call: an empty text
            finishes.append(_text_or_none(choice.get("finish_reason")) if isinstance(choice, dict) else None)
        usage_body = answer.body.get("usage")
        if not isinstance(usage_body, dict):
            raise ModelCallError("the server's answer has no usage", kind=FailureKind.REQUEST)
        usage = TokenUsage(_int(usage_body, "prompt_tokens"), _int(usage_body, "completion_tokens"))
        return contents, finishes, usage, answer.attempts, answer.body


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class ScriptRule:
    """One rule of a script: when the last user message matches ``pattern``, answer ``reply`` (groups expanded)."""

    pattern: re.Pattern[str]
    reply: str
    completion_tokens: int | None


class ScriptedChat:
    r"""Answers from a script file: JSON Lines, one rule per line, the first that matches answers.

    A rule is ``{"match": REGEX, "reply": TEXT}``; ``match`` is searched in the last user message (a rule without
    it matches anything) and ``reply`` may name its groups as ``\1`` or ``\g<name>``. Usage is counted in
    whitespace-separated words (``completion_tokens`` in a rule overrides the reply's count), so token limits can
    be tested without a model.
    """

    def __init__(self, path: Path, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self._rules = _read_script(path)
        self._clock = clock
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """``scripted:FILE``."""
        return f"scripted:{self.path}"

    def check(self) -> None:
        """A script serves whatever is asked."""

    def probe(self) -> str | None:
        """A script is always there."""
        return None

    def chat(self, request: ChatRequest) -> ChatReply:
        """The first matching rule's reply, ``n`` times."""
        start = self._clock()
        last_user = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        for rule in self._rules:
            found = rule.pattern.search(last_user)
            if found is None:
                continue
            text = found.expand(rule.reply)
            completion = rule.completion_tokens if rule.completion_tokens is not None else len(text.split())
            prompt = sum(len(m.content.split()) for m in request.messages)
            usage = TokenUsage(prompt * request.choices, completion * request.choices)
            elapsed = self._clock() - start
            return ChatReply((text,) * request.choices, usage, elapsed, 1, self.name, (), ("stop",) * request.choices)
        raise ModelCallError(f"no rule of {self.path} matches the last user message", kind=FailureKind.REQUEST)


def _read_script(path: Path) -> list[ScriptRule]:
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the script: {error}", path=path, fix="give a UTF-8 JSON Lines file") from None
    rules = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rule = json.loads(line)
            if not isinstance(rule, dict) or not isinstance(rule.get("reply"), str):
                raise ValueError("a rule is an object with a string 'reply'")
            tokens = rule.get("completion_tokens")
            if tokens is not None and (not isinstance(tokens, int) or tokens < 0):
                raise ValueError("'completion_tokens' is a whole number")
            rules.append(ScriptRule(re.compile(rule.get("match", "")), rule["reply"], tokens))
        except (ValueError, re.error) as error:
            raise InputError(
                f"line {number}: {error}", path=path, fix='write one {"match": REGEX, "reply": TEXT} per line'
            ) from None
    if not rules:
        raise InputError("the script has no rules", path=path, fix='write one {"match": REGEX, "reply": TEXT} per line')
    return rules


def open_model(
    spec: str | ModelSpec,
    *,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
    policy: RetryPolicy | None = None,
    concurrency: int = 4,
    sleep: Callable[[float], None] = time.sleep,
    transport: httpx.BaseTransport | None = None,
    fill_choices: bool | None = None,
) -> OllamaChat | OpenAIChat | ScriptedChat:
    """The model a spec names, on ``base_url`` (default: the back-end's usual local or public address).

    ``fill_choices`` (``OpenAIChat``): None fills missing choices on any server but OpenAI's own.
    """
    parsed = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    if parsed.backend == "scripted":
        return ScriptedChat(Path(parsed.model))
    url = base_url or DEFAULT_BASE_URLS[parsed.backend]
    headers = {}
    if parsed.backend == "openai":
        environment = env if env is not None else {}
        key = next((environment[v] for v in API_KEY_VARIABLES if environment.get(v)), None)
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
    poster = JsonPoster(url, headers=headers, policy=policy, concurrency=concurrency, sleep=sleep, transport=transport)
    if parsed.backend == "ollama":
        return OllamaChat(parsed.model, poster)
    official = httpx.URL(url).host == OFFICIAL_OPENAI_HOST  # it answers n itself: ask as the official client does
    return OpenAIChat(parsed.model, poster, fill_choices=not official if fill_choices is None else fill_choices)
