"""The fake server's batch endpoints, in the real APIs' shapes (plugged into :class:`FakeLLMServer`).

OpenAI: ``POST /v1/files`` (multipart upload, ``purpose=batch``), ``POST /v1/batches``, ``GET /v1/batches/{id}``
(status ``validating`` -> ``in_progress`` -> ``completed``, one step per retrieve), ``GET /v1/files/{id}/content``
(the output and error files, JSONL). Anthropic: ``POST /v1/messages/batches``, ``GET /v1/messages/batches/{id}``
(``in_progress`` -> ``ended``), ``GET /v1/messages/batches/{id}/results`` (JSONL).

When a batch finishes, its first request (in input order) comes back errored and its second expired (``errored`` /
``expired`` set how many), the rest answered by the server's responder; results are written in reverse input order
(the APIs do not keep the order). A batch finishes only while :attr:`FakeBatches.release` is set, so a test can
keep one in flight. :attr:`created` counts the batches created.
"""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

OPENAI_DONE = {"completed", "failed", "expired", "cancelled"}


class FakeBatches:
    """Files and batches of one fake server."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        """``answer(path, body) -> (status, response body)``: the server's live answer to one request."""
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.created = 0
        self.errored = 1
        self.expired = 1
        self.polls_in_progress = 1
        """Retrieves a batch stays ``in_progress`` before it may finish."""
        self.release = threading.Event()
        self.release.set()
        self._lock = threading.Lock()

    @staticmethod
    def handles(path: str) -> bool:
        """Whether ``path`` is a files or batches route."""
        return bool(re.match(r"^(/v1)?/(files|batches|messages/batches)(/|$|\?)", path))

    # -- routes ------------------------------------------------------------------------------------------
    def route(self, method: str, path: str, headers: dict[str, str], raw: bytes, base_url: str) -> tuple[int, Any]:
        """Answer one request: (status, JSON-ready body or bytes)."""
        path = path.split("?")[0].removeprefix("/v1")
        with self._lock:
            if method == "POST" and path == "/files":
                return 200, self._upload(headers, raw)
            if method == "POST" and path == "/batches":
                return 200, self._create_openai(json.loads(raw))
            if method == "POST" and path == "/messages/batches":
                return 200, self._create_anthropic(json.loads(raw), base_url)
            if method == "GET" and (m := re.fullmatch(r"/files/([\w-]+)/content", path)):
                return 200, self.files[m.group(1)]
            if method == "GET" and (m := re.fullmatch(r"/batches/([\w-]+)", path)):
                return 200, self._retrieve(m.group(1))
            if method == "GET" and (m := re.fullmatch(r"/messages/batches/([\w-]+)/results", path)):
                return 200, self.files[self.batches[m.group(1)]["results_file"]]
            if method == "GET" and (m := re.fullmatch(r"/messages/batches/([\w-]+)", path)):
                return 200, self._retrieve(m.group(1))
        return 404, {"error": {"message": f"no such route {method} {path}"}}

    def _upload(self, headers: dict[str, str], raw: bytes) -> dict[str, Any]:
        boundary = headers.get("content-type", "").split("boundary=")[-1].strip('"').encode()
        content = b""
        for part in raw.split(b"--" + boundary):
            if b'name="file"' in part:
                content = part.split(b"\r\n\r\n", 1)[1].removesuffix(b"\r\n")
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = content
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": "batch.jsonl",
            "purpose": "batch",
            "status": "processed",
        }

    def _create_openai(self, body: dict[str, Any]) -> dict[str, Any]:
        self.created += 1
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].decode().splitlines() if line.strip()]
        batch = {
            "id": f"batch_{self.created}",
            "object": "batch",
            "endpoint": body["endpoint"],
            "input_file_id": body["input_file_id"],
            "completion_window": body["completion_window"],
            "status": "validating",
            "created_at": int(time.time()),
            "output_file_id": None,
            "error_file_id": None,
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
        }
        self.batches[batch["id"]] = {"api": "openai", "object": batch, "requests": lines, "polls": 0}
        return batch

    def _create_anthropic(self, body: dict[str, Any], base_url: str) -> dict[str, Any]:
        self.created += 1
        batch_id = f"msgbatch_{self.created}"
        batch = {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": {
                "processing": len(body["requests"]),
                "succeeded": 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": "2026-12-01T00:00:00Z",
            "expires_at": "2026-12-02T00:00:00Z",
            "ended_at": None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": None,
        }
        self.batches[batch_id] = {"api": "anthropic", "object": batch, "requests": body["requests"], "polls": 0}
        self._base = base_url
        return batch

    def _retrieve(self, batch_id: str) -> dict[str, Any]:
        state = self.batches[batch_id]
        batch = state["object"]
        state["polls"] += 1
        if state["api"] == "openai":
            if batch["status"] == "validating":
                batch["status"] = "in_progress"
            elif batch["status"] == "in_progress" and state["polls"] > self.polls_in_progress and self.release.is_set():
                self._finish_openai(state)
        elif (
            batch["processing_status"] == "in_progress" and state["polls"] > self.polls_in_progress and self.release.is_set()
        ):
            self._finish_anthropic(batch_id, state)
        return batch

    # -- finishing ---------------------------------------------------------------------------------------
    def _fate(self, index: int) -> str:
        if index < self.errored:
            return "errored"
        return "expired" if index < self.errored + self.expired else "succeeded"

    def _finish_openai(self, state: dict[str, Any]) -> None:
        batch, out, err = state["object"], [], []
        for i, req in enumerate(state["requests"]):
            line: dict[str, Any] = {"id": f"batch_req_{i}", "custom_id": req["custom_id"], "response": None, "error": None}
            fate = self._fate(i)
            if fate == "errored":
                body = {"error": {"message": "scripted batch item error", "type": "server_error"}}
                line["response"] = {"status_code": 500, "request_id": f"req_{i}", "body": body}
                err.append(line)
            elif fate == "expired":
                line["error"] = {"code": "batch_expired", "message": "not executed before the completion window expired"}
                err.append(line)
            else:
                status, body = self.answer("/v1/chat/completions", req["body"])
                line["response"] = {"status_code": status, "request_id": f"req_{i}", "body": body}
                out.append(line)
        batch["output_file_id"] = self._store(reversed(out))
        batch["error_file_id"] = self._store(reversed(err))
        batch["status"] = "completed"
        batch["request_counts"] = {"total": len(state["requests"]), "completed": len(out), "failed": len(err)}

    def _finish_anthropic(self, batch_id: str, state: dict[str, Any]) -> None:
        batch, lines, counts = (
            state["object"],
            [],
            {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0},
        )
        for i, req in enumerate(state["requests"]):
            fate = self._fate(i)
            counts[fate] += 1
            if fate == "errored":
                result: dict[str, Any] = {
                    "type": "errored",
                    "error": {"type": "error", "error": {"type": "api_error", "message": "scripted"}},
                }
            elif fate == "expired":
                result = {"type": "expired"}
            else:
                _, message = self.answer("/v1/messages", req["params"])
                result = {"type": "succeeded", "message": message}
            lines.append({"custom_id": req["custom_id"], "result": result})
        state["results_file"] = self._store(reversed(lines))
        batch.update(
            processing_status="ended",
            request_counts=counts,
            ended_at="2026-12-01T00:10:00Z",
            results_url=f"{self._base}/v1/messages/batches/{batch_id}/results",
        )

    def _store(self, lines: Any) -> str | None:
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        if not data:
            return None
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = data
        return file_id
