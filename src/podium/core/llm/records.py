"""The records every chat back-end speaks: messages, a request, the reply with its token usage, and the errors."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Protocol

from podium.core.errors import PodiumError

ROLES = frozenset({"system", "user", "assistant"})


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of a conversation."""

    role: str  # system | user | assistant
    content: str

    def to_json(self) -> dict[str, str]:
        """The message as both APIs take it."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What is asked of a model: the conversation and the sampling settings (None: the server's default)."""

    messages: tuple[ChatMessage, ...]
    temperature: float | None = None
    n: int | None = None  # choices wanted; None asks for one without sending the field
    seed: int | None = None

    @property
    def choices(self) -> int:
        """How many texts the reply carries."""
        return 1 if self.n is None else self.n


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Tokens as the server counted them."""

    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        """Prompt and completion together (what the official per-trial limit counts)."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)


@dataclass(frozen=True, slots=True)
class ChatReply:
    """A model's answer: one text per requested choice, the usage, and how the call went."""

    contents: tuple[str, ...]
    usage: TokenUsage
    elapsed_s: float
    attempts: int  # HTTP requests made, retries included
    model: str
    raw: tuple[dict[str, Any], ...] = field(default=(), compare=False)  # the server's answers, for transcripts
    finish_reasons: tuple[str | None, ...] = ()  # per choice, as the server said why it stopped ("length": cut)
    # per choice, the seed of the request that answered it, where a server answering fewer choices than asked
    # was asked again for the rest (empty: one request answered them all)
    choice_seeds: tuple[int | None, ...] = ()


class ChatModel(Protocol):
    """A chat model on some server."""

    @property
    def name(self) -> str:
        """The spec this model was opened with (``ollama:qwen2.5:32b``), as logs and transcripts name it."""
        ...

    def chat(self, request: ChatRequest) -> ChatReply:
        """Send one request; raise ``ModelCallError`` when no answer came after the retries."""
        ...

    def check(self) -> None:
        """Ask the server whether it serves this model; raise ``ModelCallError`` if it cannot or does not."""
        ...

    def probe(self) -> str | None:
        """Whether the server answers at all, asked once within the connect timeout: None, or why not."""
        ...


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A parsed ``BACKEND:MODEL`` spec."""

    backend: str  # ollama | openai | scripted
    model: str  # the model's name on its server, or the script file

    def __str__(self) -> str:
        return f"{self.backend}:{self.model}"


class FailureKind(enum.StrEnum):
    """Why a model call failed, which decides what a run does next."""

    TRANSIENT = "transient"
    """Unreachable, timed out or overloaded (refused, reset, 429, 5xx): retried; a later call may succeed."""
    SERVER = "server"
    """The server, the model or the key is wrong (401, 403, 404, 405, a body that is not JSON): every call will
    fail the same way, so a run stops at once."""
    CONTEXT = "context"
    """This conversation does not fit the model's context window (HTTP 400 saying so): only this request fails."""
    REQUEST = "request"
    """Any other refusal or unusable answer to this one request."""


class ModelCallError(PodiumError):
    """A model call that failed for good: retries used up, or an answer that no retry can change."""

    def __init__(self, message: str, *, kind: FailureKind, status: int | None = None, fix: str | None = None) -> None:
        super().__init__(message, fix=fix)
        self.kind = kind
        self.status = status  # the HTTP status, where there was an answer

    @property
    def transient(self) -> bool:
        """The server was unreachable or overloaded; a later run may succeed."""
        return self.kind is FailureKind.TRANSIENT

    @property
    def fatal(self) -> bool:
        """Every further call to this server would fail the same way."""
        return self.kind is FailureKind.SERVER
