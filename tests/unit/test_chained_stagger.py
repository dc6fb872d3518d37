"""TILEORCH_ATTN_STAGGER: in a persistent chained kernel, consumer warp group ``w`` sleeps until ``w`` x C
cycles of ``%clock64`` passed after its first instance's Q wait (stagger_consumers.py).  Only timing changes: the PTX
emulator runs several instances on one CTA (d64 and d128, causal and not, ragged sequences,
NaN-prefilled outputs; four consumer groups at 256x64) against numpy, bit-identical to the kernel without the
switch; ptxas
assembles it without spills and without divergence checks in the key-tile loop."""

from __future__ import annotations

import pytest
from test_chained_emulated import _compile, _lower, emulate_as_base


@pytest.mark.parametrize("cfg", [(300, 64, 128, 128, False), (300, 64, 128, 128, True), (300, 128, 128, 128, False),
                                 (600, 64, 256, 64, False)])  # the last: four consumer groups (w x C, w = 1 .. 3)
def test_stagger_emulated(cfg, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_STAGGER", "0")
    base = _compile(*cfg)
    monkeypatch.setenv("TILEORCH_ATTN_STAGGER", "2500")
    p = _compile(*cfg)
    assert p.chained["persistent"]["stagger"] == 2500 and "stagger" not in base.chained["persistent"], p.chained
    assert "nanosleep" in p.ptx and "nanosleep" not in base.ptx
    emulate_as_base(p, base, cfg)


def _stagger_d64_1k(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_STAGGER", "2500")
    return _compile(1024, 64, 128, 128, False)


def test_stagger_no_spills(monkeypatch, tmp_path):
    """ptxas sm_90a assembles the staggered d64 kernel without spills."""
    import shutil
    import subprocess

    if shutil.which("ptxas") is None:
        pytest.skip("needs ptxas")
    (tmp_path / "k.ptx").write_text(_stagger_d64_1k(monkeypatch).ptx)
    info = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True, check=True).stderr
    assert "bytes spill stores" in info and "0 bytes spill stores, 0 bytes spill loads" in info, info


def test_stagger_no_divergence_checks(monkeypatch, tmp_path):
    """The sleep is in the SASS, and the key-tile loop's shuffles get no BRA.DIV (a guard read from
    the thread id or an exit from each lane's own clock made ptxas add two per key tile)."""
    import shutil
    import subprocess

    if shutil.which("nvdisasm") is None:
        pytest.skip("needs nvdisasm")
    (tmp_path / "k.cubin").write_bytes(_stagger_d64_1k(monkeypatch).cubin)
    sass = subprocess.run(["nvdisasm", "-c", str(tmp_path / "k.cubin")], capture_output=True, text=True,
                          check=True).stdout
    assert "NANOSLEEP 0x40" in sass and "SR_CLOCKLO" in sass and "BRA.DIV" not in sass


def test_stagger_remark(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_STAGGER", "3000")
    p = _lower(300, 64, 128, 128, False)
    assert any("w x 3000 cycles" in r and "TILEORCH_ATTN_STAGGER" in r for r in p.remarks), p.remarks


def test_stagger_not_applied_says_why(monkeypatch):
    """One CTA per instance: no first instance of several to start apart; a remark says so."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "0")
    monkeypatch.setenv("TILEORCH_ATTN_STAGGER", "3000")
    p = _lower(300, 64, 128, 128, False)
    assert p.chained.get("stagger_off") == "not a persistent kernel", p.chained
    assert any("TILEORCH_ATTN_STAGGER not applied: not a persistent kernel" in r for r in p.remarks), p.remarks


def test_stagger_off_by_default(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.delenv("TILEORCH_ATTN_STAGGER", raising=False)
    p = _lower(300, 64, 128, 128, False)
    assert "stagger" not in p.chained["persistent"] and "stagger_off" not in p.chained, p.chained


def _protocol(monkeypatch, stagger: str, d: int = 64):
    from test_check_chained import _lowered

    from tileorch.analysis.extract import extract

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_STAGGER", stagger)
    module = _lowered(d, 128, 128)
    (proto,) = extract(module)
    return module, proto


@pytest.mark.parametrize("d,stages", [(64, 4), (128, 3)])
def test_stagger_pipelines_are_proved(d, stages, monkeypatch):
    """``tileorch check`` proves both rings (K/V with the kernel's stages, the Q slots) with the
    sleep in the first instance, for 1-3 instances and every trip count 1 .. 2S + 1; the protocol
    read from the kernel is the default kernel's (the sleep is no hand-off)."""
    from tileorch.analysis.explore import check

    _, proto = _protocol(monkeypatch, "2500", d)
    _, base = _protocol(monkeypatch, "0", d)
    kv = proto.pipelines[0]
    assert kv.stages == stages
    assert repr(proto.agents) == repr(base.agents) and repr(proto.pipelines) == repr(base.pipelines)
    result = check(proto)
    assert result.ok, result.violation
    assert sorted((v["k"], v["m"]) for v, _ in result.instances) == [(k, m) for k in range(1, 2 * stages + 2)
                                                                      for m in (1, 2, 3)]


def test_stagger_broken_release_count_is_caught(monkeypatch):
    """The staggered kernel with its empty barriers (K/V stages, Q slots) initialised for one warp
    group (128 arrivals) while both release: ``tileorch check`` finds the refill of a stage the late
    group still reads."""
    from test_check_chained import _ring_inits, _set_constant

    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    module, _ = _protocol(monkeypatch, "2500")
    empty = _ring_inits(module, 256)  # the K/V stages' and the Q slots' empty barriers
    assert len(empty) == 4 + 2
    for op in empty:
        _set_constant(op, 1, 128)
    (proto,) = extract(module)
    assert not check(proto).ok, "a stage released by half its readers was proved"


def test_stagger_not_with_next_s(monkeypatch):
    """TILEORCH_ATTN_NEXT_S builds its instances without the hook: not applied, the remark says why."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", "1")
    monkeypatch.setenv("TILEORCH_ATTN_STAGGER", "3000")
    p = _lower(300, 64, 128, 128, False)
    assert p.chained["persistent"].get("next_s") and "stagger" not in p.chained["persistent"], p.chained
    assert any("TILEORCH_ATTN_STAGGER not applied: TILEORCH_ATTN_NEXT_S" in r for r in p.remarks), p.remarks


def test_stagger_snake_order_on_more_ctas_than_instances_emulated(monkeypatch):
    """Causal d64 by default (the snake order's persistent kernel) with the stagger, three instances
    on four CTAs (one runs none: no sleep, no hang), bit-identical to the kernel without it."""
    monkeypatch.delenv("TILEORCH_ATTN_PERSISTENT", raising=False)
    monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE", raising=False)
    cfg = (300, 64, 128, 128, True)
    monkeypatch.setenv("TILEORCH_ATTN_STAGGER", "0")
    base = _compile(*cfg)
    monkeypatch.setenv("TILEORCH_ATTN_STAGGER", "2500")
    p = _compile(*cfg)
    assert p.chained["persistent"].get("schedule") == "snake" and p.chained["persistent"]["stagger"] == 2500
    emulate_as_base(p, base, cfg, ctas=4)
