#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Engine against its PyTorch peer, interleaved in one run: for each round and configuration,
`rsalab-bench --sections train` and bench/peer/peer.py time the same models (each with its own
warm-up and round-robin repeats, alternating which goes first), then per model × config it prints
both step times, the ratio PyTorch ÷ engine (> 1: the engine is faster) and the verdicts of
the speed targets (bench/verdicts.py). The JSON keeps every sample of both sides.

  /usr/bin/python3 bench/peer/compare.py --bench build/bench/rsalab-bench [--rounds 3] [--quick]

Step times are the medians of all samples of a side; the ratio is the median over rounds of
(peer median ÷ engine median) within the round, so that load drifting between rounds cancels.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["transformer", "rsa", "linear", "retnet", "alibi", "fox", "gla", "mlstm", "starsaber",
          "mamba2", "lstm", "gru", "rnn", "dlinear", "nlinear"]
SEQUENTIAL_SMALL_ONLY = ("rnn", "gru")  # as the current table: tiny and small only
TINY_TARGET = ("transformer", "rsa", "linear", "lstm", "gru")  # >= 1.5x at tiny


def run(cmd, env, log):
    print("  $ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log.write(p.stdout)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        raise SystemExit(f"compare.py: {cmd[0]} failed (exit status {p.returncode})")
    return p.stdout


def engine_round(a, config, models, out, env, log):
    cmd = [a.bench, "--sections", "train", "--configs", config, "--models", ",".join(models),
           "--json", out] + (["--quick"] if a.quick else [])
    run(cmd, env, log)
    with open(out) as f:
        doc = json.load(f)
    samples = {}
    for r in doc.get("train", []):
        s = r["step_seconds"]
        samples[r["model"]] = s.get("samples") or [s["median"]]  # older builds: medians only
    return samples, doc.get("machine", {}).get("runtime", "")


def peer_round(a, config, models, out, env, log):
    cmd = [a.python, os.path.join(HERE, "peer.py"), "--configs", config, "--models",
           ",".join(models), "--linear-form", a.linear_form, "--json", out]
    text = run(cmd + (["--quick"] if a.quick else []), env, log)
    with open(out) as f:
        doc = json.load(f)
    runtime = text.splitlines()[0] if text else ""
    return {r["model"]: r["samples_s"] for r in doc["train"]}, runtime


def target(config, model):
    return 1.5 if config == "tiny" and model in TINY_TARGET else 1.0


def summarize(rounds, configs, models):
    rows = []
    for config in configs:
        for model in models:
            per = [r for r in rounds if r["config"] == config and model in r["engine"]
                   and model in r["peer"]]
            if not per:
                continue
            eng = [t for r in per for t in r["engine"][model]]
            peer = [t for r in per for t in r["peer"][model]]
            ratios = [statistics.median(r["peer"][model]) / statistics.median(r["engine"][model])
                      for r in per]
            ratio = statistics.median(ratios)
            rows.append({"config": config, "model": model,
                         "engine_ms": 1e3 * statistics.median(eng),
                         "peer_ms": 1e3 * statistics.median(peer),
                         "ratio": ratio, "ratio_rounds": ratios,
                         "target": target(config, model),
                         "pass": ratio >= target(config, model)})
    return rows


def main():
    root = os.path.dirname(os.path.dirname(HERE))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=os.path.join(
        os.environ.get("RSALAB_BUILD_DIR", os.path.join(root, "build")), "bench", "rsalab-bench"))
    ap.add_argument("--python", default="/usr/bin/python3", help="the Python with torch")
    ap.add_argument("--configs", default="tiny,small,large")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2, help="RSALAB_THREADS for both sides")
    ap.add_argument("--quick", action="store_true", help="both sides with --quick (a smoke test)")
    ap.add_argument("--linear-form", choices=["masked", "chunked"], default="masked")
    ap.add_argument("--json", help="write every sample, per round, and the summary here")
    a = ap.parse_args()
    env = dict(os.environ, RSALAB_THREADS=str(a.threads))
    configs = a.configs.split(",")
    models = [m for m in a.models.split(",") if m in MODELS]
    skipped = [m for m in a.models.split(",") if m and m not in MODELS]
    if skipped:
        print(f"compare.py: the peer has no {', '.join(skipped)}: left out", flush=True)
    rounds, runtimes = [], {}
    print(f"engine vs PyTorch peer: {a.rounds} round(s), {a.threads} thread(s), configs "
          f"{a.configs}; linear attention in the peer: {a.linear_form}", flush=True)
    with tempfile.TemporaryDirectory() as tmp, open(os.path.join(tmp, "log"), "w") as log:
        for r in range(a.rounds):
            for i, config in enumerate(configs):
                ms = [m for m in models if not (config == "large" and m in SEQUENTIAL_SMALL_ONLY)]
                if not ms:
                    continue
                e_out, p_out = (os.path.join(tmp, f"{s}-{r}-{config}.json") for s in "ep")
                sides = [("engine", engine_round, e_out), ("peer", peer_round, p_out)]
                if (r + i) % 2:  # alternate which side goes first
                    sides.reverse()
                with open("/proc/loadavg") as f:
                    load = float(f.read().split()[0])
                got = {"round": r + 1, "config": config, "load_before": load}
                for side, fn, out in sides:
                    got[side], runtimes[side] = fn(a, config, ms, out, env, log)
                rounds.append(got)
    rows = summarize(rounds, configs, models)
    print(f"\n  engine: {runtimes.get('engine', '')}\n  {runtimes.get('peer', '')}")
    loads = [r["load_before"] for r in rounds]
    if loads:
        print(f"  load average before the rounds: {min(loads):.2f}-{max(loads):.2f}"
              " (2 cores: above ~0.5 the ratios are noisy)")
    print(f"\n  {'config':<7}{'model':<13}{'engine ms':>11}{'PyTorch ms':>12}{'ratio':>8}"
          f"  {'rounds':<24}verdict")
    for row in rows:
        spread = ",".join(f"{x:.2f}" for x in row["ratio_rounds"])
        verdict = ("PASS" if row["pass"] else "FAIL") + f" (>= {row['target']:.1f}x)"
        print(f"  {row['config']:<7}{row['model']:<13}{row['engine_ms']:>11.3f}"
              f"{row['peer_ms']:>12.3f}{row['ratio']:>7.2f}x  {spread:<24}{verdict}")
    failed = [f"{r['model']}@{r['config']}" for r in rows if not r["pass"]]
    print("\n  targets: engine ÷ PyTorch >= 1.0x everywhere, >= 1.5x at tiny for "
          + ", ".join(TINY_TARGET) + ": " + ("all met" if not failed else
                                               "not met for " + ", ".join(failed)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"threads": a.threads, "quick": a.quick, "linear_form": a.linear_form,
                       "runtime": runtimes, "rounds": rounds, "summary": rows}, f, indent=1)
        print(f"  wrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
