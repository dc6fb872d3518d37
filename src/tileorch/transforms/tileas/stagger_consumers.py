"""A persistent chained-dots kernel's consumer warp groups started out of step (``TILEORCH_ATTN_STAGGER``).

Both consumer warp groups of a 128-row tile read every K/V tile of every program instance, so
they run in step: each instance's serial parts (tile 0's first dot and softmax, with no second
dot to overlap; the last tile's second dot, with no softmax to overlap; the epilogue and its
stores) fall on both groups at once, and the tensor core idles through them.  Session 27's
H100 numbers put that at ~1.6 key tiles of time per instance at head dim 64 (406.9 TFLOP/s at 8
key tiles, 464.9 at 32).  Started ``C`` cycles apart, one group's serial parts run beside the
other's key tiles.

Mechanism: in the CTA's first program instance, right after its Q wait, consumer warp group
``w`` sleeps (``nanosleep`` in a loop on ``%clock64``, the exit voted per warp) until ``w * C``
cycles have passed.  Only
the groups' timing changes: no barrier is added or moved, every wait and release of the K/V and
Q rings is the same op in the same order, so the protocol ``tileorch check`` proves is the
default kernel's, and the results are bit-identical (a group that runs ahead is held back by
the K/V ring as before: the producer refills a stage once every group released it).  The skew
is a start offset, not enforced afterwards: the ring bounds it by the stages.

``TILEORCH_ATTN_STAGGER=C`` (cycles, read at each compile, part of the disk-cache key); ``0``
(the default) off until a GPU measures it: a probe of whether out-of-step groups hide the
per-instance serial parts, for a barrier-based protocol to replace if it pays.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import i32, i64
from xdsl.ir import Block, Region, SSAValue

from tileorch import settings
from tileorch.dialects import nvvm
from tileorch.transforms.tileaa_to_simt.emit import Emitter, inline_asm

STAGGER_ENV = "TILEORCH_ATTN_STAGGER"
SLEEP_NS = 100
"""``nanosleep`` of one turn of the wait (a sleeping warp issues nothing; the other group's warps
take its issue slots).  PTX promises a sleep in ``[0, 2 t]``: the skew is approximate."""
CLOCK_GHZ = 1.75
"""Cycles per ns the wait assumes (H100/H200 under a tensor-core load run at ~1.6-1.98 GHz)."""


LANE0 = "shfl.sync.idx.b32 $0, $1, 0, 31, -1;"


def stagger_cycles() -> int:
    """``C`` of ``TILEORCH_ATTN_STAGGER`` (0: off)."""
    return int(settings.value(STAGGER_ENV) or 0)


def emit_stagger(e: Emitter, wg: SSAValue, it: SSAValue, cycles: int, groups: int) -> None:
    """At ``e``'s insertion point: when ``it`` (the CTA's instance count so far, i32) is 0, consumer
    warp group ``wg`` (i32, of ``groups``) sleeps ``wg`` times for ``cycles`` (warp group 0 not at
    all): ``groups - 1`` guarded loops of a constant trip count (a trip count computed from the
    thread id made ptxas put divergence checks before the key-tile loop's shuffles)."""
    first = _named(e.v(arith.CmpiOp(it, e.const(0), "eq")), "stg_first")
    # the warp group as lane 0 has it: a value ptxas sees as the warp's one (from the thread id, a guard around a
    # loop made it put divergence checks before the key-tile loop's shuffles)
    wg = _named(e.v(inline_asm(LANE0, "=r,r", [wg], [i32])), "stg_wg")
    for g in range(1, groups):
        run = _named(e.v(arith.AndIOp(first, e.v(arith.CmpiOp(wg, e.const(g), "uge")))), "stg_run")
        then = Block()
        t = e.nested(then)
        body = Block(arg_types=[i32])
        body.add_op(nvvm.NanosleepOp(e.nested(body).const(SLEEP_NS)))
        body.add_op(scf.YieldOp())
        t.add(scf.ForOp(t.const(0), _named(t.const(sleeps(cycles)), "stg_turns"), t.const(1), [], Region(body)))
        then.add_op(scf.YieldOp())
        e.add(scf.IfOp(run, [], Region(then), Region()))


def _named(v: SSAValue, name: str) -> SSAValue:
    v.name_hint = name
    return v


def sleeps(cycles: int) -> int:
    """``nanosleep`` turns of one group's wait: ``cycles`` at :data:`CLOCK_GHZ` in turns of
    :data:`SLEEP_NS` (at least one)."""
    return max(1, round(cycles / CLOCK_GHZ / SLEEP_NS))
