"""Session 36's attention-shaped sweep (``tileorch.testing.attnsweep36_programs``): each chained kernel's PTX run on
the CPU by ``tileorch.testing.ptx_emulator`` (every CTA of the launch, the launcher's tensor maps and parameters:
test_user_sweep3_emulated's runner) against the float64 numpy reference of ``tileorch.testing.attnsweep36_refs``
(written from the programs' docstrings), outputs NaN-prefilled, the spec's ragged sizes.  The emulator's WGMMA is
f16: a bf16 program runs as its f16 twin (its bf16 form compiles in test_attnsweep36_compile.py and runs on the GPU
in tests/gpu/test_attnsweep36_gpu.py).  CI runs :data:`QUICK`; ``TILEORCH_EMULATE_ALL=1`` runs every chained
program.  Needs cuda-tile."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.attnsweep36_programs import HASH_MUL, PROGRAMS  # noqa: E402
from tileorch.testing.attnsweep36_refs import dropout_keep, inputs, reference  # noqa: E402

RNG = np.random.default_rng(36020)
TWINS = {f"{n}__f16": dataclasses.replace(p, spec=[(s[0], "float16", *s[2:]) if isinstance(s, tuple) and
                                                   s[1] == "bfloat16" else s for s in p.spec])
         for n, p in PROGRAMS.items() if any(isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}
QUICK = {"s36_d80_bshd_cross_strided", "s36_window_two_bounds", "s36_document_mask", "s36_dropout_hashed",
         "s36_lse_natural_f32out_d80", "s36_sample_gqa_bshd_order", "s36_o_transposed_bm128", "s36_scale_in_exp"}
"""The programs CI emulates (the rest with ``TILEORCH_EMULATE_ALL=1``)."""
CHAINED = sorted(n for n, p in PROGRAMS.items() if p.path == "chained")


@pytest.fixture(autouse=True)
def _sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})


def _make(shape, dtype):
    return RNG.standard_normal(shape).astype(np.float16)  # (bf16 programs: their f16 twins)


@pytest.mark.parametrize("name", CHAINED)
def test_chained_program_matches_numpy(name):
    if name not in QUICK and not os.environ.get("TILEORCH_EMULATE_ALL"):
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every program")
    x = inputs(name, _make, lambda a: a)
    key = f"{name}__f16" if f"{name}__f16" in TWINS else name
    grid = tuple(PROGRAMS[name].grid) + (1,) * (3 - len(PROGRAMS[name].grid))
    out = s3._chained(key, x, grid)
    for pos, ref in reference(name, x).items():
        got = np.asarray(out[pos], np.float64)
        assert not np.isnan(got).any(), f"argument {pos}: unwritten (or NaN) outputs"
        np.testing.assert_allclose(got, ref, atol=3e-3, rtol=1e-2)


def test_every_program_has_a_reference():
    """Each program's inputs and reference build (the SIMT ones' too: the GPU test runs them), every output the
    table names referenced."""
    for name, p in PROGRAMS.items():
        refs = reference(name, inputs(name, _make, lambda a: a))
        assert set(refs) == set(p.outputs), name


def test_dropout_reference_hash_is_the_docstrings():
    """The reference's hash on hand-computed values (seed 1, head 0, query 0: key 0 gives x = 1 -> kept; key 1
    gives x = 1 ^ 1 = 0 -> dropped for any keep_min > 0)."""
    assert dropout_keep(0, 1, 2, 1, 1).tolist() == [[True, False]]
    x = np.int32((2 * 65599 + 3) ^ (5 + 977))
    with np.errstate(over="ignore"):
        x = np.int32(x * np.int32(HASH_MUL))
    x ^= x >> 15
    assert dropout_keep(1, 3, 4, 5, 0x8000)[2, 3] == bool((x & 0xFFFF) >= 0x8000)
