"""The ablations of ``zoo_softcap_lens_lse_bf16_d128`` (``tileorch.testing.attnzoo30_programs``) that
benchmarks/session31_softcap.py times beside it: the same arguments, one feature less each (the soft cap, the
key lengths, the LSE, all three), and the soft cap with ``tanh``'s ``rounding_mode=APPROX``."""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.attnzoo30_programs import _online_exp, _state

C = ct.Constant
ZERO = ct.PaddingMode.ZERO


@ct.kernel
def s31_no_cap(Q, K, V, Lens, O, LSE, sm_scale: float, cap: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """The zoo program without the soft cap."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, bh // H)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(n, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log(l_i)).reshape((1, BM)))


@ct.kernel
def s31_no_lens(Q, K, V, Lens, O, LSE, sm_scale: float, cap: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """The zoo program without the key lengths (the loop over ``K``'s tiles, no mask)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.tanh(s / cap) * cap
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log(l_i)).reshape((1, BM)))


@ct.kernel
def s31_no_lse(Q, K, V, Lens, O, LSE, sm_scale: float, cap: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """The zoo program without the LSE store."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, bh // H)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(n, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.tanh(s / cap) * cap
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s31_plain_exp(Q, K, V, Lens, O, LSE, sm_scale: float, cap: float, H: C[int], BM: C[int], BN: C[int],
                  D: C[int]):
    """None of the three: the online softmax in natural ``exp`` over ``K``'s tiles, O only."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s31_tanh_approx(Q, K, V, Lens, O, LSE, sm_scale: float, cap: float, H: C[int], BM: C[int], BN: C[int],
                    D: C[int]):
    """The zoo program with ``ct.tanh(..., rounding_mode=APPROX)`` (``tanh.approx.f32``, about 2^-11 relative)."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, bh // H)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(n, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.tanh(s / cap, rounding_mode=ct.RoundingMode.APPROX) * cap
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log(l_i)).reshape((1, BM)))
