"""Session 34's attention zoo (issue 20): GQA written as a loop over the query heads that share one K / V head,
in spellings the cover set's ``attn_gqa_heads_loop`` does not use -- what ``tileas-stack-query-heads`` takes (two
heads at a time as one chain of twice the rows, each K / V tile read once for the pair) and what it leaves as
written (each head its own chain instance, as before).

Stacked: four heads a KV head, causal (the query position column is the same for every head of the loop: stacked
on itself), ragged keys; 32-row query tiles (two heads: 64 rows); the heads loop with the group's first head
computed as ``G * kvh`` (the factor first).  Left as written: three heads a KV head (an odd group), 128-row tiles
(two heads would be 256 rows: four consumer warp groups).  A per-head ALiBi slope (the head index read by the
scores, computed or read from a slope table) is stacked too: the slope's ops run once per head of the pair, the two
results selected by row block.

Each entry is a :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (``path``: what the compiler
does with it; ``notes``: whether it is stacked, read by the tests through :data:`STACKED`); driven by
tests/unit/test_stack_query_heads.py and tests/gpu/test_attnzoo34_gpu.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

C = ct.Constant
ZERO = ct.PaddingMode.ZERO

STACKED: dict[str, int] = {}
"""Program name -> how many of its heads ``tileas-stack-query-heads`` runs as one chain where it stacks
(``TILEORCH_ATTN_STACK_HEADS=1``; 0: left as written)."""

AUTO_OFF = {"z34_gqa_g4_causal", "z34_gqa_g2_alibi", "z34_gqa_g2_alibi_table"}
"""The stackable programs the default (``auto``) leaves as written, with a remark: 64-row heads whose key loop's trip
count grows with the program id (causal; measured 0.95x stacked on the H100, session 34)."""


def _online(s, m_i, l_i, acc, v, dt):
    m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - m_new)
    alpha = ct.exp2(m_i - m_new)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    return m_new, l_i, ct.mma(p.astype(dt), v, acc * alpha)


@ct.kernel
def z34_gqa_heads_loop_causal(Q, K, V, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int], D: C[int]):
    """GQA, causal: program ``(qt, b * HKV + kvh)`` loops over the ``G`` query heads ``kvh G + g`` of ``Q / O
    [B, H, S, D]`` reading K / V head ``kvh`` of ``[B, HKV, S, D]``; keys up to the diagonal, ragged sequence."""
    qt, bh = ct.bid(0), ct.bid(1)
    hkv = K.shape[1]
    b, kvh = bh // hkv, bh % hkv
    seq = K.shape[2]
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    for g in range(G):
        q = ct.load(Q, index=(b, kvh * G + g, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
        m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
        l_i = ct.zeros((BM, 1), dtype=ct.float32)
        acc = ct.zeros((BM, D), dtype=ct.float32)
        for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
            k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
            s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
            s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
            v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
            m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
        ct.store(O, index=(b, kvh * G + g, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def z34_gqa_heads_loop_alibi(Q, K, V, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int], D: C[int]):
    """GQA with ALiBi: query head ``h = kvh G + g`` adds ``2^(-8 (h + 1) / H) (k - q)`` (log2 units) to its scores,
    causal; the head index is read by the scores, so the loop's heads differ beyond their Q tiles."""
    qt, bh = ct.bid(0), ct.bid(1)
    hkv = K.shape[1]
    nh = Q.shape[1]
    b, kvh = bh // hkv, bh % hkv
    seq = K.shape[2]
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    for g in range(G):
        h = kvh * G + g
        slope = ct.exp2(ct.full((1, 1), -8.0 * (h + 1) / nh, dtype=ct.float32))
        q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
        m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
        l_i = ct.zeros((BM, 1), dtype=ct.float32)
        acc = ct.zeros((BM, D), dtype=ct.float32)
        for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
            k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
            s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
            s = s + slope * (kpos - qpos).astype(ct.float32)
            s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
            v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
            m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
        ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def z34_gqa_heads_loop_alibi_table(Q, K, V, Slopes, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int],
                                   D: C[int]):
    """GQA with ALiBi slopes read from a table ``Slopes [H]`` (log2 units) at the query head ``h = kvh G + g``, causal;
    ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    hkv = K.shape[1]
    b, kvh = bh // hkv, bh % hkv
    seq = K.shape[2]
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    for g in range(G):
        h = kvh * G + g
        slope = ct.load(Slopes, index=(h,), shape=(1,)).reshape((1, 1))
        q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
        m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
        l_i = ct.zeros((BM, 1), dtype=ct.float32)
        acc = ct.zeros((BM, D), dtype=ct.float32)
        for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
            k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
            s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
            s = s + slope * (kpos - qpos).astype(ct.float32)
            s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
            v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
            m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
        ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def z34_gqa_heads_loop_plain(Q, K, V, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int], D: C[int]):
    """GQA without a mask, the group's first head written ``G * kvh`` (the factor first); full key tiles."""
    qt, bh = ct.bid(0), ct.bid(1)
    hkv = K.shape[1]
    b, kvh = bh // hkv, bh % hkv
    for g in range(G):
        q = ct.load(Q, index=(b, G * kvh + g, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
        m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
        l_i = ct.zeros((BM, 1), dtype=ct.float32)
        acc = ct.zeros((BM, D), dtype=ct.float32)
        for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
            k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
            s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
            m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
        ct.store(O, index=(b, G * kvh + g, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


F16 = "float16"
_S64 = 0.125 * LOG2E


def _gqa(h, hkv, sq, sk, d=64, dt=F16):
    return [((2, h, sq, d), dt), ((2, hkv, sk, d), dt), ((2, hkv, sk, d), dt), ((2, h, sq, d), dt)]


def _reg(name, kernel, spec, grid, stacked, notes):
    _add(name, kernel, spec, grid, "chained", outputs=(3,), notes=notes)
    STACKED[name] = stacked


_reg("z34_gqa_g4_causal", z34_gqa_heads_loop_causal, _gqa(8, 2, 150, 150) + [_S64, 4, 64, 64, 64], (3, 4), 2,
     "four heads a KV head, causal: two pairs of 128 rows (the loop over pairs becomes the instances), the query "
     "position column stacked on itself")
_reg("z34_gqa_g2_causal_bm32", z34_gqa_heads_loop_causal, _gqa(4, 2, 100, 100) + [_S64, 2, 32, 64, 64], (4, 4),
     2, "two heads of 32 rows: one chain of 64 rows (one consumer warp group), the loop replaced by its one pair")
_reg("z34_gqa_g2_plain_factor_first", z34_gqa_heads_loop_plain, _gqa(4, 2, 128, 192) + [_S64, 2, 64, 64, 64],
     (2, 4), 2, "the group's first head as G * kvh")
_reg("z34_gqa_g3_causal", z34_gqa_heads_loop_causal, _gqa(6, 2, 150, 150) + [_S64, 3, 64, 64, 64], (3, 4), 0,
     "an odd group: left as written (each head its own 64-row instance)")
_reg("z34_gqa_g2_causal_bm128", z34_gqa_heads_loop_causal, _gqa(4, 2, 200, 200) + [_S64, 2, 128, 64, 64], (2, 4),
     0, "128-row tiles: two heads would be 256 rows; left as written")
_reg("z34_gqa_g2_alibi", z34_gqa_heads_loop_alibi, _gqa(4, 2, 150, 150) + [_S64, 2, 64, 64, 64], (3, 4), 2,
     "the head index read by the scores (a per-head ALiBi slope): the slope's ops built once per head of the pair "
     "and selected by row block")
_reg("z34_gqa_g4_causal_bm32", z34_gqa_heads_loop_causal, _gqa(8, 2, 100, 100) + [_S64, 4, 32, 64, 64], (4, 4), 4,
     "four heads of 32 rows: one chain of 128 rows (four heads a chain), the loop replaced by its one group")
_reg("z34_gqa_g8_causal_bm16", z34_gqa_heads_loop_causal, _gqa(16, 2, 40, 40) + [_S64, 8, 16, 64, 64], (3, 4), 8,
     "eight heads of 16 rows (a short prefill chunk): one chain of 128 rows")
_add("z34_gqa_g2_alibi_table", z34_gqa_heads_loop_alibi_table,
     _gqa(4, 2, 150, 150)[:3] + [((4,), "float32"), ((2, 4, 150, 64), F16), _S64, 2, 64, 64, 64], (3, 4), "chained",
     outputs=(4,), notes="ALiBi slopes read from a table at the query head: the table's element read once per head of "
     "the pair, the two slopes selected by row block")
STACKED["z34_gqa_g2_alibi_table"] = 2
