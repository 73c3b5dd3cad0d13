"""The chat back-ends against a real HTTP server on loopback that plays scripted answers and failures."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from podium.core.errors import ConfigError, InputError
from podium.core.llm import ChatMessage, ChatRequest, FailureKind, ModelCallError, open_model, parse_model_spec
from podium.core.llm.transport import RetryPolicy


@dataclass
class Answer:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Server:
    url: str
    answers: list[Answer]  # played in order; the last one repeats
    requests: list[tuple[str, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    open_now: int = 0
    most_open: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server("", [])

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            self.answer({})

        def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
            self.answer(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))

        def answer(self, body: dict[str, Any]) -> None:
            with state.lock:
                state.requests.append((self.path, body, dict(self.headers)))
                answer = state.answers.pop(0) if len(state.answers) > 1 else state.answers[0]
                state.open_now += 1
                state.most_open = max(state.most_open, state.open_now)
            time.sleep(answer.delay_s)
            with state.lock:
                state.open_now -= 1
            data = json.dumps(answer.body).encode() if not isinstance(answer.body, bytes) else answer.body
            self.send_response(answer.status)
            for key, value in answer.headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


def ask(text: str = "Build the letter A", **settings: Any) -> ChatRequest:
    return ChatRequest((ChatMessage("user", text),), **settings)


def openai_body(*texts: str, prompt: int = 11, completion: int = 5) -> dict[str, Any]:
    choices = [{"index": i, "message": {"role": "assistant", "content": t}} for i, t in enumerate(texts)]
    usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    return {"choices": choices, "usage": usage}


def test_specs_name_a_backend_and_the_model_with_its_colons() -> None:
    spec = parse_model_spec("ollama:qwen2.5:32b-instruct-fp16")
    assert (spec.backend, spec.model, str(spec)) == (
        "ollama",
        "qwen2.5:32b-instruct-fp16",
        "ollama:qwen2.5:32b-instruct-fp16",
    )
    for bad in ("gpt-4", "anthropic:claude", "openai:"):
        with pytest.raises(ConfigError, match="unknown model"):
            parse_model_spec(bad)


def test_openai_request_fields_usage_and_the_key_from_the_environment(server: Server) -> None:
    server.answers = [Answer(body=openai_body("one", "two", prompt=30, completion=12))]
    model = open_model("openai:gpt-3.5-turbo-0125", base_url=f"{server.url}/v1", env={"OPENAI_API_KEY": "sk-test"})
    reply = model.chat(ask(temperature=1, n=2, seed=42))
    assert reply.contents == ("one", "two") and reply.attempts == 1 and reply.model == "openai:gpt-3.5-turbo-0125"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.total_tokens) == (30, 12, 42)
    path, body, headers = server.requests[0]
    assert path == "/v1/chat/completions"
    assert body == {
        "model": "gpt-3.5-turbo-0125",
        "messages": [{"role": "user", "content": "Build the letter A"}],
        "temperature": 1,
        "n": 2,
        "seed": 42,
    }
    assert headers["Authorization"] == "Bearer sk-test"
    open_model("openai:m", base_url=f"{server.url}/v1", env={}).chat(ask())
    assert "Authorization" not in server.requests[1][2] and server.requests[1][1].keys() == {"model", "messages"}


def test_a_server_that_ignores_n_is_asked_for_the_rest_one_at_a_time_with_the_next_seeds(server: Server) -> None:
    """llama.cpp and Ollama's /v1 answer one choice whatever n asks: the others come one request each."""
    server.answers = [Answer(body=openai_body("first", prompt=30, completion=5)),
                      Answer(body=openai_body("second", prompt=30, completion=7)),
                      Answer(body=openai_body("third", prompt=30, completion=9))]  # fmt: skip
    reply = open_model("openai:m", base_url=f"{server.url}/v1").chat(ask(temperature=1, n=3, seed=42))
    assert reply.contents == ("first", "second", "third") and reply.choice_seeds == (42, 43, 44)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (30, 21)  # the prompt once, as one n call
    sent = [body for _, body, _ in server.requests]
    assert [(b.get("n"), b.get("seed")) for b in sent] == [(3, 42), (None, 43), (None, 44)]

    server.requests.clear()
    server.answers = [Answer(body=openai_body("only"))]
    unseeded = open_model("openai:m", base_url=f"{server.url}/v1").chat(ask(n=2))
    assert unseeded.contents == ("only", "only") and unseeded.choice_seeds == (None, None)
    assert all("seed" not in body for _, body, _ in server.requests)

    official = open_model("openai:m", base_url=f"{server.url}/v1", fill_choices=False).chat(ask(n=2, seed=42))
    assert official.contents == ("only",) and official.choice_seeds == ()  # what the server gave, as officially
    assert not open_model("openai:m", base_url="https://api.openai.com/v1").fill_choices  # it answers n itself


def test_ollama_native_chat_counts_tokens_and_makes_a_call_per_choice(server: Server) -> None:
    answer = {"message": {"role": "assistant", "content": "drop_block('b11', 10)"}, "prompt_eval_count": 20,
              "eval_count": 7, "done": True}  # fmt: skip
    server.answers = [Answer(body=answer)]
    reply = open_model("ollama:qwen2.5:32b-instruct-fp16", base_url=server.url).chat(ask(temperature=1, n=2, seed=6))
    assert reply.contents == ("drop_block('b11', 10)",) * 2
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.attempts) == (40, 14, 2)
    path, body, _ = server.requests[0]
    assert path == "/api/chat" and len(server.requests) == 2
    assert body == {
        "model": "qwen2.5:32b-instruct-fp16",
        "messages": [{"role": "user", "content": "Build the letter A"}],
        "stream": False,
        "options": {"temperature": 1, "seed": 6},
    }


def test_transient_failures_are_retried_with_doubling_backoff(server: Server) -> None:
    waits: list[float] = []
    server.answers = [Answer(503, {"error": "loading"}), Answer(502, "bad gateway"), Answer(body=openai_body("ok"))]
    model = open_model("openai:m", base_url=server.url, sleep=waits.append)
    reply = model.chat(ask())
    assert reply.contents == ("ok",) and reply.attempts == 3 and waits == [1.0, 2.0]


def test_retry_after_is_honoured_within_the_cap(server: Server) -> None:
    waits: list[float] = []
    server.answers = [Answer(429, {}, {"Retry-After": "7"}), Answer(429, {}, {"Retry-After": "90"}),
                      Answer(body=openai_body("ok"))]  # fmt: skip
    open_model("openai:m", base_url=server.url, sleep=waits.append).chat(ask())
    assert waits == [7.0, 30.0]


def test_a_client_error_fails_at_once_with_the_servers_words(server: Server) -> None:
    server.answers = [Answer(400, {"error": "model 'x' not found"})]
    with pytest.raises(ModelCallError, match="HTTP 400.*model 'x' not found") as caught:
        open_model("openai:x", base_url=server.url, sleep=lambda _s: None).chat(ask())
    assert caught.value.kind is FailureKind.SERVER and caught.value.status == 400 and len(server.requests) == 1


@pytest.mark.parametrize(
    ("status", "body", "kind", "words"),
    [
        (401, {"error": {"message": "Incorrect API key provided"}}, FailureKind.SERVER, "refused the API key"),
        (403, {"error": "forbidden"}, FailureKind.SERVER, "refused the API key"),
        (404, {"detail": "Not Found"}, FailureKind.SERVER, "no such path or model"),
        (405, {"detail": "Method Not Allowed"}, FailureKind.SERVER, "does not take this request"),
        (501, b"<html><h1>Error response</h1><p>Unsupported method</p></html>", FailureKind.SERVER,
         "HTTP 501: Error response Unsupported method$"),
        (400, {"error": {"message": "This model's maximum context length is 512 tokens. However, you requested "
                         "812 tokens", "code": "context_length_exceeded"}}, FailureKind.CONTEXT, "context window"),
        (400, {"error": "the input length exceeds the context length"}, FailureKind.CONTEXT, "context window"),
        (400, {"error": "temperature must be at most 2"}, FailureKind.REQUEST, "HTTP 400: .*temperature"),
        (422, {"detail": [{"msg": "field required"}]}, FailureKind.REQUEST, "HTTP 422"),
    ],
)  # fmt: skip
def test_refusals_say_whether_the_server_or_the_request_is_wrong_and_are_not_retried(
    server: Server, status: int, body: Any, kind: FailureKind, words: str
) -> None:
    server.answers = [Answer(status, body)]
    with pytest.raises(ModelCallError, match=words) as caught:
        open_model("openai:m", base_url=server.url, sleep=lambda _s: None).chat(ask())
    assert caught.value.kind is kind and len(server.requests) == 1
    assert caught.value.fatal is (kind is FailureKind.SERVER) and (caught.value.fix is not None) is (kind in (
        FailureKind.SERVER, FailureKind.CONTEXT))  # fmt: skip


def test_the_reply_keeps_why_each_choice_ended(server: Server) -> None:
    body = openai_body("cut", "whole")
    body["choices"][0]["finish_reason"], body["choices"][1]["finish_reason"] = "length", "stop"
    server.answers = [Answer(body=body)]
    assert open_model("openai:m", base_url=server.url).chat(ask(n=2)).finish_reasons == ("length", "stop")
    server.answers = [Answer(body={"message": {"content": "x"}, "prompt_eval_count": 1, "eval_count": 1,
                                   "done_reason": "length"})]  # fmt: skip
    assert open_model("ollama:m", base_url=server.url).chat(ask()).finish_reasons == ("length",)


def test_the_model_check_finds_the_model_in_the_servers_list(server: Server) -> None:
    server.answers = [Answer(body={"object": "list", "data": [{"id": "gemma3-270m"}, {"id": "other"}]})]
    open_model("openai:gemma3-270m", base_url=f"{server.url}/v1").check()
    assert server.requests[-1][0] == "/v1/models"
    with pytest.raises(
        ModelCallError, match=r"does not serve the model 'gemma3' \(it lists: gemma3-270m, other\)"
    ) as no:
        open_model("openai:gemma3", base_url=f"{server.url}/v1").check()
    assert no.value.fatal and no.value.fix == "name a model it serves, e.g. --model openai:gemma3-270m"

    server.answers = [Answer(body={"models": [{"name": "qwen2.5:32b"}, {"name": "llama3:latest"}]})]
    open_model("ollama:llama3", base_url=server.url).check()  # no tag: Ollama reads it as :latest
    open_model("ollama:qwen2.5:32b", base_url=server.url).check()
    assert server.requests[-1][0] == "/api/tags"
    with pytest.raises(ModelCallError, match="does not serve the model 'qwen2.5'"):
        open_model("ollama:qwen2.5", base_url=server.url).check()


def test_the_model_check_names_a_wrong_address_or_back_end(server: Server) -> None:
    server.answers = [Answer(404, {"detail": "Not Found"})]
    with pytest.raises(ModelCallError, match=r"/models is not there \(HTTP 404\): not an OpenAI-compatible API") as no:
        open_model("openai:m", base_url=server.url).check()  # the base URL without /v1
    assert no.value.fatal and no.value.fix is not None and "ends in /v1" in no.value.fix
    with pytest.raises(ModelCallError, match="/api/tags is not there .*not an Ollama server"):
        open_model("ollama:m", base_url=f"{server.url}/v1").check()
    server.answers = [Answer(body={"object": "list"})]
    with pytest.raises(ModelCallError, match="no list of models"):
        open_model("openai:m", base_url=server.url).check()


def test_answers_that_are_not_chat_answers_fail_clearly(server: Server) -> None:
    server.answers = [Answer(body=b"<html>proxy</html>")]
    with pytest.raises(ModelCallError, match="not JSON"):
        open_model("openai:m", base_url=server.url).chat(ask())
    server.answers = [Answer(body={"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": -1}})]
    with pytest.raises(ModelCallError, match="token count"):
        open_model("openai:m", base_url=server.url).chat(ask())


def test_a_server_that_is_not_there_fails_after_the_attempts() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    waits: list[float] = []
    policy = RetryPolicy(max_attempts=3)
    model = open_model("ollama:m", base_url=f"http://127.0.0.1:{port}", policy=policy, sleep=waits.append)
    with pytest.raises(ModelCallError, match=r"cannot reach .* \(gave up after 3 attempts\)") as caught:
        model.chat(ask())
    assert caught.value.transient and waits == [1.0, 2.0]


def test_a_slow_answer_times_out_and_counts_as_transient(server: Server) -> None:
    server.answers = [Answer(delay_s=1.0, body=openai_body("late"))]
    policy = RetryPolicy(max_attempts=2, timeout_s=0.2)
    with pytest.raises(ModelCallError, match=r"within 0.2 s \(gave up after 2 attempts\)"):
        open_model("openai:m", base_url=server.url, policy=policy, sleep=lambda _s: None).chat(ask())


def test_requests_to_one_server_are_limited_across_threads(server: Server) -> None:
    server.answers = [Answer(delay_s=0.2, body=openai_body("ok"))]
    models = [open_model("openai:m", base_url=server.url, concurrency=2) for _ in range(6)]
    threads = [threading.Thread(target=m.chat, args=(ask(),)) for m in models]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(server.requests) == 6 and server.most_open == 2


def test_the_scripted_model_answers_by_rule(tmp_path: Path) -> None:
    script = tmp_path / "answers.jsonl"
    script.write_text(
        '{"match": "letter (?P<c>[A-Z])", "reply": "```\\ndrop_block(\'b11\', 10) # \\\\g<c>\\n```"}\n'
        '{"match": "long", "reply": "x", "completion_tokens": 30000}\n'
        "\n"
        '{"reply": ""}\n'
    )
    model = open_model(f"scripted:{script}")
    reply = model.chat(ask("Build the letter Q", n=2))
    assert reply.contents == ("```\ndrop_block('b11', 10) # Q\n```",) * 2
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (8, 12)  # words, per choice
    assert model.chat(ask("a long one")).usage.total_tokens == 30003
    assert model.chat(ask("anything else")).contents == ("",)
    assert model.name == f"scripted:{script}"


def test_a_malformed_script_names_its_line(tmp_path: Path) -> None:
    script = tmp_path / "bad.jsonl"
    script.write_text('{"reply": "fine"}\n{"match": "(", "reply": "x"}\n')
    with pytest.raises(InputError, match="line 2"):
        open_model(f"scripted:{script}")
    script.write_text('{"match": "only A"}\n')
    with pytest.raises(InputError, match="line 1: a rule is an object with a string 'reply'"):
        open_model(f"scripted:{script}")
    unmatched = tmp_path / "narrow.jsonl"
    unmatched.write_text('{"match": "^A$", "reply": "x"}\n')
    with pytest.raises(ModelCallError, match="no rule"):
        open_model(f"scripted:{unmatched}").chat(ask("B"))


def test_a_hung_server_is_told_at_the_model_check_within_its_own_short_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call may wait 600 s for its answer; the list of models comes at once from any live server."""
    import podium.core.llm.models as models

    monkeypatch.setattr(models, "CHECK_TIMEOUT_S", 1.0)
    with socket.socket() as hung:  # accepts connections into its backlog, never answers
        hung.bind(("127.0.0.1", 0))
        hung.listen(8)
        url = f"http://127.0.0.1:{hung.getsockname()[1]}/v1"
        model = open_model("openai:m", base_url=url, policy=RetryPolicy(max_attempts=1, timeout_s=600.0))
        started = time.monotonic()
        with pytest.raises(ModelCallError, match=r"no answer from .*/models within 1 s"):
            model.check()
        assert time.monotonic() - started < 10


def test_a_retry_warning_names_what_the_request_was_for(server: Server, caplog: pytest.LogCaptureFixture) -> None:
    from podium.core.llm.transport import request_label

    server.answers = [Answer(503, {"error": "busy"}), Answer(body=openai_body("ok"))]
    model = open_model("openai:m", base_url=f"{server.url}/v1", policy=RetryPolicy(first_backoff_s=0.01))
    with caplog.at_level("WARNING", logger="podium.llm"), request_label("team_a, letter B, trial 3"):
        assert model.chat(ask()).contents == ("ok",)
    assert any(r.getMessage().startswith("team_a, letter B, trial 3: ") for r in caplog.records), caplog.text
