"""Paper tables (issue 28, item 6): modelsummary's controls on ``compare()`` and LaTeX that compiles.

``coef_map`` and ``gof_map`` follow modelsummary's documented semantics; the cases mirror
its own tests (``inst/tinytest/test-coef_map.R``: rename, reorder and drop, rows of different
models merged under one label, "At least one of the term names in each model must appear in
`coef_map`", and an error when two terms of one model get the same label), on data of the
same shape as mtcars' ``am``, ``drat`` and ``qsec``.  The numbers in the kept rows are checked
against the statsmodels fits.  LaTeX is compiled when a TeX engine is installed
(see ``test_latex.compile_latex``; the test skips, saying why, when none is).
"""
from __future__ import annotations

import re
import subprocess
import textwrap
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from one_phase import ONE_PHASE
from test_latex import compile_latex

import streamreg as sr


@pytest.fixture(scope="module")
def cars():
    """An lm of am on drat and a logit of am on qsec, as in modelsummary's coef_map tests."""
    rng = np.random.default_rng(28)
    df = pd.DataFrame({"drat": rng.normal(3.6, 0.5, 60), "qsec": rng.normal(17.8, 1.8, 60)})
    df["am"] = (rng.random(60) < 1 / (1 + np.exp(-(2 * (df["drat"] - 3.6) - 0.5 * (df["qsec"] - 17.8))))) * 1.0
    return {"OLS": smf.ols("am ~ drat", df).fit(),
            "Logit": smf.glm("am ~ qsec", df, family=sm.families.Binomial()).fit()}


@pytest.fixture(scope="module")
def gaussian_fit():
    df = sr.datasets.make_synthetic(120, 6, 2, noise=1.0, seed=3).data
    return sr.streamreg("y ~ stream(x*)", df, passes=3, **ONE_PHASE)


@pytest.fixture(scope="module")
def wdbc_fits():
    df = sr.datasets.load("wdbc").data
    f = "diagnosis ~ stream(*_mean) + stream(*_se, *_worst)"
    return {m: sr.streamreg(f, df, family="binomial", method=m) for m in ["alpha-investing", "stepwise-bic"]}


def _terms(table):
    frame = table.to_frame()
    return [term for part, term, stat in frame.index if part == "coefficients" and stat == "estimate"]


# -- coef_map: modelsummary's semantics -------------------------------------------------------

def test_coef_map_merges_terms_of_different_fits(cars):
    # modelsummary: c("(Intercept)" = "Constant", "drat" = "Combined", "qsec" = "Combined")
    table = sr.compare(cars, coef_map={"Intercept": "Constant", "drat": "Combined", "qsec": "Combined"})
    assert _terms(table) == ["Constant", "Combined"]
    assert table.params.at["Combined", "OLS"] == pytest.approx(cars["OLS"].params["drat"], rel=1e-14)
    assert table.params.at["Combined", "Logit"] == pytest.approx(cars["Logit"].params["qsec"], rel=1e-14)
    assert table.bse.at["Constant", "Logit"] == pytest.approx(cars["Logit"].bse["Intercept"], rel=1e-14)
    assert table.pvalues.at["Combined", "OLS"] == pytest.approx(cars["OLS"].pvalues["drat"], rel=1e-14)


def test_coef_map_reorders_and_omits(cars):
    # modelsummary: c("qsec" = "qsec", "drat" = "drat") gives qsec, drat and no intercept
    table = sr.compare(cars, coef_map={"qsec": "qsec", "drat": "drat"})
    assert _terms(table) == ["qsec", "drat"] and list(table.params.index) == ["qsec", "drat"]
    # an unnamed vector (here a list) keeps the same rows as the dict naming each term after itself
    assert sr.compare(cars, coef_map=["qsec", "drat"]).to_frame().equals(table.to_frame())


def test_coef_map_intervals_follow_the_labels(cars):
    table = sr.compare(cars, coef_map={"drat": "Rear axle", "Intercept": "Constant"}, statistic="conf_int")
    ci = cars["OLS"].conf_int(alpha=0.05).loc["drat"]
    assert table.to_frame().loc[("coefficients", "Rear axle", "conf_int"), "OLS"] == f"[{ci[0]:.4f}, {ci[1]:.4f}]"
    assert table.to_frame().loc[("coefficients", "Rear axle", "conf_int"), "Logit"] == ""


def test_coef_map_on_streamreg_fits(wdbc_fits):
    first = wdbc_fits["alpha-investing"].selected_terms[0]
    table = sr.compare(wdbc_fits, coef_map={first: "First in", "Intercept": "Constant"})
    assert list(table.params.index) == ["First in", "Constant"]
    for name, fit in wdbc_fits.items():
        expected = fit.params.get(first, np.nan)
        got = table.params.at["First in", name]
        assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected, rel=1e-14)


def test_coef_map_bad_input(cars):
    with pytest.raises(ValueError, match="none of the terms of fit Logit is in coef_map"):
        sr.compare(cars, coef_map={"drat": "Rear axle"})
    with pytest.raises(ValueError, match=r"gives terms \['Intercept', 'drat'\] of fit OLS the same label 'x'"):
        sr.compare(cars, coef_map={"Intercept": "x", "drat": "x", "qsec": "q"})
    with pytest.raises(TypeError, match="not a single string"):
        sr.compare(cars, coef_map="drat")
    with pytest.raises(TypeError, match="must map strings to strings; got 'drat': 1"):
        sr.compare(cars, coef_map={"drat": 1})
    with pytest.raises(TypeError, match="got int"):
        sr.compare(cars, coef_map=3)
    with pytest.raises(ValueError, match="coef_map is empty"):
        sr.compare(cars, coef_map={})
    with pytest.raises(ValueError, match="names 'drat' more than once"):
        sr.compare(cars, coef_map=["drat", "qsec", "drat"])
    # a name no fit has: ignored, as modelsummary does, but said (a typo is the likely cause)
    with pytest.warns(UserWarning, match=r"coef_map names terms no fit has, left out: \['dratt'\]"):
        table = sr.compare(cars, coef_map=["dratt", "drat", "qsec"])
    assert _terms(table) == ["drat", "qsec"]
    mapping = {"drat": "D", "qsec": "Q"}
    sr.compare(cars, coef_map=mapping)
    assert mapping == {"drat": "D", "qsec": "Q"}  # nothing the user passed is modified


# -- gof_map ------------------------------------------------------------------------------------

def test_gof_map_picks_renames_and_orders(wdbc_fits):
    full = sr.compare(wdbc_fits)
    table = sr.compare(wdbc_fits, gof_map={"nobs": "N", "Selected": "Terms selected", "bic": "BIC",
                                           "r.squared": "R2"})
    below = [(part, term) for part, term, _ in table.to_frame().index if part != "coefficients"]
    # R-squared: no binomial fit has it, so the row is left out (as modelsummary leaves it out)
    assert below == [("statistics", "N"), ("selection", "Terms selected"), ("statistics", "BIC")]
    assert list(table.statistics.index) == ["N", "BIC"]
    pd.testing.assert_series_equal(table.statistics.loc["BIC"], full.statistics.loc["BIC"], check_names=False)
    assert table.selection.loc["Terms selected"].tolist() == full.selection.loc["Selected"].tolist()
    assert table.to_frame().loc[("statistics", "N", ""), "stepwise-bic"] == "569"
    # one block below the coefficients, in gof_map's order: one rule under the header, one above N
    lines = table.as_text().splitlines()
    assert sum(1 for line in lines if set(line) == {"-"}) == 2
    # the guarantee note goes with its row
    assert any(n.startswith("Guarantee:") for n in full.notes)
    assert not any("Guarantee:" in n for n in table.notes)
    assert any(n.startswith("Terms: the error rate") for n in sr.compare(wdbc_fits, gof_map={"Guarantee": "Terms"}).notes)


def test_gof_map_list_and_none(cars):
    table = sr.compare(cars, gof_map=["AIC", "Observations"])
    assert list(table.statistics.index) == ["AIC", "Observations"] and table.selection.empty
    assert table.statistics.at["AIC", "OLS"] == pytest.approx(cars["OLS"].aic + 2, rel=1e-12)  # R's AIC()
    empty = sr.compare(cars, gof_map=[])
    assert set(empty.to_frame().index.get_level_values("part")) == {"coefficients"}
    # the note on whose AIC and BIC the table shows goes with those rows
    assert any(n.startswith("Log-likelihood, AIC and BIC") for n in table.notes)
    assert not any(n.startswith("Log-likelihood, AIC and BIC") for n in empty.notes)


def test_gof_map_bad_input(cars):
    with pytest.raises(ValueError, match=r"gof_map names 'adj.r.squared', which is not a row of the table; the "
                                         r"rows are Method, Tested"):
        sr.compare(cars, gof_map=["adj.r.squared"])
    with pytest.raises(ValueError, match="names the row 'Observations' twice"):
        sr.compare(cars, gof_map=["nobs", "Observations"])
    with pytest.raises(ValueError, match="gives two rows the label 'x'"):
        sr.compare(cars, gof_map={"AIC": "x", "BIC": "x"})
    with pytest.raises(TypeError, match="gof_map must be a dict of names to labels or a list of names, not a single"):
        sr.compare(cars, gof_map="AIC")


# -- caption, label, notes ------------------------------------------------------------------

def test_caption_label_and_notes(cars):
    table = sr.compare(cars, title="Cars & gears", label="tab:cars", notes="Data: simulated 100% <= real.")
    tex = table.as_latex()
    assert tex.startswith("\\begin{table}[htbp]\n\\centering\n\\caption{Cars \\& gears}\n\\label{tab:cars}\n")
    assert "Data: simulated 100\\% \\ensuremath{\\leq} real." in tex
    assert table.notes[-1] == "Data: simulated 100% <= real."
    html = table.as_html()
    assert "<caption>Cars &amp; gears</caption>" in html
    footer = html[html.index("<tfoot>"):html.index("</tfoot>")]
    assert footer.count("<tr>") == len(table.notes) and 'colspan="3"' in footer
    assert "Data: simulated 100% &lt;= real." in footer and html.rstrip().endswith("</table>")
    with pytest.raises(ValueError, match="label must be a LaTeX label key"):
        sr.compare(cars, label="tab:{x}")
    with pytest.raises(TypeError, match="notes must be a string or a list of strings"):
        sr.compare(cars, notes=[1])
    with pytest.raises(TypeError, match="title must be a string"):
        sr.compare(cars, title=3)


def test_text_notes_wrap_to_the_table(wdbc_fits, cars):
    for table in (sr.compare(wdbc_fits, notes="x " * 200), sr.compare(cars, notes="y " * 200)):
        text = table.as_text()
        body = text.split("\n" + table.notes[0][:20])[0].splitlines()
        width = max(len(line) for line in body)
        notes = text.splitlines()[len(body):]
        assert notes and max(len(line) for line in notes) <= max(width, 40)
        assert "\n".join(notes) == "\n".join(line for note in table.notes
                                             for line in textwrap.wrap(note, width=max(width, 40)))


# -- LaTeX that compiles ---------------------------------------------------------------------

def test_summary2_latex_escapes_every_cell(gaussian_fit, wdbc_fits):
    tex = gaussian_fit.summary2().as_latex()
    assert "t\\textasciicircum{}2" in tex and "t^2" not in tex
    assert "<=" not in tex and "\\ensuremath{\\leq}" in tex and "$" not in tex
    wdbc = wdbc_fits["alpha-investing"].summary2().as_latex(label="tab:wdbc")
    assert "{*}\\_se, {*}\\_worst" in wdbc and not re.search(r"\\\\\s*\*", wdbc)
    assert "\\label{tab:wdbc}" in wdbc and "\\label{}" not in gaussian_fit.summary2().as_latex()
    with pytest.raises(ValueError, match="label must be a LaTeX label key"):
        gaussian_fit.summary2().as_latex(label="a b")
    # the text output keeps the characters as they are
    assert "t^2" in gaussian_fit.summary2().as_text()


def test_summary2_and_compare_latex_compile(gaussian_fit, wdbc_fits, cars, tmp_path):
    paper = sr.compare({**wdbc_fits, "a & b": wdbc_fits["stepwise-bic"]},
                       coef_map={"Intercept": "Constant", "radius_worst": "Radius_worst (mm^2)"},
                       gof_map={"Selected": "Terms <= 10", "nobs": "N"}, stars=True, title="Fits: 50% * 2",
                       label="tab:wdbc", notes=["A note of the author's: #1 & ~2.", "x" * 30])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every name in the map is a term of some fit
        body = "\n\n\\clearpage\n\n".join([gaussian_fit.summary2().as_latex(label="tab:g"),
                            wdbc_fits["alpha-investing"].summary2().as_latex(),
                            wdbc_fits["stepwise-bic"].summary2().as_latex(),
                            paper.as_latex(), sr.compare(cars, title="Second table with notes").as_latex()])
    text = compile_latex(body, tmp_path)
    if text is not None:  # pdftotext reads \\_ as a space, ^ and ~ as accents
        text = text.replace("ˆ", "^").replace("˜", "~").replace("’", "'")
        assert "t^2" in text and "≤ 0.05" in text and "¡" not in text
        assert re.search(r"Radius.worst \(mm\^2\)", text) and "Terms ≤ 10" in text
        assert "A note of the author's: #1 & ~2." in text and "Fits: 50% * 2" in text


def test_latex_notes_wrap_to_the_tabular(cars, tmp_path):
    """The notes' words lie within the tabular's left and right edges in the PDF."""
    long = "A long note that would run far past the edges of a two-column table were it not wrapped. " * 3
    if compile_latex(sr.compare(cars, gof_map=["nobs"], notes=long).as_latex(), tmp_path) is None:
        pytest.skip("pdftotext (poppler-utils) is not installed: the PDF cannot be read back")
    bbox = subprocess.run(["pdftotext", "-bbox", str(tmp_path / "doc.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    words = [(float(x0), float(y0), float(x1), w) for x0, y0, x1, w in
             re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', bbox)]
    names = [w for *_, w in words]
    table = words[names.index("OLS"):names.index("Standard")]
    notes = words[names.index("Standard"):]
    # the tabular's box (its rules) reaches \\tabcolsep = 6pt beyond the outer cells' text
    left, right = min(w[0] for w in table) - 6.5, max(w[2] for w in table) + 6.5
    assert min(w[0] for w in notes) >= left and max(w[2] for w in notes) <= right
    assert max(w[2] for w in notes) > right - 40  # and they use that width (ragged right)
    assert len({round(w[1]) for w in notes}) >= 6  # the long note wrapped onto several lines
