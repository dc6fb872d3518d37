"""``tileorch check`` on the K-ahead consumer loop (``TILEORCH_ATTN_K_AHEAD=1``: tile j + 1's K prologue
while tile j's first dot runs; the loop waits for tile j's full barrier at its top and, under ``scf.if j + 1
< n``, for tile j + 1's; tile 0's under ``scf.if n > 0`` before the loop).  The extractor reads each wait's
tile from its stage and parity (chained_tiles.py), the checker decides per step whether a wait acquires a
round or waits again on one its warp group holds (``ConsumerWait.again``).

* the extracted consumer program, op by op (structural: the tiles, the guards as trip segments, where
  each op came from);
* the proofs: plain, persistent (1-3 instances a CTA) and causal kernels, the default four stages and
  two / three, trip counts 1 .. 2S + 1;
* seeded bugs the checker finds (a proof would make these tests fail): the ahead wait on tile j + 2 with
  two stages, the loop's release naming tile j + 1, K-ahead on one stage (deadlocks), the ahead wait
  dropped, the release dropped, the top wait after the release; and the extractor's refusal of a wait
  whose stage and parity name different tiles;
* the checker's state counts on protocols without such waits are what they were before ``again``
  existed (asserted on a few).

Needs cuda-tile."""

from __future__ import annotations

import dataclasses
import math

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import cuda.tile as ct  # noqa: E402

from tileorch.analysis.protocol import (Advance, BarSync, ConsumerRead, ConsumerRelease, ConsumerWait,  # noqa: E402
                                        Loop, Trip)


@ct.kernel
def attn_qk_norm_causal(Q, K, V, WQ, WK, O, qk_scale: float, eps: float, BM: ct.Constant[int],
                        D: ct.Constant[int]):
    """Causal q-k norm: key tiles 0 .. qt, the diagonal tile masked (``greater_equal`` of the offsets)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D)).astype(ct.float32)
    q = q * ct.rsqrt(ct.sum(q * q, axis=1, keepdims=True) / D + eps) * ct.load(WQ, index=(0,), shape=(D,))[None, :]
    q = q.astype(Q.dtype)
    wk = ct.load(WK, index=(0,), shape=(D,))[None, :]
    offs_m = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(0, qt + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D)).astype(ct.float32)
        k = (k * ct.rsqrt(ct.sum(k * k, axis=1, keepdims=True) / D + eps) * wk).astype(K.dtype)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BM), dtype=ct.float32)) * qk_scale
        offs_n = j * BM + ct.arange(BM, dtype=ct.int32)
        s = ct.where(ct.greater_equal(offs_m[:, None], offs_n[None, :]), s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


CAUSAL_SPEC = [((2, 256, 64), "float16")] * 3 + [((64,), "float32"), ((64,), "float32"), ((2, 256, 64), "float16"),
                                                 0.18, 1e-6, 64, 64]


def _lowered(name, env, monkeypatch):
    """(the lowered module, its remarks) of ``name`` (a user sweep 6 program, or ``causal``) under ``env``."""
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs6 import PROGRAMS

    for k, v in env.items():
        monkeypatch.setenv(k, v)
    kernel, spec = (attn_qk_norm_causal, CAUSAL_SPEC) if name == "causal" else (PROGRAMS[name].kernel,
                                                                               PROGRAMS[name].spec)
    ctx = make_context()
    remarks: list = []
    kind, lowered = lower_program(load(cutile_bytecode(kernel, spec), name, ctx), ctx, remarks=remarks)
    assert kind == "chained"
    return lowered, remarks


def _extract(name, env, monkeypatch):
    from tileorch.analysis.extract import extract

    lowered, remarks = _lowered(name, {"TILEORCH_ATTN_K_AHEAD": "1", **env}, monkeypatch)
    assert any("on tile j+1 while tile j's first dot runs" in r for r in remarks), remarks
    (proto,) = extract(lowered)
    return proto


def _check(proto):
    from tileorch.testing.check_memo import check_once

    return check_once(proto)


def _flat(ops):
    for op in ops:
        yield op
        if isinstance(op, Loop):
            yield from _flat(op.body)


def _mutate(proto, fn):
    """``proto`` with each consumer's program rewritten by ``fn(body) -> body`` on every loop body and
    the top level."""
    def walk(ops):
        return fn(tuple(dataclasses.replace(op, body=walk(op.body)) if isinstance(op, Loop) else op for op in ops))
    agents = tuple(dataclasses.replace(a, program=walk(a.program)) if a.role == "consumer" else a
                   for a in proto.agents)
    return dataclasses.replace(proto, agents=agents)


def test_k_ahead_consumer_program_read_from_the_ir(monkeypatch):
    """The consumer of the plain q-k norm kernel (one warp group, four stages), op by op: tile 1's state
    put one tile ahead once; tile 0 waited for and its K prologue's barrier (5, every consumer thread)
    when k > 0; iterations 0 .. n - 2: tile j again, tile j + 1 (under the scf.if), the barrier, the
    release of tile j; the last iteration without the ahead wait.  Every wait from the IR's scf.if it
    sits in."""
    proto = _extract("attn_qk_norm", {"TILEORCH_ATTN_PERSISTENT": "0"}, monkeypatch)
    (wg0,) = [a for a in proto.agents if a.role == "consumer"]
    assert [s.name for s in wg0.states] == ["t0", "t1"]
    prog = wg0.program
    assert prog[0] == Advance("t1", 1)
    assert prog[1] == BarSync(3, 128)  # the Q prologue's barrier of warp group 0
    pre, steady, last = prog[2:]
    w = dict(pipe="kv", again=True)
    assert pre == Loop(Trip("k", 0, cap=1), (ConsumerWait(state="t0", **w), ConsumerRead("kv", "t0"),
                                             BarSync(5, 128)))
    assert steady == Loop(Trip("k", 1), (
        ConsumerWait(state="t0", **w), ConsumerRead("kv", "t0"), ConsumerWait(state="t1", **w),
        ConsumerRead("kv", "t1"), BarSync(5, 128), ConsumerRead("kv", "t0"),
        ConsumerRelease("kv", "t0", arrivals=128), Advance("t0"), Advance("t1")))
    assert last == Loop(Trip("k", 0, cap=1), (
        ConsumerWait(state="t0", **w), ConsumerRead("kv", "t0"), ConsumerRead("kv", "t0"),
        ConsumerRelease("kv", "t0", arrivals=128), Advance("t0"), Advance("t1")))
    ahead = steady.body[2].origin
    assert ahead.name == "nvvm.mbarrier.try_wait.parity" and ahead.parent_op().name == "scf.if"
    assert pre.origin.name == "scf.if" and steady.origin.name == "scf.for" and steady.origin is last.origin
    assert ahead.parent_op().parent_op() is steady.origin


@pytest.mark.parametrize("name, env, instances", [
    ("attn_qk_norm", {"TILEORCH_ATTN_PERSISTENT": "0"}, 9),
    ("attn_qk_norm", {"TILEORCH_ATTN_PERSISTENT": "0", "TILEORCH_ATTN_STAGES": "2"}, 5),
    ("attn_qk_norm", {"TILEORCH_ATTN_PERSISTENT": "0", "TILEORCH_ATTN_STAGES": "3"}, 7),
    ("attn_qk_norm_bm128", {"TILEORCH_ATTN_PERSISTENT": "0"}, 9),
    ("attn_qk_norm_bm128", {"TILEORCH_ATTN_PERSISTENT": "1"}, 27),
    ("attn_qk_norm_bm128", {"TILEORCH_ATTN_PERSISTENT": "1", "TILEORCH_ATTN_STAGES": "2"}, 15),
    ("attn_qk_norm_d128", {"TILEORCH_ATTN_PERSISTENT": "1"}, 27),
    ("causal", {"TILEORCH_ATTN_PERSISTENT": "0"}, 9),
    ("causal", {"TILEORCH_ATTN_PERSISTENT": "1"}, 27),
])
def test_k_ahead_pipelines_are_proved(name, env, instances, monkeypatch):
    """Deadlock- and race-free for every trip count 1 .. 2S + 1 (and 1-3 instances a CTA when persistent)."""
    proto = _extract(name, env, monkeypatch)
    result = _check(proto)
    assert result.ok, result.violation
    assert len(result.instances) == instances


def _set_constant(op, index: int, value: int) -> None:
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr

    c = arith.ConstantOp(IntegerAttr(value, op.operands[index].type))
    op.parent_block().insert_op_before(c, op)
    op.operands = [c.result if i == index else x for i, x in enumerate(op.operands)]


def _loop_waits(lowered):
    """(the consumer loop, its top wait, its ahead wait, its release) of a plain K-ahead kernel."""
    loop = next(o for o in lowered.walk() if o.name == "scf.for" and any(x.name == "nvvm.mbarrier.arrive"
                                                                        for x in o.walk()))
    waits = [o for o in loop.walk() if o.name == "nvvm.mbarrier.try_wait.parity"]
    (arrive,) = [o for o in loop.walk() if o.name == "nvvm.mbarrier.arrive"]
    top, ahead = waits
    assert ahead.parent_op().name == "scf.if" and top.parent_op() is loop
    return loop, top, ahead, arrive


def _tile_of(wait):
    """The ``addi(j, 1)`` the ahead wait's stage is computed from."""
    gep = wait.operands[0].owner
    return gep.operands[1].owner.operands[0].owner.operands[0].owner.operands[0].owner


def test_ahead_wait_on_tile_j_plus_2_with_two_stages_deadlocks(monkeypatch):
    """Seeded: the ahead wait (and its guard) on tile j + 2, two stages: tile j + 2 is tile j's stage, which
    the loop holds -> the checker finds the deadlock (on four stages this is only a wrong tile, no hang)."""
    from tileorch.analysis.extract import extract

    lowered, _ = _lowered("attn_qk_norm", {"TILEORCH_ATTN_K_AHEAD": "1", "TILEORCH_ATTN_PERSISTENT": "0",
                                           "TILEORCH_ATTN_STAGES": "2"}, monkeypatch)
    _, _, ahead, _ = _loop_waits(lowered)
    j1 = _tile_of(ahead)
    assert j1.name == "arith.addi"
    _set_constant(j1, 1, 2)
    (proto,) = extract(lowered)
    result = _check(proto)
    assert not result.ok and result.violation.prop == "deadlock", result.violation


def test_a_wait_two_tiles_ahead_on_four_stages_is_read_and_proved(monkeypatch):
    """The same mutation on four stages: the loop's waits on tiles j and j + 2 (the guard j + 2 < n) are read
    as two states and two trip segments (all but the last two iterations with the ahead wait); tile j + 1 is
    then first waited for at its own iteration's top -- the K prologue normalises the wrong tile (the
    emulator's business), but the ring is sound, and the checker proves it."""
    from tileorch.analysis.extract import extract

    lowered, _ = _lowered("attn_qk_norm", {"TILEORCH_ATTN_K_AHEAD": "1", "TILEORCH_ATTN_PERSISTENT": "0"},
                          monkeypatch)
    _, _, ahead, _ = _loop_waits(lowered)
    _set_constant(_tile_of(ahead), 1, 2)
    (proto,) = extract(lowered)
    (wg0,) = [a for a in proto.agents if a.role == "consumer"]
    assert [s.name for s in wg0.states] == ["t0", "t2"] and wg0.program[0] == Advance("t2", 2)
    loops = [op for op in wg0.program if isinstance(op, Loop)]
    assert [op.trip for op in loops] == [Trip("k", 0, cap=1), Trip("k", 2), Trip("k", 0, cap=2)]
    assert [op.state for op in loops[1].body if isinstance(op, ConsumerWait)] == ["t0", "t2"]
    assert [op.state for op in loops[2].body if isinstance(op, ConsumerWait)] == ["t0"]
    result = _check(proto)
    assert result.ok, result.violation


def test_release_of_tile_j_plus_1_is_found(monkeypatch):
    """Seeded: the loop's empty arrive on tile j + 1's stage (tile j never released; tile j + 1 released
    before the next iteration waits on it again, and in the last iteration a tile never waited for)."""
    from xdsl.ir import Operation

    from tileorch.analysis.extract import extract

    lowered, _ = _lowered("attn_qk_norm", {"TILEORCH_ATTN_K_AHEAD": "1", "TILEORCH_ATTN_PERSISTENT": "0"},
                          monkeypatch)
    _, _, ahead, arrive = _loop_waits(lowered)
    j1 = _tile_of(ahead)
    gep = arrive.operands[0].owner
    add = gep.operands[1].owner
    mul = add.operands[0].owner
    rem = mul.operands[0].owner
    new: list[Operation] = []
    for op, operand, value in ((rem, 0, j1.results[0]), (mul, 0, None), (add, 0, None), (gep, 1, None)):
        c = op.clone()
        c.operands = [(value if value is not None else new[-1].results[0]) if i == operand else x
                      for i, x in enumerate(op.operands)]
        arrive.parent_block().insert_op_before(c, arrive)
        new.append(c)
    arrive.operands = [new[-1].results[0], *arrive.operands[1:]]
    (proto,) = extract(lowered)
    result = _check(proto)
    assert not result.ok and result.violation.prop in ("release-before-read", "read-before-commit"), result.violation


def test_k_ahead_on_one_stage_deadlocks(monkeypatch):
    """Seeded: K-ahead with its two-stage floor lifted (``K_AHEAD_MIN_STAGES``) on a one-stage ring: the loop
    waits for tile j + 1 in the stage tile j holds."""
    from tileorch.transforms.tileas import chained_dots

    monkeypatch.setattr(chained_dots, "K_AHEAD_MIN_STAGES", 1)
    proto = _extract("attn_qk_norm", {"TILEORCH_ATTN_PERSISTENT": "0", "TILEORCH_ATTN_STAGES": "1"}, monkeypatch)
    assert proto.pipelines[0].stages == 1
    result = _check(proto)
    assert not result.ok and result.violation.prop == "deadlock", result.violation


def test_ahead_wait_with_tile_js_parity_is_refused(monkeypatch):
    """Seeded: the ahead wait on tile j + 1's stage with tile j's parity (it would pass on the stage's
    previous round, the K prologue racing the TMA): a located refusal naming both tiles."""
    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    lowered, _ = _lowered("attn_qk_norm", {"TILEORCH_ATTN_K_AHEAD": "1", "TILEORCH_ATTN_PERSISTENT": "0"},
                          monkeypatch)
    _, top, ahead, _ = _loop_waits(lowered)
    ahead.operands = [ahead.operands[0], top.operands[1], *ahead.operands[2:]]
    with pytest.raises(LocatedError, match=r"stage of tile j \+ 1 with the parity of tile j\b"):
        extract(lowered)


@pytest.fixture(scope="module")
def plain_proto():
    mp = pytest.MonkeyPatch()
    try:
        yield _extract("attn_qk_norm", {"TILEORCH_ATTN_PERSISTENT": "0"}, mp)
    finally:
        mp.undo()


def _without(pred):
    return lambda body: tuple(op for op in body if not pred(op))


@pytest.mark.parametrize("what, mutation, prop", [
    ("the ahead wait dropped", _without(lambda op: isinstance(op, ConsumerWait) and op.state == "t1"),
     "read-before-commit"),
    ("the release dropped", _without(lambda op: isinstance(op, ConsumerRelease)), "deadlock"),
    ("the top wait moved after the release",
     lambda body: body if not any(isinstance(op, ConsumerRelease) for op in body) else tuple(
         [op for op in body if not (isinstance(op, ConsumerWait) and op.state == "t0")][:-2]
         + [op for op in body if isinstance(op, ConsumerWait) and op.state == "t0"] + list(body[-2:])),
     "release-before-read"),
])
def test_seeded_protocol_bugs_are_found(plain_proto, what, mutation, prop):
    result = _check(_mutate(plain_proto, mutation))
    assert not result.ok and result.violation.prop == prop, (what, result.violation)


@pytest.mark.parametrize("name, env, counts", [
    ("attn_qk_norm", {"TILEORCH_ATTN_PERSISTENT": "0", "TILEORCH_ATTN_K_AHEAD": "0"}, (656, 732)),
    ("attn_qk_norm_bm128", {"TILEORCH_ATTN_PERSISTENT": "1", "TILEORCH_ATTN_K_AHEAD": "0"}, (34387, 51833)),
    ("attn_causal_greater_equal", {"TILEORCH_ATTN_PERSISTENT": "1"}, (3793, 4408)),
])
def test_state_counts_of_protocols_without_again_waits(name, env, counts, monkeypatch):
    """The checker's effort on kernels whose loops wait once an iteration is what it was before
    ``ConsumerWait.again`` (session 32's main: the same states and transitions), with the reductions
    of that time (``machine.CAUSAL_WINDOWS`` off); session 43's causal windows explore no more."""
    from tileorch.analysis import machine
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    lowered, _ = _lowered(name, env, monkeypatch)
    (proto,) = extract(lowered)
    assert not any(getattr(op, "again", False) for a in proto.agents for op in _flat(a.program))
    result = _check(proto)
    assert result.ok and result.states <= counts[0]
    monkeypatch.setattr(machine, "CAUSAL_WINDOWS", False)
    before = check(proto)
    assert before.ok and (before.states, before.transitions) == counts


def test_k_ahead_is_the_default_where_it_applies_and_says_so(monkeypatch):
    """No switch set: the q-k norm kernel takes K ahead with its remark; a kernel without a K prologue (the
    textbook attention) has neither; on a one-stage ring the remark says why the K prologue stays in its
    tile's iteration."""
    from tileorch.testing.user_programs6 import PROGRAMS

    monkeypatch.delenv("TILEORCH_ATTN_K_AHEAD", raising=False)
    ahead = "on tile j+1 while tile j's first dot runs"
    _, remarks = _lowered("attn_qk_norm", {"TILEORCH_ATTN_PERSISTENT": "0"}, monkeypatch)
    assert any(ahead in r and "the default" in r for r in remarks), remarks
    assert any("this K operand" in r and "tile j+1's while tile j's first dot runs" in r for r in remarks), remarks
    assert "attn_causal_greater_equal" in PROGRAMS
    _, remarks = _lowered("attn_causal_greater_equal", {}, monkeypatch)
    assert not any("K prologue" in r for r in remarks), remarks
    _, remarks = _lowered("attn_qk_norm", {"TILEORCH_ATTN_STAGES": "1"}, monkeypatch)
    assert not any(ahead in r for r in remarks), remarks
    assert any("runs in each tile's own iteration" in r and "1 stage(s)" in r for r in remarks), remarks
    assert any("this K operand" in r and "the loop runs without overlap" in r for r in remarks), remarks
