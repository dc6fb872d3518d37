"""Progress lines for long work (the GPU conformance run, benchmarks, ``tileorch check`` on large
models): a periodic line with counts, rate and time left, and a one-line summary at the end.

>>> with Progress("conformance", total=len(cases), unit="cases") as p:   # doctest: +SKIP
...     for case in cases:
...         p.step(ok=run(case))
conformance: 120/1247 cases (9.6%), 14.2 cases/s, 0 failed, ~1m19s left
conformance: 1247 cases in 88.1 s (14.2 cases/s): 1247 ok, 0 failed

Lines go to stderr (results stay alone on stdout).  A line is printed at most every
``interval`` seconds (default 5; ``TILEORCH_PROGRESS_INTERVAL`` overrides it, 0 prints every
step); work that ends before the first interval prints only its summary.
``TILEORCH_PROGRESS=0`` silences the periodic lines (the summary is still printed).
Standard library only.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def _rate(r: float) -> str:
    return _count(round(r)) if r >= 100 else f"{r:.1f}"


def _count(n: float) -> str:
    """12, 12.3k, 4.56M"""
    if n < 10_000:
        return f"{n:g}" if isinstance(n, float) and n != int(n) else f"{int(n)}"
    if n < 10_000_000:
        return f"{n / 1e3:.1f}k"
    return f"{n / 1e6:.2f}M"


class Progress:
    """Counts done (and failed) steps of ``total`` (``None``: unknown, e.g. states explored)."""

    def __init__(self, label: str, total: int | None = None, unit: str = "items",
                 stream: TextIO | None = None, interval: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.label, self.total, self.unit = label, total, unit
        self.stream = stream if stream is not None else sys.stderr
        env = os.environ.get("TILEORCH_PROGRESS_INTERVAL")
        self.interval = interval if interval is not None else float(env) if env else 5.0
        self.quiet = os.environ.get("TILEORCH_PROGRESS", "1").strip().lower() in ("0", "false", "no", "off")
        self.clock = clock
        self.start = clock()
        self.last_line = self.start
        self.done = 0
        self.failed = 0
        self.lines = 0
        self.finished = False

    # ---------------------------------------------------------------- counting

    def step(self, n: int = 1, ok: bool = True, note: str | None = None) -> None:
        """``n`` more steps done (``ok=False``: they failed); maybe print a line."""
        self.done += n
        if not ok:
            self.failed += n
        self._maybe_print(note)

    def set(self, done: int, note: str | None = None) -> None:
        """The count is ``done`` now (for work that reports totals, like states explored)."""
        self.done = done
        self._maybe_print(note)

    def _maybe_print(self, note: str | None) -> None:
        now = self.clock()
        if self.quiet or now - self.last_line < self.interval:
            return
        self.last_line = now
        self.lines += 1
        print(self.line(now) + (f", {note}" if note else ""), file=self.stream, flush=True)

    # ---------------------------------------------------------------- text

    def rate(self, now: float | None = None) -> float:
        elapsed = (now if now is not None else self.clock()) - self.start
        return self.done / elapsed if elapsed > 0 else 0.0

    def line(self, now: float | None = None) -> str:
        now = now if now is not None else self.clock()
        rate = self.rate(now)
        parts = []
        if self.total:
            parts.append(f"{_count(self.done)}/{_count(self.total)} {self.unit} ({100 * self.done / self.total:.1f}%)")
        else:
            parts.append(f"{_count(self.done)} {self.unit}")
        parts.append(f"{_rate(rate)} {self.unit}/s")
        if self.failed:
            parts.append(f"{self.failed} failed")
        if self.total and rate > 0 and self.done < self.total:
            parts.append(f"~{_duration((self.total - self.done) / rate)} left")
        else:
            parts.append(f"{_duration(now - self.start)} elapsed")
        return f"{self.label}: " + ", ".join(parts)

    def summary(self, now: float | None = None, result: str | None = None) -> str:
        now = now if now is not None else self.clock()
        elapsed = now - self.start
        text = (f"{self.label}: {_count(self.done)} {self.unit} in {elapsed:.1f} s "
                f"({_rate(self.rate(now))} {self.unit}/s)")
        if result is not None:
            return f"{text}: {result}"
        if self.total is not None and self.done < self.total:
            text += f", stopped at {self.done}/{self.total}"
        return f"{text}: {self.done - self.failed} ok, {self.failed} failed"

    def finish(self, result: str | None = None) -> str:
        """Print (once) and return the one-line summary; ``result`` replaces the ok/failed counts."""
        text = self.summary(result=result)
        if not self.finished:
            self.finished = True
            print(text, file=self.stream, flush=True)
        return text

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self.finished:
            self.finish(None if exc_type is None else f"interrupted by {exc_type.__name__}")
