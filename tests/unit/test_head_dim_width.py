"""Attention at head dims narrower than the program's power-of-two tile (80 / 96 in 128, 48 in 64): the chained
kernel's dots at the arrays' width (``tileas/head_dim_width.py``) where the compiler knows it -- a compile-time
extent, from ``ct.ArrayAnnotation(static_shape_dims=...)`` or from the launcher's specialisation on the launch's
head dims (``launchers/head_dim_variant.py``, the same signature a launch builds).

The emulated runs are session 36's sweep programs (``tileorch.testing.attnsweep36_programs``) compiled as the
launcher compiles them for their spec's arrays, run on the PTX emulator against the float64 numpy references of
``tileorch.testing.attnsweep36_refs`` (outputs NaN-prefilled; bf16 programs as their f16 twins).  CI runs
:data:`QUICK`; ``TILEORCH_EMULATE_ALL=1`` runs the rest.  Needs cuda-tile."""

from __future__ import annotations

import dataclasses
import math
import os
import re
from typing import Annotated

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.attnsweep36_programs import PROGRAMS, _bhsd, _kpos, _state, _step2, _tile3, scale2  # noqa: E402
from tileorch.testing.attnsweep36_refs import inputs, reference  # noqa: E402

RNG = np.random.default_rng(38080)
QUICK = {"s36_d80_plain"}
"""The programs CI emulates (the rest with ``TILEORCH_EMULATE_ALL=1``)."""
NARROWED = {"s36_d80_plain": (80, 80), "s36_d80_bn256": (80, 80), "s36_d80_causal_bm128": (80, 80),
            "s36_d96_causal_bf16": (96, 96), "s36_d48_plain": (48, 48), "s36_d48_causal_bn32": (48, 48),
            "s36_d80_bshd_cross_strided": (80, 80), "s36_d80_bm16": (80, 80), "s36_d48_bm128_bn256": (48, 48),
            "s36_d160_cross_bn32": (160, 160), "s36_lse_natural_f32out_d80": (80, 80),
            "s36_causal_bottom_right_d80": (80, 80), "s36_dropout_d96_bf16": (96, 96),
            "s36_prefix_lm_d48_bn128": (48, 48), "s36_key_padding_d160": (160, 160),
            "s36_window_bf16_f32out": (96, 96), "s36_packed_qkv_causal_d96": (96, 96),
            "s36_d160_causal_bm32": (160, 160)}
"""Sweep programs whose arrays are narrower than their tiles, and the widths the dots run (the head dim rounded
up to 16: a WGMMA's K step, TMA's 32-byte box granule)."""
TWINS = {f"{n}__f16": dataclasses.replace(p, spec=[(s[0], "float16", *s[2:]) if isinstance(s, tuple) and
                                                   s[1] == "bfloat16" else s for s in p.spec])
         for n, p in PROGRAMS.items() if any(isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}


def _specialised(kernel, spec: list, name: str):
    """(the program compiled for ``spec`` as a launch first compiles it, the program the launcher launches for
    these arrays' head dims or None)."""
    from tileorch.launchers import cutile as rc
    from tileorch.launchers.head_dim_variant import specialised_arguments
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import described_arguments

    args = described_arguments(kernel, spec)
    generic = compile_once(rc.export_bytecode(kernel, args), name, arch="sm_90a", ptxas=False)
    found = specialised_arguments(generic.chained or {}, args, rc.flat_parameters(args))
    if found is None:
        return generic, None
    return generic, compile_once(rc.export_bytecode(kernel, found[0]), name, arch="sm_90a", ptxas=False)


@pytest.fixture(autouse=True)
def _narrowing_on(monkeypatch):
    """These tests read the exact widths of the 16-column granule (``TILEORCH_ATTN_HEAD_DIM_WIDTH=1``: head dim 80
    runs 80 columns, several 16-column boxes, the finest case of the box and swizzle choices); the default's 32-column
    granule has its own tests (``test_widths_rounded_to_32``, the launcher's rounding) and ran on an H100 against
    torch (session 39, ``benchmarks/session38_headdim.sh``).  A test that wants it off or at 32 sets it again."""
    monkeypatch.setenv("TILEORCH_ATTN_HEAD_DIM_WIDTH", "1")


@pytest.fixture
def _sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})

    def compile_specialised(kernel, spec, name=None, **options):
        generic, narrow = _specialised(kernel, spec, name or "k")
        assert narrow is not None, "the launcher does not specialise this program on its head dims"
        return narrow

    import tileorch.testing.gemm_emulation as ge

    monkeypatch.setattr(ge, "compile_cutile", compile_specialised)


@pytest.mark.parametrize("name", sorted(NARROWED))
def test_launcher_specialises_on_the_head_dims(name):
    """The generic compile names the head-dim arrays, the launch's compile runs the dots at the head dim and says
    so at the second dot's line; the kernel's WGMMAs have the narrow N (second dot) and K steps (first dot)."""
    if name not in QUICK and not os.environ.get("TILEORCH_EMULATE_ALL"):
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 checks every program")
    p = PROGRAMS[name]
    generic, narrow = _specialised(p.kernel, p.spec, name)
    assert generic.kind == narrow.kind == "chained"
    d, dv = NARROWED[name]
    assert narrow.chained["head_dim_width"] == [d, dv]
    assert "head_dim_width" not in generic.chained
    said = [str(r) for r in narrow.remarks if "the dots run the arrays' head dims" in str(r)]
    assert said and re.search(r"attnsweep36_programs\.py:\d+:\d+: remark", said[0]), narrow.remarks
    assert f"N = {dv} of the tile's" in said[0]
    shapes = set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16", narrow.ptx))
    assert str(dv) in shapes, shapes
    generic_shapes = set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16", generic.ptx))
    assert str(dv) not in generic_shapes or dv == p.spec[-2], generic_shapes


@pytest.mark.parametrize("name", sorted(NARROWED))
def test_specialised_program_matches_numpy(name, _sweep):
    if name not in QUICK and not os.environ.get("TILEORCH_EMULATE_ALL"):
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every program")
    x = inputs(name, lambda shape, dt: RNG.standard_normal(shape).astype(np.float16), lambda a: a)
    key = f"{name}__f16" if f"{name}__f16" in TWINS else name
    grid = tuple(PROGRAMS[name].grid) + (1,) * (3 - len(PROGRAMS[name].grid))
    out = s3._chained(key, x, grid)
    for pos, ref in reference(name, x).items():
        got = np.asarray(out[pos], np.float64)
        assert not np.isnan(got).any(), f"argument {pos}: unwritten (or NaN) outputs"
        np.testing.assert_allclose(got, ref, atol=3e-3, rtol=1e-2)


KEPT = ("s36_bn256_plain", "s36_q_prescaled_d96", "s36_sample_kt_view_d96", "s36_kt_array_cross_d96",
        "s36_o_transposed_d80_bf16")
"""Sweep programs the launcher does not specialise: a head dim as wide as the tile (d64 in 64); a Q computed from
its tile (a prologue), K through a transposing view, K stored ``[BH, D, S]``, O stored transposed (the tile's
width runs)."""


def test_full_width_programs_are_not_specialised():
    for name in KEPT if os.environ.get("TILEORCH_EMULATE_ALL") else KEPT[:2]:
        p = PROGRAMS[name]
        generic, narrow = _specialised(p.kernel, p.spec, name)
        assert generic.kind == "chained" and narrow is None, name


S = Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(2,))]
C = ct.Constant


@ct.kernel
def plain_static(Q: S, K: S, V: S, O: S, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """s36_plain with its arrays' head dims compile-time constants (the user's annotation)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = _tile3(K, bh, j, BN, D)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def q_prescaled_static(Q: S, K: S, V: S, O: S, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """s36_q_prescaled with compile-time head dims: Q computed from its tile before the loop (a prologue the
    kernel applies in place to the Q tile): the tile's width runs, remarked."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = (_tile3(Q, bh, qt, BM, D).astype(ct.float32) * qk_scale).astype(Q.dtype)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


def _static_program(d: int, sq: int, sk: int, bm: int, bn: int, tile: int):
    from tileorch.testing.user_programs import UserProgram

    spec = _bhsd(1, sq, sk, d) + [scale2(d), bm, bn, tile]
    return UserProgram(plain_static, spec, (-(-sq // bm), 1), "chained", outputs=(3,))


def _attention(q, k, v, d):
    s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


STATIC = [(80, 70, 150, 64, 64, 128), (72, 70, 150, 64, 64, 128), (96, 70, 150, 64, 64, 128),
          (48, 70, 150, 64, 64, 64), (80, 130, 300, 128, 128, 128), (80, 70, 300, 64, 256, 128)]
"""(head dim, Sq, Sk, BM, BN, D tile): d72 runs 80 columns (the 8 past the arrays zero-filled Q/K and never-stored
O columns), the rest their head dim."""


@pytest.mark.parametrize("case", STATIC, ids=lambda c: "d{}_{}x{}_{}x{}_tile{}".format(*c))
def test_static_head_dims_match_numpy(case):
    if case != STATIC[1] and not os.environ.get("TILEORCH_EMULATE_ALL"):
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every case")
    from tileorch.testing.gemm_emulation import compile_cutile

    d = case[0]
    p = _static_program(*case)
    prog = compile_cutile(p.kernel, p.spec, "plain_static")
    assert prog.chained["head_dim_width"] == [-(-d // 16) * 16] * 2
    x = {i: RNG.standard_normal(p.spec[i][0]).astype(np.float16) for i in range(3)}
    out = s3._chained("plain_static", x, tuple(p.grid) + (1,), program=p)
    got = out[3].astype(np.float64)
    assert not np.isnan(got).any()
    ref = _attention(*(x[i].astype(np.float64) for i in range(3)), d)
    np.testing.assert_allclose(got, ref, atol=3e-3, rtol=1e-2)


def test_q_prologue_keeps_the_tile_width():
    """Q computed from its tile (a prologue): the dots run the tile's width, and a located remark says why."""
    from tileorch.testing.gemm_emulation import compile_cutile

    spec = _bhsd(1, 70, 150, 80) + [scale2(80), 64, 64, 128]
    prog = compile_cutile(q_prescaled_static, spec, "q_prescaled_static")
    assert prog.kind == "chained" and "head_dim_width" not in prog.chained
    said = [str(r) for r in prog.remarks if "narrower than the 128 / 128-wide tiles" in str(r)]
    assert said and "a Q or K tile computed from its load (a prologue)" in said[0], prog.remarks
    assert re.search(r"\.py:\d+:\d+: remark", said[0])


def test_launch_choice_compiles_for_the_launch_head_dims():
    """The launcher's choice (``head_dim_variant.choice``, what ``tileorch.cutile.launch`` calls before launching a
    chained program): the program compiled for the arrays' head dims, a launch remark naming them and the widths,
    the arguments it was compiled for (the same entry parameters); a launch as wide as the tiles, or the switch off,
    launches the entry as compiled."""
    from tileorch.launchers import cutile as rc
    from tileorch.launchers.head_dim_variant import choice
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import described_arguments

    p = PROGRAMS["s36_d80_plain"]
    args = described_arguments(p.kernel, p.spec)
    entry = rc._Compiled(compile_once(rc.export_bytecode(p.kernel, args), "s36_d80_plain", arch="sm_90a",
                                      ptxas=False))
    asked = []

    def compile_for(a):
        asked.append(a)
        return rc._Compiled(compile_once(rc.export_bytecode(p.kernel, a), "s36_d80_plain", arch="sm_90a",
                                         ptxas=False))

    chosen, remark, launched = choice(entry, args, rc.flat_parameters(args), compile_for)
    assert chosen.program.chained["head_dim_width"] == [80, 80]
    assert "Q 80, K 80, V 80, O 80" in remark and "the dots run 80 / 80 columns" in remark, remark
    assert rc.flat_parameters(launched) == rc.flat_parameters(args)
    assert [a.static_shape for a in launched if isinstance(a, rc.ArrayArg)] == [(None, None, 80)] * 4
    wide = described_arguments(p.kernel, [((4, 150, 128), "float16")] * 4 + list(p.spec[4:]))
    assert choice(entry, wide, rc.flat_parameters(wide), compile_for) == (entry, "", wide) and len(asked) == 1
    import tileorch.settings as settings

    with settings.overridden("TILEORCH_ATTN_HEAD_DIM_WIDTH", "0"):
        assert choice(entry, args, rc.flat_parameters(args), compile_for) == (entry, "", args) and len(asked) == 1


def test_widths_rounded_to_32(monkeypatch):
    """``TILEORCH_ATTN_HEAD_DIM_WIDTH=32``: head dim 80 runs 96 columns, 32-column boxes with the 64-byte swizzle
    (the 16 columns past the arrays zero-filled, never stored); emulated against numpy with
    ``TILEORCH_EMULATE_ALL=1``."""
    from tileorch.testing.gemm_emulation import compile_cutile

    monkeypatch.setenv("TILEORCH_ATTN_HEAD_DIM_WIDTH", "32")
    p = _static_program(80, 70, 150, 64, 64, 128)
    prog = compile_cutile(p.kernel, p.spec, "plain_static")
    assert prog.chained["head_dim_width"] == [96, 96]
    assert {(t["box"], t["swizzle"]) for t in prog.chained["tmaps"]} == {(32, 64)}
    assert "m64n96k16" in prog.ptx
    if not os.environ.get("TILEORCH_EMULATE_ALL"):
        return
    x = {i: RNG.standard_normal(p.spec[i][0]).astype(np.float16) for i in range(3)}
    out = s3._chained("plain_static", x, tuple(p.grid) + (1,), program=p)
    got = out[3].astype(np.float64)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, _attention(*(x[i].astype(np.float64) for i in range(3)), 80), atol=3e-3,
                               rtol=1e-2)


@dataclasses.dataclass(frozen=True)
class _Arg:
    """The fields of a launch argument ``specialised_arguments`` reads."""
    position: int
    shape: tuple
    ndim: int = 3
    column_major: bool = False
    static_shape: tuple | None = None


@pytest.mark.parametrize("setting, head_dim, specialised", [("1", 112, True), ("32", 112, False),
                                                             ("32", 80, True), ("1", 128, False)])
def test_launcher_rounds_head_dims_as_the_tier(monkeypatch, setting, head_dim, specialised):
    """The launcher compiles a head-dim variant only when the tier would run fewer columns than the tile: with
    ``=32`` head dim 112 rounds to the 128-wide tile (no variant: the one rounding rule, ``head_dim_rule``), with
    ``=1`` to 112."""
    from tileorch.launchers.head_dim_variant import specialised_arguments

    monkeypatch.setenv("TILEORCH_ATTN_HEAD_DIM_WIDTH", setting)
    record = {"head_dim_arrays": {"params": [0, 1], "tile": (128,)}}
    args = [_Arg(0, (4, 1000, head_dim)), _Arg(1, (4, 1000, head_dim))]
    found = specialised_arguments(record, args, [(0, "ptr"), (1, "ptr")])
    assert (found is not None) == specialised
    if specialised:
        assert [a.static_shape for a in found[0]] == [(None, None, head_dim)] * 2
