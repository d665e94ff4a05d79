"""Audit the numbers of README.md, BENCHMARKS.md and REPRODUCTION.md against the results files they cite.

Reads files only (no experiment is rerun). For every sentence, bullet sentence and table row of the three
pages that states a number (after the exclusions below) it finds the results file(s) the claim cites and
checks whether each number appears in them, allowing formatting differences. It only TRIAGES: the
not-found and no-file rows are decided by hand, and those decisions live in the committed
``experiments/claims_audit_triage.csv``, which this script reads and prints next to its rows, so a rerun
keeps them.

Command (from ``experiments/``)::

    PYTHONPATH=../src python claims_audit.py

writes ``results/claims_audit.md`` and ``results/claims_audit.csv``.

Rules (what counts as a claim, what is accepted)
------------------------------------------------
Units. Fenced code blocks are skipped. A paragraph or bullet is split into sentences (a split after
``.``/``;`` followed by a space and an upper-case letter, a backtick, ``*`` or ``(``); each table row
(not the header separator) is one unit.

Numbers ignored (they name a setting, a version, a reference or an identifier, not a result):
text in backticks (code, paths, identifiers, commits) and link targets; numbers after a parameter sign
(``ε``, ``δ``, ``epsilon``, ``delta``, ``k``, ``d``, ``p``, ``n``, ``m``, ``λ``, ``lambda``, ``rho``,
``theta``, ``γ``, ``τ``, ``σ``, ``R`` followed by ``=``, ``≥``, ``≤``, ``<``, ``>`` or ``∈``, with the
whole list or set that follows: ``ε = 1, 3 and 10``, ``ε ∈ {0.3, 1, 3}``); version numbers (``a.b.c``,
and the number after a package name: Python, numpy, diffprivlib, OpenDP, SDMetrics, smartnoise-synth,
mbi, scikit-learn, opendp); years 1990-2030 written as a bare integer; dates and clock times; references
(``issue 24``, ``#26``, ``§4c``, ``Sec.``, ``Table``, ``Figure``, ``Fig.``, ``Figs``, ``Eq.``, ``Theorem``,
``Algorithm``, ``round``, ``Part``, ``Appendix``, ``line``, ``Experiment``, ``case study``, ``spec``);
numbers glued to letters (``R1SMG``, ``PCG64``, ``float64``, ``k2``) or followed by ``-way``/``-bit``/
``-minute``/``-core``/``-D``; shapes ``2000x2000``; ``95%`` of "95% interval/CI/confidence"; the
leading marker of a numbered list.

Citations. The ``results/...`` paths of the sentence; else of its paragraph, bullet or table (with the
paragraph that introduces a list or a table); else of its section (``##``/``###``). A bare results
file name (``coinpress_radius_benchmark.md``) next to a ``results/`` path is resolved in ``results/``.
A sentence that names a results file and ``at commit(s) <id>`` is also checked against that
committed version of the file (``git show <id>:<path>``), for numbers of an earlier run kept as history.
A ``.md`` citation also reads the ``.csv`` of the same stem, and a directory reads its ``.md``/``.csv``
files. A section of BENCHMARKS.md with a ``Machine: ...; run ...`` line is written by its benchmark
script: a number not found (or found only scattered) in a file it cites is reported as ``self`` (the section is the script's own
output record; checking it would mean rerunning the benchmark).

Accepted as found (each number of the claim separately), against every number in the cited files:
* the same value at the claim's precision: the file's value rounded to the claim's decimals (or, in
  scientific notation, to its significant digits) equals the claim's (0.830 = 0.8300 = 0.83004;
  1.2e-06 = 1.20e-06; 4,135 = 4135; the sign is ignored, so −4.0 = -4.0);
* 10⁻⁶ / 2·10⁵ / 1e-6 written any of these ways;
* a percent in the claim against a fraction in the file (93% = 0.93) and the reverse;
* ``derived-ratio``: a number written as a ratio (``×``, ``x``, ``-fold``) that is not found directly but
  equals, at its precision, a/b or b/a for two numbers on one line of a cited file, or for two
  numbers of the claim itself (``0.133 → 0.0075``).
Anything else is ``not found``; a claim whose numbers are all found is ``found``. Small integers match
easily: ``found`` is evidence for the hand triage, not a proof. A found claim with two or more significant numbers
(written with decimals, or integers above 40) one of which shares no line of a cited file with another
of them is ``found (scattered)``: each number is somewhere in the files, but that one stands alone,
which is how a stale number hides behind a chance match; those rows are read by hand like the not-found
ones.
"""
from __future__ import annotations

import csv
import hashlib
import math
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
DOCS = ["README.md", "BENCHMARKS.md", "REPRODUCTION.md"]
TRIAGE = ROOT / "experiments" / "claims_audit_triage.csv"
OUT_MD = RESULTS / "claims_audit.md"
OUT_CSV = RESULTS / "claims_audit.csv"
COMMAND = "cd experiments && PYTHONPATH=../src python claims_audit.py"

SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
# one number as written in prose: 1,234.5 / 0.83 / 1.2e-06 / 2·10⁵ / 10⁻⁶ / 5·10^5
NUM = re.compile(
    r"(?<![\w.])(?P<sign>[−-])?"
    r"(?:(?P<mant>\d+(?:\.\d+)?)\s?[·×*]\s?)?10(?P<pow>[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
    r"|(?<![\w.])(?P<sign2>[−-])?(?P<body>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<exp>[eE][−+-]?\d+)?(?![\w])?"
)
PARAM = (r"(?:ε|δ|epsilon|delta|eps|\bk|\bd|\bp|\bn|\bm|λ|lambda|rho|theta|γ|τ|σ|\bR|\bM|alpha|α|"
         r"trials|seed|dim|n_samples|n_features)")
NUMTOK = r"[−-]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][−+-]?\d+)?|10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+|\d+(?:\.\d+)?·10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
SETTING = re.compile(
    PARAM + r"\s*(?:=|≥|≤|<|>|∈|>=|<=)\s*(?:\{[^}]*\}|\[[^\]]*\]|"
    + NUMTOK + r"(?:\s*(?:,|and|or|to|–|-)\s*" + NUMTOK + r")*)"
)
PACKAGES = re.compile(
    r"(?:Python|numpy|diffprivlib|OpenDP|opendp|SDMetrics|smartnoise-synth|mbi|scikit-learn|dask)"
    r"\s*(?:>=|<)?\s*\d+(?:\.\d+)*", re.I)
REFS = re.compile(
    r"(?:issue|issues|#|§|Sec\.|Section|Table|Tables|Figure|Figures|Fig\.|Figs\.?|Eq\.|Theorem|Theorems|"
    r"Algorithm|round|Part|Appendix|line|lines|Experiment|case study|spec|Lemma|Step|task|D)\s*"
    r"[\dIVX]+[a-z]?(?:\s*(?:[–/-]|and|,)\s*[\dIVX]+[a-z]?)*")
IGNORE_PATTERNS = [
    re.compile(r"`[^`]*`"),                                   # code spans
    re.compile(r"\]\([^)]*\)"),                               # link targets
    re.compile(r"\d{4}-\d{2}-\d{2}(?:\s+\d{1,2}:\d{2})?"),    # dates
    re.compile(r"\b\d{1,2}:\d{2}\b"),                         # clock times
    re.compile(r"\d+\.\d+\.\d+"),                             # versions a.b.c
    PACKAGES,
    re.compile(r"\b[A-Za-z_]+\d+[A-Za-z_\d]*|\b\d+(?![eE][−+-]?\d)(?!x(?![A-Za-z0-9_]))[A-Za-z_]+\w*"),  # glued identifiers
    re.compile(r"\d+-(?:way|bit|minute|core|D|dimensional|fold cross)\b"),
    re.compile(r"\d[\d,]*\s*[x×]\s*\d[\d,]*(?:\s*[x×]\s*\d[\d,]*)?(?!\s*[a-zA-Z(])"),  # shapes
    re.compile(r"95\s?%\s*(?:interval|confidence|CI|error bar|bar)"),
    re.compile(r"\b(?:19[9]\d|20[0-3]\d)\b(?![.,]?\d)(?!\s*[×x%])"),  # years
    re.compile(r"^\s*\d+\.\s"),                               # numbered list marker
    re.compile(r"commits?\s+[0-9a-f]{7,40}(?:\s*(?:,|and)\s*[0-9a-f]{7,40})*"),  # commit ids
    re.compile(r"\((?:ε|epsilon),\s*δ?\s*=?\s*[^)]{0,20}\)"),      # a privacy setting "(ε, 10⁻⁹)"
]
RATIO_SUFFIX = re.compile(r"^\s*(?:×|x\b|-fold|fold|times)")
PERCENT_SUFFIX = re.compile(r"^\s*%")


def parse_number(m: re.Match) -> tuple[float, float, bool]:
    """Value, half-unit tolerance at the written precision, scientific?"""
    if m.group("pow") is not None:
        p = int(m.group("pow").translate(SUP))
        mant = m.group("mant")
        if mant is None:
            return 10.0 ** p, 0.0, True
        dec = len(mant.split(".")[1]) if "." in mant else 0
        return float(mant) * 10.0 ** p, 0.5 * 10.0 ** (p - dec), True
    body = m.group("body").replace(",", "")
    dec = len(body.split(".")[1]) if "." in body else 0
    exp = m.group("exp")
    if exp:
        e = int(exp[1:].replace("−", "-"))
        return float(body) * 10.0 ** e, 0.5 * 10.0 ** (e - dec), True
    return float(body), 0.5 * 10.0 ** (-dec), False


def blank(text: str, pattern: re.Pattern) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def claim_numbers(text: str) -> list[dict]:
    t = text
    for pat in IGNORE_PATTERNS:
        t = blank(t, pat)
    t = blank(t, SETTING)
    t = blank(t, REFS)
    out = []
    for m in NUM.finditer(t):
        if not m.group(0).strip() or m.group(0).strip() in "−-":
            continue
        val, tol, sci = parse_number(m)
        rest = t[m.end():m.end() + 8]
        out.append({"raw": text[m.start():m.end()].strip(), "value": abs(val), "tol": tol,
                    "ratio": bool(RATIO_SUFFIX.match(rest)), "percent": bool(PERCENT_SUFFIX.match(rest)),
                    "range_to_next": bool(re.match(r"^\s*[–-]\s*\d", rest)) and "−" not in rest[:1]})
    # a range "94.5–96.9%" or "6–312×": the unit of its upper end applies to its lower end
    for a, b in zip(out, out[1:]):
        if a["range_to_next"]:
            a["percent"] = a["percent"] or b["percent"]
            a["ratio"] = a["ratio"] or b["ratio"]
    return out


def file_numbers(text: str) -> tuple[list[float], list[list[float]]]:
    """Every number of a results file, and the numbers of each line (for ratios)."""
    allv, lines = [], []
    for line in text.splitlines():
        vals = []
        for m in NUM.finditer(line.replace("−", "-")):
            if not m.group(0).strip():
                continue
            try:
                v, _, _ = parse_number(m)
            except (ValueError, OverflowError):
                continue
            if math.isfinite(v):
                vals.append(abs(v))
        allv.extend(vals)
        lines.append(vals)
    return allv, lines


def matches(num: dict, values) -> bool:
    c, tol = num["value"], num["tol"] * (1 + 1e-9) + 1e-15
    for v in values:
        if abs(v - c) <= tol:
            return True
        if num["percent"] and (abs(100 * v - c) <= tol):
            return True
    return False


def ratio_match(num: dict, lines, own: list[float]) -> bool:
    c, tol = num["value"], num["tol"] * (1 + 1e-9) + 1e-15
    pools = [own] + [ln for ln in lines if 2 <= len(ln) <= 80]
    for ln in pools:
        arr = [v for v in ln if v > 0]
        for i, a in enumerate(arr):
            for b in arr[i + 1:]:
                if abs(a / b - c) <= tol or abs(b / a - c) <= tol:
                    return True
    return False


# ----------------------------------------------------------------------------- markdown parsing
RESULTS_PATH = re.compile(r"results/[A-Za-z0-9_./{},-]+[A-Za-z0-9_/}]")
BARE_RESULT = re.compile(r"`([A-Za-z0-9_]+\.(?:md|csv|txt|png))`")


def expand(path: str) -> list[str]:
    """results/utility_{covariance,pca}.{md,csv} -> every combination."""
    m = re.search(r"\{([^}]*)\}", path)
    if not m:
        return [path]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand(path[:m.start()] + alt + path[m.end():]))
    return out


def cites(text: str) -> list[str]:
    found = []
    for m in RESULTS_PATH.finditer(text):
        for p in expand(m.group(0).rstrip(".,;:)")):
            found.append(p)
    if found:  # bare names next to a results/ path
        for m in BARE_RESULT.finditer(text):
            if (RESULTS / m.group(1)).exists():
                found.append("results/" + m.group(1))
    return list(dict.fromkeys(found))


def split_sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.;])\s+(?=[A-Z`*(])", text)
    return [p for p in parts if p.strip()]


def parse_doc(name: str) -> list[dict]:
    lines = (ROOT / name).read_text().splitlines()
    units, sections = [], []  # a unit: kind, line, text, block cites, lead cites, section idx
    in_code = False
    section = {"title": "(top)", "text": "", "generated": False}
    sections.append(section)
    block: list[tuple[int, str]] = []
    kind = None
    lead_text = ""

    def flush():
        nonlocal block, kind, lead_text
        if not block:
            return
        text = " ".join(s.strip() for _, s in block)
        start = block[0][0]
        if kind == "table":
            for ln, row in block:
                if re.match(r"^\|[\s|:-]+\|\s*$", row):
                    continue
                units.append({"kind": "table row", "line": ln, "text": row.strip(), "block": text,
                              "lead": lead_text, "section": section})
        else:
            for sent in split_sentences(text):
                units.append({"kind": kind, "line": start, "text": sent, "block": text,
                              "lead": lead_text if kind == "bullet" else "", "section": section})
            if kind == "paragraph":
                lead_text = text
        section["text"] += " " + text
        block, kind = [], None

    for i, line in enumerate(lines, 1):
        if line.strip().startswith("```"):
            flush()
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.startswith("#"):
            flush()
            lead_text = ""
            # a ### subsection of a script-written ## section is script-written too
            inherit = line.startswith("###") and section["generated"]
            section = {"title": line.lstrip("#").strip(), "text": "", "generated": inherit}
            sections.append(section)
            continue
        if not line.strip():
            if kind != "bullet":
                flush()
            continue
        if line.startswith("Machine:") and name == "BENCHMARKS.md":
            section["generated"] = True
        if line.lstrip().startswith("|"):
            if kind != "table":
                flush()
                kind = "table"
            block.append((i, line))
        elif re.match(r"^\s*(?:[-*]|\d+\.)\s", line) and not line.startswith("    "):
            flush()
            kind = "bullet"
            block.append((i, re.sub(r"^\s*(?:[-*]|\d+\.)\s", "", line)))
        else:
            if kind == "table":
                flush()
            if kind is None:
                kind = "paragraph"
            block.append((i, line))
    flush()
    return units


# ----------------------------------------------------------------------------- checking
_cache: dict[str, tuple[list[float], list[list[float]]] | None] = {}


def load(path: str):
    if path in _cache:
        return _cache[path]
    if "@" in path:  # a committed earlier version, results/x.md@abc1234
        rel, commit = path.split("@")
        try:
            text = subprocess.run(["git", "show", f"{commit}:{rel}"], cwd=ROOT, capture_output=True,
                                  text=True, check=True).stdout
        except subprocess.CalledProcessError:
            _cache[path] = None
            return None
        _cache[path] = file_numbers(text)
        return _cache[path]
    p = ROOT / path
    files = []
    if p.is_dir():
        files = sorted(list(p.glob("*.md")) + list(p.glob("*.csv")))
    elif p.exists():
        files = [p]
        if p.suffix == ".md" and p.with_suffix(".csv").exists():
            files.append(p.with_suffix(".csv"))
    if not files:
        _cache[path] = None
        return None
    allv, lines = [], []
    for f in files:
        if f.suffix == ".png":
            continue
        a, ln = file_numbers(f.read_text(errors="replace"))
        allv += a
        lines += ln
    _cache[path] = (allv, lines)
    return _cache[path]


def check(nums, allv, lines, own):
    unmatched, derived = [], []
    for n in nums:
        if allv and matches(n, allv):
            continue
        if n["ratio"] and (ratio_match(n, lines, own) if allv else ratio_match(n, [], own)):
            derived.append(n["raw"])
            continue
        unmatched.append(n["raw"])
    return unmatched, derived


def significant(n: dict) -> bool:
    """A number unlikely to match by chance: written with decimals, or an integer above 40."""
    return n["tol"] < 0.5 or n["value"] > 40


def together(nums, lines) -> bool:
    """Does each significant number of the claim share a line of a cited file with another one of them?"""
    sig = [n for n in nums if significant(n)]
    if len(sig) < 2:
        return True
    for i, n in enumerate(sig):
        others = sig[:i] + sig[i + 1:]
        if not any(matches(n, ln) and any(matches(o, ln) for o in others) for ln in lines):
            return False
    return True


def key_of(doc: str, text: str) -> str:
    return hashlib.sha1((doc + "|" + re.sub(r"\s+", " ", text.strip())).encode()).hexdigest()[:10]


def read_triage() -> list[dict]:
    if not TRIAGE.exists():
        return []
    with TRIAGE.open() as fh:
        return [r for r in csv.DictReader(fh) if r.get("doc")]


def audit():
    triage = read_triage()
    rows = []
    for doc in DOCS:
        if not (ROOT / doc).exists():
            continue
        for u in parse_doc(doc):
            nums = claim_numbers(u["text"])
            if not nums:
                continue
            level, cited = "sentence", cites(u["text"])
            # "the same file at commit abc1234": an earlier committed version of a cited file
            commits = re.findall(r"\b[0-9a-f]{7,40}\b", " ".join(
                m.group(0) for m in re.finditer(r"commits?\s+[0-9a-f]{7,40}(?:\s*(?:,|and)\s*[0-9a-f]{7,40})*",
                                                u["text"])))
            cited = cited + [f"{c}@{h}" for c in cited for h in commits]
            if not cited and u["kind"] != "table row":
                level, cited = "paragraph", cites(u["block"])
            if not cited and u["kind"] == "table row":
                level, cited = "table", cites(u["block"])
            if not cited and u["lead"]:
                level, cited = "lead paragraph", cites(u["lead"])
            if not cited:
                level, cited = "section", cites(u["section"]["text"])
            if not cited:
                level = "none"
            generated = u["section"]["generated"]
            loaded = [(c, load(c)) for c in cited]
            missing = [c for c, v in loaded if v is None]
            allv = [x for _, v in loaded if v for x in v[0]]
            lines = [ln for _, v in loaded if v for ln in v[1]]
            own = [n["value"] for n in nums]
            unmatched, derived = check(nums, allv, lines, own)
            if unmatched and level != "section":
                # the nearest citation misses a number: try every file the section cites
                wider = [c for c in cites(u["section"]["text"]) if c not in cited]
                if wider:
                    loaded_w = [(c, load(c)) for c in wider]
                    allw = allv + [x for _, v in loaded_w if v for x in v[0]]
                    linesw = lines + [ln for _, v in loaded_w if v for ln in v[1]]
                    un2, der2 = check(nums, allw, linesw, own)
                    if len(un2) < len(unmatched):
                        used = [c for c, v in loaded_w if v]
                        cited = cited + used
                        level += " + section"
                        unmatched, derived, allv = un2, der2, allw
            scattered = bool(allv) and not unmatched and not together(nums, lines)
            if not cited or (missing and not allv):
                status = "self (script-written section)" if generated else "no file cited"
                if cited:
                    status = "cited file missing"
            elif unmatched:
                status = "self (script-written section)" if generated else "not found"
            elif derived:
                status = "derived-ratio"
            elif scattered:
                status = "self (script-written section)" if generated else "found (scattered)"
            else:
                status = "found"
            text = re.sub(r"\s+", " ", u["text"])
            tri = [t for t in triage if t["doc"] == doc and t["match"] and t["match"] in text]
            rows.append({
                "doc": doc, "line": u["line"], "section": u["section"]["title"][:60], "kind": u["kind"],
                "claim": text, "numbers": " ".join(n["raw"] for n in nums),
                "cited": " ".join(cited), "cite_level": level, "missing_files": " ".join(missing),
                "status": status, "unmatched": " ".join(unmatched), "derived": " ".join(derived),
                "triage": " | ".join(f"{t['decision']}: {t['note']}" for t in tri),
                "key": key_of(doc, text),
            })
    return rows, triage


def write(rows, triage):
    fields = ["doc", "line", "section", "kind", "status", "numbers", "unmatched", "derived", "cited",
              "cite_level", "missing_files", "triage", "claim", "key"]
    with OUT_CSV.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in fields})
    from collections import Counter
    by = Counter((r["doc"], r["status"]) for r in rows)
    statuses = ["found", "found (scattered)", "derived-ratio", "not found", "no file cited", "cited file missing",
                "self (script-written section)"]
    md = ["# Claims audit: the numbers of README.md, BENCHMARKS.md and REPRODUCTION.md against the "
          "results files they cite", "",
          f"Produced by `experiments/claims_audit.py` (command: `{COMMAND}`); reads files only. "
          "The rules (what is a claim, which numbers are ignored, what counts as found) are in the "
          "script's docstring. The script only triages; the decisions on the not-found and no-file rows "
          "are the hand triage below, read from `experiments/claims_audit_triage.csv`.", "",
          "| document | claims | " + " | ".join(statuses) + " |",
          "|---|---:|" + "---:|" * len(statuses)]
    for doc in DOCS:
        n = sum(1 for r in rows if r["doc"] == doc)
        if n:
            md.append(f"| {doc} | {n} | " + " | ".join(str(by[(doc, s)]) for s in statuses) + " |")
    md.append(f"| all | {len(rows)} | " + " | ".join(
        str(sum(by[(d, s)] for d in DOCS)) for s in statuses) + " |")
    dec = Counter(t["decision"] for t in triage)
    md += ["", "## Hand triage (from `experiments/claims_audit_triage.csv`)", "",
           "Decisions: " + ", ".join(f"{k} {v}" for k, v in sorted(dec.items())) + ".", "",
           "Decision codes: `derived` the number is right but computed from the cited file (how, in the "
           "note); `stale-fixed` the sentence had another number than its file and was changed to the "
           "file's (old → new in the note); `cite-added` a results file backs it and the citation was "
           "added; `self` the number is the page's own record (a benchmark section's script output, or a "
           "setting); `checked` a found-scattered row read by hand and confirmed (where, in the note); "
           "`paper` the number is the reproduced paper's published value, not ours; `setting` the number names a setting or a count of the protocol, not a result; "
           "`unsupported` no results file backs it: flagged to the lead; `false-alarm` the script's "
           "matcher missed a number that is in the file as written (where, in the note).", "",
           "| document | claim (start) | decision | note | row now |", "|---|---|---|---|---|"]
    for t in triage:
        hit = [r for r in rows if r["doc"] == t["doc"] and t["match"] in r["claim"]]
        now = ", ".join(sorted({r["status"] for r in hit})) or "no longer matched"
        md.append(f"| {t['doc']} | {t['match'][:70]} | {t['decision']} | {t['note']} | {now} |")
    sc = [r for r in rows if r["status"] == "found (scattered)"]
    md += ["", "Read by hand: every not-found and no-file row; every README.md row (found, scattered and derived); "
           "the found-scattered rows of BENCHMARKS.md; of REPRODUCTION.md's found-scattered rows only those with a `checked` decision "
           f"({sum(1 for r in sc if r['doc'] == 'REPRODUCTION.md' and r['triage'])} of "
           f"{sum(1 for r in sc if r['doc'] == 'REPRODUCTION.md')}). Also read by hand, beyond the script: the "
           "hand-written part of BENCHMARKS.md 'Utility comparison' (every sentence, found or not), against "
           "results/utility_{covariance,pca,regression}.csv and utility_summary.md; its stale sentences are "
           "the stale-fixed and unsupported BENCHMARKS.md decisions above. The found rows of README.md were "
           "read too (the 0.99 → 1.0 fix was one of them)."]
    md += ["", "## Rows not found, found only scattered, without a file, or with a missing file", "",
           "| document | line | status | unmatched numbers | cited | claim | triage |",
           "|---|---:|---|---|---|---|---|"]
    for r in rows:
        if r["status"] in ("not found", "no file cited", "cited file missing", "found (scattered)"):
            claim = r["claim"].replace("|", "\\|")
            claim = claim if len(claim) <= 220 else claim[:217] + "..."
            md.append(f"| {r['doc']} | {r['line']} | {r['status']} | {r['unmatched']} | "
                      f"{r['cited'] or '-'} | {claim} | {r['triage'] or 'NOT TRIAGED'} |")
    md += ["", "Every row (found, derived, self) is in `results/claims_audit.csv`.", ""]
    OUT_MD.write_text("\n".join(md))


INDEX = ROOT / "docs" / "index.md"
STOP = set("the a an of and or in on for to with by from at is are as its it this that be not no vs "
           "results md csv".split())


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9_]+", text.lower()) if w not in STOP and len(w) > 2}


def index_check() -> list[dict]:
    """docs/index.md's results list: does each named file exist, and does its description share the
    words of the file's header line? (a light check: low overlap is read by hand)."""
    text = INDEX.read_text()
    start = text.index("## Results files added or rerun")
    section = text[start:]
    end = section.find("\n## ", 5)
    section = section[:end] if end > 0 else section
    items = re.split(r"\n- ", section)[1:]
    out = []
    for item in items:
        item = " ".join(item.split())
        raw = re.findall(r"`(?:\.\./)?(?:results/)?([A-Za-z0-9_./-]+\.(?:md|csv|txt|png)|[A-Za-z0-9_]+/)`", item)
        names, prev = [], None
        for n in raw:
            if n.startswith(("experiments", "docs", "src")) or n.endswith(".py"):
                continue
            if n.startswith(("...", "_")) and prev:  # shorthand: "..._dev2.md" after "x_dev.md"
                suffix = n.lstrip(".")
                stem = prev.rsplit(".", 1)[0]
                cands = [stem[:k] + suffix for k in range(len(stem), 0, -1)
                         if (RESULTS / (stem[:k] + suffix)).exists()]
                n = cands[0] if cands else n
            if not (RESULTS / n).exists() and (ROOT / "docs" / n).exists():
                continue  # a docs page named in the bullet, not a results file
            names.append(n)
            if (RESULTS / n).exists():
                prev = n
        for n in dict.fromkeys(names):
            path = RESULTS / n
            exists = path.exists()
            header = ""
            if exists and path.suffix == ".md":
                for line in path.read_text(errors="replace").splitlines():
                    if line.startswith("#"):
                        header = line.lstrip("#").strip()
                        break
            i = item.find(n.rsplit("/", 1)[-1].split(".")[0][-12:])
            desc = item[max(i, 0):][:300]
            hw = words(header)
            overlap = len(hw & words(item)) / len(hw) if hw else float("nan")
            out.append({"file": n, "exists": exists, "header": header, "overlap": overlap,
                        "description": desc})
    return out


def write_index(rows: list[dict]) -> str:
    md = ["", "## docs/index.md results list (the light check)", "",
          "Each results file named in the list's bullets: does it exist, and what share of the words of "
          "its header line (the first `#` line of a `.md`) appear in the bullet's description of it "
          "(overlap, against the whole bullet; below 0.3 is read by hand). Docs pages named in a bullet are "
          "skipped; a shorthand name (`..._dev2.md` after `x_dev.md`) is resolved against the previous file "
          "named.", "",
          f"Files named: {len(rows)}; missing: {sum(1 for r in rows if not r['exists'])}; "
          f"overlap < 0.3: {sum(1 for r in rows if r['overlap'] == r['overlap'] and r['overlap'] < 0.3)}.",
          "", "| file | exists | overlap | header line | description (start) |", "|---|---|---:|---|---|"]
    for r in rows:
        ov = "-" if r["overlap"] != r["overlap"] else f"{r['overlap']:.2f}"
        md.append(f"| {r['file']} | {'yes' if r['exists'] else '**NO**'} | {ov} | "
                  f"{r['header'][:110].replace('|', '/')} | {r['description'][:140].replace('|', '/')} |")
    return "\n".join(md) + "\n"


def main():
    rows, triage = audit()
    write(rows, triage)
    idx = index_check()
    with OUT_MD.open("a") as fh:
        fh.write(write_index(idx))
    print(f"docs/index.md: {len(idx)} files named, {sum(1 for r in idx if not r['exists'])} missing")
    from collections import Counter
    print(Counter(r["status"] for r in rows))
    untriaged = [r for r in rows if r["status"] in ("not found", "no file cited", "cited file missing")
                 and not r["triage"]]
    print(f"{len(rows)} claims; {len(untriaged)} not-found/no-file rows without a hand decision")
    return 0


if __name__ == "__main__":
    sys.exit(main())
