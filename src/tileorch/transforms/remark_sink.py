"""Remarks a pass states while it runs, collected for the compile driver.

A pass whose rewrite is a decision the user should see (a paged gather taken as page tiles, nested K loops
flattened, a narrow product accumulated unrounded, ...) appends its located ``remark:`` lines to
``sink(pass_name)``.  The driver opens :func:`collecting` around the tier's pipeline and reports what was said
only when the tier takes the kernel, in its own order; outside :func:`collecting` (``tileorch-opt``, a test
running a pass) ``sink`` is None and the pass says nothing.  The remarks are the rewrites' own: computed where
and when they happen, on the module the pass actually sees (after the passes before it), not on a copy.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_local = threading.local()  # (per thread, as tileorch.settings: two threads compiling at once keep their own)


@contextmanager
def collecting() -> Iterator[dict[str, list[str]]]:
    """Collect the remarks of the passes run inside, by pass name (nested: the inner collection only)."""
    outer = getattr(_local, "active", None)
    _local.active = mine = {}
    try:
        yield mine
    finally:
        _local.active = outer


def sink(pass_name: str) -> list[str] | None:
    """The list ``pass_name``'s remarks go to while a :func:`collecting` is open; None otherwise."""
    active = getattr(_local, "active", None)
    return None if active is None else active.setdefault(pass_name, [])


__all__ = ["collecting", "sink"]
