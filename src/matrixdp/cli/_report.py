"""The HTML report of ``matrixdp release`` and its PNG plots.

Built from the RELEASE.json document only (released values, guarantee, expected error,
public parameters, ledger state), so the report can never show anything the JSON does not.
The PNGs are written beside the report (``<stem>_error.png``, ``<stem>_value.png``) and
referenced by relative path.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from ._paths import atomic_output

__all__ = ["write_report", "render_html"]


def _fmt(x, spec: str = ".4g") -> str:
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, (int, float, np.floating)):
        return format(float(x), spec)
    return html.escape(str(x))


def _table(header, rows, cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _matrix_table(matrix, row_names, col_names) -> str:
    rows = [[f"<b>{html.escape(r)}</b>", *[_fmt(v) for v in line]]
            for r, line in zip(row_names, matrix)]
    return _table(["", *col_names], rows, "matrix")


def _heatmap(values, row_names, col_names, title: str, path: Path, cmap: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arr = np.atleast_2d(np.asarray(values, dtype=np.float64))
    h, w = arr.shape
    fig, ax = plt.subplots(figsize=(max(4.0, 0.6 * w + 2.5), max(2.2, 0.5 * h + 1.6)), dpi=110)
    if cmap == "coolwarm":  # signed values: white at zero
        top = float(np.max(np.abs(arr))) or 1.0
        im = ax.imshow(arr, cmap=cmap, aspect="auto", vmin=-top, vmax=top)
    else:
        im = ax.imshow(arr, cmap=cmap, aspect="auto")
    mid = (arr.min() + arr.max()) / 2
    ax.set_xticks(range(w), [str(c) for c in col_names], rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(h), [str(r) for r in row_names], fontsize=8)
    if h * w <= 144:
        for (i, j), v in np.ndenumerate(arr):
            ax.text(j, i, f"{v:.3g}", ha="center", va="center", fontsize=7,
                    color="black" if cmap == "coolwarm" or v > mid else "white")
    ax.set_title(title, fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.tight_layout()
    with atomic_output(path, "wb") as fh:
        fig.savefig(fh, format="png")
    plt.close(fig)


def _value_view(doc):
    """(matrix, row names, column names, title) of the released value, for the second plot."""
    q, names, rel = doc["query"], doc["columns"], doc["released"]
    if q in ("covariance", "gram", "correlation"):
        return rel["matrix"], names, names, f"released {q} matrix"
    if q == "pca":
        comps = rel["components"]
        return comps, [f"PC{i + 1}" for i in range(len(comps))], names, "released principal components"
    if q == "linreg":
        return [list(rel["coef"].values())], ["coef"], list(rel["coef"]), "released coefficients"
    return [rel["values"]], [q], names, f"released {q}"


def _error_view(doc):
    exp, q, names = doc["expected_error"], doc["query"], doc["columns"]
    std = exp.get("entry_std")
    if std is None:
        return None
    arr = np.atleast_2d(np.asarray(std, dtype=np.float64))
    if q == "linreg":
        labels = exp.get("entry_names") or [str(i) for i in range(arr.shape[0])]
        return arr, labels, labels
    if q in ("mean", "sum"):
        return arr, [q], names
    return arr, names, names


def write_report(doc: dict, path) -> list[Path]:
    """Write ``path`` (HTML) and its PNG plots; return the PNG paths."""
    path = Path(path)
    pngs = []
    err = _error_view(doc)
    if err is not None:
        png = path.with_name(path.stem + "_error.png")
        _heatmap(err[0], err[1], err[2], "expected error per entry (" +
                 ("noise std" if doc["query"] in ("mean", "sum", "gram", "linreg") else "RMS bound")
                 + ")", png, "viridis")
        pngs.append(png)
    value = _value_view(doc)
    png = path.with_name(path.stem + "_value.png")
    _heatmap(*value[:3], value[3], png, "coolwarm")
    pngs.append(png)
    with atomic_output(path, "w", encoding="utf-8") as fh:
        fh.write(render_html(doc, [p.name for p in pngs]))
    return pngs


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1000px;
color:#222;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f3f3f3}td:first-child{text-align:left}
table.kv td:first-child{font-weight:600}
.note{color:#555;font-size:.9em}
.warn{background:#fff3cd;padding:.5em;border:1px solid #e0c36c}
img{max-width:100%;border:1px solid #eee}
"""


def render_html(doc: dict, png_names: list[str]) -> str:
    g, p, exp = doc["guarantee"], doc["parameters"], doc["expected_error"]
    q, names = doc["query"], doc["columns"]
    e = html.escape
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<title>matrixdp release: {e(q)}</title><style>{_CSS}</style></head><body>"]
    parts.append(f"<h1>matrixdp release: {e(q)} of {len(names)} column(s)</h1>")
    parts.append(f'<p class="note">Source file {e(str(p["source_file"]))}; matrixdp '
                 f'{e(doc["software"]["version"])}. Everything below is the released (DP) value '
                 "or public information: no statistic of the data is shown.</p>")
    if g["refuted"]:
        parts.append('<p class="warn">This guarantee is REFUTED: the release is not private '
                     "as claimed.</p>")
    if p.get("seeded"):
        parts.append('<p class="warn">Seeded run: whoever knows the seed can replay the noise; '
                     "use seeds for demonstrations only.</p>")

    parts.append('<h2 id="guarantee">Guarantee</h2>')
    rows = [["epsilon", _fmt(g["epsilon"])], ["delta", _fmt(g["delta"])],
            ["neighbouring relation", e(g["relation"])], ["calibration", e(g["calibration"])],
            ["tight (exact, not only an upper bound)", _fmt(g["exact"])],
            ["numerics", e(g["numerics"])], ["mechanism", e(g["mechanism"])],
            ["records (public under replace-one)", str(p["n_records"])]]
    parts.append(_table(["", "value"], rows, "kv"))
    if g["notes"]:
        parts.append("<ul>" + "".join(f"<li>{e(n)}</li>" for n in g["notes"]) + "</ul>")

    parts.append('<h2 id="released">What was released</h2>')
    rel = doc["released"]
    if q in ("covariance", "gram", "correlation"):
        parts.append(_matrix_table(rel["matrix"], names, names))
        if "mean" in rel:
            parts.append("<p>DP mean (released with the same noise draw):</p>")
            parts.append(_matrix_table([rel["mean"]], ["mean"], names))
    elif q == "pca":
        comps = rel["components"]
        parts.append(_matrix_table(comps, [f"PC{i + 1}" for i in range(len(comps))], names))
        parts.append(_table(["component", "explained variance", "ratio"],
                            [[f"PC{i + 1}", _fmt(v), _fmt(r)] for i, (v, r) in enumerate(
                                zip(rel["explained_variance"], rel["explained_variance_ratio"]))]))
    elif q == "linreg":
        parts.append(f"<p>Target: <b>{e(str(doc['target']))}</b>.</p>")
        parts.append(_table(["term", "coefficient"],
                            [[e(k), _fmt(v)] for k, v in rel["coef"].items()]
                            + [["intercept", _fmt(rel["intercept"])]]))
    else:
        parts.append(_matrix_table([rel["values"]], [q], names))
    parts.append(f'<img src="{e(png_names[-1])}" alt="released value">')

    parts.append('<h2 id="error">Expected error</h2>')
    parts.append(f"<p>{e(exp.get('what', ''))}. Noise: <b>{e(str(exp.get('noise')))}</b> "
                 f"({e(str(exp.get('distribution')))}); mean per-entry noise variance "
                 f"{_fmt(exp.get('per_entry_variance'))}, expected squared error "
                 f"{_fmt(exp.get('expected_squared_error'))}. These numbers follow from the "
                 "public bounds, the record count and (epsilon, delta) only.</p>")
    cands = exp.get("noise_candidates") or {}
    if cands:
        parts.append("<p>Expected loss of each noise allocation considered (auto keeps the least):</p>")
        parts.append(_table(["allocation", "expected loss"],
                            [[e(k), _fmt(v)] for k, v in cands.items()]))
    if len(png_names) > 1:
        parts.append(f'<img src="{e(png_names[0])}" alt="expected error per entry">')

    parts.append('<h2 id="parameters">Parameters</h2>')
    bounds = p["bounds"]["columns"]
    brows = []
    for name, spec in bounds.items():
        rng = (", ".join(map(str, spec["categories"])) if "categories" in spec
               else f"[{_fmt(spec['lo'])}, {_fmt(spec['hi'])}]")
        brows.append([e(name), rng])
    parts.append(_table(["column", "public range / categories"], brows))
    parts.append(_table(["", "value"], [["noise", e(p["noise"])], ["clip to bounds", _fmt(p["clip"])],
                                        ["components", _fmt(p.get("components"))],
                                        ["ridge alpha", _fmt(p.get("alpha"))]], "kv"))

    parts.append('<h2 id="ledger">Budget ledger</h2>')
    led = doc.get("ledger")
    if led is None:
        parts.append("<p>No ledger was charged (--ledger not given): track the budget yourself.</p>")
    else:
        parts.append(f"<p>Ledger <b>{e(led['path'])}</b>: spent {e(led['spent']['text'])}; "
                     f"budget epsilon={_fmt(led['budget']['epsilon'])}, "
                     f"delta={_fmt(led['budget']['delta'])}; remaining epsilon "
                     f"{_fmt(led['remaining']['epsilon'])}.</p>")
        parts.append(_table(["id", "label", "status", "epsilon", "delta"],
                            [[str(h["id"]), e(h["label"]), e(h["status"]), _fmt(h["epsilon"]),
                              _fmt(h["delta"])] for h in led["history"]]))
    # Marks the page once every plot has decoded (read by the headless-browser test).
    parts.append("<script>window.addEventListener('load',function(){var i=document.images,k=0;"
                 "for(var j=0;j<i.length;j++){if(i[j].complete&&i[j].naturalWidth>0){k++;}}"
                 "document.body.setAttribute('data-plots-loaded',k+'/'+i.length);});</script>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
