"""Review 28: the two integer gaps session 27 left, on the PTX emulator (SIMT path) against numpy / Python,
outputs sentinel-prefilled.

* ``//`` of unsigned integers: cuTile 1.7 writes ``divi unsigned rounding<negative_inf>`` for every one; it
  was refused (a located error naming a workaround).  The floor of a quotient of two non-negative integers
  is its truncation, so it now verifies and lowers as ``divui`` (``cudatile_to_tileaa._divi``).  Before the
  fix every case below raised ``CompileError``.
* A loop whose counter's increment passes the type's largest value: ``for i in range(start, stop, 4)`` with
  ``stop`` near ``2**31 - 1`` wrapped the counter negative and never ended (``scf_while_to_cf.PositiveStepFor``
  now ends the loop on the wrapping increment), and a reduction loop split over a cluster gave rank ``r`` the
  first iteration ``start + r * step``, which wrapped too (``tileaa_to_simt._split_bounds``).  With the step
  ``2**31 - 1`` the loop ran no iteration instead of one.  Before the fix these hit the emulator's step limit
  (lowered here to 200,000 steps so that a hang fails in seconds) or gave 0.

Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep_interp as sweep  # noqa: E402


C = ct.Constant
N = 8
SENTINEL = 77
MAX32 = 2**31 - 1


@pytest.fixture
def emulate(monkeypatch):
    """``emulate(kernel, arrays, scalars, grid=(1,))``: ``kernel(*arrays, *scalars)`` on the emulator; every array
    after the run.  The emulator stops a CTA after 200,000 steps (a loop that never ends fails fast)."""
    from tileorch.testing import ptx_emulator

    for name in ("uint8", "uint16", "uint32", "uint64"):
        monkeypatch.setitem(sweep.NP, name, getattr(np, name))
    run_ctas = ptx_emulator.Emu.run
    monkeypatch.setattr(ptx_emulator.Emu, "run", lambda self, max_steps=200_000: run_ctas(self, max_steps))

    def run(kernel, arrays, scalars, grid=(1,)):
        name = f"rv28_{kernel._pyfunc.__name__}_{'_'.join(a.dtype.name for a in arrays)}"
        return s10e.emulate_kernel(monkeypatch, name, kernel, arrays, scalars, grid)
    return run


# --------------------------------------------------------------------------------------- unsigned floor division


@ct.kernel
def unsigned_floor_divide(X, Y, Q, R, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(Q, index=(0,), tile=x // y)
    ct.store(R, index=(0,), tile=x % y)


@ct.kernel
def unsigned_floor_divide_by_constants(X, Q, BN: C[int], D: C[int]):
    """``x // 7 + x % 7`` and ``(x // D) * D``: a divisor the compiler knows (LLVM's multiply-high form)."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Q, index=(0,), tile=(x // D) * D + x % D - x // 7)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
def test_unsigned_floor_division_by_a_tile(emulate, dtype):
    """Dividends and divisors with the top bit set (a signed division reads them as negative)."""
    top = np.iinfo(dtype).max
    x = np.array([7, top, top - 1, 0, 200, 1, top // 2 + 1, top // 2 + 1], dtype)
    y = np.array([2, 3, top, 5, 7, top, 2, top // 2 + 2], dtype)
    q, r = emulate(unsigned_floor_divide, [x, y, np.full(N, SENTINEL, dtype), np.full(N, SENTINEL, dtype)], [N])[2:]
    np.testing.assert_array_equal(q, x // y)
    np.testing.assert_array_equal(r, x % y)


@pytest.mark.parametrize("dtype", ["uint8", "uint32", "uint64"])
def test_unsigned_floor_division_by_constants(emulate, dtype):
    top = np.iinfo(dtype).max
    x = np.array([top, top - 5, top // 2 + 3, 0, 6, 7, 100, 255], dtype)
    q = emulate(unsigned_floor_divide_by_constants, [x, np.full(N, SENTINEL, dtype)], [N, 6])[1]
    with np.errstate(over="ignore"):
        want = (x // 6) * 6 + x % 6 - x // 7
    np.testing.assert_array_equal(q, want.astype(dtype))


# --------------------------------------------------------------------------------------- loops near the maximum


@ct.kernel
def count_by_four(X, Y, start: int, stop: int, BN: C[int]):
    """Iterations of ``range(start, stop, 4)`` counted in every element (a loop-carried sum: the cluster split's
    candidate)."""
    acc = ct.zeros((BN,), dtype=ct.int32)
    for _ in range(start, stop, 4):
        acc = acc + 1
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def count_by_a_runtime_step(X, Y, start: int, stop: int, step: int, BN: C[int]):
    acc = ct.zeros((BN,), dtype=ct.int32)
    for _ in range(start, stop, step):
        acc = acc + 1
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def last_index_by_three(X, Y, start: int, stop: int, BN: C[int]):
    """The last counter value ``range(start, stop, 3)`` yields, written by a store inside the loop (a loop the
    cluster split does not take: it writes memory)."""
    for i in range(start, stop, 3):
        ct.store(Y, index=(0,), tile=ct.full((BN,), i, dtype=ct.int32))


def _out():
    return [np.zeros(N, np.int32), np.full(N, SENTINEL, np.int32)]


@pytest.mark.parametrize("split", ["1", "0"], ids=["cluster_split", "one_cta"])
@pytest.mark.parametrize("start, stop", [(MAX32 - 10, MAX32), (MAX32 - 7, MAX32), (MAX32 - 3, MAX32 - 1), (0, 9),
                                         (-MAX32 - 1, -MAX32 + 6)])
def test_a_constant_step_near_the_maximum_ends(emulate, monkeypatch, split, start, stop):
    """Before: the first three never ended, split or not (split, rank ``r``'s first iteration ``start + 4 r``
    wrapped as well)."""
    monkeypatch.setenv("TILEORCH_CLUSTER_SPLIT", split)
    y = emulate(count_by_four, _out(), [start, stop, N])[1]
    np.testing.assert_array_equal(y, len(range(start, stop, 4)))


@pytest.mark.parametrize("start, stop, step", [(MAX32 - 10, MAX32, 3), (MAX32 - 2, MAX32, 1000), (MAX32 - 1, MAX32, MAX32),
                                               (5, 100, 7), (0, 10, 0), (10, 0, -1)])
def test_a_runtime_step_near_the_maximum_ends(emulate, start, stop, step):
    """Before: the first two never ended; ``range(MAX - 1, MAX, MAX)`` ran no iteration (one is right).  A step of
    0 or below runs none (session 27's guard)."""
    y = emulate(count_by_a_runtime_step, _out(), [start, stop, step, N])[1]
    np.testing.assert_array_equal(y, len(range(start, stop, step)) if step > 0 else 0)


@pytest.mark.parametrize("start, stop", [(MAX32 - 10, MAX32), (MAX32 - 4, MAX32 - 1), (3, 11)])
def test_the_counter_values_near_the_maximum(emulate, start, stop):
    """The counter itself, stored each iteration: the last value ``range`` gives (never a wrapped one)."""
    y = emulate(last_index_by_three, _out(), [start, stop, N])[1]
    np.testing.assert_array_equal(y, list(range(start, stop, 3))[-1])
