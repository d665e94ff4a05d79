"""What several baseline mechanisms are given at construction rather than compute: the guarantee
they claim and a public neighbouring pair for the auditor (the JL sketch, Wishart, symmetric
noise and projector mechanisms)."""

from __future__ import annotations

from ..errors import InvalidParameterError
from ..mechanisms.base import PrivacyGuarantee

__all__ = ["GivenClaimMixin"]


class GivenClaimMixin:
    """``privacy``: the guarantee stored as ``_privacy`` at construction (public); :meth:`witnesses`:
    the public pair stored as ``_witness`` (or None). Put before ``Mechanism`` in the bases."""

    @property
    def privacy(self) -> PrivacyGuarantee:
        return self._privacy

    def witnesses(self) -> list:
        """The public neighbouring pair given at construction."""
        if self._witness is None:
            raise InvalidParameterError("witness", "this mechanism was built without a witness")
        return [self._witness]
