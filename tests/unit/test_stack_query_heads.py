"""``tileas-stack-query-heads`` (transforms/tileas/stack_query_heads.py) on session 34's GQA zoo
(``tileorch.testing.attnzoo34_programs``) and the heads loops of earlier sets: which programs run two query heads
a chain (the remark at the loop, the chained kernel's rows doubled), which are left as written (an odd group,
128-row tiles, a head index read by the scores), the switch, the driver's retry where the tier refuses a stacked
program, ``tileorch check`` of the stacked kernel, and the stacked kernels' PTX run on the CPU by the PTX emulator
(every CTA of the launch; test_user_sweep3_emulated's runner) against numpy float64 on ragged sizes, outputs
NaN-prefilled.  GPU twin: tests/gpu/test_attnzoo34_gpu.py.  Needs cuda-tile."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
from dot_sweep_checks import assert_pipelines_proved  # noqa: E402

from tileorch.testing.attnzoo34_programs import AUTO_OFF, PROGRAMS, STACKED  # noqa: E402

RNG = np.random.default_rng(34034)
REMARK = "tileas-stack-query-heads"
EXTENDED = pytest.mark.skipif(not os.environ.get("TILEORCH_EMULATE_ALL"),
                              reason="CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every case")


@pytest.fixture(autouse=True)
def _zoo(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _lowered(programs, name):
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = programs[name]
    return lower_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")


def _rows(name):
    return PROGRAMS[name].spec[-3]  # BM (the spec ends with G, BM, BN, D)


@pytest.fixture
def forced(monkeypatch):
    """``TILEORCH_ATTN_STACK_HEADS=1``: stacked wherever the rewrite applies (the kernels ``auto`` leaves as written
    too: the mechanism's tests)."""
    monkeypatch.setenv("TILEORCH_ATTN_STACK_HEADS", "1")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_stacked_as_tabled(name):
    """The default (``auto``): stacked F heads a chain, one remark at the head loop (the program's line) naming F,
    the chained kernel's tile rows F BM; 64-row causal heads left as written with a remark saying why (measured
    slower); the others left as written without a remark; every program stays on the chained kernel."""
    prog = _lowered(PROGRAMS, name)
    assert prog.kind == "chained", prog.remarks
    said = [r for r in prog.remarks if REMARK in r]
    if name in AUTO_OFF:
        assert len(said) == 1 and "are not stacked" in said[0] and "=1 stacks them" in said[0], said
        assert "attnzoo34_programs.py:" in said[0] and prog.chained["tm"] == _rows(name)
    elif STACKED[name]:
        assert len(said) == 1 and "attnzoo34_programs.py:" in said[0] and "remark:" in said[0], said
        assert f"run {STACKED[name]} at a time" in said[0], said
        assert prog.chained["tm"] == STACKED[name] * _rows(name), prog.chained["tm"]
    else:
        assert not said, said
        assert prog.chained["tm"] == _rows(name)


@pytest.mark.parametrize("name", sorted(AUTO_OFF))
def test_forced_stacks_the_causal_64_row_heads(forced, name):
    prog = _lowered(PROGRAMS, name)
    assert prog.kind == "chained" and prog.chained["tm"] == STACKED[name] * _rows(name), prog.remarks
    assert any(f"run {STACKED[name]} at a time" in r for r in prog.remarks)


def test_earlier_heads_loops_are_stacked():
    """The cover set's GQA heads loop (``h = kvh G + g`` computed once) and zoo 30's MQA loop (the loop's index is
    the head) run two heads a chain of 128 rows."""
    from tileorch.testing.attnzoo30_programs import PROGRAMS as Z30
    from tileorch.testing.cover26_programs import PROGRAMS as C26

    for programs, name in ((C26, "attn_gqa_heads_loop"), (Z30, "zoo_mqa_loop_over_heads")):
        prog = _lowered(programs, name)
        assert prog.kind == "chained" and prog.chained["tm"] == 128, (name, prog.remarks)
        assert any(REMARK in r for r in prog.remarks), name


def test_switch_off_leaves_the_heads_as_written(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_STACK_HEADS", "0")
    prog = _lowered(PROGRAMS, "z34_gqa_g4_causal")
    assert prog.kind == "chained" and prog.chained["tm"] == 64
    assert not any(REMARK in r for r in prog.remarks)


def test_a_refused_stacked_program_compiles_unstacked(monkeypatch):
    """Where the tier refuses the stacked program (simulated: the instance flattening raises while the rewrite is on)
    the driver lowers it again with the rewrite off: the chained kernel of BM rows and a remark naming the
    refusal (an ordinary refusal: no bug report; session 35), never the SIMT path."""
    from tileorch import settings
    from tileorch.diagnostics import LocatedError
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode
    from tileorch.transforms.tileas import program_loop_to_tiles as plt
    from tileorch.transforms.tileas.stack_query_heads import ENV

    real = plt.flatten_inner_work_loop

    def refuse_stacked(fn):
        if settings.value(ENV) != "0":
            raise LocatedError(fn, "simulated refusal of the stacked kernel")
        return real(fn)

    monkeypatch.setattr(plt, "flatten_inner_work_loop", refuse_stacked)
    p = PROGRAMS["z34_gqa_g2_plain_factor_first"]
    prog = compile_program(cutile_bytecode(p.kernel, p.spec), "refused", arch="sm_90a", ptxas=False)
    assert prog.kind == "chained" and prog.chained["tm"] == 64, prog.remarks
    warned = [r for r in prog.remarks if "stack-query-heads" in r]
    assert len(warned) == 1 and warned[0].startswith("remark:") and "simulated refusal" in warned[0], warned
    assert "bug" not in warned[0], warned


@pytest.mark.parametrize("name", ["z34_gqa_g4_causal", "z34_gqa_g2_alibi_table"])
def test_stacked_kernel_proved(forced, name):
    """``tileorch check``: the stacked kernels' pipelines (causal; a per-head slope table) free of deadlocks and
    races."""
    assert_pipelines_proved(PROGRAMS, name, back_end=False)


# ------------------------------------------------------------------------------------------------ PTX emulator


def _h(*shape):
    return RNG.standard_normal(shape).astype(np.float16)


def _reference(q, k, v, causal, alibi=False):
    """Softmax attention in float64 per query head ``h`` against KV head ``h // (H / HKV)`` (``alibi``: plus
    ``2^(-8 (h + 1) / H) (k - q)`` in log2 units)."""
    g = q.shape[1] // k.shape[1]
    kk, vv = np.repeat(k, g, axis=1).astype(np.float64), np.repeat(v, g, axis=1).astype(np.float64)
    s = (q.astype(np.float64) @ np.swapaxes(kk, -1, -2)) * 0.125
    if alibi:
        h = np.arange(q.shape[1])[:, None, None]
        rel = np.arange(k.shape[2])[None, :] - np.arange(q.shape[2])[:, None]
        s = s + 2.0 ** (-8.0 * (h + 1) / q.shape[1]) * rel / np.log2(np.e)
    if causal:
        sq, sk = q.shape[2], k.shape[2]
        s = np.where(np.arange(sk)[None, :] <= np.arange(sq)[:, None], s, -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ vv


@pytest.mark.parametrize("name,causal", [("z34_gqa_g4_causal", True),
                                         pytest.param("z34_gqa_g2_causal_bm32", True, marks=EXTENDED),
                                         pytest.param("z34_gqa_g2_plain_factor_first", False, marks=EXTENDED),
                                         ("z34_gqa_g4_causal_bm32", True), ("z34_gqa_g8_causal_bm16", True),
                                         ("z34_gqa_g2_alibi", True)])
def test_stacked_heads_emulated(forced, name, causal):
    """Every head of the stacked programs against numpy (ragged sequences where causal: 150, 100 and 40 rows in 64-,
    32- and 16-row tiles; two, four and eight heads a chain), O NaN-prefilled (a head or row the group's store misses
    stays NaN and fails; the per-head ALiBi slope: each head's rows their own slope, a swapped selection fails)."""
    spec = PROGRAMS[name].spec
    q, k, v = _h(*spec[0][0]), _h(*spec[1][0]), _h(*spec[2][0])
    grid = tuple(PROGRAMS[name].grid) + (1,)
    o = s3._chained(name, {0: q, 1: k, 2: v}, grid)[3]
    assert not np.isnan(o).any()
    s4._check(o, _reference(q, k, v, causal, alibi="alibi" in name))


def test_packed_heads_box_proved():
    """``tileorch check`` reads a Q box spanning a group dimension (``(1, G, BM, D)``: G BM rows, one copy) as the
    whole box's bytes; it counted one head's rows (a false deadlock: the full barrier's expected bytes never
    arrived) for every packed-heads program, the sweep-6 ones included."""
    from tileorch.testing.user_programs6 import PROGRAMS as U6

    assert_pipelines_proved(U6, "attn_gqa_packed_heads_g4", back_end=False)


def test_alibi_slope_table_emulated(forced):
    """ALiBi slopes read from a table at the query head (a load of an array the program does not write, read once per
    head of the pair): every head's rows against numpy with its own slope, O NaN-prefilled."""
    name = "z34_gqa_g2_alibi_table"
    q, k, v = _h(2, 4, 150, 64), _h(2, 2, 150, 64), _h(2, 2, 150, 64)
    slopes = np.array([0.5, -0.25, 0.125, 0.75], np.float32)  # (log2 units; distinct per head, one negative)
    o = s3._chained(name, {0: q, 1: k, 2: v, 3: slopes}, tuple(PROGRAMS[name].grid) + (1,))[4]
    g = 2
    kk, vv = np.repeat(k, g, axis=1).astype(np.float64), np.repeat(v, g, axis=1).astype(np.float64)
    s = (q.astype(np.float64) @ np.swapaxes(kk, -1, -2)) * 0.125
    rel = np.arange(150)[None, :] - np.arange(150)[:, None]
    s = s + slopes[None, :, None, None].astype(np.float64) * rel / np.log2(np.e)
    s = np.where(rel > 0, -np.inf, s)
    e = np.exp(s - s.max(-1, keepdims=True))
    s4._check(o, (e / e.sum(-1, keepdims=True)) @ vv)


def test_a_stacked_program_that_raises_compiles_unstacked(monkeypatch):
    """A lowering of the stacked program that raises (simulated: the driver's inner lowering raises while the rewrite
    is on) is retried with the rewrite off: the chained kernel of BM rows and a warning naming the exception."""
    from tileorch import driver, settings
    from tileorch.testing.export import cutile_bytecode
    from tileorch.transforms.tileas.stack_query_heads import ENV

    monkeypatch.setenv("TILEORCH_INTERNAL_ERRORS", "warn")  # a user's default (the suite raises them)
    real = driver._lower_tileaa_program

    def raising(*args, **kwargs):
        if settings.value(ENV) != "0":
            raise RuntimeError("simulated failure of the stacked lowering")
        return real(*args, **kwargs)

    monkeypatch.setattr(driver, "_lower_tileaa_program", raising)
    p = PROGRAMS["z34_gqa_g2_plain_factor_first"]
    prog = driver.compile_program(cutile_bytecode(p.kernel, p.spec), "raising", arch="sm_90a", ptxas=False)
    assert prog.kind == "chained" and prog.chained["tm"] == 64, prog.remarks
    warned = [r for r in prog.remarks if "stack-query-heads" in r]
    assert len(warned) == 1 and "RuntimeError: simulated failure" in warned[0], warned
    assert warned[0].startswith("warning:") and "tileorch bug, please report it" in warned[0], warned
