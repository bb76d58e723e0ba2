#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks once that the PyTorch peer and the engine compute the same thing: for each model ×
config, rsalab-peer-check writes the bench's TrainCase (seed 0) weights, batch and engine losses;
this loads the weights into the peer model and compares the loss at those weights (loss0) and on
the same batch after one step of forward + backward + AdamW (loss1). It also reports whether the
peer's own seed-0 initialisation reproduces the engine's weights (same LibTorch generator).

  /usr/bin/python3 bench/peer/check_same_loss.py [--build build] [--models ...] [--configs ...]

Exit status 1 when a loss differs by more than --tol (relative).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cards import peer_models  # noqa: E402
from models import LinearAttention, adamw  # noqa: E402
from peer import Case  # noqa: E402


def engine_archives(tool, out, models, configs):
    subprocess.run([tool, out, models, configs], check=True, stdout=subprocess.DEVNULL)
    return [(m, c, os.path.join(out, f"{m}-{c}.pt"))
            for c in configs.split(",") for m in models.split(",")]


def peer_losses(model, config, state, x, y):
    case = Case(model, config)  # seed 0: the peer's own initialisation
    init_diff = max((case.net.state_dict()[k] - v).abs().max().item() for k, v in state.items())
    case.net.load_state_dict(state, strict=True)
    case.opt = adamw(case.net)
    case.x, case.y = x, y
    with torch.no_grad():
        loss0 = torch.nn.functional.mse_loss(case.net(x), y).item()
    case.step()
    with torch.no_grad():
        loss1 = torch.nn.functional.mse_loss(case.net(x), y).item()
    return init_diff, loss0, loss1


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build",
                    default=os.environ.get("RSALAB_BUILD_DIR", os.path.join(root, "build")))
    ap.add_argument("--tool", help="rsalab-peer-check (default: BUILD/bench/rsalab-peer-check)")
    ap.add_argument("--models", help="comma-separated (default: every card with has_peer)")
    ap.add_argument("--configs", default="tiny,small")
    ap.add_argument("--tol", type=float, default=1e-5, help="largest relative loss difference")
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("RSALAB_THREADS", "0")) or os.cpu_count() or 1)
    tool = a.tool or os.path.join(a.build, "bench", "rsalab-peer-check")
    if not os.access(tool, os.X_OK):
        print(f"check_same_loss.py: no {tool}; build it: cmake --build {a.build} "
              "--target rsalab-peer-check (or pass --tool)", file=sys.stderr)
        return 2
    worst = 0.0
    print(f"{'model':<12} {'config':<6} {'form':<8} {'engine loss0':>14} {'rel diff':>9} "
          f"{'engine loss1':>14} {'rel diff':>9} {'init diff':>9}")
    with tempfile.TemporaryDirectory() as out:
        for model, config, path in engine_archives(tool, out, a.models or ",".join(peer_models()), a.configs):
            archive = torch.jit.load(path)
            state = {k: v.detach() for k, v in archive.model.named_parameters()}
            e0, e1 = archive.loss0.item(), archive.loss1.item()
            forms = ["masked", "chunked"] if model == "linear" else ["-"]
            for form in forms:
                LinearAttention.form = form if form != "-" else "masked"
                init_diff, p0, p1 = peer_losses(model, config, state, archive.x, archive.y)
                r0, r1 = abs(p0 - e0) / abs(e0), abs(p1 - e1) / abs(e1)
                worst = max(worst, r0, r1)
                print(f"{model:<12} {config:<6} {form:<8} {e0:14.9f} {r0:9.2e} {e1:14.9f} "
                      f"{r1:9.2e} {init_diff:9.2e}", flush=True)
    verdict = "same" if worst <= a.tol else "DIFFERENT"
    print(f"largest relative loss difference {worst:.2e} (tolerance {a.tol:g}): {verdict}")
    return 0 if worst <= a.tol else 1


if __name__ == "__main__":
    sys.exit(main())
