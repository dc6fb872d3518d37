"""cuTile programs of the ops of bytecode 13.4 that tileorch lowers since issue 21's audit:
``x ** n`` (``fpowi``), ``ct.insert`` and grid dependency control.  Used by the CPU audit
(tests/unit/test_cutile_op_audit.py) and the GPU tests (tests/gpu/test_op_audit_gpu.py).
Importing it needs ``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct


@ct.kernel
def grid_dependency(x, y, n: ct.Constant[int]):
    ct.grid_dependency_control_wait()
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.grid_dependency_control_launch_dependents()
    ct.store(y, index=(ct.bid(0),), tile=t + 1.0)


@ct.kernel
def powers(x, e, y2, y3, ym2, y0, yn, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.store(y2, index=(ct.bid(0),), tile=t ** 2)
    ct.store(y3, index=(ct.bid(0),), tile=t ** 3)
    ct.store(ym2, index=(ct.bid(0),), tile=t ** -2)
    ct.store(y0, index=(ct.bid(0),), tile=t ** 0)
    ct.store(yn, index=(ct.bid(0),), tile=t ** ct.load(e, index=(ct.bid(0),), shape=(n,)))


@ct.kernel
def inserting(x, y, z, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    u = ct.insert(ct.insert(t, (1,), ct.zeros((16,), dtype=ct.float32)), (40,), ct.full((), 5.0, dtype=ct.float32))
    ct.store(y, index=(ct.bid(0),), tile=u)
    m = ct.reshape(t, (8, n // 8))
    v = ct.full((2, n // 16), -1.0, dtype=ct.float32)
    ct.store(z, index=(ct.bid(0), 0), tile=ct.insert(m, (ct.bid(0) % 4, 1), v))


__all__ = ["grid_dependency", "inserting", "powers"]
