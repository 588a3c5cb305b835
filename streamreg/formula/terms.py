"""Selected terms as formula terms: the right-hand side of the refit.

The search layer reports what it selected as data (:class:`~streamreg.streams.base.AcceptedTerm`,
with an RBF term's basis columns as :class:`~streamreg.search.penalised.basis.ColumnSpec`);
writing them as patsy terms is the formula layer's job, done here, so that the refit and
``predict(newdata)`` rebuild every selected column from the data columns.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the formula layer needs no search module at run time
    from ..search.penalised.basis import ColumnSpec
    from ..streams.base import AcceptedTerm


def rbf_term(term: str, spec: ColumnSpec) -> str:
    """One radial basis column of the formula term ``term`` as a patsy term.

    ``exp(-(((x - mean) / sd - centre) / width) ** 2)``, with the training mean, sd, centre
    and width written out at full precision (``repr``), so new rows are mapped exactly as
    the training rows were.

    Parameters
    ----------
    term : str
        The selected feature as a formula term (``x1``, ``np.log(x2)``).
    spec : ColumnSpec
        The basis column (``spec.is_rbf`` must hold: a linear term is refit whole).

    Returns
    -------
    str

    Examples
    --------
    >>> from streamreg.search.penalised.basis import ColumnSpec
    >>> rbf_term("x1", ColumnSpec(term=0, source=0, mean=0.5, sd=2.0, centre=-1.25, width=0.3))
    'I(np.exp(-((((x1) - 0.5) / 2.0 - -1.25) / 0.3) ** 2))'
    """
    if not spec.is_rbf:
        raise ValueError("only radial basis columns need a term of their own; a linear term is refit whole")
    return (f"I(np.exp(-(((({term}) - {spec.mean!r}) / {spec.sd!r} - {spec.centre!r}) "
            f"/ {spec.width!r}) ** 2))")


def term_formulas(term: AcceptedTerm) -> list[str]:
    """The patsy terms that refit one selected term.

    A term is refit whole by its formula name, except an RBF-grafted feature, which enters
    as its active basis columns (``term.extra["basis"]``, see :func:`rbf_term`).

    Parameters
    ----------
    term : AcceptedTerm
        A term the search selected.

    Returns
    -------
    list of str
    """
    basis = term.extra.get("basis")
    if not basis:
        return [term.name]
    return [rbf_term(term.name, spec) for spec in basis]


def selected_rhs(fixed: str, accepted: Iterable[AcceptedTerm]) -> str:
    """The refit's right-hand side: the fixed terms, then the selected terms in order.

    Parameters
    ----------
    fixed : str
        The fixed terms as patsy reads them (``"1"`` for the intercept alone).
    accepted : iterable of AcceptedTerm
        The selected terms, in the order of selection.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.streams.base import AcceptedTerm
    >>> picked = [AcceptedTerm("x3", "x*", np.zeros((2, 1)), ["x3"]),
    ...           AcceptedTerm("C(g)", "g", np.zeros((2, 2)), ["C(g)[T.b]", "C(g)[T.c]"])]
    >>> selected_rhs("1 + age", picked)
    '1 + age + x3 + C(g)'
    """
    return " + ".join([fixed] + [f for t in accepted for f in term_formulas(t)])
