"""L1-penalised online selection: grafting (paper 004) and BP-SFS (paper 003)."""
from .bpsfs import BPSFS, BayesLambdaRule, bayes_lambda, rule1_threshold
from .engine import L1Model
from .grafting import Grafting, PenalisedSearchResult

__all__ = ["BPSFS", "BayesLambdaRule", "Grafting", "L1Model", "PenalisedSearchResult", "bayes_lambda", "rule1_threshold"]
