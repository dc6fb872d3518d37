"""The launch-and-check helper of the computed-operand GPU tests (``test_k_vector_tma_gpu.py``,
``test_computed_operand_prefetch_gpu.py``, ``test_launch_copies_s43_gpu.py``): launch a cuTile GEMM program whose
operand the K loop computes on the launch grid its tiles give, check that it ran on the tensor cores (the launcher's
own record of the path, not only the compile's kind) and that the compile's remark names the computed operand and,
where asked, the words of its K vectors' loads; torch fp32 comparison helpers."""

from __future__ import annotations

import warnings

import torch

import tileorch.cutile
from tileorch.diagnostics import PerformanceWarning
from tileorch.launchers import cutile as rc
from tileorch.testing import launch_path


def gen(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


def f16(x):
    return x.half().float()


def launch(kernel, args, tiles, m, n, extra=(), vector_words: str | None = None):
    """Launch ``kernel`` on ``(*args, *tiles, *extra)`` over the grid of ``tiles``' M x N tiles and synchronize;
    the launch ran the GEMM path, the compiled program is a GEMM whose operand the K loop computes, and (given) its
    remarks say ``vector_words`` of the K vectors.  Returns the launch's remark (the launcher's, for its grid) joined
    with the launch's PerformanceWarnings."""
    tm, tn, _ = tiles
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn, 1)
    launch_path.begin()
    with warnings.catch_warnings(record=True) as caught:  # (the launcher's warnings name a copy it makes)
        warnings.simplefilter("always")
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, (*args, *tiles, *extra))
    torch.cuda.synchronize()
    described = rc.describe_arguments(kernel, (*args, *tiles, *extra))
    # the launch's remark: on its own entry (the deferred compile, or the full one where it ran the program's own
    # tiles); the program's remarks: the full compile's
    remark = rc.compiled(kernel, described, "sm_90a", "persistent", defer_gemm=True).launch_remarks.get(grid, "")
    # (a launch whose schedule or tiles the launcher chose differently records its remark on that entry: the
    # launch's PerformanceWarnings say the same decisions, at the kernel's line)
    remark = "; ".join([remark] + [str(w.message) for w in caught if issubclass(w.category, PerformanceWarning)])
    program = rc.compiled(kernel, described, "sm_90a", "persistent").program
    assert launch_path.ran(kernel, grid) == "gemm", remark
    assert program.kind == "gemm", program.remarks
    assert any("computed in the K loop" in r for r in program.remarks), program.remarks
    if vector_words:
        assert any(vector_words in r for r in program.remarks), program.remarks
    return remark


def rel(out, ref):
    """The largest error of ``out`` relative to ``ref``'s largest magnitude; no NaN left (NaN-prefilled outputs)."""
    assert not torch.isnan(out).any(), "unwritten outputs"
    return float((out.float() - ref).abs().max() / ref.abs().max())
