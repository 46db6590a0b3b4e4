"""A stdlib fake of the OpenAI Chat Completions and Anthropic Messages APIs on 127.0.0.1, for tests.

Replies follow a FIFO script of actions (``ok`` when the script is empty):
``Action("ok", text=..., delay=...)``, ``Action("status", status=429, headers={...})`` (``text`` sets its
error message),
``Action("slow", delay=s)`` (valid answer after ``s`` seconds), ``Action("malformed")`` (200, not JSON),
``Action("wrongshape")`` (200, JSON without the expected fields); ``Action("ok", finish="length")`` sets the
finish reason (``max_tokens`` on the Anthropic route). Every request is logged with its arrival time, path,
headers and body; in-flight requests are counted (``max_in_flight``).

Beyond the script: ``responder`` computes the text of ``ok`` replies from the request body (so a whole pipeline
can run against the server); ``api_key`` makes every request with another key a 401 (OpenAI's wording, key
masked); :meth:`refuse` closes the next N connections unanswered (an outage counted in requests, not time);
:meth:`stop_listening` / :meth:`listen_again` close and reopen the listening socket (connections refused).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.helpers.fake_batches import FakeBatches


@dataclass
class Action:
    """One scripted reply."""

    kind: str = "ok"
    text: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    finish: str = "stop"
    """Finish reason of an ``ok`` reply (``length`` = truncated; mapped to ``max_tokens`` for Anthropic)."""


@dataclass
class LoggedRequest:
    """One request as received."""

    time: float
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    answered: bool = True
    """False when the request was refused (connection closed unanswered)."""


def chat_completion(model: str, text: str, finish: str = "stop") -> dict[str, Any]:
    """Minimal valid ChatCompletion body."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def anthropic_message(model: str, text: str, finish: str = "stop") -> dict[str, Any]:
    """Minimal valid Message body."""
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": {"stop": "end_turn", "length": "max_tokens"}.get(finish, finish),
        "stop_sequence": None,
        "usage": {"input_tokens": 13, "output_tokens": 5},
    }


def text_usage(body: dict[str, Any], text: str, anthropic: bool) -> dict[str, int]:
    """Usage as characters / 4 (rounded up) of the request's messages and of the reply."""
    chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) + len(str(body.get("system", "")))
    prompt, completion = -(-chars // 4), -(-len(text) // 4)
    if anthropic:
        return {"input_tokens": prompt, "output_tokens": completion}
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class FakeLLMServer:
    """The server; use as a context manager. ``base_url`` has no ``/v1`` (add it for the OpenAI SDK)."""

    def __init__(
        self,
        default_text: str = "Hello from the fake server",
        responder: Callable[[dict[str, Any]], str] | None = None,
        api_key: str | None = None,
    ) -> None:
        self.default_text = default_text
        self.responder = responder
        """Text of ``ok`` replies computed from the request body (else ``default_text``)."""
        self.api_key = api_key
        """When set, a request with another ``Authorization: Bearer`` key gets a 401."""
        self.usage_from_text = False
        """When True, usage counts tokens as characters / 4 (prompt and reply) instead of fixed numbers."""
        self.batches = FakeBatches(self.live_answer)
        """The files and batch endpoints (see :mod:`tests.helpers.fake_batches`)."""
        self._refuse = 0
        self._seen = 0
        self._window = (0, 0)
        self.script: deque[Action] = deque()
        self.requests: list[LoggedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = self._bind(0)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def _bind(self, port: int) -> ThreadingHTTPServer:
        server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        server.daemon_threads = True
        server.block_on_close = False
        return server

    @property
    def answered(self) -> list[LoggedRequest]:
        """The requests that got an HTTP answer (refused ones left out)."""
        with self._lock:
            return [r for r in self.requests if r.answered]

    def refuse(self, count: int) -> None:
        """Close the next ``count`` requests' connections unanswered (the client sees a connection error)."""
        with self._lock:
            self._refuse = count

    def schedule_outage(self, after: int, count: int) -> None:
        """Refuse requests number ``after + 1`` to ``after + count`` (counting every request from now on)."""
        with self._lock:
            self._seen, self._window = 0, (after, after + count)

    def stop_listening(self) -> None:
        """Close the listening socket (new connections are refused) and drop kept-alive ones unanswered."""
        with self._lock:
            self._refuse = -1
        self._server.shutdown()
        self._server.server_close()

    def listen_again(self) -> None:
        """Reopen the listening socket on the same port and answer again."""
        port = self._server.server_address[1]
        self._server = self._bind(port)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        with self._lock:
            self._refuse = 0

    def _refusing(self) -> bool:
        with self._lock:
            self._seen += 1
            if self._window[0] < self._seen <= self._window[1]:
                return True
            if self._refuse > 0:
                self._refuse -= 1
                return True
            return self._refuse < 0

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def push(self, *actions: Action) -> None:
        """Append actions to the script."""
        with self._lock:
            self.script.extend(actions)

    def live_answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The ``ok`` answer to one request body (used for batch items)."""
        text = self.responder(body) if self.responder is not None else self.default_text
        anthropic = path.rstrip("/").endswith("/messages")
        answer = (
            anthropic_message(str(body.get("model")), text) if anthropic else chat_completion(str(body.get("model")), text)
        )
        if self.usage_from_text:
            answer["usage"] = text_usage(body, text, anthropic=anthropic)
        return 200, answer

    def _next(self) -> Action:
        with self._lock:
            return self.script.popleft() if self.script else Action("ok")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
                pass

            def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                headers = {k.lower(): v for k, v in self.headers.items()}
                if FakeBatches.handles(self.path):
                    self._batch("POST", headers, raw, body)
                    return
                if server._refusing():
                    with server._lock:
                        server.requests.append(LoggedRequest(time.monotonic(), self.path, headers, body, False))
                    self.close_connection = True  # no answer at all: the client sees the connection drop
                    return
                with server._lock:
                    server.requests.append(LoggedRequest(time.monotonic(), self.path, headers, body))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._answer(server._next(), body)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                self._batch("GET", {k.lower(): v for k, v in self.headers.items()}, b"", {})

            def _batch(self, method: str, headers: dict[str, str], raw: bytes, body: dict[str, Any]) -> None:
                with server._lock:
                    server.requests.append(LoggedRequest(time.monotonic(), self.path, headers, body))
                status, payload = server.batches.route(method, self.path, headers, raw, server.base_url)
                self._send(status, payload if isinstance(payload, bytes) else json.dumps(payload).encode())

            def _answer(self, action: Action, body: dict[str, Any]) -> None:
                if action.delay:
                    time.sleep(action.delay)
                model = str(body.get("model", "fake"))
                if server.api_key is not None and self.headers.get("authorization") != f"Bearer {server.api_key}":
                    sent = (self.headers.get("authorization") or "").removeprefix("Bearer ")
                    masked = f"{sent[:3]}*****{sent[-4:]}" if len(sent) > 8 else "(none)"
                    err = {
                        "error": {
                            "message": f"Incorrect API key provided: {masked}. You can find your API key at "
                            "https://platform.openai.com/account/api-keys.",
                            "type": "invalid_request_error",
                            "param": None,
                            "code": "invalid_api_key",
                        }
                    }
                    self._send(401, json.dumps(err).encode())
                    return
                if action.text is not None:
                    text = action.text
                else:
                    text = server.responder(body) if server.responder is not None else server.default_text
                if self.path.rstrip("/").endswith("/messages"):
                    ok = anthropic_message(model, text, action.finish)
                elif self.path.rstrip("/").endswith("/chat/completions"):
                    ok = chat_completion(model, text, action.finish)
                else:
                    self._send(404, b'{"error": {"message": "no such route"}}')
                    return
                if server.usage_from_text:
                    ok["usage"] = text_usage(body, text, anthropic="input_tokens" in ok["usage"])
                if action.kind == "status":
                    err = {
                        "type": "error",
                        "error": {"type": "fake_error", "message": action.text or f"scripted {action.status}"},
                    }
                    self._send(action.status, json.dumps(err).encode(), action.headers)
                elif action.kind == "malformed":
                    self._send(200, b'{"id": "x", "choices": [ this is not json')
                elif action.kind == "wrongshape":
                    self._send(200, b'{"unexpected": true}')
                else:  # ok and slow
                    self._send(200, json.dumps(ok).encode(), action.headers)

        return Handler

    def __enter__(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
