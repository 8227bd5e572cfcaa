#!/usr/bin/env python3
"""Puts a sensitivity study's tables into docs/sensitivity.md.

    bench/fleet/study_into_docs.py STUDY_DIR --commit C --wall "9 min 42 s" \
        --machine "idle" [--note "What the model at C is."] [--doc docs/sensitivity.md]

STUDY_DIR is the output of `ramp fleet --preset rapid-start-2026 -n N
--seed S --sensitivity L -o STUDY_DIR`. The script replaces everything
between the lines `<!-- study:begin -->` and `<!-- study:end -->` of the
doc with a heading and the command, commit, machine and wall time of the
study, followed by the study's own sensitivity.md without its title and
its declarations table (the page has its own), headings one level down.
The tables are the run's bytes; nothing is recomputed. The doc is
rewritten only when both markers are there, once each.
"""

import argparse
import json
import os
import re
import sys

BEGIN = "<!-- study:begin -->"
WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen \
fifteen sixteen seventeen eighteen nineteen twenty".split()
END = "<!-- study:end -->"


def tables(md):
    """The study's report without its title and declarations, every
    heading one level down."""
    out, skip = [], False
    for line in md.splitlines():
        if line.startswith("# "):
            continue
        if line.startswith("## "):
            skip = line.startswith("## Declared assumptions")
            if skip:
                continue
        if line.startswith("##"):
            line = "#" + line
        if not skip:
            out.append(line)
    return "\n".join(out).strip("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("study")
    ap.add_argument("--commit", required=True, help="the commit the binary was built from")
    ap.add_argument("--wall", required=True, help='the study\'s wall time, e.g. "9 min 42 s"')
    ap.add_argument("--machine", required=True, help='"idle", or the load it ran under')
    ap.add_argument("--note", default="", help="a sentence on what the build's model is")
    ap.add_argument("--doc", default="docs/sensitivity.md")
    a = ap.parse_args()

    with open(os.path.join(a.study, "sensitivity.md")) as f:
        md = f.read()
    with open(os.path.join(a.study, "sensitivity.json")) as f:
        js = json.load(f)
    n, seed, plan = js["connections"], js["seed"], js["plan"]
    decls = len(js["assumptions"])
    lhs = js["analysis"]["lhs_points"]
    points = 1 + 2 * decls + lhs
    count = f"{n:,}".replace(",", " ")
    block = (
        f"## Measured: {WORDS[decls] if decls < len(WORDS) else decls} declarations, {count} connections per point, seed {seed} "
        f"({a.machine} machine)\n\n"
        "```\n"
        f"ramp fleet --preset {plan} -n {n} --seed {seed} --sensitivity {lhs} -o study/\n"
        "```\n\n"
        f"Release build of {a.commit}, on the 2-core x86-64 VM ({a.machine}): {points} points, "
        f"**{a.wall} wall**. " + (a.note.strip() + " " if a.note.strip() else "")
        + "The tables below are the run's own sensitivity.md "
        "(`bench/fleet/study_into_docs.py` puts them here).\n\n"
        + tables(md)
        + "\n"
    )

    with open(a.doc) as f:
        doc = f.read()
    if doc.count(BEGIN) != 1 or doc.count(END) != 1 or doc.index(BEGIN) > doc.index(END):
        sys.exit(f"{a.doc}: needs one {BEGIN} line before one {END} line")
    new = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END),
                 lambda _: BEGIN + "\n" + block + END, doc, flags=re.S)
    with open(a.doc, "w") as f:
        f.write(new)
    print(f"{a.doc}: the {n}-connection study of seed {seed} ({points} points) is in")


if __name__ == "__main__":
    main()
