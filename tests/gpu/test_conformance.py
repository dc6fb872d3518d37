"""The GPU conformance suite (see ``conformance.py``): one test per configuration."""

from __future__ import annotations

import pytest

from conformance import all_cases, run_case

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_conformance(case):
    run_case(case)
