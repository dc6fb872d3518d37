"""The unrolled dot programs (``tileorch.testing.static_iter_programs``: a K loop or a key loop under
``ct.static_iter``, K steps written out by hand) on the GPU: each runs through
``tileorch.cutile.launch`` on its spec's shapes (test_user_sweep_gpu.run: outputs start NaN inside a
larger NaN buffer whose tail must stay NaN) against an independent torch fp32 reference, and took
the tensor-core path its entry names (``tileas-reroll-unrolled-loops`` rolled the copies into a
loop).  Skipped without a GPU; needs torch and cuda-tile.
Run: ``python -m pytest -q tests/gpu/test_static_iter_gpu.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing.static_iter_programs import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there


def _check_path(name, args):
    """The compiled program ``name`` took the path its entry names, with the re-roll remark."""
    from tileorch.launchers import cutile as rc

    kernel = PROGRAMS[name].kernel
    p = rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a", "persistent").program
    assert p.kind == PROGRAMS[name].path, p.remarks
    assert any("re-rolled into a loop for the tensor-core tier" in r for r in p.remarks), p.remarks


def test_attention_over_a_constant_number_of_key_tiles():
    q, k, v = (randn((2, 256, 64), "float16", s) for s in (1501, 1502, 1503))
    args = run("attn_static_kv", {0: q, 1: k, 2: v})
    s = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(64)
    ref = torch.softmax(s, -1) @ v.float()
    close(args[3].float(), ref, atol=3e-3, rtol=1e-2)
    _check_path("attn_static_kv", args)


def test_attention_with_the_keys_past_a_length_masked():
    q, k, v = (randn((2, 256, 64), "float16", s) for s in (1511, 1512, 1513))
    k[:, 200:] = 100.0  # keys past the length would dominate if they were read
    args = run("attn_static_kv_masked", {0: q, 1: k, 2: v})
    s = (q.float() @ k[:, :200].float().transpose(-1, -2)) / math.sqrt(64)
    ref = torch.softmax(s, -1) @ v[:, :200].float()
    close(args[3].float(), ref, atol=3e-3, rtol=1e-2)
    _check_path("attn_static_kv_masked", args)


def test_gemm_static_iter_k_with_bias_and_relu_epilogue():
    a, b = randn((256, 256), "float16", 1504), randn((256, 256), "float16", 1505, scale=0.5)
    bias = randn((256,), "float32", 1506)
    args = run("mm_static_iter_bias", {0: a, 1: b, 2: bias})
    ref = torch.relu(a.float() @ b.float() + bias[None, :])
    close(args[3].float(), ref, atol=2e-2, rtol=5e-3)  # C is f16
    _check_path("mm_static_iter_bias", args)


def test_persistent_gemm_with_a_static_iter_k_loop():
    a, b = randn((384, 256), "float16", 1509), randn((256, 256), "float16", 1510)
    args = run("mm_persistent_static_k", {0: a, 1: b})
    close(args[2].float(), a.float() @ b.float(), atol=6e-2, rtol=2e-3)  # C is f16
    _check_path("mm_persistent_static_k", args)


def test_gemm_k_steps_written_out_by_hand():
    a, b = randn((128, 192), "float16", 1507), randn((192, 256), "float16", 1508)
    args = run("mm_k_written_out", {0: a, 1: b})
    close(args[2], a.float() @ b.float(), atol=1e-3, rtol=1e-4)
    _check_path("mm_k_written_out", args)
