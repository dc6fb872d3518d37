"""Session 32's attention-performance switches of the chained tier, structurally (the lowered PTX and the remarks;
no GPU); the emulated outputs under each are in test_attnzoo32_emulated.py (HF mask, ALiBi, q-k norm).

* ``TILEORCH_ATTN_SOFTMAX_EXP=ex2`` (``loop_softmax_exp.py``): the consumer loop's natural ``exp`` of an argument
  at most 0 (a value minus a max including it) as ``ex2.approx.ftz(x log2 e)``; any other ``exp`` keeps the
  spec's full form;
* ``TILEORCH_ATTN_ROW_PREFETCH=1`` (``loop_row_prefetch.py``): the per-key-tile row loads before the wait for S;
* ``TILEORCH_ATTN_K_AHEAD=1``: the K prologue (q-k norm) of tile j+1 while tile j's first dot runs.
Needs cuda-tile."""

from __future__ import annotations

import math
import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import cuda.tile as ct  # noqa: E402

from tileorch.testing.attnzoo32_programs import PROGRAMS, _kpos, _state  # noqa: E402

ZERO = ct.PaddingMode.ZERO
C = ct.Constant
FULL_EXP = "fma.rn.sat.f32"  # Emitter.exp_full's clamped range reduction: one per full-precision exp


@ct.kernel
def _shifted_exp(Q, K, V, O, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """An online softmax in natural exp whose P is ``exp(s - m_new - 0.25)`` (an argument not of the form
    'value minus a max including it': keeps the full form); its ``alpha = exp(m_old - m_new)`` qualifies."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new - 0.25)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))



@ct.kernel
def _scale_times_scores_exp(Q, K, V, O, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The scale folded into exp's argument, but P's factor a tile (``s * 0 + sm_scale``: not uniform by its
    form): P keeps the full form; ``alpha = exp((m_old - m_new) * sm_scale)`` (a splatted scalar) is taken."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp((s - m_new) * (s * 0.0 + sm_scale))
        alpha = ct.exp((m_i - m_new) * sm_scale)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))

_F16 = "float16"
_SPEC = [((2, 128, 64), _F16), ((2, 150, 64), _F16), ((2, 150, 64), _F16), ((2, 128, 64), _F16), 0.125, 64, 64,
         64]  # the zoo's spec form (attnzoo32_programs._add): (shape, dtype) arrays, scalars, constants


def _loop_ptx(ptx: str) -> str:
    """The PTX between the label of the loop holding the wgmma chains and its backward branch."""
    lines = ptx.splitlines()
    labels = {ln.strip()[:-1]: i for i, ln in enumerate(lines) if re.match(r"^\$L__BB\d+_\d+:", ln.strip())}
    best = None
    for i, ln in enumerate(lines):
        m = re.search(r"bra(?:\.uni)?\s+(\$L__BB\d+_\d+);", ln)
        if m and labels.get(m.group(1), i + 1) <= i:
            body = lines[labels[m.group(1)]:i + 1]
            if sum("wgmma.mma_async" in x for x in body) >= 2 and (best is None or len(body) < len(best)):
                best = body
    assert best is not None
    return "\n".join(best)


def _compile(kernel, spec, name, monkeypatch, mode):
    from tileorch.testing.gemm_emulation import compile_cutile

    monkeypatch.setenv("TILEORCH_ATTN_SOFTMAX_EXP", mode)
    prog = compile_cutile(kernel, spec, name)
    assert prog.kind == "chained", prog.remarks
    return prog


def _remark(prog):
    return [r for r in prog.remarks if "online-softmax exp(s)" in r]


def test_hf_mask_loop_takes_ex2_under_the_switch(monkeypatch):
    """The HF-mask program's two loop exps (P and alpha): full form by default (its clamp in the loop, no
    remark), ex2.approx alone under the switch, with a remark counting 2."""
    p = PROGRAMS["z32_hf_additive_mask_f16"]
    full = _compile(p.kernel, p.spec, "z32_hf_additive_mask_f16", monkeypatch, "full")
    assert FULL_EXP in _loop_ptx(full.ptx) and not _remark(full)
    fast = _compile(p.kernel, p.spec, "z32_hf_additive_mask_f16", monkeypatch, "ex2")
    loop = _loop_ptx(fast.ptx)
    assert FULL_EXP not in loop and "ex2.approx.ftz.f32" in loop
    assert [r for r in _remark(fast) if r.startswith("remark: 2 online-softmax")], fast.remarks


def test_exp_of_another_argument_keeps_its_full_form(monkeypatch):
    """``exp(s - m_new - 0.25)`` keeps the full form (its clamp stays in the loop); ``exp(m_old - m_new)`` is
    taken: the remark counts 1."""
    prog = _compile(_shifted_exp, _SPEC, "shifted_exp", monkeypatch, "ex2")
    assert FULL_EXP in _loop_ptx(prog.ptx)
    assert [r for r in _remark(prog) if r.startswith("remark: 1 online-softmax")], prog.remarks


def test_scale_folded_into_exp_takes_ex2(monkeypatch):
    """``exp((s - m_new) * sm_scale)`` and ``exp((m_old - m_new) * sm_scale)`` (session 36's s36_scale_in_exp: a
    runtime scale splatted over the tile) take ``ex2.approx.ftz`` of the difference times ``sm_scale log2 e``
    (``TILEORCH_ATTN_SOFTMAX_EXP_SCALED``, default on): no full-form clamp in the loop, the remark counts 2;
    ``TILEORCH_ATTN_SOFTMAX_EXP_SCALED=0`` keeps both full."""
    from tileorch.testing.attnsweep36_programs import PROGRAMS as S36

    p = S36["s36_scale_in_exp"]
    fast = _compile(p.kernel, p.spec, "s36_scale_in_exp", monkeypatch, "ex2")
    loop = _loop_ptx(fast.ptx)
    assert FULL_EXP not in loop and loop.count("ex2.approx.ftz.f32") == 64 // 2 + 2, loop.count("ex2.approx")
    assert [r for r in _remark(fast) if r.startswith("remark: 2 online-softmax")], fast.remarks
    monkeypatch.setenv("TILEORCH_ATTN_SOFTMAX_EXP_SCALED", "0")
    full = _compile(p.kernel, p.spec, "s36_scale_in_exp", monkeypatch, "ex2")
    assert _loop_ptx(full.ptx).count(FULL_EXP) == 64 // 2 + 2 and not _remark(full)


def test_scale_by_a_tile_keeps_the_full_form(monkeypatch):
    """A factor that is a tile (not a splatted scalar) keeps P's full form; alpha's scalar factor is taken."""
    prog = _compile(_scale_times_scores_exp, _SPEC, "scale_times_scores_exp", monkeypatch, "ex2")
    assert _loop_ptx(prog.ptx).count(FULL_EXP) == 64 // 2
    assert [r for r in _remark(prog) if r.startswith("remark: 1 online-softmax")], prog.remarks

def test_row_loads_issued_before_the_wait_for_s(monkeypatch):
    """``TILEORCH_ATTN_ROW_PREFETCH=1`` (loop_row_prefetch.py): the HF-mask program's 16 mask loads of a key tile
    (64 columns, 16 a thread) come before the loop's ``wait_group 1`` (tile j's S), merged across the loop's
    whole-tile and masked copies (16, not 32); by default all come after it."""
    p = PROGRAMS["z32_hf_additive_mask_f16"]
    for mode, before in (("0", 0), ("1", 16)):
        monkeypatch.setenv("TILEORCH_ATTN_ROW_PREFETCH", mode)
        prog = _compile(p.kernel, p.spec, "z32_hf_additive_mask_f16", monkeypatch, "full")
        loop = _loop_ptx(prog.ptx)
        parts = re.split(r"wgmma\.wait_group\.sync\.aligned\s+1;", loop)
        assert len(parts) == 2, loop
        head, tail = parts
        assert (head.count("ld.global.b16"), head.count("ld.global.b16") + tail.count("ld.global.b16")) == (before, 16)
        hit = [r for r in prog.remarks if "producer-loaded tiles" in r]
        assert (hit[0].startswith("remark: 16 load(s)") if before else not hit), prog.remarks


def test_k_prologue_runs_one_tile_ahead(monkeypatch):
    """q-k norm: with ``TILEORCH_ATTN_K_AHEAD=0`` the loop normalises K (its consumers' named barrier) before the
    tile's first dot is issued; with ``=1`` (the default since session 33) not there (the next tile's K is normalised after the commit, in a
    block of its own where a next tile exists), with the remark."""
    p = PROGRAMS["z32_qk_rmsnorm"]
    # the plain loop's versioned key tiles (TILEORCH_ATTN_PLAIN_MASKS) make LLVM rotate the loop: its text then
    # starts at the tile's tail, which this test's reading of the loop (label to backward branch) does not follow
    monkeypatch.setenv("TILEORCH_ATTN_PLAIN_MASKS", "0")
    for mode in ("0", "1"):
        monkeypatch.setenv("TILEORCH_ATTN_K_AHEAD", mode)
        prog = _compile(p.kernel, p.spec, "z32_qk_rmsnorm", monkeypatch, "full")
        loop = _loop_ptx(prog.ptx)
        first_commit = loop.index("wgmma.commit_group.sync.aligned")
        first_bar = loop.find("bar.sync")
        assert (0 <= first_bar < first_commit) == (mode == "0"), loop
        assert any("runs on tile j+1" in r for r in prog.remarks) == (mode == "1"), prog.remarks
