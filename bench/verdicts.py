#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The speed targets' closing table: every target's verdict from one bench/run.sh.

Reads the run's JSON files (the engine suite's <json>, its -gui.json and -peer.json, whichever
exist) and prints the engine ÷ PyTorch ratio table (rows: configs, columns: models) and one
list of every target with its measured value and MET / NOT MET / not measured. Nothing here
measures: it only gathers what the run wrote.
"""
import argparse
import json
import os

CONFIGS = {"tiny": "tiny d32 h2 L2 B8 T32", "small": "small d64 h4 L2 B32 T128",
           "large": "large d128 h8 L4 B16 T512"}


def load(path):
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return None


def ratio_table(peer):
    rows = peer.get("summary", [])
    models = []
    for r in rows:
        if r["model"] not in models:
            models.append(r["model"])
    cell = {(r["config"], r["model"]): r for r in rows}
    print("  engine ÷ PyTorch (PyTorch step ÷ engine step; > 1: the engine is faster)")
    print("  " + f"{'config':<28}" + "".join(f"{m:>13}" for m in models))
    for config, label in CONFIGS.items():
        if not any((config, m) in cell for m in models):
            continue
        line = f"  {label:<28}"
        for m in models:
            r = cell.get((config, m))
            line += f"{'—':>13}" if r is None or r["ratio"] is None else f"{r['ratio']:>12.2f}×"
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="the engine suite's JSON (the -gui and -peer files beside it)")
    a = ap.parse_args()
    base = a.json[:-5] if a.json.endswith(".json") else a.json
    engine, gui, peer = load(a.json), load(base + "-gui.json"), load(base + "-peer.json")
    print("\n== Every speed target in this run ==")
    if peer:
        ratio_table(peer)
        print()
    verdicts = []  # (name, value text, met or None)
    if peer:
        rows = peer.get("summary", [])
        failed = [f"{r['model']}@{r['config']}" for r in rows if not r["pass"]]
        worst = min((r["ratio"] for r in rows if r["ratio"] is not None), default=float("nan"))
        verdicts.append(("engine ÷ PyTorch ≥ 1.0× everywhere, ≥ 1.5× at tiny (5 models)",
                         f"lowest {worst:.2f}×" + (f"; short: {', '.join(failed)}" if failed
                                                   else ""), not failed))
    else:
        verdicts.append(("engine ÷ PyTorch ≥ 1.0× everywhere, ≥ 1.5× at tiny", "", None))
    for t in (engine or {}).get("targets", []):
        verdicts.append((f"{t['name']} {t['op']} {t['threshold']:g}", f"{t['value']:.3g}",
                         t["met"]))
    if gui:
        par, inter = gui.get("steps_per_second_parallel"), gui.get("steps_per_second_interleaved")
        p99 = gui.get("event_loop_lateness_training", {}).get("p99_ms")
        if par and inter:
            verdicts.append(("GUI default launch: aggregate steps/s ≥ 1.8× interleaved",
                             f"{par / inter:.2f}× ({inter:.0f} → {par:.0f} steps/s)",
                             par >= 1.8 * inter))
        if p99 is not None:
            verdicts.append(("GUI event-loop lateness p99 ≤ 20 ms", f"{p99:.2f} ms", p99 <= 20))
    else:
        verdicts.append(("GUI default launch (rsalab-gui-bench)", "", None))
    for name, value, met in verdicts:
        word = "not measured" if met is None else ("MET" if met else "NOT MET")
        print(f"  {name:<62} {value:<28} {word}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
