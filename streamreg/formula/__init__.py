"""The formula mini-language: ``y ~ fixed + stream(glob, ...)`` on top of patsy."""
from .design import Design, build_design, design_matrix, term_name
from .parse import FormulaError, parse_formula

__all__ = ["Design", "FormulaError", "build_design", "design_matrix", "parse_formula", "term_name"]
