"""User sweep 13's programs given non-contiguous arrays, as a user passes ``x[:, ::2]``, ``x.T`` or a
column slice of a wider tensor: the launcher describes each array with its own strides (cuTile's
specialisation: a last stride other than 1 is a different program), the PTX is compiled for those
strides and run CTA by CTA by ``tileorch.testing.ptx_emulator`` on numpy views of larger buffers
against numpy references; elements of the buffers outside the views must keep their fill (no
write past a view).  Views are made with numpy slicing and transposes, their pointer / shape /
strides passed as the launcher passes them (per array its pointer, shape, strides in elements).
The GPU runs the same views: tests/gpu/test_user_sweep13_gpu.py::test_strided_views_on_the_gpu."""

from __future__ import annotations

import struct

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from test_user_sweep10_emulated import H200_SMS, _params_of  # noqa: E402

from tileorch.testing import user_programs13 as up  # noqa: E402

RNG = np.random.default_rng(1314)


def _buffer(shape, dtype="float32", fill=np.nan):
    return np.full(shape, fill, dtype)


def spec_of(args: list) -> list:
    """The sweep's spec for ``args``: an array as ``(shape, dtype, strides in elements)``."""
    return [(a.shape, "bool_" if a.dtype == np.bool_ else a.dtype.name, tuple(s // a.itemsize for s in a.strides))
            if isinstance(a, np.ndarray) else a for a in args]


def emulate_views(kernel, name: str, args: list, grid: tuple):
    """Compile ``kernel`` for ``args`` (numpy views, each of a C-contiguous buffer, strides non-negative: 0 for a
    broadcast view;
    scalars and constants as they are) and run its PTX on every CTA of ``grid``; the views' buffers
    are written in place.  Returns the compiled program."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import FakeDeviceArray, cutile_bytecode
    from tileorch.testing.ptx_emulator import Emu

    spec = spec_of(args)
    prog = compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)
    assert prog.kind == "simt" and not prog.cluster_split, (name, prog.remarks)
    described = rc.describe_arguments(kernel, tuple(FakeDeviceArray(0x1000, s[0], s[2]) if isinstance(s, tuple) else s
                                                    for s in spec))
    memory, values, bases = [], [], {}
    for i, (a, d) in enumerate(zip(args, described)):
        if isinstance(d, rc.ConstantArg):
            continue
        if isinstance(a, np.ndarray):
            buf = a if a.base is None else a.base
            while buf.base is not None:
                buf = buf.base
            assert buf.flags.c_contiguous and all(s >= 0 for s in a.strides), name
            if id(buf) not in bases:
                bases[id(buf)] = (len(bases) + 1) << 32
                memory.append((bases[id(buf)], buf.reshape(-1).view(np.uint8), f"arg{i}"))
            offset = a.__array_interface__["data"][0] - buf.__array_interface__["data"][0]
            values += [bases[id(buf)] + offset, *a.shape, *[s // a.itemsize for s in a.strides]]
        else:
            values.append(a)
    grid = tuple(grid) + (1,) * (3 - len(grid))
    threads = prog.threads
    if prog.warp_programs:  # one warp per CTA, programs_per_warp programs each (as the launcher runs it)
        values.append(grid[0])
        threads = 32
        grid = (-(-grid[0] // prog.programs_per_warp), grid[1], grid[2])
    types = _params_of(prog.ptx)
    assert len(types) == len(values), (name, types, values)
    params = [struct.unpack("<I", struct.pack("<f", v))[0] if t == "f32" else int(v) & 0xFFFFFFFFFFFFFFFF
              for t, v in zip(types, values)]
    smem = int(getattr(prog, "smem", 0) or 0) or (1 << 16)
    assert H200_SMS  # (the SM count matters only to cluster-split kernels, refused above)
    for z in range(grid[2]):
        for y in range(grid[1]):
            for x in range(grid[0]):
                emu = Emu(prog.ptx, params, smem, threads, (x, y, z), {}, memory, nctaid=grid)
                emu.run()
                assert not emu.errors, (name, (x, y, z), emu.errors[:3])
    return prog


def test_the_strided_spec_is_a_different_program():
    """A last stride other than 1 is described as such (cuTile specialises on it): the program's name
    differs from the contiguous one's."""
    from tileorch.testing.export import described_arguments

    x = np.zeros((50, 400), np.float32)[:, ::2]
    plain = described_arguments(up.pair2d_axpby, [((50, 200), "float32")] * 3 + [2.0, -0.5, 16, 128])
    strided = described_arguments(up.pair2d_axpby, spec_of([x, x, x, 2.0, -0.5, 16, 128]))
    assert plain[0].strides == (200, 1) and strided[0].strides == (400, 2)


def test_axpby_of_a_column_strided_x_and_a_transposed_y():
    xb = RNG.standard_normal((50, 400)).astype(np.float32)
    yb = RNG.standard_normal((200, 50)).astype(np.float32)
    x, y = xb[:, ::2], yb.T  # strides (400, 2) and (1, 50)
    zb = _buffer((50, 200))
    emulate_views(up.pair2d_axpby, "axpby_strided", [x, y, zb, 2.0, -0.5, 16, 128], (4, 2))
    np.testing.assert_allclose(zb, 2.0 * x.astype(np.float64) - 0.5 * y, rtol=1e-6, atol=1e-6)


def test_row_softmax_between_padded_rows():
    """Rows of 300 inside rows of 512 (input) and columns 10..309 of rows of 320 (output): the
    columns outside the output view keep their NaN."""
    xb = RNG.standard_normal((6, 512)).astype(np.float32) * 3
    yb = _buffer((6, 320))
    x, y = xb[:, :300], yb[:, 10:310]
    emulate_views(up.pair2d_row_softmax, "softmax_strided", [x, y, 512], (6,))
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
    assert np.isnan(yb[:, :10]).all() and np.isnan(yb[:, 310:]).all()


def test_order_f_load_of_a_transposed_view_is_a_copy():
    base = RNG.standard_normal((50, 37)).astype(np.float32)
    yb = _buffer((50, 37))
    emulate_views(up.load_order_f_transpose, "order_f_of_transposed", [base.T, yb, 16, 32], (3, 2))
    np.testing.assert_array_equal(yb, base)


def test_gather_from_every_other_row():
    tb = RNG.standard_normal((40, 30)).astype(np.float32)
    t = tb[::2]  # (20, 30), strides (60, 1)
    r = RNG.integers(-2, 24, 16).astype(np.int32)
    c = RNG.integers(-2, 34, 32).astype(np.int32)
    yb = _buffer((16, 32))
    emulate_views(up.gather_2d_outer_indices_padding, "gather_every_other_row", [t, r, c, yb, 16, 32], (1,))
    ok = ((r >= 0) & (r < 20))[:, None] & ((c >= 0) & (c < 30))[None, :]
    want = np.where(ok, t[np.clip(r, 0, 19)[:, None], np.clip(c, 0, 29)[None, :]], np.float32(-7.0))
    np.testing.assert_array_equal(yb, want)


def test_column_sum_of_a_transposed_view():
    base = RNG.standard_normal((200, 30)).astype(np.float32)
    sb = _buffer(200)
    emulate_views(up.pair2d_column_sum, "colsum_of_transposed", [base.T, sb, 32, 64], (4,))
    np.testing.assert_allclose(sb, base.astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
