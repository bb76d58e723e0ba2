# SPDX-License-Identifier: GPL-3.0-or-later
"""The engine's model cards, as `rsalab-cli models --json` prints them: every list of models the
bench and the peer scripts use is read from here, never written by hand.

  python3 bench/peer/cards.py [--has-peer] [--flag NAME]   comma-separated names, registry order
  python3 bench/peer/cards.py --check-peer   models.py builds every card with has_peer (needs torch)
  python3 bench/peer/cards.py --check-peer --models a,b   whether models.py has the class of each
      of these (the card's attention kind, or the model), whatever the card's has_peer says: one
      line each, "builds NAME" or "lacks NAME (why)" (the self-test's peer/<model> checks)

rsalab-cli is $RSALAB_CLI, else $RSALAB_BUILD_DIR/app/cli/rsalab-cli (default build/). With
--cards FILE (or $RSALAB_CARDS_JSON) the cards are read from that file, as the CLI prints them.
"""
import argparse
import functools
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli_path():
    build = os.environ.get("RSALAB_BUILD_DIR", os.path.join(ROOT, "build"))
    return os.environ.get("RSALAB_CLI", os.path.join(build, "app", "cli", "rsalab-cli"))


@functools.lru_cache(maxsize=None)
def cards():
    """Every card in registry order: name, title, family, attention, cell, paper, flags."""
    given = os.environ.get("RSALAB_CARDS_JSON")
    if given:
        with open(given, encoding="utf-8") as f:
            return tuple(json.load(f))
    cli = cli_path()
    if not os.access(cli, os.X_OK):
        raise SystemExit(f"cards.py: no {cli} to read the model cards from: build it (cmake "
                         "--build build --target rsalab-cli) or set RSALAB_CLI")
    out = subprocess.run([cli, "models", "--json"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, check=True)
    return tuple(json.loads(out.stdout))


def names(flag=None):
    """The names of the cards that have `flag` ("has_peer", "no_positional_encoding", …)."""
    return [c["name"] for c in cards() if flag is None or c["flags"][flag]]


def peer_models():
    """The models the peer builds (HasPeer), in registry order."""
    return names("has_peer")


def check_peer(listed=None):
    """Every card with has_peer (or each name of `listed`) is a model the peer builds
    (models.make_model) and runs forward; 0 when all are, 1 naming the missing ones; 77 without
    torch."""
    try:
        import torch
    except ImportError:
        print(f"cards.py: no torch in this Python ({sys.executable}): the peer cannot be checked "
              "(skipped)")
        return 77
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import models
    wanted = listed if listed is not None else peer_models()
    kinds = {c["name"]: c["attention"] for c in cards()}
    missing = []
    for name in wanted:
        try:
            if listed is not None and kinds.get(name):  # the class of its kind, has_peer or not
                net = models.Transformer(kinds[name], 16, 4, 2)
            else:
                net = models.make_model(name, 16, 4, 2)
            net(torch.randn(2, 8, 1))
        except Exception as e:  # noqa: BLE001 - reported by name
            missing.append(f"{name} ({type(e).__name__}: {e})".replace("\n", " "))
            if listed is not None:
                print(f"lacks {missing[-1]}")
            continue
        if listed is not None:
            print(f"builds {name}")
    if listed is not None:
        return 0
    print(f"cards.py: the peer builds {len(wanted) - len(missing)} of the "
          f"{len(wanted)} cards with has_peer" + (": not " + "; ".join(missing)
                                                  if missing else ""))
    return 1 if missing else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--has-peer", action="store_true", help="only the models the peer builds")
    ap.add_argument("--flag", help="only the cards with this flag (a key of the JSON's flags)")
    ap.add_argument("--check-peer", action="store_true",
                    help="check that models.py builds every card with has_peer")
    ap.add_argument("--models", help="with --check-peer: say of each of these (comma-separated) "
                    "whether models.py has its class, whatever its has_peer")
    ap.add_argument("--cards", help="read the cards from this file (as `rsalab-cli models --json` "
                    "prints them) instead of running rsalab-cli")
    a = ap.parse_args()
    if a.cards:
        os.environ["RSALAB_CARDS_JSON"] = a.cards
    if a.check_peer:
        return check_peer(a.models.split(",") if a.models else None)
    flag = "has_peer" if a.has_peer else a.flag
    if flag and cards() and flag not in cards()[0]["flags"]:
        print(f"cards.py: no flag {flag!r}: use {', '.join(cards()[0]['flags'])}",
              file=sys.stderr)
        return 2
    print(",".join(names(flag)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
