"""Shared machinery of the reproduction scripts: trials, 95% intervals, result tables.

Not installed with matrixdp; the scripts in this folder import it from their own directory.
Every script exposes ``main(argv=None) -> int`` and accepts ``--trials``, ``--out``,
``--seed`` and ``--quiet`` (alias ``--no-progress``).

Result files: ``<out>/<experiment>.md`` (a table for people) and ``<out>/<experiment>.csv``
(one row per method with columns ``method, epsilon, delta, ours, ci95, sd, trials, paper,
difference, noise_std, status, notes``). ``ours`` and ``paper`` are in raw metric units;
the Markdown table shows them in the paper's unit (e.g. ×10⁻²).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "results"
Z_95 = 1.959963984540054  # two-sided 95% normal quantile (spec mvg.md §8.0: mean ± 1.96·sd/√n)

sys.path.insert(0, str(REPO_ROOT / "src"))  # run from a source checkout without installing

from matrixdp._progress import Progress  # noqa: E402

try:  # The experiments' matrices are small: one BLAS thread avoids contention on shared machines.
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
    pass

STATUS_OK = "ok"
STATUS_NOT_REPRODUCED = "not reproduced"
STATUS_NOT_RUN = "not yet run"


@dataclass(frozen=True)
class TrialStats:
    """Mean, sample standard deviation and 95% half-width of a list of trial results."""

    mean: float
    sd: float
    ci95: float
    trials: int

    @classmethod
    def of(cls, values: Sequence[float]) -> "TrialStats":
        arr = np.asarray(values, dtype=float)
        if arr.size == 0:
            raise ValueError("no trial results")
        sd = float(arr.std(ddof=1)) if arr.size > 1 else 0.0
        return cls(mean=float(arr.mean()), sd=sd, ci95=Z_95 * sd / math.sqrt(arr.size),
                   trials=int(arr.size))

    @classmethod
    def exact(cls, value: float) -> "TrialStats":
        """A deterministic result (no noise, e.g. the non-private row): one trial, no spread."""
        return cls(mean=float(value), sd=0.0, ci95=0.0, trials=1)


@dataclass
class Row:
    """One method's line in a results table.

    ``noise_std`` is the per-entry standard deviation of the noise the method adds (None
    when it does not add entrywise noise, e.g. PPCA or random guessing).
    """

    method: str
    epsilon: float | None = None
    delta: float | None = None
    stats: TrialStats | None = None
    paper: float | None = None
    noise_std: float | None = None
    status: str = STATUS_OK
    notes: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def difference(self) -> float | None:
        if self.stats is None or self.paper is None:
            return None
        return self.stats.mean - self.paper


def run_trials(trial: Callable[[np.random.Generator], float], trials: int, seed: int,
               desc: str, progress: bool = True) -> TrialStats:
    """Run ``trial(rng)`` ``trials`` times with independent seeded generators.

    The generators come from ``numpy.random.SeedSequence(seed).spawn(trials)``, so each
    method sees the same seeds and results are reproducible. Seeded generators are for
    experiments only; real releases use matrixdp's secure default.
    """
    children = np.random.SeedSequence(seed).spawn(int(trials))
    values = [trial(np.random.default_rng(child))
              for child in Progress(children, desc=desc, enabled=progress)]
    return TrialStats.of(values)


def iid_noise_rows(trial_for: Callable, *, epsilon: float, delta: float, l2_sensitivity: float,
                   l1_sensitivity: float, trials: int, seed: int, progress: bool, paper: dict,
                   classic_label: str, analytic_label: str, classic_note: str,
                   laplace_note: str) -> list[Row]:
    """The i.i.d. noise baselines every MVG table has: classic and analytic Gaussian, Laplace.

    ``trial_for(mechanism)`` returns the trial (``rng -> score``) that releases the query with
    that mechanism's noise; labels and notes are the table's own.
    """
    from matrixdp.baselines import ClassicGaussianBaseline
    from matrixdp.mechanisms import GaussianMechanism, LaplaceMechanism

    classic = ClassicGaussianBaseline(epsilon=epsilon, delta=delta, sensitivity=l2_sensitivity)
    analytic = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=l2_sensitivity)
    laplace = LaplaceMechanism(epsilon=epsilon, sensitivity=l1_sensitivity)
    return [
        Row(classic_label, epsilon, delta, run_trials(trial_for(classic), trials, seed, "gaussian", progress),
            paper=paper["gaussian"], noise_std=classic.sigma, notes=classic_note),
        Row(analytic_label, epsilon, delta, run_trials(trial_for(analytic), trials, seed, "analytic", progress),
            noise_std=analytic.sigma, notes="not in the paper: the tight i.i.d. calibration"),
        Row("Laplace (Dwork et al. [3])", epsilon, 0.0,
            run_trials(trial_for(laplace), trials, seed, "laplace", progress),
            paper=paper["laplace"], noise_std=math.sqrt(laplace.variance), notes=laplace_note),
    ]


def not_reproduced_rows(epsilon: float, delta: float, paper: dict) -> list[Row]:
    """Rows for the baselines the paper names but does not specify (JL of Upadhyay, BLR)."""
    from matrixdp.baselines import NOT_REPRODUCED

    return [Row("JL transform (Upadhyay [46])", epsilon, delta, paper=paper["jl-upadhyay"],
                status=STATUS_NOT_REPRODUCED, notes=NOT_REPRODUCED["jl-upadhyay"]),
            Row("Exponential (Blum et al. [104])", epsilon, 0.0, paper=paper["exponential-blr"],
                status=STATUS_NOT_REPRODUCED, notes=NOT_REPRODUCED["exponential-blr"])]


def parse_args(description: str, argv=None, *, default_trials: int = 5,
               extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    """The common command line of every experiment script."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--trials", type=int, default=default_trials,
                        help=f"trials per method (default {default_trials}; the papers use 100)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="directory for the .md/.csv results (default: results/)")
    parser.add_argument("--seed", type=int, default=20181015, help="base seed of the trials")
    parser.add_argument("--quiet", "--no-progress", dest="no_progress", action="store_true",
                        help="no progress bars (bars appear only on a terminal; "
                             "MATRIXDP_PROGRESS=always forces them)")
    parser.add_argument("--data-home", type=Path, default=None,
                        help="dataset folder (default: $MATRIXDP_DATA or the user cache)")
    if extra is not None:
        extra(parser)
    args = parser.parse_args(argv)
    if args.trials < 2:
        parser.error("--trials must be at least 2 (a 95% interval needs two trials)")
    return args


def _fmt(value: float | None, unit: float, digits: int = 3) -> str:
    if value is None:
        return "—"
    if not math.isfinite(value):
        return str(value)
    scaled = value / unit
    if abs(scaled) < 5e-10:  # floating-point zero (e.g. the non-private rows)
        return f"{0.0:.{digits}f}"
    if scaled != 0 and (abs(scaled) >= 1e5 or abs(scaled) < 1e-3):
        return f"{scaled:.{digits}e}"
    return f"{scaled:.{digits}f}"


def _fmt_eps(value: float | None) -> str:
    if value is None:
        return "–"
    if value == 0:
        return "0"
    return f"{value:.3g}"


def _fmt_extra(value) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def write_results(name: str, title: str, rows: list[Row], out: Path, *, metric: str,
                  unit: float, unit_label: str, notes: Sequence[str] = ()) -> tuple[Path, Path]:
    """Write ``<out>/<name>.md`` and ``<out>/<name>.csv``; return their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    md_path, csv_path = out / f"{name}.md", out / f"{name}.csv"
    header = ["method", "epsilon", "delta", "ours", "ci95", "sd", "trials", "paper", "difference",
              "noise_std", "status", "notes"]
    extra_columns = list(dict.fromkeys(k for row in rows for k in row.extra))
    with open(csv_path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header + extra_columns)
        for row in rows:
            s = row.stats
            writer.writerow([
                row.method,
                "" if row.epsilon is None else repr(row.epsilon),
                "" if row.delta is None else repr(row.delta),
                "" if s is None else repr(s.mean),
                "" if s is None else repr(s.ci95),
                "" if s is None else repr(s.sd),
                "" if s is None else s.trials,
                "" if row.paper is None else repr(row.paper),
                "" if row.difference is None else repr(row.difference),
                "" if row.noise_std is None else repr(row.noise_std),
                row.status,
                row.notes,
            ] + [repr(row.extra[k]) if isinstance(row.extra.get(k), float) else row.extra.get(k, "")
                 for k in extra_columns])
    lines = [f"# {title}", "",
             f"Metric: {metric}, shown {unit_label}; ours = mean ± 95% CI (1.96·sd/√trials).", "",
             f"| Method | ε | δ | ours ({unit_label}) | paper ({unit_label}) | difference | "
             "per-entry noise std | status |" + "".join(f" {k} |" for k in extra_columns),
             "|---|---|---|---|---|---|---|---|" + "---|" * len(extra_columns)]
    for row in rows:
        if row.stats is None:
            ours = "—"
        elif row.stats.sd == 0:
            ours = _fmt(row.stats.mean, unit)
        else:
            ours = f"{_fmt(row.stats.mean, unit)} ± {_fmt(row.stats.ci95, unit)}"
        lines.append(
            f"| {row.method} | {_fmt_eps(row.epsilon)} | {_fmt_eps(row.delta)} | {ours} | "
            f"{_fmt(row.paper, unit)} | {_fmt(row.difference, unit)} | "
            f"{'—' if row.noise_std is None else f'{row.noise_std:.4g}'} | {row.status} |"
            + "".join(f" {_fmt_extra(row.extra.get(k))} |" for k in extra_columns))
    trials = sorted({r.stats.trials for r in rows if r.stats is not None and r.stats.trials > 1})
    lines += ["", f"Trials per randomised method: {', '.join(map(str, trials)) or '—'} "
              "(deterministic rows are computed once).", ""]
    row_notes = [(r.method, r.notes) for r in rows if r.notes]
    if row_notes:
        lines += ["## Row notes", ""] + [f"- **{m}**: {t}" for m, t in row_notes] + [""]
    if notes:
        lines += ["## Protocol and divergences", ""] + [f"- {t}" for t in notes] + [""]
    md_path.write_text("\n".join(lines))
    return md_path, csv_path


def read_results_csv(path: Path) -> list[dict]:
    """Read a results CSV back (for tests and the summary)."""
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))
