"""Suite-wide settings.  Compiles verify once per pipeline, as ``tileorch compile`` does
(verifying after every pass costs about a third more per compile); tests/unit/test_verify_each_pass.py
compiles one input of every route with ``TILEORCH_VERIFY_EACH_PASS=1``, so a pass that leaves invalid
IR is still reported at that pass.  Set ``TILEORCH_VERIFY_EACH_PASS=1`` to run the whole suite so."""

import os
import re

import pytest

os.environ.setdefault("TILEORCH_VERIFY_EACH_PASS", "0")
# a crash inside the TileAS tier (or an optional rewrite) fails the test that hits it instead of the warning and
# fallback a user gets: session 43 found a tier import error that had sent 13 MLP chains to the SIMT path unnoticed
os.environ.setdefault("TILEORCH_INTERNAL_ERRORS", "raise")
# the C launcher (on by default) is waited for where it is built, so that which path a test's launches take does
# not depend on the machine's load (a user's first launch waits at most 500 ms, then takes cuda-python's binding)
os.environ.setdefault("TILEORCH_LAUNCH_C_WAIT_MS", "120000")
if "TILEORCH_CACHE_DIR" not in os.environ:  # compiled kernels of this run only: no stale hits, no litter
    import tempfile

    os.environ["TILEORCH_CACHE_DIR"] = tempfile.mkdtemp(prefix="tileorch-test-cache-")
if "TILEORCH_BACKEND_MEMO" not in os.environ:  # LLVM codegen and ptxas run once per distinct input of
    import tempfile  # the run, shared by the xdist workers (tileorch.backend.memo); "" turns it off

    os.environ["TILEORCH_BACKEND_MEMO"] = tempfile.mkdtemp(prefix="tileorch-test-backend-memo-")
if "TILEORCH_TEST_COMPILE_MEMO" not in os.environ:  # whole compiles of the tests that opt in
    import tempfile  # (tileorch.testing.compile_memo.compile_once), shared by the xdist workers

    os.environ["TILEORCH_TEST_COMPILE_MEMO"] = tempfile.mkdtemp(prefix="tileorch-test-compile-memo-")


def _ptxas_on_path() -> None:
    """Tests and lit RUN lines that call a bare ``ptxas`` use the one tileorch finds
    (``TILEORCH_PTXAS``, else the ``nvidia-cuda-nvcc`` wheel) when PATH has none: a machine with
    pip alone and no CUDA toolkit runs them too."""
    import shutil

    if shutil.which("ptxas") is not None:
        return
    try:
        from tileorch.backend.ptxas import find_ptxas

        loc = find_ptxas()
    except Exception:  # noqa: BLE001  (a bad TILEORCH_PTXAS is reported by the tests that use it)
        return
    if loc is not None and os.path.basename(loc.path) in ("ptxas", "ptxas.exe"):
        os.environ["PATH"] = os.path.dirname(loc.path) + os.pathsep + os.environ.get("PATH", "")


_ptxas_on_path()


def _gpu_present() -> bool:
    """An NVIDIA device node (cheap; no driver call): GPU tests then run serially."""
    return os.path.exists("/dev/nvidia0") or os.path.exists("/dev/nvidiactl")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Spread the suite over the CPUs (pytest-xdist, one worker per core) when xdist is installed,
    no ``-n`` was given (``-n 0`` runs in this process), there is no GPU here (GPU tests share the device: they run serially) and
    ``TILEORCH_XDIST`` is not ``0``.

    Work stealing (``--dist worksteal``), not ``load``: ``load`` gives each worker a first batch
    of an eighth of the tests at once (2887 tests, 2 workers: 360 each), and the first 360 in
    :data:`LONGEST_FIRST` order are the 17 longest files, about three quarters of the suite's CPU:
    one worker ran them while the other emptied the queue and then waited (CI at 13:15 UTC,
    2026-12-02: 529 s of wall for ~760 CPU seconds on 2 cores).  With work stealing each worker
    starts with half of the tests, and a worker that runs dry takes the second half of the other's
    remaining ones, so both end within about one test of each other."""
    if os.environ.get("TILEORCH_XDIST", "1") == "0" or _gpu_present():
        return None
    if not config.pluginmanager.hasplugin("xdist") or getattr(config.option, "numprocesses", None) is not None:
        return None  # an explicit -n, -n 0 included, is kept
    if os.environ.get("PYTEST_XDIST_WORKER"):  # inside a worker already
        return None
    workers = os.cpu_count() or 1
    if workers < 2:
        return None
    config.option.numprocesses = workers
    if getattr(config.option, "dist", "no") == "no":
        config.option.dist = "worksteal"
    return None


# Test files whose tests take longest (CPU seconds of a full run, ``--cpu-durations``), longest
# first.  They run first, and the tests that a machine without GPU skips run last: the first
# worker starts on the long tests, the other steals from the end of its queue (short tests), so
# that the workers finish together instead of one running a long test picked up last while the
# other is idle.
# Order only: every test still runs; a file missing here keeps its place after these.
LONGEST_FIRST = (
    # module fixtures of ~15 s (every example lowered, one iree-opt batch over them) and 58 short
    # tests: first, where the other worker never steals (it takes the end of a queue), so that
    # the fixtures run on one worker only (split by a steal in the 14:21 run: 38 s instead of 20)
    "unit/test_upstream_mlir.py",
    "unit/test_fuzz_bytecode.py",  # one 27 s campaign: early, so that it never runs last
    # CPU s of the file in the profiled full run of main 58d40b97 (2026-12-07 00:41-01:47 UTC, two xdist workers,
    # --cpu-durations=0, the host shared with other jobs (load ~5): numbers ~1.5x session 35's idle-host run;
    # benchmarks/results/ci_s37_2026-12-07.json), longest first; a sweep by the sum of its files (it runs together,
    # the interpreter file first: sweep_group), down to 10 s.
    # test_lit.py's sum holds its fork server's CPU (counted at the last shard's teardown)
    "unit/test_cover27_compile.py",  # 112.2; ~19 after session 43 (two_k_lengths_difference_bt proof 121.6 -> 3.5 CPU s)
    "test_lit.py",  # 103.6
    # 86.6 x 0.49 (session 41's CI subset: the group's per-test CPU under coverage 135.2 -> 65.7 s (the subset's own
    # run: 54.9), 65 -> 34 cases)
    "unit/test_attention_programs2_interp.py",  # ~42.2: sweep (interp 7.0, compile 18.5, emulated 61.0 before the subset)
    # 87.6 x 0.87 (session 40's CI subset: min-of-2 CPU of the group 58.5 -> 51.0 s, -n 0)
    "unit/test_user_sweep20_interp.py",  # ~76.4: sweep (interp 29.0, compile 36.4, emulated 22.1 before the subset)
    # 75.4 x 0.67 (session 41's CI subset: per-test CPU under coverage 52.1 -> 34.7 s in the subset's own run, 55 -> 31
    # cases; the dropped path tests' compiles move to the kept proof and spill tests)
    "unit/test_attnsweep36_compile.py",  # ~50.2
    # 70.3 x 0.86 (session 41's CI subset: per-test CPU under coverage 64.6 -> 53.5 s (the subset's own run: 55.3),
    # 208 -> 193 cases: most of its cases are under the 0.5 s that stays)
    "unit/test_user_sweep_interp.py",  # ~60.5: sweep (interp 21.1, user_sweep 49.2 before the subset)
    # 64.7 x 0.89 (session 41's CI subset: per-test CPU under coverage 81.4 -> 56.4 s summed, 72.6 in the subset's own
    # run (the dropped tests' compiles move to kept ones), 74 -> 52 cases)
    "unit/test_user_sweep18_interp.py",  # ~57.6: sweep (interp 7.8, compile 45.4, emulated 11.4 before the subset)
    "unit/test_chained_emulated.py",  # ~30.9: 64.4 x 0.48 (session 43 CI subset: CPU -n 0 44.96 -> 21.53 s, 32 -> 15)
    # 104.1 x 0.60 (session 40's CI subset: min-of-2 CPU of the group 94.0 -> 56.8 s, -n 0)
    "unit/test_user_sweep6_interp.py",  # ~62.9: sweep (interp 42.1, compile 15.9, emulated 46.1 before the subset)
    # 61.2 x 0.73 (session 41's CI subset: per-test CPU under coverage 82.1 -> 60.1 s summed, 60.0 in the subset's own
    # run, 112 -> 95 cases)
    "unit/test_user_sweep5_interp.py",  # ~44.7: sweep (interp 24.7, compile 6.9, emulated 29.5 before the subset)
    # 57.8 x 0.90 (session 41's CI subset: per-test CPU under coverage 31.7 -> 27.9 s summed, 28.5 in the subset's own
    # run, 187 -> 182 cases: most of its cases are under the 0.5 s that stays)
    "unit/test_user_sweep10_interp.py",  # ~52.0: sweep (interp 51.0, compile 1.6, emulated 5.2 before the subset)
    "unit/test_epilogue_dot_programs.py",  # ~33.7: 57.7 x 0.58 (session 44 CI subset: -n 0 CPU 34.76 -> 20.33 s, 55 -> 36)
    # 57.0 x 0.95 (session 41's CI subset: per-test CPU under coverage 52.9 -> 46.4 s summed, 50.0 in the subset's own
    # run (the dropped path tests' compiles move to kept ones), 51 -> 44 cases)
    "unit/test_user_sweep16_compile.py",  # ~54.2: sweep (compile 44.8, emulated 12.2 before the subset)
    # 55.9 x 0.92 (session 41's CI subset: per-test CPU under coverage 58.9 -> 36.2 s summed, 54.1 in the subset's own
    # run: test_chained_kernels_assemble_without_spills compiles what the dropped path tests did, 46 -> 30 cases)
    "unit/test_attention_programs3_compile.py",  # ~51.4
    # 54.8 x 0.85 (session 41's CI subset: per-test CPU under coverage 59.7 -> 48.4 s summed, 50.6 in the subset's own
    # run, 128 -> 120 cases)
    "unit/test_user_sweep7_interp.py",  # ~46.6: sweep (interp 43.7, compile 8.8, emulated 2.3 before the subset)
    # 53.3 x 0.99 (session 41's CI subset: per-test CPU under coverage 28.7 -> 28.0 s summed, 28.4 in the subset's own
    # run, 114 -> 113 cases: its cases' arcs are mostly their own)
    "unit/test_user_sweep25_interp.py",  # ~52.8: sweep (interp 3.4, compile 45.0, emulated 5.0)
    # 52.8 x 0.86 (session 41's CI subset: per-test CPU under coverage 59.0 -> 39.8 s summed, 50.9 in the subset's own
    # run (the dropped path tests' compiles move to kept ones), 64 -> 48 cases)
    "unit/test_user_sweep22_interp.py",  # ~45.4: sweep (interp 13.9, compile 29.2, emulated 9.7 before the subset)
    # 51.7 x 0.88 (session 41's CI subset: per-test CPU under coverage 58.5 -> 51.4 s summed, 51.5 in the subset's own
    # run, 67 -> 59 cases)
    "unit/test_user_sweep11_interp.py",  # ~45.5: sweep (interp 12.9, compile 30.1, emulated 8.6 before the subset)
    "unit/test_chained_s_ahead.py",  # ~38.0: 51.7 x 0.73 (session 43 CI subset: -n 0 CPU 36.0 -> 26.4 s)
    # 61.2 x 0.83 (session 40's CI subset: min-of-2 CPU of the group 39.7 -> 33.0 s, -n 0)
    "unit/test_user_sweep4_interp.py",  # ~50.9: sweep (interp 22.8, compile 8.4, emulated 30.0 before the subset)
    "unit/test_attnzoo32_emulated.py",  # ~35.8: 47.7 x 0.75 (session 43 CI subset: -n 0 CPU 27.4 -> 20.6 s)
    "unit/test_user_sweep13_interp.py",  # 46.3: sweep (interp 42.7, compile 3.1, emulated 0.5)
    "unit/test_user_sweep8_interp.py",  # 45.7: sweep (interp 31.4, compile 8.0, emulated 6.3)
    "unit/test_user_sweep3_interp.py",  # 45.7: sweep (interp 11.8, compile 11.6, emulated 22.2)
    "unit/test_online_softmax_emulated.py",  # ~20.8: 45.4 x 0.46 (session 43 CI subset: -n 0 CPU 35.4 -> 16.2 s)
    "unit/test_user_sweep17_interp.py",  # 44.3: sweep (interp 40.4, compile 2.4, emulated 1.5)
    "unit/test_user_sweep9_interp.py",  # 43.2: sweep (interp 19.8, compile 18.8, emulated 4.6)
    "unit/test_stack_query_heads.py",  # ~31.1: 41.9 x 0.74 (session 44 CI subset: -n 0 CPU 17.63 -> 13.07 s, 26 -> 13)
    "unit/test_user_sweep21_invalid.py",  # 40.2: sweep (user_sweep21_invalid 40.2)
    "unit/test_chained_row_groups.py",  # ~28.3: 39.2 x 0.72 (session 44 CI subset: -n 0 CPU 25.28 -> 18.23 s, 48 -> 33)
    "unit/test_epilogue_dot_tma_store.py",  # 39.0
    "unit/test_dot_zoo_tier.py",  # ~25.2: 38.3 x 0.66 (session 44 CI subset: -n 0 CPU 31.04 -> 20.41 s, 71 -> 44)
    "unit/test_chained_q_regs.py",  # ~33.7: 36.9 x 0.92 (session 43 CI subset: -n 0 CPU 32.9 -> 30.1 s)
    "unit/test_user_sweep28_interp.py",  # 35.8: sweep (interp 8.5, compile 25.5, emulated 1.8)
    "unit/test_chained_s17_switches.py",  # ~26.0: 34.9 x 0.74 (session 43 CI subset: -n 0 CPU 31.8 -> 23.5 s)
    "unit/test_check_chained.py",  # ~26.5: 34.5 x 0.77 (session 44 CI subset: -n 0 CPU 18.78 -> 14.44 s, 34 -> 24)
    "unit/test_review30_dots.py",  # 33.3
    "unit/test_epilogue_dot_stages.py",  # ~29.8: 33.1 x 0.90 (session 44 CI subset: -n 0 CPU 11.52 -> 10.38 s, 11 -> 9)
    "unit/test_user_sweep15_interp.py",  # 31.7: sweep (interp 28.7, compile 2.2, emulated 0.8)
    "unit/test_chained_stagger.py",  # 31.4
    "unit/test_attnzoo30_compile.py",  # 30.6
    "unit/test_attention_programs4_compile.py",  # 30.2
    "unit/test_user_sweep19_interp.py",  # 29.6: sweep (interp 24.2, compile 3.8, emulated 1.6)
    "unit/test_review26_guarded_k_loop.py",  # 29.5
    "unit/test_user_sweep26_interp.py",  # 29.5: sweep (interp 8.7, compile 18.4, emulated 2.3)
    "unit/test_user_sweep21_interp.py",  # 29.1: sweep (interp 22.8, compile 3.7, emulated 2.6)
    "unit/test_user_sweep23_interp.py",  # 28.5: sweep (interp 7.8, compile 19.3, emulated 1.4)
    "unit/test_review28_programs.py",  # 27.9
    "unit/test_chained_schedule.py",  # ~23.3: 26.8 x 0.87 (session 45 CI subset: -n 0 CPU 15.81 -> 13.74 s, 12 -> 10)
    "unit/test_user_sweep12_interp.py",  # 26.6: sweep (interp 25.1, compile 1.6)
    "unit/test_cover29_compile.py",  # 26.4
    "unit/test_row_bulk_fill_emulated.py",  # 25.1
    "unit/test_attention_programs3_emulated.py",  # ~16.5: 25.0 x 0.66 (session 43 CI subset: -n 0 CPU 31.2 -> 20.7 s)
    "unit/test_user_sweep14_compile.py",  # 24.9: sweep (compile 17.4, emulated 7.5)
    "unit/test_user_sweep27_interp.py",  # 24.5: sweep (interp 10.6, compile 11.0, emulated 2.9)
    "unit/test_row_smem_cache_emulated.py",  # 24.2
    "unit/test_computed_b_gemm.py",  # ~18.5: 23.9 x 0.78 (session 44 CI subset: -n 0 CPU 17.59 -> 13.64 s, 25 -> 18)
    "unit/test_epilogue_dot_overlap.py",  # 23.9
    "unit/test_attention_programs4_emulated.py",  # 23.3
    "unit/test_attnzoo32_compile.py",  # 23.0
    "unit/test_attnzoo30_emulated.py",  # 22.1
    "unit/test_prefetch_depth.py",  # 21.5
    "unit/test_chained_kv_ahead.py",  # ~15.0: 20.8 x 0.72 (session 45 CI subset: -n 0 CPU 14.56 -> 10.48 s, 10 -> 9)
    "unit/test_retile192_emulated.py",  # ~15.3: 20.7 x 0.74 (session 45 CI subset: -n 0 CPU 19.00 -> 14.06 s, 18 -> 17)
    "unit/test_gemm_epilogue_dot.py",  # ~13.9: 20.7 x 0.67 (session 44 CI subset: -n 0 CPU 15.28 -> 10.28 s, 44 -> 32)
    "unit/test_compile_memo.py",  # 20.3
    "unit/test_chained_variants.py",  # ~13.6: 20.1 x 0.68 (session 45 CI subset: -n 0 CPU 14.67 -> 9.90 s, 21 -> 15)
    "unit/test_chained_pingpong_kernel.py",  # 19.4
    "unit/test_chained_narrow.py",  # 19.2
    "unit/test_review26_lora.py",  # 18.9
    "unit/test_attnsweep36_emulated.py",  # 18.9
    "unit/test_cover26_compile.py",  # 18.8
    "unit/test_user_sweep2_interp.py",  # 18.0: sweep (interp 7.0, emulated 10.9)
    "unit/test_chained_q_prologue.py",  # 17.2
    "unit/test_tile64_gemm.py",  # 16.7
    "unit/test_cover29_emulated.py",  # 16.7
    "unit/test_cover27_emulated.py",  # 16.4
    "unit/test_chained_row_div.py",  # 16.4
    "unit/test_simt_mma.py",  # 16.3
    "unit/test_review29_dots.py",  # 16.0
    "unit/test_chained_dots.py",  # 15.9
    "unit/test_computed_operand_prefetch.py",  # 15.4
    "unit/test_chained_overlap.py",  # 15.4
    "unit/test_chained_early_q.py",  # 15.3
    "unit/test_api.py",  # 13.2
    "unit/test_attnperf32_switches.py",  # 13.0
    "unit/test_attnzoo32_interp.py",  # 13.0
    "unit/test_cover26_emulated.py",  # 12.7
    "unit/test_simt_layout_interp.py",  # 12.4
    "unit/test_user_sweep28_invalid.py",  # 12.3: sweep (user_sweep28_invalid 12.3)
    "unit/test_float_bits.py",  # 12.2
    "unit/test_kahead_check.py",  # 11.8
    "unit/test_register_a_operand.py",  # 11.4
    "unit/test_transposed_c_gemm.py",  # 11.2
    "unit/test_review27_integer_semantics.py",  # 10.5
    "unit/test_column_major_gemm.py",  # 10.4
)


SESSION_GC_THRESHOLD = (50_000, 50, 50)
"""The cyclic garbage collector's thresholds while the tests run (CPython's default is (700, 10,
10)).  Below the compiles' own (``tileorch.gc_deferral.GC_THRESHOLD``), so that
``gc_deferred`` still raises and restores them in the suite."""


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    """Keep the collector off what collection built, and let it run in larger steps.

    The imported modules, the collected test items and the program tables of the test modules
    live until the end of the session; with the default thresholds every full collection walked
    them again (plus each test's IR kept by the in-process caches): 7.6 of 73 CPU seconds in
    test_simt_mma, test_chained_narrow and test_mask_bounds run together, 21 full collections
    5.96 s of it.  ``gc.freeze`` moves what exists now to the permanent generation (never walked,
    never freed: it is not garbage), and the larger thresholds make the collections rarer
    (measured on the same files: 2.0 s of collector).  Garbage is still collected; tests that
    call ``gc.collect`` get a full collection of everything created since."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*SESSION_GC_THRESHOLD)


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config):
    """In an xdist worker, keep the collector off everything at the end of its session.

    After the tests, pytest's unraisable-exception plugin runs a full collection in its
    ``pytest_unconfigure`` and another in its cleanup, and the interpreter a third as it shuts
    down: each walks the worker's whole heap (the in-process compile memos and lowered kernels:
    3.3 million objects after test_user_sweep6_interp.py alone), and between them they free the
    garbage the rare full collections left and, at shutdown, every cyclic object of the
    module-level caches (the IR of each kept lowering), one by one.  The three sweep interpreter
    files 6, 11 and attention_programs2 in one process: 119.0 CPU s as they were, 98.6 s with this
    freeze (the tests the same; ~17% of that process spent after its last test).  A worker has
    already sent its results (``workerfinished``, at its session finish) when these run, so
    nothing they could report reaches the run's report; ``gc.freeze`` makes all three empty, and
    the process's memory goes back to the system at exit.  Without xdist (``-n 0``) the
    collections still run and report."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import gc

        gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Longest test files first, GPU tests last (when there is no GPU here), a sweep's files
    together with its interpreter file first (:func:`sweep_group`; a sweep file named in
    :data:`LONGEST_FIRST` places its whole sweep there); a stable sort, so a file's
    tests keep their order (and share their module fixtures).  ``--ff``/``--nf`` keep their own
    order.  First, the CI-sized subsets of :data:`CI_CASE_SELECTION` (:func:`skip_ci_selection`)."""
    skip_ci_selection(items)
    if getattr(config.option, "failedfirst", False) or getattr(config.option, "newfirst", False):
        return
    rank: dict[str, int] = {}  # a sweep's group ranks where the first of its files listed does
    for i, name in enumerate(LONGEST_FIRST):
        rank.setdefault(sweep_group(name)[0], i)
    gpu_last = not _gpu_present()
    first_of_group: dict[str, int] = {}

    def path_of(item) -> str:
        path = item.nodeid.split("::", 1)[0].replace("\\", "/")
        return path[len("tests/"):] if path.startswith("tests/") else path

    for i, item in enumerate(items):
        first_of_group.setdefault(sweep_group(path_of(item))[0], i)

    def key(item) -> tuple:
        path = path_of(item)
        if gpu_last and path.startswith("gpu/"):
            return (len(LONGEST_FIRST) + 1,)
        group, role = sweep_group(path)
        return (rank.get(group, len(LONGEST_FIRST)), first_of_group[group], role)

    items.sort(key=key)


CI_CASE_SELECTION = os.path.join(os.path.dirname(__file__), "ci_case_selection.json")
"""The tests of the sweep files that CI skips (tools/ci_case_selection.py): in each group, the
tests kept cover the same lines and branches of src/tileorch as the whole group, measured by
coverage.py.  ``TILEORCH_EMULATE_ALL=1`` runs them all; the data names the skipped tests, so a new
test runs in CI by default."""


def ci_skipped_tests(path: str | None = None) -> dict[str, str]:
    """{node id: its group} of the tests CI skips (empty with ``TILEORCH_EMULATE_ALL`` set, or
    while tools/ci_case_selection.py measures a group: ``CI_CASE_SELECTION_DB``)."""
    path = CI_CASE_SELECTION if path is None else path
    if os.environ.get("TILEORCH_EMULATE_ALL") or os.environ.get("CI_CASE_SELECTION_DB") or not os.path.exists(path):
        return {}
    import json

    with open(path) as f:
        groups = json.load(f).get("groups", {})
    return {nodeid: group for group, entry in groups.items() for nodeid in entry["skipped_in_ci"]}


def skip_ci_selection(items) -> None:
    """Skip the tests of :data:`CI_CASE_SELECTION` (a located reason: the group and how to run them)."""
    skipped = ci_skipped_tests()
    if not skipped:
        return
    for item in items:
        group = skipped.get(item.nodeid)
        if group is not None:
            item.add_marker(pytest.mark.skip(
                reason=f"CI-sized subset of {group} (tests/ci_case_selection.json: the group's other tests cover "
                       f"its lines and branches of src/tileorch); TILEORCH_EMULATE_ALL=1 runs it"))


_SWEEP_FILE = re.compile(r"^(unit/test_(?:user_sweep\d*|attention_programs2))(?:_(interp|compile|emulated))?\.py$")


def sweep_group(path: str) -> tuple[str, int]:
    """(group, role) of a test file (path under tests/): a sweep's files (``test_user_sweepN.py``
    or ``_compile.py``, ``_interp.py``, ``_emulated.py``) are one group, run together, the
    interpreter file first (role 0), then the compile file (1), then the emulated one (2): the
    interpreter's compiles fill the compile memo with their lowering kept for the interpreter
    (test_user_sweep_interp.SHARED_COMPILES), the compile and emulated files then read it.  Any
    other file is a group of its own."""
    match = _SWEEP_FILE.match(path)
    if match is None:
        return path, 1
    return match.group(1), {"interp": 0, "emulated": 2}.get(match.group(2), 1)


GPU_SKIP_PREFIX = "needs an NVIDIA GPU: "  # tests/gpu/conftest.py's skip reason


def _gpu_skip_reason(report) -> str | None:
    """The reason of a GPU test skipped for want of a GPU, else None."""
    if not report.skipped or "gpu" not in getattr(report, "keywords", {}):
        return None
    longrepr = report.longrepr
    message = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    if GPU_SKIP_PREFIX not in message:
        return None
    return message.split(GPU_SKIP_PREFIX, 1)[1]


def pytest_sessionfinish(session, exitstatus):
    """Stop the fork server of the command-line tests (tests/tool_forkserver.py ``python_m``), if
    one was started in this process: its children's CPU then counts in this process's.  With
    ``--cpu-categories``, write this process's sums (an xdist worker's, or a run without xdist)."""
    import resource
    import sys

    server = sys.modules.get("tool_forkserver")
    if server is not None:
        server.stop_shared()
    codegen = sys.modules.get("tileorch.backend.codegen_server")
    if codegen is not None:  # reaped: its children's CPU then counts in this process's
        codegen.stop()
    directory = session.config.getoption("cpu_categories")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if directory and (worker or not getattr(session.config.option, "numprocesses", None)):
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        _categories().write(directory, worker or "main", (own.ru_utime + own.ru_stime,
                                                          children.ru_utime + children.ru_stime))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line saying that the GPU tests were skipped, and why, when there is no GPU here; the CPU
    table of ``--cpu-durations``."""
    reasons = [r for r in map(_gpu_skip_reason, terminalreporter.stats.get("skipped", [])) if r is not None]
    if reasons:
        terminalreporter.write_line(
            f"{len(reasons)} GPU tests skipped: no Hopper GPU / cuda-python here (expected on CPU-only machines; "
            f"{reasons[0]})")
    limit = config.getoption("cpu_durations")
    if limit is not None:
        _cpu_report(terminalreporter, limit)
    directory = config.getoption("cpu_categories")
    if directory and os.path.isdir(directory):
        terminalreporter.write_sep("=", "CPU seconds by kind of work (--cpu-categories)")
        _categories().report(directory, terminalreporter.write_line)


# --- CPU time per test (--cpu-durations=N) ----------------------------------------------------
# Wall durations (--durations) mean little on a loaded machine; the CPU seconds a test spends,
# its subprocesses included (once waited for), do not depend on how many other jobs share the
# cores.  Used to find and check the suite's costs.


def pytest_addoption(parser):
    parser.addoption("--cpu-durations", type=int, default=None, metavar="N",
                     help="show the N tests that used most CPU (user+sys, subprocesses included; 0: all) "
                          "and the CPU and wall seconds of each test file")
    parser.addoption("--cpu-categories", default=None, metavar="DIR",
                     help="sum the CPU seconds by kind of work (cuTile export, lowering, verification, LLVM "
                          "codegen, ptxas, emulators, ...: tests/cpu_categories.py), one JSON per pytest "
                          "process in DIR, and print the sum")


def _categories():
    import sys

    here = os.path.dirname(__file__)
    if here not in sys.path:
        sys.path.insert(0, here)
    import cpu_categories

    return cpu_categories


def pytest_configure(config):
    if config.getoption("cpu_categories"):
        _categories().install()
    _start_codegen_server(config)


def _start_codegen_server(config) -> None:
    """In each process that runs tests (an xdist worker, or the one process of ``-n 0``), fork
    tileorch's code generation server now, while the process is small: every forked LLVM code
    generation of the tests then forks from it (tileorch.backend.codegen_server: a fork's cost
    grows with the forking process's memory, and a worker grows to gigabytes of compile memos and
    lowered modules).  The xdist controller runs no test and starts none."""
    if not os.environ.get("PYTEST_XDIST_WORKER") and getattr(config.option, "numprocesses", None):
        return
    from tileorch.backend import codegen_server

    codegen_server.start()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """With ``--cpu-categories``: the whole CPU of each test that runs hypothesis, summed apart."""
    directory = item.config.getoption("cpu_categories")
    start = _cpu_seconds() if directory else 0.0
    yield
    if directory and _uses_hypothesis(item):
        _categories().record_test("(tests that run hypothesis: their whole CPU)", _cpu_seconds() - start)


def _uses_hypothesis(item) -> bool:
    import inspect

    fn = getattr(item, "function", None)
    if fn is None or getattr(getattr(item, "module", None), "given", None) is None:
        return False
    if getattr(fn, "is_hypothesis_test", False):
        return True
    try:
        return "@given(" in inspect.getsource(fn)
    except (OSError, TypeError):
        return False


def _cpu_seconds() -> float:
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + _categories().served_cpu_s()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if item.config.getoption("cpu_durations") is None:
        return
    start = item.__dict__.pop("_cpu_start", None)
    now = _cpu_seconds()
    if start is not None:
        outcome.get_result().user_properties.append(("cpu_s", now - start))
    item._cpu_start = now  # the next phase (call, teardown) starts here


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    if item.config.getoption("cpu_durations") is not None:
        item._cpu_start = _cpu_seconds()
    yield


def _cpu_report(terminalreporter, limit: int) -> None:
    from collections import defaultdict

    cpu: dict[str, float] = defaultdict(float)
    wall: dict[str, float] = defaultdict(float)
    workers: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])  # xdist worker -> [cpu, wall]
    for reports in terminalreporter.stats.values():
        for rep in reports:
            props = dict(getattr(rep, "user_properties", ()) or ())
            if "cpu_s" in props and hasattr(rep, "nodeid"):
                cpu[rep.nodeid] += props["cpu_s"]
                wall[rep.nodeid] += getattr(rep, "duration", 0.0)
                worker = getattr(getattr(getattr(rep, "node", None), "gateway", None), "id", None)
                if worker is not None:
                    workers[worker][0] += props["cpu_s"]
                    workers[worker][1] += getattr(rep, "duration", 0.0)
    if not cpu:
        return
    tr = terminalreporter
    tr.write_sep("=", f"CPU seconds per test (user+sys, subprocesses included); total {sum(cpu.values()):.1f} s")
    ranked = sorted(cpu.items(), key=lambda kv: -kv[1])
    for nodeid, s in ranked[:limit] if limit else ranked:
        tr.write_line(f"{s:8.2f} cpu {wall[nodeid]:8.2f} wall  {nodeid}")
    files_cpu: dict[str, float] = defaultdict(float)
    files_wall: dict[str, float] = defaultdict(float)
    for nodeid, s in cpu.items():
        files_cpu[nodeid.split("::")[0]] += s
        files_wall[nodeid.split("::")[0]] += wall[nodeid]
    tr.write_sep("=", "CPU seconds per test file")
    for path, s in sorted(files_cpu.items(), key=lambda kv: -kv[1]):
        tr.write_line(f"{s:8.2f} cpu {files_wall[path]:8.2f} wall  {path}")
    if workers:  # how evenly the xdist workers were loaded (their tests' CPU and wall seconds)
        tr.write_sep("=", "CPU seconds per xdist worker")
        for worker, (s, w) in sorted(workers.items()):
            tr.write_line(f"{s:8.2f} cpu {w:8.2f} wall  {worker}")
