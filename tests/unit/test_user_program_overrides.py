"""``UserProgram.overridden``: the GPU sweeps' ``run(name, inputs, **overrides)`` (tests/gpu/test_user_sweep_gpu.py)
takes a program's scalars by kernel parameter name; they reach the launch at the parameter's position.  Found in
session 31: ``run`` looked the overrides up by argument position among the keyword names (always strings), so an
override was never applied and the spec's value ran.  Needs cuda-tile (the programs' kernels)."""

from __future__ import annotations

import pytest

pytest.importorskip("cuda.tile")

from tileorch.testing.user_programs import PROGRAMS  # noqa: E402


def test_an_override_by_name_lands_at_its_parameter_position():
    p = PROGRAMS["mm_alpha_beta"]  # (A, B, C, alpha, beta, tm, tn, tk)
    assert p.overridden({"beta": 0.25, "alpha": -2.0}) == {4: 0.25, 3: -2.0}
    assert p.overridden({}) == {}
    spec = list(p.spec)
    for i, v in p.overridden({"beta": 0.25}).items():
        spec[i] = v
    assert spec[4] == 0.25 and spec[:4] == list(p.spec[:4]) and spec[5:] == list(p.spec[5:])


def test_an_unknown_name_or_an_array_is_refused():
    p = PROGRAMS["mm_alpha_beta"]
    with pytest.raises(TypeError, match="has no parameter 'gamma'.*alpha, beta"):
        p.overridden({"gamma": 1.0})
    with pytest.raises(TypeError, match="parameter 'C' is an array: pass it in inputs \\(position 2\\)"):
        p.overridden({"C": 1.0})
