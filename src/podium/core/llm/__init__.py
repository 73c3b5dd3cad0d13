"""Chat models behind one small interface: Ollama's native API, any OpenAI-compatible server, and a scripted fake.

A model is named by a spec, ``BACKEND:MODEL``: ``ollama:qwen2.5:32b-instruct-fp16`` (Ollama's ``/api/chat``),
``openai:gpt-3.5-turbo-0125`` (``/v1/chat/completions`` of OpenAI, vLLM, llama.cpp's server or Ollama's ``/v1``)
or ``scripted:FILE`` (answers read from a file, for tests, demos and participants without a GPU). ``open_model``
turns a spec, a base URL and the environment (where an API key comes from, never from a file) into a
``ChatModel``; ``ChatModel.chat`` sends one ``ChatRequest`` and returns a ``ChatReply`` with the texts and the
token usage the server reported, and ``ChatModel.check`` asks the server, before a run, whether it serves the model.
Transient failures are retried with backoff (``podium.core.llm.transport``); what is left is a ``ModelCallError`` naming
the reason and its ``FailureKind``: whether a later call may succeed, or the server, model or key is wrong.
"""

from __future__ import annotations

from podium.core.llm.models import open_model, parse_model_spec
from podium.core.llm.records import (
    ChatMessage,
    ChatModel,
    ChatReply,
    ChatRequest,
    FailureKind,
    ModelCallError,
    ModelSpec,
    TokenUsage,
)

__all__ = [
    "ChatMessage",
    "ChatModel",
    "ChatReply",
    "ChatRequest",
    "FailureKind",
    "ModelCallError",
    "ModelSpec",
    "TokenUsage",
    "open_model",
    "parse_model_spec",
]
