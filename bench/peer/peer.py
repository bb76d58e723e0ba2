#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The PyTorch peer of rsalab-bench's section 2: times training steps (forward + backward + AdamW)
of the same models at the same configurations, round-robin as section_train.cpp, and writes every
sample as JSON. Run it with Debian's /usr/bin/python3 (python3-torch: the same LibTorch).

  /usr/bin/python3 bench/peer/peer.py --configs tiny,small --models transformer,rsa --json OUT

With --device cuda (scripts/gpu-check.sh) the models and data live on the GPU and every timed
step ends with torch.cuda.synchronize(), as rsalab-bench's; the CPU levers below still apply.

The process gets the engine's environment levers (engine/runtime.cpp) before any BLAS call:
glibc malloc with mmap off and a 1 GiB trim threshold, OpenBLAS's AVX-512 kernels on an AVX-512
CPU when an AVX2-or-older set was pinned (RSALAB_BLAS_KERNELS=keep keeps it), and RSALAB_THREADS
(default: all cores) intra-op threads.
"""
import argparse
import ctypes
import json
import os
import sys
import time

# glibc: M_TRIM_THRESHOLD = -1, M_MMAP_MAX = -4 (malloc.h); before torch allocates anything.
_libc = ctypes.CDLL("libc.so.6")
MALLOC_TUNED = _libc.mallopt(-4, 0) == 1 and _libc.mallopt(-1, 1 << 30) == 1

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import LinearAttention, RECURRENT, adamw, make_model, model_names  # noqa: E402

# name: d, h, L, B, T (bench/fixtures.cpp trainConfigs)
CONFIGS = {"tiny": (32, 2, 2, 8, 32), "small": (64, 4, 2, 32, 128), "large": (128, 8, 4, 16, 512),
           "gpu": (512, 8, 6, 32, 1024)}
# warm-up, min repeats, max repeats, budget in seconds (section_train.cpp)
PLANS = {"tiny": (3, 10, 60, 8.0), "small": (2, 5, 25, 25.0), "large": (1, 3, 7, 90.0),
         "gpu": (2, 3, 8, 20.0)}
LARGE = ("large", "gpu")  # recurrent models: 2 repeats (T >= 512 sequential cell steps)
MODELS = model_names()
AVX512_SETS = ("SkylakeX", "Cooperlake", "SapphireRapids")


def cpu_has_avx512():
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    return {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"} <= flags


def blas_library():
    with open("/proc/self/maps") as f:
        paths = [line[line.find("/"):].strip() for line in f if "/" in line]
    blas = [p for p in paths if "libblas.so" in p] or [p for p in paths if "libopenblas" in p]
    return blas[0] if blas else ""


def select_blas_kernels(path):
    """selectBlasKernels() of engine/runtime.cpp, through OpenBLAS's exported hooks."""
    try:
        lib = ctypes.CDLL(path)
        corename = lib.openblas_get_corename
    except (OSError, AttributeError):
        return "", "no OpenBLAS"
    corename.restype = ctypes.c_char_p
    loaded = corename().decode()
    origin = "set by OPENBLAS_CORETYPE" if "OPENBLAS_CORETYPE" in os.environ else "detected"
    if os.environ.get("RSALAB_BLAS_KERNELS") == "keep":
        return loaded, origin + ", kept: RSALAB_BLAS_KERNELS=keep"
    if not cpu_has_avx512() or loaded in AVX512_SETS:
        return loaded, origin
    try:
        quit_, init = lib.gotoblas_dynamic_quit, lib.gotoblas_dynamic_init
    except AttributeError:
        return loaded, origin + " (no DYNAMIC_ARCH hooks to change it)"
    os.environ.pop("OPENBLAS_CORETYPE", None)
    quit_(), init()
    chosen = corename().decode()
    if chosen not in AVX512_SETS:
        os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"
        quit_(), init()
        chosen = corename().decode()
    os.environ["OPENBLAS_CORETYPE"] = chosen
    return chosen, f"AVX-512 CPU: replaces {loaded} ({origin})"


def init_runtime():
    threads = int(os.environ.get("RSALAB_THREADS", "0")) or os.cpu_count() or 1
    torch.set_num_threads(threads)
    path = blas_library()
    core, note = select_blas_kernels(path) if path else ("", "")
    kind = ("OpenBLAS (OpenMP)" if "openblas-openmp" in path else
            "OpenBLAS (pthread)" if "openblas-pthread" in path else
            "OpenBLAS" if "openblas" in path else path or "none mapped")
    return {"threads": torch.get_num_threads(), "blas": kind, "blas_path": path,
            "blas_kernels": core, "blas_note": note, "malloc_tuned": MALLOC_TUNED,
            "torch": torch.__version__, "python": sys.version.split()[0]}


def device_name(device):
    """"CPU", or the GPU's name as CUDA reports it."""
    return torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"


def summary(rt):
    return (f"peer runtime: PyTorch {rt['torch']} on {rt['device']}, {rt['threads']} intra-op "
            f"thread(s); BLAS: {rt['blas']}, kernels {rt['blas_kernels']} ({rt['blas_note']}); "
            "malloc: " + ("mmap off, trim 1 GiB" if rt["malloc_tuned"] else "glibc defaults"))


class Case:
    """TrainCase: seed 0, the model, AdamW (decay on matrices), x and y ~ N(0, 1) of (B, T, 1)."""

    def __init__(self, model, config, device=torch.device("cpu")):
        d, h, L, B, T = CONFIGS[config]
        torch.manual_seed(0)
        self.model, self.device = model, device
        self.net = make_model(model, d, h, L).to(device)
        self.net.train()
        self.opt = adamw(self.net)
        self.x, self.y = torch.randn(B, T, 1).to(device), torch.randn(B, T, 1).to(device)
        self.times, self.max_reps = [], 0

    def step(self):
        self.opt.zero_grad()
        loss = torch.nn.functional.mse_loss(self.net(self.x), self.y)
        loss.backward()
        self.opt.step()
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        return loss


def scaled(plan, scale):
    warmup, lo, hi, budget = plan
    lo = max(1, round(lo * min(1.0, scale)))
    return warmup, lo, max(lo, round(hi * scale)), budget * scale


def first_line(e):
    return (str(e).splitlines() or [type(e).__name__])[0]


def run_config(config, models, scale, device):
    """Round-robin over the models; one that throws (out of memory, say) is left out, said."""
    warmup, lo, hi, budget = scaled(PLANS[config], scale)
    cases = []
    for m in models:
        try:
            c = Case(m, config, device)
            # Recurrent models at T = 512 run 2048 sequential cell steps per pass: 2 repeats.
            c.max_reps = min(2, hi) if config in LARGE and c.model in RECURRENT else hi
            for _ in range(warmup):
                c.step()
            cases.append(c)
        except Exception as e:  # noqa: BLE001 (any failure: the model is left out, said)
            print(f"  {m:<12} FAILED, left out: {first_line(e)}", flush=True)
    start = time.perf_counter()
    while True:
        any_step = False
        for c in cases:
            if len(c.times) >= c.max_reps:
                continue
            needed = len(c.times) < min(lo, c.max_reps)
            if not needed and time.perf_counter() - start > budget:
                continue
            t0 = time.perf_counter()
            try:
                c.step()
            except Exception as e:  # noqa: BLE001
                print(f"  {c.model:<12} FAILED, left out: {first_line(e)}", flush=True)
                c.max_reps, c.times = 0, []
                continue
            c.times.append(time.perf_counter() - t0)
            any_step = True
        if not any_step:
            return [c for c in cases if c.times]


def median(v):
    s = sorted(v)
    n = len(s)
    return (s[n // 2] + s[(n - 1) // 2]) / 2 if n else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", default="tiny,small,large")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--quick", action="store_true", help="fewer repeats (scale 0.3, as the bench)")
    ap.add_argument("--scale", type=float, default=1.0, help="repeats and budgets scale")
    ap.add_argument("--linear-form", choices=["masked", "chunked"], default="masked",
                    help="causal linear attention: masked T x T (default) or the engine's chunks")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    ap.add_argument("--json", help="write every sample to this file")
    ap.add_argument("--list-models", action="store_true",
                    help="print the models the peer has, one per line, and exit")
    a = ap.parse_args()
    if a.list_models:
        print("\n".join(MODELS))
        return
    LinearAttention.form = a.linear_form
    scale = 0.3 if a.quick else a.scale
    device = torch.device(a.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit(f"peer.py: --device {a.device}, but this PyTorch sees no CUDA device")
    rt = init_runtime()
    rt["device"] = device_name(device)
    print(summary(rt), flush=True)
    results = []
    for config in a.configs.split(","):
        models = [m for m in a.models.split(",") if m]
        d, h, L, B, T = CONFIGS[config]
        print(f"  {config}: d{d} h{h} L{L} B{B} T{T}", flush=True)
        for c in run_config(config, models, scale, device):
            med = median(c.times)
            print(f"  {c.model:<12} {med * 1e3:10.3f} ms  ({min(c.times) * 1e3:.3f}-"
                  f"{max(c.times) * 1e3:.3f}, {len(c.times)} repeats)", flush=True)
            results.append({"config": config, "model": c.model, "median_s": med,
                            "samples_s": c.times})
    if a.json:
        out = {"runtime": rt, "linear_form": a.linear_form, "scale": scale,
               "configs": {c: CONFIGS[c] for c in a.configs.split(",")}, "train": results}
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
