"""GEMMs whose operand / output tiles have a unit *middle* dimension on the GPU (session 40, issue 21 item 1:
``tileorch.testing.mid3d_programs``): every program through ``tileorch.cutile.launch`` on ragged shapes (its spec's
and a larger sequence-first one), outputs NaN-prefilled, against torch in float64; each launch must run the TileAS
tier's TMA/WGMMA kernel (no PerformanceWarning naming the SIMT path; the program's launch remark is not the SIMT
path's), except the array whose rows are not whole 16-byte units, which must run on the SIMT path with the reason
and still be right; review H1's views of other row strides (the middle dimension sliced from a wider array; A and
C) on the tensor cores, a transposed array and H2's permuted view on the SIMT path, right; M4's second output beside
C on the tensor cores.  Skipped without a GPU; needs torch and cuda-tile.  Timing: benchmarks/session40_mid3d.sh."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.diagnostics import PerformanceWarning  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.mid3d_programs import PROGRAMS  # noqa: E402

DT = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
      "float8_e4m3fn": torch.float8_e4m3fn}


def _cdiv(a, b):
    return -(-a // b)


def _randn(shape, dtype, seed, scale=1.0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (torch.randn(shape, device="cuda", generator=g) * scale).to(DT[dtype])


def _nan(shape, dtype):
    return torch.full(shape, float("nan"), device="cuda", dtype=DT[dtype])


def launch(name, args, grid):
    """Launch program ``name`` on ``args`` (its arrays; the spec's tile sizes follow) and ``grid``; (PerformanceWarning
    texts, the launch's remark)."""
    kernel = PROGRAMS[name].kernel
    args = [*args, *PROGRAMS[name].spec[len(args):]]
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, tuple(args))
        torch.cuda.synchronize()
    texts = [str(w.message) for w in got if issubclass(w.category, PerformanceWarning)]
    entry = rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a", "persistent",
                        defer_gemm=True)  # (the launch's own entry: its remarks)
    remark = entry.launch_remarks.get(tuple(grid) + (1,) * (3 - len(grid)), "")
    return texts, remark


def _on_tensor_cores(texts, remark):
    """The launch ran the tier's kernel: no PerformanceWarning names the SIMT path, nor does the launch's remark."""
    assert not [t for t in texts if "SIMT" in t], texts
    assert "SIMT path runs the launch" not in remark, remark


SHAPES = [(100, 3, 72, 80), (1000, 4, 200, 296), (257, 2, 64, 64)]
"""(S, B, K, N): the spec's, a larger sequence-first one (ragged M, N and K tiles), one more."""


def _problem(name, s, nb, k, n, seed):
    """(args, grid, reference [as the output], output position) of program ``name`` at S x B x K x N."""
    p = PROGRAMS[name]
    dt = p.spec[0][1]
    tm, tn = p.spec[-3], p.spec[-2]
    grid = (_cdiv(s, tm), _cdiv(n, tn), nb)
    scale = 0.5 if dt == "float8_e4m3fn" else 1.0
    if name == "mid_a_reshape":
        x, w = _randn((s, nb, k), dt, seed), _randn((nb, k, n), dt, seed + 1)
        out = _nan((nb, s, n), p.spec[2][1])
        return [x, w, out], grid, torch.einsum("mbk,bkn->bmn", x.double(), w.double()), 2
    if name == "mid_b_reshape":
        a, w = _randn((nb, s, k), dt, seed), _randn((k, nb, n), dt, seed + 1)
        out = _nan((nb, s, n), p.spec[2][1])
        return [a, w, out], grid, torch.einsum("bmk,kbn->bmn", a.double(), w.double()), 2
    if name.startswith("mid_all_three"):
        x, w = _randn((s, nb, k), dt, seed), _randn((k, nb, n), dt, seed + 1)
        out = _nan((s, nb, n), p.spec[2][1])
        return [x, w, out], grid, torch.einsum("mbk,kbn->mbn", x.double(), w.double()), 2
    if name == "mid_b_k_major":
        x, wt = _randn((s, nb, k), dt, seed), _randn((n, nb, k), dt, seed + 1)
        out = _nan((s, nb, n), p.spec[2][1])
        return [x, wt, out], grid, torch.einsum("mbk,nbk->mbn", x.double(), wt.double()), 2
    if name == "mid_bias_relu":
        x, w, bias = _randn((s, nb, k), dt, seed), _randn((k, n), dt, seed + 1), _randn((n,), "float32", seed + 2)
        out = _nan((s, nb, n), p.spec[3][1])
        ref = torch.relu(torch.einsum("mbk,kn->mbn", x.double(), w.double()) + bias.double())
        return [x, w, bias, out], grid, ref, 3
    if name in ("mid_a_fp8_bt", "mid_a_tf32_bt"):
        if dt == "float8_e4m3fn":
            k = max(k // 128, 1) * 128  # (the program's K tile: 128 e4m3)
        x, wt = _randn((s, nb, k), dt, seed, scale), _randn((n, k), dt, seed + 1, scale)
        out = _nan((s, nb, n), p.spec[2][1])
        return [x, wt, out], grid, torch.einsum("mbk,nk->mbn", x.double(), wt.double()), 2
    if name == "mid_relu_and_preact":  # (P, the f32 pre-activation; Y = relu(P) f16: test_two_mid_outputs)
        x, w = _randn((s, nb, k), dt, seed), _randn((k, n), dt, seed + 1)
        return [x, w, _nan((s, nb, n), "float32"), _nan((s, nb, n), "float16")], grid, \
            torch.einsum("mbk,kn->mbn", x.double(), w.double()), 2
    if name == "mid_relu_and_stacked_preact":  # (P batch-first [B, S, N])
        x, w = _randn((s, nb, k), dt, seed), _randn((k, n), dt, seed + 1)
        return [x, w, _nan((nb, s, n), "float32"), _nan((s, nb, n), "float16")], grid, \
            torch.einsum("mbk,kn->bmn", x.double(), w.double()), 2
    x, w = _randn((s, nb, k), dt, seed), _randn((k, n), dt, seed + 1)  # the sequence-first projections
    out = _nan((s, nb, n), p.spec[2][1])
    return [x, w, out], grid, torch.einsum("mbk,kn->mbn", x.double(), w.double()), 2


def _rel(got, ref, tol):
    got = got.double()
    assert not torch.isnan(got).any(), "unwritten elements"
    err = float((got - ref).norm() / ref.norm())
    assert err < tol, f"relative error {err:.3e}"


TOL = {"float16": 1e-2, "bfloat16": 2e-2, "float32": 5e-3}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path == "gemm"))
def test_mid_batched_gemm_on_tensor_cores(name, shape):
    args, grid, ref, o = _problem(name, *shape, seed=sum(map(ord, name)) + shape[0])
    texts, remark = launch(name, args, grid)
    _on_tensor_cores(texts, remark)
    out_dt = PROGRAMS[name].spec[o][1]
    _rel(args[o], ref, 3e-2 if name == "mid_a_fp8_bt" else 1e-2 if name == "mid_a_tf32_bt" else TOL[out_dt])


def test_rows_of_no_whole_16_bytes_run_on_simt_with_the_reason():
    """K = 100 f16 (200-byte rows, the 3-D map's batch pitch): not a TMA pitch; the launch runs on the SIMT path
    with a PerformanceWarning naming the batch pitch, and the product is right."""
    args, grid, ref, o = _problem("mid_a_c_shared_w", 130, 3, 100, 64, seed=7)
    texts, remark = launch("mid_a_c_shared_w", args, grid)
    assert any("batch pitch" in t and "16 bytes" in t for t in texts) or "batch pitch" in remark, (texts, remark)
    _rel(args[o], ref, 1e-2)


def test_a_strided_sequence_first_view_is_right():
    """X a ``[S, B, K]`` view with a padded row pitch (``buf[:, :, :K]`` of ``[S, B, K + 8]``): not contiguous, the
    launch says so and runs on the SIMT path; the result is right either way."""
    buf = _randn((200, 3, 80), "float16", 11)
    x = buf[:, :, :72]
    w = _randn((72, 80), "float16", 12)
    out = _nan((200, 3, 80), "float32")
    texts, remark = launch("mid_a_c_shared_w", [x, w, out], (_cdiv(200, 64), _cdiv(80, 64), 3))
    assert any("contiguous" in t for t in texts) or "contiguous" in remark, (texts, remark)
    _rel(out, torch.einsum("mbk,kn->mbn", x.double(), w.double()), 5e-3)


def test_a_computed_middle_index_runs_on_simt_and_is_right():
    """The batches taken last-first (``X[:, B - 1 - b, :]``): refused by the tier at compile time (located), the SIMT
    path runs it, right."""
    args, grid, ref, o = _problem("mid_a_reversed_batch", 200, 3, 72, 80, seed=9)
    launch("mid_a_reversed_batch", args, grid)
    _rel(args[o], ref.flip(1), 5e-3)


@pytest.mark.parametrize("name", ["mid_relu_and_preact", "mid_relu_and_stacked_preact"])
def test_two_outputs_beside_a_mid_c(name):
    """Review M4: Y = relu(P) batched in its middle dimension and the pre-activation P (``[S, B, N]`` as ``(tm, 1,
    tn)`` tiles, or batch-first ``[B, S, N]``) on the tensor cores, both right."""
    args, grid, ref, o = _problem(name, 1000, 4, 200, 296, seed=21)
    texts, remark = launch(name, args, grid)
    _on_tensor_cores(texts, remark)
    _rel(args[2], ref, 5e-3)
    y_ref = torch.relu(ref if name == "mid_relu_and_preact" else ref.transpose(0, 1))
    _rel(args[3], y_ref, 1e-2)


def _sliced(kind, s, nb, k, seed):
    """(X, its parent) for review H1's views: an ``[S, L, K]`` array that is not the contiguous one."""
    if kind == "one_of_three":  # X[:, 1:2, :] of a contiguous [S, 3, K]: rows 3 K apart, not K
        parent = _randn((s, 3, k), "float16", seed)
        return parent[:, 1:2, :], parent
    if kind == "two_of_four":  # X[:, 1:3, :]: rows 4 K apart, matrices K apart
        parent = _randn((s, 4, k), "float16", seed)
        return parent[:, 1:1 + nb, :], parent
    if kind == "transposed":  # a [K, 1, S] array permuted to [S, 1, K]: K's stride S, not 1
        parent = _randn((k, 1, s), "float16", seed)
        return parent.permute(2, 1, 0), parent
    parent = _randn((s + 5, nb, k), "float16", seed)  # rows_sliced: X[2:2 + S] of a taller array, still dense
    return parent[2:2 + s], parent


@pytest.mark.parametrize("kind, tier", [("one_of_three", True), ("two_of_four", True), ("transposed", False),
                                        ("rows_sliced", True)])
def test_sliced_views_of_a_mid_a_are_right(kind, tier):
    """Review H1: a view of X whose row stride is not the contiguous array's (its middle dimension sliced from a
    wider array: size 1, which read other rows before, or 2) runs on the tensor cores with the array's own row
    stride, right; rows sliced from a taller array too; a transposed array (rows not contiguous) on the SIMT path,
    right."""
    s, k, n = 300, 72, 80
    nb = 1 if kind in ("one_of_three", "transposed") else 2
    x, _ = _sliced(kind, s, nb, k, 31)
    w = _randn((k, n), "float16", 32)
    out = _nan((s, nb, n), "float32")
    texts, remark = launch("mid_a_c_shared_w", [x, w, out], (_cdiv(s, 64), _cdiv(n, 64), nb))
    if tier:
        _on_tensor_cores(texts, remark)
    else:  # (a last stride above 1: the program itself may be compiled for the SIMT path, with its own reason)
        assert any("SIMT" in t for t in texts) or "SIMT" in remark, (texts, remark)
    _rel(out, torch.einsum("mbk,kn->mbn", x.double(), w.double()), 5e-3)


def test_a_sliced_mid_c_writes_its_own_elements_only():
    """Review H1: C ``Y[:, 1:2, :]`` of a NaN-filled ``[S, 3, N]`` on the tensor cores (its rows 3 N apart, the
    kernel's row stride): the product lands in Y's middle column only (it was written rows N apart, over the other
    batches' elements, before); the other two stay NaN."""
    s, k, n = 300, 72, 80
    x, w = _randn((s, 1, k), "float16", 41), _randn((k, n), "float16", 42)
    parent = _nan((s, 3, n), "float32")
    texts, remark = launch("mid_a_c_shared_w", [x, w, parent[:, 1:2, :]], (_cdiv(s, 64), _cdiv(n, 64), 1))
    _on_tensor_cores(texts, remark)
    _rel(parent[:, 1:2, :], torch.einsum("mbk,kn->mbn", x.double(), w.double()), 5e-3)
    assert torch.isnan(parent[:, 0::2, :]).all(), "elements outside the slice written"


def test_a_mid_tile_through_a_permuted_view_runs_on_simt_and_is_right():
    """Review H2: ``(TM, 1, TK)`` tiles through ``order=(0, 2, 1)`` of X ``[M, K, L]`` (the view's middle dimension the
    array's last): refused by the tier (it compiled to an M-major A and computed garbage at M = K = L = 64), right on
    the SIMT path; at the spec's shapes and a ragged one."""
    for m, k, nb, n in ((64, 64, 64, 64), (130, 72, 3, 80)):
        x, w = _randn((m, k, nb), "float16", 51), _randn((k, n), "float16", 52)
        out = _nan((m, nb, n), "float32")
        launch("mid_a_order_last_two", [x, w, out], (_cdiv(m, 64), _cdiv(n, 64), nb))
        _rel(out, torch.einsum("mkb,kn->mbn", x.double(), w.double()), 5e-3)
