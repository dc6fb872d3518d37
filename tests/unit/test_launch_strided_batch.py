"""A batched GEMM launched on operands whose matrices are not stacked stays on the tensor cores (session 42, issue 20's
"every launch on the path its compile took"):

* a **strided batch** of A or B (every other matrix of a larger buffer: ``x[::2]``) is the batch dimension's stride of
  the operand's 3-D tensor map (:func:`tileorch.launchers.gemm_host.batched_map`'s ``batch_pitch``), checked here
  against numpy's own address of each element of such a view (hypothesis);
* a **B broadcast over the batch by a stride of 0** (``w.expand(L, K, N)``) runs the kernel compiled with
  ``b_shared=1`` (one B matrix in its tensor map, every work tile loading it at batch index 0; the lowering's
  override, FileCheck ``tests/filecheck/tileas/tier_b_shared_override.mlir``);
* what no tensor map takes (a batch stride that is not a multiple of 16 bytes, A broadcast by a stride of 0, a
  strided C) still runs the SIMT path, with the reason.

The launcher is run with no device (test_user_grid.py's stand-ins: the tier's real lowering of the sweep programs,
a kernel image recording what it is prepared with).  Before session 42 each of the three sweep launches here ran the
SIMT path (sweeps 26 / 28 / 31's GPU twins expected it: ``LAUNCH_RUNS_SIMT``).  GPU twins: those files' launches
(now expected on the tier) and ``benchmarks/session42_launchpath.sh``."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError
from tileorch.launchers.gemm_host import batched_map

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
needs_cutile = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

ES = {"f16": 2, "bf16": 2, "e4m3": 1, "tf32": 4}


# ----------------------------------------------------------------------------------------------- the tensor map


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 200), count=st.integers(2, 6), units=st.integers(1, 24), gap=st.integers(0, 40),
       dtype=st.sampled_from(sorted(ES)), name=st.sampled_from(["A", "B"]), data=st.data())
def test_a_strided_batchs_map_addresses_numpys_element(rows, count, units, gap, dtype, name, data):
    """Element ``(l, r, c)`` of a ``[L, rows, cols]`` view whose matrices are ``rows * cols + gap * 16 / es`` elements
    apart (``gap`` 0: stacked; every other matrix of a larger array is ``gap = rows * cols * es / 16``) is at the
    byte the 3-D map's strides give for coordinates ``(c, r, l)``: numpy's own address of the view's element."""
    es = ES[dtype]
    cols = units * 16 // es
    pitch = rows * cols * es + gap * 16
    base = np.zeros(count * pitch + 64, np.uint8)
    view = np.lib.stride_tricks.as_strided(base, shape=(count, rows, cols * es), strides=(pitch, cols * es, 1))
    cfg = dataclasses.replace(GemmConfig(), batched=True)
    dims, strides, box = batched_map(cfg, name, (cols, rows), cols * es, (64, 64), es, count, pitch)
    assert dims == (cols, rows, count) and box == (64, 64, 1) and all(s % 16 == 0 for s in strides)
    l, r, c = (data.draw(st.integers(0, x - 1)) for x in (count, rows, cols))
    want = view[l, r, c * es:].__array_interface__["data"][0] - base.__array_interface__["data"][0]
    assert c * es + r * strides[0] + l * strides[1] == want


def test_a_strided_batch_is_read_in_place_only():
    """A staged copy (padded rows) stacks the matrices, and a middle-dimension batch has its own strides: a strided
    batch pitch with either is a GemmConfigError, never a map of the wrong bytes."""
    stacked = dataclasses.replace(GemmConfig(), batched=True)
    with pytest.raises(GemmConfigError, match="strided batch"):
        batched_map(stacked, "A", (64, 100), 1024, (64, 128), 2, 3, 4096 * 100)
    with pytest.raises(GemmConfigError, match="strided batch"):
        batched_map(dataclasses.replace(stacked, batch_mid="a"), "A", (64, 100), None, (64, 128), 2, 3, 4096 * 100)
    # (0: the stacked matrices' own pitch, as before)
    assert batched_map(stacked, "A", (64, 100), None, (64, 128), 2, 3, 0) == ((64, 100, 3), (128, 12800), (64, 128, 1))


# ----------------------------------------------------------------------------------------------- the launcher's rule


def _arg(name, shape, strides, ptr=1 << 32, dtype="float16"):
    from tileorch.launchers import cutile as rc

    return rc.ArrayArg(0, name, dtype, tuple(shape), tuple(strides), ptr)


@pytest.mark.parametrize("a_strides, b_strides, want", [
    ((2 * 100 * 64, 64, 1), (64 * 80, 80, 1), {"batch_pitch": (2 * 100 * 64 * 2, 0)}),  # every other matrix of A
    ((100 * 64, 64, 1), (0, 80, 1), {"broadcast_b": True}),  # w.expand(L, K, N)
    ((100 * 64 + 8, 64, 1), (2 * 64 * 80, 80, 1), {"batch_pitch": ((100 * 64 + 8) * 2, 2 * 64 * 80 * 2)}),
])
def test_strided_batches_the_tensor_maps_take(a_strides, b_strides, want):
    from tileorch.launchers import cutile as rc

    a, b = _arg("A", (3, 100, 64), a_strides), _arg("B", (3, 64, 80), b_strides, 2 << 32)
    loose = [x for x in (a, b) if x.strides[0] != x.shape[1] * x.shape[2]]
    assert rc.strided_batches(GemmConfig(), a, b, loose) == want


@pytest.mark.parametrize("role, strides, message", [
    ("A", (100 * 64 + 3, 64, 1), "not a positive multiple of 16 bytes"),  # 6406 bytes between matrices
    ("A", (0, 64, 1), "not a positive multiple of 16 bytes"),  # A broadcast: no kernel reads A at batch 0
    ("A", (2 * 100 * 72, 72, 1), ""),  # (a control: taken)
])
def test_strided_batches_no_tensor_map_takes(role, strides, message):
    from tileorch.launchers import cutile as rc

    a = _arg("A", (3, 100, 72 if strides[1] == 72 else 64), strides)
    b = _arg("B", (3, a.shape[2], 80), (a.shape[2] * 80, 80, 1), 2 << 32)
    if not message:
        assert rc.strided_batches(GemmConfig(), a, b, [a])["batch_pitch"][0] == strides[0] * 2
        return
    with pytest.raises(rc.LayoutNotSupported, match=message) as info:
        rc.strided_batches(GemmConfig(), a, b, [a])
    assert "'A'" in str(info.value) or "A" in str(info.value).split(":")[0]


def test_a_transposed_copy_of_a_strided_operand_is_refused():
    """An operand the kernel reads through a K-major copy made at launch (``transpose_b``): the copy stacks the
    matrices, so a strided batch of it is not taken (the SIMT path, with the reason)."""
    from tileorch.launchers import cutile as rc

    a, b = _arg("A", (3, 100, 64), (6400, 64, 1)), _arg("B", (3, 64, 80), (2 * 64 * 80, 80, 1), 2 << 32)
    with pytest.raises(rc.LayoutNotSupported, match="K-major copy"):
        rc.strided_batches(dataclasses.replace(GemmConfig(), transpose_b=True), a, b, [b])


# ----------------------------------------------------------------------------------------------- the launch


class _Image:
    """A stand-in :class:`~tileorch.launchers.gemm_host.GemmKernel`: records what :meth:`prepare` is given."""

    def __init__(self, cfg):
        self.cfg, self.prepared = cfg, []

    def prepare(self, *args, **kwargs):
        self.prepared.append({**kwargs, "args": args})
        return SimpleNamespace(staging=SimpleNamespace(warn=lambda *a, **k: None), launcher=lambda: (lambda s: None))


class _Array:
    """A device array's description (no GPU: never dereferenced), strides in elements."""

    def __init__(self, ptr, shape, dtype, strides=None):
        es = np.dtype(dtype).itemsize
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": np.dtype(dtype).str,
                                         "strides": None if strides is None else tuple(es * s for s in strides),
                                         "version": 3}


WARNED_AT: list[str] = []
"""The file each PerformanceWarning of the latest :func:`_launch` is attributed to (``warnings``' own location)."""


def _launch(monkeypatch, module, name, spec=None, program=None, shift=None, lowered=(), times=1, public=False,
            streams=(0,), rounds=()):
    """:func:`tileorch.launchers.cutile._launch` of sweep program ``name`` on its spec's arrays (``spec``: in its
    place), with no device: the tier's lowering of the program (its own configuration, and each configuration the
    launcher asks for with the override's fields; a configuration naming a word of ``lowered``: lowered again, for
    real, with that configuration), a kernel image recording what it is prepared with, the SIMT launch recorded.
    ``program``: a UserProgram in place of ``module``'s ``name``; ``shift``: argument position -> bytes added to its
    pointer; ``times``: launches of the same arguments (each compile asked for again is the entry of the first);
    ``public``: through ``tileorch.cutile.launch`` (the user's entry point) instead of the launcher's ``_launch``;
    ``streams``: the stream handles each of the ``times`` rounds launches on, in turn; ``rounds``: (spec, shift) of
    each round in place of ``times`` rounds of ``spec`` and ``shift`` (other arrays between launches).
    Returns (the path that ran, the configurations asked for, the images' prepare keywords, the
    PerformanceWarnings' texts, the launch remarks)."""
    import warnings

    from test_user_grid import _lowered

    from tileorch.diagnostics import PerformanceWarning
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import gemm as tg
    from tileorch.runtime import driver

    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    if program is None:
        p, prog = _lowered(module, name)
    else:
        p, prog = program, lower_once(cutile_bytecode(program.kernel, program.spec), name, arch="sm_90a")
    prog = dataclasses.replace(prog, deferred=False, tier_output=None)
    asked, images, ran, entries, kept = [], [], [], [], {}

    def compiled(kernel, arguments, arch, schedule, config="", **_):
        if (schedule, config) in kept:
            return kept[schedule, config]
        kept[schedule, config] = again = fresh(schedule, config)
        return again

    def fresh(schedule, config):
        if schedule == "simt":
            return rc._Compiled(SimpleNamespace(kind="simt", threads=128, remarks=[], kernel=name), image=object())
        fields = {k: int(v) if v.isdigit() else v for k, v in (f.split("=") for f in config.split(",") if f)}
        asked.append(fields)
        if any(w in fields for w in lowered):
            again = rc._Compiled(lower_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", config=config),
                                 asked=(schedule, config))
            cfg = again.program.gemm_config
        else:
            cfg = dataclasses.replace(prog.gemm_config, **{k: bool(v) if k in ("b_shared", "c_ld") else v
                                                           for k, v in fields.items()})
            again = rc._Compiled(dataclasses.replace(prog, gemm_config=cfg), asked=(schedule, config))
        again.image = _Image(cfg)
        images.append(again.image)
        entries.append(again)
        return again

    monkeypatch.setattr(rc, "compiled", compiled)
    monkeypatch.setattr(rc, "_check_device", lambda arch: SimpleNamespace(sm_count=132))
    monkeypatch.setattr(driver, "api", lambda: None)
    monkeypatch.setattr(tg, "kernel_for", lambda cfg: _Image(cfg))
    monkeypatch.setattr(rc, "_run", lambda *a, **k: ran.append("simt"))
    rc.clear_caches()
    def arrays(spec, shift):
        return tuple(_Array(((i + 1) << 32) + (shift or {}).get(i, 0), s[0], s[1], s[2] if len(s) > 2 else None)
                     if isinstance(s, tuple) else s for i, s in enumerate(spec or p.spec))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for args in [arrays(*r) for r in rounds] or [arrays(spec, shift)] * times:
            for stream in streams:
                if public:  # (through the user's entry point, tileorch.cutile.launch)
                    rc.launch(stream, p.grid, p.kernel, args)
                else:
                    rc._launch(stream, p.grid, p.kernel, args, "sm_90a", "auto", False, "auto", None)
    said = [str(w.message) for w in caught if issubclass(w.category, PerformanceWarning)]
    WARNED_AT[:] = [w.filename for w in caught if issubclass(w.category, PerformanceWarning)]
    remarks = [r for e in entries for r in e.launch_remarks.values()]
    rc.clear_caches()
    return (ran[0] if ran else "gemm"), asked, [kw for im in images for kw in im.prepared], said, remarks


@needs_cutile
def test_sweep31s_strided_batch_view_runs_on_the_tensor_cores(monkeypatch):
    """A ``[3, 100, 64]`` f16 view of every other matrix (batch stride 2 x 100 x 64): A's tensor map takes the batch
    stride (25600 bytes); no SIMT launch, no warning."""
    path, _, prepared, said, remarks = _launch(monkeypatch, "user_programs31", "gemm_batched_strided_batch_view")
    assert path == "gemm" and not said, said
    assert [kw["batch_pitch"] for kw in prepared] == [(2 * 100 * 64 * 2, 0)]
    assert prepared[0]["operand_batches"] == (3, 3)
    from tileorch.launchers.cutile_programs import kernel_location
    from tileorch.testing.user_programs31 import gemm_batched_strided_batch_view as kernel

    assert any(f"{kernel_location(kernel)}: remark: a strided batch read in place: A 25600 bytes between matrices" in r
               for r in remarks), remarks


@needs_cutile
@pytest.mark.parametrize("module, name", [("user_programs26", "bmm_b_broadcast_by_zero_batch_stride"),
                                          ("user_programs28", "bmm_batch_axis2_b_broadcast_stride0")])
def test_a_b_broadcast_by_stride_zero_runs_the_b_shared_kernel(monkeypatch, module, name):
    """``w.expand(3, K, N)`` as B: the launcher asks for the program's configuration with ``b_shared=1`` (B's map one
    matrix, read at batch index 0); no SIMT launch, no warning, a launch remark naming B."""
    path, asked, prepared, said, remarks = _launch(monkeypatch, module, name)
    assert path == "gemm" and not said, said
    assert asked[0] == {} and asked[1:] and all(f.get("b_shared") == 1 for f in asked[1:]), asked  # (the first:
    # the launch's deferred compile, the program's own configuration)
    assert [kw["operand_batches"] for kw in prepared] == [(3, 1)]
    from tileorch.launchers.cutile_programs import kernel_location

    kernel = getattr(importlib.import_module(f"tileorch.testing.{module}"), name)
    assert any(f"{kernel_location(kernel)}: remark: argument 1 ('Bm'): B is broadcast over the batch (batch stride 0)"
               in r and "_bs" in r for r in remarks), remarks


@needs_cutile
@pytest.mark.parametrize("a_strides, why", [
    ((100 * 64 + 3, 64, 1), "not a positive multiple of 16 bytes"),
    ((0, 64, 1), "not a positive multiple of 16 bytes"),
])
def test_what_no_tensor_map_takes_still_runs_simt_and_says_why(monkeypatch, a_strides, why):
    from tileorch.testing.user_programs31 import PROGRAMS

    spec = list(PROGRAMS["gemm_batched_strided_batch_view"].spec)
    spec[0] = (spec[0][0], spec[0][1], a_strides)
    path, _, prepared, said, _ = _launch(monkeypatch, "user_programs31", "gemm_batched_strided_batch_view", spec)
    assert path == "simt" and not prepared
    assert len(said) == 1 and why in said[0] and "[the SIMT path runs it]" in said[0], said


# ----------------------------------------------------------------------------------------------- the kernel, emulated


@needs_cutile
def test_the_b_shared_kernel_reads_the_one_matrix_for_every_batch():
    """sweep 26's ``torch.matmul(a[3, 70, 64], w.expand(3, 64, 72))`` compiled as the launcher compiles it for that B
    (``b_shared=1``; the emulator's subset: one CTA per cluster, the direct epilogue), run on the PTX emulator with
    B's tensor map holding the one matrix ``w`` (as the host builds it: ``operand_batches`` (3, 1)) and C NaN-filled:
    every batch is ``a[l] @ w`` against numpy float64.  (The kernel compiled without the override reads B at batches
    1 and 2, past that map: TMA's zero fill, a wrong result.)"""
    import test_user_sweep3_emulated as s3

    from tileorch.testing import gemm_emulation
    from tileorch.testing.user_programs26 import PROGRAMS

    name = "bmm_b_broadcast_by_zero_batch_stride"
    p = PROGRAMS[name]
    rng = np.random.default_rng(42)
    a = rng.standard_normal((3, 70, 64)).astype(np.float16)
    w = rng.standard_normal((64, 72)).astype(np.float16)
    real, seen = gemm_emulation.run_gemm, []

    def run_gemm(prog, av, bv, c_base, mnk, tile_params=(), memory=(), problem=None, sms=2, more_b=(), **more):
        seen.append(prog.gemm_config)
        return real(prog, av, w[None], c_base, mnk, tile_params, memory, (*mnk, 3), sms, more_b, **more)

    gemm_emulation.run_gemm = run_gemm
    try:
        c = s3._gemm(name, {0: a, 1: np.broadcast_to(w, (3, 64, 72))}, program=p,
                     config="cluster_m=1,epilogue=direct,b_shared=1")[2]
    finally:
        gemm_emulation.run_gemm = real
    assert seen and seen[0].b_shared and seen[0].name.endswith("_bs")
    want = a.astype(np.float64) @ w.astype(np.float64)
    assert not np.isnan(c).any()
    np.testing.assert_allclose(c, want, rtol=2e-3, atol=2e-3)


@needs_cutile
def test_a_strided_batch_of_b_and_of_both(monkeypatch):
    """Every other matrix of B (and of A and B together) in sweep 31's program: each operand's own batch stride in
    its map, (0: stacked), no SIMT launch."""
    from tileorch.testing.user_programs31 import PROGRAMS

    spec = list(PROGRAMS["gemm_batched_strided_batch_view"].spec)
    spec[1] = (spec[1][0], spec[1][1], (2 * 64 * 80, 80, 1))
    path, _, prepared, said, _ = _launch(monkeypatch, "user_programs31", "gemm_batched_strided_batch_view", spec)
    assert path == "gemm" and not said and [kw["batch_pitch"] for kw in prepared] == [(2 * 100 * 64 * 2, 2 * 64 * 80 * 2)]
    spec[0] = (spec[0][0], spec[0][1])  # (A stacked)
    path, _, prepared, said, _ = _launch(monkeypatch, "user_programs31", "gemm_batched_strided_batch_view", spec)
    assert path == "gemm" and not said and [kw["batch_pitch"] for kw in prepared] == [(0, 2 * 64 * 80 * 2)]


@needs_cutile
def test_k_zero_runs_simt_and_says_why(monkeypatch):
    """K = 0 (``[M, 0]`` A, ``[0, N]`` B; torch's strides of such arrays are (1, 1)): the launcher's reason is the
    empty contraction (before session 42: 'needs a row-major contiguous array, got strides (1, 1) for shape (130, 0)',
    a layout complaint about an array with no elements); the SIMT path runs it."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    import test_review29_dots as dots

    from tileorch.testing.user_programs import UserProgram

    name = "k0_with_epilogue"
    program = UserProgram(getattr(dots, dots.KERNELS.get(name, name)), dots.SPECS[name], (3, 2), "gemm")
    path, _, prepared, said, _ = _launch(monkeypatch, None, name, program=program)
    assert path == "simt" and not prepared
    assert len(said) == 1 and "K = 0: an empty contraction" in said[0] and "strides" not in said[0], said


@needs_cutile
def test_b_shared_0_keeps_a_programs_own_shared_b():
    """A program whose B is one matrix for every batch (``[1, K, N]`` read at batch 0) lowered with ``b_shared=0``
    (the lowering's override word since session 42): its kernel still loads B at batch 0 (before: ``b_shared=0``
    gave a kernel loading B at every batch index while the launcher's map held one matrix — batches past 0 read
    TMA's zero fill)."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs4 import PROGRAMS

    p = PROGRAMS["mm_broadcast_b_unit_batch"]
    own = lower_once(cutile_bytecode(p.kernel, p.spec), "mm_broadcast_b_unit_batch", arch="sm_90a")
    asked = lower_once(cutile_bytecode(p.kernel, p.spec), "mm_broadcast_b_unit_batch", arch="sm_90a",
                       config="b_shared=0")
    assert own.gemm_config.b_shared and asked.gemm_config.b_shared


@pytest.mark.parametrize("word", ["b_shared=yes", "kvec_global=2", "c_ld=true"])
def test_a_switch_override_takes_0_or_1(word):
    from tileorch.transforms.tileas.convert_to_cutlass import parse_override

    with pytest.raises(ValueError, match=f"{word.split('=')[0]} takes 0 or 1"):
        parse_override(word)


# ------------------------------------------------------------------------------------------ overlapping batches


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(2, 120), count=st.integers(2, 6), units=st.integers(1, 16), dtype=st.sampled_from(sorted(ES)),
       name=st.sampled_from(["A", "B"]), data=st.data())
def test_an_overlapping_batchs_map_addresses_numpys_element(rows, count, units, dtype, name, data):
    """A batch stride below one matrix (``as_strided``: matrix ``l + 1`` starts inside matrix ``l``; every batch reads
    memory another reads too) is still the 3-D map's batch stride: element ``(l, r, c)`` is at numpy's own address of
    the view's element (TMA's loads read what is there; only an output with such a stride races, refused by
    :func:`tileorch.launchers.cutile.check_written_arguments`)."""
    es = ES[dtype]
    cols = units * 16 // es
    matrix = rows * cols * es
    pitch = 16 * data.draw(st.integers(1, matrix // 16 - 1))  # (a positive multiple of 16 bytes below a matrix)
    base = np.zeros((count - 1) * pitch + matrix + 64, np.uint8)
    view = np.lib.stride_tricks.as_strided(base, shape=(count, rows, cols * es), strides=(pitch, cols * es, 1))
    dims, strides, box = batched_map(dataclasses.replace(GemmConfig(), batched=True), name, (cols, rows), cols * es,
                                     (64, 64), es, count, pitch)
    assert dims == (cols, rows, count) and strides == (cols * es, pitch)
    l, r, c = (data.draw(st.integers(0, x - 1)) for x in (count, rows, cols))
    want = view[l, r, c * es:].__array_interface__["data"][0] - base.__array_interface__["data"][0]
    assert c * es + r * strides[0] + l * strides[1] == want


@needs_cutile
def test_an_overlapping_input_batch_is_read_in_place(monkeypatch):
    """sweep 31's program with A's matrices 50 rows apart (batch stride 50 x 64 elements, half a [100, 64] matrix:
    batch l's rows 50.. are batch l + 1's rows 0..): A's map takes that batch stride (6400 bytes), the launch stays
    on the tensor cores, no warning (reading overlapping memory is defined)."""
    from tileorch.testing.user_programs31 import PROGRAMS

    spec = list(PROGRAMS["gemm_batched_strided_batch_view"].spec)
    spec[0] = (spec[0][0], spec[0][1], (50 * 64, 64, 1))
    path, _, prepared, said, _ = _launch(monkeypatch, "user_programs31", "gemm_batched_strided_batch_view", spec)
    assert path == "gemm" and not said, said
    assert [kw["batch_pitch"][:2] for kw in prepared] == [(50 * 64 * 2, 0)]


@needs_cutile
@pytest.mark.parametrize("strides", [(40 * 80, 80, 1), (100 * 80 - 8, 80, 1), (0, 80, 1)])
def test_an_overlapping_output_batch_is_refused_at_its_store(monkeypatch, strides):
    """C's matrices closer than one matrix (40 rows apart; 8 elements short of one; the same matrix for every batch):
    two batches' program instances store to one element, in no defined order -- refused with a ValueError naming C
    and the program's store line before anything is compiled for the tier or launched."""
    from tileorch.launchers.cutile_programs import kernel_location
    from tileorch.testing.user_programs31 import PROGRAMS
    from tileorch.testing.user_programs31 import gemm_batched_strided_batch_view as kernel

    spec = list(PROGRAMS["gemm_batched_strided_batch_view"].spec)
    spec[2] = (spec[2][0], spec[2][1], strides)
    with pytest.raises(ValueError) as info:
        _launch(monkeypatch, "user_programs31", "gemm_batched_strided_batch_view", spec)
    text = str(info.value)
    assert text.startswith("argument 2 ('C') has elements that share memory"), text
    file = kernel_location(kernel).split(":")[0]
    assert f"first at {file}:497:" in text, text  # (the ct.store of C)


# ------------------------------------------------------------------------------------------- a strided C


class _Scratch:
    """A stand-in device buffer (no GPU): 256-byte aligned addresses, as ``cuMemAlloc`` gives."""

    made: list = []

    def __init__(self, nbytes):
        self.nbytes, self.ptr = nbytes, (0x7E << 40) + (1 << 24) * len(_Scratch.made)
        _Scratch.made.append(self)


@settings(max_examples=80, deadline=None)
@given(count=st.integers(1, 4), rows=st.integers(1, 9), cols=st.integers(1, 9), es=st.sampled_from([2, 4]),
       layout=st.sampled_from(["batch_strided", "transposed_view", "row_strided"]), data=st.data())
def test_the_scattered_c_copies_put_each_element_where_numpy_has_it(count, rows, cols, es, layout, data):
    """:func:`c_scatter_copies` replayed byte for byte on a model of device memory (``cuMemcpy2DAsync``: ``rows``
    rows of ``width`` bytes, each pitch apart): a packed ``[L, M, N]`` scratch lands in C's own layout -- every
    other matrix of a larger array, a ``transpose(0, 1)`` view of ``[M, L, N]`` storage, rows of a wider array --
    element ``(l, r, c)`` at numpy's own address of the view's element; bytes outside C's elements untouched."""
    from tileorch.launchers import cutile as rc

    gap = data.draw(st.integers(0, 5))
    if layout == "batch_strided":
        strides = (rows * cols + gap * 8, cols, 1)
    elif layout == "transposed_view":
        strides = (cols, count * cols + gap, 1)
    else:
        strides = ((rows * (cols + gap)) + data.draw(st.integers(0, 3)), cols + gap, 1)
    span = ((count - 1) * strides[0] + (rows - 1) * strides[1] + cols) * es
    heap = 1 << 12
    memory = np.full(2 * heap + count * rows * cols * es + span, 0xAB, np.uint8)
    c = rc.ArrayArg(2, "C", {2: "float16", 4: "float32"}[es], (count, rows, cols), strides, heap)
    scratch = 2 * heap + span
    values = np.arange(count * rows * cols, dtype=np.uint16 if es == 2 else np.uint32)
    memory[scratch:scratch + values.nbytes] = values.view(np.uint8)
    before = memory.copy()
    for src, spitch, dst, dpitch, width, n in rc.c_scatter_copies(c, scratch):
        for r in range(n):
            memory[dst + r * dpitch:dst + r * dpitch + width] = memory[src + r * spitch:src + r * spitch + width]
    view = np.lib.stride_tricks.as_strided(memory[heap:].view(values.dtype), shape=(count, rows, cols),
                                           strides=tuple(s * es for s in strides))
    np.testing.assert_array_equal(view, values.reshape(count, rows, cols))
    touched = np.zeros(memory.size, bool)
    for idx in np.ndindex(count, rows, cols):
        at = heap + sum(i * s for i, s in zip(idx, strides)) * es
        touched[at:at + es] = True
    outside = ~touched
    outside[scratch:] = False
    assert (memory[outside] == before[outside]).all()


def _scattered_launch(monkeypatch, module, name, spec, times=1, shift=None):
    from tileorch.runtime import buffers

    _Scratch.made = []
    monkeypatch.setattr(buffers, "DeviceBuffer", _Scratch)
    return (*_launch(monkeypatch, module, name, spec, times=times, shift=shift), list(_Scratch.made))


@needs_cutile
def test_a_strided_c_batch_runs_on_the_tensor_cores(monkeypatch):
    """sweep 31's program with C every other matrix of a ``[6, 100, 80]`` f32 array (batch stride 2 x 100 x 80): the
    kernel stores a packed scratch C (the prepared launch's C pointer), copied out by one 2-D copy of 3 rows of one
    matrix each, C's batch stride apart; no SIMT launch; one PerformanceWarning at the kernel's line and the launch
    remark say so.  (Before: the SIMT path, 'the batched WGMMA GEMM needs contiguous matrices'.)"""
    from tileorch.launchers.cutile_programs import kernel_location
    from tileorch.testing.user_programs31 import PROGRAMS
    from tileorch.testing.user_programs31 import gemm_batched_strided_batch_view as kernel

    spec = list(PROGRAMS["gemm_batched_strided_batch_view"].spec)
    spec[2] = (spec[2][0], spec[2][1], (2 * 100 * 80, 80, 1))
    path, _, prepared, said, remarks, made = _scattered_launch(monkeypatch, "user_programs31",
                                                               "gemm_batched_strided_batch_view", spec, times=2)
    assert path == "gemm" and len(prepared) == 1, (path, said)
    (scratch,) = made
    matrix = 100 * 80 * 4
    assert scratch.nbytes == 3 * matrix and prepared[0]["args"][2] == scratch.ptr
    assert prepared[0]["copies_out"] == [(scratch.ptr, matrix, 3 << 32, 2 * matrix, matrix, 3)]
    assert scratch in prepared[0]["keep"]
    assert not prepared[0].get("copies_in")
    assert len(said) == 1 and said[0].startswith(f"{kernel_location(kernel)}: warning: cuTile kernel "
                                                 "gemm_batched_strided_batch_view: "), said
    assert "C's matrices are not stacked row-major" in said[0] and "1 2-D copy" in said[0], said
    assert any("packed scratch C" in r for r in remarks), remarks


@needs_cutile
@pytest.mark.parametrize("a_view", [False, True])
def test_transposed_view_batches_run_on_the_tensor_cores(monkeypatch, a_view):
    """sweep 6's ``mm_batched_strided_batch`` as its GPU twin launches it: C (f16) a ``transpose(0, 1)`` view of
    ``[128, 2, 256]`` storage -- the TMA epilogue's 3-D map stores it in place (512 bytes between matrices, rows 1024
    bytes apart; no scratch, no warning) -- and A such a view of ``[128, 2, 128]`` storage: A's map takes its batch
    stride (256 bytes) and its row stride (512 bytes).  Before: the SIMT path ('the batched WGMMA GEMM needs
    contiguous matrices' for C; A's rows not K apart)."""
    from tileorch.testing.user_programs6 import PROGRAMS

    spec = list(PROGRAMS["mm_batched_strided_batch"].spec)
    spec[2] = (spec[2][0], spec[2][1], (256, 2 * 256, 1))
    if a_view:
        spec[0] = (spec[0][0], spec[0][1], (128, 2 * 128, 1))
    path, asked, prepared, said, remarks, made = _scattered_launch(monkeypatch, "user_programs6",
                                                                   "mm_batched_strided_batch", spec)
    assert path == "gemm" and len(prepared) == 1 and not said and not made, (path, said)
    assert asked[-1].get("epilogue") == "tma", asked
    assert not prepared[0].get("copies_out")
    assert prepared[0]["batch_pitch"][2] == 256 * 2 and prepared[0]["row_pitch"][2] == 2 * 256 * 2
    assert any("the TMA epilogue's tensor map stores them in place (512 bytes between matrices, rows 1024 bytes "
               "apart)" in r for r in remarks), remarks
    if a_view:
        assert prepared[0]["batch_pitch"][0] == 128 * 2 and prepared[0]["row_pitch"][:2] == (2 * 128 * 2, 0)
        assert any("A 256 bytes between matrices, rows 512 bytes apart" in r for r in remarks), remarks
    else:
        assert prepared[0]["row_pitch"][:2] == (0, 0)
        assert not any("a strided batch read in place" in r for r in remarks), remarks  # (A and B stacked)


@needs_cutile
@pytest.mark.parametrize("shift", [0, 2])
def test_a_c_the_tma_epilogue_cannot_store_goes_through_the_scratch(monkeypatch, shift):
    """An f32 C (the direct epilogue: no C map) as a ``transpose(0, 1)`` view of ``[100, 3, 80]`` storage, and an f16
    C view (the TMA epilogue) whose base is 2 bytes past 16: the packed scratch, copied out by one 2-D copy per matrix
    (rows 3 x 80 elements apart); a PerformanceWarning naming C."""
    from tileorch.testing.user_programs6 import PROGRAMS as P6
    from tileorch.testing.user_programs31 import PROGRAMS as P31

    if not shift:
        module, name, (count, rows, cols), es = "user_programs31", "gemm_batched_strided_batch_view", (3, 100, 80), 4
        spec = list(P31[name].spec)
    else:
        module, name, (count, rows, cols), es = "user_programs6", "mm_batched_strided_batch", (2, 128, 256), 2
        spec = list(P6[name].spec)
    spec[2] = (spec[2][0], spec[2][1], (cols, count * cols, 1))
    path, _, prepared, said, _, made = _scattered_launch(monkeypatch, module, name, spec, shift={2: shift})
    assert path == "gemm" and len(prepared) == 1, (path, said)
    (scratch,) = made
    row = cols * es
    c_ptr = (3 << 32) + shift
    assert prepared[0]["copies_out"] == [(scratch.ptr + l * rows * row, row, c_ptr + l * row, count * row, row, rows)
                                         for l in range(count)]
    assert len(said) == 1 and f"{count} 2-D copies" in said[0] and "('C')" in said[0], said


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 150), count=st.integers(2, 6), units=st.integers(1, 16), extra=st.integers(0, 4),
       dtype=st.sampled_from(sorted(ES)), name=st.sampled_from(["A", "B"]), data=st.data())
def test_a_transposed_views_map_addresses_numpys_element(rows, count, units, extra, dtype, name, data):
    """A ``transpose(0, 1)`` view of ``[rows, L, cols]`` storage (``L cols + extra`` 16-byte units per row: a slice
    of a wider middle dimension too): the 3-D map's row stride is the storage's row and its batch stride one
    ``cols`` block; element ``(l, r, c)`` is at numpy's own address of the view's element."""
    es = ES[dtype]
    cols = units * 16 // es
    row = count * cols * es + extra * 16
    base = np.zeros(rows * row + 64, np.uint8)
    view = np.lib.stride_tricks.as_strided(base, shape=(count, rows, cols * es), strides=(cols * es, row, 1))
    dims, strides, box = batched_map(dataclasses.replace(GemmConfig(), batched=True), name, (cols, rows), cols * es,
                                     (64, 64), es, count, cols * es, row)
    assert dims == (cols, rows, count) and strides == (row, cols * es)
    l, r, c = (data.draw(st.integers(0, x - 1)) for x in (count, rows, cols))
    want = view[l, r, c * es:].__array_interface__["data"][0] - base.__array_interface__["data"][0]
    assert c * es + r * strides[0] + l * strides[1] == want


def test_a_row_pitch_is_a_strided_batchs_only():
    """Rows not cols apart without a batch stride, or through a staged copy: a GemmConfigError, never a wrong map."""
    cfg = dataclasses.replace(GemmConfig(), batched=True)
    with pytest.raises(GemmConfigError, match="strided batch"):
        batched_map(cfg, "A", (64, 100), None, (64, 128), 2, 3, 0, 512)
    with pytest.raises(GemmConfigError, match="read in place only"):
        batched_map(cfg, "A", (64, 100), 256, (64, 128), 2, 3, 128, 512)


@needs_cutile
def test_a_strided_c_under_a_grid_covering_part_of_it_is_copied_in_first(monkeypatch):
    """The launch grid covers 64 of C's 80 columns (one column of 64-column tiles): the kernel stores only those of the
    scratch, so the prepared launch first copies C into the scratch (the copies out, reversed) and C's other columns
    come back unchanged."""
    from tileorch.testing.user_programs31 import PROGRAMS

    p = PROGRAMS["gemm_batched_strided_batch_view"]
    spec = list(p.spec)
    spec[2] = (spec[2][0], spec[2][1], (2 * 100 * 80, 80, 1))
    part = dataclasses.replace(p, grid=(2, 1, 3))
    _Scratch.made = []
    from tileorch.runtime import buffers

    monkeypatch.setattr(buffers, "DeviceBuffer", _Scratch)
    path, _, prepared, said, _ = _launch(monkeypatch, None, "gemm_batched_strided_batch_view", spec, program=part)
    assert path == "gemm" and len(prepared) == 1, (path, said)
    out = prepared[0]["copies_out"]
    assert prepared[0]["copies_in"] == [(d, dp, s, sp, w, r) for s, sp, d, dp, w, r in out]
    assert prepared[0]["sched_mn"] is not None  # (the scheduler walks the covered tiles only)


@needs_cutile
def test_the_same_scattered_c_launch_on_another_stream_gets_that_streams_scratch(monkeypatch):
    """Review of session 43 (HIGH): the prepared launch of a scattered C was keyed without the stream, so the same
    call on stream 7 reused the launch prepared on stream 0 with stream 0's scratch C (shared with stream 0's other
    launches of that size): two streams writing one scratch.  Now each stream's launch is prepared with its own."""
    from tileorch.testing.user_programs31 import PROGRAMS

    p = PROGRAMS["gemm_batched_strided_batch_view"]
    spec = list(p.spec)
    spec[2] = (spec[2][0], spec[2][1], (2 * 100 * 80, 80, 1))
    part = dataclasses.replace(p, grid=(2, 1, 3))
    _Scratch.made = []
    from tileorch.runtime import buffers

    monkeypatch.setattr(buffers, "DeviceBuffer", _Scratch)
    path, _, prepared, said, _ = _launch(monkeypatch, None, "gemm_batched_strided_batch_view", spec, program=part,
                                         streams=(0, 7, 0))
    assert path == "gemm" and "copies_out" in prepared[0], (path, said)
    assert len(prepared) == 2, prepared  # (stream 0's again: its prepared launch)
    scratch = [kw["args"][2] for kw in prepared]  # (the C the kernel stores: the scratch)
    assert scratch[0] != scratch[1] and {s.ptr for s in _Scratch.made} >= set(scratch)


def test_the_scratch_c_is_shared_per_size_and_stream(monkeypatch):
    """Launches of one C size on one stream share one scratch (new output arrays each call do not keep one each:
    before, every prepared launch would hold its own); another stream gets its own (launches on two streams may
    overlap: the prepared launches are kept per stream, and a bound one replayed on another stream is ordered with
    its own, test_k_major_copy / launch_copies.homed); at most ``LIMITS["c_scatter"]`` kept by the cache."""
    from tileorch.launchers import launch_copies
    from tileorch.runtime import buffers

    def _c_scratch_buffer(nbytes, stream):  # (the launcher's packed scratch C: role c_scatter)
        return launch_copies.scratch("c_scatter", (), nbytes, stream)

    _Scratch.made = []
    monkeypatch.setattr(buffers, "DeviceBuffer", _Scratch)
    launch_copies.forget("c_scatter")
    first = _c_scratch_buffer(4096, 0)
    assert _c_scratch_buffer(4096, 0) is first
    assert _c_scratch_buffer(4096, 7) is not first and _c_scratch_buffer(8192, 0) is not first
    for size in range(launch_copies.LIMITS["c_scatter"] + 2):
        _c_scratch_buffer(16 * (size + 1), 3)
    assert len(launch_copies.held("c_scatter")) == launch_copies.LIMITS["c_scatter"]
    launch_copies.forget("c_scatter")


@needs_cutile
@pytest.mark.parametrize("m,n", [(130, 0), (0, 80)])
def test_an_empty_output_launches_nothing_and_warns_nothing(monkeypatch, m, n):
    """M = 0 or N = 0 (C has no element; torch gives the empty operand strides (1, 1)): nothing to compute, no SIMT
    launch, no warning (before: B ``[96, 0]``'s strides (1, 1) were 'needs B row-major or column-major' and the
    whole launch ran SIMT with that warning; GPU log of session 43, test_first_hour_gpu's [256-0-128])."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    import test_review29_dots as dots

    from tileorch.testing.user_programs import UserProgram

    name = "matmul_fn_f16_steps"
    spec = list(dots.SPECS[name])
    empty = (1, 1)  # torch's strides of an array with a zero extent
    spec[0] = ((m, 96), spec[0][1], empty if m == 0 else None)
    spec[1] = ((96, n), spec[1][1], empty if n == 0 else None)
    spec[2] = ((m, n), spec[2][1], empty)
    program = UserProgram(getattr(dots, name), dots.SPECS[name], (3, 2), "gemm")
    path, _, prepared, said, _ = _launch(monkeypatch, None, name, spec=spec, program=program)
    assert path == "gemm" and not prepared and not said, said


def _run_copies(memory, copies):
    """``cuMemcpy2DAsync`` of each copy on ``memory`` ({base: bytes}, every address inside one of them)."""
    def at(ptr, nbytes):
        for base, buf in memory.items():
            if base <= ptr and ptr + nbytes <= base + buf.size:
                return buf[ptr - base:ptr - base + nbytes]
        raise AssertionError(f"no memory at {ptr:#x} (+{nbytes})")

    for src, spitch, dst, dpitch, width, rows in copies:
        for r in range(rows):
            at(dst + r * dpitch, width)[:] = at(src + r * spitch, width)


@needs_cutile
@pytest.mark.parametrize("scattered", [True, False])
def test_a_padded_c_under_a_grid_covering_part_of_it_keeps_cs_other_columns(monkeypatch, scattered):
    """Review of session 43 (MEDIUM): C ``[3, 100, 82]`` f32 (rows of 328 bytes: not a multiple of 16, so the staging
    plan has the kernel store a padded C), the launch grid covering 64 of its 82 columns.  The whole padded buffer
    was copied out after the kernel, its uncovered columns never written: garbage into C's columns 64..81 (through
    the packed scratch of a scattered C, or straight into a stacked C).  Replayed byte for byte on a model of device
    memory through the real ``PreparedGemm`` (stand-in driver): the kernel's covered tiles land, the other columns
    keep C's values."""
    from test_gemm_bound import Driver

    from tileorch.launchers import gemm_host
    from tileorch.runtime import buffers
    from tileorch.runtime import device as rt_device
    from tileorch.runtime.driver import use_api
    from tileorch.testing.user_programs31 import PROGRAMS

    p = PROGRAMS["gemm_batched_strided_batch_view"]
    L, M, N, K = 3, 100, 82, 64
    spec = list(p.spec)
    spec[1] = ((L, K, N), spec[1][1])
    spec[2] = ((L, M, N), spec[2][1], (2 * M * N, N, 1)) if scattered else ((L, M, N), spec[2][1])
    part = dataclasses.replace(p, spec=spec, grid=(2, 1, 3))  # 64-column tiles: one column of them
    _Scratch.made = []
    monkeypatch.setattr(buffers, "DeviceBuffer", _Scratch)
    from tileorch.runtime import driver

    real_api = driver.api  # (_launch stands it in for no device)
    cfgs = []
    original = _Image.prepare
    monkeypatch.setattr(_Image, "prepare", lambda self, *a, **k: (cfgs.append(self.cfg), original(self, *a, **k))[1])
    path, _, prepared, said, _ = _launch(monkeypatch, None, "gemm_batched_strided_batch_view", spec, program=part)
    assert path == "gemm" and len(prepared) == 1, (path, said)
    kw = dict(prepared[0])
    args = kw.pop("args")
    sched_m, sched_n = kw["sched_mn"]
    assert (sched_m, sched_n) == (M, 64)
    monkeypatch.setattr(gemm_host, "encode_tensor_map", lambda *a, **k: bytes(128))
    monkeypatch.setattr(driver, "api", real_api)
    rt_device.forget_devices()
    try:
        with use_api(Driver()):
            real = gemm_host.GemmKernel(cfgs[0], b"\x7fELF stand-in cubin").prepare(*args, **kw)
    finally:
        rt_device.forget_devices()
    st = real.staging
    assert any(r.startswith("C:") and "covers part of C" in r for r in st.reasons), st.reasons
    c_ptr, es = 3 << 32, 4
    rows_apart = 2 * M * N if scattered else M * N  # (C's batch stride in elements)
    memory = {c_ptr: np.zeros(((L - 1) * rows_apart + M * N) * es, np.uint8), 1 << 32: np.zeros(1 << 20, np.uint8),
              2 << 32: np.zeros(1 << 20, np.uint8)}
    c_before = np.random.default_rng(3).integers(0, 1 << 30, L * rows_apart, dtype=np.uint32)[:memory[c_ptr].size // es]
    memory[c_ptr][:] = c_before.view(np.uint8)
    for s in _Scratch.made:  # (device memory as cuMemAlloc leaves it: garbage)
        memory[s.ptr] = np.full(s.nbytes, 0xAB, np.uint8)
    _run_copies(memory, st.copies_in)
    # the kernel: the covered tiles (all rows, columns < 64) of each matrix of the padded C it stores
    pitch, kernel_c = st.pitch["C"], st.ptr["C"]
    stored = np.arange(L * M * sched_n, dtype=np.uint32).reshape(L, M, sched_n) + 7
    for l_ in range(L):
        for r in range(M):
            at = kernel_c + (l_ * M + r) * pitch
            for base, buf in memory.items():
                if base <= at < base + buf.size:
                    buf[at - base:at - base + sched_n * es] = stored[l_, r].view(np.uint8)
    _run_copies(memory, st.copies_out)
    got = memory[c_ptr].view(np.uint32)
    for l_ in range(L):
        mat = got[l_ * rows_apart:l_ * rows_apart + M * N].reshape(M, N)
        was = c_before[l_ * rows_apart:l_ * rows_apart + M * N].reshape(M, N)
        np.testing.assert_array_equal(mat[:, :sched_n], stored[l_])
        np.testing.assert_array_equal(mat[:, sched_n:], was[:, sched_n:])  # (before the fix: 0xABABABAB)


@needs_cutile
def test_a_bound_scattered_c_launch_replayed_on_another_stream_is_ordered_with_its_own(monkeypatch):
    """Through ``tileorch.cutile.launch`` (the hot path): the launch bound on stream 0 (its scratch C stream 0's)
    called again with the same arguments on stream 7 is ordered after stream 0's work and stream 0 after it."""
    from tileorch.launchers import launch_copies as stream_home
    from tileorch.testing.user_programs31 import PROGRAMS

    p = PROGRAMS["gemm_batched_strided_batch_view"]
    spec = list(p.spec)
    spec[2] = (spec[2][0], spec[2][1], (2 * 100 * 80, 80, 1))
    waits = []
    monkeypatch.setattr(stream_home, "order_after", lambda waiter, on: waits.append((waiter, on)))
    _Scratch.made = []
    from tileorch.runtime import buffers

    monkeypatch.setattr(buffers, "DeviceBuffer", _Scratch)
    path, _, prepared, said, _ = _launch(monkeypatch, None, "gemm_batched_strided_batch_view", spec,
                                         program=dataclasses.replace(p, grid=(2, 1, 3)), public=True,
                                         streams=(0, 0, 7))
    assert path == "gemm" and len(prepared) == 1, (path, said)  # (the later calls: the bound launch)
    assert waits == [(7, 0), (0, 7)]
    assert any("kept bound on stream 0 was replayed on stream 7" in s for s in said), said
