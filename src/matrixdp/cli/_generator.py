"""The bounds file of a table generator: ONE reader and ONE fit for ``matrixdp synth`` (``--model
copula`` / ``tree-copula``) and ``matrixdp audit --synth``.

The two commands read the same bounds file and must agree on everything it says
(``docs/curator.md`` §2, ``docs/synth_audit.md``):

* the ``target`` is a column of the file and categorical (its PUBLIC categories are the classes);
* a column whose public categories are all strings is read as text;
* ``dp = true`` columns: :data:`~matrixdp.cli._dpbounds.DP_BOUNDS_FRACTION` of ε buys their
  ranges (:func:`~matrixdp.cli._dpbounds.resolve_dp_columns`, charged as its own entry before any
  draw), the generator is fitted with the rest;
* public constants (``lo == hi``) are split off (:func:`~matrixdp.cli._tables.
  split_public_constants`): not modelled, every synthetic record gets the value;
* the generator's guarantee is charged whole before its fit (:func:`generator_guarantee`).

:func:`fit_table_generator` does all of it on one table; ``synth`` calls it once, ``audit --synth``
once per fit of its membership check, so the audited synthesis is the one ``synth`` runs.
"""

from __future__ import annotations

import contextlib

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..errors import InvalidParameterError
from ._dpbounds import DP_BOUNDS_FRACTION, dp_columns, resolve_dp_columns
from ._options import naming_input
from ._tables import Schema, read_schema, split_public_constants, text_columns

__all__ = ["TableModel", "TABLE_MODELS", "read_generator_bounds", "text_columns",
           "generator_table_schema", "generator_guarantee", "bounds_seed", "FittedGenerator",
           "fit_table_generator"]


class TableModel(NamedTuple):
    """A table generator on a bounds file: its class in :mod:`matrixdp.synth`, the mechanism tag
    of its guarantee, its derivation note, what it releases and what it is (the report's words)."""

    cls: str
    mechanism: str
    doc: str
    releases: str
    words: str


#: The table generators on a bounds file, by CLI name.
TABLE_MODELS = {
    "copula": TableModel(
        "DPCopula", "dp-copula", "docs/copula.md", "histograms and normal-score moments",
        "DPCopula (class-conditional Gaussian copula over DP histograms), in the input's "
        "columns, units and categories"),
    "tree-copula": TableModel(
        "DPTreeCopula", "dp-tree-copula", "docs/tree_copula.md",
        "histograms, normal-score moments, pair scores and the tree's 2-way histograms",
        "DPTreeCopula (per class: a Gaussian copula for the numeric columns and a tree of DP "
        "two-way tables for the categorical ones, over DP histograms), in the input's columns, "
        "units and categories"),
}


def read_generator_bounds(path, option: str = "--bounds") -> Schema:
    """Read a generator's bounds file and check what a table generator needs of it.

    The target, when named, must be a column of the file and categorical (its PUBLIC categories
    are the classes); at least one feature column must not be a public constant.

    Raises
    ------
    InvalidParameterError
        With the same message for every command that reads the file.
    """
    schema = read_schema(path)
    target = schema.target
    if target is not None:
        if target not in schema.names:
            raise InvalidParameterError(option, f"the target {target!r} is not a column of "
                                                "the bounds file")
        if not schema.column(target).is_categorical:
            raise InvalidParameterError(option, f"the target {target!r} must be categorical "
                                                "(its PUBLIC classes as categories) for the "
                                                "class-conditional copula")
        if schema.names == [target]:
            raise InvalidParameterError(option, f"lists no column besides the target "
                                                f"{target!r}: nothing to synthesise (add the "
                                                "feature columns with their PUBLIC ranges)")
    split_public_constants(schema, option)  # refuses a table of public constants only
    return schema


def generator_table_schema(columns):
    """The :class:`~matrixdp.synth.TableSchema` of the given (resolved) columns."""
    from ..synth import TableSchema

    bounds = {c.name: (c.lo, c.hi) for c in columns if not c.is_categorical}
    cats = {c.name: list(c.categories) for c in columns if c.is_categorical}
    integer = [c.name for c in columns if c.integer]
    atoms = {c.name: list(c.atoms) for c in columns if not c.is_categorical and c.atoms}
    return TableSchema(bounds=bounds, categories=cats, integer=tuple(integer), atoms=atoms)


def generator_guarantee(epsilon: float, delta: float, relation: str, model: str = "copula"):
    """``(epsilon_fit, guarantee)``: the ε the table generator (DPCopula or DPTreeCopula, both
    calibrated under add/remove neighbours and composed as Gaussian DP) is fitted with, and the
    guarantee charged, both known before the fit from (ε, δ) alone.

    Under replace-one (a replace-one ledger) a replacement is a removal plus an addition, so a
    μ-GDP release under add/remove is 2μ-GDP under replace-one (group privacy, Dong, Roth & Su
    2022): the copula is fitted at μ/2, where μ meets the requested (ε, δ), so the replace-one
    charge is exactly the requested ε.
    """
    from ..accounting.composition import gdp_epsilon
    from ..calibration import max_gaussian_shift
    from ..mechanisms import PrivacyGuarantee

    spec = TABLE_MODELS[model]
    mechanism = spec.mechanism
    mu = max_gaussian_shift(epsilon, delta)
    notes = (f"{spec.cls}: {spec.releases}, Gaussian noise composed as Gaussian DP; "
             f"see {spec.doc}",)
    if relation == "add-remove":
        return epsilon, PrivacyGuarantee(epsilon=epsilon, delta=delta, neighbouring="add-remove",
                                         calibration="analytic-gdp", mechanism=mechanism, mu=mu,
                                         notes=notes)
    eps_fit = gdp_epsilon(mu / 2, delta)
    return eps_fit, PrivacyGuarantee(
        epsilon=epsilon, delta=delta, neighbouring="replace-one",
        calibration="analytic-gdp (group privacy)", mechanism=mechanism, mu=mu,
        notes=notes + (f"replace-one: fitted at mu={mu / 2:.6g} (epsilon={eps_fit:.6g} under "
                       f"add/remove), which is mu={mu:.6g} under replace-one by group privacy "
                       "(a replacement is a removal plus an addition)",))


def bounds_seed(seed):
    """The DP-bounds step's own stream of a seeded run (None: the secure stream)."""
    if seed is None:
        return None
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), 2])))


@dataclass
class FittedGenerator:
    """A table generator fitted on one table through :func:`fit_table_generator`.

    Attributes
    ----------
    model : DPCopula or DPTreeCopula
    schema : Schema
        Every column of the bounds file, in its order, DP ranges in place.
    constants : dict
        The public constants (name -> value), not modelled.
    guarantee : PrivacyGuarantee
        The generator's charge.
    bounds_guarantee : PrivacyGuarantee or None
        The DP ranges' charge (None without ``dp = true`` columns).
    ranges : dict
        Column -> its DP range.
    """

    model: object
    schema: Schema
    constants: dict
    guarantee: object
    bounds_guarantee: object
    ranges: dict

    @property
    def total(self):
        """Everything charged for this fit (DP ranges + generator, basic composition)."""
        g = self.guarantee
        return g if self.bounds_guarantee is None else self.bounds_guarantee + g

    def sample(self, size: int, random_state=None):
        """``(table, labels)``: the features in the file's order, public constants filled in
        (labels None without a target)."""
        out = self.model.sample(size, random_state=random_state)
        table, labels = (out if isinstance(out, tuple) else (out, None))
        for name, value in self.constants.items():
            table[name] = int(value) if self.schema.column(name).integer else float(value)
        return table[[c for c in self.schema.names if c != self.schema.target]], labels


class _ChargeInPlace:
    """The budget keeper ``fit_table_generator`` hands to the generator's ``fit``: when the fit
    charges its guarantee (after it has read and checked every record, before any noise), the
    command's ``guarantee`` (the ledger's relation, :func:`generator_guarantee`) is charged in its
    place to ``ledger`` and the enclosing ``with`` blocks' keepers. Charging around the
    whole fit instead spent the budget on tables the fit then refused (a missing value, an
    undeclared category or class): an entry for a release that never happened."""

    def __init__(self, guarantee, ledger, label: str):
        self.guarantee, self.ledger, self.label = guarantee, ledger, label
        self.charges = 0

    #: Its ``charge`` goes through ``_budget.charge``, which charges ``ledger`` and the enclosing
    #: ``with`` blocks' keepers: the charge that calls this keeper must not charge the blocks too.
    forwards_to_blocks = True

    def check(self, _fit_guarantee) -> None:
        from .._budget import check

        check(self.guarantee, self.ledger)

    @contextlib.contextmanager
    def charge(self, fit_guarantee, label: str = ""):
        from .._budget import charge

        with charge(self.guarantee, ledger=self.ledger, label=self.label):
            self.charges += 1
            yield fit_guarantee


def fit_table_generator(model_name: str, schema: Schema, frame, *, epsilon: float, delta: float,
                        relation: str = "add-remove", ledger=None, label: str = "synth",
                        seed=None, option: str = "INPUT") -> FittedGenerator:
    """Fit ``matrixdp synth``'s table generator on ``frame``: DP ranges, constants, charge, fit.

    Parameters
    ----------
    model_name : {"copula", "tree-copula"}
    schema : Schema
        From :func:`read_generator_bounds`.
    frame : pandas.DataFrame
        The records (every column of ``schema``).
    epsilon, delta : float
        The whole budget of the fit: ``dp = true`` columns take
        :data:`~matrixdp.cli._dpbounds.DP_BOUNDS_FRACTION` of ε (charged first, pure DP), the
        generator the rest (charged whole before its draws; basic composition of the two).
    relation : {"add-remove", "replace-one"}
    ledger : Ledger, optional
        Charged; ``None``: the budget keepers of enclosing ``with`` blocks (none: uncharged).
    label : str
        Public label of the ledger entries (the DP ranges' entry is ``label + ": bounds"``).
    seed : int, optional
        ``None``: secure randomness. A seeded fit is replayable by whoever knows the seed.

    References
    ----------
    .. [1] docs/curator.md §2 (the bounds file), docs/bounds.md (DP ranges), docs/copula.md,
       docs/tree_copula.md.
    """
    from .. import synth

    bounds_guarantee, ranges = None, {}
    eps_fit = float(epsilon)
    with_atoms = [c.name for c in schema.columns if c.atoms and c.name != schema.target]
    if with_atoms and model_name not in ("copula", "tree-copula"):
        # refused before anything is charged (the DP ranges below are charged first)
        raise InvalidParameterError(
            "--bounds", f"atoms (column(s) {with_atoms}) are supported by --model copula and "
                        f"--model tree-copula; --model {model_name} does not model them: use one "
                        "of those or drop the atoms")
    if dp_columns(schema):
        eps_bounds = DP_BOUNDS_FRACTION * eps_fit
        eps_fit = eps_fit - eps_bounds
        schema, bounds_guarantee, ranges = resolve_dp_columns(
            schema, frame, epsilon=eps_bounds, relation=relation, ledger=ledger,
            label=f"{label}: bounds", rng=bounds_seed(seed), option=option,
            whole=(eps_bounds + generator_guarantee(eps_fit, delta, relation, model_name)[1]
                   .epsilon, delta))
    constants, modelled = split_public_constants(schema)
    target = schema.target
    table_schema = generator_table_schema([c for c in modelled.columns if c.name != target])
    # the frame's own column order (public constants and the target left out; a constant may
    # already be absent, as in the membership check's frames)
    features = frame[[c for c in frame.columns if c in table_schema.columns]]
    y = None if target is None else frame[target]
    eps_model, guarantee = generator_guarantee(eps_fit, delta, relation, model_name)
    generator = getattr(synth, TABLE_MODELS[model_name].cls)
    model = generator(schema=table_schema, epsilon=eps_model, delta=delta,
                      classes=None if target is None else list(schema.column(target).categories),
                      random_state=seed)
    # charged whole before any draw, where the generator charges its own fit: after its checks
    # of every record, so a refused table costs nothing (hunt DH2: charged, then refused)
    keeper = _ChargeInPlace(guarantee, ledger, label)
    with naming_input(option):
        model.fit(features, y, accountant=keeper)
    if keeper.charges != 1:  # pragma: no cover - a bug: the fit must charge exactly once
        raise RuntimeError(f"the generator's fit charged {keeper.charges} times, not once")
    if abs(model.privacy_.epsilon - eps_model) > 1e-9 * eps_model:  # pragma: no cover - a bug
        raise RuntimeError("the charged guarantee differs from the fitted one")
    return FittedGenerator(model, schema, constants, guarantee, bounds_guarantee, ranges)
