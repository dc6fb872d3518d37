"""The launchers' bound state and the compile settings it was made under.

``tileorch.cutile.launch`` and ``tileorch.gemm`` keep what a first call resolved -- the compiled kernel, its
bound launch -- under a key of the call's arguments (``cutile_bound.py``, ``gemm.py``), so that a repeated call is
a lookup: the compile settings (``TILEORCH_*`` variables marked ``codegen``, :func:`tileorch.cache.compile_environment`)
are not in that key, and reading them on each call would cost more than the rest of the call.  Before session 35 a
process that changed one between two launches of a kernel re-ran the kernel compiled under the old value (the
session 34 attention zoo cleared the launchers' memos by hand).

Here the bound state is tied to the settings' fingerprint instead, at no cost per call:

* :func:`note_bound` (each full, unbound launch, before it binds) records the fingerprint the state is made
  under, forgetting what was bound under another one;
* :func:`tileorch.settings.on_change` calls :func:`_changed` whenever a ``TILEORCH_*`` variable changes through
  ``os.environ`` or an ``overridden`` block is entered or left: it sets :data:`stale` and runs the launchers'
  resets -- ``tileorch.cutile.launch``'s sets the compiled launcher's ``last_hot`` aside (so its C front takes the
  Python path), ``tileorch.gemm``'s drops its bound problems (so its next call takes the full path);
* ``tileorch.cutile.launch`` tests :data:`stale` first (one list item, on its Python path only) and calls
  :func:`recheck`, and again after a full launch (whose own ``overridden`` blocks -- a program compiled again
  without the row cache, the stacked-heads fallback -- are change events that end where they began: settled
  there, the next repeated call reads nothing); the full paths call :func:`note_bound`: both compare the fingerprint now with the recorded one
  and forget the bound state only where they differ (a value set and set back, or a setting that changes no code,
  keeps the compiled kernels).  Callgrind (``benchmarks/launch_instructions.py --calls 500``, session 35):
  ``cutile_cai`` 4734 instructions a call before and after, ``gemm`` 15451 -> 15462.

The fingerprint is :func:`tileorch.cache.compile_environment` and the values of
:data:`tileorch.settings.BOUND_AT_LAUNCH` (the settings a launch reads only when it binds: ``TILEORCH_ATTN_CTAS``,
``TILEORCH_CTA_PROGRAMS``, the row cache's bytes, the launch mechanism), so a change of one of those also takes
effect at the next launch (before session 36 it was read only by the next full launch of another argument set).

Not for threads that launch concurrently under different ``overridden`` blocks: the bound state and :data:`stale`
are per process, the overrides per thread, so a launch in one thread can settle a change event (:func:`recheck`
with its own, unchanged, fingerprint) raised by another thread's block, and that thread's next repeated launch then
runs the kernel bound without its override.  ``overridden`` is for one thread's compiles (the driver's fallbacks,
tests); settings that differ between concurrent launching threads must be set before the threads start.
"""

from __future__ import annotations

from collections.abc import Callable

from tileorch import settings
from tileorch.cache import compile_environment

stale = [False]
"""True after a settings change, until the next :func:`recheck` (the launch paths' first test)."""
_fingerprint: list[str | None] = [None]
_forgets: list[Callable[[], None]] = []
_resets: list[Callable[[], None]] = []


def watch(forget: Callable[[], None], reset: Callable[[], None] | None = None) -> None:
    """Call ``forget()`` when the bound state it clears was made under other settings, and ``reset()`` (cheap) at
    every change event (:func:`_changed`)."""
    if forget not in _forgets:
        _forgets.append(forget)
    if reset is not None and reset not in _resets:
        _resets.append(reset)
    settings.on_change(_changed)


def _changed() -> None:
    stale[0] = True
    for reset in tuple(_resets):
        reset()


def _bound_fingerprint() -> str:
    """The compile environment and the bind-time settings' texts (unset ones as ``NAME=``)."""
    return compile_environment() + "".join(f"{name}={settings.raw(name)};" for name in settings.BOUND_AT_LAUNCH)


def _forget_unless(fingerprint: str) -> None:
    if _fingerprint[0] != fingerprint:
        if _fingerprint[0] is not None:
            for forget in tuple(_forgets):
                forget()
        _fingerprint[0] = fingerprint


def recheck() -> None:
    """After a change event: forget the bound state if the compile settings now differ from those it was made
    under."""
    stale[0] = False  # (first: a change while the fingerprint is read marks it stale again)
    try:
        _forget_unless(_bound_fingerprint())
    except BaseException:  # (a value no setting takes: the error is the call's, the state stays stale)
        stale[0] = True
        raise


def note_bound() -> None:
    """A full launch is about to bind its kernel under the settings of now: forget what was bound under others."""
    _forget_unless(_bound_fingerprint())


__all__ = ["note_bound", "recheck", "stale", "watch"]
