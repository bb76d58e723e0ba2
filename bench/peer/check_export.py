#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that `rsalab-cli export --format safetensors` gives weights PyTorch can use: each
exported file loads into the bench's peer model (models.py, load_state_dict strict) and the peer's
outputs on the sample batch the export wrote beside it (FILE.sample.safetensors, from --sample)
equal the engine's to within --tol (absolute).

  /usr/bin/python3 bench/peer/check_export.py [--build build] [--models gru,rsa,...]
      trains each model briefly with rsalab-cli (seasonal task, 20 steps) and exports it
  /usr/bin/python3 bench/peer/check_export.py FILE.safetensors ...
      checks files exported already (with --sample)

The files are read here without the safetensors package (8-byte header length, JSON header, raw
little-endian tensors). Needs python3-torch; exit status 1 when an output differs by more than
--tol, 2 when the tools are missing.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402
from cards import peer_models  # noqa: E402

DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
          "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32, "I16": torch.int16,
          "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}


def read_safetensors(path):
    """(tensors by name, metadata)."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    metadata = header.pop("__metadata__", {})
    data = blob[8 + n:]
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        dtype = DTYPES[entry["dtype"]]
        raw = bytearray(data[begin:end])
        t = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        tensors[name] = t.reshape(entry["shape"]).clone()
    return tensors, metadata


def peer_model(metadata):
    """The peer of the exported model (models.make_model, with the run's input and output
    widths and FFN multiplier)."""
    o = json.loads(metadata["config"])["model"]
    name, d, h, L = o["model"], o["d_model"], o["heads"], o["layers"]
    features, outputs = int(metadata["input_dim"]), int(metadata["output_dim"])
    if name in models.RECURRENT:
        return models.Recurrent(name, d, L, features, outputs)
    if name in models.ATTENTION:
        options = ({"learnable_decay": o.get("retnet_learnable_decay", False),
                    "rotation": o.get("retnet_rotation", False)} if name == "retnet" else {})
        return models.Transformer(models.ATTENTION[name], d, h, L, o["ff_mult"], features, outputs,
                                  **options)
    if name == "starsaber":
        return models.StarSaber(d, h, L, features, outputs)
    if name == "mamba2":
        return models.Mamba2(d, h, L, features, outputs)
    if name in models.LINEAR_FORECASTERS:  # the lookback window, no width, heads or layers
        return models.LINEAR_FORECASTERS[name](o["lookback"], features, outputs)
    raise ValueError(f"the peer has no model {name!r}")


def check(path, tol):
    """(model, largest |peer − engine|) or (model, None) with the reason it was not checked."""
    state, metadata = read_safetensors(path)
    model = metadata.get("model", "?")
    if metadata.get("tensor_names") != "peer":
        return model, None, metadata.get("peer", "not exported under the peer's names")
    stem = path[: -len(".safetensors")] if path.endswith(".safetensors") else path
    sample, _ = read_safetensors(stem + ".sample.safetensors")
    net = peer_model(metadata)
    net.load_state_dict(state, strict=True)
    net.eval()
    with torch.no_grad():
        y = net(sample["x"])
    if y.shape != sample["y"].shape:
        return model, float("inf"), f"output shape {tuple(y.shape)} != {tuple(sample['y'].shape)}"
    return model, (y - sample["y"]).abs().max().item(), ""


def export_runs(cli, out, model_names):
    paths = []
    for m in model_names:
        run = os.path.join(out, m)
        subprocess.run([cli, "train", "--model", m, "--task", "seasonal", "--steps", "20",
                        "--length", "32", "--d-model", "16", "--heads", "4", "--layers", "2",
                        "--size", "64", "--out", run], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        path = os.path.join(out, m + ".safetensors")
        subprocess.run([cli, "export", "--run", run, "--format", "safetensors", "--out", path,
                        "--sample"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        paths.append(path)
    return paths


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="exported .safetensors files (else: train and export)")
    ap.add_argument("--build",
                    default=os.environ.get("RSALAB_BUILD_DIR", os.path.join(root, "build")))
    ap.add_argument("--cli", help="rsalab-cli (default: BUILD/app/cli/rsalab-cli)")
    ap.add_argument("--models", help="comma-separated (default: every card with has_peer)")
    ap.add_argument("--tol", type=float, default=1e-5, help="largest absolute output difference")
    a = ap.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as out:
        files = a.files
        if not files:
            cli = a.cli or os.path.join(a.build, "app", "cli", "rsalab-cli")
            if not os.access(cli, os.X_OK):
                print(f"check_export.py: no {cli}; build it (cmake --build {a.build} --target "
                      "rsalab-cli) or pass --cli or files", file=sys.stderr)
                return 2
            files = export_runs(cli, out, a.models.split(",") if a.models else peer_models())
        worst, checked = 0.0, 0
        print(f"{'model':<12} {'max |peer - engine|':>20}  file")
        for path in files:
            model, diff, note = check(path, a.tol)
            if diff is None:
                print(f"{model:<12} {'not checked':>20}  {path}: {note}")
                continue
            checked += 1
            worst = max(worst, diff)
            print(f"{model:<12} {diff:20.3e}  {path}{': ' + note if note else ''}")
    ok = checked > 0 and worst <= a.tol
    print(f"{checked} exports loaded into the peer; largest output difference {worst:.2e} "
          f"(tolerance {a.tol:g}): {'same' if ok else 'DIFFERENT' if checked else 'none checked'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
