"""``TILEORCH_ATTN_PINGPONG=kernel``: FlashAttention-3's once-per-kernel ping-pong turns in the
persistent chained kernel (off by default until the H200 measures it).

The per-instance protocol (``=1``) gives warp group 0 its first turn per instance and takes the
last hand-over per instance, which deadlocks in a loop over instances (tileorch check found it:
test_chained_pingpong.py), so ``=1`` keeps one CTA per instance.  ``=kernel`` gives the first turn
once before the consumers' loop over the CTA's instances (warp group 1: ``bar.arrive 1, 256``) and
takes the last hand-over once after it (warp group 0: ``bar.sync 1, 256``); inside the instances
the turns are the per-tile ones of ``=1``.  Checked: the record, remark and PTX structure; ``tileorch
check`` proves the persistent kernel (plain and overlapped loop, causal too) and catches a missing
first turn or final sync; the PTX emulator runs three instances on one and two CTAs against numpy
(ragged, causal); ptxas assembles the kernel without spills.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess

import numpy as np
import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


def _lowered(monkeypatch, overlap: bool, causal: bool = False):
    from test_chained_pingpong import _args

    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.launchers import cutile as rc
    from tileorch.registry import make_context

    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "kernel")
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1" if overlap else "0")
    kernel, args = _args(causal=causal)
    ctx = make_context()
    module = load(rc.export_bytecode(kernel, rc.describe_arguments(kernel, args)), "<attn>", ctx)
    kind, lowered = lower_program(module, ctx)
    assert kind == "chained"
    return lowered


def _consumer_bars(ptx: str) -> list[str]:
    body = ptx.split("setmaxnreg.inc", 1)[1]
    lines = [x.split("//")[0].strip() for x in body.splitlines()]
    return [re.sub(r"%r\d+", "%r", x) for x in lines if re.match(r"bar\.(sync|arrive)", x)]


@pytest.mark.parametrize("causal", [False, True], ids=["noncausal", "causal"])
def test_record_remark_and_barriers(monkeypatch, causal):
    """Persistent with the turns: the record says so, a remark too; in the consumers' PTX one
    ``bar.arrive 1, 256`` before the work loop, the loop's sync and hand-over, one ``bar.sync 1, 256``
    after the work loop (not inside it: no per-instance first turn or last sync)."""
    from test_chained_emulated import _compile

    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "kernel")
    p = _compile(300, 64, 128, 128, causal)
    assert p.chained["pingpong"] and p.chained["persistent"]["pingpong"] == "kernel", p.chained
    assert "pingpong_kernel_off" not in p.chained
    assert any("TILEORCH_ATTN_PINGPONG=kernel" in r and "once per kernel" in r for r in p.remarks), p.remarks
    assert _consumer_bars(p.ptx) == ["bar.arrive \t1, 256;", "bar.sync \t%r, 256;", "bar.arrive \t%r, 256;",
                                     "bar.sync \t1, 256;"]


def test_per_instance_switch_unchanged(monkeypatch):
    """``=1`` still runs one CTA per instance (its per-instance turns), and the record carries no
    persistent ping-pong."""
    from test_chained_emulated import _compile

    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "1")
    p = _compile(300, 64, 128, 128, False)
    assert p.chained["pingpong"] and "persistent" not in p.chained


def test_not_applied_says_why(monkeypatch):
    """One consumer warp group (64-row tiles): nothing to ping-pong with, and the remark says so;
    without persistence (TILEORCH_ATTN_PERSISTENT=0) the per-instance turns run."""
    from test_chained_emulated import _compile

    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "kernel")
    p = _compile(300, 64, 64, 64, False)
    assert not p.chained["pingpong"] and "two consumer warp groups" in p.chained["pingpong_kernel_off"]
    assert any("TILEORCH_ATTN_PINGPONG=kernel not applied" in r for r in p.remarks), p.remarks
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "0")
    p = _compile(300, 64, 128, 128, False)
    assert p.chained["pingpong"] and "persistent" not in p.chained
    assert "not a persistent kernel" in p.chained["pingpong_kernel_off"]
    assert _consumer_bars(p.ptx)[0] == "bar.arrive \t1, 256;"


def test_cache_key(monkeypatch):
    from tileorch import cache

    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "kernel")
    on = cache.compile_environment()
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "1")
    assert cache.compile_environment() != on


@pytest.mark.parametrize("overlap,causal", [(False, False), (True, False), (True, True)],
                         ids=["plain", "overlap", "overlap_causal"])
def test_check_proves_the_kernel_turns(monkeypatch, overlap, causal):
    """``tileorch check``: warp group 1 arrives on barrier 1 once before its loop over instances,
    warp group 0 syncs on it once after; the turns inside the ring loop; deadlock- and race-free for
    1..3 instances of 1..2S+1 tiles (the per-instance protocol deadlocked at 2 instances of 2)."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.analysis.protocol import BarArrive, BarSync, Loop

    (proto,) = extract(_lowered(monkeypatch, overlap, causal))
    assert [p.name for p in proto.pipelines] == ["kv", "q"]
    wg0, wg1 = proto.agents[1:]
    assert isinstance(wg0.program[0], Loop) and wg0.program[0].trip.param == "m"
    assert isinstance(wg0.program[1], BarSync) and wg0.program[1].barrier == 1 and len(wg0.program) == 2
    assert isinstance(wg1.program[0], BarArrive) and wg1.program[0].barrier == 1 and len(wg1.program) == 2
    result = check(proto)
    assert result.ok, result.violation


def _drop_outside_work_loop(module, name: str):
    """Erase the ``scf.if`` around the kernel-level named barrier ``name`` (constant id 1, 256 threads)."""
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    for op in fn.walk():
        if op.name == name and len(op.operands) == 2 and op.operands[0].owner.name == "arith.constant":
            guard = op.parent_op()
            guard.detach()
            guard.erase()
            return
    raise AssertionError("barrier not found")


@pytest.mark.parametrize("name", ["nvvm.barrier.arrive", "nvvm.barrier"], ids=["first_turn", "final_sync"])
def test_check_catches_a_missing_kernel_turn(monkeypatch, name):
    """Without warp group 1's once-per-kernel first turn warp group 0 waits forever; without warp
    group 0's final sync the kernel exits with warp group 1's last hand-over half arrived."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    module = _lowered(monkeypatch, True)
    _drop_outside_work_loop(module, name)
    (proto,) = extract(module)
    result = check(proto)
    v = result.violation
    assert not result.ok and (v.prop in ("deadlock", "named-barrier-count")
                              or "named barrier 1 mid-generation" in v.message), v


@pytest.mark.parametrize("overlap,causal,ctas", [(True, False, 1), (True, True, 2), (False, False, 2),
                                                 (True, False, 3), (False, True, 1)])
def test_emulated_against_numpy(monkeypatch, overlap, causal, ctas):
    """Three 128-row instances of a ragged 300-row sequence (three key tiles each) on 1, 2 or 3
    CTAs: the turns run on across a CTA's instances; outputs against numpy, no emulator error."""
    from test_chained_emulated import _compile, _emulate

    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "kernel")
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1" if overlap else "0")
    cfg = (300, 64, 128, 128, causal)
    p = _compile(*cfg)
    assert p.chained["persistent"]["pingpong"] == "kernel"
    out, ref, errors = _emulate(p, *cfg, ctas_persistent=ctas)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


def test_ptxas_assembles_without_spills(monkeypatch, tmp_path):
    """ptxas (sm_90a) assembles the d128 kernel: no spill, the WGMMAs not serialized."""
    from test_chained_emulated import _compile

    ptxas = shutil.which("ptxas")
    if ptxas is None:
        import nvidia.cu13  # the nvidia-cuda-nvcc wheel
        from pathlib import Path

        cand = Path(list(nvidia.cu13.__path__)[0]) / "bin" / "ptxas"
        ptxas = str(cand) if cand.exists() else None
    if ptxas is None:
        pytest.skip("ptxas not found")
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "kernel")
    p = _compile(300, 128, 128, 128, False)
    assert p.chained["persistent"]["pingpong"] == "kernel"
    src = tmp_path / "k.ptx"
    src.write_text(p.ptx)
    res = subprocess.run([ptxas, "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert " 0 bytes spill stores" in res.stderr and "C7513" not in res.stderr, res.stderr[-2000:]


def test_mlp_chain_emulated(monkeypatch):
    """The other two-dot program, ``relu(X W1) W2`` (300 rows: three 128-row instances, three hidden
    tiles each) on two CTAs with the kernel-wide turns: against numpy, no emulator error."""
    from test_chained_narrow import _clean, _mlp, emulate_mlp_against_numpy

    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "kernel")
    m, d, hidden, dout, tile_m, tile_h = 300, 64, 192, 64, 128, 64
    p = _mlp(m, d, hidden, dout, tile_m, tile_h)
    _clean(p)
    assert p.chained["persistent"]["pingpong"] == "kernel", p.chained
    emulate_mlp_against_numpy(p, m, d, hidden, dout, tile_m, 5, 2)
