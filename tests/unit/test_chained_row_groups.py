"""TILEORCH_ATTN_ROW_GROUPS=3 (``transforms/tileas/row_groups.py``): a persistent chained kernel of 128-row
tiles run as three consumer warp groups of 160 registers over 192 rows, each group a 64-row slice of an
instance, the CTA's three slices consecutive rows of one head sharing each K/V tile (FlashAttention-3's head-dim
64 shape).  Per row the same ops in the same order: the PTX emulator's output is bit-identical to the default
kernel's (NaN-prefilled, ragged sequences; a head of 3 instances = 2 full units, of 2 instances = a unit with two
idle slices that store nothing), on 1 and 2 persistent CTAs; four groups of 112 registers over 256 rows for a
program written with 64-wide key tiles.  Refusals are remarks naming the reason (head dim
128's registers, causal trip counts, a kernel that is not persistent).  ``auto``, the default since session 35: four
groups where they fit, never three, and a launch whose grid is too small for them runs the two-group kernel."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
import pytest
from test_chained_emulated import _compile, _lower, emulate_as_base

RG = "TILEORCH_ATTN_ROW_GROUPS"


@pytest.mark.parametrize("cfg,ctas,groups", [((300, 64, 128, 128, False), 1, 3), ((200, 64, 128, 128, False), 2, 3),
                                             ((77, 64, 128, 64, False), 1, 3), ((300, 64, 128, 64, False), 2, 4)],
                         ids=["3inst", "2inst_idle", "1inst_64n", "g4_3inst"])
def test_row_groups_emulated(cfg, ctas, groups, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv(RG, "0")
    base = _compile(*cfg)
    monkeypatch.setenv(RG, str(groups))
    p = _compile(*cfg)
    assert p.chained["persistent"].get("row_groups") == groups and p.chained["threads"] == 128 * (groups + 1), p.chained
    assert "row_groups" not in base.chained["persistent"] and base.chained["threads"] == 384
    assert f"setmaxnreg.inc.sync.aligned.u32 \t{160 if groups == 3 else 112};" in p.ptx
    emulate_as_base(p, base, cfg, ctas)


def test_row_groups_remark(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv(RG, "3")
    p = _lower(1024, 64, 128, 128, False)
    assert p.chained["persistent"]["row_groups"] == 3 and "row_groups_off" not in p.chained, p.chained
    assert any("3 consumer warp groups of 160 registers over 192 rows" in r and f"{RG}=3" in r
               and "attention_programs.py:45" in r for r in p.remarks), p.remarks


@pytest.mark.parametrize("cfg,env,why", [
    ((1024, 128, 128, 128, False), {}, "need 164 registers per thread, more than 148"),
    ((1024, 64, 128, 128, True), {}, "the trip count grows with a program id"),
    ((1024, 64, 128, 128, False), {"TILEORCH_ATTN_PERSISTENT": "0"}, "not a persistent kernel"),
    ((1024, 64, 64, 64, False), {}, "64-row tiles"),
    ((1024, 64, 128, 128, False), {RG: "4"}, "need 132 registers per thread, more than 100"),
    # S 32 + P 16 + O and m, l 36 = 84, and the S-ahead loop's second S (32) and packed P (16): 132; P in f32 beside
    # the packed one (32): 116 (ptxas 13.0 serialized the S-ahead MLP chain's WGMMAs, spilled 40 B with the late pack)
    ((1024, 64, 128, 64, False), {RG: "auto", "TILEORCH_ATTN_S_AHEAD": "1"},
     "the S issued ahead (TILEORCH_ATTN_S_AHEAD), and the carried tiles need 132 registers per thread, more than 100"),
    ((1024, 64, 128, 64, False), {RG: "auto", "TILEORCH_ATTN_LATE_PACK": "1"},
     "P in f32 (TILEORCH_ATTN_LATE_PACK), and the carried tiles need 116 registers per thread, more than 100"),
    # a switch the user set that four groups cannot honour wins over the default rule (the GPU's short-sequence
    # switch tests found ROW_DIV=1 and Q_REGS=1 not applied under it)
    ((1024, 64, 128, 64, False), {RG: "auto", "TILEORCH_ATTN_ROW_DIV": "1"}, "TILEORCH_ATTN_ROW_DIV=1 is set"),
    ((1024, 64, 128, 64, False), {RG: "auto", "TILEORCH_ATTN_Q_REGS": "1"}, "TILEORCH_ATTN_Q_REGS=1 is set"),
], ids=["d128", "causal", "not_persistent", "64rows", "g4_n128", "s_ahead", "late_pack", "row_div", "q_regs"])
def test_row_groups_refused_says_why(cfg, env, why, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    groups = env.get(RG, "3")
    monkeypatch.setenv(RG, groups)
    p = _lower(*cfg)
    assert "row_groups" not in (p.chained.get("persistent") or {}) and why in p.chained["row_groups_off"], p.chained
    assert any(f"{RG}={groups} not applied: " in r and why in r for r in p.remarks), p.remarks


@pytest.mark.parametrize("cfg,groups,said", [
    ((1024, 64, 128, 64, False), 4, "4 consumer warp groups of 112 registers over 256 rows (TILEORCH_ATTN_ROW_GROUPS="
                                    "auto, the default: the measured rule"),
    ((1024, 32, 128, 64, False), 4, "over 256 rows (TILEORCH_ATTN_ROW_GROUPS=auto, the default"),
    ((1024, 64, 128, 64, True), 0, "TILEORCH_ATTN_ROW_GROUPS=auto not applied: the trip count grows with a program id"),
    ((1024, 64, 128, 128, False), 0, None),
    ((1024, 128, 128, 64, False), 0, None),
    ((1024, 128, 128, 128, False), 0, None),
    ((1024, 64, 64, 64, False), 0, None),
], ids=["d64_n64", "d32_n64", "d64_n64_causal", "d64_n128", "d128_n64", "d128_n128", "d64_64rows"])
def test_row_groups_auto_by_default(cfg, groups, said, monkeypatch):
    """The default (unset) TILEORCH_ATTN_ROW_GROUPS is ``auto``, the session-34 rule: four groups of 112 registers
    where S (tn/2), the packed P (tn/4) and O (d/2) with m and l (4) fit 100 of them -- d64 128x64: 32 + 16 + 32 + 4
    = 84, d32: 68; d64 128x128: 132, d128 128x64: 116, d128 128x128: 164 do not -- never three; a causal trip count
    keeps two groups.  A remark names the choice and its reason; a decline says why only where the tiles are the
    rule's (the causal 128x64 program), not on every kernel the registers rule out."""
    monkeypatch.delenv(RG, raising=False)
    p = _lower(*cfg)
    persistent = p.chained.get("persistent") or {}
    assert persistent.get("row_groups", 0) == groups, p.chained
    assert persistent.get("row_groups_default", False) == bool(groups), persistent
    mine = [r for r in p.remarks if RG in r]
    if said is None:
        assert not mine and "row_groups_off" not in p.chained, (mine, p.chained)
    else:
        assert len(mine) == 1 and said in mine[0] and "attention_programs.py:45" in mine[0], mine
    if groups:
        assert f"=0 turns it off" in mine[0] and p.chained["threads"] == 640, (mine, p.chained["threads"])


def test_row_groups_zero_opts_out(monkeypatch):
    """``TILEORCH_ATTN_ROW_GROUPS=0``: the two-group kernel of 384 threads, no remark about row groups; an explicit
    ``auto`` chooses as the default does, its remark without "the default"."""
    monkeypatch.setenv(RG, "0")
    p = _lower(1024, 64, 128, 64, False)
    assert "row_groups" not in p.chained["persistent"] and p.chained["threads"] == 384, p.chained
    assert not any(RG in r for r in p.remarks), p.remarks
    monkeypatch.setenv(RG, "auto")
    p = _lower(1024, 64, 128, 64, False)
    assert p.chained["persistent"]["row_groups"] == 4 and "row_groups_default" not in p.chained["persistent"]
    assert any(f"({RG}=auto)" in r for r in p.remarks), p.remarks


@pytest.mark.parametrize("x,heads,ctas,pass_by,declined", [
    (8, 256, 132, False, False),   # issue 20's 1k row: 2048 instances, 32 slices against 32
    (32, 64, 132, False, False),   # 4k: 32 against 32
    (8, 300, 132, False, False),   # 2400 instances: 40 against 38 (within 1.15x)
    (8, 160, 132, False, False),   # 1280: 20 against 20
    (8, 40, 132, False, True),     # 320: 8 against 6
    (8, 16, 128, False, True),     # 128 instances on 128 CTAs: 4 against 2
    (3, 7, 21, False, True),       # (7, 333): a full unit and a partial one of 2 slices a head, 4 against 2
    (9, 264, 132, True, False),    # 2376 instances: 4 full units and one of 2 slices a head, 36 against 36
    (9, 264, 132, False, False),   # the idle slices computed: 40 against 36
])
def test_launch_declines_where_the_dealing_loses(x, heads, ctas, pass_by, declined):
    """The launch half of the rule, on busiest-CTA slice counts worked out by hand (above): four groups where their
    busiest CTA runs at most 1.15x the two-group kernel's 64-row slices."""
    from tileorch.transforms.tileas.row_groups import launch_declines

    why = launch_declines(x, heads, 4, ctas, pass_by)
    assert (why is not None) == declined, why
    if declined:
        assert "64-row slices against the kernel of 128-row instances'" in why


def test_launcher_runs_the_two_group_kernel_where_the_rule_declines(monkeypatch):
    """``_row_groups_choice``: a default-chosen row-groups entry on a grid too small for it is replaced by the
    program compiled under ``TILEORCH_ATTN_ROW_GROUPS=0`` (the setting overridden only for that compile), with a
    launch remark on the entry; an explicitly asked one, or a grid that pays, launches as compiled."""
    from tileorch import settings
    from tileorch.launchers import cutile as rc

    seen = []

    def fake_compiled(kernel, arguments, arch, schedule, config=""):
        seen.append((schedule, config, settings.value(RG)))
        return rc._Compiled(program=None)

    monkeypatch.setattr(rc, "compiled", fake_compiled)

    class P:
        def __init__(self, persistent):
            self.chained = {"persistent": persistent}

    auto = {"q_slots": 2, "row_groups": 4, "idle_slices": "compute", "row_groups_default": True}
    entry = rc._Compiled(program=P(auto), asked=("persistent", ""))
    chosen, why = rc._row_groups_choice(entry, None, [], "sm_90a", (8, 16, 1), 132)
    assert chosen is not entry and seen == [("persistent", "", "0")] and "not used for this launch" in why
    assert entry.launch_remarks[(8, 16, 1)] == why and settings.value(RG) != "0"
    assert rc._row_groups_choice(entry, None, [], "sm_90a", (8, 256, 1), 132) == (entry, "")
    asked = rc._Compiled(program=P({k: v for k, v in auto.items() if k != "row_groups_default"}))
    assert rc._row_groups_choice(asked, None, [], "sm_90a", (8, 16, 1), 132) == (asked, "")
    assert len(seen) == 1


@pytest.mark.parametrize("idle", ["compute", "pass"])
def test_row_groups_idle_slice_stores_nothing(idle, monkeypatch):
    """A grid of one instance over 200 rows: the unit's third slice (rows 128-191, instance 1) is past the grid's
    last instance and must leave its rows unwritten (NaN), as the default kernel does; the rows it owns match."""
    from test_chained_emulated import _emulate_now

    cfg = (200, 64, 128, 128, False)
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_IDLE_SLICES", idle)
    monkeypatch.setenv(RG, "0")
    base = _compile(*cfg)
    monkeypatch.setenv(RG, "3")
    p = _compile(*cfg)
    assert p.chained["persistent"].get("row_groups") == 3, p.chained
    for prog in (p, base):
        out, ref, errors = _emulate_now(prog, *cfg, grid_x=1)
        assert not errors, errors[:4]
        assert np.isnan(out[0, 128:]).all(), "rows of an instance the grid does not run were written"
        assert not np.isnan(out[0, :128]).any()
        np.testing.assert_allclose(out[0, :128], ref[0, :128], atol=2e-3, rtol=1e-2)


@pytest.mark.parametrize("idle", ["compute", "pass"])
@pytest.mark.parametrize("seq,ctas", [(200, 2), (300, 4), (77, 1)])
def test_row_groups_heads_emulated(seq, ctas, idle, monkeypatch):
    """Three heads: the work units are dealt full units first (every head's), then the heads' partial units;
    each head's rows read that head's K/V only: bit-identical to the default kernel on the same CTAs; an idle slice
    computes its chain without storing it or passes the unit's tiles by (TILEORCH_ATTN_IDLE_SLICES)."""
    from test_chained_emulated import _emulate_now

    cfg = (seq, 64, 128, 128, False)
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_IDLE_SLICES", idle)
    monkeypatch.setenv(RG, "0")
    base = _compile(*cfg)
    monkeypatch.setenv(RG, "3")
    p = _compile(*cfg)
    assert p.chained["persistent"].get("row_groups") == 3 and p.chained["persistent"]["idle_slices"] == idle
    out, ref, errors = _emulate_now(p, *cfg, ctas_persistent=ctas, heads=3)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
    want, _, errors = _emulate_now(base, *cfg, ctas_persistent=ctas, heads=3)
    assert not errors and np.array_equal(out.view(np.uint32), want.view(np.uint32))


@given(x=st.integers(1, 40), heads=st.integers(1, 300), groups=st.sampled_from([3, 4]), ctas=st.integers(1, 140),
       pass_by=st.booleans())
@settings(max_examples=150, deadline=None)
def test_busiest_slices_is_the_dealing(x, heads, groups, ctas, pass_by):
    """The launch remark's model of the kernel's dealing (full units of every head first, then the partial ones,
    round-robin over the CTAs) against the dealing itself, unit by unit."""
    from tileorch.transforms.tileas.row_groups import busiest_slices

    slices = 2 * x
    units = [groups] * (slices // groups * heads) + ([slices % groups] * heads if slices % groups else [])
    cost = [n if pass_by else groups for n in units]
    load = [0] * ctas
    for w, n in enumerate(cost):
        load[w % ctas] += n
    assert sum(load) == (slices * heads if pass_by else groups * len(units))
    assert busiest_slices(x, heads, groups, ctas, pass_by) == (slices // groups * heads, heads if slices % groups else 0,
                                                      slices % groups, max(load))


def test_launch_remark_at_the_benchmark_shapes():
    """Issue 20's rows on 132 SMs: at 1k (8 instances a head, 256 heads) three groups' busiest CTA runs 32 slices
    as the default's 16 instances do; at 4k (32 a head, 64 heads) 33 against 32; four groups 32 at both."""
    from tileorch.launchers.cutile import chained_ctas

    def remark(x, heads, groups):
        return chained_ctas({"persistent": {"row_groups": groups}}, (x, heads, 1), 132)

    ctas, text = remark(8, 256, 3)
    assert ctas == 132 and "1536 work units of 3 64-row slices (1280 full, 256 of 1) from 2048 instances" in text
    assert "busiest CTA runs 36 slices (idle ones computed), the kernel of 128-row instances 32" in text
    text = chained_ctas({"persistent": {"row_groups": 3, "idle_slices": "pass"}}, (8, 256, 1), 132)[1]
    assert "busiest CTA runs 32 slices, the kernel of 128-row instances 32" in text
    assert "busiest CTA runs 33 slices (idle ones computed), the kernel of 128-row instances 32" in remark(32, 64, 3)[1]
    assert "(1024 full) from 2048 instances: the busiest CTA runs 32 slices" in remark(8, 256, 4)[1]
    assert remark(1, 1, 3)[0] == 1


def test_idle_branch_is_warp_uniform_for_ptxas(monkeypatch):
    """The pass-by's branch around the chain tests lane 0's value (shfl.sync.idx): ptxas 13.0 then spills as little
    as without the branch (24 B at d64 128x128), not the 140 B of a branch on each lane's own value."""
    import re
    import shutil

    if shutil.which("ptxas") is None:
        pytest.skip("no ptxas")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv(RG, "3")
    monkeypatch.setenv("TILEORCH_ATTN_IDLE_SLICES", "pass")
    p = _compile(1024, 64, 128, 128, False)
    assert "shfl.sync.idx.b32" in p.ptx
    spills = [int(m) for r in p.remarks for m in re.findall(r"(\d+) B spill stores", r)]
    assert spills and max(spills) <= 32, [r for r in p.remarks if "ptxas" in r]


@pytest.mark.parametrize("cfg,groups", [((1024, 64, 128, 128, False), 0), ((1024, 64, 128, 64, False), 4),
                                        ((1024, 128, 128, 64, False), 0), ((1024, 128, 128, 128, False), 0)],
                         ids=["d64n128", "d64n64", "d128n64", "d128n128"])
def test_row_groups_auto_takes_four_groups_where_they_fit(cfg, groups, monkeypatch):
    """TILEORCH_ATTN_ROW_GROUPS=auto (the cost rule the H100 measured): four groups where 112 registers hold S, the
    packed P and the carried tiles (d64, 64-wide key tiles: 1.18x / 1.29x the two-group kernel at 1k / 4k), never
    three (0.90x at d64 1k), else the kernel of 128-row instances with the reason in the remark."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv(RG, "auto")
    p = _lower(*cfg)
    got = (p.chained.get("persistent") or {}).get("row_groups", 0)
    assert got == groups, p.chained
    if groups:
        assert any(f"{groups} consumer warp groups" in r and f"{RG}=auto" in r for r in p.remarks), p.remarks
    else:
        why = p.chained["row_groups_off"]
        assert why.startswith("S, the packed P and the carried tiles need") and "more than 100" in why, why
        assert any(f"{RG}=auto not applied: S, the packed P" in r for r in p.remarks), p.remarks


def test_default_row_groups_that_spill_are_compiled_without(monkeypatch):
    """The natural-exp program with a logit soft cap at d64 128x64: S, P and O fit the four groups' registers by the
    rule's count, but the cap's tanh per element does not (ptxas 13.0: 140 B stores / 284 B loads with four groups
    of 112, none with two of 240).  By default the driver compiles it again without row groups (a remark says why);
    asked for explicitly, the four-group kernel is kept, spills and all."""
    from test_chained_dots import _arrays, _compile_once

    from tileorch.testing.attention_programs import attention_fwd_natural

    args = _arrays(4, (4, 1000, 64)) + (0.125, 30.0, 1000, 128, 64, 64, True)
    monkeypatch.delenv(RG, raising=False)
    p = _compile_once(attention_fwd_natural, args)
    if p.cubin is None:
        pytest.skip("no ptxas")
    assert "row_groups" not in p.chained["persistent"] and p.chained["threads"] == 384, p.chained
    assert any("the kernel of 128-row instances" in r and "more than 16 B" in r and f"{RG}=0 for this program" in r
               for r in p.remarks), p.remarks
    monkeypatch.setenv(RG, "4")
    forced = _compile_once(attention_fwd_natural, args)
    assert forced.chained["persistent"]["row_groups"] == 4
    assert any(r.startswith("warning: ptxas spilled registers of chained_dots_128x64x64_64_f16_g4") for r in
               forced.remarks), forced.remarks
