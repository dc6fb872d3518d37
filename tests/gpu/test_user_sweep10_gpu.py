"""The tenth user sweep on the GPU: every program of ``tileorch.testing.user_programs10`` (programs
without a dot, all on the SIMT path) runs through ``tileorch.cutile.launch`` on its spec's ragged
shapes and grid, against the independent float64 numpy references of
tests/unit/test_user_sweep10_interp.py: each test there runs again with its ``run`` swapped for
:func:`gpu_run` (every array inside a larger buffer of the fill, NaN / an integer sentinel / the
fp8 NaN byte / the byte 2 for bool, whose tail must stay the fill; the outputs start as the fill),
and each program ran on the path its table entry names.  On the GPU (what the CPU's interpreter and
PTX emulator cannot show): atomics racing between CTAs, a reduction loop split over a real cluster
(distributed shared memory), bf16 atomics, acquire / release and grid dependency control.
``ct.printf`` / ``ct.print`` and ``ct.assert_`` run in a child process (their output, and the
failed assertion's message, file and line, as tests/gpu/test_cutile_print_gpu.py and
test_cutile_assert_gpu.py check them).  ``TILEORCH_QUICK_GPU=1`` runs the :data:`QUICK` subset.
Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep10_gpu.py``."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import test_user_sweep10_interp as s10  # noqa: E402
import sweep_harness  # noqa: E402

from tileorch.testing import user_programs10  # noqa: E402
from tileorch.testing.user_programs10 import PROGRAMS  # noqa: E402

QUICK = {
    "test_layernorm_backward_dx_and_group_partials_then_column_sums",  # + a cluster-split column sum
    "test_rmsnorm_backward_with_atomic_dgamma", "test_rmsnorm_3d_equals_its_2d_form",
    "test_cross_entropy_forward_and_backward_with_ignore_index", "test_embedding_backward_in_bf16_by_atomic_add",
    "test_atomic_cas_gives_one_winner_per_slot", "test_bitwise_atomics_and_exchange",
    "test_atomic_min_max_of_int32_and_int64", "test_fp8_quantisation_per_row_and_back", "test_array_slice_row_ranges",
    "test_acquire_load_release_store_and_pdl", "test_long_rows_and_bias_gelu_and_3d_column_sums_and_f64_norms",
    "test_kernel_options_axpy_and_by_target_softmax", "test_global_sum_by_atomics_to_a_scalar",
    "test_printf_and_print_of_program_0", "test_assert_that_holds_changes_nothing",
    "test_assert_that_fails_stops_the_kernel_with_its_message",
}
"""The tests ``TILEORCH_QUICK_GPU=1`` runs (a short device session)."""


def _quick(test: str) -> None:
    if os.environ.get("TILEORCH_QUICK_GPU") and test not in QUICK:
        pytest.skip("TILEORCH_QUICK_GPU: not in the quick subset")


def gpu_run(name: str, inputs: dict) -> dict:
    """tests/gpu/sweep_harness.gpu_run for this sweep's programs: the run on the GPU, the tails left
    alone, the path its table entry names."""
    return sweep_harness.gpu_run(PROGRAMS, name, inputs)


# ----------------------------------------------------------------------------------------------- the numpy references


ON_GPU = sorted(n for n in dir(s10) if n.startswith("test_"))
"""Every test of test_user_sweep10_interp.py (every program but the printing and asserting ones)."""


@pytest.mark.parametrize("test", ON_GPU)
def test_on_the_gpu_against_numpy(test, monkeypatch):
    _quick(test)
    monkeypatch.setattr(s10, "run", gpu_run)
    getattr(s10, test)()


# ----------------------------------------------------------------------------------------------- printf and assert

CHILD = textwrap.dedent("""
    import ctypes, sys
    import numpy as np
    import torch
    import tileorch.cutile
    from tileorch.testing.user_programs10 import PROGRAMS
    name, x_path, y_path = sys.argv[1:]
    p = PROGRAMS[name]
    x = torch.from_numpy(np.load(x_path)).cuda()
    y = torch.full((x.shape[0],), float("nan"), device="cuda")
    try:
        tileorch.cutile.launch(torch.cuda.current_stream(), p.grid, p.kernel, (x, y, p.spec[-1]))
        torch.cuda.synchronize()
    except Exception as exc:
        print("RAISED:", type(exc).__name__, exc, flush=True)
        raise SystemExit(3)
    ctypes.CDLL(None).fflush(None)
    np.save(y_path, y.cpu().numpy())
    print("DONE", flush=True)
""")
"""A child process launching a program of arguments ``(X, Y, block)`` (``Y`` one f32 per row of
``X``, NaN first) on the ``X`` saved at argv[2]; ``Y`` saved at argv[3]; a failed launch or
synchronize prints RAISED and exits 3 (an assertion ends the process's CUDA context)."""


def _child(name: str, x: np.ndarray, tmp_path) -> tuple[subprocess.CompletedProcess, Path]:
    """:data:`CHILD` of program ``name`` on ``x``: the finished process and where it saved ``Y``."""
    xp, yp = tmp_path / "x.npy", tmp_path / "y.npy"
    np.save(xp, x)
    proc = subprocess.run([sys.executable, "-c", CHILD, name, str(xp), str(yp)], capture_output=True, text=True,
                          timeout=600)
    return proc, yp


def _line_of(name: str, text: str) -> int:
    lines, first = inspect.getsourcelines(PROGRAMS[name].kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def test_printf_and_print_of_program_0(tmp_path):
    """Program 0 prints its row's sum and max (``ct.printf``, %.3f of f32 values) and the row length
    (``ct.print`` of an f-string); every program stores its row sum.  The values are multiples of
    1/8, so the f32 sums are exact and the printed text is the reference's."""
    from tileorch.testing.print_expected import printf_text

    test = "test_printf_and_print_of_program_0"
    _quick(test)
    rows, cols = PROGRAMS["printf_first_row_stats"].spec[0][0]
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    x = (((i * 37 + j * 11) % 33 - 16) / 8).astype(np.float32)
    x[0, 5] = 7.625  # row 0's max (the padded columns read 0: also below it)
    proc, yp = _child("printf_first_row_stats", x, tmp_path)
    assert proc.returncode == 0 and "DONE" in proc.stdout, proc.stdout + proc.stderr
    r0 = x[0].astype(np.float64)
    want = printf_text("row 0: sum %.3f max %.3f\n", np.float64(r0.sum()), np.float64(max(r0.max(), 0.0)))
    want += printf_text("n = %d\n", np.int32(cols))
    lines = [ln for ln in proc.stdout.splitlines() if ln != "DONE"]
    assert lines == want.splitlines(), proc.stdout
    np.testing.assert_array_equal(np.load(yp), x.astype(np.float64).sum(1).astype(np.float32))


def test_assert_that_holds_changes_nothing():
    """Non-negative values: the assertion holds and ``Y = sqrt(X)`` (ragged length: 300 of 3 x 128)."""
    test = "test_assert_that_holds_changes_nothing"
    _quick(test)
    x = np.abs(np.random.default_rng(1012).standard_normal(300)).astype(np.float32) * 4
    x[:3] = [0.0, 1.0, 2.0]
    y = gpu_run("assert_nonnegative_sqrt", {0: x})[1]
    s10._close(y, np.sqrt(x.astype(np.float64)), 0, 1e-6)


def test_assert_that_fails_stops_the_kernel_with_its_message(tmp_path):
    """One negative element (in the ragged last block): the launch fails with an assert error, CUDA's
    assertion line has the message and the assert's file and line."""
    test = "test_assert_that_fails_stops_the_kernel_with_its_message"
    _quick(test)
    x = np.abs(np.random.default_rng(1013).standard_normal(300)).astype(np.float32)
    x[290] = -1.0
    proc, _ = _child("assert_nonnegative_sqrt", x, tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 3, out
    assert "sqrt of a negative value" in out, out
    assert f"{Path(user_programs10.__file__).name}:{_line_of('assert_nonnegative_sqrt', 'ct.assert_(')}" in out, out
    assert "assert" in out.split("RAISED:", 1)[1].lower(), out


def test_every_program_runs_here():
    """Each program of the sweep is launched by a test of this file (through the interpreter tests'
    ``run`` calls or by name here)."""
    src = inspect.getsource(s10) + inspect.getsource(sys.modules[__name__])
    missing = [n for n in PROGRAMS if f'"{n}"' not in src]
    assert not missing, missing
