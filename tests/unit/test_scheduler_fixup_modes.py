"""The device fix-up's reduction-mode choice agrees with the host model ``schedulers/fixup.py``.

The ``fixup`` op is lowered once; the test reads the emitted IR as the device would run it: the
branch on the params record's mode word is evaluated on the record ``pack_device_params`` packs
for a deterministic and a nondeterministic ``StreamKParams``, and the chosen branch's spin-loop
condition becomes a predicate ``(lock, k_tile_start) -> bool``.  Independent reference:
``simulate_fixup`` run on the same params under many interleavings, from whose step log the lock
value every middle piece ("reduce") and final piece ("load_add") saw when its wait passed is
recomputed (the sum of the ``k_tile_count`` of the pieces that arrived on that lock before).
Every state the host model passes through must satisfy the emitted wait, and the emitted wait must
still hold back the states the host model's CUTLASS rule forbids (no partial stored yet; in
deterministic mode, any lock other than ``k_tile_start``)."""

from __future__ import annotations

import struct
from collections import defaultdict

import numpy as np
import pytest
from xdsl.dialects import llvm, scf

from tileorch.diagnostics import parse_module
from tileorch.dialects import llvm_ext
from tileorch.registry import make_context
from tileorch.schedulers import streamk_params
from tileorch.schedulers.device_params import pack_device_params
from tileorch.schedulers.fixup import simulate_fixup
from tileorch.schedulers.streamk_work import schedule_arrays
from tileorch.transforms.pipeline_to_nvvm import ConvertPipelineToNVVM
from tileorch.transforms.pipeline_to_nvvm.scheduler_bodies import WTI_FIELDS

PTYPE = "!cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>"
KERNEL = f"""builtin.module attributes {{cutlass.target = "sm_90a"}} {{
  func.func @fx(%p: {PTYPE}, %acc: f32) -> f32 attributes {{nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}} {{
    %s = cutlass.tile_scheduler.create_streamk_params %p : {PTYPE} -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }}
}}
"""
# split-K into 4 pieces of 2 K tiles over 2 output tiles: two middle pieces per tile, so a
# nondeterministic middle piece may fold in before its predecessor
TILE = (64, 8, 8)
PROBLEM = (64, 16, 64, 1)
START_FIELD = WTI_FIELDS["streamk"].index("k_tile_start")
PREDICATES = {f.to_int(): f.value for f in llvm.ICmpPredicateFlag}
COMPARE = {"eq": int.__eq__, "ne": int.__ne__, "sge": int.__ge__, "sgt": int.__gt__, "sle": int.__le__,
           "slt": int.__lt__}


@pytest.fixture(scope="module")
def kernel():
    ctx = make_context()
    module = parse_module(ctx, KERNEL, "modes.mlir")
    ConvertPipelineToNVVM().apply(ctx, module)
    return next(op for op in module.walk() if op.name == "func.func")


def params(mode: str):
    return streamk_params(PROBLEM, TILE, (1, 1), 132, splits=4, decomposition="split_k", reduction=mode)


def producer(value, name: str):
    op = value.owner
    assert op.name == name, f"expected {name}, found {op.name}"
    return op


def constant(value) -> int:
    return producer(value, "llvm.mlir.constant").value.value.data


def mode_branch(func, record: bytes):
    """The region of the unique ``scf.if`` on a params-record word that ``record`` selects."""
    sites = []
    for op in func.walk():
        if isinstance(op, scf.IfOp) and op.cond.owner.name == "llvm.icmp":
            cmp = op.cond.owner
            load = cmp.lhs.owner
            if load.name == "llvm.load" and load.ptr.owner.name == "llvm.getelementptr" \
                    and load.ptr.owner.ptr == func.body.block.args[0]:
                sites.append((op, cmp, load.ptr.owner.rawConstantIndices.get_values()[0]))
    assert len(sites) == 1, "one branch on a params-record word"
    op, cmp, offset = sites[0]
    word = struct.unpack_from("<i", record, offset)[0]
    taken = COMPARE[PREDICATES[cmp.predicate.value.data]](word, constant(cmp.rhs))
    return op.true_region if taken else op.false_region


def wait_predicate(region):
    """``(lock, start) -> bool``: the condition of the region's first spin loop (one thread's
    acquire load of the lock compared with ``k_tile_start`` or a constant)."""
    loop = next(op for op in region.walk() if isinstance(op, scf.WhileOp))
    cmp = next(op for op in loop.before_region.walk() if op.name == "llvm.icmp")
    poll = producer(cmp.lhs, "llvm.load")
    assert poll.ordering.value.data == llvm_ext.ORDERINGS["acquire"]
    compare = COMPARE[PREDICATES[cmp.predicate.value.data]]
    if cmp.rhs.owner.name == "llvm.extractvalue":
        assert list(cmp.rhs.owner.position.get_values()) == [START_FIELD]
        return lambda lock, start: compare(lock, start)
    bound = constant(cmp.rhs)
    return lambda lock, start: compare(lock, bound)


def partial_access(region) -> tuple[int, int]:
    """(atomic fadds, plain stores) on the workspace in ``region``."""
    ops = list(region.walk())
    fadds = sum(op.name == "llvm.atomicrmw" and op.bin_op.value.data == 11 for op in ops)
    return fadds, sum(op.name == "llvm.store" for op in ops)


def final_piece(func):
    """The ``then`` region of the ``scf.if`` on ``start + count == k_tiles`` (it yields the sum)."""
    for op in func.walk():
        if isinstance(op, scf.IfOp) and op.results and op.cond.owner.name == "llvm.icmp":
            lhs = op.cond.owner.lhs.owner
            if lhs.name == "llvm.add":
                return op.true_region
    raise AssertionError("no final-piece branch")


def host_states(p, seeds=range(24)) -> dict[str, list[tuple[int, int]]]:
    """``action -> [(lock when its wait passed, k_tile_start)]`` over ``simulate_fixup`` runs."""
    sched = schedule_arrays(p)
    item = {(c, it.tile_idx): it for c in range(sched.num_ctas) for it in sched.items(c)}
    rng = np.random.default_rng(0)
    a = rng.integers(-4, 5, (1, PROBLEM[0], PROBLEM[2])).astype(np.float32)
    b = rng.integers(-4, 5, (1, PROBLEM[2], PROBLEM[1])).astype(np.float32)
    out: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for seed in seeds:
        run = simulate_fixup(p, TILE, a, b, seed=seed)
        np.testing.assert_array_equal(run.output[0], a[0] @ b[0])
        lock: dict[int, int] = defaultdict(int)
        for cta, _w, action, tile in run.steps:
            it = item[cta, tile]
            if action in ("reduce", "load_add"):
                out[action].append((lock[tile], it.k_tile_start))
            elif action == "arrive":
                lock[tile] += it.k_tile_count
    return out


@pytest.mark.parametrize("mode", ["deterministic", "nondeterministic"])
def test_middle_piece_wait_admits_exactly_the_host_models_states(kernel, mode):
    p = params(mode)
    wait = wait_predicate(mode_branch(kernel, pack_device_params(p)))
    seen = host_states(p)["reduce"]
    assert seen and all(wait(lock, start) for lock, start in seen)
    starts = {start for _lock, start in seen}
    # CUTLASS (cutlass-semantics 5.5): nothing may be folded in before the first piece stored
    assert not any(wait(0, start) for start in starts)
    if mode == "deterministic":
        assert all(lock == start for lock, start in seen)
        assert not any(wait(lock, start) for start in starts for lock in range(1, 8) if lock != start)
    else:
        # the host model lets a middle piece fold in before its predecessor: lock < k_tile_start
        assert any(lock < start for lock, start in seen)


@pytest.mark.parametrize("mode", ["deterministic", "nondeterministic"])
def test_middle_piece_accumulates_atomically_only_when_nondeterministic(kernel, mode):
    fadds, stores = partial_access(mode_branch(kernel, pack_device_params(params(mode))))
    # an out-of-order fold-in must be atomic: two pieces may add to the same element at once
    assert (fadds, stores) == ((1, 0) if mode == "nondeterministic" else (0, 1))


def test_modes_take_different_branches(kernel):
    det, nondet = (mode_branch(kernel, pack_device_params(params(m))) for m in ("deterministic", "nondeterministic"))
    assert det is not nondet


@pytest.mark.parametrize("mode", ["deterministic", "nondeterministic"])
def test_final_piece_waits_for_every_earlier_k_tile_in_both_modes(kernel, mode):
    wait = wait_predicate(final_piece(kernel))
    seen = host_states(params(mode))["load_add"]
    assert seen and all(lock == start and wait(lock, start) for lock, start in seen)
    assert not any(wait(lock, start) for _l, start in seen for lock in range(8) if lock != start)
