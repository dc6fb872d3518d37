"""The user sweep on the GPU (issues 18 and 21): every program of
``tileorch.testing.user_programs`` that compiles runs through ``tileorch.cutile.launch`` on its
spec's shapes and grid, against an independent torch reference in fp32 (fp64 for sums).  Each
array the kernel writes starts NaN (integers: a sentinel) inside a larger NaN buffer whose tail
must stay NaN; elements a program must not write (skipped tiles, masked scatters) must still
hold the fill.  Skipped without a GPU (tests/gpu/conftest.py); needs torch and cuda-tile."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.testing.user_programs import PROGRAMS as FIRST_SWEEP  # noqa: E402
from tileorch.testing.user_programs2 import PROGRAMS as SECOND_SWEEP  # noqa: E402

PROGRAMS = {**FIRST_SWEEP, **SECOND_SWEEP}  # run() takes the programs of both sweeps (test_user_sweep2_gpu.py)

NAN = float("nan")
SENTINEL = -(2**31)
TAIL = 1024
DT = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
      "int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64, "bool_": torch.bool,
      "uint8": torch.uint8, "uint32": torch.uint32, "float8_e4m3fn": torch.float8_e4m3fn}


def _gen(seed: int):
    return torch.Generator(device="cuda").manual_seed(seed)


def _sentinel(t: torch.dtype) -> int:
    """The integer fill of dtype ``t``: :data:`SENTINEL` where it fits, else the type's minimum
    (int8/int16) or maximum (unsigned types)."""
    info = torch.iinfo(t)
    return SENTINEL if info.min <= SENTINEL else info.min if info.min < 0 else info.max


def _filled(shape, dtype):
    """A ``shape`` view at the start of a buffer of the fill (NaN, the sentinel, or True for bool)
    with ``TAIL`` spare elements; (view, buffer)."""
    n = 1
    for d in shape:
        n *= d
    t = DT[dtype]
    fill = NAN if t.is_floating_point else True if t == torch.bool else _sentinel(t)
    buf = torch.full((n + TAIL,), fill, device="cuda", dtype=t)
    return buf[:n].view(shape), buf


def _unwritten(x):
    if x.dtype.is_floating_point:
        return torch.isnan(x.float() if x.element_size() == 1 else x)  # (fp8: no isnan)
    return x == _sentinel(x.dtype)


def run(name, inputs: dict, **overrides):
    """Launch program ``name`` with ``inputs`` (argument position -> tensor or value) and the spec's other
    values (``overrides``: kernel parameter name -> value, e.g. ``alpha=0.5``, in place of the spec's scalar;
    :meth:`~tileorch.testing.user_programs.UserProgram.overridden`: an unknown name raises); the arrays not
    given start filled.  Returns the argument list after the launch; checks that no buffer's tail was written.
    (Overrides were looked up by position among the keyword names, so never applied: session 31.)"""
    p = PROGRAMS[name]
    overrides = p.overridden(overrides)  # position -> value
    assert not set(overrides) & set(inputs), f"{name}: arguments {set(overrides) & set(inputs)} given twice"
    args, bufs = [], []
    for i, s in enumerate(p.spec):
        if i in inputs:
            args.append(inputs[i])
        elif isinstance(s, tuple):
            view, buf = _filled(*s)
            args.append(view)
            bufs.append((i, buf))
        else:
            args.append(overrides.get(i, s))
    from tileorch.testing import launch_path

    launch_path.begin()  # (the launch takes the full path and records the path it ran: check_path reads it)
    tileorch.cutile.launch(torch.cuda.current_stream(), p.grid, p.kernel, tuple(args))
    torch.cuda.synchronize()
    LAUNCHED[name] = launch_path.ran(p.kernel, p.grid)
    for i, buf in bufs:
        assert _unwritten(buf[-TAIL:]).all() if buf.dtype != torch.bool else buf[-TAIL:].all(), \
            f"{name}: argument {i} written past its end"
    return args


LAUNCHED: dict[str, str] = {}
"""Program name -> the path its latest :func:`run` ran (the launcher's record, tileorch.testing.launch_path)."""


def check_path(name, args, ran=None):
    """The compiled program ``name`` took the path its table entry names (GEMM tier, chained tier
    or SIMT; after :func:`run`, which compiled it for these arguments), and :func:`run`'s launch
    ran that path (not a launch-time SIMT fall back: tileorch.testing.launch_path) -- or ``ran``, the
    path a test expects this launch on by design (arrays the tier's tensor maps cannot address)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing import launch_path

    kernel = PROGRAMS[name].kernel
    entry = rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a", "persistent", defer_gemm=True)
    assert name in LAUNCHED, f"{name}: check_path before run launched it"
    launch_path.check(name, PROGRAMS[name].path, entry.program.kind, LAUNCHED[name], entry.program.remarks, ran=ran)


def launch_checked(name, inputs: dict, quick=None, **overrides):
    """:func:`run` then :func:`check_path`: the launch-and-check of the sweeps' GPU tests (their
    references compare what it returns).  With ``TILEORCH_QUICK_GPU`` set, a program outside
    ``quick`` (the file's quick subset; None: every program) is skipped before it is launched."""
    if quick is not None and os.environ.get("TILEORCH_QUICK_GPU") and name not in quick:
        pytest.skip("TILEORCH_QUICK_GPU: not in the quick subset")
    args = run(name, inputs, **overrides)
    check_path(name, args)
    return args


def random_input(name, i, seed, scale=0.5):
    """A random input for argument ``i`` of program ``name`` (its spec's shape and dtype): int8 in
    [-8, 8), fp8 from unit normals, else normals times ``scale``."""
    shape, dtype = PROGRAMS[name].spec[i]
    if dtype == "int8":
        return torch.randint(-8, 8, shape, device="cuda", generator=_gen(seed), dtype=torch.int8)
    if dtype.startswith("float8"):
        return randn(shape, "float32", seed, 1.0).to(DT[dtype])
    return randn(shape, dtype, seed, scale)


def randn(shape, dtype="float32", seed=0, scale=1.0):
    return (torch.randn(shape, device="cuda", generator=_gen(seed)) * scale).to(DT[dtype])


def close(got, ref, atol, rtol=0.0):
    assert not _unwritten(got).any(), "unwritten elements"
    torch.testing.assert_close(got.double(), ref.double(), atol=atol, rtol=rtol)


def _gemm_rel(got, ref, tol=1e-2):
    assert not _unwritten(got).any(), "unwritten elements"
    err = float((got.double() - ref.double()).norm() / ref.double().norm())
    assert err < tol, f"relative error {err:.3e}"


@pytest.mark.parametrize("name", ["mm_at_operator", "mm_k_from_b", "mm_hints", "mm_f16_acc", "mm_load_hints"])
def test_fp16_gemm_idioms(name):
    shape_a, shape_b = PROGRAMS[name].spec[0][0], PROGRAMS[name].spec[1][0]
    a, b = randn(shape_a, "float16", 1), randn(shape_b, "float16", 2)
    c = run(name, {0: a, 1: b})[2]
    _gemm_rel(c, a.float() @ b.float(), 2e-2 if name == "mm_f16_acc" else 1e-2)


def test_mm_alpha_beta():
    a, b, c0 = randn((256, 256), "float16", 3), randn((256, 256), "float16", 4), randn((256, 256), "float16", 5)
    c = c0.clone()
    run("mm_alpha_beta", {0: a, 1: b, 2: c})
    _gemm_rel(c, 1.5 * (a.float() @ b.float()) - 0.5 * c0.float())


def test_mm_i8_scalar_dequant():
    g = _gen(6)
    a = torch.randint(-128, 128, (256, 256), device="cuda", generator=g, dtype=torch.int8)
    b = torch.randint(-128, 128, (256, 256), device="cuda", generator=g, dtype=torch.int8)
    c = run("mm_i8_scalar_dequant", {0: a, 1: b})[2]
    ref = (a.double() @ b.double()) * 0.01
    close(c, ref, atol=0.0, rtol=1e-2)


def test_mm_bf16_wide():
    a, b = randn((256, 256), "bfloat16", 7), randn((256, 512), "bfloat16", 8)
    _gemm_rel(run("mm_bf16_wide", {0: a, 1: b})[2], a.float() @ b.float())


def test_mm_permute_b():
    a, w = randn((256, 256), "float16", 9), randn((384, 256), "float16", 10)
    _gemm_rel(run("mm_permute_b", {0: a, 1: w})[2], a.float() @ w.float().t())


def test_mm_clamp_tanh():
    a, b = randn((256, 256), "float16", 11, 0.1), randn((256, 256), "float16", 12)
    ref = torch.tanh((a.float() @ b.float()).clamp(-1.0, 2.0))
    close(run("mm_clamp_tanh", {0: a, 1: b})[2], ref, atol=2e-3)


def test_mm_diagonal_swizzle():
    """Column tile ``(bid(1) + bid(0)) % num_blocks(1)``: every tile written once (tensor cores, the
    program's own coordinates evaluated per tile)."""
    p = PROGRAMS["mm_diagonal_swizzle"]
    a, b = randn(p.spec[0][0], "float16", 13), randn(p.spec[1][0], "float16", 14)
    _gemm_rel(run("mm_diagonal_swizzle", {0: a, 1: b})[2], a.float() @ b.float())


@pytest.mark.parametrize("name", ["mm_early_exit", "mm_guarded", "mm_guarded_store"])
def test_guarded_gemm_writes_only_the_rows_it_keeps(name):
    """rows_used = 300 with 128-row tiles: tiles 0..2 (rows < 384) are stored, tile 3 is not (the
    guard a per-tile predicate of the tensor-core kernel)."""
    p = PROGRAMS[name]
    rows_used, tm = p.spec[3], p.spec[4]
    kept = -(-rows_used // tm) * tm
    a, b = randn(p.spec[0][0], "float16", 15), randn(p.spec[1][0], "float16", 16)
    c = run(name, {0: a, 1: b})[2]
    assert kept < c.shape[0]
    _gemm_rel(c[:kept], a[:kept].float() @ b.float())
    assert torch.isnan(c[kept:]).all(), "a skipped tile was written"


@pytest.mark.parametrize("name", ["mm_early_exit", "mm_guarded"])
def test_guarded_gemm_with_rows_used_from_the_launch(name):
    """The guard reads a scalar argument: rows_used = 0 stores nothing, rows_used = 1 only tile 0."""
    p = PROGRAMS[name]
    a, b = randn(p.spec[0][0], "float16", 21), randn(p.spec[1][0], "float16", 22)
    assert torch.isnan(run(name, {0: a, 1: b, 3: 0})[2]).all()
    c = run(name, {0: a, 1: b, 3: 1})[2]
    tm = p.spec[4]
    _gemm_rel(c[:tm], a[:tm].float() @ b.float())
    assert torch.isnan(c[tm:]).all()


def test_mm_small_f32():
    a, b = randn((64, 16), seed=17), randn((16, 48), seed=18)
    got = run("mm_small_f32", {0: a, 1: b})[2]
    assert not _unwritten(got).any(), "unwritten elements"
    # cuTile's f32 dot, to f32 accuracy (3xTF32 on the SIMT path): elementwise |error| <= 2^-18 *
    # (|A| @ |B|), which one tf32 product per element (~2^-11 off) does not meet
    bound = 2.0 ** -18 * (a.double().abs() @ b.double().abs()) + 1e-30
    err = (got.double() - a.double() @ b.double()).abs()
    assert (err <= bound).all(), float((err / bound).max())


def test_mm_row_vector():
    x, w = randn((1, 512), "float16", 19), randn((512, 768), "float16", 20)
    close(run("mm_row_vector", {0: x, 1: w})[2], x.double() @ w.double(), atol=5e-2, rtol=1e-2)


def test_mm_f64():
    a, b = randn((64, 64), "float64", 21), randn((64, 64), "float64", 22)
    close(run("mm_f64", {0: a, 1: b})[2], a @ b, atol=1e-10)


def test_softmax_cols():
    x = randn((64, 256), "float16", 23)
    close(run("softmax_cols", {0: x})[1], torch.softmax(x.float(), dim=0), atol=1e-5)


def test_log_softmax_rows():
    x = randn((6, 1000), "float16", 24)
    close(run("log_softmax_rows", {0: x})[1], torch.log_softmax(x.float(), dim=1), atol=1e-4)


def test_cross_entropy_rows():
    x = randn((5, 300), "bfloat16", 25)
    labels = torch.randint(0, 300, (5,), device="cuda", generator=_gen(26), dtype=torch.int32)
    ref = torch.nn.functional.cross_entropy(x.float(), labels.long(), reduction="none")
    close(run("cross_entropy_rows", {0: x, 1: labels})[2], ref, atol=1e-4)


def test_layernorm_bwd_dx():
    x, dy, w = randn((4, 256), "float16", 27), randn((4, 256), "float16", 28), randn((256,), "float16", 29)
    xf = x.float().requires_grad_()
    y = torch.nn.functional.layer_norm(xf, (256,), w.float(), None, eps=1e-5)
    (ref,) = torch.autograd.grad(y, xf, dy.float())
    mean = x.float().mean(1)
    rstd = torch.rsqrt(x.float().var(1, unbiased=False) + 1e-5)
    close(run("layernorm_bwd_dx", {0: x, 1: dy, 2: w, 3: mean, 4: rstd})[5].float(), ref, atol=2e-2, rtol=1e-2)


def test_add_rmsnorm():
    x, r, w = randn((3, 512), "bfloat16", 30), randn((3, 512), "bfloat16", 31), randn((1, 512), "bfloat16", 32)
    args = run("add_rmsnorm", {0: x, 1: r, 2: w})
    s = x.float() + r.float()
    close(args[3].float(), s, atol=2e-2, rtol=1e-2)
    ref = s * torch.rsqrt((s * s).mean(1, keepdim=True) + 1e-6) * w.float()
    close(args[4].float(), ref, atol=5e-2, rtol=1e-2)


def test_row_min_max_idx():
    x = randn((32, 128), seed=33)
    args = run("row_min_max_idx", {0: x})
    assert torch.equal(args[1], x.min(0).values) and torch.equal(args[3], x.max(0).values)
    assert torch.equal(args[2].long(), x.argmin(0)) and torch.equal(args[4].long(), x.argmax(0))


def test_row_prod_reduce():
    x = 1 + 0.1 * randn((4, 32), seed=34)
    close(run("row_prod_reduce", {0: x})[1], x.double().prod(1), atol=1e-5, rtol=1e-5)


def test_arange_mask():
    x = randn((1000,), seed=35)
    ref = torch.where(torch.arange(1000, device="cuda") < 777, x, torch.zeros_like(x))
    assert torch.equal(run("arange_mask", {0: x})[1], ref)


def test_assert_positive():
    """``ct.assert_`` that holds (non-negative input): the program runs as without it (the failing
    case: tests/gpu/test_cutile_assert_gpu.py)."""
    x = randn((256,), seed=36).abs()
    close(run("assert_positive", {0: x})[1], torch.sqrt(x), atol=1e-6, rtol=1e-6)


def test_printf_debug():
    """``ct.printf`` of a scalar and a reduction: the program's output is as without it (the printed
    text: tests/gpu/test_cutile_print_gpu.py)."""
    x = randn((256,), seed=37)
    assert torch.equal(run("printf_debug", {0: x})[1], x)


def test_cumsum_i64_rev():
    x = torch.randint(-2**31, 2**31 - 1, (3, 100), device="cuda", generator=_gen(36), dtype=torch.int32)
    ref = x.long().flip(1).cumsum(1).flip(1)
    assert torch.equal(run("cumsum_i64_rev", {0: x})[1], ref)


def test_cumprod_cols():
    x = 1 + 0.2 * randn((16, 64), seed=37)
    close(run("cumprod_cols", {0: x})[1], x.double().cumprod(0), atol=1e-5, rtol=1e-5)


def test_bool_logic():
    g = _gen(38)
    a = torch.rand(300, device="cuda", generator=g) < 0.5
    b = torch.rand(300, device="cuda", generator=g) < 0.5
    count = torch.zeros(1, device="cuda", dtype=torch.int32)
    args = run("bool_logic", {0: a, 1: b, 4: count})
    assert torch.equal(args[2], a & b) and torch.equal(args[3], a | ~b)
    assert int(count) == int((a & b).sum())


def test_wide_index():
    x = randn((4096,), seed=39)
    y = run("wide_index", {0: x})[1]
    assert torch.equal(y[512:], 2 * x[512:]) and torch.isnan(y[:512]).all()


def test_scalar_types():
    x = randn((512,), seed=40)
    close(run("scalar_types", {0: x})[1], -(x.double() * 0.25 - 3 + (2**40 + 5) % 7), atol=1e-5)


def test_constant_shapes():
    x = randn((512,), seed=41)
    close(run("constant_shapes", {0: x})[1], x.view(4, 2, 64).sum(1).reshape(256), atol=1e-6)


def test_int_math():
    g = _gen(42)
    a = torch.randint(-1000, 1000, (256,), device="cuda", generator=g, dtype=torch.int32)
    b = torch.randint(1, 50, (256,), device="cuda", generator=g, dtype=torch.int32)
    b = b * (torch.randint(0, 2, (256,), device="cuda", generator=g, dtype=torch.int32) * 2 - 1)
    args = run("int_math", {0: a, 1: b})
    assert torch.equal(args[2], torch.div(a, b, rounding_mode="floor"))
    assert torch.equal(args[3], torch.remainder(a, b))
    assert torch.equal(args[4], ((a << 2) ^ (b >> 1)) & 0xFFFF)


def test_float_math():
    x, y = randn((256,), seed=43), randn((256,), seed=44)
    ref = (torch.exp2(x * 0.5) + torch.log2(y.abs() + 1) + torch.pow(x.abs() + 0.5, 1.5) + torch.atan2(x, y)
           + torch.floor(x * 3) - torch.ceil(y * 2) + torch.sqrt(y.abs()))
    close(run("float_math", {0: x, 1: y})[2], ref, atol=1e-4)


def test_bitcast_bits():
    x = randn((256,), seed=45, scale=100.0)
    assert torch.equal(run("bitcast_bits", {0: x})[1], (x.view(torch.int32) >> 23) & 0xFF)


def test_bf16_sign_bits():
    x = randn((256,), "bfloat16", 46)
    assert torch.equal(run("bf16_sign_bits", {0: x})[1], torch.signbit(x).int())


def test_cat_permute_3d():
    x, z = randn((2, 4, 8), "float16", 47), randn((2, 4, 8), "float16", 48)
    assert torch.equal(run("cat_permute_3d", {0: x, 1: z})[2], torch.cat([x, z], 2).permute(2, 0, 1))


def test_broadcast_sum_3d():
    x, v = randn((8, 16), seed=49), randn((4,), seed=50)
    close(run("broadcast_sum_3d", {0: x, 1: v})[2], (x[None] * v[:, None, None]).double().sum(0), atol=1e-5)


def test_transpose_on_load():
    x = randn((64, 96), seed=51)
    assert torch.equal(run("transpose_on_load", {0: x})[1], x.t())


def test_transpose_3d():
    x = randn((3, 16, 32), "float16", 52)
    assert torch.equal(run("transpose_3d", {0: x})[1], x.transpose(1, 2))


def test_float_histogram():
    x = torch.rand(1000, device="cuda", generator=_gen(53)) * 1.2 - 0.1  # some values out of [0, 1)
    bins = torch.zeros(17, device="cuda", dtype=torch.int32)
    run("float_histogram", {0: x, 1: bins})
    b = (x * 16).int()
    b = torch.where((b >= 0) & (b < 16), b, torch.full_like(b, 16))
    ref = torch.bincount(b.long(), minlength=17).int()
    ref[0] += 1024 - 1000  # the zero-padded tail of the last tile is counted too (bin 0)
    assert torch.equal(bins, ref)


def test_scatter_masked():
    src = randn((256,), seed=54)
    idx = torch.randperm(256, device="cuda", generator=_gen(55)).int()
    out = run("scatter_masked", {0: src, 1: idx})[2]
    ref = torch.full((256,), NAN, device="cuda")
    ref[idx[src > 0].long()] = src[src > 0]
    torch.testing.assert_close(out, ref, equal_nan=True, atol=0, rtol=0)


def test_gather_2d_clamped():
    g = _gen(56)
    src = randn((16, 8), seed=57)
    r = torch.randint(-2, 18, (256,), device="cuda", generator=g, dtype=torch.int32)
    c = torch.randint(-1, 9, (256,), device="cuda", generator=g, dtype=torch.int32)
    ok = (r >= 0) & (r < 16) & (c >= 0) & (c < 8)
    ref = torch.where(ok, src[r.clamp(0, 15).long(), c.clamp(0, 7).long()], torch.zeros(256, device="cuda"))
    assert torch.equal(run("gather_2d_clamped", {0: src, 1: r, 2: c})[3], ref)


def test_early_exit_rows():
    x = randn((8, 128), seed=58)
    y = run("early_exit_rows", {0: x})[1]
    assert torch.equal(y[:5], 2 * x[:5]) and torch.isnan(y[5:]).all()


def test_nested_loops():
    x = randn((100, 200), seed=59)
    pad = torch.zeros(128, 256, device="cuda", dtype=torch.float64)
    pad[:100, :200] = x
    close(run("nested_loops", {0: x})[1], pad.view(4, 32, 4, 64).sum((0, 2)), atol=1e-4)


def test_while_doubling():
    x = randn((256,), seed=60)
    y = run("while_doubling", {0: x})[1]
    for i in range(2):
        t = x[128 * i:128 * (i + 1)]
        m = float(t.abs().max()) + 1e-3
        s = 1.0
        steps = 0
        while s * m < 100.0 and steps < 64:
            s, steps = s * 2.0, steps + 1
        assert torch.equal(y[128 * i:128 * (i + 1)], t * s)


def test_stencil_same_array():
    x = randn((512,), seed=61)
    ref = x - torch.cat([x[128:], torch.zeros(128, device="cuda")])
    assert torch.equal(run("stencil_same_array", {0: x})[1], ref)


def test_odd_length_axpy():
    x, y0 = randn((1001,), seed=62), randn((1001,), seed=63)
    y = y0.clone()
    run("odd_length_axpy", {0: x, 1: y})
    close(y, y0.double() + 0.5 * x.double(), atol=1e-6)


def test_loop_carried_max():
    x = randn((4, 1000), seed=64)
    assert torch.equal(run("loop_carried_max", {0: x})[1], x.max(1).values)


def test_rope_rows():
    x, pos = randn((3, 64), "bfloat16", 65), torch.tensor([0.0, 5.0, 123.0], device="cuda")
    t = x.float().view(3, 32, 2)
    ang = pos[:, None] * torch.pow(torch.tensor(10000.0, device="cuda"), -2.0 * torch.arange(32, device="cuda") / 64)
    a, b = t[..., 0], t[..., 1]
    ref = torch.stack([a * ang.cos() - b * ang.sin(), a * ang.sin() + b * ang.cos()], -1).view(3, 64)
    close(run("rope_rows", {0: x, 1: pos})[2], ref, atol=1e-3)


def test_trig_zoo():
    x = randn((256,), "float16", 66)
    t = x.float()
    ref = torch.tan(t * 0.5) + torch.sinh(t) - torch.cosh(t * 0.5) + torch.floor(t) * torch.ceil(t * 0.25)
    close(run("trig_zoo", {0: x})[1].float(), ref, atol=2e-2, rtol=2e-3)


def test_row_norms_unrolled():
    x = randn((5, 1000), "float16", 67)
    close(run("row_norms_unrolled", {0: x})[1], x.double().norm(dim=1), atol=1e-3, rtol=1e-4)


def test_embedding_rows():
    table = randn((50, 64), "bfloat16", 70)
    ids = torch.randint(0, 50, (32,), device="cuda", generator=_gen(71), dtype=torch.int32)
    ids[:3] = torch.tensor([-1, 50, 49], device="cuda", dtype=torch.int32)
    ok = ((ids >= 0) & (ids < 50))[:, None]
    ref = torch.where(ok, table[ids.clamp(0, 49).long(), 16:48], torch.zeros((), device="cuda", dtype=torch.bfloat16))
    assert torch.equal(run("embedding_rows", {0: table, 1: ids})[2], ref)


def test_scatter_columns():
    src = randn((12, 16), seed=72)
    cols = torch.randperm(40, device="cuda", generator=_gen(73))[:16].int()
    cols[0] = 40  # out of range: dropped
    ref = torch.full((12, 40), NAN, device="cuda")
    ref[:, cols[1:].long()] = src[:, 1:]
    torch.testing.assert_close(run("scatter_columns", {0: src, 1: cols})[2], ref, equal_nan=True, atol=0, rtol=0)


def test_loop_break():
    x = randn((1000,), seed=74)
    x[700] = 3.0
    found = run("loop_break", {0: x})[1]
    tiles = [j for j in range(8) if float(x[128 * j:128 * (j + 1)].max()) > 2.5]
    assert int(found[0]) == tiles[0]


def test_whole_tile_sum_f64():
    x = randn((100, 70), "float64", 75)
    y = torch.zeros(1, device="cuda", dtype=torch.float64)
    run("whole_tile_sum_f64", {0: x, 1: y})
    close(y, x.sum().reshape(1), atol=1e-9)


def test_where_scalar_branches():
    x = randn((512,), seed=76)
    s = torch.tensor([2.0, -1.0, 2.0, -1.0], device="cuda").repeat_interleave(128)
    u = torch.where(x > 0, torch.ones_like(x), x) * s + torch.remainder(x, 0.75)
    close(run("where_scalar_branches", {0: x})[1].float(), torch.exp(u.half().float() * 0.5), atol=2e-2, rtol=2e-3)


def test_argmax_keepdims_3d():
    x = randn((2, 8, 16), seed=77)
    args = run("argmax_keepdims_3d", {0: x})
    assert torch.equal(args[1].long(), x.argmax(2))
    close(args[2], x.double().sum(1), atol=1e-5)


def test_int8_wrap():
    g = _gen(78)
    a = torch.randint(-128, 128, (256,), device="cuda", generator=g, dtype=torch.int8)
    b = torch.randint(0, 256, (256,), device="cuda", generator=g, dtype=torch.uint8)
    ref = (a * a + b.to(torch.int8)).float() * 0.5
    assert torch.equal(run("int8_wrap", {0: a, 1: b})[2], ref)


def test_persistent_rows():
    x = randn((37, 300), seed=79)
    ref = x.max(1).values.clamp(min=0) - x.min(1).values.clamp(max=0)  # the tile's zero padding counts
    close(run("persistent_rows", {0: x})[1], ref, atol=1e-6)


def test_mm_narrow_n():
    a, b = randn((256, 128), "float16", 80), randn((128, 48), "float16", 81)
    _gemm_rel(run("mm_narrow_n", {0: a, 1: b})[2], a.float() @ b.float())


def test_pos_inf_padding_min():
    x = randn((3, 100), seed=82)
    assert torch.equal(run("pos_inf_padding_min", {0: x})[1], x.min(1).values)


def test_mm_math_epilogue():
    a, b = randn((256, 256), "float16", 83, 0.1), randn((256, 256), "float16", 84)
    acc = a.float() @ b.float()
    ref = torch.sin(acc) + torch.floor(acc) * torch.pow(acc.abs() + 1.0, 0.5)
    got = run("mm_math_epilogue", {0: a, 1: b})[2]
    near_integer = (acc - acc.round()).abs() < 1e-3  # floor may differ by one there (summation order)
    close(torch.where(near_integer, ref, got), ref, atol=1e-3, rtol=1e-3)


def test_softmax_f16_math():
    x = randn((4, 300), "float16", 85)
    close(run("softmax_f16_math", {0: x})[1].float(), torch.softmax(x.float(), dim=1), atol=2e-3)


def test_scalar_store_loop():
    x = randn((512,), seed=86)
    s = x.double().view(4, 128).sum(1)
    for _ in range(5):
        s = s * 0.5 + 1.0
    close(run("scalar_store_loop", {0: x})[1], s, atol=1e-5)


def test_unsigned_bits():
    a = torch.randint(-2**31, 2**31 - 1, (256,), device="cuda", generator=_gen(87), dtype=torch.int32)
    out = torch.full((256,), -1, device="cuda", dtype=torch.int32)  # uint32 as its bits
    run("unsigned_bits", {0: a.view(torch.uint32), 1: out.view(torch.uint32)})
    u = a.long() & 0xFFFFFFFF
    ref = ((u >> 3) | (u << 29)) & 0xFFFFFFFF
    assert torch.equal(out.long() & 0xFFFFFFFF, ref)


def test_column_of_3d():
    x = randn((2, 3, 64), seed=88)
    assert torch.equal(run("column_of_3d", {0: x})[1], x.view(6, 64))


def test_nan_max():
    x = randn((3, 64), seed=89)
    x[1, 5] = NAN
    y = run("nan_max", {0: x})[1]
    assert torch.isnan(y[1, 0]) and y[1, 1] == x[1].nan_to_num(-1e30).max()
    assert torch.equal(y[[0, 2]], torch.stack([x[[0, 2]].max(1).values] * 2, 1))


def test_mm_bf16_k16():
    a, b = randn((128, 64), "bfloat16", 90), randn((64, 128), "bfloat16", 91)
    _gemm_rel(run("mm_bf16_k16", {0: a, 1: b})[2], a.float() @ b.float())


def test_gather_2d_mask():
    src = randn((20, 32), seed=92)
    rows = torch.randint(0, 20, (64,), device="cuda", generator=_gen(93), dtype=torch.int32)
    ref = torch.where((rows % 2 == 0)[:, None], src[rows.long()], torch.full((), -1.0, device="cuda"))
    assert torch.equal(run("gather_2d_mask", {0: src, 1: rows})[2], ref)


def test_int_misc():
    g = _gen(94)
    a = torch.randint(-1000, 1000, (256,), device="cuda", generator=g, dtype=torch.int32)
    b = torch.randint(1, 50, (256,), device="cuda", generator=g, dtype=torch.int32)
    b = b * (torch.randint(0, 2, (256,), device="cuda", generator=g, dtype=torch.int32) * 2 - 1)
    args = run("int_misc", {0: a, 1: b})
    assert torch.equal(args[2], torch.div(a, b, rounding_mode="floor"))
    assert torch.equal(args[3], torch.remainder(a, b))
    assert torch.equal(args[4], torch.minimum(a.abs(), -b) - a)


def test_nan_cleanup():
    x = randn((256,), seed=95)
    x[::7] = NAN
    args = run("nan_cleanup", {0: x})
    assert torch.equal(args[1], torch.nan_to_num(x, nan=0.0)) and torch.equal(args[2], torch.isnan(x))


def test_f16_direct_math():
    x = (randn((2, 64), seed=96).abs() + 0.5).half()
    t = x.float()
    close(run("f16_direct_math", {0: x})[1].float(), torch.cumsum(torch.log(t) * torch.rsqrt(t), 1), atol=0.05,
          rtol=1e-2)


def test_sum_keepdims_3d():
    x = randn((4, 8, 16), seed=97).abs() + 0.1
    close(run("sum_keepdims_3d", {0: x})[1], x / x.double().sum(0, keepdim=True), atol=1e-6)


def test_cas_counter():
    slots = torch.zeros(2, device="cuda", dtype=torch.int32)
    out = run("cas_counter", {0: slots})[1]
    assert slots.tolist() == [32, 32] and torch.equal(out, torch.ones_like(out))


def test_acquire_release():
    flag = torch.zeros(1, device="cuda", dtype=torch.int32)
    data = randn((256,), seed=98)
    args = run("acquire_release", {0: flag, 1: data})
    assert torch.equal(args[2], data + 1.0) and int(flag) == 2


def test_round_toward_zero():
    """f32 -> f16 with ``RoundingMode.RZ`` (compiled since the dialect took cuTile 1.7's rounding modes): numpy's
    nearest f16 stepped one ulp toward zero wherever it rounded away (65504 for what overflows)."""
    import numpy as np

    x = randn((256,), seed=97) * 1000.0
    x[:4] = torch.tensor([70000.0, -70000.0, 1.0 + 2.0 ** -11, -(1.0 + 2.0 ** -11)])
    xs = x.cpu().numpy().astype(np.float32)
    near = xs.astype(np.float16)
    away = np.abs(near.astype(np.float32)) > np.abs(xs)
    ref = np.where(away, np.nextafter(near, np.float16(0)), near)
    got = run("round_toward_zero", {0: x})[1]
    assert np.array_equal(got.cpu().numpy().view(np.uint16), ref.view(np.uint16))


def test_insert_op():
    """``ct.insert`` of zeros over the first half (lowered since issue 21's op audit)."""
    x = randn((64,), seed=99)
    ref = x.clone()
    ref[:32] = 0.0
    close(run("insert_op", {0: x})[1], ref, atol=0)


def test_every_compiling_program_is_run_here():
    """A program added to the sweep gets its GPU test too."""
    import sys

    here = sys.modules[__name__]
    names = " ".join(n for n in dir(here) if n.startswith("test_"))
    source = open(here.__file__).read()
    missing = [n for n, p in FIRST_SWEEP.items() if p.path != "error" and n not in names and f'"{n}"' not in source]
    assert not missing, missing
