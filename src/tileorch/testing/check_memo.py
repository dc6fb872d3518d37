"""``tileorch.analysis.explore.check`` once per distinct protocol in a test run: tests that prove the
same pipeline protocol (the default-switch kernel proved by the tests of two switch files, a proof
and the mutation test beside it) share one search.

Key
    The sha256 of the compiler's fingerprint (:func:`tileorch.cache.compiler_fingerprint`: the checker's
    sources among it), the protocol pickled without its IR references (:func:`~tileorch.analysis.explore.
    without_ir`'s pickling: ``origin`` takes no part in a protocol's steps) and the keyword arguments of the
    check, and ``machine.CAUSAL_WINDOWS`` (a test that turns the reduction off counts other states).  Not the
    ``TILEORCH_*`` switches (the checker reads none; the compile switches a test sets
    changed the protocol, if anything): two tests that set different switches and lower to one protocol
    share its search.  Not the protocol's ``name`` and ``notes`` either (:func:`_anonymous`): the search
    reads neither (they only label the result), so two kernels whose names differ (a GEMM configuration's
    name holds every switch) and whose pipelines are the same protocol share one search, each result
    labelled with its own protocol's name and notes.
Where
    In this process and the run's memo directory (``$TILEORCH_TEST_COMPILE_MEMO``, shared by the xdist
    workers), as :mod:`tileorch.testing.compile_memo` keeps compiles.
Result
    A copy of the :class:`~tileorch.analysis.explore.CheckResult`.  Only a proof (``ok``) is kept, without
    IR references: a result with a violation is returned as the search made it (its counterexample's
    steps keep their locations) and not stored, so a test that expects a violation searches each time.
    The verdict, the state and transition counts and the instances are the search's, stored or not."""

from __future__ import annotations

import copy
import io
import pickle


def check_key(protocol, kwargs: dict) -> str:
    """The memo key of ``check(protocol, **kwargs)``."""
    from hashlib import sha256

    from tileorch.analysis.explore import _NoIR
    from tileorch.cache import compiler_fingerprint

    from tileorch.analysis import machine

    buf = io.BytesIO()  # (the causal windows' switch: a test that turns them off compares state counts)
    _NoIR(buf, protocol=pickle.HIGHEST_PROTOCOL).dump((_anonymous(protocol), sorted(kwargs.items()),
                                                       machine.CAUSAL_WINDOWS))
    return "check-" + sha256(compiler_fingerprint().encode() + b"\0" + buf.getvalue()).hexdigest()


def _anonymous(protocol):
    """``protocol`` without what labels it (its ``name`` and ``notes``: no step, agent or trip count of the
    search reads them; ``explore.check`` copies them into the result)."""
    import dataclasses

    return dataclasses.replace(protocol, name="", notes=())


def check_once(protocol, **kwargs):
    """``tileorch.analysis.explore.check(protocol, **kwargs)``, searched once per key (see the module
    docstring) in this process and the test run's memo directory while its verdict is a proof."""
    from tileorch.analysis.explore import check, without_ir
    from tileorch.testing.compile_memo import _stored, _store

    key = check_key(protocol, kwargs)
    result = _stored(key)
    if result is None:
        result = check(protocol, **kwargs)
        if not result.ok:
            return result
        _store(key, without_ir(result))
    result = copy.deepcopy(result)
    result.protocol, result.notes = protocol.name, protocol.notes  # (a search of an equal protocol named otherwise)
    return result


__all__ = ["check_key", "check_once"]
