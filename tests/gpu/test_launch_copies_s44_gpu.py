"""Session 44 (s44-copies): the launch-time copies after their unification (``tileorch.launchers.launch_copies``), on
the GPU, against torch fp32 references with NaN-prefilled outputs:

* a K vector's aligned copy is now its stream's scratch, shared by the launches of that stream and layout (it was
  each prepared launch's own): two GEMMs with other misaligned gammas of one layout, both bound on stream s1, then
  replayed interleaved -- X on s2, Z on s1 -- with the gammas rewritten between trials: both products right, the
  replay said once (it is ordered with s1, whose scratch it writes);
* one launch with a misaligned gamma called on two streams in turn, the gamma rewritten between rounds: right;
* a group-scale matrix at one address with two row strides (the prepared launches are keyed by the K vectors'
  strides, not their pointers only): each launch reads its own layout.

CPU twins: tests/unit/test_k_vector_tma.py.  Run: ``python -m pytest -q tests/gpu/test_launch_copies_s44_gpu.py``."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

from computed_operand_gpu import f16, gen, launch, rel  # noqa: E402

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing import launch_path  # noqa: E402
from tileorch.testing.computed_b_programs import a_times_gamma, w8a16_group_scale  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

COPY_WORDS = "copies the vector into an aligned scratch buffer"
TILES = (128, 128, 64)


def _misaligned_gamma(k, g):
    gamma = (torch.rand(k + 1, device="cuda", generator=g) + 0.5).half()[1:]  # base 2 bytes past 16
    assert gamma.data_ptr() % 16 == 2
    return gamma


def _gemm(m, n, k, seed):
    g = gen(seed)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    return a, _misaligned_gamma(k, g), b, c


def _ref(a, gamma, b):
    return (a * gamma[None, :]).float() @ b.float()


def _grid(m, n):
    return (-(-m // TILES[0]), -(-n // TILES[1]), 1)


def test_two_k_vector_gemms_bound_on_one_stream_replayed_on_two_streams():
    rc.clear_caches()
    m, n, k = 2048, 1024, 1536
    gemms = [_gemm(m, n, k, seed) for seed in (44, 45)]
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    here = torch.cuda.current_stream()
    torch.cuda.synchronize()
    grid = _grid(m, n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        launch_path.begin()
        for a, gamma, b, c in gemms:  # (both bound on s1: one scratch for the two gammas' layout)
            s1.wait_stream(here)
            tileorch.cutile.launch(s1, grid, a_times_gamma, (a, gamma, b, c, *TILES))
        torch.cuda.synchronize()
        assert launch_path.ran(a_times_gamma, grid) == "gemm"
        for a, gamma, b, c in gemms:
            assert rel(c, _ref(a, gamma, b)) < 1e-3
        for trial in range(3):
            for i, (a, gamma, b, c) in enumerate(gemms):
                c.fill_(float("nan"))
                gamma.copy_(torch.rand(k, device="cuda", generator=gen(100 * trial + i)).half() + 0.25)
            torch.cuda.synchronize()
            (xa, xg, xb, xc), (za, zg, zb, zc) = gemms
            for _ in range(4):  # (interleaved: X on s2, Z on s1)
                tileorch.cutile.launch(s2, grid, a_times_gamma, (xa, xg, xb, xc, *TILES))
                tileorch.cutile.launch(s1, grid, a_times_gamma, (za, zg, zb, zc, *TILES))
            torch.cuda.synchronize()
            assert rel(xc, _ref(xa, xg, xb)) < 1e-3, f"X on s2, trial {trial}"
            assert rel(zc, _ref(za, zg, zb)) < 1e-3, f"Z on s1, trial {trial}"
    said = [str(w.message) for w in caught if "was replayed on stream" in str(w.message)]
    assert len(said) == 1, said
    assert any(COPY_WORDS in str(w.message) for w in caught), [str(w.message) for w in caught]


def test_one_k_vector_launch_on_two_streams_in_turn():
    rc.clear_caches()
    m, n, k = 1000, 520, 700
    a, gamma, b, c = _gemm(m, n, k, 7)
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    torch.cuda.synchronize()
    for rnd, stream in enumerate((s1, s2, s1, s2)):
        c.fill_(float("nan"))
        gamma.copy_(torch.rand(k, device="cuda", generator=gen(rnd)).half() + 0.25)
        stream.wait_stream(torch.cuda.current_stream())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tileorch.cutile.launch(stream, _grid(m, n), a_times_gamma, (a, gamma, b, c, *TILES))
        torch.cuda.current_stream().wait_stream(stream)
        torch.cuda.synchronize()
        assert rel(c, _ref(a, gamma, b)) < 1e-3, f"round {rnd}"


def test_group_scales_at_one_address_with_two_row_strides():
    rc.clear_caches()
    m, n, k = 1000, 512, 700
    g = gen(98)
    a = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    w = torch.randint(-128, 128, (k, n), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    groups = (k + 127) // 128
    store = torch.rand(groups * (n + 8) + 1, device="cuda", generator=g) * 1e-2 + 5e-3
    for row in (n, n + 8):  # (rows 2048 and 2080 bytes apart, the base 4 bytes past 16: both copied)
        s = store[1:].as_strided((groups, n), (row, 1))
        assert s.data_ptr() % 16 == 4
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
        remark = launch(w8a16_group_scale, (a, w, s, c), TILES, m, n, (128,))
        assert COPY_WORDS in remark, remark
        ref = a.float() @ f16(w.float() * s.repeat_interleave(128, 0)[:k])
        assert rel(c, ref) < 1e-3, f"row stride {row}"
