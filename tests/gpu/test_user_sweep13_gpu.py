"""The thirteenth user sweep on the GPU (issue 21: memory-bound programs of the kinds a user writes
first, programs acceptance runs that we will not see): every program of
``tileorch.testing.user_programs13`` (SIMT path) runs through ``tileorch.cutile.launch`` on its spec's
ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep13_interp.py: each test there runs again with its ``run`` swapped for
:func:`gpu_run` (every array inside a larger buffer of the fill: NaN / an integer sentinel / the fp8
NaN byte, whose tail must stay the fill; the outputs start as the fill).  On the GPU: load / store
``order``, NaN / +inf padding, ``check_bounds=False``, 2-D / 3-D gathers and scatters, bitcasts,
NaN-aware min / max, floor division of negatives (hardware ``div``), ``while`` / ``break`` /
``continue`` loops, the 2-D / 3-D pairs, three grid axes.  Skipped without a GPU; needs torch,
cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_user_sweep13_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_user_sweep13_interp as s13  # noqa: E402

import tileorch.cutile  # noqa: E402
from tileorch.testing.user_programs13 import PROGRAMS  # noqa: E402


def gpu_run(name: str, inputs: dict) -> dict:
    """tests/gpu/sweep_harness.gpu_run for this sweep's programs (all on the SIMT path)."""
    return sweep_harness.gpu_run(PROGRAMS, name, inputs)


ON_GPU = sorted(n for n in dir(s13) if n.startswith("test_"))


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s13)

    def tested(name: str) -> bool:  # run("name" ...), or run(f"stem_{...}" ...) for a parametrized family name_0..
        stem = name.rsplit("_", 1)[0]
        return f'run("{name}"' in source or (name[len(stem) + 1:].isdigit() and f'run(f"{stem}_{{' in source)

    assert all(tested(name) for name in PROGRAMS), [n for n in PROGRAMS if not tested(n)]


@pytest.mark.parametrize("test", ON_GPU)
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s13, "run", gpu_run)
    fn = getattr(s13, test)
    marks = getattr(fn, "pytestmark", [])
    if marks:  # the parametrized tests: every value
        for value in marks[0].args[1]:
            fn(value)
    else:
        fn()


def test_strided_views_on_the_gpu():
    """tests/unit/test_user_sweep13_strided.py's views as torch views (every other column, a transpose,
    rows inside wider rows, a column window): the launcher passes their strides; what lies outside the
    output views keeps its NaN."""
    from tileorch.testing import user_programs13 as up

    g = torch.Generator(device="cuda").manual_seed(1314)
    stream = torch.cuda.current_stream()
    xb = torch.randn(50, 400, device="cuda", generator=g)
    yb = torch.randn(200, 50, device="cuda", generator=g)
    x, y = xb[:, ::2], yb.t()
    z = torch.full((50, 200), float("nan"), device="cuda")
    tileorch.cutile.launch(stream, (4, 2), up.pair2d_axpby, (x, y, z, 2.0, -0.5, 16, 128))
    sb = torch.randn(6, 512, device="cuda", generator=g) * 3
    ob = torch.full((6, 320), float("nan"), device="cuda")
    tileorch.cutile.launch(stream, (6,), up.pair2d_row_softmax, (sb[:, :300], ob[:, 10:310], 512))
    base = torch.randn(50, 37, device="cuda", generator=g)
    copy = torch.full((50, 37), float("nan"), device="cuda")
    tileorch.cutile.launch(stream, (3, 2), up.load_order_f_transpose, (base.t(), copy, 16, 32))
    cb = torch.randn(200, 30, device="cuda", generator=g)
    cs = torch.full((200,), float("nan"), device="cuda")
    tileorch.cutile.launch(stream, (4,), up.pair2d_column_sum, (cb.t(), cs, 32, 64))
    torch.cuda.synchronize()
    torch.testing.assert_close(z, 2.0 * x - 0.5 * y, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(ob[:, 10:310], torch.softmax(sb[:, :300].double(), 1).float(), rtol=1e-5, atol=1e-7)
    assert torch.isnan(ob[:, :10]).all() and torch.isnan(ob[:, 310:]).all()
    torch.testing.assert_close(copy, base, rtol=0, atol=0)
    torch.testing.assert_close(cs, cb.double().sum(1).float(), rtol=1e-5, atol=1e-5)
