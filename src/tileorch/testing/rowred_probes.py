"""Probe variants of sweep 15's cross-entropy forward (issue 21: why the 4096-wide rows run at 0.62 of the
copy on the H200 while the 32000-wide ones run at 0.90), for ``benchmarks/memory_bound.py``'s ``probe_*``
rows.  Each is :func:`tileorch.testing.user_programs15.cross_entropy_fwd_mean_atomic` with one part changed,
so that the time a row loses can be put on that part:

* :func:`cross_entropy_fwd_relaxed_atomics`: the two atomics ``RELAXED`` instead of cuTile's default
  ``ACQ_REL`` -- no fences, the same 2 atomics per row on the same two addresses (what the ordering
  costs, beside the contention for the addresses);
* :func:`cross_entropy_fwd_row_loss`: no atomics -- the row's loss stored at ``Loss[r]`` (0 for an
  ignored row): what the two same-address atomics cost altogether.

These are measuring programs, not a user's: changing a program's memory order is the user's choice, never
the compiler's.  Importing it needs ``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct

C = ct.Constant
NEG_INF = ct.PaddingMode.NEG_INF


@ct.function
def _row_loss(Logits, Labels, Lse, ignore_index, BV, r):
    """Sweep 15's cross entropy of row ``r`` up to its atomics: the online log-sum-exp over ``BV`` tiles,
    stored at ``Lse[r]``; returns ``(loss, keep)`` (``loss`` 0 where the label is ``ignore_index``)."""
    label = ct.load(Labels, index=(r,), shape=(1,)).item()
    m = -float("inf")
    s = 0.0
    for k in range(ct.num_tiles(Logits, axis=1, shape=(1, BV))):
        x = ct.load(Logits, index=(r, k), shape=(1, BV), padding_mode=NEG_INF).astype(ct.float32)
        m_new = ct.maximum(m, ct.max(x))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new))
        m = m_new
    lse = m + ct.log(s)
    ct.store(Lse, index=(r,), tile=ct.reshape(lse, (1,)))
    keep = label != ignore_index
    target = ct.gather(Logits, (r, ct.where(keep, label, 0))).astype(ct.float32)
    return ct.where(keep, lse - target, 0.0), keep


@ct.kernel
def cross_entropy_fwd_relaxed_atomics(Logits, Labels, Lse, LossSum, Count, ignore_index: int, BV: C[int]):
    """Sweep 15's cross-entropy forward with ``memory_order=RELAXED`` atomics (module docstring)."""
    loss, keep = _row_loss(Logits, Labels, Lse, ignore_index, BV, ct.bid(0))
    zero = ct.zeros((1,), dtype=ct.int32)
    ct.atomic_add(LossSum, zero, ct.reshape(loss, (1,)), memory_order=ct.MemoryOrder.RELAXED)
    ct.atomic_add(Count, zero, ct.reshape(ct.where(keep, 1, 0), (1,)).astype(ct.int32),
                  memory_order=ct.MemoryOrder.RELAXED)


@ct.kernel
def cross_entropy_fwd_row_loss(Logits, Labels, Lse, Loss, ignore_index: int, BV: C[int]):
    """Sweep 15's cross-entropy forward with the row's loss stored, no atomics (module docstring)."""
    r = ct.bid(0)
    loss, _ = _row_loss(Logits, Labels, Lse, ignore_index, BV, r)
    ct.store(Loss, index=(r,), tile=ct.reshape(loss, (1,)))


__all__ = ["cross_entropy_fwd_relaxed_atomics", "cross_entropy_fwd_row_loss"]
