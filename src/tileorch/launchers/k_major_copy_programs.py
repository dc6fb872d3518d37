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
