"""The properties the checker proves, and the violation record it reports.

Every check is local to one transition (it reads only the objects the transition touches and
its agent's own state) or to a terminal state, which is what lets partial-order reduction keep
all violations (see ``docs/model-checking.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEADLOCK = "deadlock"
DRAIN = "drain"
READ_BEFORE_COMMIT = "read-before-commit"
WRITE_BEFORE_RELEASE = "write-before-release"
RELEASE_BEFORE_READ = "release-before-read"
OVER_ARRIVAL = "over-arrival"
PARITY_ALIASING = "parity-aliasing"
TOKEN_PROTOCOL = "token-protocol"
FIXUP_ORDER = "fixup-order"
FIXUP_COUNT = "fixup-count"
FIXUP_DETERMINISM = "fixup-determinism"
NAMED_BARRIER_COUNT = "named-barrier-count"
SEQ_ORDER = "seq-order"

DESCRIPTIONS: dict[str, str] = {
    DEADLOCK: "progress: some reachable state has every unfinished agent blocked",
    DRAIN: "progress: the pipeline must drain (producer tail observes every release, barriers "
           "end at a phase boundary) before the kernel exits",
    READ_BEFORE_COMMIT: "safety: a consumer reads a stage only after the round's commit "
                        "completed the phase, transaction bytes included",
    WRITE_BEFORE_RELEASE: "safety: a producer writes a stage only after every consumer "
                          "released the previous round",
    RELEASE_BEFORE_READ: "safety: a consumer releases a stage only after its last read of it",
    OVER_ARRIVAL: "safety: no barrier phase receives more arrivals than its count",
    PARITY_ALIASING: "safety: a parity wait passes only for the phase it waits for (no waiter "
                     "lags a barrier by two phases, no missed phase flip)",
    TOKEN_PROTOCOL: "safety: a try_* whose token says 'not done' is finalized before the "
                    "stage is used",
    FIXUP_ORDER: "Stream-K: every partial is stored (and released) before its reducer reads it",
    FIXUP_COUNT: "Stream-K: each partial is counted exactly once",
    FIXUP_DETERMINISM: "Stream-K: in deterministic mode the reduced result does not depend on "
                       "the schedule",
    NAMED_BARRIER_COUNT: "named barriers: the arriving thread count equals the count of every "
                         "bar.sync/bar.arrive on that id",
    SEQ_ORDER: "ordered sequence barrier: at every stage the groups enter in turn 0, 1, ..., "
               "L-1, and a group enters only after the previous group arrived (left the stage)",
}


@dataclass(frozen=True)
class Violation:
    """A violated property, the agent and op that violated it, and why."""

    prop: str
    message: str
    agent: str | None = None
    op: object = field(default=None, compare=False)

    def headline(self) -> str:
        who = f" [{self.agent}]" if self.agent else ""
        return f"{self.prop}{who}: {self.message}"
