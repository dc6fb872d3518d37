"""Whether strided arrays share memory, element by element (not by their byte ranges).

An array is a base address and per dimension an extent and a stride; its elements start at
``ptr + sum(i_k * stride_k)`` bytes, ``0 <= i_k < extent_k``, and span ``itemsize`` bytes.

* :func:`shared_element` -- two different indices of one array that address one element (a
  stride of 0 over an extent above 1: an ``expand``-ed view; or strides that fold onto each other,
  ``as_strided``/``unfold``), or None when every index has its own element.
* :func:`elements_overlap` -- whether two arrays have a byte in common: True, False, or None when
  the search below gave up (its budget spent; the callers treat None as "may overlap").

Both solve a bounded integer equation ``c0 + sum(c_k * t_k) in [L, U]`` by a depth-first search
over the terms in decreasing ``|t_k|``, each coefficient ``c_k`` in an integer range, pruning with
the reach of the smaller terms: exact (terms of equal ``|t|`` are merged into one whose range is
the sum of theirs), and for the layouts slicing and permuting produce (each stride larger than
what the smaller ones reach) a handful of nodes per dimension.  Two column halves of one matrix
(byte ranges interleaved, no element shared) are told apart from a shifted copy of it.

Pure Python, no GPU, nothing imported: the launcher's refusals of outputs that cannot be written
correctly (:func:`tileorch.launchers.cutile.check_written_arguments`) use it.
"""

from __future__ import annotations

BUDGET = 20000
"""Search nodes :func:`elements_overlap` / :func:`shared_element` visit before giving up."""


def _merged(terms: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """``(t, cmin, cmax)`` terms with equal ``|t|`` merged (``t > 0``; a negative ``t`` flips its range),
    zero terms and zero ranges dropped, sorted by decreasing ``t``."""
    by: dict[int, list[int]] = {}
    for t, lo, hi in terms:
        if t == 0 or lo == hi == 0:
            continue
        if t < 0:
            t, lo, hi = -t, -hi, -lo
        r = by.setdefault(t, [0, 0])
        r[0] += lo
        r[1] += hi
    return sorted(((t, lo, hi) for t, (lo, hi) in by.items()), key=lambda x: -x[0])


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def _search(terms: list[tuple[int, int, int]], c0: int, low: int, high: int, nonzero: bool) -> bool | None:
    """Whether integers ``c_k`` in ``[cmin_k, cmax_k]`` make ``c0 + sum(c_k * t_k)`` fall in
    ``[low, high]`` (``nonzero``: with some ``c_k != 0``); None past :data:`BUDGET` nodes."""
    n = len(terms)
    smin, smax = [0] * (n + 1), [0] * (n + 1)  # the reach of terms k.. (t > 0)
    for k in range(n - 1, -1, -1):
        t, lo, hi = terms[k]
        smin[k], smax[k] = smin[k + 1] + lo * t, smax[k + 1] + hi * t
    budget = [BUDGET]

    def go(k: int, cur: int, any_nonzero: bool) -> bool | None:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if cur + smax[k] < low or cur + smin[k] > high:
            return False
        if k == n:
            return not nonzero or any_nonzero
        t, lo, hi = terms[k]
        first = max(lo, _ceil_div(low - cur - smax[k + 1], t))
        last = min(hi, (high - cur - smin[k + 1]) // t)
        for c in range(first, last + 1):
            found = go(k + 1, cur + c * t, any_nonzero or c != 0)
            if found or found is None:
                return found
        return False

    return go(0, c0, False)


def shared_element(shape: tuple[int, ...], strides: tuple[int, ...]) -> str | None:
    """Words for two indices of the array that address one element (strides in elements), or None
    when each index has its own; "its strides may fold onto each other" when the search gave up."""
    if 0 in shape:
        return None
    nested, reach = True, 0  # (each stride past what the smaller ones reach: no fold, no search)
    for s, d in sorted((abs(s), d) for d, s in zip(shape, strides) if d > 1):
        if s <= reach:
            nested = False
            break
        reach += s * (d - 1)
    if nested:
        return None
    for k, (d, s) in enumerate(zip(shape, strides)):
        if s == 0 and d > 1:
            return f"stride 0 on dimension {k} of extent {d}"
    terms = [(s, -(d - 1), d - 1) for d, s in zip(shape, strides) if d > 1]
    seen: dict[int, int] = {}
    for k, (d, s) in enumerate(zip(shape, strides)):
        if d > 1:
            if abs(s) in seen:
                return f"dimensions {seen[abs(s)]} and {k} both of stride {abs(s)}"
            seen[abs(s)] = k
    found = _search(_merged(terms), 0, 0, 0, nonzero=True)
    if found is None:
        return f"strides {tuple(strides)} over shape {tuple(shape)} may fold onto each other"
    return f"strides {tuple(strides)} over shape {tuple(shape)} fold onto each other" if found else None


def elements_overlap(a_ptr: int, a_shape: tuple[int, ...], a_strides: tuple[int, ...], a_itemsize: int,
                     b_ptr: int, b_shape: tuple[int, ...], b_strides: tuple[int, ...], b_itemsize: int) -> bool | None:
    """Whether arrays a and b (strides in elements) have a byte in common; None: undecided."""
    if any(d == 0 for d in a_shape) or any(d == 0 for d in b_shape):
        return False
    terms = [(s * a_itemsize, 0, d - 1) for d, s in zip(a_shape, a_strides)]
    terms += [(-s * b_itemsize, 0, d - 1) for d, s in zip(b_shape, b_strides)]
    # an element of a at x and one of b at y share a byte iff -a_itemsize < x - y < b_itemsize
    return _search(_merged(terms), a_ptr - b_ptr, 1 - a_itemsize, b_itemsize - 1, nonzero=False)
