"""Session 43 (s43-launch): launches that left the fast path, on the GPU, against torch fp32 references with
NaN-prefilled outputs, each checked on the path it ran (the launcher's own record):

* a K vector's array at a base TMA cannot read (``gamma = x[1:]``, a group-scale matrix 4 bytes off): copied into an
  aligned scratch buffer before each launch, the TMA kernel reading the copy (session 42: the ``kvec_global=1``
  kernel); the vector changed between two launches of the same arguments (a bound launch) is read again;
* a batched GEMM's C whose matrices are not stacked (every other matrix of a larger array): the kernel's packed
  scratch C copied into C after it; the matrices between stay NaN (untouched);
* transposed-view batches (``x.view(M, L, K).transpose(0, 1)`` as A and as C);
* overlapping batch strides: an input read in place (each batch its own view of shared memory), an output refused;
* attention with K stored transposed and rows no 16-byte multiple: the chained kernel on a padded copy of K^T.

Run: ``python -m pytest -q tests/gpu/test_launch_copies_s43_gpu.py``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

from computed_operand_gpu import f16, gen, launch, rel  # noqa: E402

import tileorch.cutile  # noqa: E402
from tileorch.testing import launch_path  # noqa: E402
from tileorch.testing.computed_b_programs import a_times_gamma, w8a16_group_scale  # noqa: E402
from tileorch.testing.user_programs6 import mm_batched_strided_batch  # noqa: E402
from tileorch.testing.user_programs31 import gemm_batched_strided_batch_view as bmm  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

COPY_WORDS = "copies the vector into an aligned scratch buffer"


@pytest.mark.parametrize("shape", [(1000, 520, 384), (333, 200, 700), (2048, 2048, 2048)], ids=str)
def test_a_misaligned_gamma_is_copied_and_read_by_tma(shape):
    m, n, k = shape
    g = gen(7 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    gamma = (torch.rand(k + 1, device="cuda", generator=g) + 0.5).half()[1:]  # base 2 bytes past 16
    assert gamma.data_ptr() % 16 == 2
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    remark = launch(a_times_gamma, (a, gamma, b, c), (128, 128, 64), m, n,
                    vector_words="indexed by the K tile TMA-loaded by the producer")
    assert COPY_WORDS in remark, remark
    assert rel(c, (a * gamma[None, :]).float() @ b.float()) < 1e-3
    # the same arguments again (the bound launch): gamma rewritten on the stream in between is copied again
    gamma.mul_(-1.5)
    c.fill_(float("nan"))
    tileorch.cutile.launch(torch.cuda.current_stream(), (-(-m // 128), -(-n // 128), 1), a_times_gamma,
                           (a, gamma, b, c, 128, 128, 64))
    torch.cuda.synchronize()
    assert rel(c, (a * gamma[None, :]).float() @ b.float()) < 1e-3


def test_misaligned_group_scales_are_copied_and_read_by_tma():
    m, n, k = 1000, 520, 700
    g = gen(99)
    a = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    w = torch.randint(-128, 128, (k, n), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    groups = (k + 127) // 128
    s = (torch.rand(groups * n + 1, device="cuda", generator=g) * 1e-2 + 5e-3)[1:].view(groups, n)  # 4 bytes off
    assert s.data_ptr() % 16 == 4
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    remark = launch(w8a16_group_scale, (a, w, s, c), (128, 128, 64), m, n, (128,))
    assert COPY_WORDS in remark, remark
    ref = a.float() @ f16(w.float() * s.repeat_interleave(128, 0)[:k])
    assert rel(c, ref) < 1e-3


def _bmm(a, b, c, tiles=(64, 64, 32)):
    L, M, N = c.shape
    grid = (-(-M // tiles[0]), -(-N // tiles[1]), L)
    launch_path.begin()
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, bmm, (a, b, c, *tiles))
    torch.cuda.synchronize()
    return launch_path.ran(bmm, grid)


@pytest.mark.parametrize("shape", [(3, 100, 80, 64), (8, 512, 384, 256)], ids=str)
def test_a_strided_c_batch_is_stored_through_a_scratch(shape):
    L, M, N, K = shape
    g = gen(L * M + N + K)
    a = torch.randn(L, M, K, device="cuda", generator=g).half()
    b = torch.randn(L, K, N, device="cuda", generator=g).half()
    big = torch.full((2 * L, M, N), float("nan"), device="cuda", dtype=torch.float32)
    c = big[::2]
    assert _bmm(a, b, c) == "gemm"
    assert rel(c, torch.bmm(a.float(), b.float())) < 1e-3
    assert torch.isnan(big[1::2]).all(), "the matrices between C's were written"


def test_transposed_view_batches_run_on_the_tier():
    L, M, N, K = 3, 200, 256, 128
    g = gen(5)
    a_store = torch.randn(M, L, K, device="cuda", generator=g).half()
    b = torch.randn(L, K, N, device="cuda", generator=g).half()
    c_store = torch.full((M, L, N), float("nan"), device="cuda", dtype=torch.float16)
    a, c = a_store.transpose(0, 1), c_store.transpose(0, 1)
    grid = (-(-M // 128), -(-N // 128), L)
    launch_path.begin()
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, mm_batched_strided_batch, (a, b, c, 128, 128, 64))
    torch.cuda.synchronize()
    assert launch_path.ran(mm_batched_strided_batch, grid) == "gemm"
    assert rel(c, torch.bmm(a.float(), b.float())) < 2e-3


def test_an_overlapping_input_batch_is_read_in_place():
    L, M, N, K = 4, 256, 128, 64
    g = gen(11)
    store = torch.randn(L * M * K, device="cuda", generator=g).half()
    a = store.as_strided((L, M, K), (M * K // 2, K, 1))  # matrix l + 1 starts half-way into matrix l
    b = torch.randn(L, K, N, device="cuda", generator=g).half()
    c = torch.full((L, M, N), float("nan"), device="cuda", dtype=torch.float32)
    assert _bmm(a, b, c) == "gemm"
    assert rel(c, torch.bmm(a.float(), b.float())) < 1e-3


def test_an_overlapping_output_batch_is_refused():
    L, M, N, K = 3, 100, 80, 64
    a = torch.randn(L, M, K, device="cuda").half()
    b = torch.randn(L, K, N, device="cuda").half()
    c = torch.zeros(L * M * N, device="cuda").as_strided((L, M, N), (M * N // 2, N, 1))
    with pytest.raises(ValueError, match="argument 2 \\('C'\\) has elements that share memory"):
        tileorch.cutile.launch(torch.cuda.current_stream(), (2, 2, L), bmm, (a, b, c, 64, 64, 32))


@pytest.mark.parametrize("keys", [150, 1000])
def test_kt_rows_not_a_16_byte_multiple_run_the_chained_kernel_on_a_padded_copy(keys):
    """sweep 36's cross attention with K stored transposed ``[BH, D, Sk]`` and ``Sk`` keys whose rows are no 16-byte
    multiple (150 f16 keys: 300 bytes): the chained kernel on a padded copy of K^T (before: the SIMT path); 1000 keys
    (2000-byte rows, read in place) the control; vs torch fp32, O NaN-prefilled."""
    import math

    from tileorch.testing.attnsweep36_programs import s36_kt_array_cross, scale2

    g = gen(keys)
    bh, sq, d = 2, 100, 96
    q = torch.randn(bh, sq, d, device="cuda", generator=g).half()
    kt = torch.randn(bh, d, keys, device="cuda", generator=g).half()
    v = torch.randn(bh, keys, d, device="cuda", generator=g).half()
    o = torch.full((bh, sq, d), float("nan"), device="cuda", dtype=torch.float16)
    grid = (-(-sq // 64), bh, 1)
    launch_path.begin()  # (the program's scale is in log2 units: exp2 of the scores)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, s36_kt_array_cross,
                           (q, kt, v, o, scale2(d), 64, 64, 128))
    torch.cuda.synchronize()
    assert launch_path.ran(s36_kt_array_cross, grid) == "chained"
    ref = torch.softmax(q.float() @ kt.float() / math.sqrt(d), dim=-1) @ v.float()
    assert rel(o, ref) < 2e-2


def test_a_strided_f16_c_batch_is_stored_in_place_by_the_tma_epilogue():
    """Every other matrix of a ``[2L, M, N]`` f16 array as C: the TMA epilogue's 3-D map stores it in place (its batch
    stride; no scratch); the matrices between stay NaN."""
    L, M, N, K = 4, 300, 256, 128
    g = gen(21)
    a = torch.randn(L, M, K, device="cuda", generator=g).half()
    b = torch.randn(L, K, N, device="cuda", generator=g).half()
    big = torch.full((2 * L, M, N), float("nan"), device="cuda", dtype=torch.float16)
    from tileorch.testing.user_programs6 import mm_batched_strided_batch as kernel

    grid = (-(-M // 128), -(-N // 128), L)
    launch_path.begin()
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, (a, b, big[::2], 128, 128, 64))
    torch.cuda.synchronize()
    assert launch_path.ran(kernel, grid) == "gemm"
    assert rel(big[::2], torch.bmm(a.float(), b.float())) < 2e-3
    assert torch.isnan(big[1::2]).all(), "the matrices between C's were written"


@pytest.mark.parametrize("scattered", [True, False], ids=["every_other_matrix", "stacked"])
def test_a_padded_c_under_a_grid_covering_part_of_it_keeps_the_other_columns(scattered):
    """Review of session 43 (MEDIUM): C [3, 100, 82] f32 (rows of 328 bytes: the kernel stores a padded C) and a grid
    of (2, 1, 3) 64 x 64 tiles covering C's first 64 columns: the whole padded buffer was copied out, garbage into
    columns 64..81.  Covered columns NaN-prefilled (must be written), the others a sentinel (must stay)."""
    L, M, N, K, sentinel = 3, 100, 82, 64, 12345.0
    g = gen(82)
    a = torch.randn(L, M, K, device="cuda", generator=g).half()
    b = torch.randn(L, K, N, device="cuda", generator=g).half()
    big = torch.full((2 * L if scattered else L, M, N), sentinel, device="cuda", dtype=torch.float32)
    c = big[::2] if scattered else big
    c[:, :, :64] = float("nan")
    grid = (2, 1, L)
    launch_path.begin()
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, bmm, (a, b, c, 64, 64, 32))
    torch.cuda.synchronize()
    path = launch_path.ran(bmm, grid)
    assert rel(c[:, :, :64], torch.bmm(a.float(), b.float())[:, :, :64]) < 1e-3, path
    assert (c[:, :, 64:] == sentinel).all(), f"C's uncovered columns were written ({path})"
    if scattered:
        assert (big[1::2] == sentinel).all(), "the matrices between C's were written"
