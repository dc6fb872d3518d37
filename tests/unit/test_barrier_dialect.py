"""Barrier families (named_barrier, generic_barrier, seq_bar) and block_striped: derived
quantities (arrive counts, named-barrier claims, stripe layout) and memory effects.

Expected values come from cutlass-semantics.md: NamedBarrier thread counts (§2.4),
GenericBarrier sync policies (§2.5), BlockStripedReduce layout ``ptr[T*i + t]`` (§2.6),
OrderedSequenceBarrier<D, L> storage of D*L barriers (§2.7).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.traits import MemoryEffectKind, get_effects

from tileorch.diagnostics import parse_module, verify_located
from tileorch.dialects.cutlass.block_striped import BlockStripedLoadOp, BlockStripedReduceOp
from tileorch.dialects.cutlass.generic_barrier import GenericBarrierOp
from tileorch.dialects.cutlass.named_barrier import NamedBarrierOp
from tileorch.dialects.cutlass.seq_bar import SeqBarInitOp
from tileorch.registry import make_context


def parse(text: str):
    module = parse_module(make_context(), text, "test.mlir")
    return module, verify_located(module)


def ops_of(module, cls):
    return [op for op in module.walk() if isinstance(op, cls)]


@pytest.mark.parametrize(
    "executor, expected",
    [
        ("warp mask(1)", 32),  # one warp
        ("warp mask(15)", 128),  # warps 0..3
        ("warpgroup mask(6)", 256),  # warp groups 1 and 2 (pingpong math WGs)
        ("cta mask(1) threads(384)", 384),  # whole CTA
    ],
)
def test_named_barrier_count_from_executor(executor, expected):
    module, errors = parse(
        f"func.func @f() {{\ncutlass.async.exec {executor} {{\n cutlass.named_barrier.arrive_and_wait barrier_id = 8\n}}\n"
        " func.return\n}"
    )
    assert errors == []
    (op,) = ops_of(module, NamedBarrierOp)
    assert op.arrive_count() == expected
    assert op.static_barrier_id() == 8


def test_explicit_count_wins_over_executor():
    module, errors = parse(
        "func.func @f() {\ncutlass.async.exec warpgroup mask(1) {\n"
        " cutlass.named_barrier.arrive barrier_id = 8 num_threads = 256\n}\n func.return\n}"
    )
    assert errors == []
    assert ops_of(module, NamedBarrierOp)[0].arrive_count() == 256


def test_constant_dynamic_id_is_static():
    module, errors = parse(
        "func.func @f() {\n %id = arith.constant 12 : i32\n"
        " cutlass.named_barrier.arrive %id num_threads = 64\n func.return\n}"
    )
    assert errors == []
    assert ops_of(module, NamedBarrierOp)[0].static_barrier_id() == 12


@pytest.mark.parametrize(
    "sync, expected",
    [("syncwarp", 32), ("syncthreads", 384), ("named_barrier barrier_id = 4", 384)],
)
def test_generic_barrier_count_follows_sync_policy(sync, expected):
    module, errors = parse(
        "func.func @f(%lock: !llvm.ptr<1>, %i: i32) {\n"
        " cutlass.async.exec cta mask(1) threads(384) {\n"
        f"  cutlass.generic_barrier.wait_eq %lock[%i] sync = {sync} : !llvm.ptr<1>\n"
        " }\n func.return\n}"
    )
    assert errors == []
    assert ops_of(module, GenericBarrierOp)[0].arrive_count() == expected


@pytest.mark.parametrize(
    "options, claimed",
    [
        ("", 0),  # mbarrier-based, as CUTLASS: no named barriers
        (" barrier(named_barrier)", 2 * 3),  # one named barrier per (stage, group)
        (" barrier(named_barrier) barrier_id_base(8)", 6),
    ],
)
def test_seq_bar_init_named_barrier_claim(options, claimed):
    module, errors = parse(
        "func.func @f() {\n"
        " %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 3>\n"
        f" %r = cutlass.seq_bar.init %sb group_size(128){options}\n func.return\n}}"
    )
    assert errors == []
    (init,) = ops_of(module, SeqBarInitOp)
    assert init.num_named_barriers() == claimed
    assert (init.barrier_id_base is not None) == ("barrier_id_base" in options)


def test_barrier_ops_have_write_effects():
    module, errors = parse(
        "func.func @f(%lock: !llvm.ptr<1>, %i: i32, %g: i32, %tile: memref<256xf32>, %v: vector<2xf32>) {\n"
        " cutlass.named_barrier.arrive barrier_id = 1 num_threads = 128\n"
        " cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 128\n"
        " cutlass.generic_barrier.arrive_increment %lock[%i] num_threads = 128 : !llvm.ptr<1>\n"
        " cutlass.generic_barrier.wait_eq %lock[%i] num_threads = 128 : !llvm.ptr<1>\n"
        " cutlass.generic_barrier.wait_less_than %lock[%i], %g num_threads = 128 : !llvm.ptr<1>\n"
        " %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>\n"
        " %r = cutlass.seq_bar.init %sb group_size(128)\n"
        " %s = cutlass.seq_bar.state.create %r group(%g)\n"
        " cutlass.seq_bar.wait %r, %s group(%g)\n"
        " %s1 = cutlass.seq_bar.arrive %r, %s group(%g)\n"
        " cutlass.block_striped.store %v, %tile, %i n_threads_in_block = 128 : vector<2xf32>, memref<256xf32>\n"
        " cutlass.block_striped.reduce max %v, %tile, %i n_threads_in_block = 128 : vector<2xf32>, memref<256xf32>\n"
        " func.return\n}"
    )
    assert errors == []
    cutlass_ops = [op for op in module.walk() if op.name.startswith("cutlass.")]
    assert len(cutlass_ops) == 12
    for op in cutlass_ops:
        kinds = {e.kind for e in get_effects(op)}
        if op.name == "cutlass.seq_bar.state.create":
            assert kinds == set(), op.name  # a pure value: the start cursor
        else:
            assert MemoryEffectKind.WRITE in kinds, op.name


def _load(threads: int, length: int, width: int, shape: str) -> tuple[object, list[str]]:
    module, errors = parse(
        f"func.func @f(%tile: memref<{shape}xf32>, %t: i32) {{\n"
        f" %a = cutlass.block_striped.load %tile, %t n_threads_in_block = {threads} "
        f"access_width = {width} : memref<{shape}xf32> -> vector<{length}xf32>\n func.return\n}}"
    )
    return module, errors


@settings(max_examples=25, deadline=None)
@given(
    threads=st.sampled_from([32, 64, 96, 128, 256, 384]),
    width=st.sampled_from([1, 2, 4]),
    stripes=st.integers(1, 4),
    rank2=st.booleans(),
)
def test_block_striped_layout_is_a_bijection_onto_the_tile(threads, width, stripes, rank2):
    length = stripes * width
    shape = f"{stripes}x{threads * width}" if rank2 else f"{threads * length}"
    module, errors = _load(threads, length, width, shape)
    assert errors == []
    (op,) = ops_of(module, BlockStripedLoadOp)
    assert op.num_stripes() == stripes
    indices = [op.tile_index(t, k) for t in range(threads) for k in range(length)]
    assert sorted(indices) == list(range(threads * length))
    # a thread's A consecutive elements form one contiguous access
    for t in (0, threads - 1):
        for s in range(stripes):
            run = [op.tile_index(t, s * width + j) for j in range(width)]
            assert run == list(range(run[0], run[0] + width))
    # a tile one element short is rejected
    _, bad = _load(threads, length, width, f"{threads * length - 1}")
    assert len(bad) == 1 and "tile shape does not match" in bad[0]


def test_block_striped_reduce_matches_cutlass_layout():
    # BlockStripedReduce<T=128, Array<float, 8>>: element i of thread t is ptr[T*i + t].
    module, errors = parse(
        "func.func @f(%tile: memref<1024xf32>, %t: i32, %v: vector<8xf32>) {\n"
        " cutlass.block_striped.reduce add %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<1024xf32>\n"
        " func.return\n}"
    )
    assert errors == []
    (op,) = ops_of(module, BlockStripedReduceOp)
    for t, i in [(0, 0), (5, 0), (0, 1), (127, 7), (3, 4)]:
        assert op.tile_index(t, i) == 128 * i + t
