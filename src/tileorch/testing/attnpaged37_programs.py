"""Session 37's paged-KV and decode attention set (issue 20: "acceptance runs attention-shaped programs you will not
see"): the ways a user ports vLLM-style paged attention and decode attention to cuTile.

The cache is vLLM's ``[num_blocks, block_size, H_kv, D]`` (token-major pages) unless a docstring says otherwise; a
per-sequence block table ``Table[b, i]`` names the page holding keys ``i * block_size ..``; ``Lens[b]`` the
sequence's key count (the ragged last page masked).  Decode programs take the ``G`` query heads sharing one KV head
as the rows of the query tile (GQA rows: 16 / 32 / 64 rows); scores in log2 units (``qk_scale`` = the softmax scale
times log2 e), ``exp2``.

Forms (what varies): the page's index read with ``ct.gather`` or ``ct.load(..).item()``; the block size equal to the
key tile (one ``ct.load`` of a whole page), a multiple of it (``page = Table[b, j // R]``, the tile ``j % R`` of the
page), or a fraction of it (``BN / block_size`` pages a key tile: loaded page by page and joined with ``ct.cat``, or
gathered slot by slot with ``ct.gather`` and a per-row index tile, over the 4-D cache or a flat ``[slots, H, D]``
view); split-KV flash decoding (each program a key range, partial O and natural-log LSE out) with its combine
program; a chunked prefill (128-row query tiles, bottom-right causal) over 16-slot pages gathered slot by slot.

Each entry is a :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (``path``: what the compiler
does with it; ``error``: the located refusal's text); :func:`reference` gives the float64 result from the
docstrings.  Driven by tests/unit/test_attnpaged37_compile.py, tests/unit/test_attnpaged37_emulated.py,
tests/gpu/test_attnpaged37_gpu.py and benchmarks/session37_paged.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
LN2 = 0.6931471805599453


def _state(rows, d):
    return (ct.full((rows, 1), -math.inf, dtype=ct.float32), ct.zeros((rows, 1), dtype=ct.float32),
            ct.zeros((rows, d), dtype=ct.float32))


def _step(q, k, v, m_i, l_i, acc, valid, qk_scale, dt):
    """One online-softmax step over key tile ``k`` / ``v`` (``[BN, D]``), keys where ``valid`` is false masked."""
    s = ct.mma(q, ct.transpose(k), ct.zeros((q.shape[0], k.shape[0]), dtype=ct.float32)) * qk_scale
    s = ct.where(valid, s, -math.inf)
    m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - m_new)
    alpha = ct.exp2(m_i - m_new)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    return m_new, l_i, ct.mma(p.astype(dt), v, acc * alpha)


def _kpos(j, BN):
    return j * BN + ct.arange(BN, dtype=ct.int32)


def _q_rows(Q, b, g, G, D):
    """The ``G`` query heads of KV head ``g`` of sequence ``b`` (``Q`` is ``[B, H_q, D]``) as a ``[G, D]`` tile."""
    return ct.load(Q, index=(b, g, 0), shape=(1, G, D)).reshape((G, D))


def _store_rows(O, b, g, G, D, o):
    ct.store(O, index=(b, g, 0), tile=o.astype(O.dtype).reshape((1, G, D)))


# ----------------------------------------------------------------------------------------------- block size == key tile


@ct.kernel
def p37_decode_page_gather(Q, Kc, Vc, Table, Lens, O, qk_scale: float, G: C[int], BN: C[int], D: C[int]):
    """Decode, one page a key tile: program ``(g, b)``; the page of key tile ``j`` is ``ct.gather(Table, (b, j))``
    and its ``[BN, D]`` rows of KV head ``g`` one ``ct.load`` of ``Kc[page, :, g, :]``."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, b)
    q = _q_rows(Q, b, g, G, D)
    m_i, l_i, acc = _state(G, D)
    for j in range(ct.cdiv(n, BN)):
        page = ct.gather(Table, (b, j))
        k = ct.load(Kc, index=(page, 0, g, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        v = ct.load(Vc, index=(page, 0, g, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, (_kpos(j, BN) < n)[None, :], qk_scale, Vc.dtype)
    _store_rows(O, b, g, G, D, acc / l_i)


@ct.kernel
def p37_decode_page_item(Q, Kc, Vc, Table, Lens, O, qk_scale: float, G: C[int], BN: C[int], D: C[int]):
    """As :func:`p37_decode_page_gather`, the page and the length read with ``ct.load(.., shape=(1, 1)).item()``
    (a length-1 load made a scalar)."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.load(Lens, index=(b,), shape=(1,)).item()
    q = _q_rows(Q, b, g, G, D)
    m_i, l_i, acc = _state(G, D)
    for j in range(ct.cdiv(n, BN)):
        page = ct.load(Table, index=(b, j), shape=(1, 1)).item()
        k = ct.load(Kc, index=(page, 0, g, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        v = ct.load(Vc, index=(page, 0, g, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, (_kpos(j, BN) < n)[None, :], qk_scale, Vc.dtype)
    _store_rows(O, b, g, G, D, acc / l_i)


@ct.kernel
def p37_decode_page_hmajor(Q, Kc, Vc, Table, Lens, O, qk_scale: float, G: C[int], BN: C[int], D: C[int]):
    """Head-major pages ``[num_blocks, H_kv, BN, D]`` (a page's rows of one head contiguous), page from
    ``ct.gather``."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, b)
    q = _q_rows(Q, b, g, G, D)
    m_i, l_i, acc = _state(G, D)
    for j in range(ct.cdiv(n, BN)):
        page = ct.gather(Table, (b, j))
        k = ct.load(Kc, index=(page, g, 0, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        v = ct.load(Vc, index=(page, g, 0, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, (_kpos(j, BN) < n)[None, :], qk_scale, Vc.dtype)
    _store_rows(O, b, g, G, D, acc / l_i)


# ------------------------------------------------------------------------------------------ block size == R key tiles


@ct.kernel
def p37_decode_page_of_tiles(Q, Kc, Vc, Table, Lens, O, qk_scale: float, G: C[int], BN: C[int], D: C[int],
                             R: C[int]):
    """A page of ``R BN`` slots: key tile ``j`` is tile ``j % R`` of page ``Table[b, j // R]``."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, b)
    q = _q_rows(Q, b, g, G, D)
    m_i, l_i, acc = _state(G, D)
    for j in range(ct.cdiv(n, BN)):
        page = ct.gather(Table, (b, j // R))
        k = ct.load(Kc, index=(page, j % R, g, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        v = ct.load(Vc, index=(page, j % R, g, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, (_kpos(j, BN) < n)[None, :], qk_scale, Vc.dtype)
    _store_rows(O, b, g, G, D, acc / l_i)


@ct.kernel
def p37_decode_page_inner_loop(Q, Kc, Vc, Table, Lens, O, qk_scale: float, G: C[int], BN: C[int], D: C[int],
                               R: C[int]):
    """A page of ``R BN`` slots walked by two loops: pages outside, the page's ``R`` key tiles inside (the page's
    index read once per page)."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, b)
    q = _q_rows(Q, b, g, G, D)
    m_i, l_i, acc = _state(G, D)
    for i in range(ct.cdiv(n, R * BN)):
        page = ct.gather(Table, (b, i))
        for t in range(R):
            k = ct.load(Kc, index=(page, t, g, 0), shape=(1, BN, 1, D)).reshape((BN, D))
            v = ct.load(Vc, index=(page, t, g, 0), shape=(1, BN, 1, D)).reshape((BN, D))
            valid = (_kpos(i * R + t, BN) < n)[None, :]
            m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, valid, qk_scale, Vc.dtype)
    _store_rows(O, b, g, G, D, acc / l_i)


# ----------------------------------------------------------------------------------------------- block size < key tile


@ct.kernel
def p37_decode_pages_cat(Q, Kc, Vc, Table, Lens, O, qk_scale: float, G: C[int], BS: C[int], D: C[int]):
    """``BS``-slot pages, a key tile of two pages: each page loaded whole and the two joined with
    ``ct.cat`` (key tile ``2 BS``)."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, b)
    q = _q_rows(Q, b, g, G, D)
    m_i, l_i, acc = _state(G, D)
    for j in range(ct.cdiv(n, 2 * BS)):
        p0 = ct.gather(Table, (b, 2 * j))
        p1 = ct.gather(Table, (b, 2 * j + 1))
        k0 = ct.load(Kc, index=(p0, 0, g, 0), shape=(1, BS, 1, D)).reshape((BS, D))
        k1 = ct.load(Kc, index=(p1, 0, g, 0), shape=(1, BS, 1, D)).reshape((BS, D))
        v0 = ct.load(Vc, index=(p0, 0, g, 0), shape=(1, BS, 1, D)).reshape((BS, D))
        v1 = ct.load(Vc, index=(p1, 0, g, 0), shape=(1, BS, 1, D)).reshape((BS, D))
        k = ct.cat((k0, k1), axis=0)
        v = ct.cat((v0, v1), axis=0)
        m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, (_kpos(j, 2 * BS) < n)[None, :], qk_scale, Vc.dtype)
    _store_rows(O, b, g, G, D, acc / l_i)


@ct.kernel
def p37_decode_slot_gather(Q, Kc, Vc, Table, Lens, O, qk_scale: float, G: C[int], BS: C[int], BN: C[int],
                           D: C[int]):
    """``BS``-slot pages, ``BN``-key tiles gathered slot by slot: key ``t`` is slot ``t % BS`` of page
    ``Table[b, t // BS]`` (the pages a ``[BN]`` gather of the table), the tile ``ct.gather(Kc, (page[:, None],
    slot[:, None], g, arange(D)[None, :]))``."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, b)
    q = _q_rows(Q, b, g, G, D)
    m_i, l_i, acc = _state(G, D)
    d = ct.arange(D, dtype=ct.int32)[None, :]
    for j in range(ct.cdiv(n, BN)):
        t = _kpos(j, BN)
        page = ct.gather(Table, (b, t // BS))[:, None]
        slot = (t % BS)[:, None]
        k = ct.gather(Kc, (page, slot, g, d))
        v = ct.gather(Vc, (page, slot, g, d))
        m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, (t < n)[None, :], qk_scale, Vc.dtype)
    _store_rows(O, b, g, G, D, acc / l_i)


@ct.kernel
def p37_decode_slot_gather_unchecked(Q, Kc, Vc, Table, Lens, O, qk_scale: float, G: C[int], BS: C[int], BN: C[int],
                                     D: C[int]):
    """:func:`p37_decode_slot_gather` with ``check_bounds=False`` on the cache's gathers (Triton-style unchecked
    loads: every index in bounds by construction)."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, b)
    q = _q_rows(Q, b, g, G, D)
    m_i, l_i, acc = _state(G, D)
    d = ct.arange(D, dtype=ct.int32)[None, :]
    for j in range(ct.cdiv(n, BN)):
        t = _kpos(j, BN)
        page = ct.gather(Table, (b, t // BS))[:, None]
        slot = (t % BS)[:, None]
        k = ct.gather(Kc, (page, slot, g, d), check_bounds=False)
        v = ct.gather(Vc, (page, slot, g, d), check_bounds=False)
        m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, (t < n)[None, :], qk_scale, Vc.dtype)
    _store_rows(O, b, g, G, D, acc / l_i)


@ct.kernel
def p37_decode_slot_gather_flat(Q, Kf, Vf, Table, Lens, O, qk_scale: float, G: C[int], BS: C[int], BN: C[int],
                                D: C[int]):
    """The cache as a flat ``[slots, H_kv, D]`` array (``num_blocks * BS`` slots): key ``t``'s row is
    ``Table[b, t // BS] * BS + t % BS``, gathered row by row."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, b)
    q = _q_rows(Q, b, g, G, D)
    m_i, l_i, acc = _state(G, D)
    d = ct.arange(D, dtype=ct.int32)[None, :]
    for j in range(ct.cdiv(n, BN)):
        t = _kpos(j, BN)
        row = (ct.gather(Table, (b, t // BS)) * BS + t % BS)[:, None]
        k = ct.gather(Kf, (row, g, d))
        v = ct.gather(Vf, (row, g, d))
        m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, (t < n)[None, :], qk_scale, Vf.dtype)
    _store_rows(O, b, g, G, D, acc / l_i)


@ct.kernel
def p37_prefill_slot_gather_causal(Q, Kc, Vc, Table, O, qk_scale: float, ctx: int, BM: C[int], BS: C[int],
                                   BN: C[int], D: C[int]):
    """Chunked prefill over ``BS``-slot pages: program ``(qt, h, b)``, the chunk's queries ``Q[b, h]`` at
    positions ``ctx ..`` of the sequence (bottom-right causal), keys gathered slot by slot as in
    :func:`p37_decode_slot_gather`."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (ctx + qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    d = ct.arange(D, dtype=ct.int32)[None, :]
    for j in range(ct.cdiv(ctx + (qt + 1) * BM, BN)):
        t = _kpos(j, BN)
        page = ct.gather(Table, (b, t // BS))[:, None]
        slot = (t % BS)[:, None]
        k = ct.gather(Kc, (page, slot, h, d))
        v = ct.gather(Vc, (page, slot, h, d))
        m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, t[None, :] <= qpos, qk_scale, Vc.dtype)
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


# ----------------------------------------------------------------------------------------------- split-KV


@ct.kernel
def p37_split_kv_paged(Q, Kc, Vc, Table, Lens, OP, LP, qk_scale: float, tiles_per_split: int, G: C[int],
                       BN: C[int], D: C[int]):
    """Flash decoding over the paged cache: program ``(split, g, b)`` runs key tiles ``[split tps, min((split + 1)
    tps, cdiv(n, BN)))`` (one page a tile) and stores its normalised partial ``O`` (f32, ``OP[b, g, split]``) and
    natural-log LSE ``m ln 2 + ln l`` (``LP[b, g, split]``); a split without keys stores NaN rows and ``-inf``."""
    sp, g, b = ct.bid(0), ct.bid(1), ct.bid(2)
    n = ct.gather(Lens, b)
    q = _q_rows(Q, b, g, G, D)
    m_i, l_i, acc = _state(G, D)
    lo = sp * tiles_per_split
    hi = min(lo + tiles_per_split, ct.cdiv(n, BN))
    for j in range(lo, hi):
        page = ct.gather(Table, (b, j))
        k = ct.load(Kc, index=(page, 0, g, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        v = ct.load(Vc, index=(page, 0, g, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        m_i, l_i, acc = _step(q, k, v, m_i, l_i, acc, (_kpos(j, BN) < n)[None, :], qk_scale, Vc.dtype)
    ct.store(OP, index=(b, g, sp, 0, 0), tile=(acc / l_i).reshape((1, 1, 1, G, D)))
    ct.store(LP, index=(b, g, sp, 0), tile=(m_i * LN2 + ct.log(l_i)).reshape((1, 1, 1, G)))


@ct.kernel
def p37_split_kv_combine(OP, LP, O, NS: C[int], G: C[int], D: C[int]):
    """The combine program: ``O = sum_s w_s O_s``, ``w_s = exp(lse_s - max) / sum exp(..)`` per row; splits with
    ``-inf`` weigh 0 (their NaN partials never read)."""
    g, b = ct.bid(0), ct.bid(1)
    lse = ct.load(LP, index=(b, g, 0, 0), shape=(1, 1, NS, G)).reshape((NS, G))
    mx = ct.max(lse, axis=0, keepdims=True)
    w = ct.exp(lse - mx)
    w = w / ct.sum(w, axis=0, keepdims=True)
    o = ct.zeros((G, D), dtype=ct.float32)
    for s in range(NS):
        part = ct.load(OP, index=(b, g, s, 0, 0), shape=(1, 1, 1, G, D)).reshape((G, D))
        ws = ct.extract(w, index=(s, 0), shape=(1, G)).reshape((G, 1))
        o = o + ct.where(ws > 0.0, part * ws, 0.0)
    _store_rows(O, b, g, G, D, o)


# ----------------------------------------------------------------------------------------------- the table

F16, BF16, F32, I32 = "float16", "bfloat16", "float32", "int32"
B, NB = 2, 24
"""Sequences and cache pages of every program's spec (the table's pages a permutation of the pool)."""


SLOT_GATHER = ("found by this set: refused as 'this dot operand is gathered' (Hopper's TMA has no row gather); "
               "tileas-paged-gather proves the tile is BN / BS whole pages and loads them page by page (TMA), "
               "joined by cat")


def _decode_spec(hkv, g, d, bs, slots, out=F16, dt=F16, hmajor=False, flat=False):
    cache = (NB * bs, hkv, d) if flat else (NB, hkv, bs, d) if hmajor else (NB, bs, hkv, d)
    return [((B, hkv * g, d), dt), (cache, dt), (cache, dt), ((B, slots // bs), I32), ((B,), I32),
            ((B, hkv * g, d), out), LOG2E / math.sqrt(d)]


_add("p37_decode_page_gather_g16_d128", p37_decode_page_gather, _decode_spec(2, 16, 128, 64, 640) + [16, 64, 128],
     (2, B), "chained", outputs=(5,))
_add("p37_decode_page_gather_g32_d64", p37_decode_page_gather, _decode_spec(2, 32, 64, 64, 640) + [32, 64, 64],
     (2, B), "chained", outputs=(5,))
_add("p37_decode_page_gather_g64_bn128", p37_decode_page_gather,
     _decode_spec(1, 64, 128, 128, 1024) + [64, 128, 128], (1, B), "chained", outputs=(5,))
_add("p37_decode_page_gather_g8", p37_decode_page_gather, _decode_spec(2, 8, 128, 64, 640) + [8, 64, 128],
     (2, B), "chained", outputs=(5,))
_add("p37_decode_page_gather_bs16", p37_decode_page_gather, _decode_spec(2, 16, 128, 16, 384) + [16, 16, 128],
     (2, B), "chained", outputs=(5,))
_add("p37_decode_page_item_g16_bf16", p37_decode_page_item,
     _decode_spec(2, 16, 128, 64, 640, BF16, BF16) + [16, 64, 128], (2, B), "chained", outputs=(5,))
_add("p37_decode_page_hmajor_g32", p37_decode_page_hmajor,
     _decode_spec(2, 32, 128, 64, 640, hmajor=True) + [32, 64, 128], (2, B), "chained", outputs=(5,))
_add("p37_decode_page_of_tiles_r2", p37_decode_page_of_tiles,
     _decode_spec(2, 16, 128, 128, 1280) + [16, 64, 128, 2], (2, B), "chained", outputs=(5,))
_add("p37_decode_page_inner_loop_r2", p37_decode_page_inner_loop,
     _decode_spec(2, 16, 128, 128, 1280) + [16, 64, 128, 2], (2, B), "chained", outputs=(5,),
     notes="found by this set: refused as 'this loop carries on the result of a K loop nested in it' (the page "
           "number read between the two loops); tileas-flatten-nested-k-loops now repeats such a read at every "
           "step of the flattened loop when the loops write no memory")
_add("p37_decode_pages_cat_bs32", p37_decode_pages_cat, _decode_spec(2, 16, 128, 32, 640) + [16, 32, 128],
     (2, B), "chained", outputs=(5,),
     notes="found by this set: refused as 'computed from its tile by nv_tileaa.cat, which depends on the element's "
           "position'; the chained kernel now loads a tile of row blocks joined by ct.cat as one TMA box per block, "
           "each at its own (table-read) coordinate, into the one operand tile's rows")
_add("p37_decode_slot_gather_bs16", p37_decode_slot_gather,
     _decode_spec(2, 16, 128, 16, 640) + [16, 16, 64, 128], (2, B), "chained", outputs=(5,), notes=SLOT_GATHER)
_add("p37_decode_slot_gather_bs32_g64", p37_decode_slot_gather,
     _decode_spec(1, 64, 64, 32, 640) + [64, 32, 128, 64], (1, B), "chained", outputs=(5,), notes=SLOT_GATHER)
_add("p37_decode_slot_gather_unchecked_bs16", p37_decode_slot_gather_unchecked,
     _decode_spec(2, 16, 128, 16, 640) + [16, 16, 64, 128], (2, B), "chained", outputs=(5,), notes=SLOT_GATHER)
_add("p37_decode_slot_gather_flat_bs16", p37_decode_slot_gather_flat,
     _decode_spec(2, 16, 128, 16, 640, flat=True) + [16, 16, 64, 128], (2, B), "chained", outputs=(5,),
     notes=SLOT_GATHER)
_add("p37_prefill_slot_gather_causal_bs16", p37_prefill_slot_gather_causal,
     [((B, 2, 192, 128), F16), ((NB, 16, 2, 128), F16), ((NB, 16, 2, 128), F16), ((B, 24), I32),
      ((B, 2, 192, 128), F16), LOG2E / math.sqrt(128), 128, 128, 16, 64, 128], (2, 2, B), "chained", notes=SLOT_GATHER,
     outputs=(4,))
_add("p37_split_kv_paged", p37_split_kv_paged,
     [((B, 32, 128), F16), ((NB, 64, 2, 128), F16), ((NB, 64, 2, 128), F16), ((B, 10), I32), ((B,), I32),
      ((B, 2, 4, 16, 128), F32), ((B, 2, 4, 16), F32), LOG2E / math.sqrt(128), 3, 16, 64, 128], (4, 2, B),
     "chained", outputs=(5, 6))
_add("p37_split_kv_combine", p37_split_kv_combine,
     [((B, 2, 4, 16, 128), F32), ((B, 2, 4, 16), F32), ((B, 32, 128), F16), 4, 16, 128], (2, B), "simt",
     outputs=(2,))
