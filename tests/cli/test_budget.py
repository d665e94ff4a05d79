"""``matrixdp budget init|show|history``."""

from __future__ import annotations

import re

from matrixdp import GaussianMechanism, LaplaceMechanism
from matrixdp.accounting import Ledger
from matrixdp.cli import main
from matrixdp.errors import BudgetExceededError

import pytest


def test_budget_init_show_history(tmp_path, capsys):
    path = tmp_path / "adult.db"
    assert main(["budget", "init", str(path), "--epsilon", "2", "--delta", "1e-6",
                 "--dataset", "adult v1"]) == 0
    assert "created" in capsys.readouterr().out
    led = Ledger.open(path, dataset="adult v1")
    GaussianMechanism(epsilon=0.5, delta=1e-8, sensitivity=1.0).release(0.0, rng=0, ledger=led,
                                                                         label="mean age")
    LaplaceMechanism(epsilon=0.25, sensitivity=1.0).release(3.0, rng=1, ledger=led, label="count")
    led.close()
    assert main(["budget", "show", str(path)]) == 0
    out = capsys.readouterr().out
    spent = float(re.search(r"spent:\s+epsilon=([0-9.]+)", out).group(1))
    assert 0.5 < spent <= 0.75 + 1e-9 and "over 2 entries" in out
    assert "2 released, 0 reserved" in out
    assert main(["budget", "history", str(path)]) == 0
    out = capsys.readouterr().out
    assert "mean age" in out and "count" in out and "released" in out


def test_budget_errors_are_one_line(tmp_path, capsys):
    path = tmp_path / "x.db"
    path.write_bytes(b"not a ledger at all" * 20)
    assert main(["budget", "show", str(path)]) == 1
    err = capsys.readouterr().err
    assert "not a matrixdp ledger" in err and len(err.strip().splitlines()) == 1
    assert main(["budget", "init", str(path), "--epsilon", "1"]) == 1
    assert "already exists" in capsys.readouterr().err


# ------------------------------------------------------------------------- issue 25's items
def one_line(err):
    lines = [line for line in err.strip().splitlines() if line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def interrupt_line(err):
    """The one line an interrupted synth prints, after its up-front size estimate (if any)."""
    lines = [line for line in err.strip().splitlines() if line]
    if lines and " rows, about " in lines[0] and "estimated from the public schema" in lines[0]:
        lines = lines[1:]
    return one_line("\n".join(lines)) if "Traceback" not in err else one_line(err)


@pytest.mark.parametrize("delta", ["2", "1", "-1e-6", "nan"])
def test_init_refuses_a_delta_outside_its_range_naming_the_option(tmp_path, capsys, delta):
    # task BB: the message named the library's argument ("delta: must be in [0, 1)")
    path = tmp_path / "z.db"
    assert main(["budget", "init", str(path), "--epsilon", "1", f"--delta={delta}"]) == 1
    line = one_line(capsys.readouterr().err)
    assert "--delta: must be in [0, 1)" in line
    assert not path.exists()


@pytest.mark.parametrize("eps", ["0", "-1", "0.0", "nan"])
def test_init_refuses_a_budget_that_is_not_positive(tmp_path, capsys, eps):
    path = tmp_path / "z.db"
    assert main(["budget", "init", str(path), "--epsilon", eps]) == 1
    line = one_line(capsys.readouterr().err)
    assert "--epsilon" in line and "> 0" in line
    assert not path.exists()


def test_history_prints_full_labels(tmp_path, capsys):
    path = tmp_path / "h.db"
    assert main(["budget", "init", str(path), "--epsilon", "2"]) == 0
    label = "release covariance of patients_2026_admissions_cardiology_ward.csv (after QA)"
    led = Ledger.open(path)
    led.spend(LaplaceMechanism(epsilon=0.1, sensitivity=1.0).privacy, label=label)
    led.close()
    capsys.readouterr()
    assert main(["budget", "history", str(path)]) == 0
    assert label in capsys.readouterr().out


def test_history_prints_a_label_on_one_line(tmp_path, capsys):
    # a newline in a label printed a second, forged history line (and escapes reached the tty)
    path = tmp_path / "h.db"
    assert main(["budget", "init", str(path), "--epsilon", "2"]) == 0
    led = Ledger.open(path)
    led.spend(LaplaceMechanism(epsilon=0.1, sensitivity=1.0).privacy,
              label="real\n    9  released  0.0001  forged\x1b[2K")
    led.close()
    capsys.readouterr()
    assert main(["budget", "history", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2   # the header and one entry
    assert lines[1].endswith("real\\n    9  released  0.0001  forged\\x1b[2K")
    assert "\x1b" not in "".join(lines)


def show_numbers(path, capsys):
    assert main(["budget", "show", str(path)]) == 0
    out = capsys.readouterr().out
    about = float(re.search(r"remaining: about epsilon=([0-9.e+-]+)", out).group(1))
    largest = dict((k, float(v)) for k, v in re.findall(
        r"the largest (Laplace|Gaussian) .* release that still fits: epsilon=([0-9.e+-]+)", out))
    return about, largest, out


def refusal_remains(led, guarantee):
    with pytest.raises(BudgetExceededError) as info:
        led.check(guarantee)
    return float(re.search(r"about epsilon=([0-9.e+-]+) remains", str(info.value)).group(1))


def test_show_states_what_remains_in_the_refusals_terms(tmp_path, capsys):
    """The issue's case: Gaussian releases compose tightly (GDP), so a Gaussian larger than
    "budget minus spent" can still fit; show must say so, and agree with the refusal."""
    path = tmp_path / "s.db"
    assert main(["budget", "init", str(path), "--epsilon", "1", "--delta", "1e-5"]) == 0
    led = Ledger.open(path)
    for i in range(3):
        GaussianMechanism(epsilon=0.4, delta=1e-7, sensitivity=1.0).release(
            0.0, rng=i, ledger=led, label=f"g{i}")
    capsys.readouterr()
    about, largest, out = show_numbers(path, capsys)
    assert set(largest) == {"Laplace", "Gaussian"}
    gauss = lambda e: GaussianMechanism(epsilon=e, delta=1e-6, sensitivity=1.0).privacy  # noqa
    laplace = lambda e: LaplaceMechanism(epsilon=e, sensitivity=1.0).privacy  # noqa
    # the largest releases fit (printed to 3 digits, rounded down), 1% more is refused, and the
    # refusal's figure is show's
    led.check(gauss(largest["Gaussian"]))
    led.check(laplace(largest["Laplace"]))
    assert refusal_remains(led, gauss(largest["Gaussian"] * 1.01)) == pytest.approx(about)
    assert refusal_remains(led, laplace(largest["Laplace"] * 1.01)) == pytest.approx(about)
    # a Gaussian release larger than the "about ... remains" figure still fits, and show says it
    assert largest["Gaussian"] > about
    led.close()


def test_show_after_the_budget_is_spent(tmp_path, capsys):
    path = tmp_path / "f.db"
    assert main(["budget", "init", str(path), "--epsilon", "0.5"]) == 0
    led = Ledger.open(path)
    led.spend(LaplaceMechanism(epsilon=0.5, sensitivity=1.0).privacy, label="all of it")
    capsys.readouterr()
    about, largest, _ = show_numbers(path, capsys)
    assert about == 0 and largest == {"Laplace": 0.0}
    assert refusal_remains(led, LaplaceMechanism(epsilon=1e-6, sensitivity=1.0).privacy) == 0
    led.close()


# ------------------------------------------------------------------------- dataset binding
@pytest.fixture()
def tables(tmp_path):
    rows = "a,b\n" + "".join(f"{i % 7},{i % 3}\n" for i in range(200))
    for name in ("patients.csv", "other.csv"):
        (tmp_path / name).write_text(rows)
    return tmp_path


def release(tables, data, ledger, *extra):
    return main(["release", str(tables / data), "--query", "mean", "--bounds", "a=0:10",
                 "--bounds", "b=0:10", "--epsilon", "0.1", "--ledger", str(ledger),
                 "--out", str(tables / f"{data}-{len(extra)}.json"), "--force", *extra])


def test_a_ledger_is_bound_to_its_dataset(tables, capsys):
    ledger = tables / "patients.db"
    assert main(["budget", "init", str(ledger), "--epsilon", "2", "--delta", "1e-5",
                 "--dataset", "patients"]) == 0
    assert release(tables, "patients.csv", ledger) == 0  # the file's stem is the name
    capsys.readouterr()
    assert release(tables, "other.csv", ledger) == 1
    line = one_line(capsys.readouterr().err)
    assert "created for dataset 'patients', not 'other.csv'" in line
    assert release(tables, "other.csv", ledger, "--dataset", "admissions") == 1
    line = one_line(capsys.readouterr().err)
    assert "'patients'" in line and "'admissions' (--dataset)" in line
    assert release(tables, "other.csv", ledger, "--dataset", "patients") == 0  # declared
    assert len(Ledger.open(ledger).history()) == 2  # the refused releases charged nothing
    assert main(["budget", "show", str(ledger)]) == 0
    assert "dataset 'patients'" in capsys.readouterr().out


def test_init_defaults_the_dataset_to_the_ledger_name(tables, capsys):
    ledger = tables / "other.db"
    assert main(["budget", "init", str(ledger), "--epsilon", "1", "--delta", "1e-5"]) == 0
    assert "for dataset 'other'" in capsys.readouterr().out
    assert release(tables, "other.csv", ledger) == 0
    assert release(tables, "patients.csv", ledger) == 1


# ------------------------------------------------------------------------------- Ctrl-C
def synth_args(tables, ledger, out):
    return ["synth", str(tables / "patients.csv"), "--epsilon", "0.5", "--dim", "1",
            "--ledger", str(ledger), "--out", str(out)]


def test_ctrl_c_during_synth_says_what_was_charged(tables, capsys, monkeypatch):
    from matrixdp.synth.ron_gauss import RONGauss

    ledger = tables / "patients.db"
    assert main(["budget", "init", str(ledger), "--epsilon", "2"]) == 0
    capsys.readouterr()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(RONGauss, "sample", interrupted)
    out = tables / "synthetic.csv"
    assert main(synth_args(tables, ledger, out)) == 130
    line = interrupt_line(capsys.readouterr().err)
    assert line.startswith("matrixdp synth: interrupted: charged epsilon=0.5, delta=0 to ledger")
    assert str(ledger) in line and "no output was written" in line
    assert sorted(p.name for p in tables.iterdir()) == ["other.csv", "patients.csv",
                                                         "patients.db"]
    assert Ledger.open(ledger).spent().epsilon == pytest.approx(0.5)


def test_ctrl_c_during_the_fit_counts_the_reservation(tables, capsys, monkeypatch):
    from matrixdp.synth.ron_gauss import RONGauss

    ledger = tables / "patients.db"
    assert main(["budget", "init", str(ledger), "--epsilon", "2"]) == 0
    capsys.readouterr()
    original = RONGauss.fit

    def fit_then_interrupt(self, *args, **kwargs):
        original(self, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(RONGauss, "fit", fit_then_interrupt)
    assert main(synth_args(tables, ledger, tables / "s.csv")) == 130
    line = one_line(capsys.readouterr().err)
    assert "charged epsilon=0.5" in line and "no output was written" in line
    assert [h["status"] for h in Ledger.open(ledger).history()] == ["released"]


def test_ctrl_c_without_a_ledger_and_in_release(tables, capsys, monkeypatch):
    import matrixdp.cli.release as release_cli

    ledger = tables / "patients.db"
    assert main(["budget", "init", str(ledger), "--epsilon", "2", "--delta", "1e-5"]) == 0
    capsys.readouterr()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(release_cli, "_ledger_state", interrupted)
    assert release(tables, "patients.csv", ledger) == 130
    line = one_line(capsys.readouterr().err)
    assert "matrixdp release: interrupted: charged epsilon=0.1" in line
    assert "no output was written" in line
    assert not list(tables.glob("*.json*"))


def test_sigint_in_a_real_process(tables):
    """The real signal: SIGINT while the synthetic table is being written."""
    import os
    import signal
    import subprocess
    import sys
    import textwrap

    ledger = tables / "patients.db"
    assert main(["budget", "init", str(ledger), "--epsilon", "2"]) == 0
    out = tables / "synthetic.csv"
    code = textwrap.dedent("""
        import sys, time
        from matrixdp.synth.ron_gauss import RONGauss
        from matrixdp.cli import main
        original = RONGauss.sample
        def slow(self, *a, **k):
            result = original(self, *a, **k)
            print("SAMPLING", flush=True)
            time.sleep(60)
            return result
        RONGauss.sample = slow
        sys.exit(main(sys.argv[1:]))
    """)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, "-c", code, *synth_args(tables, ledger, out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "SAMPLING"
        assert list(tables.glob("synthetic.csv.part"))  # being written
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130
    line = interrupt_line(err)
    assert "interrupted: charged epsilon=0.5, delta=0 to ledger" in line
    assert "no output was written" in line
    assert not out.exists() and not list(tables.glob("*.part"))


@pytest.mark.parametrize("command, argv", [
    ("audit", ["audit"]), ("reproduce", ["reproduce", "list"])])
def test_ctrl_c_in_other_long_commands(command, argv, capsys, monkeypatch):
    import importlib

    module = importlib.import_module(f"matrixdp.cli.{command}")

    def interrupted(args):
        raise KeyboardInterrupt

    real_add = module.add_parser

    def add_parser(subparsers):
        real_add(subparsers)
        subparsers.choices[command].set_defaults(func=interrupted)

    monkeypatch.setattr(module, "add_parser", add_parser)
    assert main(argv) == 130
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"matrixdp {command}: interrupted: no ledger was charged; ")
    assert ("no output was written" in line) == (command == "audit")
