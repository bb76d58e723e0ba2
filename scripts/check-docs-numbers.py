#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The docs' prose repeats no number that its generated blocks do not hold.

For README.md and every docs/*.md (or the files named), the prose is every line outside a
generated block (the lines between "<!-- NAME: begin ... -->" and "<!-- NAME: end -->"). Each
number in the prose must match:
  - a number printed in a generated block of the same file, or in the README's first-minute
    block (every file may quote that one), or
  - a value of a record behind those blocks (the JSON a block is rendered from: docs/data/NAME.json
    for "preset NAME", and those below), or of a docs/data/*.json the file names, rounded to the
    prose number's decimals (a percentage also as a fraction × 100).
A "number" is a decimal with at least 3 significant digits (0.0205, 1.47, 12.5), or any number
followed by ×, %, s, min or h (4.4×, 73 %, 3 min, 51 s). Signs are ignored (a block's "-0.12" is
the prose's "−0.12"). Text in `inline code` and inside ``` fences is prose too. Not figures: an
identifier or version after "arXiv", "version" or "v" (arXiv 2307.08621, version 8.20).

A hand-typed figure that must stay carries its date and its commit on the same line,
"(2026-11-27, commit 1a2b3c4)": such a line is skipped (the commit must exist when git can tell).

Exit 0 when every number matches; 1 with "file:line: number" for each that does not.
Usage: check-docs-numbers.py [--root DIR] [FILE ...]   (files relative to the root)
"""
import argparse
import json
import os
import re
import subprocess
import sys

BEGIN = re.compile(r"<!--\s*(.+?):\s*begin\b.*?-->")
END = re.compile(r"<!--\s*(.+?):\s*end\s*-->")
# A number: digits with optional thousands commas and a fraction, then an optional unit. A number
# that is part of a word or of a dotted version (6.4.2) or date (2026-11-27) is not read.
NUMBER = re.compile(
    r"(?<![\w.\-/])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<unit>\s?(?:×|%|min\b|s\b|h\b))?(?![\w.]\d|-\d)")
UNIT_WORDS = {"×", "%", "min", "s", "h"}
# Not figures: an identifier or a version right after these words (arXiv 2307.08621, version 8.20).
NOT_A_FIGURE = re.compile(r"(?:arXiv|version|v)\s?$", re.IGNORECASE)
PROVENANCE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b.*\bcommit\s+([0-9a-f]{7,40})\b|"
                        r"\bcommit\s+([0-9a-f]{7,40})\b.*\b(\d{4}-\d{2}-\d{2})\b")

# The records behind a block, by the block's name (others: docs/data/NAME.json when it exists).
RECORDS = {
    "first-minute": ["resources/first_minute.json"],
    "tuned-first-minute": ["resources/first_minute_tuned.json", "resources/first_minute.json"],
    "real-series-report": ["docs/data/real_series_report.json"],
    "paper-table": ["docs/data/paper_table.json"],
}


def significant_digits(text):
    digits = text.replace(",", "").replace(".", "").lstrip("0")
    return len(digits)


def numbers_in(line):
    """(text, value, decimals, unit) of every number of the definition in a line."""
    out = []
    for m in NUMBER.finditer(line):
        if NOT_A_FIGURE.search(line[max(0, m.start() - 9):m.start()]):
            continue
        text, unit = m.group("num"), (m.group("unit") or "").strip()
        plain = text.replace(",", "")
        decimals = len(plain.split(".")[1]) if "." in plain else 0
        if unit not in UNIT_WORDS and not ("." in plain and significant_digits(plain) >= 3):
            continue
        out.append((text, float(plain), decimals, unit))
    return out


def blocks(lines):
    """[(name, first, last)] of the generated blocks (0-based, marker lines included)."""
    out, open_name, start = [], None, 0
    for i, line in enumerate(lines):
        if open_name is None:
            m = BEGIN.search(line)
            if m:
                open_name, start = m.group(1).strip(), i
        elif END.search(line) and END.search(line).group(1).strip() == open_name:
            out.append((open_name, start, i))
            open_name = None
    return out


def record_values(path, cache):
    if path not in cache:
        values = []
        try:
            with open(path, encoding="utf-8") as f:
                stack = [json.load(f)]
        except (OSError, ValueError):
            stack = []
        while stack:
            o = stack.pop()
            if isinstance(o, dict):
                stack.extend(o.values())
            elif isinstance(o, list):
                stack.extend(o)
            elif isinstance(o, (int, float)) and not isinstance(o, bool):
                values.append(abs(float(o)))
            elif isinstance(o, str):  # numbers inside a record's strings (its notes, its lines)
                values.extend(v for _, v, _, _ in numbers_in(o))
                values.extend(float(x) for x in re.findall(r"\d+\.\d+", o))
        cache[path] = values
    return cache[path]


def records_of(root, name):
    if name in RECORDS:
        return [os.path.join(root, p) for p in RECORDS[name]]
    slug = re.sub(r"^preset\s+", "", name).strip().replace(" ", "-")
    found = []
    for candidate in (slug, slug.replace("-", "_")):
        p = os.path.join(root, "docs", "data", candidate + ".json")
        if os.path.exists(p):
            found.append(p)
    return found


def commit_exists(root, commit, known):
    if commit not in known:
        try:
            r = subprocess.run(["git", "-C", root, "cat-file", "-e", commit + "^{commit}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
            inside = subprocess.run(["git", "-C", root, "rev-parse", "--git-dir"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    timeout=20).returncode == 0
            known[commit] = r.returncode == 0 or not inside  # no git repository: format only
        except (OSError, subprocess.SubprocessError):
            known[commit] = True
    return known[commit]


class Pool:
    """The numbers a file's prose may repeat."""

    def __init__(self):
        self.printed = set()  # normalised text of every number printed in a block
        self.values = []      # record values (absolute)

    def add_block_text(self, lines):
        for line in lines:
            for text, value, _, _ in numbers_in(line):
                self.printed.add(normal(text))
            for x in re.findall(r"\d[\d,]*(?:\.\d+)?", line):  # every number, any digits
                self.printed.add(normal(x))

    def matches(self, text, value, decimals, unit):
        if normal(text) in self.printed:
            return True
        candidates = [value] + ([value / 100.0] if unit == "%" else [])
        for v in self.values:
            for c in candidates:
                d = decimals + (2 if c is not value else 0)
                if round(v, d) == round(c, d) and v != 0:
                    return True
        return False


def normal(text):
    return text.replace(",", "")


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")


def check(root, files):
    cache, commits, failures = {}, {}, []
    readme = os.path.join(root, "README.md")
    first_minute = Pool()
    if os.path.exists(readme):
        lines = read_lines(readme)
        for name, a, b in blocks(lines):
            if name == "first-minute":
                first_minute.add_block_text(lines[a:b + 1])
                for p in records_of(root, name):
                    first_minute.values.extend(record_values(p, cache))
    for rel in files:
        path = os.path.join(root, rel)
        lines = read_lines(path)
        pool = Pool()
        pool.printed |= first_minute.printed
        pool.values.extend(first_minute.values)
        inside = set()
        found = blocks(lines)
        for name, a, b in found:
            inside.update(range(a, b + 1))
            pool.add_block_text(lines[a:b + 1])
            for p in records_of(root, name):
                pool.values.extend(record_values(p, cache))
        # A record the file names (docs/data/X.json or its rendering docs/data/X.md).
        text = "\n".join(lines)
        for stem in sorted(set(re.findall(r"data/([\w\-]+)\.(?:json|md)\b", text))):
            p = os.path.join(root, "docs", "data", stem + ".json")
            if os.path.exists(p):
                pool.values.extend(record_values(p, cache))
        for i, line in enumerate(lines):
            if i in inside:
                continue
            m = PROVENANCE.search(line)
            if m:
                commit = m.group(2) or m.group(3)
                if commit_exists(root, commit, commits):
                    continue
                failures.append(f"{rel}:{i + 1}: commit {commit} (named for a hand-typed figure) "
                                "is not a commit of this repository")
                continue
            for num, value, decimals, unit in numbers_in(line):
                if not pool.matches(num, value, decimals, unit):
                    shown = num + ((" " if unit not in ("×",) else "") + unit if unit else "")
                    failures.append(f"{rel}:{i + 1}: {shown.strip()}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    docs = os.path.join(root, "docs")
    files = args.files or (["README.md"] + sorted(
        os.path.join("docs", f) for f in (os.listdir(docs) if os.path.isdir(docs) else [])
        if f.endswith(".md")))
    missing = [f for f in files if not os.path.isfile(os.path.join(root, f))]
    if missing:
        print("error: no such file under " + root + ": " + ", ".join(missing), file=sys.stderr)
        return 2
    failures = check(root, files)
    for f in failures:
        print(f)
    if failures:
        print(f"{len(failures)} number(s) in the prose match no generated block or record of "
              "their file: move them into a block, delete them, or give the line its date and "
              "commit, \"(YYYY-MM-DD, commit abc1234)\"", file=sys.stderr)
        return 1
    print(f"docs numbers: {len(files)} file(s), every number in the prose matches a block or a "
          "record")
    return 0


if __name__ == "__main__":
    sys.exit(main())
