"""Summarise a GPU conformance run (pytest ``--junitxml``) as Markdown: device, driver, date,
configurations per family, failures with their first message line, sanitizer summaries.

    python benchmarks/conformance_report.py RESULT.xml DEVICE.txt [SANITIZER.log] > conformance.md
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

FAMILIES = (("pipe_", "pipeline"), ("cluster_", "cluster"), ("bulk_copy", "atoms"), ("seqbar_", "seq_bar"),
            ("named_", "named barrier"), ("gbar_", "generic barrier"), ("persistent_", "persistent schedule"),
            ("fixup_", "stream-K fix-up"), ("mods_", "MODS probes"))


def family(case_id: str) -> str:
    return next((name for prefix, name in FAMILIES if case_id.startswith(prefix)), "other")


def main() -> None:
    xml, device = Path(sys.argv[1]), Path(sys.argv[2])
    passed, failed = Counter(), Counter()
    failures = []
    for tc in ET.parse(xml).getroot().iter("testcase"):
        case = re.sub(r"^test_conformance\[(.*)\]$", r"\1", tc.get("name", ""))
        fam = family(case)
        bad = tc.find("failure") if tc.find("failure") is not None else tc.find("error")
        if tc.find("skipped") is not None:
            continue
        if bad is None:
            passed[fam] += 1
        else:
            failed[fam] += 1
            msg = (bad.get("message") or bad.text or "").strip().splitlines()
            failures.append((case, msg[0] if msg else ""))
    lines = ["# GPU conformance run", "", "```", device.read_text().strip(), "```", "",
             "| family | configurations | exact | failed |", "|---|---:|---:|---:|"]
    for _, fam in FAMILIES + (("", "other"),):
        n = passed[fam] + failed[fam]
        if n:
            lines.append(f"| {fam} | {n} | {passed[fam]} | {failed[fam]} |")
    total_p, total_f = sum(passed.values()), sum(failed.values())
    lines.append(f"| **all** | **{total_p + total_f}** | **{total_p}** | **{total_f}** |")
    if failures:
        lines += ["", "Failures (first line of each):", ""]
        lines += [f"- `{case}`: {msg}" for case, msg in sorted(failures)]
    if len(sys.argv) > 3 and Path(sys.argv[3]).exists():
        lines += ["", "Sanitizer runs:", "", "```"]
        for line in Path(sys.argv[3]).read_text().splitlines():
            if line.startswith("== compute-sanitizer") or "SUMMARY" in line or "cases exact" in line or line.startswith("exit="):
                lines.append(line)
        lines.append("```")
        racy = sorted(set(re.findall(r"Race reported between \w+ access at (\w+)\+", Path(sys.argv[3]).read_text())))
        if racy:
            lines += ["", "Kernels with racecheck hazard reports: " + ", ".join(f"`{k}`" for k in racy)]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
