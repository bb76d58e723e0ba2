#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""docs/PERFORMANCE.md's generated table, rendered from compare.py's JSON kept in docs/data/:

  bench/peer/perf_doc.py --doc docs/PERFORMANCE.md --json docs/data/performance_cpu.json [--write]

The doc's block between the "perf-cpu" markers is compare.py's markdown table of that JSON (its
summary, its metadata and the load before each round). Without --write this exits 1 when the
block is not that rendering (CTest docs_performance); with --write it replaces the block. A new
table: run compare.py with --json docs/data/performance_cpu.json, then this with --write. The
"perf-gpu" block is left as it is: scripts/gpu-check.sh's gpu-table.md goes there by hand.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (this folder's compare.py: one renderer for the console and the doc)

BEGIN = "<!-- perf-cpu: begin (bench/peer/perf_doc.py --write renders this from its JSON) -->"
END = "<!-- perf-cpu: end -->"


def render(doc):
    rows = doc["summary"]
    configs = []
    for r in rows:
        if r["config"] not in configs:
            configs.append(r["config"])
    loads = [r["load_before"] for r in doc["rounds"] if "load_before" in r]
    return compare.markdown(rows, doc["meta"], configs, loads)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--doc", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    with open(a.json) as f:
        table = render(json.load(f))
    with open(a.doc) as f:
        text = f.read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        sys.exit(f"perf_doc.py: {a.doc} has no block between {BEGIN!r} and {END!r}")
    block = BEGIN + "\n\n" + table + "\n" + END
    current = text[start:end + len(END)]
    if a.write:
        with open(a.doc, "w") as f:
            f.write(text[:start] + block + text[end + len(END):])
        print(f"perf_doc.py: wrote the table of {a.json} into {a.doc}")
        return 0
    if current != block:
        print(f"perf_doc.py: {a.doc}'s table is not the rendering of {a.json}: rerun with --write")
        return 1
    print(f"perf_doc.py: {a.doc}'s table is the rendering of {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
