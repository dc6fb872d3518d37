"""``cuda_tile.exp`` as compiled: the PTX of a one-op SIMT program (``y = exp(x)``) run on the CPU by
``tileorch.testing.ptx_emulator`` (IEEE f32 ``fma``/``mul``, integer ops bit exact), its error in
ulp measured against numpy float64 over a sweep: every f32 step of the reduced range's neighbourhood,
random arguments, the subnormal results below -87.3, the overflow edge at 88.72, and special values.

CUDA Tile IR's ``exp`` defaults to ``rounding<full>`` ("relies on the CUDA Math API": ``expf``, at
most 2 ulp): :meth:`tileorch.transforms.tileaa_to_simt.emit.Emitter.exp_full` reduces the argument
exactly, takes ``ex2.approx.ftz`` of the reduced part and scales by an exact power of two.  The
emulator's ``ex2`` is exact, so the bound checked here, below 1 ulp, is that of the reduction,
clamping and scaling (subnormal results rounded once, overflow at the edge); the GPU test
(tests/gpu/test_epilogue_math_gpu.py) measures the device's ``ex2.approx`` in it against 2 ulp.
``rounding<approx>`` and ``TILEORCH_MATH=approx`` take ``ex2.approx.ftz`` of ``x * log2 e`` (only the
flush of subnormal results and the PTX are checked for it).  Needs no GPU, no ptxas."""

from __future__ import annotations

import numpy as np
import pytest

from tileorch.driver import compile_program
from tileorch.testing.ptx_emulator import Emu

TILE = 1024
PROGRAM = """
cuda_tile.module @m {
  entry @expk(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %n: tile<i32>) {
    %tok = make_token : token
    %tvx = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %tvy = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %px = make_partition_view %tvx : partition_view<tile=(TILE), tensor_view<?xf32, strides=[1]>>
    %py = make_partition_view %tvy : partition_view<tile=(TILE), tensor_view<?xf32, strides=[1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t, %t1 = load_view_tko weak %px[%bx] token = %tok : partition_view<tile=(TILE), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<TILExf32>, token
    %e = exp %t ROUNDING: tile<TILExf32>
    %t3 = store_view_tko weak %e, %py[%bx] : tile<TILExf32>, partition_view<tile=(TILE), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  }
}
"""
FLT_MAX = float(np.finfo(np.float32).max)


def _compile(rounding: str = "", op: str = "exp"):
    text = PROGRAM.replace("TILE", str(TILE)).replace("ROUNDING", f"rounding<{rounding}> " if rounding else "")
    return compile_program(text.replace("%e = exp ", f"%e = {op} ").encode(), f"{op}k{rounding}", ptxas=False)


def _run(program, x: np.ndarray) -> np.ndarray:
    """``y`` after the kernel ran on ``x`` (f32), CTA by CTA (NaN-prefilled)."""
    x = np.ascontiguousarray(x, np.float32)
    y = np.full(x.size, np.nan, np.float32)
    xb, yb = 1 << 32, 2 << 32
    memory = [(xb, x.view(np.uint8).reshape(-1), "x"), (yb, y.view(np.uint8).reshape(-1), "y")]
    grid = -(-x.size // TILE)
    for cx in range(grid):
        emu = Emu(program.ptx, [xb, yb, x.size], 16, program.threads, (cx, 0, 0), {}, memory, nctaid=(grid, 1, 1))
        emu.run()
        assert not emu.errors, emu.errors
    return y


def _ulp_error(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """|y - e^x| in ulp of e^x's f32 binade (subnormal spacing 2^-149 below 2^-126), e^x in float64;
    a result whose exact value overflows f32 (at or past FLT_MAX + half an ulp) must be +inf (0 ulp)."""
    with np.errstate(over="ignore"):
        ref = np.exp(x.astype(np.float64))
    binade = np.floor(np.log2(np.maximum(ref, 2.0 ** -126)))
    ulp = 2.0 ** (binade - 23)
    overflow = ref >= FLT_MAX + 2.0 ** 103
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(y.astype(np.float64) - ref) / ulp
    return np.where(overflow, np.where(np.isposinf(y), 0.0, np.inf), err)


def _sweep() -> np.ndarray:
    rng = np.random.default_rng(18)
    steps = np.arange(-2 ** 14, 2 ** 14, dtype=np.int32)  # every f32 step around 1 and ln 2 / 2 (the poly edges)
    around = np.concatenate([(np.float32(v).view(np.int32) + steps).view(np.float32) for v in (1.0, 0.34657359)])
    specials = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-38, 88.72283, 88.722839, 88.7228394, 89.0, 1e30,
                         FLT_MAX, -87.33654, -87.3365479, -103.27893, -103.972084, -104.0, -1e30, -FLT_MAX],
                        np.float32)
    edges = np.concatenate([(np.float32(v).view(np.int32) + np.arange(-64, 64, dtype=np.int32)).view(np.float32)
                            for v in (88.72283, -87.33655, -103.27893, -103.97208)])
    return np.concatenate([
        np.linspace(-110.0, 90.0, 80 * TILE, dtype=np.float32),  # the whole range, subnormals and overflow included
        rng.uniform(-1.0, 1.0, 16 * TILE).astype(np.float32),
        rng.uniform(-104.0, -87.0, 16 * TILE).astype(np.float32),  # subnormal results
        around, specials, edges,
    ])


def test_exp_full_is_within_one_ulp_over_the_sweep():
    program = _compile()
    assert program.kind == "simt"
    clamps = program.ptx.count("fma.rn.sat.f32")  # one per element a thread computes
    assert clamps >= 1 and program.ptx.count("ex2.approx.ftz.f32") == clamps  # one MUFU op per element
    assert any("exp: 1 op(s) computed by full precision" in r for r in program.remarks), program.remarks
    x = _sweep()
    err = _ulp_error(_run(program, x), x)
    worst = int(np.argmax(err))
    assert err.max() < 1.0, f"{err.max():.3f} ulp at x = {x[worst]!r}"


def test_exp_full_special_values():
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1000.0, -1000.0, -100.0], np.float32)
    y = _run(_compile(), x)
    assert np.isnan(y[:2]).all()
    assert np.isposinf(y[2]) and y[3] == 0.0 and not np.signbit(y[3])
    assert y[4] == 1.0 and y[5] == 1.0
    assert np.isposinf(y[6]) and y[7] == 0.0
    assert 0.0 < y[8] < np.finfo(np.float32).tiny  # e^-100 = 3.7e-44: a subnormal, kept


@pytest.mark.parametrize("how", ["rounding", "env"])
def test_exp_approx_takes_ex2_approx(how, monkeypatch):
    """``rounding<approx>`` (the program's choice) and ``TILEORCH_MATH=approx`` (the run's) take
    ``ex2.approx.ftz`` of ``x * log2 e``: subnormal results flushed to zero, normal ones close."""
    if how == "env":
        monkeypatch.setenv("TILEORCH_MATH", "approx")
    program = _compile("approx" if how == "rounding" else "")
    assert "ex2.approx.ftz.f32" in program.ptx
    reason = "TILEORCH_MATH=approx" if how == "env" else "the program's rounding_mode=APPROX"
    assert any("exp: 1 op(s) computed by ex2.approx.ftz" in r and reason in r for r in program.remarks), \
        program.remarks
    x = np.concatenate([np.linspace(-10.0, 10.0, TILE, dtype=np.float32), np.float32([-100.0, np.nan])])
    y = _run(program, x)
    ref = np.exp(x[:TILE].astype(np.float64))
    np.testing.assert_allclose(y[:TILE], ref, rtol=2e-6)  # the product x * log2 e rounded once
    assert y[TILE] == 0.0 and np.isnan(y[TILE + 1])


def test_tanh_full_within_one_and_a_half_ulp_with_exact_mufu():
    """``tanh`` (``rounding<full>``): the polynomial below 0.75 and ``1 - 2 / (e^(2a) + 1)`` above,
    with the emulator's exact ``ex2``/``rcp``: below 1.5 ulp of float64 over [-12, 12], every f32
    step around the branch point, tiny arguments (``tanh x = x``) and specials.  The device's MUFU
    errors come on top (tests/gpu/test_epilogue_math_gpu.py checks the whole against 2 ulp)."""
    program = _compile(op="tanh")
    steps = np.arange(-2 ** 13, 2 ** 13, dtype=np.int32)
    x = np.concatenate([np.linspace(-12.0, 12.0, 64 * TILE, dtype=np.float32),
                        (np.float32(0.75).view(np.int32) + steps).view(np.float32),
                        np.float32([1e-30, -1e-30, 1e-10, 2e-4, 9.5, -20.0, 100.0])])
    y = _run(program, x)
    ref = np.tanh(x.astype(np.float64))
    ulp = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(ref), 2.0 ** -126))) - 23)
    err = np.abs(y.astype(np.float64) - ref) / ulp
    worst = int(np.argmax(err))
    assert err.max() < 1.5, f"{err.max():.3f} ulp at x = {x[worst]!r}"
    s = _run(program, np.float32([np.nan, np.inf, -np.inf, 0.0, -0.0]))
    assert np.isnan(s[0]) and s[1] == 1.0 and s[2] == -1.0 and s[3] == 0.0 and np.signbit(s[4])
