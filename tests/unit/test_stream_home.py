"""``tileorch.launchers.launch_copies.homed`` (was ``stream_home``): a bound launch that writes a scratch buffer kept
per stream, replayed on another stream, is ordered with its own stream (review of session 43: two streams wrote one K-major buffer).
No GPU: a stand-in driver records the calls."""

from __future__ import annotations

import warnings

import pytest

from tileorch.launchers import launch_copies as stream_home
from tileorch.runtime.driver import use_api


class _Driver:
    """The four calls :func:`stream_home.order_after` makes, recorded (streams as the handles given)."""

    def __init__(self):
        self.calls, self.events = [], 0

    def CUstream(self, handle):  # noqa: N802 - the driver's name
        return ("stream", handle)

    def cuEventCreate(self, flags):  # noqa: N802
        self.events += 1
        self.calls.append(("create", self.events, flags))
        return 0, self.events

    def cuEventRecord(self, event, stream):  # noqa: N802
        self.calls.append(("record", event, stream[1]))
        return (0,)

    def cuStreamWaitEvent(self, stream, event, flags):  # noqa: N802
        self.calls.append(("wait", stream[1], event))
        return (0,)

    def cuEventDestroy(self, event):  # noqa: N802
        self.calls.append(("destroy", event))
        return (0,)


def test_order_after_records_on_the_stream_waited_for_and_waits_on_the_other():
    drv = _Driver()
    with use_api(drv):
        stream_home.order_after(11, 9)
    assert drv.calls == [("create", 1, 2), ("record", 1, 9), ("wait", 11, 1), ("destroy", 1)]  # 2: no timing


def test_a_launch_on_its_own_stream_makes_no_driver_call_and_says_nothing():
    ran = []
    go = stream_home.homed(ran.append, 9, "k.py:1:1: warning: cuTile kernel k")
    drv = _Driver()
    with use_api(drv), warnings.catch_warnings():
        warnings.simplefilter("error")
        go(9)
        go(9)
    assert ran == [9, 9] and drv.calls == []


def test_a_launch_on_another_stream_runs_between_its_streams_work_and_is_said_once():
    drv = _Driver()
    go = stream_home.homed(lambda h: drv.calls.append(("launch", h)), 9, "k.py:1:1: warning: cuTile kernel k")
    with use_api(drv):
        with pytest.warns(Warning, match=r"k\.py:1:1: warning: cuTile kernel k: a launch kept bound on stream 9 was "
                                         r"replayed on stream 11"):
            go(11)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (once per bound launch)
            go(11)
    one = [("create", 1, 2), ("record", 1, 9), ("wait", 11, 1), ("destroy", 1), ("launch", 11),
           ("create", 2, 2), ("record", 2, 11), ("wait", 9, 2), ("destroy", 2)]
    assert drv.calls[:9] == one and len(drv.calls) == 18
