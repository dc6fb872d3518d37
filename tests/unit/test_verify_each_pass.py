"""Every route of the compiler verified after every pass (``TILEORCH_VERIFY_EACH_PASS=1``).

The rest of the suite verifies once per pipeline (the default: a compile with verification after
each pass costs about a third more, measured on the tier's GEMM compiles); this file compiles one
input of each route with the per-pass verifier on, so a pass that leaves invalid IR behind is
caught at that pass: the cutlass examples, the nv_tileaa tile program, and cuTile programs through
the tier (a fused-epilogue GEMM, dots sharing A, a transposed C, chained dots with overlap and with
the log-sum-exp store) and through the SIMT path (a one-warp row program, a hoisted and
cluster-split column sum)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_cuda_tile_bytecode import HAVE_CUTILE  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ["gemm_sm90.mlir", "ws_stream_copy.mlir", "streamk_persistent.mlir", "tile_gemm.mlir"]


@pytest.fixture
def verify_each_pass(monkeypatch):
    from tileorch.backend.compile import VERIFY_EACH_PASS_ENV

    monkeypatch.setenv(VERIFY_EACH_PASS_ENV, "1")
    monkeypatch.setenv("TILEORCH_CACHE", "0")


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_verify_after_every_pass(verify_each_pass, name):
    import tileorch

    kernel = tileorch.compile(ROOT / "examples" / name, None, cache=False, ptxas=False, isolate=True)
    assert ".entry" in kernel.ptx


def _cutile_programs() -> dict:
    from tileorch.testing import attention_programs as ap
    from tileorch.testing import dot_programs as dp
    from tileorch.testing import memory_programs as mp

    m, n, k = 320, 256, 192
    out = {}
    for name, spec in {
        "gemm_bias_relu_f16": [((m, k), "float16"), ((k, n), "float16"), ((n,), "float16"), ((m, n), "float16")],
        "swiglu_f16": [((m, k), "float16"), ((k, n), "float16"), ((k, n), "float16"), ((m, n), "float16")],
        "gemm_store_transposed_f16": [((m, k), "float16"), ((k, n), "float16"), ((n, m), "float16")],
    }.items():
        out[name] = ("gemm", dp.PROGRAMS[name].kernel, spec + list(dp.PROGRAMS[name].tiles))
    qkv = [((4, 256, 64), "float16")] * 4
    out["attention_fwd_f16"] = ("chained", ap.attention_fwd,
                                qkv + [1.0 / math.sqrt(64) / math.log(2.0), 256, 128, 64, 64, True])
    out["argmax_rows"] = ("simt", mp.argmax, [((100, 256), "float32"), ((100,), "int32"), 256])
    out["col_sum"] = ("simt", mp.col_sum, [((1000, 300), "float32"), ((300,), "float32"), 64, 128])
    return out


@pytest.mark.skipif(not HAVE_CUTILE, reason="needs cuda-tile (cuTile Python) to export bytecode")
@pytest.mark.parametrize("name", ["gemm_bias_relu_f16", "swiglu_f16", "gemm_store_transposed_f16",
                                  "attention_fwd_f16", "argmax_rows", "col_sum"])
def test_cutile_routes_verify_after_every_pass(verify_each_pass, name):
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    kind, kernel, spec = _cutile_programs()[name]
    program = compile_program(cutile_bytecode(kernel, spec), name, ptxas=False)
    assert program.kind == kind, program.remarks
    assert ".entry" in program.ptx
