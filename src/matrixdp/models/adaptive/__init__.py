"""Adaptive covariance: a private first look decides between the box and a shrunk ellipsoid.

CoinPress (:mod:`matrixdp.models.coinpress`) wins when the records fill a small part of their
public box and loses when they do not; which case holds depends on the private data, so it cannot
be decided from public facts. Here the decision is itself part of the DP release: a first Gaussian
release (the one-shot ``noise="auto"`` release at a quarter of the budget) and a private
histogram of record counts (how far beyond the whitened ball of a CoinPress step the records lie,
in bins of the loss they would lose) give both candidates' expected error, and the rest of the
budget goes either to a second moments release (averaged with the first one, which loses nothing
under exact GDP composition) or to a CoinPress whitened step. The counts have sensitivity ``√2``
whatever the box, so the decision's noise does not grow with the box (the clipping-loss scalar of
the first version, ``decision="clipping-loss"``, had sensitivity the box's reach over ``n``). For
PCA (``kind="pca"``) the two branches are ranked by their expected captured-variance deficit of
the top-q subspace (``ranking="pca-loss"``), not by the covariance's Frobenius error. The math is
in ``docs/coinpress.md`` (sections "Adaptive" and "Adaptive (PCA)").

The package, one job per module (``docs/coinpress.md`` cites the functions by these paths):

- :mod:`.options`: :class:`AdaptiveOptions`, the research knobs in one validated object;
- :mod:`.counts`: the clipping-loss histogram of the first look and its reading ``b̂``;
- :mod:`.losses`: the Frobenius and correlation rankings' predicted losses and medians (pure);
- :mod:`.frame`: the PCA-loss ranking's eigen-frame, gaps and pair noise variances (pure);
- :mod:`.pca_losses`: the PCA-loss ranking's predicted deficits and bias models (pure);
- :mod:`.steps`: the refined and checked whitened steps (tasks HC, HR; opt-in);
- :mod:`.release`: :func:`adaptive_covariance` and :class:`AdaptiveResult`, the orchestration.

The names below are re-exported so that ``from matrixdp.models.adaptive import X`` keeps working.
A function the release calls is looked up in the module that calls it (e.g.
``matrixdp.models.adaptive.release.read_counts``), not here.
"""

from __future__ import annotations

# names the single module carried before the split, read as ``adaptive.<name>`` by committed
# experiment scripts (the originals they restore after a spy)
from ...feasible import project_feasible  # noqa: F401
from ..coinpress import (first_noise_scale, gdp_release, unwhiten,  # noqa: F401
                         whitened_release, whitening)
from .counts import (BIN_RATIO, COUNT_Z, DECISION_Z, FIRST_EDGE, READINGS, capped_level,
                     clipping_loss_bins, clipping_loss_counts, clipping_losses, read_counts)
from .losses import (coinpress_noise_loss, coinpress_noise_variance, correlation_coinpress_loss,
                     correlation_moments_loss, correlation_scale, median_threshold, moments_loss,
                     moments_loss_variance, satterthwaite_median)
from .options import (AdaptiveOptions, BIAS_SHARE, DECISIONS, FIRST_MIX, FIRST_SHARE, NOISE_PAIRS,
                      PCA_GAPS, PCA_UNRESOLVED, GAP_INFLATIONS, STEP_MARGINS)
from .frame import (RESOLVE_Z, SHARE_Z, BOOT_DRAWS, BOOT_SEED, coinpress_pair_variance,
                    moments_pair_variance, pca_frame, pca_frame_resolution,
                    projected_gap_inflation, unresolved_share, first_look_noise_level,
                    noise_level_margin)
from .pca_losses import (DIAGONAL_NODES, GUARD_ARGMAX, pca_bias_model, pca_bias_one_record,
                         pca_deficit, pca_deficit_diagonal, pca_deficit_normalised,
                         resolution_guard_loss)
from .release import (AdaptiveResult, BIASES, FIRST_KINDS, FRAME_PROJECTIONS, LOSS_STATISTICS,
                      ONE_RECORD, RANKINGS, REFINES, adaptive_covariance)
from .steps import CHECK_SHARE, REFINE_SHARE, checked_step, refine_prediction, refined_step

__all__ = ["AdaptiveOptions", "AdaptiveResult", "adaptive_covariance", "clipping_loss_bins",
           "clipping_loss_counts", "clipping_losses", "coinpress_pair_variance", "moments_loss",
           "moments_pair_variance", "pca_deficit", "pca_frame", "read_counts", "capped_level",
           "FIRST_SHARE", "BIAS_SHARE", "BIN_RATIO", "COUNT_Z", "DECISION_Z", "DECISIONS",
           "READINGS", "RANKINGS", "RESOLVE_Z", "FRAME_PROJECTIONS", "BIASES", "SHARE_Z",
           "unresolved_share", "pca_bias_model", "pca_bias_one_record", "ONE_RECORD",
           "pca_deficit_diagonal", "pca_deficit_normalised", "NOISE_PAIRS", "DIAGONAL_NODES",
           "resolution_guard_loss", "GUARD_ARGMAX", "correlation_moments_loss",
           "correlation_coinpress_loss", "correlation_scale", "LOSS_STATISTICS",
           "satterthwaite_median", "moments_loss_variance", "coinpress_noise_variance",
           "median_threshold", "checked_step", "CHECK_SHARE", "REFINES", "REFINE_SHARE",
           "FIRST_EDGE", "PCA_GAPS", "PCA_UNRESOLVED", "FIRST_KINDS", "FIRST_MIX",
           "refine_prediction", "refined_step", "pca_frame_resolution", "coinpress_noise_loss",
           "GAP_INFLATIONS", "BOOT_DRAWS", "BOOT_SEED", "projected_gap_inflation", "STEP_MARGINS",
           "first_look_noise_level", "noise_level_margin"]
