"""Derivation check (issue #24, task PS): the eigenvalue bias of a noisy symmetric release under
the first look's kind of noise, and the spiked-model de-biasing of
:func:`matrixdp.models.spiked.spiked_eigenvalues`, on synthetic spiked matrices.

Synthetic only (no table is loaded). Per scenario: a true covariance ``C = R diag(λ) Rᵀ`` (a fixed
random rotation ``R``), released as ``Ĉ = C + E`` with ``E`` symmetric, independent entries of
variance ``V_ab = σ²·h_a²h_b²`` (the first look's law: a moments release's entry variances scale
with the product of the features' squared box half-widths ``h``; ``h = 1`` is the Wigner case,
``h`` with one feature 10x wide is a wide-box label as in the audit's loose_label). The frame and
the gaps are read by :func:`matrixdp.models.adaptive.pca_frame` exactly as the ranking reads
them (the public ``V`` given, the mean's noise 0), with the default pairwise gaps (``pairwise``),
without the floor (``unfloored``) and with ``spiked=True`` (``spiked``). Per draw:

* ``top_raw``, ``top_spiked``: the released and de-biased largest eigenvalue's excess over the
  bulk's base 10, over the true ``λ_1 − 10`` (the BBP bias: ``λ̂ ≈ λ + kσ²/λ`` for a Wigner noise of off-diagonal variance σ²);
* ``gap_<method>``: the median over the counted pairs (top ``q`` against the rest) of the
  estimated gap over the frame's TRUE gap ``|ũ_iᵀCũ_i − ũ_jᵀCũ_j|`` (as task PN's diagnosis).

Reported: medians over 200 draws (seed 20261153). Outputs ``results/pca_spiked_gaps_derivation.md``
and ``.csv``.

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src python pca_spiked_gaps_derivation.py
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

SEED = 20261153
DRAWS = 200
NAME = "pca_spiked_gaps_derivation"
RESULTS = uc.REPO_ROOT / "results"
BASE = 10.0  # every spectrum is BASE + (a spectrum >= 0): positive, as a covariance's


def scenarios():
    """``(name, k, q, λ, h, σ)``; the edge of a Wigner noise is ``2σ√k`` (h = 1)."""
    out = []
    for k in (5, 12, 40):
        h1 = np.ones(k)
        hw = np.ones(k)
        hw[-1] = 10.0
        edge = 2.0 * np.sqrt(k)  # σ = 1
        iso = 1.0 + 0.1 * np.linspace(1.0, 0.0, k)  # near-isotropic, true spread 0.1
        out.append((f"isotropic spread 0.1, sigma=1", k, 2, BASE + iso, h1, 1.0))
        out.append((f"isotropic spread 0.1, sigma=0.1", k, 2, BASE + iso, h1, 0.1))
        out.append((f"isotropic, one 10x box", k, 2, BASE + iso, hw, 0.01))
        for mult in (0.5, 1.0, 1.5, 3.0, 10.0):
            lam = np.zeros(k)
            lam[0] = mult * edge
            lam[1] = 0.5 * mult * edge
            out.append((f"2 spikes {mult:g}x,{0.5 * mult:g}x edge", k, 2, BASE + lam, h1, 1.0))
        lam = np.linspace(2.0, 0.0, k) * edge
        out.append(("linear spectrum 0-2x edge", k, 2, BASE + lam, h1, 1.0))
    return out


def run():
    from matrixdp.models.adaptive import pca_frame
    from matrixdp.models.spiked import spiked_eigenvalues
    from matrixdp.models.adaptive import moments_pair_variance

    rng = np.random.default_rng(SEED)
    rows = []
    for name, k, q, lam, h, sig in scenarios():
        R, _ = np.linalg.qr(rng.standard_normal((k, k)))
        C = (R * lam) @ R.T
        V = sig * sig * np.outer(h * h, h * h)
        Va = np.zeros((k + 1, k + 1))
        Va[:k, :k] = V
        m0 = np.zeros(k)
        sd = np.sqrt(V)
        rec = {"raw": [], "spk": [], "pairwise": [], "unfloored": [], "spiked": []}
        lam1 = float(lam.max())
        for _ in range(DRAWS):
            G = rng.standard_normal((k, k))
            E = np.triu(G * sd)
            E = E + np.triu(E, 1).T
            Ch = C + E
            for meth, kw in (("pairwise", {}), ("unfloored", {"floor": False}),
                             ("spiked", {"spiked": True})):
                U, g = pca_frame(Ch, Va, m0, 1.0, q, **kw)
                lt = np.einsum("ai,ab,bi->i", U, C, U)
                gt = np.abs(lt[:q, None] - lt[None, q:])
                if meth == "pairwise":  # the pairs the default counts (the same frame)
                    keep = g > 0
                rec[meth].append(float(np.median(g[keep] / np.maximum(gt[keep], 1e-300)))
                                 if keep.any() else np.nan)
            lh, Uh = np.linalg.eigh(Ch)
            lh, Uh = lh[::-1], Uh[:, ::-1]
            s_all, d_all = moments_pair_variance(Va, m0, 1.0, Uh, k)
            lt = spiked_eigenvalues(lh, s_all, d_all)
            rec["raw"].append((lh[0] - BASE) / (lam1 - BASE))
            rec["spk"].append((float(lt[0]) - BASE) / (lam1 - BASE))
        rows.append({"scenario": name, "k": k, "q": q, "sigma": sig,
                     "edge_over_top": 2 * sig * np.sqrt(k) / (lam1 - BASE),
                     "top_raw": float(np.median(rec["raw"])),
                     "top_spiked": float(np.median(rec["spk"])),
                     **{f"gap_{m}": float(np.nanmedian(rec[m]))
                        for m in ("pairwise", "unfloored", "spiked")}})
        print(name, k, {k_: round(v, 3) for k_, v in rows[-1].items()
                        if isinstance(v, float)}, flush=True)
    return rows


#: The reading of the table (written after the run of seed 20261153; the numbers are the table's).
FINDINGS = """## Where the inversion holds (task PS)

1. **Far above the edge** (spikes at >= 3x the Wigner edge 2σ√k): the released top eigenvalue is
   1.00-1.02x its excess, every gap estimate within 1.11x; the second-order pull removes the rest
   (top 0.995-1.0x).
2. **Near the edge** (spikes at 0.5-1.5x the edge): the released top is 1.11-1.96x. De-biased it
   is 0.79-0.94x at k = 5, 0.63-0.82x at k = 12 and 0.36-0.44x at k = 40 below 1.5x the edge
   (1.0x at 1.5x): once the spike joins the bulk's 2-sd cluster it is shrunk with it, an
   under-estimate. The gaps: pairwise 1.4-10x, spiked 0.83-2.0x.
3. **Isotropic** (the bulk's true spread far below the noise edge): the whole spectrum's spread is
   noise; pairwise 118-1,700x the true frame gaps, spiked 0 at k = 5 and 40 and 42x at k = 12 (an
   edge eigenvalue separated by chance). With the spread comparable to the edge (σ = 0.1) pairwise
   12.7-167x, spiked 1.5-10.5x.
4. **Small d**: at k = 5 the cluster statistics rest on 5 eigenvalues; the results are no worse
   than at k = 12 and 40 in this table, but the free-convolution reading of the cluster's spread
   is asymptotic.
5. **Heteroscedastic noise** (one feature's box 10x, its noise dominating): the cluster containing
   the noisy direction is shrunk to 0 (gaps 0 against a true spread of 0.1): the cluster's noise
   is that of its noisiest member. This is the failure the dev gate met on liver
   (`results/pca_spiked_gaps_liver_example.md`).
"""


def report(rows):
    RESULTS.mkdir(exist_ok=True)
    with (RESULTS / f"{NAME}.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = [
        "# The first look's eigenvalue bias and its spiked-model de-biasing (issue #24, task PS)",
        "",
        f"Generated by `experiments/{NAME}.py` (seed {SEED}, {DRAWS} draws per scenario; synthetic "
        "only; design in the script's docstring). Noise: symmetric, independent entries of "
        "variance σ²h_a²h_b² (the bulk is 10 + the listed spectrum, so every spectrum is "
        "positive; the 'edge' is the Wigner edge 2σ√k of the bulk around its centre). `top`: "
        "median of the released (raw) and de-biased (spiked) largest eigenvalue's excess over 10 "
        "over the true λ_1 − 10; `gap`: median over draws of the median over the top-vs-rest pairs that the default "
        "frame counts of estimated/true frame gap.",
        "",
        "| scenario | k | q | σ | top raw/true | top spiked/true | gap pairwise (default) "
        "| gap unfloored | gap spiked |",
        "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['scenario']} | {r['k']} | {r['q']} | {r['sigma']:g} | "
                     f"{r['top_raw']:.3g} | {r['top_spiked']:.3g} | {r['gap_pairwise']:.3g} | "
                     f"{r['gap_unfloored']:.3g} | {r['gap_spiked']:.3g} |")
    lines += ["", FINDINGS]
    (RESULTS / f"{NAME}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    report(run())
