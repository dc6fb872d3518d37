"""The checker's :class:`~tileorch.analysis.protocol.Protocol` of a chained-dots kernel (NVVM
level: a ``func.func`` carrying ``tileorch.chained_config``, docs/chained-dots.md), read from its
ops by name.

The kernel's hand-offs: thread 0 arms a ring of ``S`` mbarriers (``mbarrier.init`` with the full
arrival count, ``mbarrier.arrive.expect_tx`` with the stage's bytes) and issues the stage's TMA
copies (``cp.async.bulk.tensor`` on that barrier); a prologue fills stages ``0 .. S-1`` (each
guarded by ``n > i``); every thread waits on stage ``j % S`` (``mbarrier.try_wait.parity``),
reads it, and reaches the CTA barrier (``nvvm.barrier``); after it, thread 0 refills the stage
with tile ``j + S`` while ``j + S < n``.  The CTA barrier is the ring's empty side: every
thread's arrival there comes after its last read of stage ``j % S``, and thread 0 leaves it only
when all have arrived.  It is modelled as such: each agent releases the stage (arrivals = its
threads; empty count = the CTA's threads) right before the barrier, and thread 0 acquires the
stage's next round right after it (also when it does not refill).  The barrier itself stays in
the programs (``BarSync(0, threads)``), so its thread count is checked too.

Agents: thread 0's TMA role (``tma``: the fills, and one acquire per iteration: passing the CTA
barrier), thread 0 as a consumer (``leader``), the other 127 threads of warp group 0, and each
further warp group.  Splitting thread 0 into two agents lets its fills run at any point after
the barrier rather than right after it: every behaviour of the kernel is one of the model's.  Bytes per copy come from the record's
tensor-map boxes (the copy names its tensor map by the kernel parameter).  Trip counts
``k = 1 .. 2S + 1``.  The Q tile's single-use barrier is not modelled (one wait on parity 0
after one ``expect_tx``).
"""

from __future__ import annotations

import json

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from tileorch.analysis.catalog import trip_counts
from tileorch.analysis.protocol import (
    Advance, Agent, BarSync, ConsumerRead, ConsumerRelease, ConsumerWait, Loop, Pipeline, ProducerAcquire,
    ProducerCommit, ProducerWrite, Protocol, StateDecl, Trip,
)
from tileorch.diagnostics import LocatedError
from tileorch.dialects.record_attr import decode_record

RECORD = "tileorch.chained_config"
INIT = "nvvm.mbarrier.init"
EXPECT_TX = "nvvm.mbarrier.arrive.expect_tx"
COPY = "nvvm.cp.async.bulk.tensor.shared.cluster.global"
WAIT = "nvvm.mbarrier.try_wait.parity"
CTA_BARRIER = "nvvm.barrier"
RING = "kv"
WG = 128


def chained_kernels(module: ModuleOp) -> list[Operation]:
    return [op for op in module.body.block.ops if op.name == "func.func" and RECORD in op.attributes]


def _const(v: SSAValue) -> int | None:
    o = v.owner
    if isinstance(o, Operation) and o.name in ("arith.constant", "llvm.mlir.constant"):
        val = o.properties.get("value") or o.attributes.get("value")
        if isinstance(val, IntegerAttr):
            return val.value.data
    return None


def _smem_offset(v: SSAValue) -> int | None:
    """The constant byte offset of a ``getelementptr %smem[c]`` barrier address."""
    o = v.owner
    if isinstance(o, Operation) and o.name == "llvm.getelementptr" and len(o.operands) >= 2:
        return _const(o.operands[1])
    return None


def _in_loop(op: Operation) -> bool:
    p = op.parent_op()
    while p is not None and p.name != "func.func":
        if p.name == "scf.for":
            return True
        p = p.parent_op()
    return False


def _region_owner(op: Operation) -> Operation | None:
    return op.parent_op() if op.parent_op() is not None and op.parent_op().name == "scf.if" else None


class _Reader:
    def __init__(self, fn: Operation):
        self.fn = fn
        attr = fn.attributes[RECORD]
        self.record = json.loads(attr.data) if isinstance(attr, StringAttr) else decode_record(attr)
        if not isinstance(self.record, dict) or self.record.get("kind") != "chained":
            raise LocatedError(fn, f"check: '{RECORD}' is not a chained-dots record")
        self.stages = int(self.record["stages"])
        ntid = fn.attributes.get("nvvm.maxntid")
        self.threads = int(list(ntid.get_values())[0]) if ntid is not None else int(self.record["threads"])
        self.tmaps = self.record["tmaps"]
        self.elt = 2  # f16 / bf16 tiles (the record's dtype)

    def copy_bytes(self, copy: Operation) -> int:
        """Bytes one TMA copy delivers: its tensor map's box (64 contiguous elements x rows)."""
        tmap = next((x for x in copy.operands if isinstance(x, BlockArgument) and x.block is self.fn.body.blocks.first
                     and x.index < len(self.tmaps)), None)
        if tmap is None:
            raise LocatedError(copy, "check: a TMA copy whose tensor map is not one of the kernel's first parameters")
        return 64 * int(self.tmaps[tmap.index]["rows"]) * self.elt

    def stage_fill(self, arm: Operation) -> tuple[int, int]:
        """(expected tx bytes, bytes the copies on the same barrier deliver) of one ``expect_tx``."""
        tx = _const(arm.operands[1])
        if tx is None:
            raise LocatedError(arm, "check: expect_tx with a transaction count that is not a constant")
        block = arm.parent_block()
        landed = sum(self.copy_bytes(o) for o in block.ops if o.name == COPY and arm.operands[0] in o.operands)
        return tx, landed

    def protocol(self) -> Protocol:
        fn, S = self.fn, self.stages
        inits = [o for o in fn.walk() if o.name == INIT]
        waits = [o for o in fn.walk() if o.name == WAIT]
        ring_waits = [o for o in waits if _in_loop(o)]
        if len(ring_waits) != 1:
            raise LocatedError(fn, f"check: expected one mbarrier wait in the loop, found {len(ring_waits)}")
        single = {_smem_offset(o.operands[0]) for o in waits if not _in_loop(o)}
        ring_inits = [o for o in inits if _smem_offset(o.operands[0]) not in single]
        if len(ring_inits) != S:
            raise LocatedError(fn, f"check: {len(ring_inits)} ring barriers initialised for {S} stages")
        counts = {_const(o.operands[1]) for o in ring_inits}
        if len(counts) != 1 or None in counts:
            raise LocatedError(ring_inits[0], f"check: the ring's barriers have arrival counts {sorted(map(str, counts))}"
                                              " (one constant count for every stage expected)")
        full_count = counts.pop()
        arms = [o for o in fn.walk() if o.name == EXPECT_TX]
        arm_offsets = {_smem_offset(o.operands[0]) for o in arms}
        prologue = [o for o in arms if not _in_loop(o) and _smem_offset(o.operands[0]) not in single]
        refills = [o for o in arms if _in_loop(o)]
        if len(prologue) != S or len(refills) != 1 or not arm_offsets:
            raise LocatedError(fn, f"check: expected {S} prologue stage fills and one refill in the loop "
                                   f"(found {len(prologue)} and {len(refills)})")
        fills = [self.stage_fill(o) for o in prologue]
        refill = self.stage_fill(refills[0])
        stage_bytes = refill[0]
        bars = [o for o in fn.walk() if o.name == CTA_BARRIER and _in_loop(o)]
        if len(bars) != 1:
            raise LocatedError(fn, f"check: expected one CTA barrier in the loop, found {len(bars)}")
        T = self.threads

        def fill(tx_landed, origin):
            tx, landed = tx_landed
            return (ProducerAcquire(RING, "p", origin=origin), ProducerWrite(RING, "p", nbytes=landed, origin=origin),
                    ProducerCommit(RING, "p", tx_bytes=tx, origin=origin))

        def consume(arrivals):
            return (ConsumerWait(RING, "c", origin=ring_waits[0]), ConsumerRead(RING, "c", origin=ring_waits[0]),
                    ConsumerRelease(RING, "c", arrivals=arrivals, origin=bars[0]), Advance("c"),
                    BarSync(0, T, origin=bars[0]))

        prod: list = []
        for i, f in enumerate(fills):
            prod += [Loop(Trip("k", lower=i, cap=1), fill(f, prologue[i]), origin=prologue[i]), Advance("p")]
        prod.append(Loop(Trip("k", lower=S), (ProducerAcquire(RING, "p", origin=bars[0]),) + fill(refill, refills[0])[1:]
                         + (Advance("p"),)))
        prod.append(Loop(Trip("k", cap=S), (ProducerAcquire(RING, "p", origin=bars[0]), Advance("p"))))
        agents = [Agent("tma", "producer", tuple(prod), (StateDecl("p", RING, 1),), threads=1, mask=0b1)]
        rest = [("leader", 1), ("wg0", WG - 1)] + [(f"wg{w}", WG) for w in range(1, T // WG)]
        for w, (name, n) in enumerate(rest):
            agents.append(Agent(name, "consumer", (Loop("k", consume(n)),), (StateDecl("c", RING, 0),),
                                threads=n, mask=1 << (w + 1)))
        name = fn.properties["sym_name"].data
        return Protocol(name, (Pipeline(RING, S, full_count, T, stage_bytes, origin=ring_inits[0]),), tuple(agents),
                        params=(("k", trip_counts(S)),), origin=fn)


def extract_chained(module: ModuleOp, kernel: str | None = None) -> list[Protocol]:
    """The protocols of the module's chained-dots kernels (or of the one named ``kernel``)."""
    return [_Reader(fn).protocol() for fn in chained_kernels(module)
            if kernel is None or fn.properties["sym_name"].data == kernel]
