"""The GEMM launcher's empty-K decision (``tileorch.launchers.cutile.empty_product``): zeros are stored without a
kernel only when every K segment is empty.  Session 29 (s29-gemm2 read it): the decision read the first pair's K
alone, so a K-segment program whose first A had K = 0 stored zeros and dropped the later segments' products."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tileorch.launchers.cutile import LayoutNotSupported, empty_product, segment_ks


def _segments(*ks: int) -> tuple[int, ...]:
    """The later segments' K as the launcher reads them: A ``[M, K_i]`` (K-major), B ``[K_i, N]`` (row-major)."""
    program = SimpleNamespace(gemm_config=SimpleNamespace(k_segments=True, a_major="k", b_major="n"))
    more_a = [SimpleNamespace(shape=(64, k), name=f"x{i}", position=i) for i, k in enumerate(ks)]
    more_b = [SimpleNamespace(shape=(k, 32), name=f"w{i}", position=i) for i, k in enumerate(ks)]
    return segment_ks(program, more_a, more_b)


@pytest.mark.parametrize("k,later", [(0, ()), (0, (0,)), (0, (0, 0))])
def test_every_segment_empty_stores_zeros(k, later):
    assert empty_product(k, _segments(*later)) is True


@pytest.mark.parametrize("k,later", [(64, ()), (64, (128,)), (1, (200, 8))])
def test_no_empty_segment_runs_the_kernel(k, later):
    assert empty_product(k, _segments(*later)) is False


@pytest.mark.parametrize("k,later", [(0, (128,)), (0, (0, 64)), (64, (0,))])
def test_an_empty_segment_beside_others_goes_to_the_simt_path(k, later):
    # zeros would drop the non-empty segments' products; the TMA maps take no zero extent
    with pytest.raises(LayoutNotSupported, match="K segments"):
        empty_product(k, _segments(*later))
