"""Shared pieces of the Farokhi experiments: data preparation (spec §6, A26/A28/A29), the
Gaussian-vs-Laplace sweeps over λ, and table/plot writers. Not installed; run the scripts.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
from pathlib import Path

import numpy as np

from matrixdp._progress import Progress
from matrixdp.models.ridge import fit_ridge, ridge_loss
from matrixdp.models.svm import fit_svm
from matrixdp.calibration.fisher_ldp import (
    gaussian_ldp_epsilon,
    laplace_ldp_epsilon,
    paper_ldp_epsilon,
)
from matrixdp.mechanisms.fisher import sample_fisher_matched_laplace, sample_optimal_gaussian

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "results"
#: The λ grid (the paper does not give one; spec A26).
DEFAULT_LAMS = np.logspace(-8, 4, 13)


def parse_args(description: str, default_trials: int = 5, lams=DEFAULT_LAMS, extra=None,
               argv=None):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--trials", type=int, default=default_trials,
                        help=f"noise draws per lambda (the paper: 100; default {default_trials})")
    parser.add_argument("--lams", type=float, nargs="+", default=list(lams),
                        help="the lambda grid (default logspace(-8, 4, 13))")
    parser.add_argument("--seed", type=int, default=2024, help="base seed of the noise draws")
    parser.add_argument("--out", type=Path, default=RESULTS, help="output folder (results/)")
    parser.add_argument("--no-plot", action="store_true", help="skip the .png plot")
    parser.add_argument("--quiet", "--no-progress", dest="quiet", action="store_true",
                        help="no progress bar")
    if extra:
        extra(parser)
    return parser.parse_args(argv)


# ------------------------------------------------------------------------------ data
def _data_home() -> Path:
    """$MATRIXDP_DATA, else the nearest shared/datasets beside the checkout (as the tests and
    ``matrixdp reproduce`` find it), else the matrixdp data home."""
    env = os.environ.get("MATRIXDP_DATA")
    if env:
        return Path(env)
    for parent in (REPO, *REPO.parents):
        if (parent / "shared" / "datasets").is_dir():
            return parent / "shared" / "datasets"
    from matrixdp.datasets import data_home

    return data_home()


def load_wdbc_xy():
    """Raw (unscaled) WDBC, 569 x 30, y = +1 for malignant (spec §5.2)."""
    try:
        from matrixdp.datasets import load_wdbc
    except ImportError:
        raw = np.loadtxt(_data_home() / "wdbc" / "wdbc.data", delimiter=",", dtype=str)
        return raw[:, 2:].astype(float), np.where(raw[:, 1] == "M", 1.0, -1.0)
    ds = load_wdbc()
    return np.asarray(ds.data, dtype=float), np.where(np.asarray(ds.target) == 1, 1.0, -1.0)


def _integer_encode(frame, columns):
    """Integer-encode every non-numeric column (pandas.factorize; missing is its own code)."""
    import pandas as pd

    out = frame[columns].copy()
    for col in columns:
        if pd.api.types.is_numeric_dtype(out[col]):
            continue
        try:  # numbers stored as text (e.g. a loader's object frame)
            out[col] = pd.to_numeric(out[col], errors="raise")
        except (ValueError, TypeError):
            out[col] = pd.factorize(out[col], use_na_sentinel=False)[0]
    return out.to_numpy(dtype=float)


ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
                 "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
                 "hours-per-week", "native-country"]


def load_adult_xy():
    """Adult, adult.data + adult.test (48,842 rows), 14 raw columns with integer-encoded
    categoricals ('?' its own category), y = +1 for '>50K' (spec A29)."""
    try:
        from matrixdp.datasets import load_adult
    except ImportError:
        import pandas as pd

        names = ADULT_COLUMNS + ["income"]
        parts = [pd.read_csv(_data_home() / "adult" / f, header=None, names=names,
                             skipinitialspace=True, skiprows=k)
                 for f, k in (("adult.data", 0), ("adult.test", 1))]
        frame = pd.concat(parts, ignore_index=True)
        frame["income"] = frame["income"].str.rstrip(".")
        return _integer_encode(frame, ADULT_COLUMNS), np.where(frame["income"] == ">50K", 1.0, -1.0)
    ds = load_adult(split="both")
    return _integer_encode(ds.frame, ADULT_COLUMNS), np.where(np.asarray(ds.target) == 1, 1.0, -1.0)


def load_lending_club_xy():
    """The 14-column LendingClub teaching subset as a regression stand-in: target ``int.rate``,
    the other 13 columns as features (``purpose`` integer-encoded), no intercept (spec A28)."""
    import pandas as pd

    try:
        from matrixdp.datasets import load_lending_club
        frame = load_lending_club(one_hot=False).frame
    except ImportError:
        text = (_data_home() / "lending_club" / "loan_data.csv").read_bytes().decode()
        import io
        frame = pd.read_csv(io.StringIO(text.replace("\r\n", "\n").replace("\r", "\n")))
    if "int.rate" not in frame.columns:  # pragma: no cover - depends on the loader's frame
        raise RuntimeError("the lending club frame has no int.rate column")
    rate = frame["int.rate"]
    if not pd.api.types.is_numeric_dtype(rate):
        text = rate.astype(str).str.strip()
        percent = text.str.endswith("%")
        rate = text.str.rstrip("%").astype(float).where(~percent, text.str.rstrip("%").astype(float) / 100.0)
    features = [c for c in frame.columns if c != "int.rate"]
    return _integer_encode(frame, features), rate.to_numpy(dtype=float), features


def toy_2d(seed: int = 0):
    """The paper's 2-D example: 50 N([0,0], I) with y=+1 and 50 N([0,5], I) with y=-1."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.standard_normal((50, 2)), rng.standard_normal((50, 2)) + [0.0, 5.0]])
    return X, np.concatenate([np.ones(50), -np.ones(50)])


# ---------------------------------------------------------------------------- sweeps
def _noise(kind, q, lam, p, seed):
    if kind == "gaussian":
        return sample_optimal_gaussian(q, lam, n_features=p, rng=seed)
    return sample_fisher_matched_laplace(q, lam, n_features=p, rng=seed)


def _seed(base: int, k: int, t: int) -> int:
    return base * 1_000_003 + k * 10_007 + t


def ldp_columns(lam: float, widths: np.ndarray, delta: float = 1e-5, *, suffix: str = "") -> dict:
    """ε of the Gaussian (exact and the paper's) and of the Laplace baseline for ranges ``widths``.

    ``suffix`` is appended to the column names; the real-data sweeps pass ranges OBSERVED in the
    data and mark their columns ``_obs_NOTDP`` so that no table can present them as a guarantee.
    """
    return {f"eps_exact{suffix}": gaussian_ldp_epsilon(lam, delta, ranges=widths),
            f"eps_paper{suffix}": paper_ldp_epsilon(lam, delta, ranges=widths),
            f"eps_laplace{suffix}": laplace_ldp_epsilon(lam, ranges=widths)}


#: Column suffix and table note for ε computed from OBSERVED (data-derived) feature ranges.
OBSERVED_SUFFIX = "_obs_NOTDP"
OBSERVED_NOTE = (
    "eps_*_obs_NOTDP (delta=1e-5) are computed from the OBSERVED, data-derived feature ranges: "
    "they are NOT a privacy guarantee of any release (ranges derived from the private data leak it "
    "and void the LDP argument); they only show the order of magnitude that the paper's "
    "raw-feature setting implies (the paper reports no epsilon). A real release must pass public "
    "ranges, FisherNoiseMechanism(feature_ranges=...). eps_exact = exact analytic Gaussian, "
    "eps_paper = Theorem 2.5 (false when below eps_exact), eps_laplace = pure eps of the Laplace "
    "baseline")


def _noise_sweep(X, lams, trials, seed, score, metric: str, desc: str, progress, observed_widths):
    """For each λ: ``score(noisy, kind)`` of Gaussian- and Laplace-noised copies of X, mean and sd
    over trials."""
    q, p = X.shape
    rows = []
    bar = Progress(total=len(lams) * trials * 2, desc=desc, enabled=progress)
    for k, lam in enumerate(lams):
        values = {"gaussian": [], "laplace": []}
        for t in range(trials):
            for kind in values:
                values[kind].append(score(X + _noise(kind, q, lam, p, _seed(seed, k, t)), kind))
                bar.update()
        row = {"lam": lam, "crb": p / math.sqrt(lam)}
        for kind, vals in values.items():
            row[f"{metric}_{kind}"] = float(np.mean(vals))
            row[f"{metric}_{kind}_sd"] = float(np.std(vals))
        if observed_widths is not None:
            row.update(ldp_columns(lam, observed_widths, suffix=OBSERVED_SUFFIX))
        rows.append(row)
    bar.close()
    return rows


def svm_sweep(X, y, lams, trials, seed, *, progress=True, observed_widths=None,
              solver="auto"):
    """Success rate on the original data of SVMs trained on Gaussian- and Laplace-noised copies.

    Each fit is exact (``fit_svm``); the working-set solver starts from the previous fit of the
    same noise kind, which changes only its speed.
    """
    last = {}

    def accuracy(noisy, kind):
        fit = fit_svm(noisy, y, solver=solver, warm_start=last.get(kind))
        last[kind] = fit
        return fit.accuracy(X, y)

    return _noise_sweep(X, lams, trials, seed, accuracy, "acc", "svm sweep", progress, observed_widths)


def ridge_sweep(X, y, lams, trials, seed, *, sigma=1e-5, progress=True, observed_widths=None):
    """Loss on the original data of ridge models trained on Gaussian- and Laplace-noised copies."""
    def loss(noisy, kind):
        return ridge_loss(fit_ridge(noisy, y, sigma=sigma), X, y, sigma=sigma)

    return _noise_sweep(X, lams, trials, seed, loss, "loss", "ridge sweep", progress, observed_widths)


# --------------------------------------------------------------------------- writers
def _fmt(v):
    if isinstance(v, (float, np.floating)):
        return f"{v:.6g}"
    return str(v)


def write_table(out: Path, name: str, rows: list[dict], *, title: str, notes: list[str]) -> Path:
    """Write ``<name>.csv`` and ``<name>.md`` (title, notes, then the table) under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    cols = list(rows[0].keys())
    with open(out / f"{name}.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=cols)
        writer.writeheader()
        writer.writerows(rows)
    lines = [f"# {title}", ""] + [f"- {n}" for n in notes] + [""]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "---|" * len(cols))
    lines += ["| " + " | ".join(_fmt(r[c]) for c in cols) + " |" for r in rows]
    md = out / f"{name}.md"
    md.write_text("\n".join(lines) + "\n")
    return md


def append_markdown(md: Path, text: str) -> None:
    with open(md, "a") as fh:
        fh.write("\n" + text.rstrip() + "\n")


def get_pyplot():
    """matplotlib's pyplot (Agg backend), or None with a message when the [plot] extra is absent."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install 'matrixdp[plot]'): skipping the plot",
              file=sys.stderr)
        return None
    return plt


def plot_sweep(out: Path, name: str, rows, *, metric: str, baseline: float, ylabel: str,
               title: str) -> Path | None:
    """The paper's figure layout: red = optimal Gaussian, yellow = Laplace, blue = original."""
    plt = get_pyplot()
    if plt is None:
        return None
    lams = [r["lam"] for r in rows]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(6, 6), sharex=True)
    ax.errorbar(lams, [r[f"{metric}_gaussian"] for r in rows],
                yerr=[r[f"{metric}_gaussian_sd"] for r in rows], color="red",
                label="optimal Gaussian (Thm 2.4)", marker="o", ms=3)
    ax.errorbar(lams, [r[f"{metric}_laplace"] for r in rows],
                yerr=[r[f"{metric}_laplace_sd"] for r in rows], color="goldenrod",
                label="Fisher-matched Laplace", marker="s", ms=3)
    ax.axhline(baseline, color="blue", label="original data")
    ax.set_xscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax2.loglog(lams, [r["crb"] for r in rows], color="black")
    ax2.set_xlabel("lambda")
    ax2.set_ylabel("privacy level Tr(Pi I^-1)")
    fig.tight_layout()
    path = out / f"{name}.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
