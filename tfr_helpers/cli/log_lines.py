"""Progress bars written to a log: throttled plain lines instead of thousands of carriage-return redraws.

On a terminal tqdm redraws its bar in place with ``\\r``. Into a file or a pipe (CI, ``tfr benchmarks verify 2>
log``) every redraw would pile up on one line. When stderr is not a TTY, :func:`plain_progress` wraps it in
:class:`LogLines`: a redraw becomes a line of its own, at most one every ``every`` seconds, and the bar's last
state is always written when the bar closes.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class LogLines:
    """A text stream that turns carriage-return redraws (``"\\r" + status``) into throttled plain lines."""

    def __init__(self, stream: TextIO, every: float = 10.0) -> None:
        self._stream = stream
        self.every = every
        self._last = -float("inf")
        self._pending: str | None = None
        self._after_redraw = False

    def write(self, text: str | bytes) -> int:
        if not text:
            return 0
        if isinstance(text, bytes):  # click writes encoded bytes to a stream it finds no encoding for
            self.flush()
            written = self._stream.buffer.write(text)
            self._stream.buffer.flush()
            return written
        if text.startswith("\r"):
            status = text.lstrip("\r").rstrip()
            self._after_redraw = True
            if status:
                self._pending = status
                if time.monotonic() - self._last >= self.every:
                    self._flush_pending()
            return len(text)
        after, self._after_redraw = self._after_redraw, False
        self._flush_pending()
        if after and text == "\n":  # a bar closed: its last state is written; the next bar's first line shows
            self._last = -float("inf")
            return len(text)
        return self._stream.write(text)

    def _flush_pending(self) -> None:
        if self._pending is not None:
            self._stream.write(self._pending + "\n")
            self._stream.flush()
            self._pending, self._last = None, time.monotonic()

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def plain_progress(every: float = 10.0) -> None:
    """Make progress bars write plain lines at most every ``every`` seconds when stderr is not a terminal."""
    if sys.stderr is None or sys.stderr.isatty() or isinstance(sys.stderr, LogLines):
        return
    sys.stderr = LogLines(sys.stderr, every)  # type: ignore[assignment]
