"""cuTile programs for tests/unit/test_prefetch_past_stores.py, test_prefetch_depth.py and test_ordered_loads_kept.py: loops that store,
whose loads cuTile ties to the stores (an in-place carry along the row) or that hold an atomic -- the loops
``TILEORCH_PREFETCH_PAST_STORES=1`` must leave as written -- and loops that stop a tile before the row's end
(an iteration too many would be seen: the last tile summed or stored)."""

from __future__ import annotations

import cuda.tile as ct

C = ct.Constant
ZERO = ct.PaddingMode.ZERO


@ct.kernel
def carry_along_row_in_place(X, BV: C[int]):
    """``X[r, tile k + 1] = X[r, tile k] + 1`` for k = 0, 1, ...: each iteration reads what the one before
    it stored (one array: cuTile ties the load to the store through the loop's token)."""
    r = ct.bid(0)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BV)) - 1):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO)
        ct.store(X, index=(r, k + 1), tile=x + 1.0)


@ct.kernel
def scaled_copy_counting(X, Y, Count, BV: C[int]):
    """``Y = 2 X`` tile by tile, each tile also adding 1 to ``Count[0]`` by a relaxed atomic (cuTile leaves it
    untied to the loads: only the rule that a loop with an atomic keeps its order holds the loads in place)."""
    r = ct.bid(0)
    zero = ct.zeros((1,), dtype=ct.int32)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BV))):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO)
        ct.store(Y, index=(r, k), tile=x * 2.0)
        ct.atomic_add(Count, zero, ct.ones((1,), dtype=ct.int32), memory_order=ct.MemoryOrder.RELAXED)


@ct.kernel
def copy_all_but_last_tile(X, Y, BV: C[int]):
    """``Y = 2 X`` tile by tile over every tile of the row but the last (its load untied to the store)."""
    r = ct.bid(0)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BV)) - 1):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO)
        ct.store(Y, index=(r, k), tile=x * 2.0)


@ct.kernel
def sum_all_but_last_tile(X, S, BV: C[int]):
    """``S[r]`` = the sum of row ``r``'s tiles but the last (a loop folding one tile an iteration)."""
    r = ct.bid(0)
    acc = ct.zeros((1, BV), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BV)) - 1):
        acc = acc + ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO)
    ct.store(S, index=(r,), tile=ct.sum(acc, axis=1))


@ct.kernel
def sum_tiles_after_acquired_flags(X, F, S, BV: C[int]):
    """``S[r]`` = the sum over k of row ``r``'s tile k times ``F[k]``, each flag read with ACQUIRE before its
    tile (a consumer reading what a producer released): no tile's load may move above its flag's."""
    r = ct.bid(0)
    acc = ct.zeros((1, BV), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BV))):
        f = ct.load(F, index=(k,), shape=(1,), memory_order=ct.MemoryOrder.ACQUIRE,
                    memory_scope=ct.MemoryScope.DEVICE)
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO)
        acc = acc + x * ct.reshape(f, (1, 1))
    ct.store(S, index=(r,), tile=ct.sum(acc, axis=1))

