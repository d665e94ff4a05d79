"""The constructor-parameter protocol every generator in ``matrixdp.synth`` shares.

scikit-learn's ``get_params``/``set_params`` (so ``sklearn.base.clone`` works) without importing
scikit-learn, which would pull pandas into ``import matrixdp``; a ``repr`` that names the
parameters changed from their defaults; and pickling without a Generator ``random_state``
(after ``fit`` its state would let a holder of the model rewind it and replay the released
noise; an int seed is kept: a seeded fit is replayable by design).
"""

from __future__ import annotations

import inspect

from .._validation import check_delta, check_epsilon
from ..errors import InvalidParameterError
from ..rng import clone_stream, without_generators
from .schema import TableSchema

__all__ = ["GeneratorParams", "check_schema_budget"]


class GeneratorParams:
    """Mixin: ``get_params``, ``set_params``, ``__repr__`` and a generator-free ``__getstate__``."""

    @classmethod
    def _param_names(cls) -> list[str]:
        return [k for k in inspect.signature(cls.__init__).parameters if k != "self"]

    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters (scikit-learn convention)."""
        return {k: getattr(self, k) for k in self._param_names()}

    def set_params(self, **params):
        """Set constructor parameters (scikit-learn convention); returns self."""
        valid = self._param_names()
        for key, value in params.items():
            if key not in valid:
                raise InvalidParameterError(
                    key, f"is not a parameter of {type(self).__name__} ({sorted(valid)})")
            setattr(self, key, value)
        return self

    def __sklearn_clone__(self):
        """``sklearn.base.clone``: a new generator with deep copies of the parameters (a budget
        keeper is a handle and stays itself), as scikit-learn's clone does, except that a
        Generator ``random_state`` becomes a spawned child stream
        (:func:`~matrixdp.rng.clone_stream`): each clone draws its own noise, reproducibly from
        the seed. An int seed is copied (every clone then draws the same noise)."""
        import copy

        params = {k: copy.deepcopy(v) for k, v in self.get_params().items()}
        child = clone_stream(getattr(self, "random_state", None))  # spawned from the original
        if child is not None:
            params["random_state"] = child
        return type(self)(**params)

    def __sklearn_tags__(self):
        """scikit-learn's tags, which its meta-estimators read (``GridSearchCV(n_jobs=2)`` refused
        the generators before any fit without them, hunt DH2): fitted on a table with optional
        labels; not a classifier, regressor or transformer; fresh noise at every fit without a
        seed."""
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    non_deterministic=getattr(self, "random_state", None) is None,
                    input_tags=InputTags(categorical=True, string=True))

    def __repr__(self) -> str:
        defaults = {k: v.default
                    for k, v in inspect.signature(type(self).__init__).parameters.items()}
        changed = [f"{k}={v!r}" for k, v in self.get_params().items()
                   if not (v is defaults[k] or (type(v) is type(defaults[k]) and v == defaults[k]))]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __getstate__(self) -> dict:
        """Pickle/deepcopy state without a Generator ``random_state`` (it would replay the fit),
        carrying an open ``with`` block's keeper (:func:`matrixdp._budget.carry_block_keeper`)."""
        from .._budget import carry_block_keeper

        return carry_block_keeper(without_generators(self.__dict__))


def check_schema_budget(model) -> tuple[float, float]:
    """``(epsilon, delta)`` of a generator built on a public :class:`~.schema.TableSchema`
    (DPCopula, DPTreeCopula), checked at fit time with its ``schema``."""
    if not isinstance(model.schema, TableSchema):
        raise InvalidParameterError("schema", "must be a TableSchema (public bounds and categories)")
    return check_epsilon(model.epsilon, "epsilon"), check_delta(model.delta, "delta")
