"""cuTile GEMM programs retiled by the launcher at wave-quantised shapes where its rule picks 128 x 192
tiles (1344 x 6272 x 2048 on 132 SMs: 77 of 78 SM-slots busy at 192 wide against 0.74 at 256), against
torch in fp32/fp64, outputs NaN-prefilled; the launch's remark names the 192-wide tiles.  Epilogue
operands (row scale, column bias), a K-major B (2x1 multicast of 96-row slices), an N-major B
(1x1 clusters), an int8 (s32 out) and an fp8-output program, a batched program."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402

M, N, K = 1344, 6272, 2048


def _gen(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


def _h(*shape, seed=0, scale=1.0):
    return (torch.randn(shape, device="cuda", generator=_gen(seed)) * scale).half()


def _nan(*shape, dtype=torch.float16):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


def _launch(name, args, grid, table="user_programs3"):
    """Launch ``name`` (of ``tileorch.testing.<table>``) over ``grid``; the retile remark of the launch."""
    import importlib

    p = importlib.import_module(f"tileorch.testing.{table}").PROGRAMS[name]
    consts = p.spec[len(args):]  # (the tile sizes)
    rc.clear_caches()
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, p.kernel, tuple(args) + tuple(consts))
    torch.cuda.synchronize()
    return "\n".join(r for e in rc._programs.values() for r in e.launch_remarks.values())


def _rel(got, ref, tol):
    assert not torch.isnan(got.double()).any(), "unwritten elements"
    err = float((got.double() - ref.double()).norm() / ref.double().norm())
    assert err < tol, f"relative error {err:.3e}"


def _sms():
    return torch.cuda.get_device_properties(0).multi_processor_count


def test_rowscale_colbias_f32_out():
    a, b = _h(M, K, seed=1), _h(K, N, seed=2, scale=0.1)
    r = torch.randn(M, device="cuda", generator=_gen(3))
    cb = torch.randn(N, device="cuda", generator=_gen(4))
    c = _nan(M, N, dtype=torch.float32)
    why = _launch("mm_rowscale_colbias", [a, b, r, cb, c], (-(-M // 128), N // 128, 1))
    _rel(c, (a.float() @ b.float()) * r[:, None] + cb, 1e-3)
    if _sms() == 132:
        assert "128 x 192 tiles" in why, why


def test_b_read_transposed_k_major():
    a, w = _h(M, K, seed=5), _h(N, K, seed=6, scale=0.1)
    c = _nan(M, N)
    why = _launch("mm_load_order_bt", [a, w, c], (-(-M // 128), N // 128, 1))
    _rel(c, a.float() @ w.float().T, 1e-2)
    if _sms() == 132:
        assert "128 x 192 tiles" in why and "2x1 clusters" in why, why


def test_n_major_b_f16_out():
    a, b = _h(M, K, seed=7), _h(K, N, seed=8, scale=0.1)
    c = _nan(M, N)
    why = _launch("mm_tiled_view", [a, b, c], (-(-M // 128), N // 64, 1))
    _rel(c, a.float() @ b.float(), 1e-2)
    if _sms() == 132:
        assert "128 x 192 tiles" in why and "1x1 clusters" in why, why


def test_int8_s32_out():
    a = torch.randint(-8, 8, (M, K), device="cuda", generator=_gen(11), dtype=torch.int8)
    b = torch.randint(-8, 8, (K, N), device="cuda", generator=_gen(12), dtype=torch.int8)
    c = torch.full((M, N), -2**31, device="cuda", dtype=torch.int32)
    _launch("mm_int8_i32", [a, b, c], (-(-M // 128), N // 128, 1))
    assert torch.equal(c.double(), a.double() @ b.double())


def test_fp8_out():
    a, b = _h(M, K, seed=13), _h(K, N, seed=14, scale=0.1)
    c = torch.full((M, N), 0x7F, device="cuda", dtype=torch.uint8).view(torch.float8_e4m3fn)
    _launch("mm_fp8_out", [a, b, c, 0.125], (-(-M // 128), N // 128, 1))
    _rel(c.float(), (a.float() @ b.float()) * 0.125, 8e-2)


def test_batched_3d():
    m = 672  # two batches of 672 rows: the launcher's 1344
    a, b = _h(2, m, K, seed=15), _h(2, K, N, seed=16, scale=0.1)
    c = _nan(2, m, N)
    _launch("gemm_batched_3d", [a, b, c], (-(-m // 64), N // 64, 2), table="user_programs2")
    _rel(c, a.float() @ b.float(), 1e-2)


def test_fp8_e5m2_inputs_bf16_out():
    """e5m2 x e5m2 with B ``[K, N]``: the launcher's K-major copy of B (``transpose_b``), 192-wide tiles."""
    a = torch.randn(M, K, device="cuda", generator=_gen(17)).to(torch.float8_e5m2)
    b = (torch.randn(K, N, device="cuda", generator=_gen(18)) * 0.1).to(torch.float8_e5m2)
    c = _nan(M, N, dtype=torch.bfloat16)
    why = _launch("mm_fp8_e5m2_both", [a, b, c], (-(-M // 64), N // 64, 1), table="user_programs8")
    _rel(c, a.float() @ b.float(), 1e-2)
    if _sms() == 132:
        assert "128 x 192 tiles" in why, why
