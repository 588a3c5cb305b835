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


#: characters a ``\label`` key may hold here (LaTeX reads others as commands, groups or comments)
_LABEL = re.compile(r"[A-Za-z0-9:._/+-]+")


def check_label(label: str | None) -> str | None:
    """``label`` if it can be a LaTeX ``\\label`` key as written, else ValueError.

    Examples
    --------
    >>> from streamreg.results.latex import check_label
    >>> check_label("tab:wdbc-fits")
    'tab:wdbc-fits'
    """
    if label is None:
        return None
    if not isinstance(label, str) or not _LABEL.fullmatch(label):
        raise ValueError(f"label must be a LaTeX label key of letters, digits and : . _ / + - (e.g. 'tab:fits'), "
                         f"got {label!r}")
    return label


def latex_float(body: str, *, caption: str | None = None, label: str | None = None,
                notes: list[str] | None = None) -> str:
    """A ``table`` float: caption and label above ``body``, notes below it as wide as it.

    With notes, the body is set in a box first so that the notes can be wrapped to its width
    in a minipage: they never widen the table nor run past it (as threeparttable does, in
    standard LaTeX).

    Parameters
    ----------
    body : str
        LaTeX source of what the float holds: one tabular when there are notes (it is set in
        a box, left to right), anything that goes in a float otherwise.
    caption : str, optional
        Plain text; escaped here.
    label : str, optional
        A ``\\label`` key (see :func:`check_label`).
    notes : list of str, optional
        Plain text, one paragraph each; escaped here.

    Returns
    -------
    str

    Examples
    --------
    >>> from streamreg.results.latex import latex_float
    >>> print(latex_float("\\\\begin{tabular}{l} x \\\\end{tabular}", caption="A & B", label="tab:x"))
    \\begin{table}[htbp]
    \\centering
    \\caption{A \\& B}
    \\label{tab:x}
    \\begin{tabular}{l} x \\end{tabular}
    \\end{table}
    """
    head = ["\\begin{table}[htbp]", "\\centering"]
    if caption:
        head.append(f"\\caption{{{latex_escape(caption)}}}")
    if label:
        head.append(f"\\label{{{check_label(label)}}}")
    if not notes:
        return "\n".join([*head, body, "\\end{table}"])
    # a save box allocated once per document (LaTeX's allocations are global and not \outer)
    box = "\\streamregtablebox"
    return "\n".join([
        *head,
        f"\\ifdefined{box}\\else\\newsavebox{{{box}}}\\fi",
        f"\\begin{{lrbox}}{{{box}}}",
        body,
        "\\end{lrbox}",
        f"\\begin{{minipage}}{{\\wd{box}}}",
        f"\\usebox{{{box}}}\\par",
        "\\smallskip",
        latex_notes(notes),
        "\\end{minipage}",
        "\\end{table}",
    ])


def latex_notes(notes: list[str]) -> str:
    """Notes as small, left-aligned paragraphs (escaped), in a group of their own.

    Examples
    --------
    >>> from streamreg.results.latex import latex_notes
    >>> print(latex_notes(["p <= 0.05.", "50% of it."]))
    {\\raggedright\\footnotesize
    p \\ensuremath{\\leq} 0.05.
    <BLANKLINE>
    50\\% of it.\\par}
    """
    return "{\\raggedright\\footnotesize\n" + "\n\n".join(latex_escape(note) for note in notes) + "\\par}"
