"""``thread_local_reduce.owned_results`` against the SIMT layout itself: for every power-of-two
shape, reduced dimension, run length and thread count of a small grid, when it says the threads'
partials are the result's slots, every source element of every thread folds into the output slot
that the output's layout gives that same thread for the element's output index (so no exchange is
needed), and it says so for the cases the module names (a unit dimension; thread bits below the
reduced dimension).  The layout model (``layout.py``): element ``f`` of a tile lives at thread
``(f // v) % T``, slot ``(f // (v T)) v + f % v``."""

from __future__ import annotations

import itertools

import pytest

from tileorch.transforms.tileaa_to_simt import thread_local_reduce


def _partials(shape, dim, v, threads):
    """What ``_reduce_in_registers`` gives ``owned_results``: the thread-free keys of its slots
    (reduced bits cleared) -> the source slots folded into each (as the partial's value)."""
    n = 1
    for d in shape:
        n *= d
    slots = -(-n // (v * threads)) * v
    a = (_numel(shape[dim + 1:])).bit_length() - 1
    b = a + shape[dim].bit_length() - 1
    dmask = ((1 << b) - 1) ^ ((1 << a) - 1)
    keys: dict[int, list] = {}
    for s in range(slots):
        fs = (s // v) * v * threads + s % v
        keys.setdefault(fs & ~dmask, []).append(s)
    return keys, a, b, slots, n


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _output_index(f, shape, dim):
    coords = []
    for d in reversed(shape):
        coords.append(f % d)
        f //= d
    coords.reverse()
    del coords[dim]
    o = 0
    for c, d in zip(coords, shape[:dim] + shape[dim + 1:]):
        o = o * d + c
    return o


SHAPES = [(1, 64), (1, 512), (1, 1024), (4, 512), (2, 256), (8, 64), (4, 8, 32), (1, 4, 128), (16,), (64, 4)]


@pytest.mark.parametrize("shape,dim,v,threads", [
    (s, d, v, t) for s in SHAPES for d in range(len(s)) for v in (1, 2, 4, 8) for t in (32, 128, 256)])
def test_owned_results_put_every_element_at_its_owner(shape, dim, v, threads):
    keys, a, b, slots, n = _partials(shape, dim, v, threads)
    n_out = n // shape[dim]
    out_slots = -(-n_out // (v * threads)) * v
    out_ragged = out_slots * threads != n_out
    ragged = slots * threads != n
    held = thread_local_reduce.owned_results({k: [tuple(ss)] for k, ss in keys.items()}, out_slots, v, out_ragged,
                                             v, threads, a, b)
    hi = v.bit_length() - 1 + threads.bit_length() - 1  # past the thread-index bits
    expected = not ragged and not out_ragged and (a == b or hi <= a)
    assert (held is not None) == expected, (shape, dim, v, threads, a, b)
    if held is None:
        return
    for tid in range(threads):
        for out_slot, (source_slots,) in enumerate(held):
            fo = (out_slot // v) * v * threads + tid * v + out_slot % v
            for s in source_slots:
                f = (s // v) * v * threads + tid * v + s % v
                assert _output_index(f, shape, dim) == fo, (tid, out_slot, s)
    # every source element is folded exactly once
    assert sorted(s for (ss,) in held for s in ss) == list(range(slots))


def test_the_switch_keeps_the_exchange(monkeypatch):
    keys, a, b, slots, _ = _partials((1, 512), 0, 2, 256)
    monkeypatch.setenv("TILEORCH_SIMT_REDUCE_EXCHANGE", "1")
    assert thread_local_reduce.owned_results(keys, slots, 2, False, 2, 256, a, b) is None
    monkeypatch.delenv("TILEORCH_SIMT_REDUCE_EXCHANGE")
    assert thread_local_reduce.owned_results(keys, slots, 2, False, 2, 256, a, b) is not None


def test_another_run_length_is_exchanged():
    keys, a, b, slots, _ = _partials((1, 512), 0, 2, 256)
    assert thread_local_reduce.owned_results(keys, slots // 2, 1, False, 2, 256, a, b) is None
