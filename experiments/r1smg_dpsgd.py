"""R1SMG case study III (Ji & Li 2024, §7.3, Figs 7-8, Eq. 16): DP-SGD with Gaussian vs R1SMG noise.

MNIST and CIFAR-10 cannot be downloaded here, so the study runs on two shipped substitutes:
scikit-learn's **digits** (8x8 images, 10 classes; it ships inside scikit-learn) for MNIST, and
**Adult** (tabular, binary; from the shared datasets) as a tabular case. The network is a
one-hidden-layer MLP (the paper does not state its MNIST network; spec r1smg.md §6.3).

Protocol (spec r1smg.md §2 "DP-SGD variant", §6.3, T-E1, T-E2):

- Poisson sampling with rate q, per-example clipping to C = 1 of the gradient over all parameters
  (flattened), noise on the clipped sum, division by the expected lot size qN, plain SGD.
- **DP-SGD (Abadi et al.)**: Gaussian noise N(0, σ²C²I); the total (ε, δ) comes from an RDP
  accountant for the Poisson-subsampled Gaussian (dp-accounting, add/remove), steps T = ⌈E/q⌉.
- **R1SMG-DPSGD** (behind its unsafe opt-in): the same total (ε, δ), C, q, E; the per-step budget
  (ε₀, δ₀) solves the paper's strong-composition equations (16) with "amplification" qε₀, qδ₀; the
  noise is R1SMG's rank-1 noise with σ*(ε₀, δ₀, C, P). Its equivalent Gaussian noise multiplier is
  sqrt(σ*/P)/C.
- Also reported: the total ε that the *correct* subsampling bound ln(1 + q(e^ε₀ − 1)) gives in (16)
  for the same ε₀ (what the paper's per-step budget would cost even if R1SMG's per-step claim held).

Writes ``results/r1smg_dpsgd.{md,csv,png}``.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as common  # noqa: E402

NAME = "r1smg_dpsgd"
TITLE = "R1SMG case study III: DP-SGD with Gaussian vs R1SMG noise (digits and Adult substitutes)"
DELTA = 1e-5
DELTA_PRIME = 1e-10
CLIP = 1.0
HIDDEN = 32


# ----------------------------------------------------------------------------- privacy
def dpsgd_epsilon(sigma: float, q: float, steps: int, delta: float = DELTA) -> float:
    """Total ε of DP-SGD: RDP of the Poisson-subsampled Gaussian (dp-accounting, add/remove)."""
    import dp_accounting
    from dp_accounting import rdp

    orders = list(range(2, 257))  # integer orders 2-256, as TF-Privacy (spec r1smg.md T-E2)
    acc = rdp.RdpAccountant(orders)
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    acc.compose(dp_accounting.SelfComposedDpEvent(event, steps))
    return float(acc.get_epsilon(delta))


def eq16_total(eps0: float, q: float, epochs: float, delta_prime: float = DELTA_PRIME) -> float:
    """The paper's Eq. (16): strong composition of T = E/q steps with 'amplified' ε = qε₀."""
    steps = epochs / q
    e = q * eps0
    return math.sqrt(2 * steps * math.log(1 / delta_prime)) * e + steps * e * math.expm1(e)


def eq16_eps0(total: float, q: float, epochs: float, delta_prime: float = DELTA_PRIME) -> float:
    """Solve Eq. (16) for the per-step ε₀ (monotone in ε₀: bisection by brentq)."""
    from scipy.optimize import brentq

    return float(brentq(lambda e0: eq16_total(e0, q, epochs, delta_prime) - total, 1e-12, 1e3,
                        xtol=1e-12))


def eq16_delta0(delta: float, epochs: float, delta_prime: float = DELTA_PRIME) -> float:
    """δ = (E/q)(qδ₀) + δ′  ⇒  δ₀ = (δ − δ′)/E."""
    return (delta - delta_prime) / epochs


def correct_amplification_total(eps0: float, q: float, epochs: float,
                                delta_prime: float = DELTA_PRIME) -> float:
    """Eq. (16) with the valid Poisson-subsampling bound ln(1 + q(e^ε₀ − 1)) per step."""
    steps = epochs / q
    e = math.log1p(q * math.expm1(eps0))
    return math.sqrt(2 * steps * math.log(1 / delta_prime)) * e + steps * e * math.expm1(e)


# ----------------------------------------------------------------------------- data
def load_digits_task(seed: int):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X = X / 16.0  # public pixel range [0, 16]
    return train_test_split(X, y, test_size=0.25, random_state=seed, stratify=y) + [10]


#: Public ranges of Adult's six numeric columns (UCI documentation / the census coding), used to
#: scale them to [0, 1]; declared public for this study, never read from the records.
ADULT_NUMERIC_RANGES = np.array([[17, 90], [0, 1.5e6], [1, 16], [0, 99_999], [0, 4_356], [1, 99]],
                                dtype=float)


def load_adult_task(seed: int, data_home=None):
    from matrixdp.datasets import load_adult

    def prep(split):
        data = load_adult(split=split, one_hot=True, drop_missing=True, data_home=data_home,
                          progress=False)
        X = np.asarray(data.data, dtype=float).copy()
        lo, hi = ADULT_NUMERIC_RANGES[:, 0], ADULT_NUMERIC_RANGES[:, 1]
        X[:, :6] = np.clip((X[:, :6] - lo) / (hi - lo), 0.0, 1.0)
        return X, np.asarray(data.target).astype(int)

    X, y = prep("train")
    X_test, y_test = prep("test")
    return [X, X_test, y, y_test, 2]


# ----------------------------------------------------------------------------- model
def init_params(d: int, k: int, rng: np.random.Generator) -> list[np.ndarray]:
    return [rng.normal(scale=1 / math.sqrt(d), size=(d, HIDDEN)), np.zeros(HIDDEN),
            rng.normal(scale=1 / math.sqrt(HIDDEN), size=(HIDDEN, k)), np.zeros(k)]


def n_params(d: int, k: int) -> int:
    return d * HIDDEN + HIDDEN + HIDDEN * k + k


def predict(params, X) -> np.ndarray:
    W1, b1, W2, b2 = params
    return np.argmax(np.maximum(X @ W1 + b1, 0) @ W2 + b2, axis=1)


def clipped_gradient_sum(params, X, y, k: int, clip: float) -> list[np.ndarray]:
    """Σ_i clip(∇ℓ_i, C) over a lot, vectorised: per-example norms from outer-product structure.

    For a dense layer the per-example weight gradient is the outer product a_i ⊗ g_i, whose
    Frobenius norm is ‖a_i‖·‖g_i‖, so no per-example gradient is materialised; the clipped sum is
    Aᵀ diag(c) G.
    """
    W1, b1, W2, b2 = params
    pre = X @ W1 + b1
    H = np.maximum(pre, 0)
    logits = H @ W2 + b2
    logits -= logits.max(axis=1, keepdims=True)
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    G2 = P
    G2[np.arange(len(y)), y] -= 1.0                     # dℓ/dlogits
    G1 = (G2 @ W2.T) * (pre > 0)                         # dℓ/dpre
    sq = ((X * X).sum(1) + 1.0) * (G1 * G1).sum(1) + ((H * H).sum(1) + 1.0) * (G2 * G2).sum(1)
    c = np.minimum(1.0, clip / np.maximum(np.sqrt(sq), 1e-300))
    G1c, G2c = G1 * c[:, None], G2 * c[:, None]
    return [X.T @ G1c, G1c.sum(0), H.T @ G2c, G2c.sum(0)]


def train(task, *, noise: str, sigma: float, eps0: float, delta0: float, q: float, epochs: float,
          lr: float, seed: int) -> tuple[float, float]:
    """One DP-SGD run; returns (train accuracy, test accuracy)."""
    from matrixdp import R1SMGMechanism
    from matrixdp.errors import RefutedGuaranteeWarning

    X, X_test, y, y_test, k = task
    rng = np.random.default_rng(seed)
    d = X.shape[1]
    params = init_params(d, k, rng)
    shapes = [p.shape for p in params]
    P = n_params(d, k)
    steps = int(math.ceil(epochs / q))
    lot = q * X.shape[0]
    r1smg = None
    if noise == "r1smg":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r1smg = R1SMGMechanism(dim=P, epsilon=eps0, delta=delta0, sensitivity=CLIP,
                                   allow_unsafe=True)
    for _ in range(steps):
        mask = rng.random(X.shape[0]) < q
        grads = clipped_gradient_sum(params, X[mask], y[mask], k, CLIP)
        flat = np.concatenate([g.ravel() for g in grads])
        if noise == "gaussian":
            flat = flat + rng.normal(scale=sigma * CLIP, size=P)
        elif noise == "r1smg":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RefutedGuaranteeWarning)
                flat = flat + r1smg.sample_noise(P, rng)
        flat /= lot
        offset = 0
        for p, shape in zip(params, shapes):
            size = int(np.prod(shape))
            p -= lr * flat[offset:offset + size].reshape(shape)
            offset += size
    return (float(np.mean(predict(params, X) == y)), float(np.mean(predict(params, X_test) == y_test)))


# ----------------------------------------------------------------------------- run
SETTINGS = {  # dataset: (expected lot size, epochs, learning rate)
    "digits": (64, 30, 0.5),
    "adult": (256, 5, 0.5),
}
SIGMAS = {"digits": (0.8, 1.1, 2.0, 4.0, 8.0), "adult": (0.5, 0.7, 1.1, 2.0, 4.0)}


def paper_settings_check() -> list[str]:
    """The paper's MNIST numbers from our solvers (spec T-E1, T-E2): q = 256/60000, E = 30."""
    q, epochs = 256 / 60000, 30
    steps = int(math.ceil(epochs / q))
    rows = []
    for sigma, paper_total, paper_eps0 in ((1.1, 1.795, 0.71), (0.5, 16.983, 5.42)):
        total = dpsgd_epsilon(sigma, q, steps)
        eps0 = eq16_eps0(paper_total, q, epochs)
        rows.append(f"| MNIST σ = {sigma} | {paper_total} | {total:.3f} | {paper_eps0} | {eps0:.4f} | "
                    f"{eq16_delta0(DELTA, epochs):.4e} | {correct_amplification_total(eps0, q, epochs):.4g} |")
    return rows


def run(args) -> list[dict]:
    records = []
    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    for name in datasets:
        task = (load_digits_task(args.seed) if name == "digits"
                else load_adult_task(args.seed, args.data_home))
        X = task[0]
        lot, epochs, lr = SETTINGS[name]
        q = lot / X.shape[0]
        steps = int(math.ceil(epochs / q))
        P = n_params(X.shape[1], task[4])
        base = [train(task, noise="none", sigma=0, eps0=0, delta0=0, q=q, epochs=epochs, lr=lr,
                      seed=args.seed + t) for t in range(args.trials)]
        records.append(_record(name, "non-private SGD", math.inf, None, None, None, None, base, P, q,
                               steps))
        for sigma in SIGMAS[name]:
            total = dpsgd_epsilon(sigma, q, steps)
            eps0 = eq16_eps0(total, q, epochs)
            delta0 = eq16_delta0(DELTA, epochs)
            from matrixdp.calibration.r1smg import r1smg_sigma_star

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                s_star = r1smg_sigma_star(eps0, delta0, CLIP, P, remark1="ignore")
            equiv = math.sqrt(s_star / P) / CLIP
            t0 = time.perf_counter()
            gauss = [train(task, noise="gaussian", sigma=sigma, eps0=0, delta0=0, q=q, epochs=epochs,
                           lr=lr, seed=args.seed + t) for t in range(args.trials)]
            r1 = [train(task, noise="r1smg", sigma=0, eps0=eps0, delta0=delta0, q=q, epochs=epochs,
                        lr=lr, seed=args.seed + t) for t in range(args.trials)]
            records.append(_record(name, "DP-SGD (Gaussian, RDP accountant)", total, sigma, None,
                                   None, None, gauss, P, q, steps))
            records.append(_record(name, "R1SMG-DPSGD (UNSAFE: claimed budget)", total, equiv, eps0,
                                   delta0, correct_amplification_total(eps0, q, epochs), r1, P, q, steps))
            if not args.no_progress:
                print(f"{name} sigma={sigma}: eps={total:.3f} eps0={eps0:.4f} "
                      f"({time.perf_counter() - t0:.1f}s)", flush=True)
    return records


def _record(dataset, method, total, multiplier, eps0, delta0, correct_total, accs, P, q, steps):
    train_acc = np.array([a for a, _ in accs])
    test_acc = np.array([b for _, b in accs])
    return {"dataset": dataset, "method": method, "epsilon": total, "delta": DELTA,
            "noise_multiplier": multiplier, "eps0": eps0, "delta0": delta0,
            "eps_total_correct_amplification": correct_total,
            "train_acc": float(train_acc.mean()), "test_acc": float(test_acc.mean()),
            "test_acc_sd": float(test_acc.std(ddof=1)) if len(test_acc) > 1 else 0.0,
            "trials": len(accs), "params": P, "q": q, "steps": steps}


def _fmt(v, spec=".4g"):
    if v is None:
        return "—"
    if isinstance(v, float) and math.isinf(v):
        return "∞"
    return format(v, spec)


def write(records: list[dict], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{NAME}.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(records[0]))
        writer.writeheader()
        writer.writerows(records)
    lines = [f"# {TITLE}", "",
             "Written by `experiments/r1smg_dpsgd.py` (`matrixdp reproduce r1smg-dpsgd`). Substitutes: "
             "scikit-learn's digits for MNIST, Adult (tabular) as a second case; CIFAR-10 is not "
             "reproduced (no download here). Network: MLP with one hidden layer of "
             f"{HIDDEN} ReLU units; per-example clipping C = {CLIP} over all parameters; Poisson "
             f"sampling; δ = {DELTA:g}, δ′ = {DELTA_PRIME:g}. Mean over {records[0]['trials']} seeds.", "",
             "| dataset | method | total ε (claimed) | noise multiplier σ (R1SMG: equivalent √(σ*/P)/C) | ε₀ (Eq. 16) | total ε with valid amplification | train acc | test acc (± sd) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in records:
        lines.append(f"| {r['dataset']} | {r['method']} | {_fmt(r['epsilon'], '.3f')} | "
                     f"{_fmt(r['noise_multiplier'])} | {_fmt(r['eps0'])} | "
                     f"{_fmt(r['eps_total_correct_amplification'], '.3g')} | {r['train_acc']:.3f} | "
                     f"{r['test_acc']:.3f} ± {r['test_acc_sd']:.3f} |")
    r1 = [r for r in records if r["method"].startswith("R1SMG")]
    mult = [r["noise_multiplier"] for r in r1]
    ratio = [g["noise_multiplier"] / r["noise_multiplier"] for g, r in
             zip([r for r in records if r["method"].startswith("DP-SGD")], r1)]
    lines += ["", "## The paper's MNIST settings through our solvers (spec T-E1, T-E2)", "",
              "| setting | paper total ε | RDP accountant total ε | paper ε₀ | Eq. (16) ε₀ | δ₀ | total ε with valid amplification |",
              "|---|---:|---:|---:|---:|---:|---:|", *paper_settings_check()]
    lines += ["", "## What it shows", "",
              "- R1SMG's per-step noise, calibrated by the paper's Theorem 5 at the per-step ε₀ of Eq. (16), "
              f"amounts to a Gaussian noise multiplier of {min(mult):.3g}-{max(mult):.3g} (column 4): "
              f"{min(ratio):.0f}-{max(ratio):.0f}x smaller than DP-SGD's σ at the same claimed total ε "
              "(the paper's MNIST and CIFAR networks, with more parameters P, give 106-233x: spec r1smg.md §6.3)"
              ", so R1SMG-DPSGD trains like "
              "non-private SGD. This is the paper's Figs 7-8 observation, and it is explained by the "
              "calibration, not by a better mechanism: R1SMG's Theorem 5 is refuted "
              "(`matrixdp audit --all`; docs on R1SMG), and the Eq. (16) amplification qε₀ is not a "
              "valid bound for large ε₀ (column 6: the same ε₀ with the valid subsampling bound).",
              "- DP-SGD's accuracy grows with ε as expected; its guarantee comes from the RDP accountant.",
              "", f"Per-setting parameters: P = {', '.join(sorted({str(r['params']) + ' (' + r['dataset'] + ')' for r in records}))} "
              f"parameters; steps = {', '.join(sorted({str(r['steps']) + ' (' + r['dataset'] + ')' for r in records}))}."]
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines) + "\n")
    _plot(records, out)
    return path


def _plot(records, out: Path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return None
    datasets = sorted({r["dataset"] for r in records})
    fig, axes = plt.subplots(1, len(datasets), figsize=(5 * len(datasets), 3.6), squeeze=False)
    for ax, ds in zip(axes[0], datasets):
        rows = [r for r in records if r["dataset"] == ds]
        for method, style in (("DP-SGD", "o-"), ("R1SMG", "s--")):
            sel = sorted((r for r in rows if r["method"].startswith(method)), key=lambda r: r["epsilon"])
            ax.errorbar([r["epsilon"] for r in sel], [r["test_acc"] for r in sel],
                        yerr=[r["test_acc_sd"] for r in sel], fmt=style, label=sel[0]["method"] if sel else method)
        base = [r for r in rows if r["method"].startswith("non-private")]
        if base:
            ax.axhline(base[0]["test_acc"], color="k", lw=0.8, label="non-private SGD")
        ax.set_xscale("log")
        ax.set_xlabel("claimed total ε (δ = 1e-5)")
        ax.set_ylabel("test accuracy")
        ax.set_title(ds)
        ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / f"{NAME}.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv=None) -> int:
    def extra(parser: argparse.ArgumentParser):
        parser.add_argument("--datasets", default="digits,adult",
                            help="comma-separated: digits (MNIST substitute), adult (tabular)")

    args = common.parse_args(TITLE, argv, extra=extra)
    records = run(args)
    print(f"wrote {write(records, Path(args.out))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
