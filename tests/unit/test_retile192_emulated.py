"""cuTile GEMM programs retiled to 128 x 192 tiles, the launcher's way (``launchers.cutile.retile_config``
on a problem whose wave quantisation picks 192: 200 x 400 on 6 SMs, 6 tiles of 192 columns against 4
of 256 and 8 of 128 in one wave of 6), their PTX run on the CPU by ``tileorch.testing.ptx_emulator``
against numpy float64, outputs NaN-prefilled (test_user_sweep3_emulated's harness: every CTA, the
launcher's problem derivation and tensor maps).  Ragged M, N and K (200 x 400 x 136: 192 does not
divide N, 64 does not divide K); epilogue operands (row scale, column bias, residual and gate tiles),
a B read transposed by its load (K-major), an f32 and an f16 output."""

from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402

RNG = np.random.default_rng(192)
M, N, K = 200, 400, 136
SMS = 6  # the test hook: 192 wins on this many SMs (wave efficiency 1.0 x 0.92 against 0.67 for 256 and 128)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _f(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _mm(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def _resized(name, shapes, table="user_programs3"):
    """``PROGRAMS[name]`` of ``tileorch.testing.<table>`` with its array arguments' shapes replaced
    (position -> shape)."""
    import importlib

    p = importlib.import_module(f"tileorch.testing.{table}").PROGRAMS[name]
    spec = [(shapes[i], s[1]) if i in shapes else s for i, s in enumerate(p.spec)]
    return dataclasses.replace(p, spec=spec)


def _retiled(p, name, rows=M, sms=SMS):
    """The override string the launcher compiles program ``p`` with at ``rows x N x K`` (rows: every
    batch's) on ``sms`` SMs, where 192-wide tiles fill the one wave."""
    from tileorch.kernels.gemm.config import override_string
    from tileorch.launchers.cutile import retile_config
    from tileorch.testing.gemm_emulation import compile_cutile

    own = compile_cutile(p.kernel, p.spec, name)
    assert own.kind == "gemm" and own.retile_safe, own.remarks
    chosen, why = retile_config(own.gemm_config, rows, N, K, own.gemm_config.b_major, "auto", sms, False)
    assert chosen.tile_n == 192 and "192-wide 1.00" in why, why
    return override_string(chosen)


def _compiled192(name, shapes, table="user_programs3", rows=M, sms=SMS, spills=False):
    """(program entry resized, override, compiled program) of ``name`` retiled to 192-wide tiles; its
    PTX assembles (ptxas sm_90a, when installed) without spills (``spills``: with them, as the
    launcher's fallback to the 192-less choice expects for the program)."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas
    from tileorch.testing.gemm_emulation import compile_cutile

    p = _resized(name, shapes, table)
    config = _retiled(p, name, rows, sms)
    prog = compile_cutile(p.kernel, p.spec, name, config=config)
    assert prog.gemm_config.tile_n == 192, prog.remarks
    if ptxas_available():
        assert bool(run_ptxas(prog.ptx, "sm_90a").spill_warnings()) == spills, name
    return p, config, prog


def _run(name, shapes, inputs, table="user_programs3", rows=M, sms=SMS, problem=None, spills=False, emulated=""):
    """Program ``name`` retiled to 192 (:func:`_compiled192`) run on the emulator, with one CTA per
    cluster (the emulator models no clusters) and the override's ``emulated`` fields on top."""
    p, config, _ = _compiled192(name, shapes, table, rows, sms, spills)
    config = ",".join([*(f for f in config.split(",") if not f.startswith("cluster_m=")), "cluster_m=1",
                       *filter(None, emulated.split(","))])
    return s3._gemm(name, inputs, program=p, config=config, problem=problem)


def _check(got, want, rtol, atol):
    assert not np.isnan(got.astype(np.float64)).any(), "unwritten (NaN) outputs"
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol)


def test_row_scale_and_column_bias_f32_out():
    a, b, r, cb = _h(M, K), _h(K, N, scale=0.25), _f(M), _f(N)
    out = _run("mm_rowscale_colbias", {0: (M, K), 1: (K, N), 2: (M,), 3: (N,), 4: (M, N)},
               {0: a, 1: b, 2: r, 3: cb})[4]
    _check(out, _mm(a, b) * r[:, None] + cb[None, :], 1e-4, 1e-4)


def test_residual_and_gate_tiles_f16_out():
    """Two ``[128, 192]`` epilogue tiles read at C's indices (an f16 residual, an f32 gate), an f16 C
    stored through the TMA epilogue's 192-column box.  Its 192 kernel spills (8 B; the 256 one 24 B):
    the launcher keeps the 192-less choice for it, the retile is still exact."""
    a, b, r, g = _h(M, K), _h(K, N, scale=0.25), _h(M, N), _f(M, N)
    out = _run("mm_residual_gate", {0: (M, K), 1: (K, N), 2: (M, N), 3: (M, N), 4: (M, N)},
               {0: a, 1: b, 2: r, 3: g}, spills=True)[4]
    _check(out, r.astype(np.float64) + g * _mm(a, b), 2e-2, 2e-2)


def test_b_read_transposed_by_its_load_k_major():
    """W ``[N, K]`` read with ``order=(1, 0)``: a K-major B, its 192-row box (the launcher's 2x1
    multicast of 96 rows: assembled here, run on the GPU test)."""
    a, w = _h(M, K), _h(N, K, scale=0.25)
    out = _run("mm_load_order_bt", {0: (M, K), 1: (N, K), 2: (M, N)}, {0: a, 1: w})[2]
    _check(out, _mm(a, w.T), 2e-2, 2e-2)


def test_c_accumulated_in_place_f32():
    """``C += A @ B``: C's ``[128, 192]`` tile read as the accumulator's start (its 192 kernel spills:
    the launcher's 192-less choice runs it)."""
    a, b, c = _h(M, K), _h(K, N, scale=0.25), _f(M, N)
    out = _run("mm_accumulate_into_c", {0: (M, K), 1: (K, N), 2: (M, N)}, {0: a, 1: b, 2: c}, spills=True)[2]
    _check(out, _mm(a, b) + c, 1e-4, 1e-4)


def test_batched_3d():
    """Two batches of 200 x 400 x 136 (the launcher's rows: 400; 12 tiles of 192 columns fill 12 SMs);
    emulated with the direct epilogue (the emulator models 2-D bulk tensor stores only)."""
    a, b = _h(2, M, K), _h(2, K, N, scale=0.25)
    out = _run("gemm_batched_3d", {0: (2, M, K), 1: (2, K, N), 2: (2, M, N)}, {0: a, 1: b},
               table="user_programs2", rows=2 * M, sms=12, problem=lambda cfg, m, n, k: (m, n, k, 2), emulated="epilogue=direct")[2]
    _check(out, _mm(a, b), 2e-2, 2e-2)


@pytest.mark.parametrize("name", ["mm_int8_i32", "mm_fp8_out"])
def test_8bit_programs_compile_at_192_without_spills(name):
    """int8 (s32 out) and fp8-output programs: retiled to 192 and assembled (their results: the GPU
    test, tests/gpu/test_retile192_gpu.py; the emulator's subset has no 8-bit MMA)."""
    from tileorch.testing.user_programs3 import PROGRAMS

    dt = PROGRAMS[name].spec[0][1]
    shapes = {0: (M, 2 * K if dt == "int8" else K), 1: (2 * K if dt == "int8" else K, N), 2: (M, N)}
    _, config, prog = _compiled192(name, shapes)
    assert "tile_n=192" in config and prog.kind == "gemm"


# ----------------------------------------------------------------------------------------------- the launch decision


class _FakeImage:
    """A kernel image that records what it is prepared and launched with (no device)."""

    def __init__(self, cfg, seen):
        self.cfg, self.seen = cfg, seen

    def prepare(self, *args, **kw):
        staging = type("S", (), {"warn": staticmethod(lambda *a, **k: None)})()
        seen = self.seen
        seen.append(("prepare", self.cfg.tile_n))
        return type("P", (), {"staging": staging, "launcher": lambda self: (lambda stream: seen.append("launched"))})()


def _launched(monkeypatch, spilled_192: bool):
    """``_launch_gemm`` of ``mm_rowscale_colbias`` at ``M x N x K`` on :data:`SMS` SMs, the tile program's
    auto retile, with a stand-in compile (its program's remarks: a ptxas spill at 192 when
    ``spilled_192``): (the overrides compiled, the tile widths prepared, the own entry's remarks)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.gemm_emulation import compile_cutile

    p = _resized("mm_rowscale_colbias", {0: (M, K), 1: (K, N), 2: (M,), 3: (N,), 4: (M, N)})
    prog = compile_cutile(p.kernel, p.spec, "mm_rowscale_colbias")
    seen, asked = [], []

    def fake_compiled(kernel, arguments, arch, schedule, config=""):
        asked.append(config)
        tile_n = int(dict(f.split("=") for f in config.split(","))["tile_n"])
        remarks = ["warning: ptxas spilled registers of k: 8 B stores, 4 B loads (168 registers)"] \
            if spilled_192 and tile_n == 192 else []
        cfg = dataclasses.replace(prog.gemm_config, tile_n=tile_n)
        return rc._Compiled(dataclasses.replace(prog, gemm_config=cfg, remarks=remarks, kernel=cfg.name),
                            image=_FakeImage(cfg, seen))

    monkeypatch.setattr(rc, "compiled", fake_compiled)
    monkeypatch.setattr(rc, "_prepared", type(rc._prepared)())
    monkeypatch.setattr(rc, "pack_simt_arguments", lambda arguments: [])
    own = rc._Compiled(prog, image=_FakeImage(prog.gemm_config, seen))
    args = s3._described(p, {i: (i + 1) << 32 for i in range(5)})
    rc._launch_gemm(own, p.kernel, args, "sm_90a", "auto", 7, type("D", (), {"sm_count": SMS})(), False)
    return asked, [s[1] for s in seen if isinstance(s, tuple)], own.launch_remarks[(1, 1, 1)]


def test_the_launch_retiles_to_192_and_says_why(monkeypatch):
    asked, prepared, why = _launched(monkeypatch, spilled_192=False)
    assert len(asked) == 1 and asked[0].startswith("tile_n=192,stages=4,cluster_m=1,"), asked
    assert prepared == [192]
    assert why.startswith("remark: retiled to 128 x 192 tiles") and "192-wide 1.00" in why, why


def test_a_spilled_192_kernel_falls_back_to_the_rule_without_192(monkeypatch):
    asked, prepared, why = _launched(monkeypatch, spilled_192=True)
    assert [a.split(",")[0] for a in asked] == ["tile_n=192", "tile_n=256"], asked
    assert prepared == [256]
    assert "retiled to 128 x 256 tiles" in why and "192-wide tiles not taken: ptxas spilled" in why, why


def test_c_stored_transposed():
    """``Ct [N, M]`` written through the store's ``order=(1, 0)``: the ``[192, 128]`` transposed tiles."""
    a, b = _h(M, K), _h(K, N, scale=0.25)
    out = _run("mm_store_order_transposed", {0: (M, K), 1: (K, N), 2: (N, M)}, {0: a, 1: b},
               table="user_programs8")[2]
    _check(out, _mm(a, b).T, 2e-2, 2e-2)


def test_batched_b_shared_by_every_batch_f32_out():
    """``A [2, M, K]`` times ``B [1, K, N]`` read at batch 0 (``b_shared``), an f32 C."""
    a, b = _h(2, M, K), _h(1, K, N, scale=0.25)
    out = _run("mm_broadcast_b_unit_batch", {0: (2, M, K), 1: (1, K, N), 2: (2, M, N)}, {0: a, 1: b},
               table="user_programs4", rows=2 * M, sms=12, problem=lambda cfg, m, n, k: (m, n, k, 2))[2]
    _check(out, _mm(a, b), 1e-4, 1e-4)


@pytest.mark.parametrize("table, name", [("user_programs8", "mm_fp8_e5m2_both"),
                                         ("user_programs9", "mm_fp8_rowwise_scales"),
                                         ("user_programs5", "mm_fp8_tensor_scales")])
def test_fp8_input_programs_compile_at_192_without_spills(table, name, monkeypatch):
    """fp8 operands (B copied K-major at launch, ``transpose_b``) with and without scale epilogues, summed in
    one level (``TILEORCH_FP8_PROMOTE_INTERVAL=0``): retiled to 192 in 2x1 clusters (the launcher's choice at
    ``M x N x K``) and assembled, at the program's own array shapes (results: the GPU test).  Promoted (the
    default) the retile runs 128 columns: the next test."""
    monkeypatch.setenv("TILEORCH_FP8_PROMOTE_INTERVAL", "0")
    _, config, prog = _compiled192(name, {}, table)
    assert "tile_n=192" in config and prog.gemm_config.transpose_b


@pytest.mark.parametrize("table, name", [("user_programs8", "mm_fp8_e5m2_both"),
                                         ("user_programs9", "mm_fp8_rowwise_scales")])
def test_promoted_fp8_programs_retile_to_128_columns(table, name):
    """With two-level accumulation (the default) the launcher's 192-wide choice runs as 128 x 128 (the accumulator
    and its scratch take the consumer's 128 accumulator registers at 128 columns), said in the retile remark, and
    the tier promotes the kernel it was given (session 40: the retiled configuration carried no promotion)."""
    from tileorch.kernels.gemm.config import override_string
    from tileorch.launchers.cutile import retile_config
    from tileorch.testing.gemm_emulation import compile_cutile

    p = _resized(name, {}, table)
    own = compile_cutile(p.kernel, p.spec, name)
    assert own.gemm_config.fp8_promote == 1, own.remarks
    chosen, why = retile_config(own.gemm_config, M, N, K, own.gemm_config.b_major, "auto", SMS, False)
    assert (chosen.tile_n, chosen.fp8_promote) == (128, 1) and "the 128x192 tile runs as 128x128" in why, why
    prog = compile_cutile(p.kernel, p.spec, name, config=override_string(chosen))
    assert (prog.gemm_config.tile_n, prog.gemm_config.fp8_promote) == (128, 1), prog.remarks


# ------------------------------------------------------------------- a retile whose kernel spills: narrowed until not


def _launched_compiled(monkeypatch, name, shapes, m, n, k, sms=132):
    """``_launch_gemm`` of ``name`` resized to ``shapes`` (an ``m x n x k`` problem) on ``sms`` SMs, each override
    compiled for real (ptxas on the CPU: its spill report in the program's remarks), the kernel images stand-ins:
    (the compiled entries by override, the entries prepared to run, the own entry's launch remark, the warnings)."""
    from tileorch.backend.ptxas import ptxas_available
    from tileorch.launchers import cutile as rc
    from tileorch.testing.gemm_emulation import compile_cutile

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    p = _resized(name, shapes)
    prog = compile_cutile(p.kernel, p.spec, name)
    seen, done = [], {}
    real = rc.compiled

    class Image(_FakeImage):
        def prepare(self, *a, **kw):
            seen.append(self.entry)
            return super().prepare(*a, **kw)

    def compiled_here(kernel, arguments, arch, schedule, config=""):
        entry = real(kernel, arguments, arch, schedule, config)
        entry.image = Image(entry.program.gemm_config, seen)
        entry.image.entry = done[config] = entry
        return entry

    monkeypatch.setattr(rc, "compiled", compiled_here)
    monkeypatch.setattr(rc, "materialized", lambda entry, *a: entry)
    monkeypatch.setattr(rc, "_prepared", type(rc._prepared)())
    monkeypatch.setattr(rc, "pack_simt_arguments", lambda arguments: [])
    own = rc._Compiled(prog, image=_FakeImage(prog.gemm_config, seen))
    args = s3._described(p, {i: (i + 1) << 32 for i in range(len(p.spec))})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rc._launch_gemm(own, p.kernel, args, "sm_90a", "auto", 7, type("D", (), {"sm_count": sms})(), False)
    prepared = [s for s in seen if isinstance(s, rc._Compiled)]
    return done, prepared, own.launch_remarks[(1, 1, 1)], [str(w.message) for w in caught]


@pytest.mark.parametrize("name, shapes", [
    # (200 x 300: two tiles each way, the auto rule's 128 x 256 in 2x1 clusters; a problem of one tile, as session
    # 40's 100 x 80, takes the narrowest covering tile in 1x1 since session 42: test_gemm_auto_tiles.py)
    ("mm_accumulate_into_c", {0: (200, 64), 1: (64, 300), 2: (200, 300)}),  # C read as the accumulator's start
    pytest.param("mm_residual_gate", {0: (200, 64), 1: (64, 300), 2: (200, 300), 3: (200, 300), 4: (200, 300)},
                 marks=pytest.mark.skipif(not os.environ.get("TILEORCH_EMULATE_ALL"),
                                          reason="CI-sized subset: TILEORCH_EMULATE_ALL=1 runs it")),  # R + G * (A @ B)
])
def test_a_c_reading_retile_runs_a_kernel_that_does_not_spill(monkeypatch, name, shapes):
    """Session 40's final read: the launcher retiled a 100 x 80 C-reading GEMM to 128 x 256 tiles in 2x1 clusters,
    whose kernel spilled (ptxas: 60 B stores, 56 B loads; a PerformanceWarning at every launch), and backed off only
    a spilling 192-wide choice.  Now the kernel that runs is the first narrower retile that ptxas assembles without
    spilling (the compile's own spill report), and the remark names it and the reports it was chosen by."""
    from tileorch.backend.ptxas import run_ptxas
    from tileorch.launchers.cutile import spilled

    done, prepared, why, warned = _launched_compiled(monkeypatch, name, shapes, 200, 300, 64)
    assert len(prepared) == 1, (prepared, why)
    running = prepared[0].program
    assert not spilled(prepared[0]) and not run_ptxas(running.ptx, "sm_90a").spill_warnings(), why
    assert not [w for w in warned if "spill" in w], warned
    cfg = running.gemm_config
    assert f"runs as 128 x {cfg.tile_n} tiles in {cfg.cluster_m}x1 clusters, the first that does not spill" in why, why
    assert len(done) >= 2, why  # (the auto rule's 128 x 256 choice compiled first: it spilled)
