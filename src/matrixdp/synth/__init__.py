"""Differentially private synthetic data: RON-Gauss and its building blocks, DPCopula and DPTreeCopula."""

from .copula import DPCopula
from .covariance import (
    aug_cov_sensitivity,
    cov_sensitivity,
    cov_witness_pair,
    make_symmetric_psd,
    noisy_second_moment,
    sample_gaussian,
)
from .dfm import dfm_bound, dfm_max_dim
from .preprocessing import data_preprocessing, mean_sensitivity, normalize_rows
from .projection import ron_matrix
from .ron_gauss import RONGauss
from .schema import TableSchema
from .tree_copula import DPTreeCopula

__all__ = [
    "DPCopula",
    "DPTreeCopula",
    "RONGauss",
    "TableSchema",
    "aug_cov_sensitivity",
    "cov_sensitivity",
    "cov_witness_pair",
    "data_preprocessing",
    "dfm_bound",
    "dfm_max_dim",
    "make_symmetric_psd",
    "mean_sensitivity",
    "noisy_second_moment",
    "normalize_rows",
    "ron_matrix",
    "sample_gaussian",
]
