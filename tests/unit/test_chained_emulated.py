"""The chained-dots attention kernel executed on the CPU: its PTX run by
``tileorch.testing.ptx_emulator`` (one CTA per program instance, WGMMA results written at the
``wait_group`` that retires them, any access to an in-flight WGMMA register reported) against a
numpy fp32 reference, on a ragged sequence (77 keys: a partial, masked last tile; rows past the
end zero-filled by TMA), with the plain consumer, the intra-warp-group overlap
(``TILEORCH_ATTN_OVERLAP=1``) and the warp groups' ping-pong (``TILEORCH_ATTN_PINGPONG=1``); the
overlap's P-packing bug, re-created, is seen.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


def _compile(seq, d, tile_m, tile_n, causal, once=True):
    """The textbook attention program compiled for these shapes, once per input in a test run
    unless ``once`` is false (a test that patches a compile step)."""
    from test_chained_dots import _arrays, _compile, _compile_once

    from tileorch.testing.attention_programs import attention_fwd

    return (_compile_once if once else _compile)(attention_fwd,
                                                _arrays(4, (1, seq, d)) + (0.18, seq, tile_m, tile_n, d, causal))


def _lower(seq, d, tile_m, tile_n, causal):
    """The same program's lowering only (``tileorch.testing.compile_memo.lower_once``: the record,
    remarks and path, no PTX), once per input in a test run: for tests of the lowering's decision."""
    from test_chained_dots import _arrays

    from tileorch.launchers import cutile as rc
    from tileorch.testing.attention_programs import attention_fwd
    from tileorch.testing.compile_memo import lower_once

    args = _arrays(4, (1, seq, d)) + (0.18, seq, tile_m, tile_n, d, causal)
    return lower_once(rc.export_bytecode(attention_fwd, rc.describe_arguments(attention_fwd, args)), "<chained test>")


def _emulate(p, seq, d, tile_m, tile_n, causal, seed=0, wait_delay=0, ctas_persistent=1, adjust=None):
    """(output, reference, errors) of every CTA of the program on one head (``wait_delay``: the
    emulator's, a tensor core that lets the producer run before a ``wait_group`` returns;
    ``ctas_persistent``: the CTAs a persistent kernel is launched on; ``adjust(q, k, v)``: changes
    the random inputs in place).  Without ``adjust``, once per input in a test run
    (``emulate_once``: the default kernel that many switch tests compare against is emulated once;
    emulated every time while a test patches the emulator)."""
    from tileorch.testing.emulation_memo import emulate_once

    args = (seq, d, tile_m, tile_n, causal, seed, wait_delay, ctas_persistent)
    if adjust is None:
        return emulate_once("test_chained_emulated._emulate", (p.ptx, p.chained, args),
                            lambda: _emulate_now(p, *args))
    return _emulate_now(p, *args, adjust=adjust)


def _emulate_now(p, seq, d, tile_m, tile_n, causal, seed=0, wait_delay=0, ctas_persistent=1, adjust=None,
                 grid_x=None, heads=1):
    """:func:`_emulate`, emulated here (``grid_x``: the program grid's x, by default ``cdiv(seq, tile_m)``;
    ``heads``: the arrays' and the grid's y extent)."""
    from tileorch.testing.ptx_emulator import Emu, chained_launch, stage_guards

    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((heads, seq, d)).astype(np.float16) for _ in range(3))
    if adjust is not None:
        adjust(q, k, v)
    out = np.full((heads, seq, d), np.nan, dtype=np.float16)
    scale = 1 / math.sqrt(d)
    bases = {"q": 1 << 32, "k": 2 << 32, "v": 3 << 32, "o": 4 << 32}
    params = [0, 0, 0]  # the tensor maps
    for name in "qkvo":  # the cuTile entry's arrays: base, shape, strides
        params += [bases[name], heads, seq, d, seq * d, d, 1]
    params += [int(np.float32(scale / math.log(2)).view(np.uint32)), seq]
    errors = []
    grid = (-(-seq // tile_m) if grid_x is None else grid_x, heads, 1)
    params, ctaids, nctaid = chained_launch(p.chained, grid, params, ctas_persistent)
    for ctaid in ctaids:
        emu = Emu(p.ptx, params, p.chained["smem"], p.chained["threads"], ctaid, {},
                  [(bases["o"], out.view(np.uint8).reshape(-1), "O")], guards=stage_guards(p.chained),
                  nctaid=nctaid)
        emu.wait_delay = wait_delay
        # the host's tensor maps: the record's box rows, contiguous extent and swizzle span
        emu.tmaps = {emu.params[i]: {"array": a, **t} for i, a, t in zip(range(3), (q, k, v), p.chained["tmaps"])}
        emu.run()
        errors += emu.errors
    s = (q.astype(np.float32) @ k.astype(np.float32).transpose(0, 2, 1)) * scale
    if causal:
        s = np.where(np.triu(np.ones((seq, seq), bool), 1), -np.inf, s)
    pm = np.exp(s - s.max(-1, keepdims=True))
    ref = (pm / pm.sum(-1, keepdims=True)) @ v.astype(np.float32)
    return out.astype(np.float32), ref, errors


def emulate_as_base(p, base, cfg, ctas: int = 1) -> None:
    """``p`` (compiled for ``cfg`` with a switch that changes no output bit) on the PTX emulator,
    ``ctas`` CTAs running the program instances (a persistent kernel's launch): no emulator error,
    no unwritten (NaN) output, within tolerance of the fp32 reference, and bit-identical to
    ``base`` (the same program without it)."""
    out, ref, errors = _emulate(p, *cfg, ctas_persistent=ctas)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
    want, _, errors = _emulate(base, *cfg, ctas_persistent=ctas)
    assert not errors, errors[:4]
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("mode", ["plain", "overlap", "pingpong", "overlap+pingpong"])
def test_ragged_attention_emulated(mode, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1" if "overlap" in mode else "0")
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "1" if "pingpong" in mode else "0")
    cfg = (300, 64, 128, 64, False)  # five key tiles: three turns of each warp group in the overlapped loop
    p = _compile(*cfg)
    assert p.chained["pipelined"] == ("overlap" in mode) and p.chained["pingpong"] == ("pingpong" in mode)
    out, ref, errors = _emulate(p, *cfg)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


@pytest.mark.parametrize("mode,causal,ctas", [("overlap", False, 1), ("overlap", True, 2), ("plain", True, 1),
                                              ("plain", False, 2)])
def test_persistent_attention_emulated(mode, causal, ctas, monkeypatch):
    """The persistent kernel (TILEORCH_ATTN_PERSISTENT=1): three program instances (128-row tiles
    of 300 rows) on one or two CTAs, so a CTA runs up to three instances in turn: the K/V ring
    counts on across them, each instance's Q goes to slot it % 2, and the third instance reuses
    slot 0 once the first has released it (three key tiles per instance and a four-stage ring: the
    producer reaches the third instance while the first is still being read, so a Q load that did
    not wait for the slot's release would overwrite it under an in-flight WGMMA); the causal
    programs heaviest first."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1" if "overlap" in mode else "0")
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "1" if "pingpong" in mode else "0")
    cfg = (300, 64, 128, 128, causal)
    p = _compile(*cfg)
    assert p.chained["persistent"] == {"q_slots": 2} and p.chained["stages"] == 4, p.chained
    assert any("persistent kernel" in r for r in p.remarks), p.remarks
    out, ref, errors = _emulate(p, *cfg, ctas_persistent=ctas)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


@pytest.mark.parametrize("next_s,causal,ctas", [("1", False, 1), ("2", False, 1), ("1", True, 2), ("2", True, 2)])
def test_persistent_next_first_dot_emulated(next_s, causal, ctas, monkeypatch):
    """TILEORCH_ATTN_NEXT_S: each instance's epilogue runs while the next instance's first dot is in
    flight (issued before the epilogue from the next Q slot and the ring's next tile; the work
    loop carries S to the next instance's peeled tile).  Three instances on one CTA (two hand-overs,
    the third reusing Q slot 0) or on two; the emulator reports any read of an in-flight WGMMA
    register (the epilogue's, or S's before its wait) and any stage or Q slot rewritten under a
    read."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", next_s)
    cfg = (300, 64, 128, 128, causal)
    p = _compile(*cfg)
    assert p.chained["persistent"] == {"q_slots": 2, "next_s": {"1": "after_last", "2": "back_to_back"}[next_s]}
    assert any("next instance's first dot" in r for r in p.remarks), p.remarks
    out, ref, errors = _emulate(p, *cfg, ctas_persistent=ctas)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


@pytest.mark.parametrize("period,causal", [(2, False), (16, True)])
def test_exp2_on_the_fma_pipe_emulated(period, causal, monkeypatch):
    """TILEORCH_ATTN_EXP2_FMA=K: the exp2 of one column group in K computed by the FMA-pipe
    polynomial (_exp2_fma) instead of ex2.approx; K = 2 (half the softmax's exponentials, the masked
    ragged last tile's -inf scores among them) and K = 16 (one group of 16) against the fp32
    reference at the default tolerance."""
    monkeypatch.setenv("TILEORCH_ATTN_EXP2_FMA", str(period))
    cfg = (300, 64, 128, 128, causal)
    p = _compile(*cfg)
    assert "max.NaN.f32" in p.ptx
    plain = p.ptx.count("ex2.approx")
    monkeypatch.setenv("TILEORCH_ATTN_EXP2_FMA", "0")
    assert _compile(*cfg).ptx.count("ex2.approx") > plain
    out, ref, errors = _emulate(p, *cfg)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


def test_causal_overlap_emulated(monkeypatch):
    """Causal, 64-row tiles (one consumer warp group), three key tiles for the last query tile."""
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    cfg = (150, 64, 64, 64, True)
    p = _compile(*cfg)
    assert p.chained["pipelined"]
    out, ref, errors = _emulate(p, *cfg)
    assert not errors, errors[:4]
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


def test_p_packed_during_the_overlap_is_seen(monkeypatch):
    """P_j packed while P_{j-1} V_{j-1} runs: LLVM puts it in the registers that WGMMA reads."""
    from tileorch.dialects import nvvm
    from tileorch.transforms.tileas import chained_dots

    def early(e, p, dtype):
        wait0 = [o for o in e.block.ops if isinstance(o, nvvm.WgmmaWaitGroupSyncOp)][-1]
        n = len(list(e.block.ops))
        regs = [chained_dots.pack16(e, p[2 * i], p[2 * i + 1], dtype) for i in range(len(p) // 2)]
        for op in list(e.block.ops)[n:]:
            op.detach()
            e.block.insert_op_before(op, wait0)
        return regs

    monkeypatch.setattr(chained_dots, "_pack_after_wait", early)
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    cfg = (200, 64, 128, 64, False)
    p = _compile(*cfg, once=False)
    out, ref, errors = _emulate(p, *cfg)
    assert any("in-flight WGMMA" in e for e in errors), errors[:4]


def _move_before_wait(ptx: str, which: int) -> str:
    """The PTX with the consumer's ``which``-th stage release (``mbarrier.arrive`` on an empty
    barrier, with the ``mov`` of its count) moved above the ``wgmma.wait_group 0`` before it."""
    lines = ptx.split("\n")
    body = next(i for i, x in enumerate(lines) if "setmaxnreg.inc" in x)
    arrives = [i for i in range(body, len(lines)) if lines[i].strip().startswith("mbarrier.arrive.shared.b64")]
    i = arrives[which]
    j = max(k for k in range(body, i) if "wgmma.wait_group.sync.aligned" in lines[k])
    start = i - 1 if lines[i - 1].strip().startswith("mov.b32") else i
    rest = lines[:j] + lines[start:i + 1] + lines[j:start] + lines[i + 1:]
    return "\n".join(rest)


@pytest.mark.parametrize("which,cfg", [(0, (300, 64, 64, 64, False)), (1, (77, 64, 128, 64, False))],
                         ids=["loop", "last-tile"])
def test_release_before_the_covering_wait_is_seen(which, cfg, monkeypatch):
    """The emulator runs WGMMAs asynchronously: they read their shared operands when the
    ``wait_group`` retires them.  A stage released to the producer before that wait (the loop's
    release of tile j-1, or the last tile's after the loop) is reported, and with enough tiles
    (300 keys, 64-wide: five tiles on four stages) the producer's refill of the stage is seen
    overwriting bytes the in-flight P V still reads; the lowering as it is runs clean."""
    import dataclasses

    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    p = _compile(*cfg)
    assert p.chained["pipelined"]
    delay = 400 if which == 0 else 0
    _, _, errors = _emulate(p, *cfg, wait_delay=delay)
    assert not errors, errors[:4]
    bad = dataclasses.replace(p, ptx=_move_before_wait(p.ptx, which))
    assert bad.ptx != p.ptx
    out, ref, errors = _emulate(bad, *cfg, wait_delay=delay)
    assert any("releases shared bytes" in e and "in-flight WGMMA" in e for e in errors), errors[:4]
    if which == 0:
        assert any("a TMA load writes shared bytes" in e for e in errors), errors[:8]


def test_missing_fence_is_seen(monkeypatch):
    """Without ``wgmma.fence`` the register-A WGMMA reads P registers that ``cvt`` wrote: reported
    (:attr:`Emu.fence_errors`); with the fences only a chain's zeroed accumulator is (LLVM places
    its copies after the fence; ptxas folds them into the WGMMA's zero input)."""
    import dataclasses
    import re

    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    cfg = (77, 64, 128, 64, False)
    p = _compile(*cfg)
    emu_errors = _fence_errors(p, cfg)
    a_regs = set(re.findall(r"\}, \{(%r\d+), ", p.ptx))  # first A register of each register-A WGMMA
    named = lambda errs: set().union(*[set(e.split(": ")[-1].split()) for e in errs]) & a_regs  # noqa: E731
    assert a_regs and not named(emu_errors), emu_errors[:4]
    bad = dataclasses.replace(p, ptx="\n".join(x for x in p.ptx.split("\n") if "wgmma.fence" not in x))
    assert named(_fence_errors(bad, cfg))


def _fence_errors(p, cfg) -> list[str]:
    from tileorch.testing import ptx_emulator

    seen = []
    real = ptx_emulator.Emu.run

    def run(self, *a, **k):
        try:
            return real(self, *a, **k)
        finally:
            seen.extend(self.fence_errors)

    mp = pytest.MonkeyPatch()
    mp.setattr(ptx_emulator.Emu, "run", run)
    try:
        _emulate(p, *cfg)
    finally:
        mp.undo()
    return seen


@pytest.mark.parametrize("persistent,overlap,causal,tiles", [(True, True, False, (64, 128)),
                                                             (False, True, True, (64, 64)),
                                                             (True, False, False, (128, 128)),
                                                             (False, False, False, (128, 64))])
def test_packed_epilogue_emulated(persistent, overlap, causal, tiles, monkeypatch):
    """``TILEORCH_ATTN_EPILOGUE=packed``: a whole, aligned output tile is stored as 32-bit column
    pairs (``cvt.rn.f16x2.f32``, no predicates), the ragged last tile of 300 rows element by
    element; both give the reference, and the whole tiles' elements are all written by 4-byte
    stores (counted in the emulator)."""
    from tileorch.testing import ptx_emulator

    monkeypatch.setenv("TILEORCH_ATTN_EPILOGUE", "packed")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1" if persistent else "0")
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1" if overlap else "0")
    tm, tn = tiles
    cfg = (300, 64, tm, tn, causal)
    p = _compile(*cfg)
    assert "st.global.b32" in p.ptx and "st.global.b16" in p.ptx
    widths = []
    real = ptx_emulator.Emu.global_store

    def store(self, a, v, nbytes):
        widths.extend([nbytes] * len(np.atleast_1d(a)))
        return real(self, a, v, nbytes)

    monkeypatch.setattr(ptx_emulator.Emu, "global_store", store)
    out, ref, errors = _emulate(p, *cfg, ctas_persistent=2 if persistent else 1)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
    whole = (300 // tm) * tm * 64  # elements of the whole tiles
    assert widths.count(4) * 2 == whole and widths.count(2) == (300 - whole // 64) * 64, (widths.count(4),
                                                                                        widths.count(2))


@pytest.mark.parametrize("seq,tiles,causal,persistent", [(300, (128, 64), False, True), (77, (64, 128), False, False),
                                                         (300, (64, 64), True, False), (200, (128, 128), False, False)])
def test_peeled_tile_versioned_emulated(seq, tiles, causal, persistent, monkeypatch):
    """``TILEORCH_ATTN_PEELED_MASKS=1``: the overlapped loop's peeled tile 0 runs the copy without
    mask math when its masks hold on the whole tile (300 keys: tile 0 interior; 77 keys with
    128-wide key tiles: tile 0 ragged, the masked copy; causal: the diagonal tile 0 of each query
    tile); the outputs are the reference's and the versioned tile 0 is in the PTX (two more
    copies of the first dot's result extraction are not: the branch is on the scalar test)."""
    monkeypatch.setenv("TILEORCH_ATTN_PEELED_MASKS", "1")
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    monkeypatch.setenv("TILEORCH_ATTN_EXP2_FMA", "0")  # every exp2 on the MUFU: the count below is of ex2
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1" if persistent else "0")
    tm, tn = tiles
    cfg = (seq, 64, tm, tn, causal)
    p = _compile(*cfg)
    assert p.chained["pipelined"] and p.chained["interior_masks"] >= 1
    monkeypatch.setenv("TILEORCH_ATTN_PEELED_MASKS", "0")
    plain = _compile(*cfg)
    # the versioned tile 0 is a second copy of its softmax: one more block of ex2 per tile-0 element
    assert p.ptx.count("ex2.approx") == plain.ptx.count("ex2.approx") + tn // 2 + 2, (p.ptx.count("ex2.approx"),
                                                                                   plain.ptx.count("ex2.approx"))
    out, ref, errors = _emulate(p, *cfg, ctas_persistent=2 if persistent else 1)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)



@pytest.mark.parametrize("seq,tiles,causal,overlap", [(150, (64, 64), True, "0"), (300, (64, 256), False, "1")])
def test_plain_loop_versioned_emulated(seq, tiles, causal, overlap, monkeypatch):
    """``TILEORCH_ATTN_PLAIN_MASKS`` (default on): the plain (not overlapped) consumer loop runs each key tile's
    copy without mask math where its masks hold on the whole tile (causal 64x64 with the overlap off: the
    diagonal tile masked, the others not; 64x256 ragged: too wide for the overlap, tile 0 interior, tile 1
    ragged); the outputs are the reference's (NaN-prefilled) and the loop holds the second copy of the softmax
    (one more block of ex2 per tile), which ``TILEORCH_ATTN_PLAIN_MASKS=0`` takes away."""
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", overlap)
    monkeypatch.setenv("TILEORCH_ATTN_EXP2_FMA", "0")  # every exp2 on the MUFU: the count below is of ex2
    tm, tn = tiles
    cfg = (seq, 64, tm, tn, causal)
    p = _compile(*cfg)
    assert not p.chained["pipelined"] and p.chained["interior_masks"] >= 1
    monkeypatch.setenv("TILEORCH_ATTN_PLAIN_MASKS", "0")
    off = _compile(*cfg)
    assert off.chained["interior_masks"] == 0
    said = [r for r in p.remarks if "plain (not overlapped) consumer loop runs each key tile" in r]
    assert said and not [r for r in off.remarks if "plain (not overlapped) consumer loop" in r], p.remarks
    assert p.ptx.count("ex2.approx") == off.ptx.count("ex2.approx") + tn // 2 + 2, (p.ptx.count("ex2.approx"),
                                                                                 off.ptx.count("ex2.approx"))
    out, ref, errors = _emulate(p, *cfg)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)

def _longest_chain(ptx: str, opcode: str) -> int:
    """The longest chain of ``opcode`` instructions (e.g. ``max.f32``) each reading the previous
    one's result, in the PTX (virtual registers: each written once per block)."""
    import re

    depth: dict[str, int] = {}
    best = 0
    for line in ptx.splitlines():
        parts = line.strip().rstrip(";").split(None, 1)
        if len(parts) != 2 or not parts[0].startswith(opcode):
            continue
        regs = re.findall(r"%[a-z]+\d+", parts[1])
        d = 1 + max([depth.get(r, 0) for r in regs[1:]] or [0])
        depth[regs[0]] = d
        best = max(best, d)
    return best


@pytest.mark.parametrize("cfg,persistent", [((300, 64, 128, 128, False), True), ((150, 64, 64, 64, True), False),
                                            ((77, 64, 128, 64, False), False)])
def test_tree_reductions_emulated(cfg, persistent, monkeypatch):
    """``TILEORCH_ATTN_TREE_REDUCE=1``: the row max and row sum combine the thread's values pairwise
    (the longest chain of ``max.f32`` in the PTX: log2 of the thread's 32 values of a row plus
    the quad's two shuffles, against 31 + 2 in one chain) and the outputs are the reference's."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1" if persistent else "0")
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    tn = cfg[3]
    chained = _longest_chain(_compile(*cfg).ptx, "max.f32")
    monkeypatch.setenv("TILEORCH_ATTN_TREE_REDUCE", "1")
    p = _compile(*cfg)
    tree = _longest_chain(p.ptx, "max.f32")
    per_row = tn // 4  # a thread's values of one row
    assert chained >= per_row and tree <= per_row.bit_length() + 3, (chained, tree)
    out, ref, errors = _emulate(p, *cfg, ctas_persistent=2 if persistent else 1)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
