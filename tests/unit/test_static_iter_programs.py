"""Dot programs whose loop is unrolled (``tileorch.testing.static_iter_programs``: ``ct.static_iter``
or written out by hand) take the tensor-core tiers once ``tileas-reroll-unrolled-loops`` rolls the
copies back into a loop: each compiles to its path with the pass's remark at the user's line, and
its PTX runs on the CPU (``tileorch.testing.ptx_emulator``, every CTA, outputs NaN-prefilled)
against numpy float64 on the same inputs.  The SIMT path (asked for, or another architecture)
keeps the straight-line copies and says nothing about a re-roll.  Needs cuda-tile."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing import static_iter_programs  # noqa: E402
from tileorch.testing.static_iter_programs import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(1515)
SOURCE = static_iter_programs.__file__


@pytest.fixture(autouse=True)
def _programs(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _compiled(name, **options):
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[name]
    return compile_cutile(p.kernel, p.spec, name, **options)


def _reroll_remarks(prog):
    return [r for r in prog.remarks if "re-rolled into a loop for the tensor-core tier" in r]


@pytest.mark.parametrize("name,copies", [("attn_static_kv", 4), ("attn_static_kv_masked", 4),
                                         ("mm_static_iter_bias", 4),
                                         ("mm_persistent_static_k", 4), ("mm_k_written_out", 3)])
def test_takes_its_tier_with_the_remark_at_the_users_line(name, copies):
    prog = _compiled(name)
    assert prog.kind == PROGRAMS[name].path, prog.remarks
    assert not [r for r in prog.remarks if "refused" in r or "internal error" in r], prog.remarks
    rerolled = _reroll_remarks(prog)
    assert len(rerolled) == 1, prog.remarks
    assert rerolled[0].startswith(SOURCE + ":") and ": remark: " in rerolled[0], rerolled
    assert f"{copies} unrolled copies of a loop body" in rerolled[0], rerolled


@pytest.mark.parametrize("options", [{"schedule": "simt"}, {"arch": "sm_100a"}])
def test_the_simt_path_keeps_the_copies_and_says_nothing(options):
    """The path and the remarks are the lowering's: no back end (LLVM and ptxas on the straight-line
    copies' scalar FMAs were ~9 CPU s per case)."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["mm_static_iter_bias"]
    prog = lower_once(cutile_bytecode(p.kernel, p.spec), "mm_static_iter_bias", **{"arch": "sm_90a", **options})
    assert prog.kind == "simt"
    assert not _reroll_remarks(prog), prog.remarks


def test_gemm_static_iter_k_with_bias_and_relu_epilogue():
    a, b = _h(256, 256), _h(256, 256, scale=0.5)
    bias = RNG.standard_normal(256).astype(np.float32)
    c = s4._s3_gemm("mm_static_iter_bias", {0: a, 1: b, 2: bias})[3]
    ref = np.maximum(s4._mm(a, b) + bias[None, :].astype(np.float64), 0.0)
    s4._check(c, ref, 2e-2, 5e-3)  # C is f16


def test_persistent_gemm_with_a_static_iter_k_loop():
    """3 x 2 output tiles of 128 walked by 2 programs; each copy's views hoisted out of the tile loop."""
    a, b = _h(384, 256), _h(256, 256)
    c = s4._s3_gemm("mm_persistent_static_k", {0: a, 1: b})[2]
    s4._check(c, s4._mm(a, b), 6e-2, 2e-3)  # C is f16


def test_gemm_k_steps_written_out_by_hand():
    a, b = _h(128, 192), _h(192, 256)
    c = s4._s3_gemm("mm_k_written_out", {0: a, 1: b})[2]
    s4._check(c, s4._mm(a, b), 1e-3, 1e-5)


def test_attention_over_a_constant_number_of_key_tiles():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    prog = _compiled("attn_static_kv")
    assert prog.kind == "chained", prog.remarks
    o = s3._chained("attn_static_kv", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    s4._check(o, s4._softmax_attn(s4._scores(q, k, 1 / math.sqrt(64)), v))


def test_attention_with_the_keys_past_a_length_masked():
    """200 valid keys of 256 (the last of 4 key tiles partly masked); keys past 200 would dominate."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    k[:, 200:] = 100.0
    o = s3._chained("attn_static_kv_masked", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    s4._check(o, s4._softmax_attn(s4._scores(q, k[:, :200], 1 / math.sqrt(64)), v[:, :200]))
