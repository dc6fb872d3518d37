"""The CI-sized subsets chosen by coverage (tools/ci_case_selection.py, tests/ci_case_selection.json,
tests/conftest.py ``skip_ci_selection``): the greedy removal keeps the union of the covered arcs
(a property test), the data names tests that exist in their group's files, conftest skips exactly
those (with a reason saying how to run them) and none with ``TILEORCH_EMULATE_ALL=1``."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool():
    return _load("tileorch_ci_case_selection", ROOT / "tools" / "ci_case_selection.py")


@pytest.fixture(scope="module")
def suite_conftest():
    return _load("tileorch_suite_conftest_selection", ROOT / "tests" / "conftest.py")


tests_arcs = st.dictionaries(st.sampled_from([f"t{i}" for i in range(12)]),
                             st.frozensets(st.integers(0, 15), max_size=6), min_size=1)


@settings(max_examples=200, deadline=None)
@given(tests_arcs, st.data())
def test_the_kept_tests_cover_every_arc_of_the_group(tool, arcs, data):
    arcs = {t: set(a) for t, a in arcs.items()}
    cpu = {t: data.draw(st.floats(0, 10)) for t in arcs}
    eligible = data.draw(st.lists(st.sampled_from(sorted(arcs)), unique=True))
    dropped = tool.greedy_drop(arcs, cpu, eligible)
    kept = [t for t in arcs if t not in dropped]
    assert set(dropped) <= set(eligible)
    assert set().union(*(arcs[t] for t in kept)) == set().union(*arcs.values())
    assert all(arcs[t] for t in dropped)  # a test that covers nothing of src/ is never dropped
    # maximal: every kept eligible test covers an arc that no other kept test covers
    for t in kept:
        if t in eligible and arcs[t]:
            others = set().union(*(arcs[u] for u in kept if u != t))
            assert not arcs[t] <= others


def test_the_heaviest_of_two_equal_tests_is_dropped(tool):
    arcs = {"light": {1, 2}, "heavy": {1, 2}, "other": {3}}
    assert tool.greedy_drop(arcs, {"light": 1.0, "heavy": 9.0, "other": 5.0}, ["light", "heavy", "other"]) == ["heavy"]


def test_a_cheap_failed_or_property_test_is_never_eligible(tool):
    outcome = {"cheap": "passed", "heavy": "passed", "failed": "failed", "prop": "passed", "edge": "passed"}
    cpu = {"cheap": 0.1, "heavy": 3.0, "failed": 5.0, "prop": 4.0, "edge": 0.5}
    eligible = tool.eligible_tests(outcome, cpu, 0.5, lambda t: t == "prop")
    assert sorted(eligible) == ["edge", "heavy"]
    # the cheap test stays even where the heavy one covers all it covers
    arcs = {"cheap": {1}, "heavy": {1, 2}}
    assert tool.greedy_drop(arcs, cpu, eligible) == []


def test_a_group_with_nothing_to_drop_gets_no_verify_run(tool, tmp_path, monkeypatch):
    """Every eligible test covers an arc of its own: the subset is the whole group, so no second run under
    coverage (a sweep of such programs, e.g. user_sweep32: one ~4 min run saved); the selection still written."""
    full = {"cpu": {"a": 2.0, "b": 3.0}, "outcome": {"a": "passed", "b": "passed"}}
    (tmp_path / "g.json").write_text(json.dumps({"files": ["f.py"], "full": full, "commit": "x"}))
    monkeypatch.setattr(tool, "arcs_by_test", lambda db: ({"a": {1, 2}, "b": {2, 3}}, {1, 2, 3}))
    runs = []
    monkeypatch.setattr(tool, "run_measured", lambda *args: runs.append(args))
    tool.cmd_select(SimpleNamespace(work=str(tmp_path), group="g", cpu_log=None, min_cpu=0.5, rounds=3))
    sel = json.loads((tmp_path / "g.json").read_text())["selection"]
    assert runs == [] and sel["dropped"] == [] and sel["rounds"] == [] and sel["missing"] == []
    assert sel["cases_after"] == sel["cases_before"] == 2


def test_a_test_bound_from_a_helpers_factory_is_eligible_unless_it_runs_hypothesis(tool):
    """Sweeps 25 on bind their compile tests from dot_sweep_checks.dot_sweep_compile_tests (no ``def`` in the test
    file): looked up in the folder's helpers, they are eligible (until session 45 every one counted as a property
    test: user_sweep32's coverage selection found 1 eligible test of 140); a property test of this file stays one,
    and a name defined nowhere stays ineligible."""
    dot = "tests/unit/test_user_sweep32_compile.py::test_a_dot_takes_its_path_and_says_so[gemm_row_bias_vector]"
    assert not tool._uses_hypothesis(dot)
    here = "tests/unit/test_ci_case_selection.py::"
    assert tool._uses_hypothesis(here + "test_the_kept_tests_cover_every_arc_of_the_group")
    assert not tool._uses_hypothesis(here + "test_the_heaviest_of_two_equal_tests_is_dropped")
    assert tool._uses_hypothesis("tests/unit/test_user_sweep32_compile.py::test_no_such_function_anywhere")


def test_the_verify_run_deselects_whole_node_ids_only(tool):
    """pytest's ``--deselect`` matches prefixes: dropping ``test_mask`` must not take ``test_mask_bm128`` out of the
    verify run (attention_programs2: the subset then missed the arcs only the longer-named test covers)."""
    items = [SimpleNamespace(nodeid=n) for n in ("t.py::test_mask", "t.py::test_mask_bm128", "t.py::test_x[1]",
                                                  "t.py::test_x[10]")]
    kept, dropped = tool.exact_deselect(items, {"t.py::test_mask", "t.py::test_x[1]"})
    assert [i.nodeid for i in kept] == ["t.py::test_mask_bm128", "t.py::test_x[10]"]
    assert [i.nodeid for i in dropped] == ["t.py::test_mask", "t.py::test_x[1]"]


def test_a_spill_check_is_skipped_only_with_all_of_its_programs_other_tests(tool):
    ids = ["f.py::test_path[a]", "f.py::test_path[b]", "f.py::test_path[c]", "f.py::test_proved[0-b]",
           "f.py::test_spills[a]", "f.py::test_spills[b]", "f.py::test_spills[c]", "f.py::test_spills[d]",
           "f.py::test_spills_more[a]"]
    skipped = {"f.py::test_path[a]", "f.py::test_path[b]", "f.py::test_path[c]"}
    # b: its proof runs in CI; d: no other test (nothing of its compile is proved covered); c: all skipped
    assert tool.spill_checks_to_skip(ids, skipped, "test_spills") == ["f.py::test_spills[c]"]
    # a: test_spills_more[a] is another test of a, run in CI
    assert tool.spill_checks_to_skip(ids, skipped | {"f.py::test_proved[0-b]"}, "test_spills") == [
        "f.py::test_spills[b]", "f.py::test_spills[c]"]
    assert tool.spill_checks_to_skip(ids, skipped | {"f.py::test_spills_more[a]"}, "test_spills") == [
        "f.py::test_spills[a]", "f.py::test_spills[c]"]


FACTORY = (ROOT / "tests" / "unit" / "dot_sweep_checks.py").read_text()


def test_the_data_names_tests_of_its_groups_files(tool):
    data = json.loads((ROOT / "tests" / "ci_case_selection.json").read_text())
    assert data["groups"]
    for group, entry in data["groups"].items():
        # the kept tests cover every arc of the group, but a cache hit's (tools/ci_case_selection.ORDER_DEPENDENT)
        assert entry["subset_arcs_equal"] == (not entry["missing_order_dependent"])
        assert all(tool.order_dependent(arc) for arc in entry["missing_order_dependent"]), group
        assert entry["cases_after"] + len(entry["skipped_in_ci"]) == entry["cases_before"]
        sources = {f: (ROOT / f).read_text() for f in entry["files"]}
        for nodeid in entry["skipped_in_ci"]:
            path, _, name = nodeid.partition("::")
            assert path in sources, (group, nodeid)
            name = re.escape(name.split("[")[0])
            # a test of the file's own, or one it binds from dot_sweep_checks.dot_sweep_compile_tests (sweeps 25 on)
            bound = ("dot_sweep_compile_tests(" in sources[path] and re.search(rf"\b{name}\b", sources[path])
                     and re.search(rf"^    def {name}\(", FACTORY, re.M))
            assert re.search(rf"^def {name}\(", sources[path], re.M) or bound, nodeid


def _items(*nodeids):
    return [SimpleNamespace(nodeid=n, markers=[], add_marker=lambda m, _n=n: marks.setdefault(_n, m))
            for n in nodeids]


marks: dict = {}


def test_conftest_skips_the_listed_tests_unless_emulate_all(suite_conftest, tmp_path, monkeypatch):
    path = tmp_path / "selection.json"
    path.write_text(json.dumps({"groups": {"g": {"skipped_in_ci": ["tests/unit/test_a.py::test_x[1]"]}}}))
    monkeypatch.setattr(suite_conftest, "CI_CASE_SELECTION", str(path))
    monkeypatch.delenv("TILEORCH_EMULATE_ALL", raising=False)
    monkeypatch.delenv("CI_CASE_SELECTION_DB", raising=False)
    marks.clear()
    suite_conftest.skip_ci_selection(_items("tests/unit/test_a.py::test_x[1]", "tests/unit/test_a.py::test_x[2]"))
    assert list(marks) == ["tests/unit/test_a.py::test_x[1]"]
    mark = marks["tests/unit/test_a.py::test_x[1]"]
    assert mark.name == "skip" and "TILEORCH_EMULATE_ALL=1" in mark.kwargs["reason"]
    marks.clear()
    monkeypatch.setenv("TILEORCH_EMULATE_ALL", "1")
    suite_conftest.skip_ci_selection(_items("tests/unit/test_a.py::test_x[1]"))
    assert marks == {}


def test_the_emulation_memos_hit_path_is_order_dependent_and_its_miss_path_is_not(tool):
    # a kept test reads the emulation a dropped test stored first (tileorch/testing/emulation_memo.emulate_once):
    # the hit's arcs (the `if` into the `else`, the `else` body) depend on the order, the miss's do not
    path = "src/tileorch/testing/emulation_memo.py"
    lines = (ROOT / path).read_text().splitlines()
    cond = next(i for i, ln in enumerate(lines, 1) if ln.strip() == "if result is None:")
    hit = next(i for i, ln in enumerate(lines, 1) if i > cond and ln.strip() == "else:") + 1  # its statement
    assert lines[hit - 1].strip() == "HITS[0] += 1"
    assert tool.order_dependent((path, cond, hit)) and tool.order_dependent((path, hit, hit + 1))  # coverage's arcs
    assert not tool.order_dependent((path, cond, cond + 1))  # the miss: emulate and store
    assert not tool.order_dependent((path, cond - 1, cond))
    assert not tool.order_dependent(("src/tileorch/backend/memo.py", 43, 44))


def test_the_ptxas_memos_hit_path_is_order_dependent_and_its_miss_path_is_not(tool):
    # a kept test assembles PTX a dropped test assembled first (tileorch/backend/ptxas._assemble with the backend
    # memo on): the hit's arcs (the `if` into its body, the body) depend on the order, the miss's do not
    # (epilogue_dot_programs, session 44: the subset missed exactly these 3 arcs and no dropped test covered them)
    path = "src/tileorch/backend/ptxas.py"
    lines = (ROOT / path).read_text().splitlines()
    load = next(i for i, ln in enumerate(lines, 1) if ln.strip().startswith('hit = memo.load("ptxas", digest)'))
    cond, first, last = load + 1, load + 2, load + 3
    assert lines[cond - 1].strip() == "if hit is not None:"
    assert lines[last - 1].strip() == "return json.loads(head), cubin"
    assert tool.order_dependent((path, cond, first)) and tool.order_dependent((path, first, last))
    define = next(i for i, ln in enumerate(lines, 1) if ln.startswith("def _assemble("))
    assert tool.order_dependent((path, last, -define))  # the return: coverage's exit arc (to minus the def's line)
    assert not tool.order_dependent((path, cond, last + 1))  # the miss: run ptxas and store
    assert not tool.order_dependent((path, load, cond))


def test_the_codegen_memos_hit_path_is_order_dependent_and_its_miss_path_is_not(tool):
    # tileorch/backend/ptx.llvm_to_ptx with the backend memo on: a kept test's LLVM IR a dropped test generated first
    # (the hit's arcs: the `if` into its body, the body); the miss (fork the code generation) is not
    path = "src/tileorch/backend/ptx.py"
    lines = (ROOT / path).read_text().splitlines()
    load = next(i for i, ln in enumerate(lines, 1) if ln.strip().startswith('hit = memo.load("codegen", digest)'))
    cond, first, last = load + 1, load + 2, load + 4
    assert lines[cond - 1].strip() == "if hit is not None:" and lines[last - 1].strip() == "return hit.decode()"
    define = next(i for i, ln in enumerate(lines, 1) if ln.startswith("def llvm_to_ptx("))
    hit_arcs = [(path, cond, first), (path, first, first + 1), (path, first, last), (path, first + 1, last),
                (path, last, -define)]
    assert all(tool.order_dependent(arc) for arc in hit_arcs)
    assert not tool.order_dependent((path, cond, last + 1))  # the miss: generate the code and store it
    assert not tool.order_dependent((path, load, cond))


def test_the_compile_memos_stored_lowering_exit_is_order_dependent_and_its_store_is_not(tool):
    # tileorch/testing/compile_memo._store_lowered: a kept test's compile finds the lowering an earlier, dropped, test
    # stored (the `if`'s exit, "unless stored"); alone, the kept test stores it (stack_query_heads, session 44: the
    # subset missed exactly this arc and no dropped test covered it)
    path = "src/tileorch/testing/compile_memo.py"
    lines = (ROOT / path).read_text().splitlines()
    define = next(i for i, ln in enumerate(lines, 1) if ln.startswith("def _store_lowered("))
    cond = next(i for i, ln in enumerate(lines, 1) if i > define and ln.strip() == "if _stored(key) is None:")
    assert lines[cond].strip() == "_store(key, lowered)" and cond - define < 8
    assert tool.order_dependent((path, cond, -define))
    assert not tool.order_dependent((path, cond, cond + 1))  # the store
    assert not tool.order_dependent((path, cond - 1, cond))
