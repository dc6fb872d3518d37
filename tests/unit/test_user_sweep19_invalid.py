"""The nineteenth user sweep's invalid half (``tileorch.testing.user_programs19``): programs a user
gets wrong.  :data:`INVALID` (cuTile's front end accepts them: tiles too large
for the registers or for shared memory in a ``cumsum`` / ``permute`` / ``full`` / ``cat``, a
system-scope ``atomic_xchg``, conversions and scans rounded toward zero, an e8m0 tile): compiled by
the driver and by ``tileorch compile`` on the exported ``.tileirbc``, each stops with
``file:line:col: error:`` at the line of the user's source that the entry's ``notes`` quote, the
message says why, the command exits non-zero, and nothing reads as a traceback or an internal
error.  :data:`REJECTED_BY_CUTILE` (non-power-of-two tiles, a constant given a float, an extract
past the tile, shape / rank / type mismatches, a negative ``range`` step, float atomics cuTile does
not have...): cuTile's exporter raises its own error naming the user's line, so no tileorch input
exists for them; the test keeps cuTile's behaviour in sight."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs19  # noqa: E402
from tileorch.testing.user_programs19 import INVALID, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import cutile_rejects_tests, invalid_sweep_tests  # noqa: E402

SOURCE = user_programs19.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["cumsum_down_512x512_f32", "e8m0_scales_widened"])

test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)
