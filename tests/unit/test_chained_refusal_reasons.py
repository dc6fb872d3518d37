"""Chained-dots refusals that no other test reaches, each on a FlashAttention-shaped cuTile program
that differs from the textbook one (tileorch.testing.attention_programs.attention_fwd) in one place:
the program compiles on the SIMT path and the warning names the reason at the user's line (the
line of the construct the tier does not take).  Needs cuda-tile."""

from __future__ import annotations

import importlib.util
import inspect
import math

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

if HAVE_CUTILE:
    import cuda.tile as ct

    @ct.kernel
    def attn_branch_loads_a_bias(Q, K, V, B, O, qk_scale: float, seq_len: int, TILE_M: ct.Constant[int],
                                 TILE_N: ct.Constant[int], D: ct.Constant[int]):
        """The first key tile adds a bias tile loaded inside a branch of the loop."""
        bm, bh = ct.bid(0), ct.bid(1)
        q = ct.reshape(ct.load(Q, index=(bh, bm, 0), shape=(1, TILE_M, D)), (TILE_M, D))
        m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
        l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
        acc = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
        for j in range(ct.cdiv(seq_len, TILE_N)):
            k = ct.reshape(ct.load(K, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
            s = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32))
            if j == 0:  # REFUSED HERE
                s = s + ct.reshape(ct.load(B, index=(bh, bm, 0), shape=(1, TILE_M, TILE_N)),
                                   (TILE_M, TILE_N)).astype(ct.float32)
            m_ij = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True) * qk_scale)
            p = ct.exp2(s * qk_scale - m_ij)
            alpha = ct.exp2(m_i - m_ij)
            l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
            v = ct.reshape(ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
            acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
            m_i = m_ij
        ct.store(O, index=(bh, bm, 0), tile=ct.reshape((acc / l_i).astype(O.dtype), (1, TILE_M, D)))

    @ct.kernel
    def attn_bf16_values_f16_keys(Q, K, V, O, qk_scale: float, seq_len: int, TILE_M: ct.Constant[int],
                                  TILE_N: ct.Constant[int], D: ct.Constant[int]):
        """Q and K f16, V bf16: P rounded to V's type, so the two dots multiply different types."""
        bm, bh = ct.bid(0), ct.bid(1)
        q = ct.reshape(ct.load(Q, index=(bh, bm, 0), shape=(1, TILE_M, D)), (TILE_M, D))
        m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
        l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
        acc = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
        for j in range(ct.cdiv(seq_len, TILE_N)):
            k = ct.reshape(ct.load(K, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
            s = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32))
            m_ij = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True) * qk_scale)
            p = ct.exp2(s * qk_scale - m_ij)
            alpha = ct.exp2(m_i - m_ij)
            l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
            v = ct.reshape(ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
            acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
            m_i = m_ij
        ct.store(O, index=(bh, bm, 0), tile=ct.reshape((acc / l_i).astype(O.dtype), (1, TILE_M, D)))


def _line(kernel, marker: str) -> int:
    lines, first = inspect.getsourcelines(kernel._pyfunc if hasattr(kernel, "_pyfunc") else kernel)
    return first + next(i for i, text in enumerate(lines) if marker in text)


def _warnings(kernel, spec: list) -> tuple[str, list[str]]:
    """The kind the driver chose and the tier's refusals: the lowering only (``lower_once``: the SIMT fallback's
    back end, most of the compile, makes no refusal)."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = lower_once(cutile_bytecode(kernel, spec), "<chained refusal>")
    return p.kind, [r for r in p.remarks if "the tensor-core path refused this kernel" in r]


def test_a_load_in_a_branch_of_the_loop_is_refused_at_the_branch():
    f16 = "float16"
    kind, refusals = _warnings(attn_branch_loads_a_bias, [((4, 1000, 64), f16)] * 3 + [((4, 1000, 64), f16),
                                                          ((4, 1000, 64), f16), 0.18, 1000, 64, 64, 64])
    assert kind == "simt"
    (refusal,) = refusals
    assert "chained dots: a branch in the loop must not hold a dot or a load" in refusal
    assert f"test_chained_refusal_reasons.py:{_line(attn_branch_loads_a_bias, '# REFUSED HERE')}:" in refusal


def test_dots_of_two_element_types_take_the_chained_kernel():
    """f16 scores, bf16 ``P @ V``: each dot's WGMMA names its own 16-bit type, so the chained kernel takes it (was
    refused, "all dot operands must have the same element type", until session 40's sweep 32; its values:
    test_user_sweep32_emulated.py's ``attn_f16_scores_bf16_pv``)."""
    kind, refusals = _warnings(attn_bf16_values_f16_keys,
                               [((4, 1000, 64), "float16"), ((4, 1000, 64), "float16"), ((4, 1000, 64), "bfloat16"),
                                ((4, 1000, 64), "float16"), 0.18, 1000, 64, 64, 64])
    assert kind == "chained" and not refusals, refusals
