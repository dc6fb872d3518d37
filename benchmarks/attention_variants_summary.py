"""One table of ``benchmarks/attention_variants.py`` runs made one process per variant.

Reads every ``DIR/*/attention_variants.json`` (each variant's own ``--out``), merges the rows by
(head dim, sequence, causal), writes ``DIR/summary.json`` and prints one line per case: each
variant's TFLOP/s with its ratio to the ``default`` variant of the same case, SDPA cuDNN's TFLOP/s
(measured beside each variant: the first one read is shown) and any variant's error.

    python3 benchmarks/attention_variants_summary.py DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def merge(root: Path) -> dict[tuple, dict]:
    """(d, seq, causal) -> {"cudnn": TFLOP/s, "<variant>_tflops" / "_err" / "_error": value}."""
    rows: dict[tuple, dict] = {}
    for f in sorted(root.glob("*/attention_variants.json")):
        for r in json.loads(f.read_text())["rows"]:
            key = (r["d"], r["seq"], r["causal"])
            rows.setdefault(key, {"cudnn": r.get("sdpa_cudnn_tflops")})
            for k, v in r.items():
                if k.endswith(("_tflops", "_err", "_error")) and not k.startswith("sdpa"):
                    rows[key][k] = v
    return rows


def lines(rows: dict[tuple, dict]) -> list[str]:
    out = []
    for (d, q, c), v in sorted(rows.items()):
        base = v.get("default_tflops")
        cells = [f"{k[:-7]} {t:.1f}" + (f" ({t / base:.3f})" if base else "") for k, t in v.items()
                 if k.endswith("_tflops") and isinstance(t, (int, float))]
        errors = [f"{k} {e}" for k, e in v.items() if k.endswith("_error")]
        out.append(f"d{d} {q} {'causal' if c else 'noncausal'}: " + "; ".join(cells) + f"; cudnn {v['cudnn']}"
                   + (" ERRORS " + " | ".join(errors) if errors else ""))
    return out


def main(argv: list[str]) -> int:
    root = Path(argv[0])
    rows = merge(root)
    (root / "summary.json").write_text(json.dumps([{"d": d, "seq": q, "causal": c, **v}
                                                   for (d, q, c), v in sorted(rows.items())], indent=1))
    print("\n".join(lines(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
