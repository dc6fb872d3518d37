"""Coverage-preserving CI subsets of the test suite's sweep files (issue 22, the house rule CI < 15 min).

A sweep file's tests each run one program through the compiler (and an interpreter or the PTX
emulator); many drive the same compiler code.  This tool measures which lines and branches of
``src/tileorch`` each test covers (coverage.py, branch coverage, one dynamic context per test),
and picks the tests CI may skip: heaviest first (CPU seconds), a test is dropped when every arc it
covers is covered by a test still kept, so the kept tests' union covers exactly the arcs of the
whole group.  A test under ``MIN_CPU_S`` is never dropped (nothing to save; often a check of its
own, e.g. a table's completeness, whose arcs the program cases happen to cover).  A second run of the kept tests alone checks that union (a test's arcs can depend on
what ran before it: compile memos, module fixtures, lazy imports); arcs it misses bring the
dropped test that covers most of them back, until equal.

The dropped tests are written to ``tests/ci_case_selection.json``; tests/conftest.py skips them
unless ``TILEORCH_EMULATE_ALL=1`` (the suite's convention for CI-sized subsets).  The data names
the tests CI skips, not those it runs: a new test is in CI by default.

Steps (each writes under ``--work DIR``)::

    python tools/ci_case_selection.py measure --work W GROUP FILE...   # whole group under coverage
    python tools/ci_case_selection.py select  --work W GROUP           # greedy removal + verify runs
    python tools/ci_case_selection.py write   --work W GROUP...        # into tests/ci_case_selection.json
    python tools/ci_case_selection.py spills --test NAME GROUP         # after write: per-program spill checks

A group's ``cpu_ab`` in the data (kept by ``write``) is measured apart, without coverage: the CPU
seconds (user+sys, children included) of ``pytest -n 0`` on the group's files, every test
(``CI_CASE_SELECTION_DB=/nonexistent`` turns the skips off) and the CI subset, min of 2 each.

A GROUP is a name for files that run together in CI (a sweep's interp, compile and emulated files,
in that order: tests/conftest.py sweep_group); its tests are chosen jointly, as the compile memo
makes one file's compiles the next one's hits.  Needs coverage.py (not a test dependency:
``pip install --target DIR coverage`` and put DIR on ``PYTHONPATH``).  The LLVM code generation
runs in forked children (tileorch.backend.codegen_server) that coverage does not follow: those
arcs are in no test's set.  Run with ``-n 0`` only (one process)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src", "tileorch")
DATA = os.path.join(ROOT, "tests", "ci_case_selection.json")
HERE = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------------------------------------- pytest plugin
# Loaded in the measured pytest process (``-p ci_case_selection``, tools/ on PYTHONPATH) when
# CI_CASE_SELECTION_DB is set: coverage starts at the plugin's import (before conftest imports
# tileorch), each test's setup, call and teardown record under its node id.

_COV = None
_CPU: dict[str, float] = {}
_OUTCOME: dict[str, str] = {}


def _cpu_now() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def exact_deselect(items: list, deselect: set) -> tuple[list, list]:
    """(kept, dropped) of pytest ``items``: dropped are those whose node id is in ``deselect``, whole."""
    return [i for i in items if i.nodeid not in deselect], [i for i in items if i.nodeid in deselect]


if os.environ.get("CI_CASE_SELECTION_DB"):
    import coverage
    import pytest

    _COV = coverage.Coverage(data_file=os.environ["CI_CASE_SELECTION_DB"], branch=True, source=[SRC],
                             config_file=False)
    _COV.start()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        _COV.switch_context(item.nodeid)
        start = _cpu_now()
        yield
        _CPU[item.nodeid] = _cpu_now() - start
        _COV.switch_context("")

    def pytest_runtest_logreport(report):
        if report.when == "call" or report.outcome != "passed":
            _OUTCOME.setdefault(report.nodeid, report.outcome)
        if report.when == "call":
            _OUTCOME[report.nodeid] = report.outcome

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(config, items):
        """Deselect exactly the node ids of CI_CASE_SELECTION_DESELECT (a JSON list): pytest's
        ``--deselect`` matches prefixes (``test_x`` would deselect ``test_x_bm128`` too)."""
        path = os.environ.get("CI_CASE_SELECTION_DESELECT")
        if not path:
            return
        with open(path) as f:
            kept, dropped = exact_deselect(items, set(json.load(f)))
        if dropped:
            items[:] = kept
            config.hook.pytest_deselected(items=dropped)

    def pytest_unconfigure(config):
        _COV.stop()
        _COV.save()
        with open(os.environ["CI_CASE_SELECTION_DB"] + ".tests.json", "w") as f:
            json.dump({"cpu": _CPU, "outcome": _OUTCOME}, f, indent=0)


# --------------------------------------------------------------------------------------------- the tool

ORDER_DEPENDENT = (
    ("src/tileorch/backend/memo.py", 44, 45),  # load(): an entry found (a repeated input)
    ("src/tileorch/testing/ptx_emulator.py", 868, 869),  # _decoded(): the 17th PTX text of a process evicts
)
"""Where a subset may miss arcs that no dropped test covers, as (file, first line, last line): what
depends on the tests that ran before in the process, not on the test: the backend memo's load of an
entry found (a kept test hit the code an earlier, dropped, test generated; tests/unit/test_compile_speed.py
tests the hits) and the emulator's decoded-PTX cache's eviction (after 16 kernels in one process).  The line
numbers are the current source's (tests/unit/test_ci_case_selection.py checks that they point at the hits)."""


ORDER_DEPENDENT_BRANCH = (
    ("src/tileorch/testing/emulation_memo.py", 74, 79, 80),  # emulate_once(): the memo's hit (the ``else``)
    ("src/tileorch/backend/ptxas.py", 358, 359, 360),  # _assemble(): the backend memo's hit (``if hit is not None``)
    ("src/tileorch/backend/ptx.py", 656, 657, 659),  # llvm_to_ptx(): the backend memo's hit (``if hit is not None``)
)
"""Order-dependent branches of an ``if``, as (file, the ``if`` line, the branch's first and last statement lines): the
arc from the ``if`` into the branch and the arcs from within it, not the ``if``'s other branch.  The
emulation memo's hit: a kept test read the emulation an earlier, dropped, test stored; without the
dropped test the kept one emulates and stores (the miss path, which stays in the union).  The ptxas
memo's and the code generation memo's hits likewise: a kept test's PTX (LLVM IR) a dropped test assembled
(generated) first; alone, the kept test runs ptxas (the code generation)."""


ORDER_DEPENDENT_ARCS = (
    ("src/tileorch/testing/compile_memo.py", 171, -167),  # _store_lowered(): the lowering found stored, no store
)
"""Order-dependent single arcs, as (file, from, to): an ``if``'s exit where an earlier test's entry is found (a
kept test's compile finds the lowering a dropped test stored first; alone, it stores it: the other branch)."""


def order_dependent(arc) -> bool:
    if tuple(arc) in ORDER_DEPENDENT_ARCS:
        return True
    if any(arc[0] == f and (lo <= arc[1] <= hi or (arc[1] == cond and lo <= arc[2] <= hi))
           for f, cond, lo, hi in ORDER_DEPENDENT_BRANCH):
        return True
    return any(arc[0] == f and lo <= min(x for x in arc[1:] if x > 0) <= hi for f, lo, hi in ORDER_DEPENDENT)


def _python() -> str:
    return sys.executable


def run_measured(db: str, files: list[str], deselect: list[str]) -> dict:
    """Run ``files`` (paths under the repository) in one pytest process under coverage; the
    ``deselect``ed node ids do not run.  Returns the tests' CPU, outcomes and the run's CPU."""
    for suffix in ("", ".tests.json"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    env = dict(os.environ, CI_CASE_SELECTION_DB=db)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "src"), HERE] + env.get("PYTHONPATH", "").split(os.pathsep))
    for name in ("TILEORCH_TEST_COMPILE_MEMO", "TILEORCH_BACKEND_MEMO", "TILEORCH_CACHE_DIR", "TILEORCH_EMULATE_ALL"):
        env.pop(name, None)  # a fresh run's memos; CI's subsets of the files that have their own
    args = [_python(), "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-p", "ci_case_selection",
            "-p", "no:randomly", *files]
    # (tests/conftest.py skips none of tests/ci_case_selection.json's tests while CI_CASE_SELECTION_DB
    # is set: what runs is exactly the files minus ``deselect``, matched by whole node id)
    env.pop("CI_CASE_SELECTION_DESELECT", None)
    if deselect:
        env["CI_CASE_SELECTION_DESELECT"] = db + ".deselect.json"
        with open(env["CI_CASE_SELECTION_DESELECT"], "w") as f:
            json.dump(sorted(deselect), f)
    t0 = time.time()
    proc = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.time() - t0
    tail = "\n".join(proc.stdout.splitlines()[-3:])
    if proc.returncode not in (0, 5):
        raise SystemExit(f"pytest failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}")
    with open(db + ".tests.json") as f:
        tests = json.load(f)
    tests["wall_s"], tests["summary"] = wall, tail
    return tests


def arcs_by_test(db: str) -> tuple[dict[str, set], set]:
    """{test node id: its arcs}, and the union of every arc of the run (the no-test context too:
    collection, imports).  An arc is (file, from, to) with coverage.py's line numbers."""
    con = sqlite3.connect(db)
    files = dict(con.execute("select id, path from file"))
    contexts = dict(con.execute("select id, context from context"))
    per: dict[str, set] = {}
    union: set = set()
    for file_id, context_id, a, b in con.execute("select file_id, context_id, fromno, tono from arc"):
        arc = (os.path.relpath(files[file_id], ROOT), a, b)
        union.add(arc)
        per.setdefault(contexts[context_id], set()).add(arc)
    con.close()
    return per, union


def greedy_drop(arcs: dict[str, set], cpu: dict[str, float], eligible: list[str]) -> list[str]:
    """Heaviest first: drop a test when every arc it covers is covered by another test still kept
    (any test of ``arcs``, eligible or not).  The kept tests' union equals the whole union."""
    count: dict = {}
    for test_arcs in arcs.values():
        for arc in test_arcs:
            count[arc] = count.get(arc, 0) + 1
    dropped = []
    for test in sorted(eligible, key=lambda t: (-cpu.get(t, 0.0), t)):
        test_arcs = arcs.get(test, set())
        if test_arcs and all(count[a] >= 2 for a in test_arcs):
            for a in test_arcs:
                count[a] -= 1
            dropped.append(test)
    return dropped


MIN_CPU_S = 0.5
"""A test that took less (CPU seconds under coverage, about 2-3x its CPU without) is kept in CI:
dropping it saves next to nothing, and such a test is most often a check of its own (a table's
completeness, a remark's wording) whose arcs happen to be covered by the program cases."""


def eligible_tests(outcome: dict[str, str], cpu: dict[str, float], min_cpu: float, uses_hypothesis) -> list[str]:
    """The tests ``greedy_drop`` may drop: passed, not a property test, and at least ``min_cpu``."""
    return [t for t, o in outcome.items()
            if o == "passed" and cpu.get(t, 0.0) >= min_cpu and not uses_hypothesis(t)]


def _uses_hypothesis(nodeid: str) -> bool:
    """Whether the test's function runs hypothesis (``@given(`` in the 600 characters above its ``def``): looked up in
    the test's file, else in the other Python files of its folder (a test the file binds from a helper's factory:
    dot_sweep_checks.dot_sweep_compile_tests's tests, bound by sweeps 25 on); True where no ``def`` is found."""
    path, _, name = nodeid.partition("::")
    name = name.split("[")[0]
    try:
        source = open(os.path.join(ROOT, path)).read()
    except OSError:
        return True
    i = source.find(f"def {name}(")
    if i >= 0:
        return "@given(" in source[max(0, i - 600):i]
    folder = os.path.dirname(os.path.join(ROOT, path))
    found = False
    for other in sorted(os.listdir(folder)):
        if not other.endswith(".py") or os.path.join(folder, other) == os.path.join(ROOT, path):
            continue
        with open(os.path.join(folder, other)) as f:
            text = f.read()
        i = text.find(f"def {name}(")
        if i >= 0:
            found = True
            if "@given(" in text[max(0, i - 600):i]:
                return True
    return not found


def _head() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def cmd_measure(ns) -> None:
    os.makedirs(ns.work, exist_ok=True)
    db = os.path.join(ns.work, f"{ns.group}.full.db")
    tests = run_measured(db, ns.files, [])
    meta = {"files": ns.files, "full": tests, "commit": _head()}
    with open(os.path.join(ns.work, f"{ns.group}.json"), "w") as f:
        json.dump(meta, f, indent=1)
    per, union = arcs_by_test(db)
    print(f"{ns.group}: {len(tests['cpu'])} tests, {sum(tests['cpu'].values()):.1f} CPU s (traced), "
          f"{len(union)} arcs; {tests['summary']}")


def cmd_select(ns) -> None:
    with open(os.path.join(ns.work, f"{ns.group}.json")) as f:
        meta = json.load(f)
    full = meta["full"]
    per, union = arcs_by_test(os.path.join(ns.work, f"{ns.group}.full.db"))
    cpu = dict(full["cpu"])
    if ns.cpu_log:  # untraced per-test CPU of a profiled run (conftest's --cpu-durations table)
        cpu.update(_cpu_from_log(ns.cpu_log, set(cpu)))
    eligible = eligible_tests(full["outcome"], cpu, ns.min_cpu, _uses_hypothesis)
    tests_arcs = {t: a for t, a in per.items() if t}
    dropped = greedy_drop(tests_arcs, cpu, eligible)
    rounds = []
    missing, extra = set(), set()
    if not dropped:
        print(f"{ns.group}: no test to drop (each eligible test covers an arc no other test covers)")
    for _ in range(ns.rounds if dropped else 0):  # nothing dropped: the subset is the group, nothing to verify
        db = os.path.join(ns.work, f"{ns.group}.subset{len(rounds)}.db")
        sub = run_measured(db, meta["files"], dropped)
        _, sub_union = arcs_by_test(db)
        missing, extra = union - sub_union, sub_union - union
        rounds.append({"dropped": len(dropped), "missing": len(missing), "extra": len(extra),
                       "summary": sub["summary"], "traced_cpu": sum(sub["cpu"].values())})
        print(f"{ns.group}: dropped {len(dropped)}, subset misses {len(missing)} arcs, adds {len(extra)}; {sub['summary']}")
        if not missing:
            break
        # bring back dropped tests that cover the missing arcs (greedy: most missing arcs first)
        back, left = [], set(missing)
        while left:
            best = max(dropped, key=lambda t: (len(tests_arcs.get(t, set()) & left), -cpu.get(t, 0.0)), default=None)
            if best is None or not tests_arcs.get(best, set()) & left:
                break
            back.append(best)
            dropped.remove(best)
            left -= tests_arcs[best]
        by_file: dict = {}
        for arc in missing:
            by_file[arc[0]] = by_file.get(arc[0], 0) + 1
        print(f"{ns.group}: missing arcs by file {sorted(by_file.items(), key=lambda kv: -kv[1])[:8]}; "
              f"{len(back)} tests back, {len(left)} arcs no dropped test covers")
        if not back:
            break
    meta["selection"] = {"dropped": sorted(dropped), "rounds": rounds, "arcs": len(union), "min_cpu": ns.min_cpu,
                         "missing": sorted(map(list, missing)), "extra": len(extra),
                         "cpu_before": sum(cpu.get(t, 0.0) for t in full["cpu"]),
                         "cpu_dropped": sum(cpu.get(t, 0.0) for t in dropped),
                         "cases_before": len(full["cpu"]), "cases_after": len(full["cpu"]) - len(dropped)}
    with open(os.path.join(ns.work, f"{ns.group}.json"), "w") as f:
        json.dump(meta, f, indent=1)


def _cpu_from_log(path: str, wanted: set) -> dict[str, float]:
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 5 and parts[1] == "cpu" and parts[3] == "wall":
                nodeid = parts[4] if parts[4].startswith("tests/") else "tests/" + parts[4]
                if nodeid in wanted:
                    out[nodeid] = float(parts[0])
    return out


def cmd_write(ns) -> None:
    data = {}
    if os.path.exists(DATA):
        with open(DATA) as f:
            data = json.load(f)
    for group in ns.groups:
        with open(os.path.join(ns.work, f"{group}.json")) as f:
            meta = json.load(f)
        sel = meta["selection"]
        # arcs the subset misses that no dropped test covers: a kept test's cache hit on what a dropped
        # test compiled first (the backend memo's hit path); written down, and only in ORDER_DEPENDENT
        stray = [a for a in sel["missing"] if not order_dependent(a)]
        if stray:
            raise SystemExit(f"{group}: the subset misses {len(stray)} arcs: {stray[:5]}; not written")
        kept = {k: v for k, v in data.get("groups", {}).get(group, {}).items() if k == "cpu_ab"}
        data.setdefault("groups", {})[group] = kept | {
            "files": meta["files"], "cases_before": sel["cases_before"], "cases_after": sel["cases_after"],
            "arcs": sel["arcs"], "subset_arcs_equal": not sel["missing"], "verify_rounds": len(sel["rounds"]),
            "missing_order_dependent": sel["missing"], "min_cpu_s": sel.get("min_cpu", MIN_CPU_S),
            "commit": meta["commit"],  # the tree measured
            # the per-test CPU seconds of the measure run (under coverage, ~2-3x untraced): the whole group's
            # and the skipped tests'; ``cpu_ab`` (when present) is the untraced min-of-2 measurement
            # and the last verify run's (the kept tests alone: a dropped test's compile a kept one now pays)
            "cpu_traced": {"group_s": round(sel["cpu_before"], 1), "skipped_s": round(sel["cpu_dropped"], 1),
                           "subset_run_s": round(sel["rounds"][-1]["traced_cpu"], 1) if sel["rounds"] else None},
            "skipped_in_ci": sel["dropped"]}
    data["about"] = ("Tests CI skips (tests/conftest.py; TILEORCH_EMULATE_ALL=1 runs them): the kept tests of "
                     "each group cover the same lines and branches of src/tileorch as the whole group "
                     "(tools/ci_case_selection.py).")
    with open(DATA, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


def _params(nodeid: str) -> list[str]:
    """The parameter ids of a node id (``f.py::test_x[1-name]`` -> ``["1", "name"]``; none: ``[]``)."""
    return nodeid[nodeid.index("[") + 1:-1].split("-") if nodeid.endswith("]") and "[" in nodeid else []


def spill_checks_to_skip(nodeids: list[str], skipped: set[str], spill_test: str) -> list[str]:
    """The per-program spill checks (``spill_test[NAME]``) CI may skip: those of the programs whose other tests
    in the group (a node id with NAME among its parameter ids) CI all skips, and that have at least one.

    Why this keeps the group's arcs: such a check compiles its program (what the program's dropped tests
    compiled: their arcs are covered by the kept tests, the selection's proof) and runs ptxas on the PTX, whose
    arcs (tileorch/backend/ptxas.py) every kept spill check covers too: in the measured groups (session 41's
    coverage databases) the spill test's arcs beyond the other kept tests' were all in backend/ptxas.py, and the
    per-program checks of a group each covered the same ones (attnsweep36: 4 checks, none with an arc of its
    own).  At least one spill check of the group must stay: the caller checks it."""
    out = []
    for nodeid in nodeids:
        if nodeid.split("::", 1)[-1].split("[")[0] != spill_test or len(_params(nodeid)) != 1:
            continue
        name = _params(nodeid)[0]
        others = [n for n in nodeids if n != nodeid and name in _params(n)]
        if others and all(n in skipped for n in others):
            out.append(nodeid)
    return out


def cmd_spills(ns) -> None:
    """Add the spill checks :func:`spill_checks_to_skip` allows to a written group of the data."""
    with open(DATA) as f:
        data = json.load(f)
    entry = data["groups"][ns.group]
    env = dict(os.environ, TILEORCH_EMULATE_ALL="1")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "--collect-only", "-p", "no:cacheprovider",
                          *entry["files"]], capture_output=True, text=True, cwd=ROOT, env=env, check=True).stdout
    nodeids = [ln.strip() for ln in out.splitlines() if "::" in ln]
    skipped = set(entry["skipped_in_ci"])
    spills = [n for t in ns.test for n in spill_checks_to_skip(nodeids, skipped, t)]
    kept_spills = [n for t in ns.test for n in nodeids if n.split("::", 1)[-1].split("[")[0] == t and n not in spills]
    if not kept_spills:
        raise SystemExit(f"{ns.group}: no spill check would stay in CI (its ptxas arcs); not written")
    entry["skipped_in_ci"] = sorted(skipped | set(spills))
    entry["spill_checks_skipped"] = len(set(spills) - skipped)
    entry["cases_before"] = len(nodeids)
    entry["cases_after"] = len(nodeids) - len(entry["skipped_in_ci"])
    with open(DATA, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{ns.group}: {len(spills)} spill checks skipped in CI, {len(kept_spills)} kept")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure", help="run a group's files under coverage, one context per test")
    m.add_argument("--work", required=True)
    m.add_argument("group")
    m.add_argument("files", nargs="+")
    s = sub.add_parser("select", help="greedy heaviest-first removal, then verify the subset's arcs")
    s.add_argument("--work", required=True)
    s.add_argument("--cpu-log", help="a --cpu-durations=0 log: untraced CPU seconds per test")
    s.add_argument("--rounds", type=int, default=4)
    s.add_argument("--min-cpu", type=float, default=MIN_CPU_S,
                   help=f"tests under this many CPU seconds (traced) stay in CI (default {MIN_CPU_S})")
    s.add_argument("group")
    w = sub.add_parser("write", help="store the verified selections in tests/ci_case_selection.json")
    w.add_argument("--work", required=True)
    w.add_argument("groups", nargs="+")
    sp = sub.add_parser("spills", help="skip in CI the per-program spill checks of programs CI runs no other test of")
    sp.add_argument("--test", action="append", required=True, help="the per-program spill test's name")
    sp.add_argument("group")
    ns = p.parse_args(argv)
    {"measure": cmd_measure, "select": cmd_select, "write": cmd_write, "spills": cmd_spills}[ns.cmd](ns)


if __name__ == "__main__":
    main()
