"""``tileorch check`` on the chained-dots (attention) kernel: the K/V ring's full and empty
mbarriers, the producer warp group's TMA fills and the consumer warp groups' releases are
extracted from the lowered kernel (``tileorch.analysis.extract_chained``) and proved deadlock- and
race-free for every trip count 1 .. 2S + 1; mutations of the kernel's arrive counts, transaction
bytes and the producer's empty wait are caught.  Needs
cuda-tile (the program is compiled from cuTile)."""

from __future__ import annotations

import importlib.util
import os

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


def _lowered(d: int = 64, tile_m: int = 128, tile_n: int = 64):
    from test_chained_dots import _arrays

    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.launchers import cutile as rc
    from tileorch.registry import make_context
    from tileorch.testing.attention_programs import attention_fwd

    args = _arrays(4, (4, 1000, d)) + (0.18, 1000, tile_m, tile_n, d, False)
    ctx = make_context()
    persistent = os.environ.get("TILEORCH_ATTN_PERSISTENT")
    os.environ["TILEORCH_ATTN_PERSISTENT"] = persistent or "0"  # the ring tests: one instance per CTA
    module = load(rc.export_bytecode(attention_fwd, rc.describe_arguments(attention_fwd, args)), "<attn>", ctx)
    try:
        kind, lowered = lower_program(module, ctx)
    finally:
        if persistent is None:
            os.environ.pop("TILEORCH_ATTN_PERSISTENT", None)
    assert kind == "chained"
    return lowered


@pytest.fixture(scope="module")
def lowered():
    return _lowered()


def _set_constant(op, index: int, value: int) -> None:
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr

    c = arith.ConstantOp(IntegerAttr(value, op.operands[index].type))
    op.parent_block().insert_op_before(c, op)
    op.operands = [c.result if i == index else x for i, x in enumerate(op.operands)]


def test_chained_kernel_pipeline_is_proved(lowered):
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    (proto,) = extract(lowered)
    assert proto.pipelines[0].stages == 4 and proto.pipelines[0].empty_count == 256
    assert proto.pipelines[0].full_count == 1
    assert proto.pipelines[0].stage_bytes == 2 * 64 * 64 * 2  # a 64x64 K tile and a 64x64 V tile
    assert [(a.name, a.threads) for a in proto.agents] == [("tma", 1), ("wg0", 128), ("wg1", 128)]
    result = check(proto)
    assert result.ok, result.violation
    assert sorted(v["k"] for v, _ in result.instances) == list(range(1, 10))


def _ring_inits(module, count: int):
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    inits = [o for o in fn.walk() if o.name == "nvvm.mbarrier.init"]
    return [o for o in inits[1:] if o.operands[1].owner.value.value.data == count]  # [0]: the Q tile's barrier


def test_wrong_arrive_count_is_caught():
    """Every full barrier initialised for two arrivals, armed by one: the consumers wait forever."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    module = _lowered()
    full = _ring_inits(module, 1)
    assert len(full) == 4
    for op in full:
        _set_constant(op, 1, 2)
    (proto,) = extract(module)
    result = check(proto)
    assert not result.ok and result.violation.prop == "deadlock", result.violation


def test_wrong_release_count_is_caught(lowered):
    """Empty barriers waiting for the producer warp group's threads too (384 arrivals, 256 come):
    the producer never refills."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    module = lowered.clone()
    empty = _ring_inits(module, 256)
    assert len(empty) == 4
    for op in empty:
        _set_constant(op, 1, 384)
    (proto,) = extract(module)
    assert proto.pipelines[0].empty_count == 384
    result = check(proto)
    assert not result.ok and result.violation.prop == "deadlock", result.violation


def test_refill_without_waiting_for_the_release_is_caught(lowered):
    """The producer skipping its empty wait for one tile too many overwrites a stage still read."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    module = lowered.clone()
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    guard = next(o for o in fn.walk() if o.name == "arith.cmpi" and o.results[0].name_hint == "refill")
    _set_constant(guard, 1, 5)
    (proto,) = extract(module)
    result = check(proto)
    assert not result.ok and result.violation.prop in ("write-before-release", "race"), result.violation


def test_wrong_transaction_bytes_are_caught(lowered):
    """The refill expects more bytes than its copies deliver (the ring's stage size): caught."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    module = lowered.clone()
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    arms = [o for o in fn.walk() if o.name == "nvvm.mbarrier.arrive.expect_tx"]
    _set_constant(arms[-1], 1, 2 * 64 * 64 * 2 + 1024)  # the loop's refill
    (proto,) = extract(module)
    result = check(proto)
    assert not result.ok and result.violation.prop in ("deadlock", "read-before-commit"), result.violation


def test_tileorch_check_cli_on_the_lowered_kernel(lowered, tmp_path, capsys):
    from tileorch.cli.main import main

    path = tmp_path / "attn.mlir"
    path.write_text(str(lowered))
    with pytest.raises(SystemExit) as exit_:
        main(["check", str(path)])
    assert exit_.value.code == 0
    assert "OK: all properties hold" in capsys.readouterr().out


def test_one_stage_ring_is_proved():
    """Head dim 256 with 128x128 tiles runs its K/V ring on one stage: also deadlock- and race-free."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    (proto,) = extract(_lowered(256, 128, 128))
    assert proto.pipelines[0].stages == 1
    result = check(proto)
    assert result.ok, result.violation


def test_head_dim_32_pipeline_is_proved():
    """Head dim 32: 32-element (64-byte swizzled) boxes; the checker sizes each copy by the record's
    box, so the stage's transaction bytes (a 64x32 K tile and a 64x32 V tile) balance."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    (proto,) = extract(_lowered(d=32))
    assert proto.pipelines[0].stage_bytes == 2 * 64 * 32 * 2
    result = check(proto)
    assert result.ok, result.violation


def test_a_string_record_is_refused(lowered):
    """The record is a structured attribute; a string (the JSON text older lowerings wrote) is not
    read: a located error, not a traceback."""
    from xdsl.dialects.builtin import StringAttr

    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    module = lowered.clone()
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    fn.attributes["tileorch.chained_config"] = StringAttr('{"kind": "chained", "stages": 4}')
    with pytest.raises(LocatedError, match="not a chained-dots record"):
        extract(module)


# -- the persistent kernel (TILEORCH_ATTN_PERSISTENT): the Q slots are a second ring ----------------

def _persistent(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    return _lowered(64, 128, 128)


def _q_inits(module):
    """The Q slots' mbarrier.init ops (full then empty), read from the record's shared-memory plan."""
    from tileorch.dialects.record_attr import decode_record
    from tileorch.transforms.tileas.chained_dots import CHAINED_ATTR

    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    record = decode_record(fn.attributes[CHAINED_ATTR])
    assert record["persistent"]["q_slots"] == 2 and set(record["persistent"]) <= {"q_slots", "row_groups", "idle_slices"}
    inits = [o for o in fn.walk() if o.name == "nvvm.mbarrier.init"]
    offset = {o: o.operands[0].owner.operands[1].owner.value.value.data for o in inits}
    full = sorted((o for o in inits if offset[o] < min(offset[x] for x in inits) + 16), key=offset.get)
    empty = sorted(inits, key=offset.get)[-2:]
    return full, empty


def test_persistent_kernel_pipelines_are_proved(monkeypatch):
    """Both rings (K/V and the two Q slots) for 1-3 instances per CTA and every trip count."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    (proto,) = extract(_persistent(monkeypatch))
    kv, q = proto.pipelines
    assert (q.name, q.stages, q.full_count, q.empty_count, q.stage_bytes) == ("q", 2, 1, 256, 128 * 64 * 2)
    assert (kv.stages, kv.stage_bytes) == (4, 2 * 128 * 64 * 2)
    result = check(proto)
    assert result.ok, result.violation
    assert sorted((v["k"], v["m"]) for v, _ in result.instances) == [(k, m) for k in range(1, 10) for m in (1, 2, 3)]


def test_persistent_kernel_with_packed_epilogue_and_versioned_first_tile_is_proved(monkeypatch):
    """TILEORCH_ATTN_EPILOGUE=packed and TILEORCH_ATTN_PEELED_MASKS=1 add branches (the whole-tile
    store test, the peeled tile's mask versions) but no hand-off: both rings are still proved."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    monkeypatch.setenv("TILEORCH_ATTN_EPILOGUE", "packed")
    monkeypatch.setenv("TILEORCH_ATTN_PEELED_MASKS", "1")
    (proto,) = extract(_persistent(monkeypatch))
    kv, q = proto.pipelines
    assert (q.stages, q.empty_count, kv.stages) == (2, 256, 4)
    result = check(proto)
    assert result.ok, result.violation
    assert sorted((v["k"], v["m"]) for v, _ in result.instances) == [(k, m) for k in range(1, 10) for m in (1, 2, 3)]


@pytest.mark.parametrize("next_s", ["0", "1"])
def test_persistent_kernel_with_row_division_is_proved(next_s, monkeypatch):
    """TILEORCH_ATTN_ROW_DIV=1 adds a per-thread branch around the epilogue's stores (the in-range
    row-reciprocal division, else div.rn) but no hand-off: both rings are still proved, with and
    without the next instance's first dot in the tail."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    monkeypatch.setenv("TILEORCH_ATTN_ROW_DIV", "1")
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", next_s)
    module = _persistent(monkeypatch)
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    from tileorch.dialects.record_attr import decode_record

    assert decode_record(fn.attributes["tileorch.chained_config"]).get("row_div") is True, "not applied"
    (proto,) = extract(module)
    kv, q = proto.pipelines
    assert (q.stages, q.empty_count, kv.stages) == (2, 256, 4)
    result = check(proto)
    assert result.ok, result.violation
    assert sorted((v["k"], v["m"]) for v, _ in result.instances) == [(k, m) for k in range(1, 10) for m in (1, 2, 3)]


def test_persistent_kernel_with_early_q_release_is_proved(monkeypatch):
    """TILEORCH_ATTN_EARLY_Q=1: the Q slot released right after the ring loop, before the last
    tile's release (the model keeps the kernel's order); both rings proved."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract
    from tileorch.analysis.protocol import ConsumerRelease, Loop

    monkeypatch.setenv("TILEORCH_ATTN_EARLY_Q", "1")
    (proto,) = extract(_persistent(monkeypatch))
    kv, q = proto.pipelines
    assert (q.stages, q.empty_count, kv.stages) == (2, 256, 4)
    (work,) = proto.agents[1].program
    released = [next(x.pipe for x in op.body if isinstance(x, ConsumerRelease)) for op in work.body
                if isinstance(op, Loop) and any(isinstance(x, ConsumerRelease) for x in op.body)]
    assert released[-2:] == ["q", "kv"], released
    result = check(proto)
    assert result.ok, result.violation
    assert sorted((v["k"], v["m"]) for v, _ in result.instances) == [(k, m) for k in range(1, 10) for m in (1, 2, 3)]


def test_persistent_q_release_count_is_caught(monkeypatch):
    """The Q slots' empty barriers initialised for one warp group (128) while both release: a
    slot's phase completes while the other group may still read Q."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    module = _persistent(monkeypatch)
    _, empty = _q_inits(module)
    for op in empty:
        assert op.operands[1].owner.value.value.data == 256
        _set_constant(op, 1, 128)
    (proto,) = extract(module)
    result = check(proto)
    assert not result.ok, "a Q slot released by half its readers was proved"


def test_persistent_without_q_tail_is_caught(monkeypatch):
    """The producer leaving without waiting for the last release of each Q slot."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    module = _persistent(monkeypatch)
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    loops = [o for o in fn.walk() if o.name == "scf.for"]
    work = next(lp for lp in loops if any(o.name == "nvvm.cp.async.bulk.tensor.shared.cluster.global"
                                          for o in lp.walk()))
    tail = next(lp for lp in loops if lp.operands[0] is work.results[0])
    tail.detach()
    tail.erase()
    (proto,) = extract(module)
    result = check(proto)
    assert not result.ok and result.violation.prop == "drain", result.violation


# -- TILEORCH_ATTN_NEXT_S: each instance's tile 0 taken (its first dot issued) before the previous
# instance's epilogue ------------------------------------------------------------------------------

@pytest.mark.parametrize("next_s", ["1", "2"])
def test_persistent_next_first_dot_pipelines_are_proved(next_s, monkeypatch):
    """The first instance's Q and tile 0 waited for before the work loop; each later instance's
    in the previous one's tail, after (``=1``) or before (``=2``) the release of its last tile:
    both rings proved for 1-3 instances per CTA and every trip count (four K/V stages)."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract
    from tileorch.analysis.protocol import ConsumerRelease, ConsumerWait, Loop

    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", next_s)
    (proto,) = extract(_persistent(monkeypatch))
    kv, q = proto.pipelines
    assert (q.stages, q.empty_count, kv.stages) == (2, 256, 4)
    wg0 = proto.agents[1].program
    # the first instance's Q and tile 0 before the work loop, then the instances with a next, then the last
    assert isinstance(wg0[0], Loop) and isinstance(wg0[0].body[0], ConsumerWait) and wg0[0].body[0].pipe == "q"
    assert isinstance(wg0[1], ConsumerWait) and wg0[1].pipe == "kv"
    ring_loop = next(i for i, op in enumerate(wg0[-2].body) if isinstance(op, Loop) and op.trip.param == "k")
    tail = [op for op in wg0[-2].body[ring_loop + 1:] if getattr(op, "pipe", None) == "kv"]
    order = ["wait" if isinstance(op, ConsumerWait) else "release" for op in tail
             if isinstance(op, (ConsumerWait, ConsumerRelease))]
    assert order == (["release", "wait"] if next_s == "1" else ["wait", "release"]), order
    result = check(proto)
    assert result.ok, result.violation
    assert sorted((v["k"], v["m"]) for v, _ in result.instances) == [(k, m) for k in range(1, 10) for m in (1, 2, 3)]


def test_pipelined_consumer_on_one_stage(monkeypatch):
    """The pipelined consumer waits for tile j before it releases tile j - 1: on a one-stage ring
    the producer can never load tile j.  A kernel with one K/V stage therefore takes the plain loop
    (proved), and with that refusal lifted the checker finds the deadlock (two tiles)."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract
    from tileorch.dialects.record_attr import decode_record
    from tileorch.transforms.tileas import chained_dots

    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    monkeypatch.setattr(chained_dots, "MAX_STAGES", 1)
    for forced in (False, True):
        if forced:
            monkeypatch.setattr(chained_dots, "PIPELINED_STAGES", 1)
        module = _lowered()
        (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
        record = decode_record(fn.attributes[chained_dots.CHAINED_ATTR])
        assert (record["stages"], record["pipelined"]) == (1, forced)
        (proto,) = extract(module)
        result = check(proto)
        if forced:
            assert not result.ok and result.violation.prop == "deadlock", result.violation
        else:
            assert result.ok, result.violation


@pytest.mark.parametrize("next_s", ["1", "2"])
def test_mlp_chain_next_first_dot(next_s, monkeypatch):
    """The same mechanism on the other two-dot program (a GEMM, ReLU, a second GEMM on the result:
    ``tileorch.testing.attention_programs.mlp_chain``): applied (its S of 64-wide hidden tiles and
    128-wide accumulator fit), ptxas without spills or serialized WGMMAs, both rings proved."""
    from test_chained_dots import Dev, _compile

    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.launchers import cutile as rc
    from tileorch.registry import make_context
    from tileorch.testing.attention_programs import mlp_chain

    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", next_s)
    args = (Dev(0x7F0000000000, (40000, 64)), Dev(0x7F0010000000, (64, 512)), Dev(0x7F0020000000, (512, 128)),
            Dev(0x7F0030000000, (40000, 128)), 128, 64, 64, 128)
    p = _compile(mlp_chain, args)
    assert p.chained["persistent"]["next_s"] == {"1": "after_last", "2": "back_to_back"}[next_s], p.remarks
    assert any("ptxas" in r and " 0 spills" in r for r in p.remarks), p.remarks
    assert not any("serialized" in r for r in p.remarks), p.remarks
    ctx = make_context()
    module = load(rc.export_bytecode(mlp_chain, rc.describe_arguments(mlp_chain, args)), "<mlp>", ctx)
    kind, lowered = lower_program(module, ctx)
    (proto,) = extract(lowered)
    result = check(proto)
    assert result.ok, result.violation


# -- TILEORCH_ATTN_KV_AHEAD: each instance's first min(k, S - 1) tiles loaded before its Q --------------

def _ahead_kernel(monkeypatch, d: int, tile_n: int = 128):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "1")
    module = _lowered(d, 128, tile_n)
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    (most,) = [o for o in fn.walk() if o.name == "arith.minui" and o.results[0].name_hint == "kv_ahead"]
    return module, fn, most


def _set_ahead(fn, most, ahead: int) -> None:
    """The kernel's (and its record's) count of tiles ahead of Q set to ``ahead``."""
    from tileorch.dialects.record_attr import decode_record, encode_record
    from tileorch.transforms.tileas.chained_dots import CHAINED_ATTR

    _set_constant(most, 1, ahead)
    record = decode_record(fn.attributes[CHAINED_ATTR])
    record["persistent"]["kv_ahead"] = ahead
    fn.attributes[CHAINED_ATTR] = encode_record(record)


@pytest.mark.parametrize("d,tile_n,stages", [(128, 128, 3), (256, 64, 2)])
def test_persistent_kernel_with_kv_ahead_is_proved(d, tile_n, stages, monkeypatch):
    """The producer's two ring loops (tiles 0 .. min(k, S - 1) before the Q slot's wait and arm, the
    rest after) read as two loops over one ring; both rings proved for 1-3 instances and every k
    (d128 128x128: three stages, two tiles ahead; d256 128x64: two stages, one ahead)."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract
    from tileorch.analysis.protocol import Loop, ProducerAcquire

    module, _, _ = _ahead_kernel(monkeypatch, d, tile_n)
    (proto,) = extract(module)
    kv, q = proto.pipelines
    assert (kv.stages, q.stages) == (stages, 1)
    (work, *_) = proto.agents[0].program
    body = work.body
    assert isinstance(body[0], Loop) and body[0].trip.cap == stages - 1 and isinstance(body[1], ProducerAcquire)
    assert body[1].pipe == "q" and isinstance(body[-1], Loop) and body[-1].trip.lower == stages - 1
    result = check(proto)
    assert result.ok, result.violation
    assert sorted((v["k"], v["m"]) for v, _ in result.instances) == [(k, m) for k in range(1, 2 * stages + 2)
                                                                     for m in (1, 2, 3)]


def test_kv_ahead_past_the_spare_stages_deadlocks(monkeypatch):
    """S + 1 tiles ahead of Q: the last one's stage is released only once the next instance's tile 0
    is read, which needs the Q the producer has not loaded yet: the checker finds the deadlock."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    module, fn, most = _ahead_kernel(monkeypatch, 128)
    _set_ahead(fn, most, 4)
    (proto,) = extract(module)
    result = check(proto)
    assert not result.ok and "deadlock" in str(result.violation).lower(), result.violation


def test_kv_ahead_count_unlike_the_record_is_refused(monkeypatch):
    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    module, _, most = _ahead_kernel(monkeypatch, 128)
    _set_constant(most, 1, 1)  # the record still says 2
    with pytest.raises(LocatedError, match=r"tiles ahead of Q are not 0 \.\. min\(n, 2\)"):
        extract(module)


@pytest.mark.parametrize("idle", ["compute", "pass"])
@pytest.mark.parametrize("tile_n", [128, 64])
def test_row_groups_kernel_pipelines_are_proved(tile_n, idle, monkeypatch):
    """TILEORCH_ATTN_ROW_GROUPS=3 (row_groups.py): three consumer warp groups (384 releases per stage and Q slot),
    192-row Q slots, both rings proved for 1-3 work units per CTA and every trip count."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    monkeypatch.setenv("TILEORCH_ATTN_ROW_GROUPS", "3")
    monkeypatch.setenv("TILEORCH_ATTN_IDLE_SLICES", idle)
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    (proto,) = extract(_lowered(64, 128, tile_n))
    kv, q = proto.pipelines
    assert (q.name, q.stages, q.full_count, q.empty_count, q.stage_bytes) == ("q", 2, 1, 384, 192 * 64 * 2)
    assert (kv.stages, kv.empty_count, kv.stage_bytes) == (4, 384, 2 * tile_n * 64 * 2)
    assert [a.name for a in proto.agents] == ["tma", "wg0", "wg1", "wg2"]
    result = check(proto)
    assert result.ok, result.violation
    assert sorted((v["k"], v["m"]) for v, _ in result.instances) == [(k, m) for k in range(1, 10) for m in (1, 2, 3)]


def test_row_groups_release_count_of_two_groups_is_caught(monkeypatch):
    """The row-groups kernel with its Q slots' empty barriers counting two groups' releases (256 of the 384): the
    third group's release lands in the next phase (the producer may reload a slot it still reads): caught."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    monkeypatch.setenv("TILEORCH_ATTN_ROW_GROUPS", "3")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    module = _lowered(64, 128, 128).clone()
    _, empty = _q_inits(module)
    for op in empty:
        assert op.operands[1].owner.value.value.data == 384
        _set_constant(op, 1, 256)
    (proto,) = extract(module)
    result = check(proto)
    assert not result.ok and result.violation.prop in ("over-arrival", "write-before-release", "race"), result.violation


@pytest.mark.parametrize("mutation,why", [("loop_wait", "does not wait for its tile and release it"),
                                          ("q_release", "is not the Q wait, its release and one loop"),
                                          ("other_stage", "releases another stage than the one it waited for")])
def test_row_groups_idle_pass_by_is_checked(mutation, why, monkeypatch):
    """The idle slice's side of the row-groups kernel (its tiles passed by: a wait and a release each) is checked by
    form, the chain's side proved: a pass-by without its tile wait, without its Q release or releasing another
    stage than it waited for is a located refusal."""
    from xdsl.dialects import arith

    from tileorch.analysis.extract import extract
    from tileorch.analysis.extract_chained import IDLE_SLICE
    from tileorch.diagnostics import LocatedError
    from tileorch.transforms.tileas.row_groups import IDLE_SLICE_ATTR

    assert IDLE_SLICE == IDLE_SLICE_ATTR
    monkeypatch.setenv("TILEORCH_ATTN_IDLE_SLICES", "pass")
    monkeypatch.setenv("TILEORCH_ATTN_ROW_GROUPS", "3")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    module = _lowered(64, 128, 128).clone()
    (idle,) = [o for o in module.walk() if IDLE_SLICE in o.attributes]
    side = idle.regions[1].blocks.first
    loop = next(o for o in side.ops if o.name == "scf.for")
    if mutation == "loop_wait":
        next(o for o in loop.walk() if o.name == "nvvm.mbarrier.try_wait.parity").detach()
    elif mutation == "q_release":
        next(o for o in side.ops if o.name == "nvvm.mbarrier.arrive").detach()
    else:  # the release's stage + 1
        mul = next(o for o in loop.walk() if o.name == "arith.muli" and o.results[0].name_hint == "ieb_off0")
        one = arith.ConstantOp.from_int_and_width(1, 32)
        nxt = arith.AddiOp(mul.operands[0], one.result)
        mul.parent_block().insert_ops_before([one, nxt], mul)
        mul.operands = [nxt.result, mul.operands[1]]
    with pytest.raises(LocatedError, match=why):
        extract(module)


def test_default_row_groups_kernel_pipelines_are_proved(monkeypatch):
    """The default kernel of the d64 128x64 program (TILEORCH_ATTN_ROW_GROUPS unset: auto, session 35) is four
    consumer warp groups: 512 releases per stage and Q slot (4 x 128 threads), 256-row Q slots (256 x 64 x 2 bytes),
    K and V tiles of 64 x 64 a stage; both rings proved for every trip count and 1-3 units per CTA."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    monkeypatch.delenv("TILEORCH_ATTN_ROW_GROUPS", raising=False)
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "uniform")
    (proto,) = extract(_lowered(64, 128, 64))
    kv, q = proto.pipelines
    assert (q.name, q.full_count, q.empty_count, q.stage_bytes) == ("q", 1, 512, 256 * 64 * 2)
    assert (kv.empty_count, kv.stage_bytes) == (512, 2 * 64 * 64 * 2)
    assert [a.name for a in proto.agents] == ["tma", "wg0", "wg1", "wg2", "wg3"]
    result = check(proto)
    assert result.ok, result.violation
    assert {m for (v, _) in result.instances for m in [v["m"]]} == {1, 2, 3}


# -- TILEORCH_ATTN_EARLY_TMA: thread 0 issues the first instance's Q and first min(k, S) tiles before the CTA barrier

def _early_kernel(monkeypatch, d: int, persistent: str = "1", tile_n: int = 128):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    monkeypatch.setenv("TILEORCH_ATTN_EARLY_TMA", "1")
    module = _lowered(d, 128, tile_n)
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    (early,) = [o for o in fn.walk() if "tileorch.early_tma" in o.attributes]
    return module, fn, early


@pytest.mark.parametrize("d,persistent,tile_n", [(128, "1", 128), (64, "1", 128), (64, "0", 128), (64, "1", 64)])
def test_early_tma_kernel_is_proved(d, persistent, tile_n, monkeypatch):
    """The early issue read as the producer's first-round ops of its first instance (the same arms and copies, none
    waits): both rings proved, with the K/V tiles ahead of Q (d128: one Q slot), two Q slots (d64), one CTA per
    instance and row groups (d64 128x64, the default there: four 64-row slices a unit)."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    module, _, _ = _early_kernel(monkeypatch, d, persistent, tile_n)
    (proto,) = extract(module)
    result = check(proto)
    assert result.ok, result.violation


def test_early_tma_bound_unlike_the_ring_is_refused(monkeypatch):
    """Thread 0 issuing min(n, 2) tiles while the producer skips min(n, 3): refused, at the early loop."""
    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    module, _, early = _early_kernel(monkeypatch, 128)
    (most,) = [o for o in early.walk() if o.name == "arith.minui"]
    _set_constant(most, 1, 2)
    with pytest.raises(LocatedError, match=r"early issue's ring loop is not 0 \.\. min\(n, 3\)"):
        extract(module)


def test_early_tma_producer_not_skipping_is_refused(monkeypatch):
    """The producer's first instance loading Q again (its skip's condition made always true): refused."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr, i1

    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    module, fn, _ = _early_kernel(monkeypatch, 64)
    (later,) = [o for o in fn.walk() if o.name == "arith.cmpi" and o.results[0].name_hint == "early_later"]
    q_if = next(u.operation for u in later.results[0].uses if u.operation.name == "scf.if")
    true = arith.ConstantOp(IntegerAttr(1, i1))
    q_if.parent_block().insert_op_before(true, q_if)
    q_if.operands[0] = true.result
    with pytest.raises(LocatedError, match="early Q arm is not the producer's"):
        extract(module)


def test_early_tma_after_the_barrier_is_refused(monkeypatch):
    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    module, fn, early = _early_kernel(monkeypatch, 64)
    entry = fn.regions[0].blocks.first
    bar = next(o for o in entry.ops if o.name == "nvvm.barrier")
    bar.detach()
    entry.insert_op_before(bar, early)
    with pytest.raises(LocatedError, match="not before the entry block's CTA barrier"):
        extract(module)


@pytest.mark.parametrize("persistent", ["0", "1"])
def test_early_tma_count_unlike_the_producers_is_refused(persistent, monkeypatch):
    """Thread 0 issuing min(n + 1, 3) tiles while the producer skips min(n, 3) and loads to n: refused, at the
    early loop (the checker had compared the early loop's shape, not its count: session 44's review)."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr

    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    module, _, early = _early_kernel(monkeypatch, 64, persistent)
    (most,) = [o for o in early.walk() if o.name == "arith.minui"]
    n = most.operands[0]
    one = arith.ConstantOp(IntegerAttr(1, n.type))
    more = arith.AddiOp(n, one.result)
    most.parent_block().insert_ops_before([one, more], most)
    most.operands = [more.result, most.operands[1]]
    with pytest.raises(LocatedError, match="early issue's ring count is not the producer's"):
        extract(module)


@pytest.mark.parametrize("persistent", ["0", "1"])
def test_early_tma_producer_skip_unlike_the_early_count_is_refused(persistent, monkeypatch):
    """The producer skipping min(n + 1, S) tiles after thread 0 issued min(n, S): refused (session 45's review found
    the skip's count unchecked: a consumer would wait for a tile nobody loads, and the model proved it)."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr

    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    module, fn, early = _early_kernel(monkeypatch, 64, persistent)
    target = None
    for lp in (o for o in fn.walk() if o.name == "scf.for" and not early.is_ancestor(o)):
        lb = lp.operands[0].owner
        if getattr(lb, "name", "") == "arith.minui":
            target = lb
        elif getattr(lb, "name", "") == "arith.select" and getattr(lb.operands[2].owner, "name", "") == "arith.minui":
            target = lb.operands[2].owner
        if target is not None:
            break
    assert target is not None
    n = target.operands[0]
    one = arith.ConstantOp(IntegerAttr(1, n.type))
    more = arith.AddiOp(n, one.result)
    target.parent_block().insert_ops_before([one, more], target)
    target.operands = [more.result, target.operands[1]]
    with pytest.raises(LocatedError, match="early issue's ring count is not the producer's"):
        extract(module)
