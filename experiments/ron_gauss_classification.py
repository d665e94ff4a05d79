"""RON-Gauss classification on Adult: RON-Gauss vs Gauss without RON, Bernoulli RP (Li et al.), DP-PCA
(Jiang et al.) and real data, over the ε × p grid of spec rongauss.md §4.4.

The paper's experiments section is unrecovered (spec §4.3): this is the spec's protocol, not the
paper's. See experiments/_ron_gauss_common.py. Writes results/ron_gauss_classification.{md,csv,png}.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _ron_gauss_common as rg  # noqa: E402

NAME = "ron_gauss_classification"
TITLE = "RON-Gauss classification on Adult (spec §4.4 protocol)"


def main(argv=None) -> int:
    return rg.run("classification", argv, name=NAME, title=TITLE)


if __name__ == "__main__":
    raise SystemExit(main())
