"""A loopback HTTP server serving benchmark files, so the download path runs for real without the network."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest


@dataclass
class LoopbackServer:
    """A static file server on 127.0.0.1 that counts the requests it answers."""

    root: Path
    port: int = 0
    requests: list[str] = field(default_factory=list)

    def url(self, rel: str) -> str:
        """URL of a file below ``root``."""
        return f"http://127.0.0.1:{self.port}/{rel}"


@pytest.fixture
def loopback_server(tmp_path: Path) -> Iterator[LoopbackServer]:
    """Serve ``tmp_path / "served"`` over HTTP on a free loopback port for the duration of a test."""
    root = tmp_path / "served"
    root.mkdir()
    server_state = LoopbackServer(root)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (signature of the base class)
            server_state.requests.append(self.path)

    handler = functools.partial(Handler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server_state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server_state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
