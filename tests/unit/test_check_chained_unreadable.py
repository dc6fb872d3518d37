"""``tileorch check`` on chained-dots kernels it cannot read: each of the extractor's refusals
(``tileorch.analysis.extract_chained``) is a located error at the op it could not read, never a
proof of a kernel it did not model.  Each test mutates one copy of the lowered attention kernel
(tests/unit/test_check_chained.py) so that exactly one thing the extractor reads is no longer of
the form it reads, and checks the message and the op it names.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

WAIT = "nvvm.mbarrier.try_wait.parity"
EXPECT_TX = "nvvm.mbarrier.arrive.expect_tx"
INIT = "nvvm.mbarrier.init"
COPY = "nvvm.cp.async.bulk.tensor.shared.cluster.global"


@pytest.fixture(scope="module")
def pristine():
    from test_check_chained import _lowered

    return _lowered()


def _copy(module):
    """A fresh copy of a lowered module and its one chained kernel."""
    copy = module.clone()
    (fn,) = [o for o in copy.body.block.ops if o.name == "func.func"]
    return copy, fn


def _enclosing_loop(op):
    """The innermost ``scf.for`` around ``op``."""
    loop = op.parent_op()
    while loop.name != "scf.for":
        loop = loop.parent_op()
    return loop


@pytest.fixture
def kernel(pristine):
    return _copy(pristine)


def _refusal(module) -> tuple[str, object]:
    """The extractor's located error on ``module``: (message, the op it names)."""
    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    with pytest.raises(LocatedError) as info:
        extract(module)
    return info.value.message, info.value.op


def _replace_operand(op, index: int, value) -> None:
    op.operands = [value if i == index else x for i, x in enumerate(op.operands)]


def _constant_before(op, value: int, type_):
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr

    c = arith.ConstantOp(IntegerAttr(value, type_))
    op.parent_block().insert_op_before(c, op)
    return c.result


def _ring_loop_op(fn, name: str, wait_site: str | None = None):
    """The op ``name`` inside an ``scf.for`` of ``fn`` (the ring's, not the Q tile's) whose wait site,
    if given, contains ``wait_site``."""
    from tileorch.analysis.extract_chained import _in_loop

    ops = [o for o in fn.walk() if o.name == name and _in_loop(o)
           and (wait_site is None or wait_site in str(o.attributes.get("tileorch.wait_site", "")))]
    assert ops, name
    return ops[0]


def test_the_pristine_kernel_is_read(pristine):
    """The mutations below start from a kernel the extractor reads (so each refusal is the mutation's)."""
    from tileorch.analysis.extract import extract

    (proto,) = extract(pristine)
    assert proto.pipelines[0].stages == 4


def test_a_transaction_count_that_is_not_a_constant(kernel):
    from xdsl.dialects import arith

    module, fn = kernel
    arm = _ring_loop_op(fn, EXPECT_TX)
    tx = arm.operands[1]
    total = arith.AddiOp(tx, _constant_before(arm, 0, tx.type))
    arm.parent_block().insert_op_before(total, arm)
    _replace_operand(arm, 1, total.result)
    message, at = _refusal(module)
    assert "expect_tx with a transaction count that is not a constant" in message
    assert at is arm


def test_a_tma_copy_whose_tensor_map_is_not_a_kernel_parameter(kernel):
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import i64

    module, fn = kernel
    copy = _ring_loop_op(fn, COPY)
    index = next(i for i, x in enumerate(copy.operands) if x.type == llvm.LLVMPointerType())  # the tensor map
    alias = llvm.IntToPtrOp(_constant_before(copy, 0, i64))
    copy.parent_block().insert_op_before(alias, copy)
    _replace_operand(copy, index, alias.results[0])
    message, at = _refusal(module)
    assert "a TMA copy whose tensor map is not one of the kernel's first parameters" in message
    assert at is copy


def test_a_stage_whose_barrier_is_never_initialised(kernel):
    module, fn = kernel
    inits = [o for o in fn.walk() if o.name == INIT]
    victim = inits[-1]  # the last stage's empty barrier (inits[0] is the Q tile's)
    victim.detach()
    victim.erase()
    message, at = _refusal(module)
    assert "barriers of stages [3] are never initialised" in message
    assert at is fn


def test_ring_barriers_with_two_arrival_counts(kernel):
    module, fn = kernel
    inits = [o for o in fn.walk() if o.name == INIT]
    empty_last = inits[-1]
    _replace_operand(empty_last, 1, _constant_before(empty_last, 128, empty_last.operands[1].type))
    message, at = _refusal(module)
    assert "barriers have arrival counts ['128', '256'] (one constant count expected)" in message
    assert at.name == INIT


def test_a_kernel_without_a_producer_warp_group(kernel):
    module, fn = kernel
    (decrease,) = [o for o in fn.walk() if o.name == "nvvm.setmaxregister" and "decrease" in str(o.properties)]
    decrease.detach()
    decrease.erase()
    message, at = _refusal(module)
    assert "no producer warp group (scf.if on tid >= C with setmaxregister decrease)" in message
    assert at is fn


def test_consumer_threads_that_are_not_whole_warp_groups(kernel):
    module, fn = kernel
    (decrease,) = [o for o in fn.walk() if o.name == "nvvm.setmaxregister" and "decrease" in str(o.properties)]
    guard = decrease.parent_op().operands[0].owner  # arith.cmpi uge %tid, 256
    _replace_operand(guard, 1, _constant_before(guard, 200, guard.operands[1].type))
    message, at = _refusal(module)
    assert "200 consumer threads is not a whole number of warp groups" in message
    assert at is fn


def test_an_empty_wait_guarded_by_something_else_than_the_iteration(kernel):
    module, fn = kernel
    wait = _ring_loop_op(fn, WAIT, "empty barrier (producer)")
    guard = wait.parent_op()
    cond = guard.operands[0].owner  # arith.cmpi sge %iv, L
    _replace_operand(cond, 0, _constant_before(cond, 5, cond.operands[0].type))
    message, at = _refusal(module)
    assert "the producer's empty wait is guarded by other than `iv >= L`" in message
    assert at is guard


def test_a_producer_tail_that_does_not_start_where_the_ring_loop_ends(kernel):
    module, fn = kernel
    wait = _ring_loop_op(fn, WAIT, "(producer tail)")
    tail = _enclosing_loop(wait)
    _replace_operand(tail, 0, _constant_before(tail, 0, tail.operands[0].type))
    message, at = _refusal(module)
    assert "the producer's tail is not one loop from n to n + T" in message
    assert at is tail


def test_a_pipelined_consumer_loop_that_starts_at_tile_zero(kernel):
    module, fn = kernel
    loop = _enclosing_loop(_ring_loop_op(fn, WAIT, "full barrier (consumer)"))
    _replace_operand(loop, 0, _constant_before(loop, 0, loop.operands[0].type))
    message, at = _refusal(module)
    assert "the pipelined consumer loop must start at tile 1" in message
    assert at is loop


def test_two_ring_bases_on_the_full_side(kernel):
    """The consumer's full wait addresses the empty barriers' base: the full side has two bases."""
    module, fn = kernel
    full = _ring_loop_op(fn, WAIT, "full barrier (consumer)")
    empty = _ring_loop_op(fn, WAIT, "empty barrier (producer)")
    address = empty.operands[0].owner.clone()  # getelementptr %smem[stage * 8 + empty base]
    index = address.operands[1].owner.clone()
    full.parent_block().insert_op_before(index, full)
    full.parent_block().insert_op_before(address, full)
    address.operands = [address.operands[0], index.results[0], *address.operands[2:]]
    _replace_operand(full, 0, address.results[0])
    message, _ = _refusal(module)
    assert "expected one ring barrier address `stage * 8 + base`" in message


@pytest.fixture(scope="module")
def pingpong_pristine():
    """The kernel with the consumer warp groups' named-barrier ping-pong (``TILEORCH_ATTN_PINGPONG=1``)."""
    from test_check_chained import _lowered

    with pytest.MonkeyPatch.context() as env:
        env.setenv("TILEORCH_ATTN_PINGPONG", "1")
        return _lowered()


@pytest.fixture
def pingpong(pingpong_pristine):
    return _copy(pingpong_pristine)


def _named(fn, name: str):
    """The named barriers ``name`` (``nvvm.barrier`` with an id and a count, ``nvvm.barrier.arrive``)
    inside the consumer's ring loop."""
    from tileorch.analysis.extract_chained import _in_loop

    return [o for o in fn.walk() if o.name == name and len(o.operands) >= 2 and _in_loop(o)]


def test_the_pingpong_kernel_is_read(pingpong_pristine):
    from tileorch.analysis.extract import extract

    (proto,) = extract(pingpong_pristine)
    assert [a.name for a in proto.agents] == ["tma", "wg0", "wg1"]


def test_a_named_barrier_with_another_thread_count(pingpong):
    module, fn = pingpong
    (sync,) = _named(fn, "nvvm.barrier")
    _replace_operand(sync, 1, _constant_before(sync, 96, sync.operands[1].type))
    message, at = _refusal(module)
    assert "a consumer named barrier with thread count 96 (the consumer warp groups' threads expected)" in message
    assert at is sync


def test_a_named_barrier_id_read_from_an_unknown_value(pingpong):
    """The id is the loop's induction variable: not a function of the warp group and the trip count."""
    module, fn = pingpong
    (sync,) = _named(fn, "nvvm.barrier")
    loop = _enclosing_loop(sync)
    _replace_operand(sync, 0, loop.regions[0].blocks.first.args[0])
    message, at = _refusal(module)
    assert "a named barrier's id or guard is not a function of the warp group (tid / 128) and the trip count" \
        in message
    assert at is sync


def test_the_loop_sync_before_the_full_wait(pingpong):
    """The sync moved to the top of the consumer loop's body, before the stage's full wait (the
    extractor reads ops, not dominance: its id and count may now be defined after it)."""
    module, fn = pingpong
    (sync,) = _named(fn, "nvvm.barrier")
    block = sync.parent_block()
    sync.detach()
    block.insert_op_before(sync, block.first_op)
    message, at = _refusal(module)
    assert "the consumer loop's named barriers: one sync after the full wait, then one arrive before the release" \
        in message
    assert at is sync
