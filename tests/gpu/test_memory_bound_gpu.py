"""Memory-bound cuTile programs through the SIMT path's vectorized layout (issue 21): ragged
rows (1..7, 1000, 1001 elements), a 12000 x 10000 bf16 row sum, misaligned and strided views,
column sums and the two-dimensional reductions, row gathers (embedding lookups) and scatters
with 16-byte vectors, against torch in fp32/fp64.  Outputs are views
at the start of NaN buffers (an unwritten element stays NaN; the tail must stay NaN).  Skipped
without a GPU (tests/gpu/conftest.py); needs torch and cuda-tile."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.testing.memory_programs import (argmax, axpby, col_sum, gather_rows, layernorm, rmsnorm,  # noqa: E402
                                              row_divide, row_sum, scatter_rows, softmax, transpose)

NAN = float("nan")


def _gen(seed: int):
    return torch.Generator(device="cuda").manual_seed(seed)


def _nan_view(shape, dtype, offset: int = 0):
    """A contiguous ``shape`` view ``offset`` elements into a NaN buffer with 4096 spare elements."""
    n = math.prod(shape)
    buf = torch.full((n + offset + 4096,), NAN, device="cuda", dtype=dtype)
    return buf, buf[offset:offset + n].view(shape)


def _launch(grid, kernel, args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


def _check_tail(buf, view, offset=0):
    n = view.numel()
    assert torch.isnan(buf[:offset]).all() and torch.isnan(buf[offset + n:]).all(), "a write outside the output"


@pytest.mark.parametrize("m,n,tn", [(64, 1, 8), (64, 2, 8), (64, 3, 8), (64, 5, 8), (64, 7, 8), (1000, 1001, 1024),
                                    (4096, 1000, 1024), (17, 1024, 1024), (5, 4000, 4096)])
def test_row_softmax_fp16_ragged(m, n, tn):
    x = (3 * torch.randn(m, n, device="cuda", generator=_gen(n))).half()
    buf, out = _nan_view((m, n), torch.float16)
    _launch((m,), softmax, (x, out, tn))
    ref = torch.softmax(x.float(), dim=1)
    assert torch.isfinite(out).all(), "unwritten (NaN) outputs"
    torch.testing.assert_close(out.float(), ref, atol=1e-3, rtol=1e-2)
    _check_tail(buf, out)


@pytest.mark.parametrize("offset", [1, 3])
def test_row_softmax_of_misaligned_arrays(offset):
    """Input and output start ``offset`` fp16 elements into their buffers (not 16-byte aligned)."""
    m, n = 300, 1000
    src = torch.randn(m * n + offset, device="cuda", generator=_gen(offset)).half()
    x = src[offset:].view(m, n)
    buf, out = _nan_view((m, n), torch.float16, offset)
    _launch((m,), softmax, (x, out, 1024))
    torch.testing.assert_close(out.float(), torch.softmax(x.float(), dim=1), atol=1e-3, rtol=1e-2)
    _check_tail(buf, out, offset)


def test_row_softmax_of_a_strided_view():
    base = torch.randn(200, 2048, device="cuda", generator=_gen(9)).half()
    x = base[:, ::2]  # stride 2 along the row: no vector access
    buf, out = _nan_view((200, 1024), torch.float16)
    _launch((200,), softmax, (x, out, 1024))
    torch.testing.assert_close(out.float(), torch.softmax(x.float(), dim=1), atol=1e-3, rtol=1e-2)


@pytest.mark.parametrize("m,n,tm,tn,dtype", [(12000, 10000, 4, 1024, torch.bfloat16), (1000, 1001, 4, 512, torch.bfloat16),
                                             (513, 7, 16, 256, torch.float32), (3000, 1500, 16, 256, torch.float32)])
def test_row_sum(m, n, tm, tn, dtype):
    x = torch.randn(m, n, device="cuda", generator=_gen(m)).to(dtype)
    buf, y = _nan_view((m,), torch.float32)
    _launch((math.ceil(m / tm),), row_sum, (x, y, tm, tn))
    torch.testing.assert_close(y, x.double().sum(dim=1).float(), atol=2e-3 * math.sqrt(n), rtol=1e-4)
    _check_tail(buf, y)


@pytest.mark.parametrize("m,n", [(1000, 1001), (4096, 4096), (7, 3), (64 * 9, 128), (1601, 256),
                                 (64 * 8 * 5 + 1, 1024)])
def test_col_sum_fp32(m, n):
    x = torch.randn(m, n, device="cuda", generator=_gen(n))
    buf, y = _nan_view((n,), torch.float32)
    _launch((math.ceil(n / 128),), col_sum, (x, y, 64, 128))
    torch.testing.assert_close(y, x.double().sum(dim=0).float(), atol=2e-3 * math.sqrt(m), rtol=1e-4)
    _check_tail(buf, y)


@pytest.mark.parametrize("switches", [{"TILEORCH_PREFETCH_UNROLL": "0"}, {"TILEORCH_PREFETCH_UNROLL": "1"},
                                      {"TILEORCH_CLUSTER_SPLIT_MAX": "16"}])
@pytest.mark.parametrize("m,n", [(1601, 1000), (64 * 8 * 4, 128), (130, 1024)])
def test_column_and_row_sums_one_or_two_iterations_per_trip(monkeypatch, switches, m, n):
    """The prefetching loop with one (TILEORCH_PREFETCH_UNROLL=0) or two iterations per trip
    (prefetch.unrolled), each rank of the split loop running an odd or even count of row tiles;
    and clusters of up to 16 CTAs (TILEORCH_CLUSTER_SPLIT_MAX=16, the non-portable size)."""
    from tileorch.launchers.cutile import clear_caches

    for k, v in switches.items():
        monkeypatch.setenv(k, v)
    clear_caches()
    try:
        x = torch.randn(m, n, device="cuda", generator=_gen(m * n))
        buf, y = _nan_view((n,), torch.float32)
        _launch((math.ceil(n / 128),), col_sum, (x, y, 64, 128))
        torch.testing.assert_close(y, x.double().sum(dim=0).float(), atol=2e-3 * math.sqrt(m), rtol=1e-4)
        _check_tail(buf, y)
        buf, y = _nan_view((m,), torch.float32)
        _launch((math.ceil(m / 4),), row_sum, (x, y, 4, 256))
        torch.testing.assert_close(y, x.double().sum(dim=1).float(), atol=2e-3 * math.sqrt(n), rtol=1e-4)
        _check_tail(buf, y)
    finally:
        clear_caches()


@ct.kernel
def col_max_sum(x, ymax, ysum, tm: ct.Constant[int], tn: ct.Constant[int]):
    """Two accumulators folded by different ops (max and sum) in one loop over the rows."""
    j = ct.bid(0)
    mx = ct.full((tn,), -math.inf, dtype=ct.float32)
    sm = ct.zeros((tn,), dtype=ct.float32)
    for i in range(ct.num_tiles(x, axis=0, shape=(tm, tn))):
        t = ct.load(x, index=(i, j), shape=(tm, tn), padding_mode=ct.PaddingMode.NEG_INF)
        mx = ct.maximum(mx, ct.max(t, axis=0))
        sm = sm + ct.sum(ct.where(t > -math.inf, t, 0.0), axis=0)
    ct.store(ymax, index=(j,), tile=mx)
    ct.store(ysum, index=(j,), tile=sm * 0.5)


@pytest.mark.parametrize("m,n", [(100003, 1000), (4099, 300), (5, 2)])
def test_reduction_loop_split_over_a_cluster(m, n):
    """Few programs (1 to 8 along x) and a long loop: the lowering splits the loop over a cluster
    (cluster_split.py) and folds max and sum accumulators through distributed shared memory; ranks
    with no iteration (m = 5: one row tile) keep the identities; the store after the loop runs once."""
    x = torch.randn(m, n, device="cuda", generator=_gen(m + n))
    bmax, ymax = _nan_view((n,), torch.float32)
    bsum, ysum = _nan_view((n,), torch.float32)
    _launch((math.ceil(n / 128),), col_max_sum, (x, ymax, ysum, 64, 128))
    assert torch.equal(ymax, x.max(dim=0).values)
    torch.testing.assert_close(ysum, 0.5 * x.double().sum(dim=0).float(), atol=2e-3 * math.sqrt(m), rtol=1e-4)
    _check_tail(bmax, ymax)
    _check_tail(bsum, ysum)


@pytest.mark.parametrize("m,n", [(4096, 1024), (333, 1000)])
def test_rmsnorm_fp16(m, n):
    g = _gen(m)
    x = torch.randn(m, n, device="cuda", generator=g).half()
    w = torch.randn(n, device="cuda", generator=g).half()
    buf, y = _nan_view((m, n), torch.float16)
    _launch((m,), rmsnorm, (x, w, y, 1024))
    xf = x.float()
    if n != 1024:  # padded columns are zeros: the mean is over the tile's 1024
        ref = xf * torch.rsqrt((xf * xf).sum(1, keepdim=True) / 1024 + 1e-6) * w.float()
    else:
        ref = xf * torch.rsqrt((xf * xf).mean(1, keepdim=True) + 1e-6) * w.float()
    torch.testing.assert_close(y.float(), ref, atol=2e-2, rtol=1e-2)
    _check_tail(buf, y)


@pytest.mark.parametrize("n,dtype,offset", [(1_000_003, torch.float32, 0), (1_000_003, torch.float32, 1),
                                            (70001, torch.float16, 3), (1 << 20, torch.bfloat16, 0)])
def test_axpby(n, dtype, offset):
    g = _gen(n)
    x = torch.randn(n + offset, device="cuda", generator=g).to(dtype)[offset:]
    y = torch.randn(n, device="cuda", generator=g).to(dtype)
    buf, z = _nan_view((n,), dtype, offset)
    _launch((math.ceil(n / 1024),), axpby, (x, y, z, 1024))
    ref = 2.0 * x.float() - 3.0 * y.float()
    torch.testing.assert_close(z.float(), ref, atol=2e-2 if dtype != torch.float32 else 1e-5, rtol=1e-2)
    _check_tail(buf, z, offset)


@pytest.mark.parametrize("m,n", [(1000, 1001), (256, 384)])
def test_transpose_with_64k_of_dynamic_shared_scratch(m, n):
    """128 x 128 f32 tiles: 64 KiB exchanged through shared memory, more than a kernel may declare
    statically (the launch gives it dynamic shared memory)."""
    x = torch.randn(m, n, device="cuda", generator=_gen(m + n))
    buf, y = _nan_view((n, m), torch.float32)
    _launch((math.ceil(m / 128), math.ceil(n / 128)), transpose, (x, y, 128, 128))
    torch.testing.assert_close(y, x.t().contiguous(), atol=0, rtol=0)
    _check_tail(buf, y)

# -- one warp per row (layout.ROW_RUNS: a single-pass row reduction holds 4 vector runs per
# thread) and the predicated vector loads of ragged tiles -------------------------------------

@pytest.mark.parametrize("m,n,offset", [(4096, 1024, 0), (333, 1000, 0), (333, 1000, 3), (65, 1001, 0), (7, 9, 0)])
def test_layernorm_fp16_ragged(m, n, offset):
    """Rows of 1000/1001/9 in a 1024-wide tile (zero padding: the program's mean and variance are
    over the tile's 1024, padded columns included), misaligned input and output."""
    g = _gen(m + n + offset)
    src = torch.randn(m * n + offset, device="cuda", generator=g).half()
    x = src[offset:].view(m, n)
    w = torch.randn(n, device="cuda", generator=g).half()
    b = torch.randn(n, device="cuda", generator=g).half()
    buf, y = _nan_view((m, n), torch.float16, offset)
    _launch((m,), layernorm, (x, w, b, y, 1024))
    xp = torch.zeros(m, 1024, device="cuda")
    xp[:, :n] = x.float()
    mean = xp.sum(1, keepdim=True) / 1024
    d = xp - mean
    var = (d * d).sum(1, keepdim=True) / 1024
    ref = (d * torch.rsqrt(var + 1e-5))[:, :n] * w.float() + b.float()
    assert torch.isfinite(y).all(), "unwritten (NaN) outputs"
    torch.testing.assert_close(y.float(), ref, atol=3e-2, rtol=1e-2)
    _check_tail(buf, y, offset)


@pytest.mark.parametrize("dtype,tn", [(torch.float32, 1024), (torch.bfloat16, 1024), (torch.float16, 4096)])
@pytest.mark.parametrize("n", [1000, 1023])
def test_row_softmax_other_types_and_widths(dtype, tn, n):
    """f32 rows (2 warps of 4 runs: shuffles, then one shared-memory step), bf16 rows (words
    unpacked to bf16 bits), 4096-wide f16 tiles (4 warps)."""
    m = 515
    x = (3 * torch.randn(m, n, device="cuda", generator=_gen(n))).to(dtype)
    buf, out = _nan_view((m, n), dtype)
    _launch((m,), softmax, (x, out, tn))
    ref = torch.softmax(x.float(), dim=1)
    assert torch.isfinite(out.float()).all(), "unwritten (NaN) outputs"
    torch.testing.assert_close(out.float(), ref, atol=1e-3 if dtype != torch.bfloat16 else 4e-3, rtol=1e-2)
    _check_tail(buf, out)


@pytest.mark.parametrize("m,n", [(1000, 256), (333, 200), (64, 3)])
def test_argmax_fp32_rows(m, n):
    x = torch.randn(m, n, device="cuda", generator=_gen(m * n))
    x[m // 2, n - 1] = 100.0  # a winner in the last column
    y = torch.full((m,), -1, device="cuda", dtype=torch.int32)
    _launch((m,), argmax, (x, y, 256))
    assert torch.equal(y, x.argmax(1).to(torch.int32))


@pytest.mark.parametrize("m", [2111, 4225, 10007, 100003])
def test_one_warp_programs_packed_several_per_cta(m):
    """Grids large enough that the launch packs two one-warp programs per CTA (warp_programs.py;
    ``launchers.cutile.warps_per_cta``: above 132 * 32 programs; 2111: one per CTA), odd: every row is
    computed once (argmax: exact), the last CTA's idle warps write nothing past the output, and a
    softmax (loads, shuffles, stores) agrees with torch on every row."""
    x = torch.randn(m, 256, device="cuda", generator=_gen(m))
    x[torch.arange(m, device="cuda"), (torch.arange(m, device="cuda") * 37) % 256] = 50.0
    ybuf = torch.full((m + 4096,), -7, device="cuda", dtype=torch.int32)
    _launch((m,), argmax, (x, ybuf[:m], 256))
    assert torch.equal(ybuf[:m], ((torch.arange(m, device="cuda") * 37) % 256).to(torch.int32))
    assert (ybuf[m:] == -7).all(), "a write past the last program"
    h = (2 * torch.randn(m, 1000, device="cuda", generator=_gen(m + 1))).half()
    buf, out = _nan_view((m, 1000), torch.float16)
    _launch((m,), softmax, (h, out, 1024))
    torch.testing.assert_close(out.float(), torch.softmax(h.float(), dim=1), atol=1e-3, rtol=1e-2)
    _check_tail(buf, out)


@pytest.mark.parametrize("per_warp", ["", "1", "3", "4"])
@pytest.mark.parametrize("m,n", [(4225, 256), (100003, 256), (10007, 129), (5, 256)])
def test_argmax_several_programs_per_warp(monkeypatch, per_warp, m, n):
    """Each warp runs 1, 2 (the default for a 1 KiB row), 3 or 4 consecutive rows
    (TILEORCH_PROGRAMS_PER_WARP; warp_programs.py), their loads issued together: every row
    once (exact), ragged rows, a partial last warp and CTA that write nothing past the output."""
    from tileorch.launchers.cutile import clear_caches

    if per_warp:
        monkeypatch.setenv("TILEORCH_PROGRAMS_PER_WARP", per_warp)
    clear_caches()
    try:
        x = torch.randn(m, n, device="cuda", generator=_gen(m + n))
        x[torch.arange(m, device="cuda"), (torch.arange(m, device="cuda") * 37) % n] = 50.0
        x[m - 1] = 0.5  # all equal: the first index
        ybuf = torch.full((m + 4096,), -7, device="cuda", dtype=torch.int32)
        _launch((m,), argmax, (x, ybuf[:m], 256))
        assert torch.equal(ybuf[:m], x.argmax(1).to(torch.int32))
        assert (ybuf[m:] == -7).all(), "a write past the last program"
    finally:
        clear_caches()


@pytest.mark.parametrize("dtype,n,d,tr,tn,offset", [
    (torch.float32, 100_003, 1024, 8, 1024, 0),  # a partial last program
    (torch.float32, 4096, 1000, 4, 1024, 0),  # rows narrower than the tile: masked columns
    (torch.float32, 999, 1024, 8, 1024, 1),  # a table not 16-byte aligned: the scalar path
    (torch.bfloat16, 65_537, 2048, 8, 2048, 0),
    (torch.float16, 333, 61, 16, 64, 3),
    (torch.float16, 1, 1024, 16, 1024, 0),
    # the benchmark's programs: 4 rows of 1024 (4 vector runs per thread: 128 threads for bf16)
    (torch.bfloat16, 65_537, 1024, 4, 1024, 0),
    (torch.float32, 10_001, 1024, 4, 1024, 0)])
def test_row_gather(dtype, n, d, tr, tn, offset):
    """``out[i, :] = table[idx[i], :]`` with random indices, one of them past the table (cuTile's
    gather loads 0 there); the output a NaN-prefilled view."""
    vocab = 5000
    src = torch.randn(vocab * d + offset, device="cuda", generator=_gen(n)).to(dtype)
    table = src[offset:].view(vocab, d)
    idx = torch.randint(0, vocab, (n,), device="cuda", generator=_gen(d), dtype=torch.int32)
    idx[n // 2] = vocab
    buf, out = _nan_view((n, d), dtype)
    _launch((math.ceil(n / tr),), gather_rows, (table, idx, out, tr, tn))
    ref = table.float()[idx.clamp(max=vocab - 1).long()]
    ref[n // 2] = 0
    torch.testing.assert_close(out.float(), ref, atol=0, rtol=0)
    _check_tail(buf, out)


@pytest.mark.parametrize("dtype,n,d,tr,tn,offset", [
    (torch.float32, 100_003, 1024, 8, 1024, 0),
    (torch.float32, 4096, 1000, 4, 1024, 0),
    (torch.float32, 999, 1024, 8, 1024, 1),  # an output not 16-byte aligned
    (torch.bfloat16, 65_537, 2048, 8, 2048, 0),
    (torch.float16, 333, 61, 16, 64, 3)])
def test_row_scatter(dtype, n, d, tr, tn, offset):
    """``out[idx[i], :] = src[i, :]`` by a random injection into ``n + 5`` rows: the rows no index
    names stay NaN, the last program's rows past ``idx``'s end are masked off."""
    src = torch.randn(n, d, device="cuda", generator=_gen(n)).to(dtype)
    idx = torch.randperm(n + 5, device="cuda", generator=_gen(d))[:n].to(torch.int32)
    buf, out = _nan_view((n + 5, d), dtype, offset)
    _launch((math.ceil(n / tr),), scatter_rows, (src, idx, out, tr, tn))
    ref = torch.full((n + 5, d), NAN, device="cuda")
    ref[idx.long()] = src.float()
    torch.testing.assert_close(out.float(), ref, atol=0, rtol=0, equal_nan=True)
    _check_tail(buf, out, offset)


def _with_uniform_div(monkeypatch, switch: str, body) -> None:
    """``body()`` compiled with TILEORCH_UNIFORM_DIV=``switch`` (the launcher's caches cleared)."""
    from tileorch.launchers.cutile import clear_caches

    monkeypatch.setenv("TILEORCH_UNIFORM_DIV", switch)
    clear_caches()
    try:
        body()
    finally:
        clear_caches()


@pytest.mark.parametrize("switch", ["1", "0"])
def test_row_divide_is_ieee_division_bit_for_bit(monkeypatch, switch):
    """``x / (the row's divisor)`` (tileaa_to_simt/uniform_division.py: one rcp.approx and a Newton
    step per thread, three FMA per element, div.rn where an operand is out of range; =0: div.rn per
    element) against torch's IEEE f32 division bit for bit: zeros of both signs (a ragged row's
    padding and the row's own), subnormal and tiny numerators, the range edges 2^+-59..61,
    infinities, NaN; divisors negative, tiny, huge, subnormal and infinite; rows of 250 in tiles
    of 256 and 1000 in tiles of 1024."""
    divisors = [3.7, 1.0, 3.7, -2.5, 2.0 ** -61, 2.0 ** -60, 2.0 ** 60, 2.0 ** 61, 7e-39, float("inf"), 1e-3,
                12345.678, 0.999, 1.0 + 2.0 ** -23, 2.0 ** 59]
    rows = len(divisors) * 64
    g = _gen(7)

    def body():
        for n, tn in ((250, 256), (1000, 1024)):
            x = torch.randn(rows, n, device="cuda", generator=g) * torch.exp2(
                torch.randint(-70, 71, (rows, n), device="cuda", generator=g).float())
            specials = torch.tensor([0.0, -0.0, 1e-45, -3e-39, 2.0 ** -61, 2.0 ** -60, 2.0 ** -59, 2.0 ** 59,
                                     2.0 ** 60, -2.0 ** 61, float("inf"), -float("inf"), float("nan"), 3.0e38],
                                    device="cuda")
            cols = torch.randint(0, n, (rows, 8), device="cuda", generator=g)
            x[torch.arange(rows, device="cuda")[:, None], cols] = torch.where(
                torch.arange(8, device="cuda") % 2 == 0, 0.0, -0.0)  # zeros of both signs in every row
            odd = torch.arange(1, rows, 2, device="cuda")
            x[odd[:, None], torch.randint(0, n, (len(odd), len(specials)), device="cuda", generator=g)] = specials
            tiny = torch.randint(1, 1 << 24, (rows // 4, 16), device="cuda", generator=g).float() * torch.exp2(
                torch.randint(-172, -123, (rows // 4, 16), device="cuda", generator=g).float())
            x[torch.arange(0, rows, 4, device="cuda")[:, None],
              torch.randint(0, n, (rows // 4, 16), device="cuda", generator=g)] = tiny
            d = torch.tensor(divisors, device="cuda").repeat(64)[:, None].expand(rows, n).contiguous()
            buf, out = _nan_view((rows, n), torch.float32)
            _launch((rows,), row_divide, (x, d, out, tn))
            ref = x / d
            nan = torch.isnan(ref)
            assert torch.equal(torch.isnan(out), nan)
            same = out.view(torch.int32) == ref.view(torch.int32)
            bad = (~same & ~nan).nonzero()
            assert len(bad) == 0, [(x[r, c].item(), d[r, c].item(), out[r, c].item(), ref[r, c].item())
                                   for r, c in bad[:5].tolist()]
            _check_tail(buf, out)

    _with_uniform_div(monkeypatch, switch, body)


@pytest.mark.parametrize("switch", ["1", "0"])
@pytest.mark.parametrize("m,n,tn", [(4096, 1000, 1024), (1000, 1001, 1024), (999, 999, 1024), (64, 7, 8),
                                    (300, 4095, 4096)])
def test_row_softmax_ragged_with_and_without_the_shared_reciprocal(monkeypatch, switch, m, n, tn):
    """fp16 row softmax at ragged widths with the division by the row's sum through one
    reciprocal per thread (the default) and through div.rn per element (TILEORCH_UNIFORM_DIV=0),
    against torch; rows with -inf elements (zero numerators) and rows whose smallest
    exponentials are subnormal (those threads take div.rn)."""
    def body():
        x = (3 * torch.randn(m, n, device="cuda", generator=_gen(m + n))).half()
        x[1::7, ::3] = -float("inf")
        x[1::7, 1] = 0.5
        x[2::7, 0] = 90.0
        x[2::7, n // 2] = -5.0
        buf, out = _nan_view((m, n), torch.float16)
        _launch((m,), softmax, (x, out, tn))
        ref = torch.softmax(x.float(), dim=1)
        assert torch.isfinite(out).all(), "unwritten (NaN) outputs"
        torch.testing.assert_close(out.float(), ref, atol=1e-3, rtol=1e-2)
        _check_tail(buf, out)

    _with_uniform_div(monkeypatch, switch, body)
