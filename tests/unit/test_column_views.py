"""C stored into a column slice of a wider array, and dots sharing A whose operands are views
(``testing/column_view_programs.py``): the GEMM tier records C's slice (``c_view``: host linear forms
of its first column and width) and the Bs' views of dots sharing A (``b1``...); the kernel takes C's
row stride apart from N (``GemmConfig.c_ld``: the ``ldc`` parameter); the launcher offsets C's
pointer by the slice's first column, checks the slice inside the array, and asks for a ``c_ld``
kernel when the caller passes a column slice of a wider tensor.  Addressing is checked against
numpy's own view ``Out[:, s:s + w]`` (an independent reference) on fake device arrays; one ragged
program runs on the PTX emulator with C NaN-prefilled, the columns beside the slice left NaN.
Needs cuda-tile for the compiled programs."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError, override_string
from tileorch.launchers.cutile import ArrayArg, ScalarArg
from tileorch.launchers.gemm_host import operand_rows, staging_reasons
from tileorch.launchers.operand_views import column_slice_view, linear_value

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
needs_cutile = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

BASE = 1 << 40


def _array(pos, shape, strides, dtype="float32", ptr=BASE):
    return ArrayArg(pos, f"arg{pos}", dtype, tuple(shape), tuple(strides), ptr)


# ----------------------------------------------------------------------------------------------- the launcher's slice


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 50), st.integers(1, 80), st.integers(0, 9), st.data(), st.sampled_from([2, 4]))
def test_column_slice_is_numpys_view(rows, cols, pad, data, itemsize):
    """Any start / width inside the array (a padded row pitch too): the derived pointer, shape and
    strides are numpy's ``Out[:, s:s + w]``; the start a sum of a scalar and a constant."""
    s = data.draw(st.integers(0, cols - 1))
    w = data.draw(st.integers(1, cols - s))  # (numpy keeps the base pointer of an empty slice)
    dt = {2: np.float16, 4: np.float32}[itemsize]
    buf = np.zeros(rows * (cols + pad), dt)
    out = np.lib.stride_tricks.as_strided(buf, shape=(rows, cols), strides=((cols + pad) * itemsize, itemsize))
    ref = out[:, s:s + w]
    x = _array(0, (rows, cols), (cols + pad, 1), {2: "float16", 4: "float32"}[itemsize])
    scalars = [ScalarArg(1, "s0", "int32", s - 3), ScalarArg(2, "w", "int32", w)]
    flat = [(0, "ptr"), (0, "shape0"), (0, "shape1"), (0, "stride0"), (0, "stride1"), (1, "scalar"), (2, "scalar")]
    got = column_slice_view(x, {"start": [["const", 3], ["arg", 5, 1]], "extent": [["const", 0], ["arg", 6, 1]],
                                "arg": 0}, [x, *scalars], flat)
    offset = ref.__array_interface__["data"][0] - buf.__array_interface__["data"][0]
    assert got.ptr - BASE == offset
    assert got.shape == ref.shape and tuple(v * itemsize for v in got.strides) == ref.strides


@pytest.mark.parametrize("start, width", [(-1, 4), (10, 7), (0, 17), (5, -1)])
def test_a_slice_outside_the_array_is_a_clear_error(start, width):
    x = _array(3, (8, 16), (16, 1))
    args = [x, ScalarArg(4, "col0", "int64", start), ScalarArg(5, "n", "int64", width)]
    flat = [(3, "ptr"), (3, "shape0"), (3, "shape1"), (3, "stride0"), (3, "stride1"), (4, "scalar"), (5, "scalar")]
    with pytest.raises(IndexError, match=r"argument 3 \('arg3'\): the program stores C into columns .*start argument 4 "
                                         r"\('col0'\) = .*outside the array's 16 columns"):
        column_slice_view(x, {"start": [["const", 0], ["arg", 5, 1]], "extent": [["const", 0], ["arg", 6, 1]],
                              "arg": 0}, args, flat)


def test_linear_forms():
    args = [ScalarArg(0, "a", "int32", 7), ScalarArg(1, "b", "int32", 5)]
    flat = [(0, "scalar"), (1, "scalar")]
    assert linear_value([["const", 2], ["arg", 0, 3], ["arg", 1, -1]], args, flat)[0] == 2 + 21 - 5
    assert linear_value([["const", 64]], args, flat) == (64, "64")


# ----------------------------------------------------------------------------------------------- configuration and host rows


def test_c_ld_configuration():
    cfg = GemmConfig(tile_n=128, dtype="f16", out_dtype="f16", c_ld=True).check()
    assert cfg.name.endswith("_ld")
    assert "c_ld=1" in override_string(cfg) and "c_ld" not in override_string(dataclasses.replace(cfg, c_ld=False))
    for bad in ({"batched": True}, {"epilogue": "atomic", "out_dtype": "f32"}):
        with pytest.raises(GemmConfigError, match="c_ld"):
            dataclasses.replace(cfg, **bad).check()


def test_c_rows_take_the_wider_arrays_pitch():
    cfg = GemmConfig(tile_n=128, dtype="f16", out_dtype="f32", epilogue="direct", c_ld=True)
    rows = operand_rows(cfg, 0x1000, 0x2000, 0x3000, 100, 72, 64, ldc=264)
    c = rows[2]
    assert (c.width, c.pitch, c.rows) == (72 * 4, 264 * 4, 100) and c.tma_ok
    # a slice at an odd column: its base is not 16-byte aligned, C is staged (only its own columns copied out)
    reasons = staging_reasons(cfg, 0x1000, 0x2000, 0x3000 + 4, 100, 72, 64, ldc=264)
    assert [r.split(":")[0] for r in reasons] == ["C"]
    # a row pitch that is not a multiple of 16 bytes
    assert "row stride 1060 bytes" in staging_reasons(cfg, 0x1000, 0x2000, 0x3000, 100, 72, 64, ldc=265)[0]


ptxas = pytest.importorskip("tileorch.backend.ptxas")


@pytest.mark.skipif(not ptxas.ptxas_available(), reason="no ptxas")
def test_builder_stores_rows_ldc_apart():
    """The direct epilogue's fragment store takes the ldc parameter as its leading dimension and N
    as its column bound (the kernel's last builder parameter; ptxas accepts the kernel)."""
    from tileorch.dialects.atoms import StoreFragmentOp
    from tileorch.driver import compile_module
    from tileorch.kernels.gemm.build import build_gemm_kernel

    cfg = GemmConfig(tile_n=128, dtype="f16", out_dtype="f32", epilogue="direct", c_ld=True, cluster_m=1).check()
    module = build_gemm_kernel(cfg)
    fn = next(iter(module.ops))
    args = fn.body.blocks.first.args
    assert [a.name_hint for a in args][-1] == "ldc" and len(args) == 9
    frags = [o for o in module.walk() if isinstance(o, StoreFragmentOp)]
    assert frags and all(f.ld is args[-1] and f.cols is args[5] for f in frags)
    result = compile_module(module, arch="sm_90a", emit="ptx", ptxas=True)
    assert f"{cfg.name}_param_8" in result.ptx


# ----------------------------------------------------------------------------------------------- compiled programs


def _program(name, spec=None, **options):
    from tileorch.testing.column_view_programs import KERNELS, SPECS
    from tileorch.testing.gemm_emulation import compile_cutile

    return compile_cutile(KERNELS[name], spec or SPECS[name][0], name, **options)


def _described(name, spec, bases):
    from tileorch.launchers import cutile as rc
    from tileorch.testing.column_view_programs import KERNELS
    from tileorch.testing.export import FakeDeviceArray

    args = rc.describe_arguments(KERNELS[name], tuple(FakeDeviceArray(bases[i], s[0]) if isinstance(s, tuple) else s
                                                      for i, s in enumerate(spec)))
    return [dataclasses.replace(a, dtype=spec[a.position][1]) if isinstance(a, rc.ArrayArg) else a for a in args]


def _entry_parameter_of(args, position, role=None):
    from tileorch.launchers import cutile as rc

    (index,) = [i for i, (pos, r) in enumerate(rc.flat_parameters(args)) if pos == position and role in (None, r)]
    return index


@needs_cutile
def test_out_slice_is_recorded_as_cs_column_view():
    """``Out.slice(axis=1, start=col0, stop=col0 + B.shape[1])``: the GEMM tier, C's view the columns
    from the scalar col0, B's N of them; c_ld in the configuration."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.column_view_programs import SPECS

    spec = SPECS["mm_into_column_slice"][0]
    prog = _program("mm_into_column_slice")
    assert prog.kind == "gemm", prog.remarks
    assert prog.gemm_config.c_ld
    args = _described("mm_into_column_slice", spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32})
    col0, b_cols = _entry_parameter_of(args, 3), _entry_parameter_of(args, 1, "shape1")
    assert prog.c_view["start"] == [["const", 0], ["arg", col0, 1]]
    assert prog.c_view["extent"] == [["const", 0], ["arg", b_cols, 1]]
    assert [r for r in prog.remarks if "C's view: columns [" in r], prog.remarks
    a, b, c, m, n, k, _ = rc.gemm_problem_batched(prog, args)
    assert c.ptr == (3 << 32) + 96 * 4 and c.shape == (200, 72) and c.strides == (264, 1)
    assert (m, n, k) == (200, 72, 136) and rc.c_row_stride(c) == 264


@needs_cutile
def test_out_slice_past_the_array_is_an_index_error():
    from tileorch.launchers import cutile as rc
    from tileorch.testing.column_view_programs import SPECS

    spec = list(SPECS["mm_into_column_slice"][0])
    spec[3] = 200  # 200 + 72 > 264
    args = _described("mm_into_column_slice", spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32})
    with pytest.raises(IndexError, match=r"stores C into columns 200 \.\. 271 .* outside the array's 264 columns"):
        rc.gemm_problem_batched(_program("mm_into_column_slice"), args)


@needs_cutile
def test_a_callers_column_slice_of_c_is_taken():
    """``mm_plain`` launched with C a column slice of a wider tensor: the GEMM problem keeps C's row
    stride (the launcher then asks for a c_ld kernel); a batched or transposed C would not."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.column_view_programs import SPECS

    spec = SPECS["mm_plain"][0]
    prog = _program("mm_plain")
    assert prog.kind == "gemm" and not prog.gemm_config.c_ld
    args = _described("mm_plain", spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32})
    args = [dataclasses.replace(a, strides=(264, 1)) if a.position == 2 else a for a in args]
    _, _, c, m, n, _, _ = rc.gemm_problem_batched(prog, args)
    assert (c.strides, rc.c_row_stride(c), n) == ((264, 1), 264, 72)


@needs_cutile
def test_row_slice_stays_refused_at_the_users_line():
    from tileorch.testing import column_view_programs
    from tileorch.testing.column_view_programs import KERNELS

    prog = _program("mm_into_row_slice")
    assert prog.kind == "simt"
    lines, first = inspect.getsourcelines(KERNELS["mm_into_row_slice"]._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(lines) if "ct.store(dst" in ln)
    source = str(Path(column_view_programs.__file__))
    assert [r for r in prog.remarks if r.startswith(f"{source}:{line}:") and "slice along rows (axis 0)" in r], \
        prog.remarks


@needs_cutile
@pytest.mark.parametrize("name", ["moe_gate_up_expert", "moe_gate_up_into_column_slice"])
def test_gate_up_expert_views_on_both_bs(name):
    """``silu(X @ W1[e]) * (X @ W3[e])``: dots sharing A, each B its own view of its weight at e."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.column_view_programs import SPECS

    spec = SPECS[name][0]
    prog = _program(name)
    assert prog.kind == "gemm", prog.remarks
    assert prog.gemm_config.b_operands == 2
    args = _described(name, spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32, 3: 4 << 32})
    e = [["arg", _entry_parameter_of(args, 4)]]
    assert prog.operand_views == {"b": e, "b1": e}
    a, b, c, m, n, k, batch = rc.gemm_problem_batched(prog, rc.stored_arguments(args))
    (b1,) = rc.more_b_operands(prog, rc.stored_arguments(args), b, batch)
    assert b.ptr == (2 << 32) + 2 * 136 * 72 * 2 and b1.ptr == (3 << 32) + 2 * 136 * 72 * 2
    assert b.shape == b1.shape == (136, 72) and (m, n, k) == (200, 72, 136)
    if name.endswith("column_slice"):
        assert prog.gemm_config.c_ld and c.ptr == (4 << 32) + 96 * 4 and c.strides == (264, 1)


@needs_cutile
def test_gate_up_expert_e_outside_w3_is_an_error():
    from tileorch.launchers import cutile as rc
    from tileorch.testing.column_view_programs import SPECS

    spec = list(SPECS["moe_gate_up_expert"][0])
    spec[2] = ((2, 136, 72), "float16")  # W3 has 2 experts, e = 2
    spec[1] = ((3, 136, 72), "float16")
    args = rc.stored_arguments(_described("moe_gate_up_expert", spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32,
                                                                       3: 4 << 32}))
    prog = _program("moe_gate_up_expert")
    _, b, _, _, _, _, batch = rc.gemm_problem_batched(prog, args)
    with pytest.raises(IndexError, match=r"reads B1 as its matrix at index 2 of dimension 0"):
        rc.more_b_operands(prog, args, b, batch)


@needs_cutile
def test_shared_viewed_a():
    """``silu(X[e] @ Wg) * (X[e] @ Wu)``: A's view shared by both dots."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.column_view_programs import SPECS

    spec = SPECS["gate_up_viewed_a"][0]
    prog = _program("gate_up_viewed_a")
    assert prog.kind == "gemm" and prog.gemm_config.b_operands == 2, prog.remarks
    args = _described("gate_up_viewed_a", spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32, 3: 4 << 32})
    assert prog.operand_views == {"a": [["arg", _entry_parameter_of(args, 4)]]}
    a, *_ = rc.gemm_problem_batched(prog, args)
    assert a.ptr == (1 << 32) + 1 * 200 * 136 * 2 and a.shape == (200, 136)


@needs_cutile
def test_ragged_column_slice_on_the_emulator():
    """The compiled kernel on the PTX emulator (every CTA): C at the pointer and row stride the launcher
    derived for ``Out[:, 96:168]`` of a NaN-prefilled ``Out [200, 264]``; ragged M, N, K (200 x 72 x 136).
    The slice holds X @ W; every column beside it stays NaN."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.column_view_programs import SPECS
    from tileorch.testing.gemm_emulation import run_gemm

    spec = SPECS["mm_into_column_slice"][0]
    prog = _program("mm_into_column_slice", config="cluster_m=1,epilogue=direct")
    assert prog.kind == "gemm" and prog.gemm_config.c_ld and not prog.epilogue_ops, prog.remarks
    rng = np.random.default_rng(20)
    x = (rng.standard_normal((200, 136)) * 0.5).astype(np.float16)
    w = (rng.standard_normal((136, 72)) * 0.5).astype(np.float16)
    bases = {0: 1 << 32, 1: 2 << 32, 2: 3 << 32}
    a, b, c, m, n, k, _ = rc.gemm_problem_batched(prog, _described("mm_into_column_slice", spec, bases))
    out = np.full((200, 264), np.nan, np.float32)
    errors = run_gemm(prog, x, w, c.ptr, (m, n, k), [rc.c_row_stride(c)],
                      [(bases[2], out.view(np.uint8).reshape(-1), "Out")])
    assert not errors, errors[:4]
    np.testing.assert_allclose(out[:, 96:168], x.astype(np.float64) @ w.astype(np.float64), atol=3e-3, rtol=1e-2)
    assert np.isnan(out[:, :96]).all() and np.isnan(out[:, 168:]).all()


@needs_cutile
def test_column_tiles_offset_by_a_scalar_on_the_emulator():
    """``ct.store(Out, index=(bm, bn + col_tile))`` into ``Out [200, 320]`` (B [136, 72]: ragged): a
    program-grid kernel whose column bound is Out's own 320 columns (was refused at launch: "GEMM
    shapes do not agree").  The program's tiles land at columns 128 .. 255: X @ W in 128 .. 199, the
    zero-padded B's zeros in 200 .. 255 (as the program stores them), NaN elsewhere."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.column_view_programs import SPECS
    from tileorch.testing.gemm_emulation import array_params, run_gemm

    spec = list(SPECS["mm_into_column_tiles"][0])
    spec[1], spec[2] = ((136, 72), "float16"), ((200, 320), "float32")
    prog = _program("mm_into_column_tiles", spec, config="cluster_m=1,epilogue=direct")
    cfg = prog.gemm_config
    assert prog.kind == "gemm" and cfg.program_grid and not cfg.c_ld, prog.remarks
    bases = {0: 1 << 32, 1: 2 << 32, 2: 3 << 32}
    _, _, c, m, n, k, _ = rc.gemm_problem_batched(prog, _described("mm_into_column_tiles", spec, bases))
    assert (m, n, k, c.shape, rc.c_row_stride(c)) == (200, 72, 136, (200, 320), 320)
    rng = np.random.default_rng(21)
    x = (rng.standard_normal((200, 136)) * 0.5).astype(np.float16)
    w = (rng.standard_normal((136, 72)) * 0.5).astype(np.float16)
    out = np.full((200, 320), np.nan, np.float32)
    grid = (2, 2, 1)
    tile = [*array_params(bases[0], (200, 136)), *array_params(bases[1], (136, 72)),
            *array_params(bases[2], (200, 320)), 2, *grid]
    errors = run_gemm(prog, x, w, bases[2], (m, 320, k), tile, [(bases[2], out.view(np.uint8).reshape(-1), "Out")],
                      problem=(grid[0] * cfg.tile_m, grid[1] * cfg.tile_n, k, grid[2]))
    assert not errors, errors[:4]
    np.testing.assert_allclose(out[:, 128:200], x.astype(np.float64) @ w.astype(np.float64), atol=3e-3, rtol=1e-2)
    assert (out[:, 200:256] == 0).all()
    assert np.isnan(out[:, :128]).all() and np.isnan(out[:, 256:]).all()


# ----------------------------------------------------------------------------------------------- the tier's linear forms


def _expr_strategy():
    leaf = st.one_of(st.tuples(st.just("arg"), st.integers(0, 2)), st.tuples(st.just("const"), st.integers(-50, 50)))
    return st.recursive(leaf, lambda sub: st.one_of(
        st.tuples(st.sampled_from(["add", "sub"]), sub, sub),
        st.tuples(st.just("mul"), sub, st.integers(-4, 4))), max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(_expr_strategy(), st.lists(st.integers(-1000, 1000), min_size=3, max_size=3))
def test_host_linear_forms_evaluate_like_the_expression(expr, values):
    """Sums, differences and constant multiples of the kernel's scalar parameters and constants (as the
    IR spells ``col0 + B.shape[1]``): the recorded linear form, evaluated by the launcher at the
    scalars' values, is the expression's value."""
    from types import SimpleNamespace

    from xdsl.builder import ImplicitBuilder
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr, i32
    from xdsl.ir import Block

    from tileorch.transforms.tileas.operand_views import host_linear

    block = Block(arg_types=[i32] * 3)

    def build(e):
        if e[0] == "arg":
            return block.args[e[1]]
        if e[0] == "const":
            return arith.ConstantOp(IntegerAttr(e[1], i32)).result
        if e[0] == "mul":
            return arith.MuliOp(build(e[1]), arith.ConstantOp(IntegerAttr(e[2], i32)).result).result
        return (arith.AddiOp if e[0] == "add" else arith.SubiOp)(build(e[1]), build(e[2])).result

    def value(e):
        if e[0] == "arg":
            return values[e[1]]
        if e[0] == "const":
            return e[1]
        if e[0] == "mul":
            return value(e[1]) * e[2]
        return value(e[1]) + value(e[2]) if e[0] == "add" else value(e[1]) - value(e[2])

    with ImplicitBuilder(block):
        v = build(expr)
    kernel = SimpleNamespace(body=SimpleNamespace(blocks=SimpleNamespace(first=block)))
    form = host_linear(kernel, v)
    assert form is not None
    args = [ScalarArg(i, f"s{i}", "int32", x) for i, x in enumerate(values)]
    assert linear_value(form, args, [(i, "scalar") for i in range(3)])[0] == value(expr)


# ----------------------------------------------------------------------------------------------- the launch decision


class _FakePrepared:
    def __init__(self, seen):
        self.staging = type("S", (), {"warn": staticmethod(lambda *a, **k: None)})()
        self.seen = seen

    def launcher(self):
        return lambda stream: self.seen.append(("launched", stream))


class _FakeImage:
    def __init__(self, cfg, seen):
        self.cfg, self.seen = cfg, seen

    def prepare(self, a_ptr, b_ptr, c_ptr, m, n, k, sms, **kw):
        self.seen.append(("prepare", c_ptr, m, n, k, kw.get("ldc"), kw.get("c_cols")))
        return _FakePrepared(self.seen)


@needs_cutile
@pytest.mark.parametrize("width, off", [(264, 96), (72, 0)])
def test_a_callers_slice_compiles_the_c_ld_kernel_and_passes_ldc(monkeypatch, width, off):
    """``mm_plain`` with C = ``Y[:, off:off + 72]`` of ``Y [200, width]``: the launcher compiles the program
    again with ``c_ld=1`` and binds the problem with ``ldc = width`` at the slice's pointer; a C that is
    the whole array keeps the compiled kernel (no ldc)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.column_view_programs import KERNELS, SPECS

    spec = SPECS["mm_plain"][0]
    prog = _program("mm_plain")
    base = 3 << 32
    args = _described("mm_plain", spec, {0: 1 << 32, 1: 2 << 32, 2: base})
    args = [dataclasses.replace(a, strides=(width, 1), ptr=base + off * 4) if a.position == 2 else a for a in args]
    seen, asked = [], []

    def fake_compiled(kernel, arguments, arch, schedule, config=""):
        asked.append(config)
        cfg = dataclasses.replace(prog.gemm_config, c_ld="c_ld=1" in config)
        return rc._Compiled(dataclasses.replace(prog, gemm_config=cfg), image=_FakeImage(cfg, seen))

    monkeypatch.setattr(rc, "compiled", fake_compiled)
    monkeypatch.setattr(rc, "_prepared", type(rc._prepared)())
    entry = rc._Compiled(prog, image=_FakeImage(prog.gemm_config, seen))
    dev = type("D", (), {"sm_count": 132})()
    rc._launch_gemm(entry, KERNELS["mm_plain"], args, "sm_90a", "persistent", 7, dev, False, "program")
    if width != 72:
        assert asked == ["c_ld=1"]
        assert seen[0] == ("prepare", base + off * 4, 200, 72, 136, width, 0)
    else:
        assert asked == [] and seen[0] == ("prepare", base, 200, 72, 136, 0, 0)
    assert seen[-1] == ("launched", 7)


@needs_cutile
def test_a_transposed_c_is_dense_not_a_column_slice(monkeypatch):
    """Sweep 8's ``mm_store_order_transposed`` stores acc^T into ``Ct [N, M]`` (row stride M): the launcher
    must not read that stride as a column slice of a wider C (it asked for ``c_ld=1``, which the
    transposed epilogue refuses: the H200 run of 2026-12-05 failed there) and binds the dense problem."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import FakeDeviceArray
    from tileorch.testing.gemm_emulation import compile_cutile
    from tileorch.testing.user_programs8 import PROGRAMS

    p = PROGRAMS["mm_store_order_transposed"]
    prog = compile_cutile(p.kernel, p.spec, "mm_store_order_transposed")
    assert prog.gemm_config.c_transposed
    bases = {0: 1 << 32, 1: 2 << 32, 2: 3 << 32}
    args = rc.describe_arguments(p.kernel, tuple(FakeDeviceArray(bases[i], s[0]) if isinstance(s, tuple) else s
                                                 for i, s in enumerate(p.spec)))
    args = [dataclasses.replace(a, dtype=p.spec[a.position][1]) if isinstance(a, rc.ArrayArg) else a for a in args]
    seen, asked = [], []

    def fake_compiled(kernel, arguments, arch, schedule, config=""):
        asked.append(config)
        return rc._Compiled(prog, image=_FakeImage(prog.gemm_config, seen))

    monkeypatch.setattr(rc, "compiled", fake_compiled)
    monkeypatch.setattr(rc, "_prepared", type(rc._prepared)())
    entry = rc._Compiled(prog, image=_FakeImage(prog.gemm_config, seen))
    dev = type("D", (), {"sm_count": 132})()
    rc._launch_gemm(entry, p.kernel, args, "sm_90a", "persistent", 7, dev, False, "program")
    assert asked == [] and seen[0] == ("prepare", bases[2], 256, 128, 256, 0, 0)
    assert seen[-1] == ("launched", 7)
