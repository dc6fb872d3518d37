"""The cuTile programs of the launcher's K-major copy (:mod:`tileorch.launchers.k_major_copy`): ``y`` the
transpose of ``x`` per matrix, one ``tr x tc`` tile of ``x`` per program (the SIMT path compiles them).
Importing this module needs ``cuda.tile``; the launcher imports it at the first copy only."""

import cuda.tile as ct


@ct.kernel
def k_major_copy_2d(x, y, tr: ct.Constant[int], tc: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    ct.store(y, index=(j, i), tile=ct.transpose(ct.load(x, index=(i, j), shape=(tr, tc))))


@ct.kernel
def k_major_copy_3d(x, y, tr: ct.Constant[int], tc: ct.Constant[int]):
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    t = ct.load(x, index=(b, i, j), shape=(1, tr, tc))
    ct.store(y, index=(b, j, i), tile=ct.permute(t, (0, 2, 1)))


@ct.kernel
def key_major16_copy_3d(x, y, tr: ct.Constant[int], tc: ct.Constant[int]):
    """``y [L, C, R16]`` from ``x [L, R, C]`` (session 45: an fp8 P @ V's V, R the keys): each 16 rows of ``x``
    permuted (row ``16 b + 8 i1 + 2 t + i0`` to column ``16 b + 4 t + 2 i1 + i0`` of ``y``: the fp8 register-A
    fragment's key order, ``launch_copies.key_major16``), then transposed; zeros past R."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    t = ct.load(x, index=(b, i, j), shape=(1, tr, tc), padding_mode=ct.PaddingMode.ZERO)
    t = ct.permute(t.reshape((tr // 16, 2, 4, 2, tc)), (4, 0, 2, 1, 3))
    ct.store(y, index=(b, j, i), tile=t.reshape((1, tc, tr)))
