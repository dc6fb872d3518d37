"""``TILEORCH_ONLINE_SOFTMAX_EXP=ex2`` on the GPU (the MUFU's own error, which the PTX emulator's exact
``ex2`` does not model): the online max / sum-of-exp programs of the memory-bound benchmark compiled
with the per-thread form's exponentials as ``ex2.approx.ftz(d * log2 e)`` and as the program's
full-precision ``exp`` (``full``), on ragged rows, NaN-prefilled outputs, against torch in float64:

* the cross entropy (bf16 logits, 32003 wide: 32 tiles and a ragged one; logits of scale 3 and 30)
  and the logsumexp (f32, 4100 wide): the log-sum-exp's error under ``ex2`` is at most the
  ``full`` build's plus the bound of ``hoist_online_softmax``'s docstring (``2^-22 + 2^-24 E[|d|]``
  relative in the sum, here 2e-6 absolute in its log) and two ulp of the result;
* rows with special values (a NaN, a ``+inf``, a first tile of ``-inf`` only, scattered ``-inf``):
  NaN exactly where the ``full`` build gives NaN, the same value elsewhere within that bound;
* the log-softmax (bf16 in and out, 32000 wide, a second pass): within one bf16 ulp of the ``full``
  build.

Skipped without a GPU; needs torch and cuda-tile."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import tileorch.cutile  # noqa: E402

FORMS = ("full", "ex2")


def _launch_each_form(monkeypatch, grid, kernel, make_args, out_index):
    """``{form: output}``: ``kernel`` launched once per ``TILEORCH_ONLINE_SOFTMAX_EXP`` form on fresh
    arguments (``make_args()``), its output ``out_index`` after the launch."""
    from tileorch.launchers.cutile import clear_caches

    got = {}
    for form in FORMS:
        monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX_EXP", form)
        clear_caches()
        args = make_args()
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
        torch.cuda.synchronize()
        got[form] = args[out_index].double()
    return got


def _ulp(x: torch.Tensor) -> torch.Tensor:
    f = x.float().abs()
    return (torch.nextafter(f, torch.full_like(f, float("inf"))) - f).double()


def _check_lse(got: dict, want: torch.Tensor, differs: bool = True) -> None:
    """ex2's log-sum-exp no further from ``want`` than the full exp's (2e-6 + 2 ulp); ``differs``: the two
    forms' bits must differ somewhere (where rows are dominated by their maximum, as with logits scaled by 30,
    every sum term but the maximum's underflows or rounds away and the forms agree bit for bit)."""
    full, ex2 = got["full"], got["ex2"]
    assert torch.equal(torch.isnan(full), torch.isnan(ex2))
    ok = ~torch.isnan(full)
    err_full = (full[ok] - want[ok]).abs()
    err_ex2 = (ex2[ok] - want[ok]).abs()
    if differs:
        assert not torch.equal(full[ok], ex2[ok])  # the switch took: other exponentials, other low bits
    assert bool((err_ex2 <= err_full + 2e-6 + 2 * _ulp(want[ok])).all()), \
        f"ex2 {err_ex2.max().item():.3g} against full {err_full.max().item():.3g}"


def _special_rows(x: torch.Tensor, tile: int) -> torch.Tensor:
    x[1, :tile] = -float("inf")  # the first tile -inf only: NaN as written
    x[2, x.shape[1] // 2] = float("inf")
    x[3, -1] = float("nan")
    x[4, ::3] = -float("inf")
    return x


@pytest.mark.parametrize("scale", [3.0, 30.0])
def test_cross_entropy_log_sum_exp(monkeypatch, scale):
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    g = torch.Generator(device="cuda").manual_seed(2701)
    rows, vocab = 64, 32003
    logits = _special_rows((torch.randn(rows, vocab, device="cuda", generator=g) * scale).bfloat16(), 1024)
    labels = torch.randint(0, vocab, (rows,), device="cuda", generator=g)
    labels[::7] = -100

    def make_args():
        return (logits, labels, torch.full((rows,), float("nan"), device="cuda"), torch.zeros(1, device="cuda"),
                torch.zeros(1, device="cuda", dtype=torch.int32), -100, 1024)

    got = _launch_each_form(monkeypatch, (rows,), kernel, make_args, 2)
    # at scale 30 (H100, session 27): both forms gave the same bits (a row's sum is 1 + terms below f32's ulp)
    _check_lse(got, torch.logsumexp(logits.double(), 1), differs=scale < 10)


def test_logsumexp_f32(monkeypatch):
    from tileorch.testing.user_programs3 import logsumexp_online as kernel

    g = torch.Generator(device="cuda").manual_seed(2702)
    rows, width = 48, 4100
    x = _special_rows(torch.randn(rows, width, device="cuda", generator=g) * 4, 1024)

    def make_args():
        return (x, torch.full((rows,), float("nan"), device="cuda"), 1024)

    got = _launch_each_form(monkeypatch, (rows,), kernel, make_args, 1)
    _check_lse(got, torch.logsumexp(x.double(), 1))


def test_log_softmax_bf16(monkeypatch):
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    g = torch.Generator(device="cuda").manual_seed(2703)
    rows, vocab = 32, 32000
    x = (torch.randn(rows, vocab, device="cuda", generator=g) * 3).bfloat16()

    def make_args():
        return (x, torch.full((rows, vocab), float("nan"), device="cuda", dtype=torch.bfloat16), 1024)

    got = _launch_each_form(monkeypatch, (rows,), kernel, make_args, 1)
    want = torch.log_softmax(x.double(), 1)
    assert not torch.isnan(got["ex2"]).any()
    # one bf16 ulp of the output apart at most (|y| < 32: 0.125), both within two of float64
    assert bool(((got["ex2"] - got["full"]).abs() <= 0.125).all())
    assert bool(((got["ex2"] - want).abs() <= 0.25).all())
