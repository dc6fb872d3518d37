"""When a SIMT reduction's result needs no exchange between threads: each thread already holds,
after folding its own slots, exactly the output elements the result's layout gives it.

The SIMT layout puts element ``f`` (flat row-major index) of a tile at thread ``(f // v) % T``,
slot ``(f // (v T)) v + f % v`` (run length ``v``, ``T`` threads; ``layout.py``).  A reduction
along a dimension whose elements are the flat-index bits ``[a, b)`` maps ``f`` to the output index
``o = (f mod 2^a) | ((f >> b) << a)``.  ``_reduce_in_registers`` folds, per thread, the slots that
differ only in those bits (one partial per output index the thread touches).  When no thread-index
bit (``[log2 v, log2 v + log2 T)``) lies in ``[a, b)`` -- no lane or warp shares a reduced row -- and
the thread-index bits are all below ``a`` (or the reduced extent is 1, ``a == b``: ``o = f``), the
thread's partial for ``o`` sits at ``o``'s owner thread under the output's layout (same run length
``v``): the partials *are* the result's slots, and the shared-memory round trip (a barrier, one
write and one read per output slot, a barrier) that would redistribute them is an identity.

Cases: a full reduction of a ``(1, N)`` tile, which cuTile's ``ct.max(x)`` / ``ct.sum(x)`` emit as
a reduction of the unit dimension first (the cross-entropy / logsumexp row loops: two per tile and
step); a column reduction of an ``(R, N)`` tile whose rows each span every thread.  The folded
values are the same in the same order; only the exchange goes (``TILEORCH_SIMT_REDUCE_EXCHANGE=1``
keeps it, for a GPU A/B).  The kernel records how many reductions skipped it (:data:`ATTR`, the
driver's remark).
"""

from __future__ import annotations

from tileorch import settings

ATTR = "tileorch.thread_local_reductions"
"""On a lowered SIMT kernel: how many reductions left their partials in place (no shared-memory exchange)."""


def exchange_forced() -> bool:
    """``TILEORCH_SIMT_REDUCE_EXCHANGE=1``: always redistribute through shared memory (the old path)."""
    return settings.value("TILEORCH_SIMT_REDUCE_EXCHANGE") == "1"


def owned_results(partials: dict[int, list], out_slots: int, out_vec: int, out_ragged: bool, v: int, threads: int,
                  a: int, b: int) -> list[list] | None:
    """The result's slots (each a list of one value per reduced operand), in slot order, when every
    thread's ``partials`` (thread-free flat index with the reduced bits cleared -> partial values) are
    exactly its own output slots (module docstring), else None (the caller exchanges them).  ``v``,
    ``threads``, ``out_vec`` are powers of two; ``a <= b`` bound the reduced dimension's bits."""
    if exchange_forced() or out_ragged or out_vec != v:
        return None
    lo, hi = v.bit_length() - 1, v.bit_length() - 1 + threads.bit_length() - 1  # thread-index bits [lo, hi)
    if a != b and hi > a:
        return None
    held: list[list | None] = [None] * out_slots
    for key, vals in partials.items():
        o = (key & ((1 << a) - 1)) | ((key >> b) << a)
        if (o >> lo) & (threads - 1):  # not this thread's element under the output layout
            return None
        slot = (o >> hi) * v + (o & (v - 1))
        if slot >= out_slots or held[slot] is not None:
            return None
        held[slot] = vals
    if any(h is None for h in held):
        return None
    return held
