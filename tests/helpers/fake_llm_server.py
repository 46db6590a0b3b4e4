"""A stdlib fake of the OpenAI Chat Completions and Anthropic Messages APIs on 127.0.0.1, for tests.

Replies follow a FIFO script of actions (``ok`` when the script is empty):
``Action("ok", text=..., delay=...)``, ``Action("status", status=429, headers={...})``,
``Action("slow", delay=s)`` (valid answer after ``s`` seconds), ``Action("malformed")`` (200, not JSON),
``Action("wrongshape")`` (200, JSON without the expected fields). Every request is logged with its arrival
time, path, headers and body; in-flight requests are counted (``max_in_flight``).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Action:
    """One scripted reply."""

    kind: str = "ok"
    text: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class LoggedRequest:
    """One request as received."""

    time: float
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def chat_completion(model: str, text: str) -> dict[str, Any]:
    """Minimal valid ChatCompletion body."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def anthropic_message(model: str, text: str) -> dict[str, Any]:
    """Minimal valid Message body."""
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 13, "output_tokens": 5},
    }


class FakeLLMServer:
    """The server; use as a context manager. ``base_url`` has no ``/v1`` (add it for the OpenAI SDK)."""

    def __init__(self, default_text: str = "Hello from the fake server") -> None:
        self.default_text = default_text
        self.script: deque[Action] = deque()
        self.requests: list[LoggedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def push(self, *actions: Action) -> None:
        """Append actions to the script."""
        with self._lock:
            self.script.extend(actions)

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
                with server._lock:
                    server.requests.append(
                        LoggedRequest(
                            time.monotonic(), self.path, {k.lower(): v for k, v in self.headers.items()}, body
                        )
                    )
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._answer(server._next(), body)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _answer(self, action: Action, body: dict[str, Any]) -> None:
                if action.delay:
                    time.sleep(action.delay)
                model = str(body.get("model", "fake"))
                text = action.text if action.text is not None else server.default_text
                if self.path.rstrip("/").endswith("/messages"):
                    ok = anthropic_message(model, text)
                elif self.path.rstrip("/").endswith("/chat/completions"):
                    ok = chat_completion(model, text)
                else:
                    self._send(404, b'{"error": {"message": "no such route"}}')
                    return
                if action.kind == "status":
                    err = {
                        "type": "error",
                        "error": {"type": "fake_error", "message": f"scripted {action.status}"},
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
