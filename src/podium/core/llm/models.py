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
from podium.core.llm.http import JsonPoster, RetryPolicy
from podium.core.llm.records import ChatReply, ChatRequest, ModelCallError, ModelSpec, TokenUsage

BACKENDS = ("ollama", "openai", "scripted")
DEFAULT_BASE_URLS = {"ollama": "http://localhost:11434", "openai": "https://api.openai.com/v1"}
API_KEY_VARIABLES = ("PODIUM_LLM_API_KEY", "OPENAI_API_KEY")


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
        raise ModelCallError(f"the server's answer has no valid token count {key!r}: {value!r}", transient=False)
    return value


class _ServerChat:
    """What both server back-ends share: the model's name on its server, the poster, and a clock for timing."""

    backend = ""

    def __init__(self, model: str, poster: JsonPoster, clock: Callable[[], float] = time.monotonic) -> None:
        self.model = model
        self._poster = poster
        self._clock = clock

    @property
    def name(self) -> str:
        """``BACKEND:MODEL``, as the model was named."""
        return f"{self.backend}:{self.model}"


class OllamaChat(_ServerChat):
    """A model on an Ollama server, through ``/api/chat``."""

    backend = "ollama"

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
        contents, raws, usage, attempts = [], [], TokenUsage(0, 0), 0
        for _ in range(request.choices):
            answer = self._poster.post("/api/chat", payload)
            message = answer.body.get("message")
            if not isinstance(message, dict) or not isinstance(message.get("content"), str):
                raise ModelCallError("the server's answer has no message content", transient=False)
            contents.append(message["content"])
            raws.append(answer.body)
            usage += TokenUsage(_int(answer.body, "prompt_eval_count"), _int(answer.body, "eval_count"))
            attempts += answer.attempts
        return ChatReply(tuple(contents), usage, self._clock() - start, attempts, self.name, tuple(raws))


class OpenAIChat(_ServerChat):
    """A model on an OpenAI-compatible server, through ``/chat/completions`` under its ``/v1`` base URL."""

    backend = "openai"

    def chat(self, request: ChatRequest) -> ChatReply:
        """One call for every choice."""
        payload: dict[str, Any] = {"model": self.model, "messages": [m.to_json() for m in request.messages]}
        if request.temperature is not None:
            payload["temperature"] = request.temperature
        if request.n is not None:
            payload["n"] = request.n
        if request.seed is not None:
            payload["seed"] = request.seed
        start = self._clock()
        answer = self._poster.post("/chat/completions", payload)
        choices = answer.body.get("choices")
        if not isinstance(choices, list) or not choices:
            raise ModelCallError("the server's answer has no choices", transient=False)
        contents = []
        for choice in choices:
            message = choice.get("message") if isinstance(choice, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            contents.append(content if isinstance(content, str) else "")  # a refusal or tool call: an empty text
        usage_body = answer.body.get("usage")
        if not isinstance(usage_body, dict):
            raise ModelCallError("the server's answer has no usage", transient=False)
        usage = TokenUsage(_int(usage_body, "prompt_tokens"), _int(usage_body, "completion_tokens"))
        return ChatReply(tuple(contents), usage, self._clock() - start, answer.attempts, self.name, (answer.body,))


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
            return ChatReply((text,) * request.choices, usage, self._clock() - start, 1, self.name)
        raise ModelCallError(f"no rule of {self.path} matches the last user message", transient=False)


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
) -> OllamaChat | OpenAIChat | ScriptedChat:
    """The model a spec names, on ``base_url`` (default: the back-end's usual local or public address)."""
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
    return OpenAIChat(parsed.model, poster)
