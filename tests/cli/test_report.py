"""The HTML report of ``matrixdp release``: parsed without a browser (always), and rendered for
every query in a headless Chromium when one is installed (skipped with the reason otherwise)."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from matrixdp.cli import main
from matrixdp.cli._glossary import WALKTHROUGH_JARGON

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QUERIES = ("mean", "sum", "covariance", "gram", "correlation", "pca", "linreg")
#: The plots of each query: vectors are bars with error bars, only matrices are heatmaps.
PLOTS = {"mean": ["value"], "sum": ["value"], "covariance": ["value", "error"],
         "gram": ["value", "error"], "correlation": ["value", "error"],
         "pca": ["components", "explained"], "linreg": ["coef"]}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.images, self.text, self.tables = set(), [], [], 0
        self.section_order = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
            if tag == "section":
                self.section_order.append(attrs["id"])
        if tag == "img":
            self.images.append(attrs.get("src"))
        if tag == "table":
            self.tables += 1

    def handle_data(self, data):
        self.text.append(data)


def parse(path):
    page = _Page()
    page.feed(path.read_text())
    page.joined = " ".join(" ".join(page.text).split())
    return page


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """A PCA release with a report, charged to a ledger."""
    from matrixdp.accounting import Ledger

    tmp = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(1500, 4)) * [10, 20, 30, 40]
    pd.DataFrame(X, columns=["a", "b", "c", "d"]).to_csv(tmp / "t.csv", index=False)
    Ledger.create(tmp / "t.ledger", dataset="t", epsilon=5.0, delta=1e-5).close()
    code = main(["release", str(tmp / "t.csv"), "--query", "pca", "--bounds", "a=0:10", "--bounds",
                 "b=0:20", "--bounds", "c=0:30", "--bounds", "d=0:40", "--epsilon", "1",
                 "--ledger", str(tmp / "t.ledger"), "--out", str(tmp / "r.json"), "--report",
                 str(tmp / "r.html"), "--label", "pca of t"])
    assert code == 0
    return tmp


@pytest.fixture(scope="module")
def every_query(tmp_path_factory):
    """One report per query on a small table with a categorical column (noise dominates some
    numbers at this size, so the warning box is exercised too)."""
    tmp = tmp_path_factory.mktemp("queries")
    rng = np.random.default_rng(1)
    n = 600
    frame = pd.DataFrame({"age": rng.uniform(20, 80, n), "sex": rng.integers(1, 3, n),
                          "group": rng.choice(["a", "b", "c"], n)})
    frame["bp"] = np.clip(90 + 0.5 * frame.age + rng.normal(0, 10, n), 80, 200)
    frame.to_csv(tmp / "t.csv", index=False)
    (tmp / "b.toml").write_text(
        'target = "bp"\n[columns]\nage = { lo = 18, hi = 90 }\nsex = { lo = 1, hi = 2 }\n'
        'group = { categories = ["a", "b", "c"] }\nbp = { lo = 80, hi = 200 }\n')
    for query in QUERIES:
        assert main(["release", str(tmp / "t.csv"), "--query", query, "--bounds",
                     str(tmp / "b.toml"), "--epsilon", "1", "--out", str(tmp / f"{query}.json"),
                     "--report", str(tmp / f"{query}.html")]) == 0
    return tmp


def test_report_has_every_section_and_its_plots(released):
    page = parse(released / "r.html")
    assert {"summary", "guarantee", "released", "error", "parameters", "ledger"} <= page.ids
    # the plain-language guarantee comes first, the technical table after the results
    assert page.section_order[0] == "summary"
    assert page.section_order.index("guarantee") > page.section_order.index("released")
    assert sorted(page.images) == ["r_components.png", "r_explained.png"]
    for name in page.images:
        payload = (released / name).read_bytes()
        assert payload.startswith(PNG_MAGIC) and len(payload) > 2000
    text = page.joined
    doc = json.loads((released / "r.json").read_text())
    assert "replacing any one person's record" in text and "PC1" in text and "pca of t" in text
    assert "factor of 2.72" in text  # e^1
    assert f"{doc['guarantee']['epsilon']:.4g}" in text
    assert f"{doc['released']['components'][0][0]:.4g}" in text
    assert "remaining epsilon" in text
    html = (released / "r.html").read_text()
    assert "``" not in html and "Traceback" not in html


@pytest.mark.parametrize("query", QUERIES)
def test_report_of_each_query(every_query, query):
    tmp = every_query
    page = parse(tmp / f"{query}.html")
    doc = json.loads((tmp / f"{query}.json").read_text())
    assert page.images == [f"{query}_{p}.png" for p in PLOTS[query]]
    for name in page.images:
        assert (tmp / name).read_bytes().startswith(PNG_MAGIC)
    text = page.joined
    assert text.index("What this guarantees") < text.index("What was released")
    assert "No ledger was charged" in text
    # every released vector has its error bars in a table: std, 95% interval, share of the range;
    # every matrix a table of per-entry intervals (and the relative error heatmap)
    if query not in ("gram",):
        assert "noise std" in text and "95% interval" in text and "error / public range" in text
    if query in ("covariance", "gram", "correlation", "pca"):
        assert "95% interval of each entry" in text
    # the noise-dominates verdict is stated either way, and matches the JSON's warnings
    if doc["warnings"]:
        assert "Noise dominates." in text
        for w in doc["warnings"]:
            assert " ".join(w.split()) in text
    else:
        assert "No released number has an expected error above 10%" in text
    assert "Post-processing onto the possible values" in text
    # no enum reprs, no NaN spelt as infinity, no leftover template markup
    html = (tmp / f"{query}.html").read_text()
    for bad in ("<Relation", "infinity", "{{", "{%", "nan,"):
        assert bad not in html, bad


def test_linreg_report_shows_coefficients_with_intervals_and_reference_coding(every_query):
    doc = json.loads((every_query / "linreg.json").read_text())
    text = parse(every_query / "linreg.html").joined
    assert list(doc["released"]["coef"]) == ["age", "sex", "group=b", "group=c"]
    assert "reference: the first listed category" in text
    bars = doc["error_bars"]["coef"]
    for name, lo, hi in zip(doc["released"]["coef"], bars["lower"], bars["upper"]):
        assert name in text
        assert f"[{lo:.4g}, {hi:.4g}]" in text
    assert "units of bp per unit of age" in text and "versus the reference category" in text


def test_pca_loss_table_states_its_units(every_query):
    text = parse(every_query / "pca.html").joined
    assert "the loss is the squared Frobenius error of the covariance in units of the public " \
           "half-widths (dimensionless)" in text
    assert "× the least" in text


def test_mean_report_states_errors_relative_to_the_public_range(every_query):
    doc = json.loads((every_query / "mean.json").read_text())
    text = parse(every_query / "mean.html").joined
    bar = doc["error_bars"]["values"]
    # age: range 72 years; its row says how much of it the noise std is, in age's units
    assert "of 72" in text and "units of age" in text
    assert np.isclose(bar["relative"][0], bar["std"][0] / 72.0)


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.parametrize("query", QUERIES)
def test_report_renders_in_a_headless_browser(every_query, query):
    browser = _chromium()
    if browser is None:
        pytest.skip("no headless browser: install Debian's chromium (apt-get install chromium) "
                    "to render the report; the HTML is still checked by the parser tests")
    url = (every_query / f"{query}.html").resolve().as_uri()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
    dom = subprocess.run([browser, *flags, "--virtual-time-budget=5000", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    k = len(PLOTS[query])
    # the page's script counts the plots that decoded: every PNG loaded and has a size
    assert f'data-plots-loaded="{k}/{k}"' in dom.stdout
    for heading in ("What this guarantees", "What was released", "How precise it is",
                    "The guarantee, technically", "Budget ledger"):
        assert heading in dom.stdout
    shot = every_query / f"shot_{query}.png"
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1000,1400", url],
                   capture_output=True, timeout=120, check=True)
    assert shot.read_bytes().startswith(PNG_MAGIC)
    import matplotlib.image as mpimg

    pixels = mpimg.imread(shot)
    assert pixels.shape[0] == 1400 and pixels.std() > 0.05  # not a blank page


@pytest.mark.parametrize("kind", ["heatmap", "bars"])
def test_plots_of_a_wide_table_stay_a_bounded_size(kind, tmp_path, monkeypatch):
    # task BB: the figure grew 0.7 inch per column at 110 dpi, so the report of a 200-column
    # covariance asked for a 12,203 x 12,524-pixel canvas (MemoryError after the release was
    # written and charged: "internal error") and a 400-column one was killed by the OS.
    # Every plot is now at most MAX_FIGURE_INCHES on a side, with thinned tick labels.
    from matrixdp.cli import _report

    sizes, ticks = [], []

    def record(fig, path):  # the size asked for, without rendering the canvas
        sizes.append(fig.get_size_inches() * fig.dpi)
        ticks.append(len(fig.axes[0].get_yticks()))  # the plot (not its colour bar)
        _report._plt().close(fig)

    monkeypatch.setattr(_report, "_save", record)
    names = [f"v{i}" for i in range(400)]
    if kind == "heatmap":
        _report._heatmap(np.eye(400), names, names, "t", tmp_path / "h.png", signed=True)
        _report._heatmap(np.eye(3), names[:3], names[:3], "t", tmp_path / "s.png", signed=True)
    else:
        z = np.zeros(400)
        _report._bars(names, z, z - 1, z + 1, "t", "x", tmp_path / "b.png")
        _report._bars(names[:3], z[:3], z[:3] - 1, z[:3] + 1, "t", "x", tmp_path / "s.png")
    (wide, small) = sizes
    assert max(wide) <= _report.MAX_FIGURE_INCHES * 110 + 1
    assert ticks[0] <= 150 and ticks[1] == 3  # thinned labels; a small table keeps all of them
    assert max(small) < _report.MAX_FIGURE_INCHES * 110 / 2  # small tables keep their size


def test_release_report_quotes_categories(tmp_path):
    # the bounds table joined categories with ", " ("Paris, TX, Paris" read as three)
    rng = np.random.default_rng(3)
    n = 500
    pd.DataFrame({"age": rng.uniform(18, 90, n),
                  "city": rng.choice(["Paris, TX", "Paris"], n)}).to_csv(tmp_path / "t.csv",
                                                                       index=False)
    (tmp_path / "b.toml").write_text('[columns]\nage = { lo = 18, hi = 90 }\n'
                                     'city = { categories = ["Paris, TX", "Paris"] }\n')
    report = tmp_path / "r.html"
    code = main(["release", str(tmp_path / "t.csv"), "--query", "mean", "--bounds",
                 str(tmp_path / "b.toml"), "--epsilon", "1", "--out", str(tmp_path / "r.json"),
                 "--report", str(report), "--seed", "1", "--quiet"])
    assert code == 0
    page = parse(report)
    assert '"Paris, TX", "Paris"' in page.joined
    assert "Paris, TX, Paris" not in page.joined




def _body_and_glossary(path):
    text = parse(path).joined
    assert "Words used on this page" in text, "the report has no glossary"
    body, _, glossary = text.rpartition("Words used on this page")
    return body.replace("(words used on this page)", ""), glossary


def _undefined(body, glossary):
    import re

    return [word for word, term in WALKTHROUGH_JARGON.items()
            if re.search(r"(?<![A-Za-z])" + re.escape(word), body, re.IGNORECASE)
            and term.lower() not in glossary.lower()]


@pytest.mark.parametrize("query", QUERIES)
def test_report_explains_every_technical_word_it_uses(every_query, query):
    # task CW: a curator must read the report without our docs; on 975a9d5 the reports used these
    # words with no definition (and had no glossary at all)
    body, glossary = _body_and_glossary(every_query / f"{query}.html")
    assert _undefined(body, glossary) == []
    # the glossary defines the words this page uses, not every word it knows
    from matrixdp.cli._glossary import GLOSSARY
    import re

    for term, pattern, _ in GLOSSARY:
        assert (term in glossary) == bool(re.search(pattern, body, re.IGNORECASE)), term
    if query == "mean":
        assert "sufficient statistics" not in glossary and "extrapolation" not in glossary
    if query == "linreg":
        assert "ridge" in glossary and "sufficient statistics" in glossary


def test_synth_report_explains_every_technical_word_it_uses(tmp_path):
    rng = np.random.default_rng(4)
    n = 500
    frame = pd.DataFrame({"age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n)})
    frame.to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "b.toml").write_text('[columns]\nage = { lo = 18, hi = 90, integer = true }\n'
                                     'sex = { categories = ["F", "M"] }\n')
    assert main(["synth", str(tmp_path / "t.csv"), "--bounds", str(tmp_path / "b.toml"),
                 "--epsilon", "1", "--out", str(tmp_path / "s.csv"), "--report",
                 str(tmp_path / "s.html"), "--quiet"]) == 0
    body, glossary = _body_and_glossary(tmp_path / "s.html")
    assert _undefined(body, glossary) == []
    assert "copula" in glossary and "μ (mu)" in glossary
