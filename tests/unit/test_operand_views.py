"""Host-computable operand views (``tileas/operand_views.py``, ``launchers/operand_views.py``): a GEMM
whose A or B is one matrix of an argument picked at leading indices that are scalar arguments or
constants (``X @ W[e]``, an MoE expert's weight) runs on the GEMM tier; the configuration records
per operand how the launcher derives the matrix (the entry parameter of each scalar, or the
constant), and the launcher offsets the argument's pointer by that matrix (its own strides), takes
its last two extents and strides, and raises a clear error for an index outside the array.  Indices
computed in the kernel or read from memory stay refused at the user's line.

The derived pointers are checked against numpy's own addressing of ``W[idx]`` (an independent
reference), on fake device arrays (no GPU); one ragged program runs on the PTX emulator with B read
at the launcher's derived address.  Needs cuda-tile for the compiled programs."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.launchers.cutile import ArrayArg, ScalarArg
from tileorch.launchers.operand_views import apply_views, operand_view

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
needs_cutile = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

BASE = 1 << 40


# ----------------------------------------------------------------------------------------------- the launcher's derivation


def _array(pos, shape, strides, dtype="float16", ptr=BASE):
    return ArrayArg(pos, f"arg{pos}", dtype, tuple(shape), tuple(strides), ptr)


def _numpy_matrix(shape, strides_elems, idx, itemsize=2):
    """numpy's own view ``W[idx]`` of an array with these element strides: (byte offset from W's
    first element, shape, element strides)."""
    dt = {2: np.float16, 4: np.float32}[itemsize]
    span = 1 + sum((d - 1) * s for d, s in zip(shape, strides_elems))
    buf = np.zeros(span, dt)
    w = np.lib.stride_tricks.as_strided(buf, shape=shape, strides=[s * itemsize for s in strides_elems])
    m = w[idx]
    offset = m.__array_interface__["data"][0] - buf.__array_interface__["data"][0]
    return offset, m.shape, tuple(s // itemsize for s in m.strides)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.integers(1, 40), st.integers(1, 40),
       st.integers(0, 7), st.booleans(), st.data())
def test_view_pointer_is_numpys_address_of_the_matrix(lead_shape, rows, cols, pad, column_major, data):
    """Any leading shape, padded row pitch, a column-major matrix and permuted batch strides: the
    derived pointer, extents and strides are numpy's ``W[idx]``."""
    shape = (*lead_shape, rows, cols)
    inner = (1, cols + pad) if column_major else (cols + pad, 1)
    mat = (rows + pad) * (cols + pad)
    batch = []
    step = mat
    for d in reversed(lead_shape):
        batch.insert(0, step)
        step *= d
    order = data.draw(st.permutations(range(len(lead_shape))))
    batch = [batch[i] for i in order]  # the batch dimensions laid out in another order
    strides = (*batch, *inner)
    idx = tuple(data.draw(st.integers(0, d - 1)) for d in lead_shape)
    w = _array(0, shape, strides)
    scalars = [ScalarArg(i + 1, f"s{i}", "int32", v) for i, v in enumerate(idx)]
    flat = [(0, "ptr")] + [(i + 1, "scalar") for i in range(len(idx))]
    got = operand_view(w, "B", [["arg", i + 1] for i in range(len(idx))], [w, *scalars], flat)
    offset, mshape, mstrides = _numpy_matrix(shape, strides, idx)
    assert got.ptr - BASE == offset
    assert got.shape == mshape and got.strides == mstrides
    assert (got.dtype, got.position, got.name) == (w.dtype, w.position, w.name)


def test_constants_and_scalars_mixed():
    w = _array(1, (2, 3, 64, 32), (3 * 64 * 32, 64 * 32, 32, 1), "float32")
    args = [w, ScalarArg(4, "e", "int64", 2)]
    flat = [(1, "ptr")] + [(1, "shape")] * 4 + [(1, "stride")] * 4 + [(4, "scalar")]
    got = apply_views({"a": [["const", 1], ["arg", 9]]}, {"a": w, "b": None}, args, flat)
    assert got["a"].ptr == BASE + (1 * 3 * 64 * 32 + 2 * 64 * 32) * 4
    assert got["a"].shape == (64, 32) and got["a"].strides == (32, 1)
    assert got["b"] is None


@pytest.mark.parametrize("e", [-1, 3, 7])
def test_an_index_outside_the_array_is_a_clear_error(e):
    w = _array(1, (3, 64, 32), (64 * 32, 32, 1))
    args = [w, ScalarArg(3, "e", "int32", e)]
    with pytest.raises(IndexError, match=rf"argument 1 \('arg1'\): the program reads B as its matrix at index {e} "
                                         rf"of dimension 0 \(argument 3 \('e'\) = {e}\), outside the array's 3"):
        operand_view(w, "B", [["arg", 1]], args, [(1, "ptr"), (3, "scalar")])


def test_a_constant_outside_the_array_is_a_clear_error():
    w = _array(1, (1, 64, 32), (64 * 32, 32, 1))
    with pytest.raises(IndexError, match=r"index 1 of dimension 0 \(the constant 1\), outside the array's 1"):
        operand_view(w, "B", [["const", 1]], [w], [(1, "ptr")])


def test_an_array_of_another_rank_is_refused():
    w = _array(1, (64, 32), (32, 1))
    with pytest.raises(ValueError, match=r"reads B as one matrix of a 3-D array .* got shape \(64, 32\)"):
        operand_view(w, "B", [["const", 0]], [w], [(1, "ptr")])


def test_a_view_naming_an_array_parameter_is_an_internal_error():
    w = _array(1, (3, 64, 32), (64 * 32, 32, 1))
    with pytest.raises(RuntimeError, match="not an integer scalar argument"):
        operand_view(w, "B", [["arg", 0]], [w], [(1, "ptr")])


# ----------------------------------------------------------------------------------------------- compiled programs


def _sweep11(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs11 import PROGRAMS

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)  # (the sweep's key)


def _views_program(name, spec=None):
    from tileorch.testing.gemm_emulation import compile_cutile
    from tileorch.testing.operand_view_programs import KERNELS, SPECS

    return compile_cutile(KERNELS[name], spec or SPECS[name][0], name)


def _described(kernel, spec, bases):
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import FakeDeviceArray

    args = rc.describe_arguments(kernel, tuple(FakeDeviceArray(bases[i], s[0]) if isinstance(s, tuple) else s
                                               for i, s in enumerate(spec)))
    return [dataclasses.replace(a, dtype=spec[a.position][1]) if isinstance(a, rc.ArrayArg) else a for a in args]


def _entry_parameter_of(args, position):
    from tileorch.launchers import cutile as rc

    flat = rc.flat_parameters(args)
    (index,) = [i for i, (pos, _) in enumerate(flat) if pos == position]
    return index


@needs_cutile
def test_expert_weight_is_recorded_as_a_view_of_w_at_e():
    """``Y = X @ W[e]`` (sweep 11): the GEMM tier, B's view the matrix of W at the scalar ``e``."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.user_programs11 import PROGRAMS

    p = PROGRAMS["mm_expert_weight_by_scalar"]
    prog = _sweep11("mm_expert_weight_by_scalar")
    assert prog.kind == "gemm", prog.remarks
    args = _described(p.kernel, p.spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32})
    assert prog.operand_views == {"b": [["arg", _entry_parameter_of(args, 3)]]}  # e: the 4th argument
    a, b, c = rc.gemm_operands(prog, args)
    assert (a.position, b.position, c.position) == (0, 1, 2)
    assert [r for r in prog.remarks if "B's view: one matrix [" in r and "1 scalar argument" in r], prog.remarks
    assert not [r for r in prog.remarks if "refused" in r], prog.remarks


@needs_cutile
@pytest.mark.parametrize("e", [0, 1, 2])
def test_the_launcher_reads_w_e(e):
    """The GEMM problem the launcher derives: B is ``W[e]`` (pointer ``W + e * K * N`` elements, [K, N],
    row-major), M, N, K those of X and W's matrices; e at 0 and at E - 1 included."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.user_programs11 import PROGRAMS

    p = PROGRAMS["mm_expert_weight_by_scalar"]
    spec = list(p.spec)
    spec[3] = e
    args = _described(p.kernel, spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32})
    a, b, c, m, n, k, batch = rc.gemm_problem_batched(_sweep11("mm_expert_weight_by_scalar"), args)
    assert b.ptr == (2 << 32) + e * 256 * 128 * 2
    assert (b.shape, b.strides) == ((256, 128), (128, 1))
    assert (a.ptr, c.ptr, m, n, k, batch) == (1 << 32, 3 << 32, 256, 128, 256, 1)


@needs_cutile
@pytest.mark.parametrize("e", [3, -1])
def test_the_launcher_refuses_e_outside_w(e):
    from tileorch.launchers import cutile as rc
    from tileorch.testing.user_programs11 import PROGRAMS

    p = PROGRAMS["mm_expert_weight_by_scalar"]
    spec = list(p.spec)
    spec[3] = e
    args = _described(p.kernel, spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32})
    with pytest.raises(IndexError, match=rf"argument 1 \('W'\): the program reads B as its matrix at index {e} of "
                                         rf"dimension 0 \(argument 3 \('e'\) = {e}\), outside the array's 3"):
        rc.gemm_problem_batched(_sweep11("mm_expert_weight_by_scalar"), args)


@needs_cutile
def test_a_picked_by_a_scalar_ragged():
    """``Y = X[e] @ W``: A's view, ragged M / N / K (200 x 72 x 136)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.operand_view_programs import KERNELS, SPECS

    spec = SPECS["mm_expert_a_by_scalar"][0]
    prog = _views_program("mm_expert_a_by_scalar")
    assert prog.kind == "gemm", prog.remarks
    args = _described(KERNELS["mm_expert_a_by_scalar"], spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32})
    assert prog.operand_views == {"a": [["arg", _entry_parameter_of(args, 3)]]}
    a, b, c, m, n, k, _ = rc.gemm_problem_batched(prog, args)
    assert a.ptr == (1 << 32) + 2 * 200 * 136 * 2 and (a.shape, a.strides) == ((200, 136), (136, 1))
    assert (b.ptr, m, n, k) == (2 << 32, 200, 72, 136)


@needs_cutile
def test_two_scalars_into_a_4d_weight():
    from tileorch.launchers import cutile as rc
    from tileorch.testing.operand_view_programs import KERNELS, SPECS

    spec = SPECS["mm_weight_4d_two_scalars"][0]  # W [2, 3, 136, 72] at (g, e) = (1, 2)
    prog = _views_program("mm_weight_4d_two_scalars")
    assert prog.kind == "gemm", prog.remarks
    args = _described(KERNELS["mm_weight_4d_two_scalars"], spec, {0: 1 << 32, 1: 2 << 32, 2: 3 << 32})
    assert prog.operand_views == {"b": [["arg", _entry_parameter_of(args, 3)], ["arg", _entry_parameter_of(args, 4)]]}
    _, b, _, m, n, k, _ = rc.gemm_problem_batched(prog, args)
    assert b.ptr == (2 << 32) + (1 * 3 + 2) * 136 * 72 * 2 and b.shape == (136, 72)
    assert (m, n, k) == (200, 72, 136)
    assert [r for r in prog.remarks if "B's view" in r and "2 scalar arguments" in r], prog.remarks


@needs_cutile
def test_a_constant_matrix_index():
    """``W[1]`` (a constant index; ``W[0]`` beside a 2-D C was refused as a B shared by every batch)."""
    prog = _views_program("mm_weight_constant_matrix")
    assert prog.kind == "gemm", prog.remarks
    assert prog.operand_views == {"b": [["const", 1]]}
    assert [r for r in prog.remarks if "B's view: one matrix [1, :, :]" in r and "1 constant" in r], prog.remarks


@needs_cutile
@pytest.mark.parametrize("name, pick", [("mm_weight_computed_index", lambda e: (e + 1) % 3),
                                        ("mm_weight_index_from_memory", lambda e: e)])
def test_indices_the_host_cannot_compute_are_batch_indices_per_work_tile(name, pick, monkeypatch):
    """``W[(e + 1) % E]`` and ``W[Ids[0]]`` beside a 2-D C: refused until session 23 ("B is one matrix
    of a 3-D array picked by the program"); now the batched kernel evaluates B's batch index per work
    tile (C the one matrix every work tile stores its tile of): run on the PTX emulator (every CTA,
    the launcher's tensor maps: W's 3 matrices beside C's one) against numpy, C NaN-prefilled."""
    import test_user_sweep4_emulated as s4
    import test_user_sweep14_emulated as s14e

    from tileorch.testing.operand_view_programs import KERNELS, SPECS
    from tileorch.testing.user_programs import UserProgram

    prog = _views_program(name)
    assert prog.kind == "gemm" and prog.operand_views is None, prog.remarks
    assert any("batch indices computed by the program" in r for r in prog.remarks), prog.remarks
    spec, grid = SPECS[name]
    y_at = max(i for i, a in enumerate(spec) if isinstance(a, tuple))  # Y: the last array argument
    entry = UserProgram(KERNELS[name], spec, grid, "gemm", outputs=(y_at,))
    s4.add_sweep_programs(monkeypatch, {name: entry})
    monkeypatch.setattr(s14e, "PROGRAMS", {name: entry})
    rng = np.random.default_rng(23)
    x = (rng.standard_normal((256, 128)) * 0.5).astype(np.float16)
    w = (rng.standard_normal((3, 128, 128)) * 0.5).astype(np.float16)
    inputs = {0: x, 1: w, **({2: np.array([1], np.int32)} if name == "mm_weight_index_from_memory" else {})}
    y = s14e.emulate(name, inputs)[entry.outputs[0]]
    want = w[pick(1)]  # e = 1 (the scalar argument of the spec; Ids[0] = 1)
    assert not np.isnan(y).any()
    np.testing.assert_allclose(y, x.astype(np.float64) @ want.astype(np.float64), atol=3e-3, rtol=1e-2)


@needs_cutile
def test_ragged_expert_weight_on_the_emulator():
    """The compiled kernel run on the PTX emulator (every CTA), B read from W's bytes at the pointer,
    extents and strides the launcher derived for ``e = E - 1``; X [200, 136], W [3, 136, 72] (ragged
    M, N, K); C NaN-prefilled."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.gemm_emulation import compile_cutile, run_gemm
    from tileorch.testing.user_programs11 import mm_expert_weight_by_scalar

    spec = [((200, 136), "float16"), ((3, 136, 72), "float16"), ((200, 72), "float32"), 2, 128, 64, 64]
    prog = compile_cutile(mm_expert_weight_by_scalar, spec, "mm_expert_weight_ragged",
                          config="cluster_m=1,epilogue=direct")
    assert prog.kind == "gemm", prog.remarks
    rng = np.random.default_rng(19)
    x = (rng.standard_normal((200, 136)) * 0.5).astype(np.float16)
    w = (rng.standard_normal((3, 136, 72)) * 0.5).astype(np.float16)
    bases = {0: 1 << 32, 1: 2 << 32, 2: 3 << 32}
    args = _described(mm_expert_weight_by_scalar, spec, bases)
    a, b, c, m, n, k, _ = rc.gemm_problem_batched(prog, args)
    offset = b.ptr - bases[1]
    b_arr = np.lib.stride_tricks.as_strided(w.reshape(-1)[offset // 2:], shape=b.shape,
                                            strides=[s * 2 for s in b.strides])
    out = np.full((200, 72), np.nan, np.float32)
    errors = run_gemm(prog, x, np.ascontiguousarray(b_arr), bases[2], (m, n, k), [],
                      [(bases[2], out.view(np.uint8).reshape(-1), "C")])
    assert not errors, errors[:4]
    assert not np.isnan(out).any()
    np.testing.assert_allclose(out, x.astype(np.float64) @ w[2].astype(np.float64), atol=3e-3, rtol=1e-2)


@needs_cutile
def test_the_view_survives_the_disk_cache(tmp_path, monkeypatch):
    """A relaunch in a new process reads the program from tileorch's disk cache: the views come back."""
    from tileorch.launchers import cutile_programs as rc

    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TILEORCH_CACHE", "1")
    prog = _sweep11("mm_expert_weight_by_scalar")
    rc._write_cached("views-test", prog)
    back = rc._read_cached("views-test")
    assert prog.operand_views and set(prog.operand_views) == {"b"}
    assert back is not None and back.operand_views == prog.operand_views
