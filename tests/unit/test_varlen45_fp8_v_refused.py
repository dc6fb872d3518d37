"""An fp8 V gathered as a varlen row window is refused by the chained tier at V's gather (session 45's review): the
key-major launch copy permutes keys in groups of 16 counted from the array's first row and was read at ``j * BN``
without the window's start, so every sequence read the first sequence's V (silent wrong output before the refusal)."""

import math

import pytest

ct = pytest.importorskip("cuda.tile")

C = ct.Constant


@ct.kernel
def varlen_fp8_v(Q, K, V, CuSeq, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    qt, b = ct.bid(0), ct.bid(1)
    start = ct.gather(CuSeq, b)
    n = ct.gather(CuSeq, b + 1) - start
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    qrow = qt * BM + ct.arange(BM, dtype=ct.int32)
    qvalid = (qrow < n)[:, None]
    q = ct.gather(Q, (start + qrow[:, None], cols), mask=qvalid, padding_value=0.0)
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        krow = j * BN + ct.arange(BN, dtype=ct.int32)
        kvalid = (krow < n)[:, None]
        k = ct.gather(K, (start + krow[:, None], cols), mask=kvalid, padding_value=0.0)
        v = ct.gather(V, (start + krow[:, None], cols), mask=kvalid, padding_value=0.0)
        s = ct.where(krow[None, :] < n, ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale,
                     -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.scatter(O, (start + qrow[:, None], cols), (acc / l_i).astype(O.dtype), mask=qvalid)


def test_fp8_v_row_window_is_refused_at_vs_gather():
    from tileorch.testing.gemm_emulation import compile_cutile

    t = 300
    spec = [((t, 64), "float16"), ((t, 64), "float16"), ((t, 64), "float8_e4m3fn"), ((4,), "int32"),
            ((t, 64), "float16"), 0.18, 64, 64, 64]
    prog = compile_cutile(varlen_fp8_v, spec, "varlen_fp8_v")
    assert prog.kind != "chained"
    said = [r for r in prog.remarks if "V is a row window gathered at start + positions" in r]
    assert said and ":30:" in said[0], prog.remarks  # located at V's gather (this file's line 30)
