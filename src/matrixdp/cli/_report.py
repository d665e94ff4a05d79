"""The HTML report of ``matrixdp release`` and its PNG plots.

Built from the RELEASE.json document only (released values, error bars, guarantee, public
parameters, ledger state), so the report can never show anything the JSON does not. The page is
a jinja2 template shipped as package data (``matrixdp/cli/templates/report.html.j2``); this
module only prepares numbers and draws the plots. Vectors (means, sums, coefficients, explained
variances) are drawn as bars with their 95% error bars; only matrices are heatmaps. The PNGs are
written beside the report (``<stem>_<name>.png``) and referenced by relative path.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ._paths import atomic_output
from ._tables import categories_text

__all__ = ["write_report", "render_html", "guarantee_sentence", "estimand_sentence"]


# ----------------------------------------------------------------------------- formatting
def fmt(x, spec: str = ".4g") -> str:
    """A number for people: 4 significant digits, no exponent for ordinary sizes, NaN spelled."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, (int, float, np.integer, np.floating)):
        v = float(x)
        if math.isnan(v):
            return "not a number"
        if math.isinf(v):
            return "unbounded"
        if spec == ".4g" and 1e4 <= abs(v) < 1e15:  # 23,130 rather than 2.313e+04
            return f"{float(format(v, spec)):,.0f}"
        return format(v, spec)
    return str(x)


def pct(x) -> str:
    """A fraction as a percentage (``0.123`` -> ``"12%"``)."""
    v = float(x)
    if not math.isfinite(v):
        return "—"
    return f"{100 * v:.2g}%" if v < 0.1 else f"{100 * v:.0f}%"


_RELATION_WORDS = {
    "replace-one": ("replacing any one person's record by any other record",
                    "The number of records is public under this relation (it is not protected)."),
    "add-remove": ("adding or removing any one person's record",
                   "The number of records is protected too."),
}


def guarantee_sentence(g: dict, n_records=None) -> list[str]:
    """Plain-language sentences for the guarantee, for someone who has never heard of DP."""
    eps, delta = float(g["epsilon"]), float(g["delta"])
    change, count = _RELATION_WORDS.get(
        str(g["relation"]), (f"changing one record ({g['relation']})", ""))
    factor = math.exp(eps) if eps < 700 else float("inf")
    first = (f"Whatever anyone learns from this release, they would have learnt it almost as "
             f"well without any one person's record: {change} changes the probability of every "
             f"possible published result by at most a factor of {fmt(factor, '.3g')} "
             f"(e<sup>ε</sup> with ε = {fmt(eps, '.3g')})")
    if delta > 0:
        first += (f", except with a probability of at most δ = {fmt(delta, '.2g')}, where the "
                  "guarantee may fail (δ should be far below one over the number of records).")
    else:
        first += ", with no exception (δ = 0)."
    out = [first]
    if count:
        out.append(count + (f" Here: {n_records} records." if n_records is not None else ""))
    if g.get("refuted"):
        out.append("WARNING: this guarantee is refuted: the release is NOT private as claimed.")
    elif not g.get("exact"):
        out.append("The stated ε is a guaranteed upper bound; the true privacy loss may be "
                   "smaller.")
    if g.get("numerics") == "float":
        out.append("The guarantee assumes exact real arithmetic (floating-point artefacts of the "
                   "noise sampling are not covered; --numerics exact avoids them for means and "
                   "sums).")
    return out


# ----------------------------------------------------------------------------- plots
def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> None:
    plt = _plt()
    fig.tight_layout()
    with atomic_output(path, "wb") as fh:
        fig.savefig(fh, format="png")
    plt.close(fig)


def _compact(v: float) -> str:
    a = abs(v)
    if a >= 1e6:
        return f"{v / 1e6:.3g}M"
    if a >= 1e3:
        return f"{v / 1e3:.3g}k"
    return f"{v:.3g}"


#: Largest side of a plot in inches (at 110 dpi: 3,300 pixels). A plot grows with the number of
#: released columns up to it, so the report of a wide table stays a few megabytes to draw.
MAX_FIGURE_INCHES = 30.0
#: Most tick labels on an axis; beyond it every k-th column is labelled (the tables list all).
MAX_TICK_LABELS = 120


def _inches(size: float) -> float:
    return min(size, MAX_FIGURE_INCHES)


def _ticks(axis_set, positions, labels, **kwargs) -> None:
    """Label ``positions`` with ``labels``, every k-th one when there are too many to read."""
    step = -(-len(labels) // MAX_TICK_LABELS)
    axis_set(list(positions)[::step], [str(s) for s in labels][::step], **kwargs)


def _heatmap(values, row_names, col_names, title: str, path: Path, *, signed: bool,
             percent: bool = False, vmax=None, text=None) -> None:
    plt = _plt()
    arr = np.atleast_2d(np.asarray(values, dtype=np.float64))
    h, w = arr.shape
    fig, ax = plt.subplots(figsize=(_inches(max(4.5, 0.7 * w + 3.0)),
                                    _inches(max(3.0, 0.55 * h + 1.8))), dpi=110)
    if signed:  # white at zero
        top = vmax or float(np.max(np.abs(arr))) or 1.0
        im = ax.imshow(arr, cmap="coolwarm", aspect="auto", vmin=-top, vmax=top)
    else:
        im = ax.imshow(arr, cmap="viridis", aspect="auto", vmin=0,
                       vmax=vmax or (float(arr.max()) or 1.0))
    _ticks(ax.set_xticks, range(w), col_names, rotation=45, ha="right", fontsize=8)
    _ticks(ax.set_yticks, range(h), row_names, fontsize=8)
    shown = _dust_free(arr if text is None else np.atleast_2d(np.asarray(text, dtype=np.float64)))
    if h * w <= 144:
        lo, hi = im.get_clim()
        for (i, j), v in np.ndenumerate(arr):
            label = pct(shown[i, j]) if percent else _compact(shown[i, j])
            dark = (not signed) and (v - lo) < 0.5 * (hi - lo)
            ax.text(j, i, label, ha="center", va="center", fontsize=7,
                    color="white" if dark else "black")
    ax.set_title(title, fontsize=9)
    bar = fig.colorbar(im, ax=ax, shrink=0.8)
    if percent:
        bar.ax.yaxis.set_major_formatter(lambda v, _: pct(v))
    _save(fig, path)


def _bars(labels, centre, lower, upper, title: str, xlabel: str, path: Path, *,
          annotations=None, xlim=None, zero_line=False) -> None:
    """Horizontal bars (one per entry) with their interval as an error bar."""
    plt = _plt()
    centre = np.asarray(centre, dtype=np.float64)
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    k = centre.size
    fig, ax = plt.subplots(figsize=(7.5, _inches(max(2.2, 0.42 * k + 1.3))), dpi=110)
    y = np.arange(k)[::-1]
    ax.barh(y, centre, color="#7fa7d6", edgecolor="#35608f", height=0.6)
    ax.errorbar(centre, y, xerr=[centre - lower, upper - centre], fmt="none", ecolor="black",
                capsize=4, lw=1.2)
    _ticks(ax.set_yticks, y, labels, fontsize=8)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_title(title, fontsize=9)
    if zero_line:
        ax.axvline(0.0, color="grey", lw=0.8)
    if xlim is not None:
        ax.set_xlim(*xlim)
    if annotations is not None:
        x0, x1 = ax.get_xlim()
        for yi, text in zip(y, annotations):
            ax.text(x1, yi, " " + text, va="center", ha="left", fontsize=7)
    ax.grid(axis="x", alpha=0.3)
    _save(fig, path)


# ----------------------------------------------------------------------------- page model
def _ranges(doc) -> tuple[np.ndarray, np.ndarray]:
    """Public lower and upper bound of each released column (one-hot columns: [0, 1])."""
    cols = doc["parameters"]["bounds"]["columns"]
    lo, hi = [], []
    for name in doc["columns"]:
        base = name.split("=", 1)[0] if name not in cols else name
        spec = cols.get(name) or cols.get(base) or {}
        if "lo" in spec:
            lo.append(spec["lo"])
            hi.append(spec["hi"])
        else:
            lo.append(0.0)
            hi.append(1.0)
    return np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)


def _units(name: str) -> str:
    return "0/1 indicator" if "=" in name else f"units of {name}"


def _vector_rows(labels, value, bar, units, frac: float) -> list[dict]:
    rows = []
    for i, label in enumerate(labels):
        rows.append({"name": label, "value": fmt(value[i]), "std": fmt(bar["std"][i]),
                     "lower": fmt(bar["lower"][i]), "upper": fmt(bar["upper"][i]),
                     "relative": pct(bar["relative"][i]), "units": units[i],
                     "scale": fmt(bar["scale"][i]),
                     "dominated": bar["relative"][i] > frac and not bar.get("extrapolation")})
    return rows


def intercept_interval(bar: dict) -> dict:
    """The intercept's bar as the report shows it: where the release's level was shrunk towards
    the target's box centre (``intercept_shrunk``), its 95% interval widened on each side by
    ``bias_bound``, the largest bias that shrinkage can add (task LS, ``docs/regression.md`` §3a;
    the JSON keeps the noise-only interval and the bound beside it). Otherwise ``bar`` itself."""
    bound = float(bar.get("bias_bound", 0.0) or 0.0)
    if not bar.get("intercept_shrunk") or not bound > 0.0:
        return bar
    lower = np.asarray(bar["lower"], dtype=np.float64) - bound
    upper = np.asarray(bar["upper"], dtype=np.float64) + bound
    return dict(bar, lower=lower.tolist(), upper=upper.tolist())


def _share_range(shares) -> str:
    """Shares of a reference as words: "62% of", "between 3% and 62% of", or, where one is at
    least the whole, as multiples ("32 times", "between 0.5 and 32 times")."""
    if max(shares) < 1.0:
        lo, hi, unit = pct(min(shares)), pct(max(shares)), "of"
    else:
        lo, hi, unit = fmt(min(shares), ".2g"), fmt(max(shares), ".2g"), "times"
    return f"{lo} {unit}" if lo == hi else f"between {lo} and {hi} {unit}"


def estimand_sentence(bar: dict, intercept: dict, target: str) -> str:
    """One plain sentence: what the regression's intervals are intervals FOR (the estimand the
    JSON names in ``error_bars.coef.estimand``; ``docs/regression.md`` §7,
    ``results/coef_bar_estimand.md``). Built from the JSON's released and public fields only
    (the ridge ``λ`` read off the release, ``--alpha``, the penalty per feature relative to its
    public range); empty for a JSON written before these fields existed."""
    if "estimand" not in bar:
        return ""
    if bar["estimand"] == "least-squares":
        return ("These intervals are for the coefficients of ordinary least squares computed "
                "from the records (clipped to their public ranges): the release was precise "
                "enough that no penalty was needed.")
    ridge, alpha = float(bar.get("ridge", 0.0)), float(bar.get("alpha", 0.0))
    # a public constant feature is left out of the fit (penalty 0, coefficient 0)
    shares = [r for r, p in zip(bar.get("penalty_relative", []), bar.get("penalty", []))
              if p > 0] or [0.0]
    share = (f"for each feature {_share_range(shares)} the largest spread its public range "
             "allows")
    if alpha > 0 and ridge > 0:
        chosen = (f"your penalty (--alpha {fmt(alpha)}) plus one chosen from the noisy release "
                  f"(λ = {fmt(ridge)}; together, {share})")
    elif alpha > 0:
        chosen = f"your penalty (--alpha {fmt(alpha)}; {share}; the noisy release needed no more)"
    else:
        chosen = f"a penalty chosen from the noisy release (λ = {fmt(ridge)}; {share})"
    text = (f"These intervals are for the coefficients of a ridge regression computed from the "
            f"records (clipped to their public ranges) with {chosen}, not for ordinary least "
            "squares: the coefficients are pulled towards 0, and an ordinary least-squares "
            "coefficient can lie outside its interval.")
    if intercept.get("intercept_shrunk") and float(intercept.get("bias_bound", 0.0) or 0.0) > 0:
        text += (f" The intercept is also pulled towards the middle of {target}'s public range; "
                 "its interval in the table is widened to allow for that.")
    return text


def _dust_free(matrix) -> np.ndarray:
    """Entries below 1e-8 of the largest shown as 0 (rounding left by the projections)."""
    arr = np.asarray(matrix, dtype=np.float64)
    top = float(np.max(np.abs(arr))) if arr.size else 0.0
    return np.where(np.abs(arr) < 1e-8 * top, 0.0, arr)


def _matrix_rows(row_names, col_names, matrix) -> list[dict]:
    return [{"name": r, "cells": [fmt(v) for v in line]}
            for r, line in zip(row_names, _dust_free(matrix))]


#: Matrices up to this many columns also get a table of per-entry intervals (wider ones: the JSON).
MAX_INTERVAL_COLUMNS = 12


def _interval_rows(row_names, bar) -> list[dict] | None:
    lower, upper = np.asarray(bar["lower"]), np.asarray(bar["upper"])
    if lower.ndim != 2 or lower.shape[1] > MAX_INTERVAL_COLUMNS:
        return None
    return [{"name": r, "cells": [f"[{fmt(a)}, {fmt(b)}]" for a, b in zip(lo, hi)]}
            for r, lo, hi in zip(row_names, lower, upper)]


def build_context(doc: dict, stem: str) -> tuple[dict, list[tuple[str, callable]]]:
    """The template's context and the plots to draw (file name, drawing function)."""
    q, names, rel = doc["query"], doc["columns"], doc["released"]
    bars = doc.get("error_bars", {})
    g, p, exp = doc["guarantee"], doc["parameters"], doc["expected_error"]
    frac = float(doc.get("noise_dominates_fraction", 0.1))
    lo, hi = _ranges(doc)
    plots, figures, vectors, matrices = [], [], [], []

    def figure(name, alt, caption, draw):
        file = f"{stem}_{name}.png"
        plots.append((file, draw))
        figures.append({"src": file, "alt": alt, "caption": caption})

    if q in ("mean", "sum"):
        value = np.asarray(rel["values"])
        bar = bars["values"]
        scale = float(p["n_records"]) if q == "sum" else 1.0
        units = [_units(c) for c in names]
        vectors.append({"title": f"Released {q}s", "rows": _vector_rows(names, value, bar, units, frac),
                        "what": bar["what"]})
        width = scale * (hi - lo)
        pos = lambda v: (np.asarray(v) - scale * lo) / width  # noqa: E731
        ann = [f"{fmt(v)}  [{fmt(a)}, {fmt(b)}]" for v, a, b in zip(value, bar["lower"],
                                                                    bar["upper"])]
        figure("value", f"released {q} of each column with its 95% interval",
               f"Each bar is the released {q} placed within its public range (0% = lower bound, "
               "100% = upper bound); the black line is its 95% interval. The numbers on the "
               "right are in the column's own units.",
               lambda path: _bars(names, pos(value), pos(bar["lower"]), pos(bar["upper"]),
                                  f"released {q} (position within the public range)",
                                  "fraction of the public range", path, annotations=ann,
                                  xlim=(0, 1)))
    elif q == "linreg":
        coef = np.asarray(list(rel["coef"].values()))
        bar = bars["coef"]
        tname = str(doc["target"])
        units = [f"units of {tname} per unit of {c}" if "=" not in c
                 else f"units of {tname} versus the reference category" for c in names]
        rows = _vector_rows(names, coef, bar, units, frac)
        ib = intercept_interval(bars["intercept"])
        rows += _vector_rows(["intercept"], [rel["intercept"]], ib, [f"units of {tname}"], frac)
        what = bar["what"]
        if ib is not bars["intercept"]:
            what += (f" The intercept's interval also holds the largest bias its shrinkage can add "
                     f"over the target's public range ({fmt(ib['bias_bound'])}; "
                     "docs/regression.md §3a).")
        vectors.append({"title": f"Regression coefficients (target: {tname})", "rows": rows,
                        "what": what, "estimand": estimand_sentence(bar, bars["intercept"],
                                                                    tname)})
        # standardised: the change of the target, as a fraction of its public range, when the
        # feature moves across its whole public range
        ylo, yhi = _target_range(doc)
        s = (hi - lo) / (yhi - ylo)
        ann = [f"{fmt(c)}  [{fmt(a)}, {fmt(b)}]" for c, a, b in zip(coef, bar["lower"],
                                                                   bar["upper"])]
        figure("coef", "regression coefficients with 95% intervals",
               f"Each bar is a coefficient's effect: how much {tname} moves, as a fraction of "
               "its public range, when the feature moves across its whole public range (for a "
               "category: versus the reference category). Black lines: 95% intervals. The "
               "numbers on the right are the coefficients in their own units.",
               lambda path: _bars(names, coef * s, np.asarray(bar["lower"]) * s,
                                  np.asarray(bar["upper"]) * s, f"coefficients for {tname} "
                                  "(standardised by the public ranges)",
                                  "effect / range of the target", path, annotations=ann,
                                  zero_line=True))
    elif q == "pca":
        comps = np.asarray(rel["components"])
        k = comps.shape[0]
        pcs = [f"PC{i + 1}" for i in range(k)]
        matrices.append({"title": "Principal components (loadings; rows have unit length)",
                         "cols": names, "rows": _matrix_rows(pcs, names, comps),
                         "intervals": _interval_rows(pcs, bars["components"]),
                         "what": bars["components"]["what"]})
        ev = np.asarray(rel["explained_variance"])
        ratio = np.asarray(rel["explained_variance_ratio"])
        eb = bars["explained_variance"]
        total = ev.sum() / ratio.sum() if ratio.sum() > 0 else 1.0
        vectors.append({"title": "Explained variance", "what": eb["what"],
                        "rows": _vector_rows(pcs, ev, eb, ["squared units of the data"] * k,
                                             frac)})
        figure("components", "principal components heatmap",
               "Loadings of each released component (a matrix: heatmap). Signs are arbitrary "
               "per component.",
               lambda path: _heatmap(comps, pcs, names, "released principal components", path,
                                     signed=True, vmax=1.0))
        figure("explained", "explained variance ratio with 95% intervals",
               "Share of the released total variance explained by each component, with its "
               "95% interval (first-order approximation).",
               lambda path: _bars(pcs, ratio, np.clip(np.asarray(eb["lower"]) / total, 0, 1),
                                  np.clip(np.asarray(eb["upper"]) / total, 0, 1),
                                  "explained variance ratio", "share of the total variance",
                                  path, xlim=(0, 1)))
    else:
        mat = np.asarray(rel["matrix"])
        mb = bars["matrix"]
        matrices.append({"title": f"Released {q} matrix", "cols": names,
                         "rows": _matrix_rows(names, names, mat),
                         "intervals": _interval_rows(names, mb), "what": mb["what"]})
        if q == "correlation":
            colour, caption = mat, "The released correlation matrix."
        else:  # columns in different units: colour by the share of the largest possible value
            reach = np.maximum(np.abs(lo), np.abs(hi)) if q == "gram" else 0.5 * (hi - lo)
            top = np.outer(reach, reach)
            colour = mat / np.where(top > 0, top, 1.0)
            caption = (f"The released {q} matrix (numbers in the columns' units). Colour: each "
                       "entry as a share of the largest value its public ranges allow (-1 to 1), "
                       "so columns with different units compare.")
        figure("value", f"released {q} matrix heatmap", caption,
               lambda path: _heatmap(colour, names, names, f"released {q}", path, signed=True,
                                     vmax=1.0, text=mat))
        rel_err = np.asarray(mb["relative"])
        figure("error", "expected error relative to the public range, per entry",
               "Expected error of each entry as a percentage of the range the entry can take "
               "(public bounds). Above "
               f"{pct(frac)}: noise dominates.",
               lambda path: _heatmap(rel_err, names, names, "expected error / public range "
                                     "(colour capped at 100%)", path, signed=False,
                                     percent=True, vmax=1.0))
    if "mean" in rel and q != "mean" and "mean" in bars:
        mean = np.asarray(rel["mean"])
        vectors.append({"title": "Released mean (same release)", "what": bars["mean"]["what"],
                        "rows": _vector_rows(names, mean, bars["mean"],
                                             [_units(c) for c in names], frac)})
    cands = exp.get("noise_candidates") or {}
    best = min(cands.values()) if cands else None
    cand_rows = [{"name": k, "loss": fmt(v), "ratio": fmt(v / best, ".3g") if best else "—",
                  "chosen": k == exp.get("allocation")} for k, v in cands.items()]
    bounds = []
    for name, spec in p["bounds"]["columns"].items():
        bounds.append({"name": name, "range": (categories_text(spec["categories"])
                                               if "categories" in spec
                                               else f"[{fmt(spec['lo'])}, {fmt(spec['hi'])}]")})
    led = doc.get("ledger")
    ctx = {
        "doc": doc, "q": q, "names": names, "g": g, "p": p, "exp": exp,
        "sentences": guarantee_sentence(g, p.get("n_records")),
        "warnings": doc.get("warnings", []), "figures": figures, "vectors": vectors,
        "matrices": matrices, "cand_rows": cand_rows, "bounds": bounds, "ledger": led,
        "projection": doc.get("projection", {}), "frac": pct(frac),
        "what": _sentence(exp.get("what", "")),
        "interval_note": (doc.get("error_bars_note") or {}).get("text", ""),
        "coding": doc.get("categorical_coding"), "fmt": fmt, "pct": pct,
    }
    return ctx, plots


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _target_range(doc) -> tuple[float, float]:
    spec = doc["parameters"]["bounds"]["columns"][doc["target"]]
    return float(spec["lo"]), float(spec["hi"])


def _environment():
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("matrixdp.cli", "templates"),
                              autoescape=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined)


def _render(ctx: dict) -> str:
    """The page, ending with the plain definitions of the technical words it uses (found in a
    first rendering's text; ``cli._glossary``)."""
    from ._glossary import terms_on_page

    template = _environment().get_template("report.html.j2")
    first = template.render(**ctx, glossary=[])
    return template.render(**ctx, glossary=terms_on_page(first))


def render_html(doc: dict, stem: str = "report") -> str:
    """The report's HTML (the plots it names are drawn by :func:`write_report`)."""
    ctx, _ = build_context(doc, stem)
    return _render(ctx)


def write_report(doc: dict, path) -> list[Path]:
    """Write ``path`` (HTML) and its PNG plots; return the PNG paths."""
    path = Path(path)
    ctx, plots = build_context(doc, path.stem)
    pngs = []
    for file, draw in plots:
        png = path.with_name(file)
        draw(png)
        pngs.append(png)
    html = _render(ctx)
    with atomic_output(path, "w", encoding="utf-8") as fh:
        fh.write(html)
    return pngs
