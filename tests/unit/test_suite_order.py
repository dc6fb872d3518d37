"""The suite's test order (tests/conftest.py ``pytest_collection_modifyitems``): the files of
``LONGEST_FIRST`` first, in that order; each sweep's files together, its interpreter file before
its compile file before its emulated file (the interpreter's compiles keep their lowering for it:
test_user_sweep_interp.SHARED_COMPILES); every other file in collection order, a file's tests in
theirs; GPU tests last where there is no GPU."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest


@pytest.fixture(scope="module")
def suite_conftest():
    path = Path(__file__).resolve().parents[1] / "conftest.py"
    spec = importlib.util.spec_from_file_location("tileorch_suite_conftest", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sweep_group_names_the_sweep_and_the_role(suite_conftest):
    g = suite_conftest.sweep_group
    assert g("unit/test_user_sweep7_interp.py") == ("unit/test_user_sweep7", 0)
    assert g("unit/test_user_sweep7_compile.py") == ("unit/test_user_sweep7", 1)
    assert g("unit/test_user_sweep7_emulated.py") == ("unit/test_user_sweep7", 2)
    assert g("unit/test_user_sweep_interp.py") == ("unit/test_user_sweep", 0)
    assert g("unit/test_user_sweep.py") == ("unit/test_user_sweep", 1)
    assert g("unit/test_attention_programs2_interp.py") == ("unit/test_attention_programs2", 0)
    assert g("unit/test_cache.py") == ("unit/test_cache.py", 1)
    assert g("unit/test_ptx_emulator_sweep10.py") == ("unit/test_ptx_emulator_sweep10.py", 1)


def test_the_order(suite_conftest, monkeypatch):
    monkeypatch.setattr(suite_conftest, "_gpu_present", lambda: False)
    monkeypatch.setattr(suite_conftest, "LONGEST_FIRST", ("unit/test_slow.py", "unit/test_user_sweep2_interp.py",
                                                          "unit/test_user_sweep9_emulated.py"))
    collected = ["tests/gpu/test_g.py::a", "tests/unit/test_a.py::a", "tests/unit/test_a.py::b",
                 "tests/unit/test_user_sweep7_compile.py::a", "tests/unit/test_user_sweep7_compile.py::b",
                 "tests/unit/test_user_sweep7_emulated.py::a", "tests/unit/test_user_sweep7_interp.py::a",
                 "tests/unit/test_user_sweep7_interp.py::b", "tests/unit/test_b.py::a", "tests/unit/test_slow.py::a",
                 "tests/unit/test_user_sweep.py::a", "tests/unit/test_user_sweep2_interp.py::a",
                 "tests/unit/test_user_sweep_interp.py::a", "tests/unit/test_user_sweep9_compile.py::a",
                 "tests/unit/test_user_sweep9_emulated.py::a", "tests/unit/test_user_sweep9_interp.py::a"]
    items = [SimpleNamespace(nodeid=n) for n in collected]
    config = SimpleNamespace(option=SimpleNamespace(failedfirst=False, newfirst=False))
    suite_conftest.pytest_collection_modifyitems(config, items)
    assert [i.nodeid for i in items] == [
        "tests/unit/test_slow.py::a", "tests/unit/test_user_sweep2_interp.py::a",
        # a sweep file listed places its whole sweep there, the interpreter file first
        "tests/unit/test_user_sweep9_interp.py::a", "tests/unit/test_user_sweep9_compile.py::a",
        "tests/unit/test_user_sweep9_emulated.py::a",
        "tests/unit/test_a.py::a", "tests/unit/test_a.py::b",
        "tests/unit/test_user_sweep7_interp.py::a", "tests/unit/test_user_sweep7_interp.py::b",
        "tests/unit/test_user_sweep7_compile.py::a", "tests/unit/test_user_sweep7_compile.py::b",
        "tests/unit/test_user_sweep7_emulated.py::a", "tests/unit/test_b.py::a",
        "tests/unit/test_user_sweep_interp.py::a", "tests/unit/test_user_sweep.py::a",
        "tests/gpu/test_g.py::a"]
