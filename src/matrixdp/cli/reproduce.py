"""``matrixdp reproduce NAME``: run a paper-reproduction script from a source checkout.

The scripts live in the repository's ``experiments/`` folder, which is not installed with
the package; this command finds that folder next to the installed sources (an editable
install or a checkout on ``sys.path``), or under the current directory, and runs the
script's ``main`` with the given options. Outside a checkout it explains how to get one.

Results go to the checkout's ``results/`` folder by default; a run with fewer trials than
the committed results is refused there (use ``--out`` for a scratch folder, or ``--force``).
Datasets are found as the tests find them: ``--data-home``, else ``$MATRIXDP_DATA``, else a
``shared/datasets`` folder beside the checkout, else the per-user cache; ``--download``
fetches the experiment's datasets from their public sources first (checksums verified).
"""

from __future__ import annotations

import csv
import importlib.util
import os
import re
import sys
from pathlib import Path

from ..errors import DatasetError, InvalidParameterError, MatrixDPError
from ._options import seed as _seed

#: Experiment names and the script that produces them.
EXPERIMENTS = {
    "mvg-exp1": ("mvg_exp1_liver", "MVG Table 3: regression on Liver Disorders (RMSE)"),
    "mvg-exp2": ("mvg_exp2_movement", "MVG Table 4: first principal component on MovementAAL (Δρ)"),
    "mvg-exp3": ("mvg_exp3_ctg", "MVG Table 5: covariance estimation on Cardiotocography (RSS)"),
    "mvg-fig4": ("mvg_fig4_directions", "MVG Figure 4: the effect of noise directions over ε"),
    "mvg-sec10-2": ("mvg_sec10_2", "MVG §10.2: Gaussian on ALT and Y only (Liver)"),
    "r1smg-uber": ("r1smg_uber", "R1SMG case study I: Uber pickup counts"),
    "r1smg-fig10": ("r1smg_uber_strict", "R1SMG Fig. 10 (Appendix D): every mechanism at ε = 1e-5"),
    "r1smg-pca": ("r1smg_pca", "R1SMG case study II: PCA (substitute dataset)"),
    "analytic-figures": ("analytic_figures", "R1SMG Fig. 9 and Farokhi Figs 1-2 (analytic)"),
    "r1smg-dpsgd": ("r1smg_dpsgd", "R1SMG case study III: DP-SGD, Gaussian vs R1SMG (digits, Adult)"),
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
    "ron-gauss-classification": ("ron_gauss_classification",
                                 "RON-Gauss classification on Adult (train on synthetic, test on real)"),
    "ron-gauss-regression": ("ron_gauss_regression",
                             "RON-Gauss regression on Adult (train on synthetic, test on real)"),
    "ron-gauss-clustering": ("ron_gauss_clustering",
                             "RON-Gauss clustering on Adult (train on synthetic, test on real)"),
    "ron-gauss-peers": ("ron_gauss_peers",
                        "MST (private-pgm, smartnoise-synth) beside the RON-Gauss grid on Adult "
                        "(needs the synth-benchmark venv)"),
}


#: The dataset loaders each experiment reads (``--download`` calls them with download=True).
DATASETS = {
    "mvg-exp1": ["load_liver"],
    "mvg-exp2": ["load_movement_aal"],
    "mvg-exp3": ["load_ctg"],
    "mvg-fig4": ["load_liver", "load_movement_aal", "load_ctg"],
    "mvg-sec10-2": ["load_liver"],
    "r1smg-uber": ["load_uber_apr14"],
    "r1smg-fig10": ["load_uber_apr14"],
    "r1smg-pca": ["load_adult"],
    "farokhi-toy2d": [],
    "farokhi-wdbc": ["load_wdbc"],
    "farokhi-adult": ["load_adult"],
    "farokhi-lending-club": ["load_lending_club"],
    "analytic-figures": [],
    "r1smg-dpsgd": ["load_adult"],
    "ron-gauss-classification": ["load_adult"],
    "ron-gauss-regression": ["load_adult"],
    "ron-gauss-clustering": ["load_adult"],
    "ron-gauss-peers": ["load_adult"],
    "utility-covariance": ["load_adult", "load_wdbc", "load_ctg", "load_lending_club", "load_liver", "load_movement_aal"],
    "utility-pca": ["load_adult", "load_wdbc", "load_ctg", "load_lending_club", "load_liver", "load_movement_aal"],
    "utility-regression": ["load_adult", "load_wdbc", "load_ctg", "load_lending_club", "load_liver", "load_movement_aal"],
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


def find_data_home(experiments_dir: Path | None = None) -> Path | None:
    """``$MATRIXDP_DATA``, else the nearest ``shared/datasets`` beside the checkout (as the
    tests find it), else None (the loaders then use the per-user cache)."""
    env = os.environ.get("MATRIXDP_DATA")
    if env:
        return Path(env).expanduser()
    root = (experiments_dir or _SOURCE_EXPERIMENTS).resolve().parent
    for parent in (root, *root.parents):
        candidate = parent / "shared" / "datasets"
        if candidate.is_dir():
            return candidate
    return None


def committed_trials(results_dir: Path, script: str) -> int | None:
    """The largest trial count recorded in ``results_dir/<script>*.csv|md`` (None if unknown)."""
    best = None
    for path in sorted(results_dir.glob(f"{script}*.csv")):
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                value = (row.get("trials") or "").strip()
                if value.isdigit():
                    best = max(best or 0, int(value))
    if best is None:
        for path in sorted(results_dir.glob(f"{script}*.md")):
            for match in re.finditer(r"(\d+) (?:noise draws|trials)\b", path.read_text()):
                best = max(best or 0, int(match.group(1)))
    return best


def check_results_target(name: str, out: Path | None, trials: int | None, force: bool,
                         experiments_dir: Path) -> None:
    """Refuse to overwrite committed results with a run of fewer trials (unless ``force``)."""
    committed_dir = experiments_dir.resolve().parent / "results"
    target = (out or committed_dir).resolve()
    if force or target != committed_dir.resolve():
        return
    script = _script_name(name)
    if not any(committed_dir.glob(f"{script}*.csv")):
        return
    have = committed_trials(committed_dir, script)
    if have is not None and trials is not None and trials >= have:
        return
    run = "the script's default number of trials" if trials is None else f"--trials {trials}"
    held = f"{have} trials" if have is not None else "an unknown number of trials"
    raise InvalidParameterError(
        "--out", f"results/{script}.* are committed results with {held}; a run with {run} "
                 "would overwrite them. Write elsewhere with --out DIR, or pass --force "
                 "(or --trials with at least as many trials)")


def check_output_folder(out: Path) -> None:
    """Create ``out`` (with its parents) and check that it can be written, before any trial runs:
    the scripts write their results at the end, so a folder they cannot write lost the whole run
    (``[Errno 20] Not a directory`` after the last trial)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidParameterError("--out", f"cannot create the folder {out} "
                                             f"({exc.strerror or exc})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise InvalidParameterError("--out", f"the folder {out} is not writable")


def download_datasets(name: str, data_home: Path | None) -> None:
    """Fetch the experiment's datasets from their public sources (checksums verified)."""
    from .. import datasets

    for loader in DATASETS.get(name, []):
        fn = getattr(datasets, loader)
        try:
            fn(data_home=data_home, download=True)
        except TypeError:  # a loader without a public download (e.g. Lending Club)
            fn(data_home=data_home)


def _data_hint(exc: Exception) -> str:
    return (f"{exc} -- point matrixdp reproduce at the data with --data-home DIR or "
            "MATRIXDP_DATA=DIR (a shared/datasets folder beside the checkout is found "
            "automatically), or fetch it with --download")


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
    parser.add_argument("--out", type=Path, default=None,
                        help="output directory (default: the checkout's results/, which keeps "
                             "committed results unless the run has at least as many trials)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite committed results even with fewer trials")
    parser.add_argument("--seed", type=_seed, default=None, help="base seed of the trials")
    parser.add_argument("--data-home", type=Path, default=None,
                        help="dataset folder (default: $MATRIXDP_DATA, else shared/datasets beside "
                             "the checkout, else the user cache)")
    parser.add_argument("--download", action="store_true",
                        help="download the experiment's datasets first (checksums verified)")
    parser.add_argument("--quiet", "--no-progress", dest="quiet", action="store_true",
                        help="no progress bars (bars appear only on a terminal; "
                             "MATRIXDP_PROGRESS=always forces them)")
    parser.set_defaults(func=run)


def run(args) -> int:
    if args.name == "list":
        width = max(map(len, EXPERIMENTS))
        for name, (script, what) in EXPERIMENTS.items():
            print(f"{name:<{width}}  {what}  (experiments/{script}.py)")
        return 0
    if args.trials is not None and args.trials < 2:
        raise InvalidParameterError("--trials", f"must be >= 2, got {args.trials}")
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise InvalidParameterError("--out", f"{args.out} is a file; give a directory")
    names = list(EXPERIMENTS) if args.name == "all" else [args.name]
    for name in names:
        _script_name(name)  # unknown names fail before anything runs
    folder = find_experiments_dir()
    for name in names:
        check_results_target(name, args.out, args.trials, args.force, folder)
    check_output_folder(args.out or folder.resolve().parent / "results")
    data_home = args.data_home or find_data_home(folder)
    if data_home is not None:
        os.environ["MATRIXDP_DATA"] = str(data_home)  # the scripts' loaders read it
    argv: list[str] = []
    if args.trials is not None:
        argv += ["--trials", str(args.trials)]
    if args.out is not None:
        argv += ["--out", str(args.out)]
    if args.seed is not None:
        argv += ["--seed", str(args.seed)]
    if args.quiet:
        argv.append("--quiet")
    status = 0
    for name in names:
        if len(names) > 1:
            print(f"== {name}")
        try:
            if args.download:
                download_datasets(name, data_home)
            status = max(status, run_experiment(name, argv))
        except DatasetError as exc:
            raise DatasetError(_data_hint(exc)) from None
    return status
