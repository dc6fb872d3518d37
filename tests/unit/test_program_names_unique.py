"""Program names are unique across the test program collections: the interpreter sweeps merge them
into one table (test_user_sweep_interp.PROGRAMS), so a repeated name made one sweep's test run
another sweep's program (CI of session 17: embedding_bwd_scatter_add in sweeps 7 and 10).  A collection
may run another's program under its own name when it is the same kernel (gathered_dot_programs runs
sweep 16's moe_gathered_rows_expert_table, not a copy of it)."""

from __future__ import annotations

import collections
import importlib
import pkgutil

import pytest

pytest.importorskip("cuda.tile")

import tileorch.testing as testing  # noqa: E402


def test_no_program_name_is_defined_by_two_collections():
    owners = collections.defaultdict(list)
    kernels = collections.defaultdict(set)
    for mod in pkgutil.iter_modules(testing.__path__):
        if not mod.name.endswith("_programs") and not mod.name.startswith("user_programs"):
            continue
        programs = getattr(importlib.import_module(f"tileorch.testing.{mod.name}"), "PROGRAMS", None)
        if isinstance(programs, dict):
            for name, entry in programs.items():
                owners[name].append(mod.name)
                kernels[name].add(id(getattr(entry, "kernel", entry)))
    assert owners, "no program collections found"
    repeated = {n: m for n, m in owners.items() if len(m) > 1 and len(kernels[n]) > 1}
    assert not repeated, repeated
