"""Text that LaTeX prints as written: escaping for the tables and notes streamreg writes.

statsmodels escapes ``_``, ``%``, ``&``, ``#``, ``$``, ``>`` and ``|`` but not the rest, and
with one ``str.replace`` per character, so escapes cannot be added to its list (a later
replacement would rewrite an earlier one's backslash).  Here every cell is escaped in one
pass and the tables are rendered with statsmodels' replacements switched off.

Two characters break a table silently rather than loudly: a ``*`` or ``[`` at the start of
a row follows the previous row's ``\\\\`` and is read as ``\\\\*`` (a starred row end) or as
``\\\\[<length>]``; they are braced.  ``<`` and ``>`` print as inverted exclamation and question
marks in LaTeX's default font encoding, so they, ``<=`` and ``>=`` become math symbols,
written with ``\\ensuremath`` so that no ``$`` is emitted (statsmodels rewrites ``$$``).
"""
from __future__ import annotations

import copy
import re

from statsmodels.iolib.table import SimpleTable

_LATEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "#": r"\#",
    "$": r"\$",
    "%": r"\%",
    "&": r"\&",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "*": "{*}",
    "[": "{[}",
    "]": "{]}",
    "<=": r"\ensuremath{\leq}",
    ">=": r"\ensuremath{\geq}",
    "<": r"\ensuremath{<}",
    ">": r"\ensuremath{>}",
    "|": r"\ensuremath{|}",
    "\u2264": r"\ensuremath{\leq}",
    "\u2265": r"\ensuremath{\geq}",
    "\u00d7": r"\ensuremath{\times}",
    "\u00b1": r"\ensuremath{\pm}",
    "\u2212": "-",
    "\u2013": "--",
    "\u2014": "---",
    "\u2026": r"\ldots{}",
}
# two-character keys first, so "<=" wins over "<"
_PATTERN = re.compile("|".join(re.escape(k) for k in sorted(_LATEX, key=len, reverse=True)))


def latex_escape(text: str) -> str:
    """``text`` as LaTeX source that prints it unchanged (in any column of a tabular).

    Parameters
    ----------
    text : str
        Plain text.

    Returns
    -------
    str
        The escaped text; it emits no ``$``.

    Examples
    --------
    >>> from streamreg.results.latex import latex_escape
    >>> print(latex_escape("*_se, *_worst"))
    {*}\\_se, {*}\\_worst
    >>> print(latex_escape("FDR <= 5% & more"))
    FDR \\ensuremath{\\leq} 5\\% \\& more
    """
    return _PATTERN.sub(lambda m: _LATEX[m.group(0)], str(text))


def latex_tabular(table: SimpleTable, *, center: bool = True) -> str:
    """A statsmodels ``SimpleTable`` as a booktabs tabular with every cell escaped once.

    The table itself is not modified (its text and HTML output stay as they were).

    Parameters
    ----------
    table : SimpleTable
        Any statsmodels table (a summary's, or one built by streamreg).
    center : bool, default True
        Wrap the tabular in a ``center`` environment.

    Returns
    -------
    str
        LaTeX source; needs ``\\usepackage{booktabs}``.

    Examples
    --------
    >>> from statsmodels.iolib.table import SimpleTable
    >>> from streamreg.results.latex import latex_tabular
    >>> print(latex_tabular(SimpleTable([["*_se", "p <= 0.05"]]), center=False))
    \\begin{tabular}{cc}
    \\toprule
    {*}\\_se & p \\ensuremath{\\leq} 0.05  \\\\
    \\bottomrule
    \\end{tabular}
    """
    escaped = copy.deepcopy(table)
    for row in escaped:
        for cell in row:
            if isinstance(cell.data, str):
                cell.data = latex_escape(cell.data)
    if escaped.title:
        escaped.title = latex_escape(escaped.title)
    return escaped.as_latex_tabular(center=center, replacements={})


def note_paragraphs(text: str) -> list[str]:
    """statsmodels' notes text split into paragraphs: one per ``Notes:`` or ``[n]`` line.

    statsmodels breaks long notes with newlines; continuation lines are joined back.

    Examples
    --------
    >>> from streamreg.results.latex import note_paragraphs
    >>> note_paragraphs("Notes:\\n[1] Standard Errors assume\\nthat ...\\n[2] Big.")
    ['Notes:', '[1] Standard Errors assume that ...', '[2] Big.']
    """
    paragraphs: list[str] = []
    for line in str(text).splitlines():
        line = line.strip()
        if not line:
            continue
        if paragraphs and not re.match(r"(Notes?:|\[\d+\])", line):
            paragraphs[-1] += " " + line
        else:
            paragraphs.append(line)
    return paragraphs
