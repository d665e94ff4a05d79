"""Shared machinery of the RON-Gauss reproductions (spec rongauss.md §4.4; the paper's §5 is lost).

The paper's experiments section (datasets, p, ε grid, metrics, numbers) could not be recovered
(spec §4.3), so these scripts follow the spec's §4.4 protocol, which is OURS, not the paper's:
train on synthetic (or privatised) records, test on real records mapped into the same space.

Data: UCI Adult (train 32,561 / test 16,281), the 8 categorical columns one-hot encoded, the
numeric columns divided by PUBLIC domain constants (age/100, education-num/16, capital-gain/10⁵,
capital-loss/5000, hours-per-week/100; fnlwgt dropped), m = 104. Adult stands in for the
paper's unnamed "three large real-world datasets": it is the only shipped dataset with
n ≥ 10⁴ and m ≥ 50 (spec §4.4), and it is the dataset of the library's documented RON-Gauss
table (docs/ron_gauss.md).

Methods (all pure ε-DP under the same replace-one relation; for classification the class sizes
are public, i.e. a neighbour keeps its label: the paper's implicit model, spec §3.3 (a)):

- **RON-Gauss**: ``matrixdp.RONGauss`` (corrected sensitivities, Haar W), ε_μ = ε_Σ = ε/2.
  **RON-Gauss (mean fraction 0.1)**: the same with ε_μ = 0.1ε, ε_Σ = 0.9ε (spec §4.4 asks for
  both fractions). **RON-Gauss (DP label mean)**, regression only: ``label_mean="dp"``, the
  library's fix of Algorithm 4 (0.1ε on the labels' mean, the rest split evenly; total ε).
- **Gauss without RON** (ablation, the spec's stand-in for MODIPS): the same pipeline with
  W = I_m (no projection; p = m), built from ``matrixdp.synth.group.fit_group_replace_one``.
- **Bernoulli RP + identity (Li et al. 2011)**: a public Φ ∈ {±1/√p}^{p×m}; each unit-norm record
  u_i is released as Φu_i + Lap(Δ/ε)^p with the per-record L1 sensitivity
  Δ = max_{‖u‖,‖u′‖≤1} ‖Φ(u − u′)‖₁ ≤ 2√p‖Φ‖₂ (the bound is used; Φ is public, so it is a public
  constant). Regression appends the shifted label (L1 sensitivity 2a added to Δ).
- **DP-PCA + identity (after Jiang et al. 2013)**: ε/2 on the second moment of the unit-norm
  records (Laplace, L1 sensitivity √2·m/n, symmetric PSD repair), V = its top-p eigenvectors,
  then ε/2 on the records V^T u_i + Lap(2√p/(ε/2))^p (‖V^T(u − u′)‖₁ ≤ √p·2). Regression appends
  the shifted label (sensitivity 2a added).
- **real (RON, p)**: the same downstream model on the real training records mapped by the RON
  projection (non-private reference, per p); **real (all m)**: on the unit-norm records in R^m.

Seeds: trial t uses ``SeedSequence(seed).spawn(trials)[t]``; within a trial every (method, ε, p)
cell gets its own child stream. Seeded runs are replayable by whoever knows the seed (fine for an
experiment; real releases use matrixdp's secure default).
"""

from __future__ import annotations

import csv
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as common  # noqa: E402

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
DIMS = (2, 5, 10, 13, 20)
PUBLIC_SCALE = {"age": 100.0, "education-num": 16.0, "capital-gain": 1e5, "capital-loss": 5e3,
                "hours-per-week": 100.0}
METHODS = ("RON-Gauss", "Gauss without RON", "Bernoulli RP (Li et al.)", "DP-PCA (Jiang et al.)")
#: Regression only: the library's fix of Algorithm 4 (a DP label mean inside the same total ε).
DP_LABEL_MEAN = "RON-Gauss (DP label mean)"
#: The spec's second mean fraction (§4.4: "mean fraction 0.5 (also report 0.1)"): ε_μ = 0.1ε.
MEAN_FRACTION_01 = "RON-Gauss (mean fraction 0.1)"
TASK_METHODS = {"classification": METHODS + (MEAN_FRACTION_01,),
                "regression": METHODS + (DP_LABEL_MEAN, MEAN_FRACTION_01),
                "clustering": METHODS + (MEAN_FRACTION_01,)}
ALL_METHODS = METHODS + (DP_LABEL_MEAN, MEAN_FRACTION_01)
#: Regression target: hours-per-week, publicly scaled to [0, 1] (divided by its domain bound 100).
REG_TARGET = "hours-per-week"
REG_RANGE = (0.0, 1.0)
REG_UNIT = 100.0  # RMSE is reported in hours


def load_adult_task(task: str, data_home=None):
    """(X_train, y_train, X_test, y_test, feature_names) for ``task`` (public scaling only)."""
    from matrixdp.datasets import load_adult

    out = []
    for split in ("train", "test"):
        ds = load_adult(split=split, one_hot=True, data_home=data_home)
        names = list(ds.feature_names)
        keep = [j for j, name in enumerate(names) if name != "fnlwgt"]
        data = np.asarray(ds.data, dtype=float)[:, keep]
        kept = [names[j] for j in keep]
        data = data / np.array([PUBLIC_SCALE.get(name, 1.0) for name in kept])
        if task == "regression":
            j = kept.index(REG_TARGET)
            y = data[:, j].copy()
            data = np.delete(data, j, axis=1)
            kept = kept[:j] + kept[j + 1:]
        else:
            y = np.asarray(ds.target)
        out.append((data, y, kept))
    (Xtr, ytr, names), (Xte, yte, _) = out
    return Xtr, ytr, Xte, yte, names


_UNIT_CACHE: dict[int, tuple] = {}


def _unit(X):
    """Unit-norm rows of ``X``; the harness's train and test matrices are normalised once.

    :func:`_cache_unit` stores the inputs with their results (holding a reference keeps each
    ``id`` unique) and later calls return the same read-only array: the real records do not
    depend on a trial's randomness.
    """
    from matrixdp.synth import normalize_rows

    hit = _UNIT_CACHE.get(id(X))
    if hit is not None and hit[0] is X:
        return hit[1]
    return normalize_rows(X)


def _cache_unit(*arrays):
    """Forget earlier inputs and cache the unit rows of ``arrays`` (a task's train/test matrices)."""
    from matrixdp.synth import normalize_rows

    _UNIT_CACHE.clear()
    for X in arrays:
        U = normalize_rows(X)
        U.setflags(write=False)
        _UNIT_CACHE[id(X)] = (X, U)


def _laplace_records(U, sens, eps, gen):
    """The identity query on (projected) records: each entry + Lap(sens/ε)."""
    return U + gen.laplace(0.0, sens / eps, size=U.shape)


def _bernoulli_l1_sensitivity(Phi):
    """max over ‖u‖,‖u′‖ ≤ 1 of ‖Φ(u − u′)‖₁, bounded by 2·√p·‖Φ‖₂ (public: Φ is public)."""
    p = Phi.shape[0]
    return 2.0 * math.sqrt(p) * float(np.linalg.norm(Phi, 2))


class Fitted:
    """A privatised training set (features, labels) and the public map for real records."""

    def __init__(self, Z, y, transform):
        self.Z, self.y, self.transform = Z, y, transform


def fit_method(method, task, X, y, eps, p, gen, classes=(0, 1)):
    """Release with ``method`` at total ε and dimension p; returns a :class:`Fitted`."""
    from matrixdp import RONGauss
    from matrixdp.synth import cov_sensitivity, make_symmetric_psd, noisy_second_moment
    from matrixdp.synth.group import fit_group_replace_one

    n, m = X.shape
    if method in ("RON-Gauss", DP_LABEL_MEAN, MEAN_FRACTION_01):
        kw = dict(dim=p, epsilon=eps, random_state=gen,
                  mean_fraction=0.1 if method == MEAN_FRACTION_01 else 0.5)
        if task == "classification":
            kw.update(task="classification", classes=list(classes), class_sizes="public",
                      class_weights="uniform")
        elif task == "regression":
            kw.update(task="regression", label_bound=REG_RANGE)
        if method == DP_LABEL_MEAN:
            if task != "regression":
                raise ValueError(f"{DP_LABEL_MEAN!r} is a regression method")
            kw.update(label_mean="dp")  # ε_label = 0.1ε, the rest split ε_μ = ε_Σ, total ε
        model = RONGauss(**kw).fit(X, y if task != "clustering" else None)
        sample = model.sample(n, rng=gen)
        Z, ys = (sample, None) if task == "clustering" else sample
        return Fitted(Z, ys, model.transform)
    if method == "Gauss without RON":
        W = np.eye(m)
        if task == "classification":
            parts, labels = [], []
            means = []
            for c in classes:
                fit = fit_group_replace_one(X[y == c], W, epsilon_mean=eps / 2, epsilon_cov=eps / 2,
                                            rng=gen)
                means.append(fit.mean)
                k = n // len(classes)  # uniform class weights, as the RON-Gauss row
                vals, vecs = np.linalg.eigh(fit.covariance)
                root = vecs * np.sqrt(np.clip(vals, 0.0, None))
                parts.append(fit.mean + gen.standard_normal((k, m)) @ root.T)
                labels.append(np.full(k, c))
            return Fitted(np.vstack(parts), np.concatenate(labels), _unit)
        lo, hi = REG_RANGE
        shift, a = (lo + hi) / 2, (hi - lo) / 2
        fit = fit_group_replace_one(X, W, labels=None if task == "clustering" else y - shift,
                                    label_bound=None if task == "clustering" else a,
                                    epsilon_mean=eps / 2, epsilon_cov=eps / 2, rng=gen)
        d = fit.covariance.shape[0]
        vals, vecs = np.linalg.eigh(fit.covariance)
        S = gen.standard_normal((n, d)) @ (vecs * np.sqrt(np.clip(vals, 0.0, None))).T
        mu = fit.mean

        def transform(Xr):
            return _unit(_unit(Xr) - mu)
        if task == "clustering":
            return Fitted(S, None, transform)
        return Fitted(S[:, :m], S[:, m] + shift, transform)
    U = _unit(X)
    lo, hi = REG_RANGE
    shift, a = (lo + hi) / 2, (hi - lo) / 2
    if method == "Bernoulli RP (Li et al.)":
        Phi = gen.choice(np.array([-1.0, 1.0]), size=(p, m)) / math.sqrt(p)
        proj = U @ Phi.T
        sens = _bernoulli_l1_sensitivity(Phi)
        eps_rec = eps

        def transform(Xr):
            return _unit(Xr) @ Phi.T
    elif method == "DP-PCA (Jiang et al.)":
        raw, _ = noisy_second_moment(U.T @ U / n, epsilon=eps / 2,
                                     sensitivity=cov_sensitivity(m, n), rng=gen)
        vals, vecs = np.linalg.eigh(make_symmetric_psd(raw))
        V = vecs[:, np.argsort(vals)[::-1][:p]]
        proj = U @ V
        sens = 2.0 * math.sqrt(p)
        eps_rec = eps / 2

        def transform(Xr):
            return _unit(Xr) @ V
    else:
        raise ValueError(f"unknown method {method!r}")
    if task == "regression":
        rec = np.column_stack([proj, y - shift])
        noisy = _laplace_records(rec, sens + 2 * a, eps_rec, gen)
        return Fitted(noisy[:, :p], noisy[:, p] + shift, transform)
    return Fitted(_laplace_records(proj, sens, eps_rec, gen), y if task == "classification" else None,
                  transform)


def score(task, Z, y_syn, Zte, yte, k=2):
    """The task's metrics for a model trained on (Z, y_syn) and tested on (Zte, yte)."""
    if task == "classification":
        from sklearn.linear_model import LogisticRegression
        from sklearn.metrics import balanced_accuracy_score, f1_score

        if np.unique(y_syn).size < 2:
            pred = np.full(yte.shape, y_syn[0])
        else:
            pred = LogisticRegression(max_iter=300, class_weight="balanced").fit(Z, y_syn).predict(Zte)
        return {"accuracy": float(np.mean(pred == yte)),
                "balanced_accuracy": float(balanced_accuracy_score(yte, pred)),
                "f1": float(f1_score(yte, pred, zero_division=0.0))}
    if task == "regression":
        from sklearn.linear_model import Ridge

        pred = Ridge(alpha=1e-3).fit(Z, y_syn).predict(Zte)
        return {"rmse": float(np.sqrt(np.mean((pred - yte) ** 2))) * REG_UNIT}
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    # K-means on the first CLUSTER_FIT records (the privatised/synthetic rows are exchangeable,
    # and the real rows are in file order): keeps the 5 x 6 x 4 grid affordable on 2 cores
    lab = KMeans(n_clusters=k, n_init=1, random_state=0).fit(Z[:CLUSTER_FIT]).predict(Zte)
    return {"nmi": float(normalized_mutual_info_score(yte, lab)),
            "ari": float(adjusted_rand_score(yte, lab))}


CLUSTER_FIT = 10_000

METRICS = {"classification": ("balanced_accuracy", "accuracy", "f1"), "regression": ("rmse",),
           "clustering": ("nmi", "ari")}
METRIC_LABEL = {"balanced_accuracy": "balanced accuracy", "accuracy": "accuracy", "f1": "F1 (>50K)",
                "rmse": "RMSE (hours)", "nmi": "NMI", "ari": "ARI"}


def run(task, argv=None, *, name, title):
    """Run the grid for ``task`` and write results/<name>.{csv,md,png}."""

    def extra(parser):
        parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
        parser.add_argument("--dims", type=int, nargs="+", default=list(DIMS))
        parser.add_argument("--methods", nargs="+", default=list(TASK_METHODS[task]),
                            choices=list(TASK_METHODS[task]))

    args = common.parse_args(title, argv, default_trials=20, extra=extra)  # the spec's 20 repetitions
    import warnings

    warnings.simplefilter("ignore")  # NoiseDominatedWarning at small ε is expected and summarised
    Xtr, ytr, Xte, yte, names = load_adult_task(task, args.data_home)
    _cache_unit(Xtr, Xte)  # the real records' unit rows, shared by every cell and trial
    m = Xtr.shape[1]
    yte_eval = yte
    metrics = METRICS[task]
    cells: dict[tuple, list[dict]] = {}
    started = time.time()
    children = np.random.SeedSequence(args.seed).spawn(args.trials)
    for t, child in enumerate(children):
        cell_seeds = child.spawn(len(args.methods) * len(args.epsilons) * len(args.dims) + len(args.dims) + 1)
        it = iter(cell_seeds)
        # non-private references
        if t == 0:  # deterministic: computed once
            real_full = score(task, _unit(Xtr), ytr if task != "clustering" else None, _unit(Xte), yte_eval)
            cells.setdefault(("real (all m)", None, m), []).append(real_full)
            if task == "regression":  # the trivial reference: predict the training mean
                trivial = float(np.sqrt(np.mean((ytr.mean() - yte) ** 2))) * REG_UNIT
                cells.setdefault(("predict the training mean", None, 0), []).append({"rmse": trivial})
        for p in args.dims:
            from matrixdp.synth import ron_matrix

            gen = np.random.default_rng(next(it))
            W = ron_matrix(m, p, rng=gen)
            sc = score(task, _unit(Xtr) @ W, ytr if task != "clustering" else None, _unit(Xte) @ W, yte_eval)
            cells.setdefault(("real (RON, p)", None, p), []).append(sc)
        for method in args.methods:
            for eps in args.epsilons:
                for p in (args.dims if method != "Gauss without RON" else [m]):
                    gen = np.random.default_rng(next(it))
                    fitted = fit_method(method, task, Xtr, ytr, eps, p, gen)
                    sc = score(task, fitted.Z, fitted.y, fitted.transform(Xte), yte_eval)
                    cells.setdefault((method, eps, p), []).append(sc)
        if not args.no_progress:
            print(f"[{name}] trial {t + 1}/{args.trials} done, {time.time() - started:.0f} s",
                  flush=True)
    elapsed = time.time() - started
    rows = []
    for (method, eps, p), results in cells.items():
        row = {"method": method, "epsilon": "" if eps is None else eps, "p": p,
               "trials": len(results)}
        for key in metrics:
            stats = common.TrialStats.of([r[key] for r in results]) if len(results) > 1 else \
                common.TrialStats.exact(results[0][key])
            row[key] = stats.mean
            row[f"{key}_sd"] = stats.sd
        rows.append(row)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    fields = ["method", "epsilon", "p", "trials"] + [c for k in metrics for c in (k, f"{k}_sd")]
    with open(out / f"{name}.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    _write_md(out / f"{name}.md", title, task, rows, metrics, args, m, elapsed)
    _plot(out / f"{name}.png", title, task, rows, metrics[0], args, m)
    return 0


def _fmt(row, key):
    return f"{row[key]:.3f} ± {row[f'{key}_sd']:.3f}"


def _write_md(path, title, task, rows, metrics, args, m, elapsed):
    lines = [f"# {title}", "",
             f"Adult (train 32,561 / test 16,281, m = {m}); train on privatised records, test on the "
             "real test set mapped by each method's public transform. Mean ± sd over "
             f"{args.trials} trials"
             + (" (the spec's 20 repetitions). " if args.trials >= 20 else
                " (PARTIAL: the spec asks for 20 repetitions). ")
             + f"Grid: ε ∈ {list(args.epsilons)}, p ∈ {list(args.dims)}, ε_μ = ε_Σ = ε/2 "
             f"(the '{MEAN_FRACTION_01}' rows: ε_μ = 0.1ε, ε_Σ = 0.9ε). Run time "
             f"{elapsed / 60:.1f} min (one process, OPENBLAS_NUM_THREADS="
             f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, shared 2-core machine). Protocol: experiments/_ron_gauss_common.py (spec rongauss.md §4.4; "
             "the paper's own experiments are unrecovered, so there are no paper numbers to compare).", ""]
    head = "| method | ε | p | " + " | ".join(METRIC_LABEL[k] for k in metrics) + " |"
    lines += [head, "|---|---|---|" + "---|" * len(metrics)]
    order = {mth: i for i, mth in enumerate(("predict the training mean", "real (all m)", "real (RON, p)")
                                            + ALL_METHODS)}
    for row in sorted(rows, key=lambda r: (order[r["method"]], r["epsilon"] if r["epsilon"] != "" else -1, r["p"])):
        eps = "—" if row["epsilon"] == "" else f"{row['epsilon']:g}"
        lines.append(f"| {row['method']} | {eps} | {row['p']} | "
                     + " | ".join(_fmt(row, k) for k in metrics) + " |")
    lines += ["", "Classification: logistic regression (class_weight='balanced') on a class-balanced "
              "synthetic sample (RON-Gauss and the ablation draw uniform class weights); the record-"
              "release baselines keep the real labels (public under the class-size-public relation)."
              if task == "classification" else
              "Regression: target hours-per-week (publicly scaled to [0, 1], label_bound (0, 1)); "
              "Ridge(alpha=1e-3) on the privatised (x, y); RMSE in hours on the real test set. "
              f"'{DP_LABEL_MEAN}' is matrixdp's RONGauss(label_mean='dp'): the same release plus the "
              "labels' mean (Laplace, sensitivity 2a/n, ε_label = 0.1ε, so ε_μ = ε_Σ = 0.45ε and the "
              "total is ε), with synthetic labels centred there instead of at the public midpoint "
              "(the paper's Algorithm 4, the 'RON-Gauss' row)."
              if task == "regression" else
              "Clustering: K-means (k = 2, the income classes) on the privatised records; real test "
              "points are assigned to the nearest centroid; NMI and ARI against the income label. K-means "
              f"(n_init = 1) is fitted on the first {CLUSTER_FIT:,} training-size rows of each set.", ""]
    path.write_text("\n".join(lines))


def _plot(path, title, task, rows, key, args, m):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dims = list(args.dims)
    fig, axes = plt.subplots(1, len(dims), figsize=(3.2 * len(dims), 3.2), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, p in zip(axes, dims):
        for method in ALL_METHODS:
            pts = sorted((r["epsilon"], r[key]) for r in rows if r["method"] == method
                         and r["epsilon"] != "" and (r["p"] == p or method == "Gauss without RON"))
            if pts:
                ax.plot(*zip(*pts), marker="o", label=method if method != "Gauss without RON"
                        else f"Gauss without RON (p = {m})")
        real = [r[key] for r in rows if r["method"] == "real (RON, p)" and r["p"] == p]
        if real:
            ax.axhline(real[0], color="k", ls="--", lw=1, label="real (RON, p)")
        ax.set_xscale("log")
        if key == "rmse":  # exploded fits reach hundreds of hours; the stable cells differ by ~3
            ax.set_yscale("log")
        ax.set_title(f"p = {p}")
        ax.set_xlabel("ε")
    axes[0].set_ylabel(METRIC_LABEL[key])
    axes[-1].legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
