"""Reading (post hoc, not a gate) of candidate 2's gate trials (task TG2): where does the rest of
the loss sit, by family and by the branch both rows took?

Reads the per-trial rows of ``experiments/triangle_auto_gate2.py``
(``results/_triangle_gate2/``, nothing is fitted) and splits the per-trial ratio candidate /
default by the pair of decisions of the adaptive release: both rows took the moments release
(the candidate's is then a triangle, the default's a full draw), both CoinPress (same branch,
whitened by a first look read differently), or the decision flipped. Also, for PCA k = 2 and
correlation, the ratio of medians of the cells whose candidate took the moments release in
every trial. Writes ``results/triangle_auto_gate2_reading.md``. Command::

    python experiments/triangle_auto_gate2_reading.py
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DIR = ROOT / "results" / "_triangle_gate2"


def split(c_def, c_can):
    a, b = c_def == "coinpress", c_can == "coinpress"
    return "both coinpress" if a and b else "both moments" if not (a or b) else "flipped"


def main():
    lines = ["# Reading (post hoc) of candidate 2's gate trials (task TG2)", "",
             "Script: `experiments/triangle_auto_gate2_reading.py`, from the per-trial rows of "
             "`experiments/triangle_auto_gate2.py` (`results/_triangle_gate2/`; verdicts in "
             "`results/triangle_auto_gate2.md`). Per-trial ratio candidate / default, split by the "
             "two rows' decisions. A reading, not a gate.", "",
             "| family | split | trials | median per-trial ratio | above 1 |", "|---|---|---|---|---|"]
    cells = {}
    for path in sorted(DIR.glob("**/*_trials.csv")):
        with path.open() as fh:
            for r in csv.DictReader(fh):
                fam = f"pca k={r['k']}" if r["family"] == "pca" else r["family"]
                cells.setdefault((fam, r["table"], r["epsilon"]), []).append(r)
    fams = sorted({k[0] for k in cells})
    for fam in fams:
        groups = {}
        for key, rs in cells.items():
            if key[0] != fam:
                continue
            for r in rs:
                a, b = float(r["default"]), float(r["candidate"])
                if a > 0 and b > 0:
                    groups.setdefault(split(r["choice_default"], r["choice_candidate"]),
                                      []).append(math.log(b / a))
        for g in ("both moments", "both coinpress", "flipped"):
            v = groups.get(g, [])
            if v:
                lines.append(f"| {fam} | {g} | {len(v)} | {math.exp(float(np.median(v))):.3f} | "
                             f"{sum(x > 0 for x in v)} |")
    lines += ["", "Cells whose candidate took the moments release (a triangle) in all 20 trials "
              "and whose default took the moments release too: ratio of medians over those cells.",
              "", "| family | cells | median ratio of medians | above 1.10 |", "|---|---|---|---|"]
    for fam in fams:
        rat = []
        for key, rs in cells.items():
            if key[0] == fam and all(split(r["choice_default"], r["choice_candidate"])
                                     == "both moments" for r in rs):
                a = np.median([float(r["default"]) for r in rs])
                b = np.median([float(r["candidate"]) for r in rs])
                if a > 0:
                    rat.append(b / a)
        if rat:
            lines.append(f"| {fam} | {len(rat)} | {np.median(rat):.3f} | "
                         f"{sum(x > 1.10 for x in rat)} |")
    out = ROOT / "results" / "triangle_auto_gate2_reading.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
