"""Several program instances per CTA, their final atomics combined (``tileaa_to_simt/combined_atomics.py``), on the
GPU through ``tileorch.cutile.launch``: sweep 15's cross entropy forward over bf16 rows of 4096 columns (every
16th label ignored, the log-sum-exp prefilled with NaN) at 32768 rows (the launch's one wave: several instances a
CTA), 1000 and 7 rows, with the instances per CTA the launch picks and forced to 1, 5 and 64 (more than the rows:
a CTA with one live instance), against torch's ``logsumexp`` and ``F.cross_entropy``; the same launch with the
rewrite off (``TILEORCH_COMBINE_ATOMICS=0``): the same log-sum-exp bits and count; integer folds (add, max,
min, or, xor) over 5000 rows exactly against numpy.  The rewrite is on by default since session 34 (``auto``): the
CE tests run the default (the variable unset), the integer folds ask for ``auto``.  Skipped without a GPU; needs
torch and cuda-tile."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:
    sys.path.append(UNIT)

import tileorch.cutile  # noqa: E402
from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic  # noqa: E402

V, BV = 4096, 1024


def _fresh(monkeypatch, **env):
    from tileorch.launchers.cutile import clear_caches

    for k, v in env.items():
        if v is None:
            monkeypatch.delenv(k, raising=False)
        else:
            monkeypatch.setenv(k, v)
    clear_caches()  # (a bound launch keeps the grid and parameters of the last setting)


def _ce(rows: int, seed: int = 0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    logits = (torch.randn(rows, V, device="cuda", generator=g) * 3).to(torch.bfloat16)
    labels = torch.randint(0, V, (rows,), device="cuda", generator=g)
    labels[::16] = -100
    lse = torch.full((rows,), float("nan"), device="cuda")
    total, count = torch.zeros(1, device="cuda"), torch.zeros(1, device="cuda", dtype=torch.int32)
    tileorch.cutile.launch(torch.cuda.current_stream(), (rows,), cross_entropy_fwd_mean_atomic,
                           (logits, labels, lse, total, count, -100, BV))
    torch.cuda.synchronize()
    return logits, labels, lse, total, count


@pytest.mark.parametrize("rows", [32768, 1000, 7])
@pytest.mark.parametrize("per_cta", [None, "1", "5", "64"])
def test_cross_entropy_against_torch(rows, per_cta, monkeypatch):
    import torch.nn.functional as F

    _fresh(monkeypatch, TILEORCH_COMBINE_ATOMICS=None, TILEORCH_CTA_PROGRAMS=per_cta)  # (the default: auto)
    logits, labels, lse, total, count = _ce(rows, seed=rows)
    x = logits.float()
    torch.testing.assert_close(lse, torch.logsumexp(x, 1), rtol=1e-5, atol=1e-4)
    keep = labels != -100
    assert int(count.item()) == int(keep.sum().item())
    mean = F.cross_entropy(x, labels, ignore_index=-100, reduction="sum")
    torch.testing.assert_close(total[0], mean, rtol=1e-4, atol=1e-3)


def test_combined_equals_one_instance_per_cta(monkeypatch):
    _fresh(monkeypatch, TILEORCH_COMBINE_ATOMICS="0", TILEORCH_CTA_PROGRAMS=None)
    _, _, lse0, total0, count0 = _ce(32768, seed=1)
    _fresh(monkeypatch, TILEORCH_COMBINE_ATOMICS="auto")
    _, _, lse1, total1, count1 = _ce(32768, seed=1)
    assert torch.equal(lse0, lse1)  # the row's ops are the same; only the atomics moved
    assert int(count0.item()) == int(count1.item())
    torch.testing.assert_close(total1, total0, rtol=1e-5, atol=1e-3)  # (float sums: another order)


def test_integer_folds_exact(monkeypatch):
    from test_combined_atomics_emulated import _int_folds

    _fresh(monkeypatch, TILEORCH_COMBINE_ATOMICS="auto", TILEORCH_CTA_PROGRAMS=None)
    rng = np.random.default_rng(11)
    rows, b, nb = 5000, 32, 29
    x = rng.integers(-1000, 1000, (rows, b), dtype=np.int32)
    bins0 = rng.integers(-5, 5, nb, dtype=np.int32)
    stats0 = np.array([-(1 << 31), (1 << 31) - 1, 0, 12345], np.int32)
    xs, bins, stats = (torch.from_numpy(a.copy()).cuda() for a in (x, bins0, stats0))
    tileorch.cutile.launch(torch.cuda.current_stream(), (rows,), _int_folds, (xs, bins, stats, b))
    torch.cuda.synchronize()
    np.testing.assert_array_equal(bins.cpu().numpy(), bins0 + x[:, :nb].sum(0))
    sums = x.astype(np.int64).sum(1)
    want = [x.max(), x.min(), np.bitwise_or.reduce((sums & 0xFFF).astype(np.int32)),
            np.bitwise_xor.reduce(np.append((sums * 7).astype(np.int32), stats0[3]))]
    np.testing.assert_array_equal(stats.cpu().numpy(), np.array(want, np.int32))
