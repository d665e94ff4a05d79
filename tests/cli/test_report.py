"""The HTML report of ``matrixdp release``: parsed without a browser (always), and rendered in a
headless Chromium when one is installed (skipped with the reason otherwise)."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from matrixdp.cli import main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.images, self.text, self.tables = set(), [], [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "img":
            self.images.append(attrs.get("src"))
        if tag == "table":
            self.tables += 1

    def handle_data(self, data):
        self.text.append(data)


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


def test_report_has_every_section_and_its_plots(released):
    html = (released / "r.html").read_text()
    page = _Page()
    page.feed(html)
    assert {"guarantee", "released", "error", "parameters", "ledger"} <= page.ids
    assert sorted(page.images) == ["r_error.png", "r_value.png"]
    for name in page.images:
        payload = (released / name).read_bytes()
        assert payload.startswith(PNG_MAGIC) and len(payload) > 2000
    text = " ".join(page.text)
    doc = json.loads((released / "r.json").read_text())
    assert "replace-one" in text and "PC1" in text and "pca of t" in text
    assert f"{doc['guarantee']['epsilon']:.4g}" in text
    # the released components are shown (4 significant digits), the ledger after the release too
    assert f"{doc['released']['components'][0][0]:.4g}" in text
    assert "remaining epsilon" in text
    assert "``" not in html and "Traceback" not in html


def test_report_for_every_query_shape(tmp_path):
    rng = np.random.default_rng(1)
    pd.DataFrame(rng.uniform(size=(400, 3)), columns=["x", "y", "z"]).to_csv(tmp_path / "t.csv",
                                                                          index=False)
    for query in ("mean", "gram", "correlation", "linreg"):
        extra = ["--target", "z"] if query == "linreg" else []
        assert main(["release", str(tmp_path / "t.csv"), "--query", query, "--bounds", "x=0:1",
                     "--bounds", "y=0:1", "--bounds", "z=0:1", *extra, "--epsilon", "1",
                     "--out", str(tmp_path / f"{query}.json"), "--report",
                     str(tmp_path / f"{query}.html")]) == 0
        page = _Page()
        page.feed((tmp_path / f"{query}.html").read_text())
        assert len(page.images) == 2 and all((tmp_path / i).is_file() for i in page.images)
        assert "No ledger was charged" in " ".join(page.text)


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_report_renders_in_a_headless_browser(released):
    browser = _chromium()
    if browser is None:
        pytest.skip("no headless browser: install Debian's chromium (apt-get install chromium) "
                    "to render the report; the HTML is still checked by the parser test")
    url = (released / "r.html").resolve().as_uri()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
    dom = subprocess.run([browser, *flags, "--virtual-time-budget=5000", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    # the page's script counts the plots that decoded: both PNGs loaded and have a size
    assert 'data-plots-loaded="2/2"' in dom.stdout
    assert "Budget ledger" in dom.stdout and "What was released" in dom.stdout
    shot = released / "shot.png"
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1000,1400", url],
                   capture_output=True, timeout=120, check=True)
    assert shot.read_bytes().startswith(PNG_MAGIC)
    import matplotlib.image as mpimg

    pixels = mpimg.imread(shot)
    assert pixels.shape[0] == 1400 and pixels.std() > 0.05  # not a blank page
