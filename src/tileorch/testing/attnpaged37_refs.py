"""Inputs and float64 numpy references of session 37's paged / decode set (:mod:`tileorch.testing.
attnpaged37_programs`), written from the programs' docstrings, shared by the PTX emulator's test (numpy inputs) and
the GPU test (torch inputs, compared after a copy to numpy).

:func:`inputs` builds a program's arrays with ``make(shape, dtype_name)`` (a random array of the backend) and its
integer arrays with ``ints(numpy array)``: a block table of random pool pages (pages repeat across sequences: a
shared prefix's pages, as vLLM's prefix caching leaves them), sequence lengths that end inside a page (one of them a
third of the table); outputs are the caller's (NaN-prefilled).  :func:`reference` takes the inputs as numpy arrays
and returns {output position: float64 array}; :func:`gathered_kv` is the contiguous K / V a sequence's table names
(the SDPA baseline's input too).  Importing it needs ``cuda.tile``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tileorch.testing import attnpaged37_programs as P
from tileorch.testing.attnpaged37_programs import PROGRAMS
from tileorch.testing.user_programs import LOG2E

_DECODE = (P.p37_decode_page_gather, P.p37_decode_page_item, P.p37_decode_page_hmajor, P.p37_decode_page_of_tiles,
           P.p37_decode_page_inner_loop, P.p37_decode_pages_cat, P.p37_decode_slot_gather,
           P.p37_decode_slot_gather_flat, P.p37_decode_slot_gather_unchecked)


def _layout(name: str) -> str:
    k = PROGRAMS[name].kernel
    return "hmajor" if k is P.p37_decode_page_hmajor else "flat" if k is P.p37_decode_slot_gather_flat else "vllm"


def block_size(name: str) -> int:
    """Slots a page of program ``name``'s cache holds."""
    p = PROGRAMS[name]
    shape = p.spec[1][0]
    return {"hmajor": shape[2], "flat": p.spec[-3], "vllm": shape[1]}[_layout(name)]


def inputs(name: str, make: Callable, ints: Callable, seed: int = 37) -> dict:
    """Argument position -> input array of program ``name`` (every array it reads)."""
    p = PROGRAMS[name]
    rng = np.random.default_rng(seed)
    if p.kernel is P.p37_split_kv_combine:
        (b, h, ns, g, d), _ = p.spec[0]
        lse = rng.standard_normal((b, h, ns, g)).astype(np.float32) * 2
        lse[0, :, -1] = -np.inf  # a split without keys
        return {0: make((b, h, ns, g, d), "float32"), 1: ints(lse)}
    x = {0: make(*p.spec[0]), 1: make(*p.spec[1]), 2: make(*p.spec[2])}
    (nseq, width), _ = p.spec[3]
    pool = p.spec[1][0][0] // (block_size(name) if _layout(name) == "flat" else 1)
    x[3] = ints(rng.integers(0, pool, (nseq, width)).astype(np.int32))
    if p.kernel is not P.p37_prefill_slot_gather_causal:
        slots = width * block_size(name)
        x[4] = ints(np.array([slots - 37, slots // 3 + 5][:nseq], np.int32))
    return x


def gathered_kv(name: str, x: dict, b: int, h: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys and values ``[n, D]`` (float64) of KV head ``h`` of sequence ``b``: slot ``t`` is slot ``t % bs`` of page
    ``Table[b, t // bs]``."""
    bs, table = block_size(name), np.asarray(x[3])
    t = np.arange(n)
    page, slot = table[b, t // bs], t % bs
    out = []
    for a in (np.asarray(x[1], np.float64), np.asarray(x[2], np.float64)):
        lay = _layout(name)
        out.append(a[page * bs + slot, h] if lay == "flat" else a[page, h, slot] if lay == "hmajor"
                   else a[page, slot, h])
    return out[0], out[1]


def _attend(q, k, v, scale, mask=None):
    s = q @ k.T * scale
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    m = s.max(axis=1, keepdims=True)
    p = np.exp(s - m)
    l_ = p.sum(axis=1, keepdims=True)
    return p @ v / l_, (m + np.log(l_))[:, 0]


def reference(name: str, x: dict) -> dict:
    """{output position: float64 result} of program ``name`` on inputs ``x`` (from its docstring)."""
    p = PROGRAMS[name]
    f = {k: np.asarray(v, np.float64) if np.asarray(v).dtype.kind == "f" else np.asarray(v) for k, v in x.items()}
    if p.kernel is P.p37_split_kv_combine:
        op, lp = f[0], f[1]
        w = np.exp(lp - lp.max(axis=2, keepdims=True))
        w = w / w.sum(axis=2, keepdims=True)
        o = (np.where(w[..., None] > 0, op, 0.0) * w[..., None]).sum(axis=2)  # [b, h, g, d]
        b, h, g, d = o.shape
        return {2: o.reshape(b, h * g, d)}
    nar = sum(isinstance(s, tuple) for s in p.spec)
    scale = p.spec[nar] / LOG2E  # the natural softmax scale (the kernels take it in log2 units)
    q = f[0]
    if p.kernel is P.p37_prefill_slot_gather_causal:
        ctx = p.spec[nar + 1]
        nb, nh, sq, d = q.shape
        out = np.zeros_like(q)
        for b in range(nb):
            for h in range(nh):
                k, v = gathered_kv(name, x, b, h, ctx + sq)
                qpos = ctx + np.arange(sq)[:, None]
                out[b, h] = _attend(q[b, h], k, v, scale, np.arange(ctx + sq)[None, :] <= qpos)[0]
        return {4: out}
    lens = f[4]
    nb, hq, d = q.shape
    hkv = p.spec[1][0][1] if _layout(name) != "vllm" else p.spec[1][0][2]
    G = hq // hkv
    if p.kernel is P.p37_split_kv_paged:
        tps, bn = p.spec[nar + 1], p.spec[nar + 3]
        _, _, ns, _, _ = p.spec[5][0]
        op = np.full(p.spec[5][0], np.nan)
        lp = np.full(p.spec[6][0], -np.inf)
        for b in range(nb):
            k_all, v_all = zip(*(gathered_kv(name, x, b, h, int(lens[b])) for h in range(hkv)))
            for sp in range(ns):
                lo, hi = sp * tps * bn, min((sp + 1) * tps * bn, int(lens[b]))
                if lo >= hi:
                    continue
                for h in range(hkv):
                    o, lse = _attend(q[b, h * G:(h + 1) * G], k_all[h][lo:hi], v_all[h][lo:hi], scale)
                    op[b, h, sp], lp[b, h, sp] = o, lse
        return {5: op, 6: lp}
    assert p.kernel in _DECODE, name
    out = np.zeros_like(q)
    for b in range(nb):
        for h in range(hkv):
            k, v = gathered_kv(name, x, b, h, int(lens[b]))
            out[b, h * G:(h + 1) * G] = _attend(q[b, h * G:(h + 1) * G], k, v, scale)[0]
    return {5: out}


__all__ = ["block_size", "gathered_kv", "inputs", "reference"]
