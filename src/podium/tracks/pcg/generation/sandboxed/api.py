"""``chat_with_chatgpt`` / ``chat_with_llm``, ``log`` and ``run_evaluation``, forwarded to the judge.

A chat call is one request; the judge checks the trial's time, calls the model with the edition's settings,
counts the tokens from the server's answer and says what to return or raise (``TimeoutError`` before a call that
is too late, ``ValueError`` after one that passed the token limit, as the official packages do).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .context import TrialContext, TrialLoop
from .link import link

_RAISED: dict[str, type[Exception]] = {"TimeoutError": TimeoutError, "ValueError": ValueError}


def chat(ctx: TrialContext, messages: Any, n: int = 1) -> list[str]:
    """Ask the judge to call the model with ``messages``; the ``n`` responses."""
    answer = link().ask({"op": "chat", "messages": messages, "n": n})
    if "prompt_tokens" in answer:
        ctx.add_prompt_token_count(int(answer["prompt_tokens"]))
        ctx.add_output_token_count(int(answer["completion_tokens"]))
    if "raise" in answer:
        raise _RAISED.get(str(answer["raise"]), RuntimeError)(str(answer["message"]))
    return [str(text) for text in answer["responses"]]


def chat_with_chatgpt(ctx: TrialContext, messages: Any, n: int = 1) -> list[str]:
    """``chatgpt4pcg`` 1.2.2's call (the 2024 settings are the judge's)."""
    return chat(ctx, messages, n)


def chat_with_llm(ctx: TrialContext, messages: Any, n: int = 1) -> list[str]:
    """``llms4pcg`` 2.0.1's call (the 2025 settings are the judge's)."""
    return chat(ctx, messages, n)


def log(log_path: Path, message: str) -> None:
    """Add a line to the run's log (the judge writes it, with the official time stamp)."""
    link().ask({"op": "log", "path": str(log_path), "message": str(message)})


def run_evaluation(team_name: str, fn: type[TrialLoop], num_trials: int = 10, *args: Any, **kwargs: Any) -> None:
    """Run the trials the judge hands out with ``fn`` (which trials and for which team is the judge's decision)."""
    from .driver import serve

    serve(fn)
