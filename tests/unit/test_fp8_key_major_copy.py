"""Session 45's fp8 ``P @ V`` on the chained tier (issue 20): the order in which P's f32 accumulator registers are
packed into the 8-bit register-A fragment (``tileas/pack16.py``: ``fp8_fragment_order``, ``fp8_key_of_position``)
against the two PTX ISA layouts written out here, and the launch's key-major copy of V
(``launch_copies.key_major16``: ``[.., S, D]`` -> ``[.., D, S16]``, keys permuted within each 16) against its
definition, for any shape (hypothesis).  No GPU."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.launchers import launch_copies
from tileorch.transforms.tileas.pack16 import fp8_fragment_order, fp8_key_of_position


def test_each_packed_byte_is_the_p_element_its_k_position_names():
    """For every lane of a quad (t = lane % 4), register a_q of a 32-key chunk and byte b: the f32 accumulator
    register packed there (``d[i]``: row half (i / 2) % 2, column 8 (i / 4) + 2 t + i % 2, the m64nN f32 D layout)
    is in the fragment's row half (q % 2) and is P's key ``fp8_key_of_position(K)`` of the fragment's K position
    ``16 (q / 2) + 4 t + b`` (the m64 k32 8-bit A layout): the second dot's B row K must hold that key of V."""
    for t in range(4):
        used = set()
        for q in range(4):
            for b in range(4):
                i = fp8_fragment_order(4 * q + b)
                used.add(i)
                assert (i // 2) % 2 == q % 2
                assert fp8_key_of_position(16 * (q // 2) + 4 * t + b) == 8 * (i // 4) + 2 * t + i % 2
        assert used == set(range(16))  # each of the chunk's 16 registers packed once


def test_the_key_order_permutes_each_16_keys():
    for base in range(0, 64, 16):
        assert sorted(fp8_key_of_position(base + k) for k in range(16)) == list(range(base, base + 16))
    assert [fp8_key_of_position(k) for k in range(8)] == [0, 1, 8, 9, 2, 3, 10, 11]  # (by hand: t = 0, 1)


@settings(max_examples=60, deadline=None)
@given(lead=st.lists(st.integers(1, 3), max_size=2), s=st.integers(1, 70), d=st.integers(1, 40),
       seed=st.integers(0, 2**31 - 1))
def test_the_key_major_copy_is_its_definition(lead, s, d, seed):
    """``key_major16(x)[.., n, c] == x[.., fp8_key_of_position(c), n]`` for keys below S, zero past S (S rounded
    up to 16), for bytes of any shape."""
    x = np.random.default_rng(seed).integers(1, 256, (*lead, s, d)).astype(np.uint8)
    y = launch_copies.key_major16(x)
    s16 = -(-s // 16) * 16
    assert y.shape == (*lead, d, s16) == launch_copies.key_major16_shape(x.shape) and y.flags.c_contiguous
    keys = np.array([fp8_key_of_position(c) for c in range(s16)])
    want = np.zeros_like(y)
    ok = keys < s
    want[..., :, ok] = np.swapaxes(x[..., keys[ok], :], -1, -2)
    assert np.array_equal(y, want)


def test_the_copy_program_is_the_copy():
    """tileorch's copy program (``k_major_copy_programs.key_major16_copy_3d``, the SIMT path) on the CPU lockstep
    interpreter: 200 ragged keys (zeros past them up to 208; the last 64-key tile partly past the copy's end) x head
    dim 64, two heads, equal to :func:`launch_copies.key_major16`."""
    import pytest

    pytest.importorskip("xdsl")
    pytest.importorskip("cuda.tile")
    import test_user_sweep_interp as sweep

    from tileorch.launchers.k_major_copy_programs import key_major16_copy_3d
    from tileorch.testing.user_programs import UserProgram

    shape = (2, 200, 64)
    values = np.random.default_rng(45).integers(1, 250, size=shape).astype(np.uint8)
    out_shape = launch_copies.key_major16_shape(shape)
    name = "key_major16_copy_3d_s45"
    sweep.PROGRAMS[name] = p = UserProgram(key_major16_copy_3d, [(shape, "uint8"), (out_shape, "uint8"), 64, 64],
                                           (4, 1, 2), "simt")
    try:
        got = sweep.run(name, {0: values}, p)[1]
    finally:
        sweep.PROGRAMS.pop(name, None)
    np.testing.assert_array_equal(got, launch_copies.key_major16(values))


def test_the_copy_launch_plan():
    """``k_major_copy.key_major16_plan``: a ``[B, H, S, D]`` V of 200 keys as one batch of ``B H`` matrices, the
    copy ``[B H, D, 208]`` dense, one 64 x 64 tile of V per program; a V whose heads do not nest is refused (why)."""
    import pytest

    pytest.importorskip("cuda.tile")
    from tileorch.launchers import k_major_copy as kc

    kernel, grid, (x, y, tr, tc) = kc.key_major16_plan(0x1000, (2, 3, 200, 64), (3 * 200 * 64, 200 * 64, 64, 1),
                                                       0x90000)
    from tileorch.launchers.k_major_copy_programs import key_major16_copy_3d

    assert kernel is key_major16_copy_3d
    assert grid == (4, 1, 6) and (tr, tc) == (64, 64)
    assert x.__cuda_array_interface__["shape"] == (6, 200, 64)
    assert y.__cuda_array_interface__["shape"] == (6, 64, 208)
    assert y.__cuda_array_interface__["strides"] == (64 * 208, 208, 1)
    kernel, grid, (x, y, tr, tc) = kc.key_major16_plan(0x1000, (130, 32), (32, 1), 0x90000)  # one matrix
    assert grid == (3, 1, 1) and x.__cuda_array_interface__["shape"] == (1, 130, 32)
    assert y.__cuda_array_interface__["shape"] == (1, 32, 144)
    why = kc.key_major16_plan(0x1000, (2, 3, 200, 64), (200 * 64, 2 * 200 * 64, 64, 1), 0x90000)
    assert why == "the batch dimensions are not one strided dimension"


def test_the_chained_copies_run_in_order_and_keep_their_buffers(monkeypatch):
    """``cutile._chained_before``: a padded copy's 2-D copies, then a key-major copy's function, each given the stream;
    the function keeps the buffers (the scratch a kept-bound launch writes) alive, also with the key-major copy alone."""
    from tileorch.launchers import cutile as rc

    ran = []
    monkeypatch.setattr(launch_copies, "run_2d", lambda copies, stream: ran.append(("2d", tuple(copies), stream)))
    bufs = [object(), object()]
    go = rc._chained_before([(1, 16, 2, 16, 8, 4), lambda h: ran.append(("v", h))], bufs)
    go(7)
    assert ran == [("2d", ((1, 16, 2, 16, 8, 4),), 7), ("v", 7)]
    alone = rc._chained_before([lambda h: ran.append(("v", h))], bufs[1:])
    assert bufs[1] in alone.__defaults__[1]
