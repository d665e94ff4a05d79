"""``matrixdp reproduce NAME``: run a paper-reproduction script from a source checkout.

The scripts live in the repository's ``experiments/`` folder, which is not installed with
the package; this command finds that folder next to the installed sources (an editable
install or a checkout on ``sys.path``), or under the current directory, and runs the
script's ``main`` with the given options. Outside a checkout it explains how to get one.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from ..errors import MatrixDPError

#: Experiment names and the script that produces them.
EXPERIMENTS = {
    "mvg-exp1": ("mvg_exp1_liver", "MVG Table 3: regression on Liver Disorders (RMSE)"),
    "mvg-exp2": ("mvg_exp2_movement", "MVG Table 4: first principal component on MovementAAL (Δρ)"),
    "mvg-exp3": ("mvg_exp3_ctg", "MVG Table 5: covariance estimation on Cardiotocography (RSS)"),
    "mvg-fig4": ("mvg_fig4_directions", "MVG Figure 4: the effect of noise directions over ε"),
    "r1smg-uber": ("r1smg_uber", "R1SMG case study I: Uber pickup counts"),
    "r1smg-pca": ("r1smg_pca", "R1SMG case study II: PCA (substitute dataset)"),
    "farokhi-toy2d": ("farokhi_toy2d", "Farokhi Figs 3-4: the 2-D SVM example, i.i.d. and correlated noise"),
    "farokhi-wdbc": ("farokhi_wdbc", "Farokhi Fig. 5: SVM on WDBC (0.9613, 28.413 m)"),
    "farokhi-adult": ("farokhi_adult", "Farokhi Fig. 6: SVM on Adult"),
    "farokhi-lending-club": ("farokhi_lending_club",
                             "Farokhi Fig. 7: ridge regression, Lending Club stand-in"),
    "utility-covariance": ("utility_covariance",
                           "Utility comparison: DP covariance vs diffprivlib, OpenDP, Analyze Gauss"),
    "utility-pca": ("utility_pca", "Utility comparison: DP PCA (k = 2, 5) vs diffprivlib, OpenDP"),
    "utility-regression": ("utility_regression",
                           "Utility comparison: DP linear regression vs diffprivlib, OpenDP"),
}


#: Where ``experiments/`` sits when matrixdp runs from a source checkout (src layout).
_SOURCE_EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"


class ExperimentsNotFoundError(MatrixDPError, OSError):
    """The experiment scripts are not available (matrixdp was installed without a checkout)."""


def find_experiments_dir(start: Path | None = None) -> Path:
    """Locate ``experiments/`` of a source checkout.

    Looks next to the package's source tree (``src/matrixdp`` -> ``experiments``) and then
    in the current directory and its parents.
    """
    candidates = [_SOURCE_EXPERIMENTS]
    here = (start or Path.cwd()).resolve()
    candidates += [p / "experiments" for p in (here, *here.parents)]
    for path in candidates:
        if (path / "_common.py").is_file():
            return path
    raise ExperimentsNotFoundError(
        "the experiment scripts were not found: they live in the experiments/ folder of a "
        "matrixdp source checkout, which is not installed with the package. Clone the "
        "repository, `pip install -e .[test]` there, and run `matrixdp reproduce` from it.")


def _script_name(name: str) -> str:
    if name in EXPERIMENTS:
        return EXPERIMENTS[name][0]
    scripts = {script for script, _ in EXPERIMENTS.values()}
    if name in scripts:
        return name
    choices = ", ".join(sorted(EXPERIMENTS))
    raise MatrixDPError(f"unknown experiment {name!r}; choose one of: {choices} (or `list`)")


def run_experiment(name: str, argv: list[str], *, experiments_dir: Path | None = None) -> int:
    """Import ``experiments/<script>.py`` and call its ``main(argv)``."""
    folder = experiments_dir or find_experiments_dir()
    script = folder / f"{_script_name(name)}.py"
    if not script.is_file():
        raise ExperimentsNotFoundError(f"{script} is missing from this checkout")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location(script.stem, script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[script.stem] = module  # dataclasses and pickling look modules up by name
    spec.loader.exec_module(module)
    return int(module.main(argv) or 0)


def add_parser(subparsers) -> None:
    listing = "; ".join(f"{k}: {v[1]}" for k, v in EXPERIMENTS.items())
    parser = subparsers.add_parser(
        "reproduce", help="re-run a paper experiment (needs a source checkout)",
        description=f"Re-run a paper experiment and write results/<name>.md and .csv. {listing}.")
    parser.add_argument("name", help="experiment name, `all`, or `list`")
    parser.add_argument("--trials", type=int, default=None,
                        help="trials per method (default: the script's fast default; papers use 100)")
    parser.add_argument("--out", type=Path, default=None, help="output directory (default: results/)")
    parser.add_argument("--seed", type=int, default=None, help="base seed of the trials")
    parser.add_argument("--no-progress", action="store_true", help="do not draw progress bars")
    parser.set_defaults(func=run)


def run(args) -> int:
    if args.name == "list":
        for name, (script, what) in EXPERIMENTS.items():
            print(f"{name:<12} {what}  (experiments/{script}.py)")
        return 0
    argv: list[str] = []
    if args.trials is not None:
        argv += ["--trials", str(args.trials)]
    if args.out is not None:
        argv += ["--out", str(args.out)]
    if args.seed is not None:
        argv += ["--seed", str(args.seed)]
    if args.no_progress:
        argv.append("--no-progress")
    if args.name == "all":
        status = 0
        for name in EXPERIMENTS:
            print(f"== {name}")
            status = max(status, run_experiment(name, argv))
        return status
    return run_experiment(args.name, argv)
