"""Several program instances per CTA, their final atomics combined (``tileaa_to_simt/combined_atomics.py``), on the
PTX emulator and the SIMT interpreter against numpy: sweep 15's cross entropy forward (a loss sum, f32 ``addf``,
and a valid count, i32 ``add``, both ``acq_rel``) over ragged rows with ignored labels, its log-sum-exp prefilled
with NaN, at 1, 2, 3 and 8 instances per CTA over 7 rows (a last CTA with fewer instances; more instances per
CTA than rows); the atomics the emulator executed (one pair per CTA); integer folds (add, max, min, or, xor of
per-row values, masked past a short array) compared exactly; a program whose counter is per row keeps one
instance per CTA with a remark that says why; on by default (``auto``, session 34), ``=0`` turning it off; and the
driver's spill-aware refusal (a combined kernel that ptxas spills is compiled again without).  Needs cuda-tile and
ml_dtypes, no GPU (the refusal's test ptxas)."""

from __future__ import annotations

import collections

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

ROWS, BV = 7, 256
V = 2 * BV + 5  # three tiles a row, the last of 5 columns


def _bf16(a):
    return (np.asarray(a, np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)


def _ce_inputs(seed):
    rng = np.random.default_rng(seed)
    x = _bf16(rng.standard_normal((ROWS, V)) * 3)
    labels = np.array([1, -100, V - 1, 7, 300, -100, 0], np.int64)
    return x, labels


def _ce_reference(x, labels):
    xd = x.astype(np.float64)
    lse = np.log(np.exp(xd).sum(1))
    keep = labels != -100
    return lse, (lse - xd[np.arange(ROWS), np.where(keep, labels, 0)])[keep].sum(), keep.sum()


def _ce_spec():
    return [((ROWS, V), "bfloat16"), ((ROWS,), "int64"), ((ROWS,), "float32"), ((1,), "float32"), ((1,), "int32"),
            -100, BV]


@pytest.mark.parametrize("per_cta", [1, 2, 3, 8])
def test_cross_entropy_instances_per_cta_emulated(per_cta, monkeypatch):
    from tileorch.testing import ptx_emulator
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    monkeypatch.setenv("TILEORCH_COMBINE_ATOMICS", "auto")  # (the default since session 34; set: a user's env)
    monkeypatch.setenv("TILEORCH_CTA_PROGRAMS", str(per_cta))
    made = []

    class Counted(ptx_emulator.Emu):
        count_instructions = True

        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)

    monkeypatch.setattr(ptx_emulator, "Emu", Counted)
    x, labels = _ce_inputs(per_cta)
    got = s10e.emulate_kernel(monkeypatch, "ce_combined", kernel,
                              [x, labels, np.full(ROWS, np.nan, np.float32), np.zeros(1, np.float32),
                               np.zeros(1, np.int32)], (-100, BV), (ROWS,))
    lse, loss, count = _ce_reference(x, labels)
    np.testing.assert_allclose(got[2], lse, rtol=2e-6, atol=2e-6)  # every row once, none twice or missed
    assert got[4][0] == count
    np.testing.assert_allclose(got[3][0], loss, rtol=1e-5)
    ctas = -(-ROWS // per_cta)
    assert len(made) == ctas
    ops = sum((emu.traffic for emu in made), start=collections.Counter())
    atoms = {k[3:]: v for k, v in ops.items() if k.startswith("op:atom")}
    assert atoms == {"atom.global.add.f32": ctas, "atom.global.add.u32": ctas}, atoms  # (thread 0 of each CTA)


def test_cross_entropy_combined_interp(monkeypatch):
    """The lowered kernel on the SIMT interpreter (3 instances per CTA: CTAs of 3, 3 and 1 rows)."""
    import test_user_sweep_interp as sweep

    from tileorch.testing.user_programs import UserProgram
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    monkeypatch.setenv("TILEORCH_COMBINE_ATOMICS", "auto")
    monkeypatch.setitem(sweep.PROGRAMS, "ce_combined_interp", UserProgram(kernel, _ce_spec(), (ROWS,), "simt"))
    x, labels = _ce_inputs(5)
    out = sweep.run("ce_combined_interp", {0: x, 1: labels, 3: np.zeros(1, np.float32), 4: np.zeros(1, np.int32)})
    lse, loss, count = _ce_reference(x, labels)
    np.testing.assert_allclose(out[2], lse, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(out[3][0], loss, rtol=1e-5)
    assert out[4][0] == count


@ct.kernel
def _int_folds(X, Bins, Stats, B: ct.Constant[int]):
    """Row ``r`` of int32 ``X`` adds its ``B`` values into ``Bins`` (shorter than ``B``: the bounds check masks the
    rest) and its max, min, the bitwise or of its sum's low 12 bits and the xor of 7 times its sum into
    ``Stats[0..3]``."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, B)).reshape((B,))
    ct.atomic_add(Bins, ct.arange(B, dtype=ct.int32), x)
    ct.atomic_max(Stats, 0, ct.max(x))
    ct.atomic_min(Stats, 1, ct.min(x))
    ct.atomic_or(Stats, 2, ct.sum(x) & 0xFFF)
    ct.atomic_xor(Stats, 3, ct.sum(x) * 7)


def test_integer_folds_exact(monkeypatch):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_COMBINE_ATOMICS", "exact")
    rng = np.random.default_rng(7)
    b, nb = 32, 29
    x = rng.integers(-1000, 1000, (ROWS, b), dtype=np.int32)
    spec = [((ROWS, b), "int32"), ((nb,), "int32"), ((4,), "int32"), b]
    prog = compile_once(cutile_bytecode(_int_folds, spec), "int_folds", arch="sm_90a", ptxas=False)
    assert prog.cta_programs == 1
    assert any("5 final atomic(s) folded" in r and "integer folds: exact" in r for r in prog.remarks), prog.remarks
    bins0 = rng.integers(-5, 5, nb, dtype=np.int32)
    stats0 = np.array([-(1 << 31), (1 << 31) - 1, 0, 12345], np.int32)
    got = s10e.emulate_kernel(monkeypatch, "int_folds", _int_folds, [x, bins0.copy(), stats0.copy()], (b,), (ROWS,))
    np.testing.assert_array_equal(got[0], x)
    np.testing.assert_array_equal(got[1], bins0 + x[:, :nb].sum(0))
    sums = x.astype(np.int64).sum(1)
    want_or = np.bitwise_or.reduce((sums & 0xFFF).astype(np.int32))
    xored = np.bitwise_xor.reduce(np.append((sums * 7).astype(np.int32), stats0[3]))
    want = np.array([x.max(), x.min(), want_or, xored], np.int32)
    np.testing.assert_array_equal(got[2], want)


@ct.kernel
def _per_row_counter(X, Cnt, B: ct.Constant[int]):
    """Row ``r`` adds its sum into ``Cnt[r % 2]``: the address depends on the program id."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, B)).reshape((B,))
    ct.atomic_add(Cnt, r % 2, ct.sum(x))


def test_per_row_address_not_combined(monkeypatch):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_COMBINE_ATOMICS", "auto")
    rng = np.random.default_rng(3)
    x = rng.integers(-50, 50, (ROWS, 16), dtype=np.int32)
    spec = [((ROWS, 16), "int32"), ((2,), "int32"), 16]
    prog = compile_once(cutile_bytecode(_per_row_counter, spec), "per_row_counter", arch="sm_90a", ptxas=False)
    assert prog.cta_programs == 0
    assert any("one program instance per CTA" in r and "program id along x" in r for r in prog.remarks), prog.remarks
    got = s10e.emulate_kernel(monkeypatch, "per_row_counter", _per_row_counter, [x, np.zeros(2, np.int32)], (16,),
                              (ROWS,))
    sums = x.sum(1)
    np.testing.assert_array_equal(got[1], [sums[0::2].sum(), sums[1::2].sum()])


def test_launch_is_one_wave_of_resident_ctas(monkeypatch):
    """The launch's choice (``tileorch.launchers.cutile.instances_per_cta``): one wave of resident CTAs along x
    (over the grid's y and z), each CTA every G-th instance, ceil(x / G) of them, at most 4 a CTA by default
    (``TILEORCH_CTA_PROGRAMS_MAX``; 0: the one wave whatever it gives); one instance a CTA for a grid that is one
    wave already; ``TILEORCH_CTA_PROGRAMS`` forces the instances per CTA."""
    from tileorch.launchers.cutile import combined_launch, instances_per_cta

    monkeypatch.delenv("TILEORCH_CTA_PROGRAMS", raising=False)
    monkeypatch.delenv("TILEORCH_CTA_PROGRAMS_MAX", raising=False)
    assert instances_per_cta((32768, 1, 1), 16, 132) == (8192, 4)  # CE 4096: a wave would run 16 rows a CTA
    assert instances_per_cta((8000, 1, 1), 16, 132) == (2112, 4)  # (ceil(8000 / 2112) = 4: the wave itself)
    assert instances_per_cta((1000, 1, 1), 16, 132) == (1000, 1)
    assert instances_per_cta((5000, 2, 1), 16, 132) == (1250, 4)
    monkeypatch.setenv("TILEORCH_CTA_PROGRAMS_MAX", "0")
    assert instances_per_cta((32768, 1, 1), 16, 132) == (2112, 16)  # 16 CTAs of 128 threads an SM, one wave
    assert instances_per_cta((5000, 2, 1), 16, 132) == (1056, 5)
    assert instances_per_cta((7, 1, 1), 0, 1) == (1, 7)  # (nothing resident reported: one)
    monkeypatch.setenv("TILEORCH_CTA_PROGRAMS_MAX", "8")
    assert instances_per_cta((32768, 1, 1), 16, 132) == (4096, 8)
    assert combined_launch((32768, 1, 1), 2112, 16) == ([32768, 16], (2112, 1, 1))
    with pytest.raises(AssertionError):
        combined_launch((32768, 1, 1), 2048, 15)  # would miss instances
    monkeypatch.setenv("TILEORCH_CTA_PROGRAMS", "5")
    assert instances_per_cta((32768, 1, 1), 16, 132) == (6554, 5)


def test_on_by_default_and_off_by_its_switch(monkeypatch):
    """The default is ``auto`` (session 34): the CE's float loss sum and integer count are combined, and the remark
    says the float add is reassociated; ``TILEORCH_COMBINE_ATOMICS=0`` compiles the one-instance-per-CTA kernel
    (no trailing parameters: fewer ``.param`` s, no remark)."""
    import re

    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    data = cutile_bytecode(kernel, _ce_spec())
    monkeypatch.delenv("TILEORCH_COMBINE_ATOMICS", raising=False)
    on = compile_once(data, "ce_combined_default", arch="sm_90a", ptxas=False)
    said = [r for r in on.remarks if "final atomic(s) folded" in r]
    assert on.cta_programs == 1 and len(said) == 1, on.remarks
    assert "2 final atomic(s)" in said[0] and "1 of them float adds" in said[0] and "bracketing" in said[0]
    monkeypatch.setenv("TILEORCH_COMBINE_ATOMICS", "0")
    off = compile_once(data, "ce_combined_default", arch="sm_90a", ptxas=False)
    assert off.cta_programs == 0 and not any("combined_atomics" in r for r in off.remarks), off.remarks

    def params(ptx):
        return len(re.findall(r"\.param\s", ptx.split(")", 1)[0]))

    assert params(on.ptx) == params(off.ptx) + 2


def test_spilling_combined_kernel_is_compiled_again_without(monkeypatch):
    """The spill-aware refusal (``driver._without_combined_atomics``): told that ptxas spilled the combined kernel
    (after the hint was dropped), the driver compiles the program again with the rewrite off and keeps that one,
    with a remark naming the spill; told of no spill, it keeps the combined kernel (None: nothing compiled again)."""
    from tileorch import driver
    from tileorch.backend.ptxas import ptxas_available
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    monkeypatch.delenv("TILEORCH_COMBINE_ATOMICS", raising=False)
    data = cutile_bytecode(kernel, _ce_spec())

    class Assembled:
        def __init__(self, name, spills):
            self.resources = {name: {"spill_stores": spills, "spill_loads": spills, "registers": 255}}

    name = "k"
    args = (data, "ce", "sm_90a", "persistent", True, "", 0.0, True)
    assert driver._without_combined_atomics(Assembled(name, 0), name, *args) is None
    plain = driver._without_combined_atomics(Assembled(name, 64), name, *args)
    assert plain is not None and plain.cta_programs == 0 and plain.cubin, plain
    said = [r for r in plain.remarks if "one program instance per CTA: with its final atomics combined" in r]
    assert len(said) == 1 and "64 B stores" in said[0] and "no spill" in said[0], plain.remarks
