"""The records every chat back-end speaks: messages, a request, the reply with its token usage, and the errors."""

from __future__ import annotations

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


class ChatModel(Protocol):
    """A chat model on some server."""

    @property
    def name(self) -> str:
        """The spec this model was opened with (``ollama:qwen2.5:32b``), as logs and transcripts name it."""
        ...

    def chat(self, request: ChatRequest) -> ChatReply:
        """Send one request; raise ``ModelCallError`` when no answer came after the retries."""
        ...


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A parsed ``BACKEND:MODEL`` spec."""

    backend: str  # ollama | openai | scripted
    model: str  # the model's name on its server, or the script file

    def __str__(self) -> str:
        return f"{self.backend}:{self.model}"


class ModelCallError(PodiumError):
    """A model call that failed for good: retries used up, or an answer that no retry can change."""

    def __init__(self, message: str, *, transient: bool, status: int | None = None, fix: str | None = None) -> None:
        super().__init__(message, fix=fix)
        self.transient = transient  # True: the server was unreachable or overloaded; a later run may succeed
        self.status = status  # the HTTP status, where there was an answer
