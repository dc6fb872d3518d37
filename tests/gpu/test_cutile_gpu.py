"""cuTile kernels run through tileorch with one changed line (``tileorch.cutile.launch`` for
``ct.launch``), against torch references computed in fp32 (fp64 for sums) from the same inputs.
Outputs are pre-filled with NaN, and where a kernel could write past its array the array is a
view of a larger NaN buffer whose tail must stay NaN.  Skipped (by tests/gpu/conftest.py) without
a GPU; needs torch and cuda-tile."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.testing.memory_programs import layernorm, softmax  # noqa: E402

NAN = float("nan")


@ct.kernel
def vec_add(a, b, c, tile: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(c, index=(i,), tile=ct.load(a, index=(i,), shape=(tile,)) + ct.load(b, index=(i,), shape=(tile,)))


@ct.kernel
def row_sum(x, y, tn: ct.Constant[int]):
    r = ct.bid(0)
    acc = ct.zeros((1, tn), dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=1, shape=(1, tn))):
        acc = acc + ct.load(x, index=(r, j), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(r,), tile=ct.sum(acc, axis=1))


@ct.kernel
def transpose(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn))
    ct.store(y, index=(j, i), tile=ct.transpose(t))


@ct.kernel
def gemm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk))
        b = ct.load(B, index=(k, bn), shape=(tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_tf32(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM of f32 arrays on tf32 tensor cores (``astype(ct.tfloat32)``; an f32 x f32 dot is
    computed to f32 accuracy on the SIMT path)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk)).astype(ct.tfloat32)
        b = ct.load(B, index=(k, bn), shape=(tk, tn)).astype(ct.tfloat32)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_bias_relu(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    bv = ct.load(bias, index=(bn,), shape=(tn,)).astype(ct.float32)
    acc = ct.maximum(acc + ct.reshape(bv, (1, tn)), 0.0)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def persistent_gemm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    ntm = ct.num_tiles(C, axis=0, shape=(tm, tn))
    ntn = ct.num_tiles(C, axis=1, shape=(tm, tn))
    for t in range(ct.bid(0), ntm * ntn, ct.num_blocks(0)):
        bm = t // ntn
        bn = t % ntn
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def bmm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn, bb = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(bb, bm, k), shape=(1, tm, tk))
        b = ct.load(B, index=(bb, k, bn), shape=(1, tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bb, bm, bn), tile=acc.astype(C.dtype))


def _gen(seed: int):
    return torch.Generator(device="cuda").manual_seed(seed)


def _nan_view(n_elems: int, shape: tuple[int, ...], dtype):
    """A contiguous ``shape`` view at the start of a NaN buffer with 4096 spare elements after it."""
    buf = torch.full((n_elems + 4096,), NAN, device="cuda", dtype=dtype)
    return buf, buf[:n_elems].view(shape)


def _stream():
    return torch.cuda.current_stream()


@pytest.mark.parametrize("n", [1000, 256, 1, 70001])
def test_vector_add_fp32(n):
    g = _gen(n)
    a = torch.randn(n, device="cuda", generator=g)
    b = torch.randn(n, device="cuda", generator=g)
    buf, c = _nan_view(n, (n,), torch.float32)
    tile = 256
    tileorch.cutile.launch(_stream(), (math.ceil(n / tile),), vec_add, (a, b, c, tile))
    torch.cuda.synchronize()
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)
    assert torch.isnan(buf[n:]).all(), "the kernel wrote past the end of c"


@pytest.mark.parametrize("m,n", [(300, 1024), (257, 1000)])
def test_row_softmax_fp16(m, n):
    x = (3 * torch.randn(m, n, device="cuda", generator=_gen(m))).half()
    buf, out = _nan_view(m * n, (m, n), torch.float16)
    tileorch.cutile.launch(_stream(), (m,), softmax, (x, out, 1024))
    torch.cuda.synchronize()
    ref = torch.softmax(x.float(), dim=1)
    assert torch.isfinite(out).all(), "unwritten (NaN) or non-finite outputs"
    torch.testing.assert_close(out.float(), ref, atol=1e-3, rtol=1e-2)
    assert torch.isnan(buf[m * n:]).all()


def test_layernorm_fp16():
    m, n = 200, 1024
    g = _gen(5)
    x = (torch.randn(m, n, device="cuda", generator=g) * 2 + 0.5).half()
    w = torch.randn(n, device="cuda", generator=g).half()
    b = torch.randn(n, device="cuda", generator=g).half()
    y = torch.full((m, n), NAN, device="cuda", dtype=torch.float16)
    tileorch.cutile.launch(_stream(), (m,), layernorm, (x, w, b, y, n))
    torch.cuda.synchronize()
    ref = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), eps=1e-5)
    assert torch.isfinite(y).all(), "unwritten (NaN) or non-finite outputs"
    torch.testing.assert_close(y.float(), ref, atol=2e-2, rtol=1e-2)


@pytest.mark.parametrize("m,n", [(129, 1000), (64, 256), (3, 70)])
def test_row_sum_fp32(m, n):
    x = torch.randn(m, n, device="cuda", generator=_gen(n))
    buf, y = _nan_view(m, (m,), torch.float32)
    tileorch.cutile.launch(_stream(), (m,), row_sum, (x, y, 256))
    torch.cuda.synchronize()
    ref = x.double().sum(dim=1).float()
    torch.testing.assert_close(y, ref, atol=1e-3, rtol=1e-4)
    assert torch.isnan(buf[m:]).all()


@pytest.mark.parametrize("m,n", [(100, 150), (64, 128), (33, 65)])
def test_transpose_fp32(m, n):
    tm, tn = 32, 64
    x = torch.randn(m, n, device="cuda", generator=_gen(m * n))
    buf, y = _nan_view(m * n, (n, m), torch.float32)
    tileorch.cutile.launch(_stream(), (math.ceil(m / tm), math.ceil(n / tn)), transpose, (x, y, tm, tn))
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x.t(), rtol=0, atol=0)
    assert torch.isnan(buf[m * n:]).all()


def test_transpose_of_a_strided_view():
    """A non-contiguous input (every other column of a wider tensor): strides pass as they are."""
    wide = torch.randn(96, 256, device="cuda", generator=_gen(3))
    x = wide[:, ::2]
    y = torch.full((128, 96), NAN, device="cuda")
    tileorch.cutile.launch(_stream(), (3, 2), transpose, (x, y, 32, 64))
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x.t(), rtol=0, atol=0)


@pytest.mark.parametrize("schedule", ["auto", "persistent", "streamk", "dp"])
@pytest.mark.parametrize("m,n,k", [(512, 384, 256), (300, 520, 128), (1000, 1000, 1024), (128, 128, 64),
                                   (2016, 2176, 8192)],
                         ids=lambda v: str(v))
def test_gemm_fp16(m, n, k, schedule):
    """K is a multiple of tk: the kernel loads its K tail without a padding mode (undefined in cuTile)."""
    tm, tn, tk = 128, 128, 64
    g = _gen(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16, generator=g)
    c = torch.full((m, n), NAN, device="cuda", dtype=torch.float16)
    grid = (math.ceil(m / tm), math.ceil(n / tn), 1)
    tileorch.cutile.launch(_stream(), grid, gemm, (a, b, c, tm, tn, tk), schedule=schedule)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    assert torch.isfinite(c).all(), "unwritten (NaN) or non-finite outputs"
    err = float((c.float() - ref).norm() / ref.norm())
    assert err < 1e-2, f"relative error {err:.3e}"
    torch.testing.assert_close(c.float(), ref, atol=0.1 + 2e-3 * math.sqrt(k), rtol=1e-2)


def _column_major(x):
    """The same matrix stored column-major (strides (1, rows)), as ``w.t()`` of a row-major weight."""
    return x.t().contiguous().t()


@pytest.mark.parametrize("shape", [(300, 264, 192), (1000, 520, 200), (256, 384, 128)])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("transposed", ["b", "a", "ab"])
@pytest.mark.parametrize("tiles", ["auto", "program"])
def test_gemm_fp16_transposed_operands(transposed, tiles, dtype, shape):
    """A and/or B given column-major (a transposed view: strides (1, rows)) take the tensor cores:
    the launcher compiles the program for that unit stride, the kernel reads the operand as its
    row-major transpose (K-major B, M-major A) and the program runs as the tier's TMA + WGMMA GEMM
    (kind ``gemm``, never the SIMT path), with the program's tiles or tileorch's.  Ragged shapes
    (M = 300 or 1000 column-major: row strides that are not 16-byte multiples, staged) included."""
    from tileorch.launchers import cutile as rc

    m, n, k = shape
    tm, tn, tk = 128, 128, 64
    dt = getattr(torch, dtype)
    g = _gen(m * n + k)
    a = torch.randn(m, k, device="cuda", dtype=dt, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=dt, generator=g)
    if "a" in transposed:
        a = _column_major(a)
        assert a.stride() == (1, m)
    if "b" in transposed:
        b = _column_major(b)
        assert b.stride() == (1, k)
    c = torch.full((m, n), NAN, device="cuda", dtype=dt)
    grid = (math.ceil(m / tm), math.ceil(n / tn), 1)
    args = (a, b, c, tm, tn, tk)
    rc.clear_caches()
    tileorch.cutile.launch(_stream(), grid, gemm, args, tiles=tiles)
    torch.cuda.synchronize()
    sig = rc.signature_key(rc.describe_arguments(gemm, args))
    kinds = {key[3:]: e.program.kind for key, e in rc._programs.items() if key[0] is gemm and key[1] == sig}
    assert kinds and all(kind == "gemm" for kind in kinds.values()), f"not on the tensor cores: {kinds}"
    ref = a.float() @ b.float()
    assert torch.isfinite(c).all(), "unwritten (NaN) or non-finite outputs"
    tol = (0.1 + 2e-3 * math.sqrt(k), 1e-2) if dtype == "float16" else (0.25 + 4e-3 * math.sqrt(k), 2e-2)
    torch.testing.assert_close(c.float(), ref, atol=tol[0], rtol=tol[1])


@pytest.mark.parametrize("transposed", ["a", "b"])
def test_gemm_tf32_transposed_operands(transposed):
    """f32 arrays as tf32 operands (tf32 WGMMA, K-major only): a column-major A is read through the launcher's
    K-major copy (B row-major likewise), a column-major B directly; on the tensor cores either way."""
    from tileorch.launchers import cutile as rc

    m, n, k = 520, 264, 256
    g = _gen(11)
    a = torch.randn(m, k, device="cuda", generator=g)
    b = torch.randn(k, n, device="cuda", generator=g)
    a, b = (_column_major(a), b) if transposed == "a" else (a, _column_major(b))
    c = torch.full((m, n), NAN, device="cuda")
    args = (a, b, c, 128, 128, 64)
    rc.clear_caches()
    tileorch.cutile.launch(_stream(), (math.ceil(m / 128), math.ceil(n / 128), 1), gemm_tf32, args, tiles="program")
    torch.cuda.synchronize()
    sig = rc.signature_key(rc.describe_arguments(gemm_tf32, args))
    kinds = {key[3:]: e.program.kind for key, e in rc._programs.items() if key[0] is gemm_tf32 and key[1] == sig}
    assert kinds and all(kind == "gemm" for kind in kinds.values()), f"not on the tensor cores: {kinds}"
    ref = a.double() @ b.double()
    assert torch.isfinite(c).all(), "unwritten (NaN) or non-finite outputs"
    torch.testing.assert_close(c.double(), ref, atol=2e-2 * math.sqrt(k) / 4, rtol=1e-2)


@pytest.mark.parametrize("tiles", ["auto", "program"])
def test_bmm_column_major_b(tiles):
    """A batch of column-major B matrices (``w.transpose(-1, -2)`` of [L, N, K] weights) on the
    batched WGMMA GEMM with K-major B."""
    from tileorch.launchers import cutile as rc

    L, m, n, k = 3, 300, 264, 192
    g = _gen(13)
    a = torch.randn(L, m, k, device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn(L, n, k, device="cuda", dtype=torch.float16, generator=g).transpose(-1, -2)
    c = torch.full((L, m, n), NAN, device="cuda", dtype=torch.float16)
    args = (a, b, c, 128, 128, 64)
    rc.clear_caches()
    tileorch.cutile.launch(_stream(), (math.ceil(m / 128), math.ceil(n / 128), L), bmm, args, tiles=tiles)
    torch.cuda.synchronize()
    sig = rc.signature_key(rc.describe_arguments(bmm, args))
    kinds = {key[3:]: e.program.kind for key, e in rc._programs.items() if key[0] is bmm and key[1] == sig}
    assert kinds and all(kind == "gemm" for kind in kinds.values()), f"not on the tensor cores: {kinds}"
    ref = a.float() @ b.float()
    assert torch.isfinite(c).all(), "unwritten (NaN) or non-finite outputs"
    torch.testing.assert_close(c.float(), ref, atol=0.1 + 2e-3 * math.sqrt(k), rtol=1e-2)


def test_relaunch_reuses_the_compiled_kernel():
    """The second launch with new tensors of the same layout compiles nothing new and is right."""
    from tileorch.launchers import cutile as rc

    n = 4096
    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    c = torch.empty_like(a)
    tileorch.cutile.launch(_stream(), (n // 256,), vec_add, (a, b, c, 256))
    compiled = len(rc._programs)
    a2, b2 = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    c2 = torch.full_like(a2, NAN)
    tileorch.cutile.launch(_stream(), (n // 256,), vec_add, (a2, b2, c2, 256))
    torch.cuda.synchronize()
    assert len(rc._programs) == compiled
    torch.testing.assert_close(c2, a2 + b2, rtol=0, atol=0)


def test_cpu_tensor_is_refused():
    a = torch.zeros(16)
    with pytest.raises(TypeError, match=r"argument 0 \('a'\) is a torch tensor on cpu"):
        tileorch.cutile.launch(_stream(), (1,), vec_add, (a, a, a, 16))


@pytest.mark.parametrize("tiles", ["auto", "program"])
def test_gemm_bf16(tiles):
    m, n, k = 1000, 520, 384
    g = _gen(7)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    c = torch.full((m, n), NAN, device="cuda", dtype=torch.bfloat16)
    tileorch.cutile.launch(_stream(), (math.ceil(m / 128), math.ceil(n / 128), 1), gemm, (a, b, c, 128, 128, 64),
                           tiles=tiles)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    assert torch.isfinite(c).all()
    torch.testing.assert_close(c.float(), ref, atol=0.25 + 4e-3 * math.sqrt(k), rtol=2e-2)


def test_gemm_with_fused_bias_relu_epilogue():
    """The tier refuses the epilogue (it would drop it): the SIMT path runs the whole program."""
    m, n, k = 300, 200, 128
    g = _gen(8)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16, generator=g)
    bias = torch.randn(n, device="cuda", dtype=torch.float16, generator=g)
    c = torch.full((m, n), NAN, device="cuda", dtype=torch.float16)
    tileorch.cutile.launch(_stream(), (math.ceil(m / 64), math.ceil(n / 64), 1), gemm_bias_relu,
                           (a, b, bias, c, 64, 64, 32))
    torch.cuda.synchronize()
    ref = torch.relu(a.float() @ b.float() + bias.float())
    assert torch.isfinite(c).all()
    torch.testing.assert_close(c.float(), ref, atol=0.1 + 2e-3 * math.sqrt(k), rtol=1e-2)


def test_persistent_loop_gemm_written_in_the_program():
    m, n, k = 200, 192, 128
    g = _gen(9)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16, generator=g)
    c = torch.full((m, n), NAN, device="cuda", dtype=torch.float16)
    tileorch.cutile.launch(_stream(), (5,), persistent_gemm, (a, b, c, 64, 64, 32))
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    assert torch.isfinite(c).all()
    torch.testing.assert_close(c.float(), ref, atol=0.1 + 2e-3 * math.sqrt(k), rtol=1e-2)


def test_batched_gemm_bf16():
    bsz, m, n, k = 3, 130, 96, 64
    g = _gen(10)
    a = torch.randn(bsz, m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(bsz, k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    c = torch.full((bsz, m, n), NAN, device="cuda", dtype=torch.float32)
    tileorch.cutile.launch(_stream(), (math.ceil(m / 64), math.ceil(n / 64), bsz), bmm, (a, b, c, 64, 64, 32))
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    assert torch.isfinite(c).all()
    torch.testing.assert_close(c, ref, atol=1e-3, rtol=1e-3)


def test_repeated_launches_on_two_streams_bound_and_re_pointed():
    """The bound launches of repeated calls (one launch configuration per stream handle, shared
    by re-pointed copies): vec_add and a GEMM called again and again, alternating between the
    current stream and a side stream, inputs changed in place between calls, every other call
    into a fresh NaN-filled output (a re-pointed launch) and the others into one reused output;
    each result against torch."""
    n, tile = 70001, 256
    g = _gen(22)
    a = torch.randn(n, device="cuda", generator=g)
    b = torch.randn(n, device="cuda", generator=g)
    m, nn, k = 300, 520, 128
    ga = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=g)
    gb = torch.randn(k, nn, device="cuda", dtype=torch.float16, generator=g)
    kept = torch.full((n,), NAN, device="cuda")
    kept_c = torch.full((m, nn), NAN, device="cuda", dtype=torch.float16)
    side = torch.cuda.Stream()
    for i in range(12):
        stream = side if i % 2 else torch.cuda.current_stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            a.add_(0.5)  # changed in place: the bound launch reads the new values
            buf, c = _nan_view(n, (n,), torch.float32)
            out = c if i % 4 < 2 else kept.fill_(NAN)
            tileorch.cutile.launch(stream, (math.ceil(n / tile),), vec_add, (a, b, out, tile))
            gc = torch.full((m, nn), NAN, device="cuda", dtype=torch.float16) if i % 3 == 0 else kept_c.fill_(NAN)
            tileorch.cutile.launch(stream, (math.ceil(m / 128), math.ceil(nn / 128), 1), gemm,
                                   (ga, gb, gc, 128, 128, 64))
            ref = a + b
            gref = ga.float() @ gb.float()
        stream.synchronize()
        torch.testing.assert_close(out, ref, rtol=0, atol=0, msg=f"vec_add, call {i}")
        assert torch.isnan(buf[n:]).all(), "the kernel wrote past the end of c"
        assert torch.isfinite(gc).all(), f"GEMM call {i}: unwritten (NaN) or non-finite outputs"
        torch.testing.assert_close(gc.float(), gref, atol=0.1 + 2e-3 * math.sqrt(k), rtol=1e-2,
                                   msg=f"GEMM, call {i}")
