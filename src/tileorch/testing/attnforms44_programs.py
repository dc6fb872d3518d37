"""Session 44's attention forms (issue 20, "acceptance runs attention-shaped programs you will not see"): query rows
read with ``ct.gather`` by a row-index vector — MoE-style token routing into attention (the routed tokens' queries
gathered in expert order, the outputs written in that order for a later un-permute), varlen query packing — with
keys and values read by tile loads.  Hopper's TMA has no row gather: the chained kernel's consumer warp groups
read their query rows from global memory into the swizzled Q tile the WGMMA descriptors read
(``chained_dots._Kernel.q_gather``); outputs put back at the tokens' rows by one ``ct.scatter`` are stored element
by element at the scatter's addresses by the chained epilogue.  Each entry a :class:`tileorch.testing.user_programs.UserProgram` in
:data:`PROGRAMS`; references: :func:`reference`.  Scales in log2 units (``exp2``).  Driven by
tests/unit/test_attnforms44.py and tests/gpu/test_attnforms44_gpu.py.  Importing it needs ``cuda.tile``."""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
INF = math.inf


@ct.kernel
def a44_routed_q(Q, Idx, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Routed queries: the query tile's row ``r`` is ``Q[Idx[qt BM + r], h, :]`` (``Q [T, H, D]``, ``Idx [n]`` token
    ids; rows past ``n`` padded with 0), keys / values of head ``h`` by tile loads (``K, V [H, S, D]``, ragged),
    ``O [n, H, D]`` written in the routed order by tile stores; program ``(query tile, h)``, non-causal."""
    qt, h = ct.bid(0), ct.bid(1)
    n = Idx.shape[0]
    seq = K.shape[1]
    r = qt * BM + ct.arange(BM, dtype=ct.int32)
    rows = ct.gather(Idx, r)
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    q = ct.gather(Q, (rows[:, None], h, cols), mask=(r < n)[:, None], padding_value=0.0)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(h, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(kpos < seq, s, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(h, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((BM, 1, D)))


@ct.kernel
def a44_routed_q_scatter_o(Q, Idx, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """:func:`a44_routed_q` with the outputs written back to the tokens' own rows: ``O [T, H, D]`` row ``Idx[qt BM +
    r]`` by ``ct.scatter`` at the rows the queries were gathered from (rows past ``n`` masked off)."""
    qt, h = ct.bid(0), ct.bid(1)
    n = Idx.shape[0]
    seq = K.shape[1]
    r = qt * BM + ct.arange(BM, dtype=ct.int32)
    rows = ct.gather(Idx, r)
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    valid = (r < n)[:, None]
    q = ct.gather(Q, (rows[:, None], h, cols), mask=valid, padding_value=0.0)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(h, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(kpos < seq, s, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(h, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.scatter(O, (rows[:, None], h, cols), (acc / l_i).astype(O.dtype), mask=valid)


F16, BF16, I32 = "float16", "bfloat16", "int32"


def scale2(d):
    """``log2 e / sqrt(d)``: the scores' scale in log2 units for head dim ``d``."""
    return LOG2E / math.sqrt(d)


def _cd(a, b):
    return -(-a // b)


ROUTED = {"a44_routed_q_d64": (300, 150, 2, 170, 64, F16, 64),
          "a44_routed_q_d128_bm128": (300, 200, 2, 230, 128, F16, 128),
          "a44_routed_q_d64_bf16": (200, 100, 2, 130, 64, BF16, 64)}
"""name -> (tokens T, routed n, heads H, keys S, head dim, dtype, query tile rows)."""
for _n, (_t, _r, _h, _s, _d, _dt, _bm) in ROUTED.items():
    _add(_n, a44_routed_q, [((_t, _h, _d), _dt), ((_r,), I32), ((_h, _s, _d), _dt), ((_h, _s, _d), _dt),
                            ((_r, _h, _d), _dt), scale2(_d), _bm, 64, _d], (_cd(_r, _bm), _h), "chained",
         notes=f"queries routed by an index vector ({_r} of {_t} tokens), head dim {_d}, {_dt}, {_bm}-row tiles",
         outputs=(4,))


SCATTERED = {"a44_routed_q_scatter_o_d64": (300, 150, 2, 170, 64, F16, 64)}
"""name -> the :data:`ROUTED` fields of the programs writing O back to the tokens' rows (``O [T, H, D]``)."""
for _n, (_t, _r, _h, _s, _d, _dt, _bm) in SCATTERED.items():
    _add(_n, a44_routed_q_scatter_o, [((_t, _h, _d), _dt), ((_r,), I32), ((_h, _s, _d), _dt), ((_h, _s, _d), _dt),
                                      ((_t, _h, _d), _dt), scale2(_d), _bm, 64, _d], (_cd(_r, _bm), _h), "chained",
         notes=f"queries routed by an index vector ({_r} of {_t} tokens), O scattered back to their rows, head dim "
               f"{_d} (the chained epilogue stores each element at the scatter's address, under its mask)",
         outputs=(4,))


def inputs(name, make, to_device):
    """The arguments (arrays by ``make(shape, dtype)`` / an index permutation, through ``to_device``) of program
    ``name``, by position."""
    import numpy as np

    p = PROGRAMS[name]
    t, n = {**ROUTED, **SCATTERED}[name][:2]
    rng = np.random.default_rng(4400 + len(name))
    out = {}
    for i, s in enumerate(p.spec):
        if isinstance(s, tuple) and i == 1:
            out[i] = to_device(rng.permutation(t)[:n].astype(np.int32))
        elif isinstance(s, tuple) and i not in p.outputs:
            out[i] = to_device(make(*s))
    return out


def reference(name, x):
    """``{output position: float64 array}`` of program ``name`` on inputs ``x`` (numpy arrays): ``O``'s ``n`` routed
    rows (for :data:`SCATTERED`, rows ``Idx`` of ``O [T, H, D]``)."""
    import numpy as np

    p = PROGRAMS[name]
    scale = p.spec[5]
    q = np.asarray(x[0], np.float64)[np.asarray(x[1])]  # [n, H, D]
    k, v = np.asarray(x[2], np.float64), np.asarray(x[3], np.float64)  # [H, S, D]
    s = np.einsum("nhd,hsd->hns", q, k) * scale
    s = s - s.max(-1, keepdims=True)
    pr = np.exp2(s)
    o = np.einsum("hns,hsd->nhd", pr / pr.sum(-1, keepdims=True), v)
    return {4: o}
