"""HTML output with every name and note escaped.

statsmodels writes table cells and notes into HTML as they are, so a column named
``<script>...</script>`` would run in a browser.  These helpers escape copies of the
tables (the summaries themselves, and their text and LaTeX output, are unchanged).
"""
from __future__ import annotations

import copy
import html

from statsmodels.iolib.summary import summary_return
from statsmodels.iolib.summary2 import Summary as Summary2, _simple_tables
from statsmodels.iolib.table import SimpleTable


def escaped_table(table: SimpleTable) -> SimpleTable:
    """A copy of ``table`` whose text cells (stubs and headers included) and title are escaped."""
    out = copy.deepcopy(table)
    for row in out:
        for cell in row:
            if isinstance(cell.data, str):
                cell.data = html.escape(cell.data)
    if isinstance(out.title, str):
        out.title = html.escape(out.title)
    return out


def tables_html(tables: list[SimpleTable], extra_txt: str | None) -> str:
    """statsmodels' ``Summary.as_html`` of escaped tables and notes."""
    out = summary_return([escaped_table(t) for t in tables], return_fmt="html")
    if extra_txt is not None:
        out += "<br/><br/>" + html.escape(extra_txt).replace("\n", "<br/>")
    return str(out)


class SafeSummary2(Summary2):
    """statsmodels' ``summary2`` Summary whose HTML escapes every cell and note."""

    def as_html(self) -> str:
        tab = "\n".join(escaped_table(t).as_html() for t in _simple_tables(self.tables, self.settings))
        txt = "<br/>\n".join(html.escape(st).replace("\n", "<br/>\n") for st in self.extra_txt)
        return f"{tab}<br/>\n{txt}"
