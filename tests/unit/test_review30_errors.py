"""Review 30: programs a new user writes that tileorch cannot compile must stop at the user's line with
``file:line:col: error:`` and the way around, never a traceback -- a (1024, 1024) f32 tile (registers), a sum
rounded toward zero (``ct.sum(..., rounding_mode=RZ)``; until session 35 ``ct.sin`` of an f64 tile, which the SIMT
path now computes at double precision), a 256 x 256 x 64 f32 dot outside the
tensor-core tier's reach (its accumulator's registers), arithmetic on an e8m0 tile; and through the ``tileorch
compile`` command line: a non-zero exit and the located error on stderr.  All held.  Needs cuda-tile."""

from __future__ import annotations

import inspect
import subprocess
import sys

import numpy as np
import pytest
from tool_forkserver import forked

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

from test_review30_blocks import C, _DeviceView, compile_for  # noqa: E402


@ct.kernel
def huge_tile(X, Y, BM: C[int], BN: C[int]):
    ct.store(Y, index=(0, 0), tile=ct.exp(ct.load(X, index=(0, 0), shape=(BM, BN))))  # (the huge tile)


@ct.kernel
def sum_toward_zero(X, Y, BN: C[int]):  # (was sin of an f64 tile: computed at double precision since session 35)
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.reshape(ct.sum(ct.sqrt(x), rounding_mode=ct.RoundingMode.RZ), (1,)))  # (rz sum)


@ct.kernel
def dot_too_large(A, B, Y, BM: C[int], BN: C[int], BK: C[int]):
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], BK)):
        acc = ct.mma(ct.load(A, index=(0, k), shape=(BM, BK)), ct.load(B, index=(k, 0), shape=(BK, BN)), acc)  # (dot)
    ct.store(Y, index=(0, 0), tile=acc)


@ct.kernel
def e8m0_scaled(X, Y, BN: C[int]):
    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,)).astype(ct.float32) * 2.0)  # (e8m0)


def _z(*shape, dt=np.float32):
    return np.zeros(shape, dt)


CASES = {  # name -> (kernel, arguments, marker on the line, words of the error)
    "huge_tile": (huge_tile, [_z(1024, 1024), _z(1024, 1024), 1024, 1024], "(the huge tile)", "is too large"),
    "sum_toward_zero": (sum_toward_zero, [_z(16), _z(1), 16], "(rz sum)",
                        "'cuda_tile.addf' with rounding<zero> is not supported yet"),
    "dot_too_large": (dot_too_large, [_z(512, 512), _z(512, 512), _z(512, 512), 256, 256, 64], "(dot)",
                      "use smaller tiles"),
    "e8m0_scaled": (e8m0_scaled, [_z(16, dt=ml_dtypes.float8_e8m0fnu), _z(16), 16], "(e8m0)",
                    "element type f8E8M0FNU is not supported yet"),
}


def _line_of(kernel, marker):
    src, first = inspect.getsourcelines(kernel._pyfunc)
    return first + next(i for i, line in enumerate(src) if marker in line)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_program_tileorch_cannot_compile_stops_at_the_users_line(name):
    from tileorch.diagnostics import CompileError, LocatedError

    kernel, args, marker, words = CASES[name]
    with pytest.raises((LocatedError, CompileError)) as info:
        compile_for(kernel, args, f"rv30_err_{name}")
    message = str(info.value)
    assert message.startswith(f"{__file__}:{_line_of(kernel, marker)}:") and ": error: " in message, message
    assert words in message and "internal error" not in message and "Traceback" not in message, message


def test_the_command_line_exits_non_zero_with_the_located_error(tmp_path):
    from tileorch.launchers import cutile as rc

    kernel, args, marker, words = CASES["sum_toward_zero"]
    views = [_DeviceView((i + 1) << 40, a) if isinstance(a, np.ndarray) else a for i, a in enumerate(args)]
    arguments = rc.describe_arguments(kernel, tuple(views))
    path = tmp_path / "sum_toward_zero.tileirbc"
    path.write_bytes(rc.export_bytecode(kernel, arguments))
    done = subprocess.run(forked([sys.executable, "-m", "tileorch", "compile", str(path), "--no-ptxas", "--no-cache",
                                  "-o", str(tmp_path / "out.ptx")]), capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert done.stderr.startswith(f"{__file__}:{_line_of(kernel, marker)}:") and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
