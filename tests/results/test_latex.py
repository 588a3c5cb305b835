"""LaTeX that compiles and prints what the text shows (issue 14, item 8).

``summary().as_latex()`` escapes every cell once (``*``, ``_``, ``%``, ``&``, ``<=``, ...),
keeps each table its own booktabs tabular and prints the notes as paragraphs.  When
``pdflatex`` is installed (Debian ``texlive-latex-base`` and ``texlive-latex-recommended``
for booktabs) the output is compiled; when ``pdftotext`` is too (``poppler-utils``) the
printed text is read back.
"""
from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.results.latex import latex_escape, note_paragraphs

SPECIALS = r"a*b _c %d &e #f $g {h} ~i ^j \k [l] <m >n <= >= |o"


@pytest.fixture(scope="module")
def wdbc_fit():
    df = sr.datasets.load("wdbc").data
    return sr.streamreg("diagnosis ~ stream(*_mean) + stream(*_se, *_worst)", df, family="binomial",
                        passes=3, **ONE_PHASE)


@pytest.fixture(scope="module")
def ols_fit():
    rng = np.random.default_rng(3)
    x = pd.DataFrame(rng.normal(size=(80, 6)) * [1, 1, 1, 1, 1, 1e4], columns=[f"x{i}" for i in range(6)])
    x["y"] = 1 + 2 * x["x0"] + rng.normal(size=80)
    return sr.streamreg("y ~ x5 + stream(x*)", x)


#: TeX engines tried in turn; tectonic fetches packages itself, the others need a TeX installation
ENGINES = (("pdflatex", ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"]),
           ("lualatex", ["lualatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"]),
           ("xelatex", ["xelatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"]),
           ("tectonic", ["tectonic", "--keep-logs", "doc.tex"]))


def compile_latex(body: str, tmp_path) -> str | None:
    """Compile ``body`` in an article with booktabs; the PDF's text (None without pdftotext).

    Skips when no TeX engine is installed (Debian: texlive-latex-base and
    texlive-latex-recommended for booktabs; or tectonic).
    """
    engine = next((cmd for name, cmd in ENGINES if shutil.which(name)), None)
    if engine is None:
        pytest.skip("no TeX engine (pdflatex, lualatex, xelatex or tectonic) is installed: the LaTeX output "
                    "was not compiled (Debian: apt-get install texlive-latex-base texlive-latex-recommended)")
    doc = "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage[margin=1cm]{geometry}\n" \
          "\\begin{document}\n" + body + "\n\\end{document}\n"
    (tmp_path / "doc.tex").write_text(doc)
    run = subprocess.run(engine, check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    log_file = tmp_path / "doc.log"
    log = log_file.read_text(errors="replace") if log_file.exists() else run.stdout + run.stderr
    assert run.returncode == 0, log[-3000:]
    assert "! " not in log and "Missing character" not in log
    if shutil.which("pdftotext") is None:
        return None
    return subprocess.run(["pdftotext", "-layout", str(tmp_path / "doc.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout


def test_escape_maps_every_special_character():
    assert latex_escape(SPECIALS) == (
        r"a{*}b \_c \%d \&e \#f \$g \{h\} \textasciitilde{}i \textasciicircum{}j \textbackslash{}k {[}l{]} "
        r"\ensuremath{<}m \ensuremath{>}n \ensuremath{\leq} \ensuremath{\geq} \ensuremath{|}o")
    assert latex_escape("plain text 1.5e-10") == "plain text 1.5e-10"
    assert "$$" not in latex_escape("$$<") and latex_escape("$<") == r"\$\ensuremath{<}"


def test_escaped_cells_compile_at_the_start_of_rows(tmp_path):
    # "*" or "[" right after a row's \\ would be read as \\* or \\[...]
    rows = ["*_se, *_worst", "[T.x] & 5%", SPECIALS, "p <= 0.05"]
    body = "\\begin{tabular}{l}\n" + "\n".join(latex_escape(r) + " \\\\" for r in rows) + "\n\\end{tabular}"
    text = compile_latex(body, tmp_path)
    if text is not None:
        assert re.search(r"\*\W*se, \*\W*worst", text)
        assert "[T.x] & 5%" in text and "≤ 0.05" in text
        assert "¡" not in text and "¿" not in text  # < and > of the OT1 encoding


def test_summary_latex_escapes_stream_names_and_relations(wdbc_fit):
    tex = wdbc_fit.summary().as_latex()
    assert r"{*}\_se, {*}\_worst" in tex and r"{*}\_mean" in tex
    assert r"\ensuremath{\leq} 0.05" in tex
    assert "<=" not in tex and not re.search(r"\\\\\s*\*", tex)
    assert "$$" not in tex
    # booktabs, one tabular per table (header, selection facts, streams, coefficients)
    assert tex.count(r"\begin{tabular}") == tex.count(r"\toprule") == 4
    # the text output is untouched by the escaping
    text = wdbc_fit.summary().as_text()
    assert "*_se, *_worst" in text and "<= 0.05" in text


def test_summary_notes_are_paragraphs(wdbc_fit):
    tex = wdbc_fit.summary().as_latex()
    paragraphs = tex.split("\n\n")
    coef_note = [p for p in paragraphs if p.startswith("Coefficient p-values below come from refitting")]
    assert len(coef_note) == 1 and "\\\\" not in coef_note[0] and "\n" not in coef_note[0]
    assert any(p.startswith(r"mFDR = E{[}V{]}/(E{[}R{]} + 1) \ensuremath{\leq} 0.05") for p in paragraphs)


def test_statsmodels_notes_become_paragraphs(ols_fit):
    smry = ols_fit.summary()
    assert smry.extra_txt  # statsmodels' notes on least squares (and a large condition number)
    tex = smry.as_latex()
    for note in note_paragraphs(smry.extra_txt):
        assert latex_escape(note) in tex.split("\n\n")
    assert r"{[}1{]} Standard Errors assume" in tex


def test_note_paragraphs_joins_wrapped_lines():
    text = "Notes:\n[1] Standard Errors assume that the\ncovariance matrix is right.\n[2] The condition number is large."
    assert note_paragraphs(text) == ["Notes:", "[1] Standard Errors assume that the covariance matrix is right.",
                                     "[2] The condition number is large."]


def test_summary_latex_compiles_and_prints_the_names(wdbc_fit, ols_fit, tmp_path):
    text = compile_latex(wdbc_fit.summary().as_latex() + "\n\n" + ols_fit.summary().as_latex(), tmp_path)
    if text is not None:
        assert re.search(r"\*\W*se, \*\W*worst", text)  # the first "*" is not eaten by the row end
        assert "≤ 0.05" in text and "¡" not in text
        assert "P(diagnosis = ’M’)" in text or "P(diagnosis = 'M')" in text
