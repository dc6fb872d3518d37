"""Every nvvm op class tileorch defines carries an upstream MLIR NVVM op name, with its operands
named and ordered as upstream declares them (so a module printed in generic form keeps upstream's
operand order and ``operandSegmentSizes``), and its properties named as upstream's.

The tables below are transcribed by hand from upstream ``mlir/include/mlir/Dialect/LLVMIR/
NVVMOps.td`` (op mnemonics and argument names only): ``UPSTREAM_MAIN`` from a mid-2026 snapshot
of main cross-checked with the merged llvm-project PRs #168758, #169922, #169698, #170285,
#167331, #195608 and #202608; ``UPSTREAM_LEGACY`` lists the ``.shared`` spellings that earlier
upstream revisions had and main has since removed (``barrier0``, also removed, is not defined).  See
docs/nvvm-conformance.md.
"""

from __future__ import annotations

import pytest
from xdsl.irdl import IRDLOperation

from tileorch.dialects import nvvm

# op name (without "nvvm.") -> (operand names in upstream order, property/attribute names)
UPSTREAM_MAIN: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {
    "mbarrier.init": (("addr", "count", "predicate"), frozenset()),
    "mbarrier.inval": (("addr",), frozenset()),
    "mbarrier.expect_tx": (("addr", "txcount"), frozenset({"scope"})),
    "mbarrier.arrive": (("addr", "count"), frozenset({"scope", "relaxed"})),
    "mbarrier.arrive.expect_tx": (("addr", "txcount", "predicate"), frozenset({"scope", "relaxed"})),
    "mbarrier.try_wait.parity": (("addr", "phase", "ticks"), frozenset()),
    "mbarrier.try_wait": (("addr", "stateOrPhase", "ticks"), frozenset({"scope", "relaxed"})),
    "mbarrier.test.wait": (("addr", "stateOrPhase"), frozenset({"scope", "relaxed"})),
    "fence.mbarrier.init": ((), frozenset()),
    "fence.proxy": ((), frozenset({"kind", "space"})),
    "cluster.arrive": ((), frozenset({"aligned"})),
    "cluster.arrive.relaxed": ((), frozenset({"aligned"})),
    "cluster.wait": ((), frozenset({"aligned"})),
    "barrier": (("barrierId", "numberOfThreads"), frozenset({"aligned"})),
    "barrier.arrive": (("barrierId", "numberOfThreads"), frozenset({"aligned"})),
    "bar.warp.sync": (("mask",), frozenset()),
    "elect.sync": (("membermask",), frozenset()),
    "mapa": (("a", "b"), frozenset()),
    "cp.async.bulk.commit.group": ((), frozenset()),
    "cp.async.bulk.wait_group": ((), frozenset({"group", "read"})),
    "cp.async.bulk.shared.cluster.global": (
        ("dstMem", "srcMem", "mbar", "size", "multicastMask", "l2CacheHint"),
        frozenset(),
    ),
    # payload ops (TMA tensor copies, WGMMA, stmatrix, PDL); nvvm.prefetch's trailing optional
    # ``predicate`` operand (no segment sizes) is not implemented, so generic forms still agree
    "cp.async.bulk.tensor.shared.cluster.global": (
        ("dstMem", "tmaDescriptor", "coordinates", "mbar", "im2colOffsets", "multicastMask",
         "l2CacheHint", "predicate"),
        frozenset({"mode", "isCTAOnly", "group"}),
    ),
    "cp.async.bulk.tensor.global.shared.cta": (
        ("tmaDescriptor", "srcMem", "coordinates", "l2CacheHint", "predicate"), frozenset({"mode"}),
    ),
    "cp.async.bulk.tensor.reduce": (
        ("tmaDescriptor", "srcMem", "coordinates", "l2CacheHint"), frozenset({"redKind", "mode"}),
    ),
    "cp.async.bulk.tensor.prefetch": (
        ("tmaDescriptor", "coordinates", "im2colOffsets", "l2CacheHint"), frozenset({"mode"}),
    ),
    "prefetch": (("addr",), frozenset({"cacheLevel", "evictPriority", "tensormap", "uniform",
                                        "in_param_space"})),
    "wgmma.mma_async": (
        ("inouts", "descriptorA", "descriptorB"),
        frozenset({"shape", "typeA", "typeB", "typeD", "scaleD", "scaleA", "scaleB", "layoutA",
                   "layoutB", "satfinite"}),
    ),
    "stmatrix": (("ptr", "sources"), frozenset({"layout", "shape", "eltType"})),
    "ldmatrix": (("ptr",), frozenset({"num", "layout", "shape", "eltType"})),
    "mma.sync": (("operandA", "operandB", "operandC"),
                 frozenset({"shape", "b1Op", "intOverflowBehavior", "layoutA", "layoutB", "multiplicandAPtxType",
                            "multiplicandBPtxType"})),
    "griddepcontrol": ((), frozenset({"kind"})),
    "wgmma.fence.aligned": ((), frozenset()),
    "wgmma.commit.group.sync.aligned": ((), frozenset()),
    "wgmma.wait.group.sync.aligned": ((), frozenset({"group"})),
    "setmaxregister": ((), frozenset({"regCount", "action"})),
    "nanosleep": (("duration",), frozenset()),
    "breakpoint": ((), frozenset()),
    "exit": ((), frozenset()),
    # tcgen05 (Blackwell TMEM / UMMA; src/tileorch/dialects/nvvm_tcgen05.py); upstream main spells the
    # CTA group attribute #nvvm.cta_group<cta_N> and the MMA kind property ``kind``
    "tcgen05.alloc": (("addr", "nCols"), frozenset({"group"})),
    "tcgen05.dealloc": (("taddr", "nCols"), frozenset({"group"})),
    "tcgen05.relinquish_alloc_permit": ((), frozenset({"group"})),
    "tcgen05.fence": ((), frozenset({"kind"})),
    "tcgen05.wait": ((), frozenset({"kind"})),
    "tcgen05.commit": (("addr", "multicastMask"), frozenset({"group"})),
    "tcgen05.shift": (("taddr",), frozenset({"group"})),
    "tcgen05.cp": (("taddr", "smem_desc"), frozenset({"shape", "group", "multicast", "srcFormat"})),
    "tcgen05.ld": (("tmemAddr", "offset"), frozenset({"pack", "shape"})),
    "tcgen05.st": (("tmemAddr", "val", "offset"), frozenset({"unpack", "shape"})),
    "tcgen05.mma": (
        ("matrixD", "matrixA", "matrixB", "idesc", "enableInputD", "scaleInputD", "disableOutputLane"),
        frozenset({"kind", "ctaGroup", "collectorOp", "aShift"}),
    ),
}

UPSTREAM_LEGACY: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {
    "mbarrier.init.shared": (("addr", "count", "predicate"), frozenset()),
    "mbarrier.arrive.shared": (("addr",), frozenset()),
    "mbarrier.arrive.expect_tx.shared": (("addr", "txcount", "predicate"), frozenset()),
    "mbarrier.try_wait.parity.shared": (("addr", "phase", "ticks"), frozenset()),
    "mbarrier.test.wait.shared": (("addr", "state"), frozenset()),
}

# Special registers: no operands; upstream's only argument is an optional ``range`` attribute.
UPSTREAM_SREGS = frozenset(
    [f"{r}.{d}" for r in ("tid", "ntid", "ctaid", "nctaid", "clusterid", "nclusterid",
                          "cluster.ctaid", "cluster.nctaid") for d in "xyz"]
    + ["laneid", "warpsize", "warpid", "nwarpid", "smid", "nsmid", "gridid",
       "cluster.ctarank", "cluster.nctarank", "clock", "clock64", "globaltimer", "globaltimer.lo",
       "total.smem.size", "dynamic.smem.size", "aggr.smem.size"]
    + [f"lanemask.{m}" for m in ("eq", "le", "lt", "ge", "gt")]
)
UPSTREAM_I64_SREGS = frozenset({"clock64", "globaltimer"})

SREG_PREFIX = "nvvm.read.ptx.sreg."
NON_SREG_OPS = [op for op in nvvm.OPS if not op.name.startswith(SREG_PREFIX)]


def operand_names(op: type[IRDLOperation]) -> tuple[str, ...]:
    return tuple(name for name, _ in op.get_irdl_definition().operands)


def property_names(op: type[IRDLOperation]) -> frozenset[str]:
    # operandSegmentSizes is upstream's AttrSizedOperandSegments storage, not a declared argument
    return frozenset(name for name in op.get_irdl_definition().properties if name != "operandSegmentSizes")


def upstream_entry(op: type[IRDLOperation]):
    short = op.name.removeprefix("nvvm.")
    return UPSTREAM_MAIN.get(short) or UPSTREAM_LEGACY.get(short)


@pytest.mark.parametrize("op", NON_SREG_OPS, ids=lambda op: op.name)
def test_op_name_is_upstream(op):
    assert upstream_entry(op) is not None, f"{op.name} is not an upstream NVVM op name"


@pytest.mark.parametrize("op", NON_SREG_OPS, ids=lambda op: op.name)
def test_operands_and_properties_follow_upstream(op):
    operands, props = upstream_entry(op)
    assert operand_names(op) == operands
    assert property_names(op) <= props, f"{op.name}: properties {sorted(property_names(op) - props)} are not upstream's"


@pytest.mark.parametrize("reg", sorted(nvvm.SPECIAL_REGISTERS), ids=str)
def test_special_registers_are_upstream(reg):
    op = nvvm.SPECIAL_REGISTERS[reg]
    assert reg in UPSTREAM_SREGS
    assert op.name == SREG_PREFIX + reg
    assert operand_names(op) == ()
    assert op.WIDTH == (64 if reg in UPSTREAM_I64_SREGS else 32)


def test_legacy_spellings_are_not_in_main():
    """The legacy table must not shadow main: a name is in at most one of them."""
    assert not set(UPSTREAM_MAIN) & set(UPSTREAM_LEGACY)
