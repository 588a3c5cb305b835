"""The selection block printed above the coefficient table.

Computing and formatting are separate, as with R's ``summary`` and its print method:
:func:`selection_facts` gathers the numbers, :func:`add_selection_block` lays them out in
a statsmodels ``Summary`` so text, HTML and LaTeX come for free.
"""
from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING

import numpy as np
from statsmodels.iolib.summary import Summary
from statsmodels.iolib.table import SimpleTable

from ..models.families import spec_of
from ..models.theta import ThetaEstimate
from .fit_checks import candidate_test_note, dispersion_note, stability_warnings
from .html_safe import tables_html
from .inference import inference_note
from .latex import latex_escape, latex_tabular, note_paragraphs

if TYPE_CHECKING:
    from .results import StreamRegResults


def selection_facts(res: StreamRegResults) -> list[tuple[str, str]]:
    """(label, value) pairs describing how the terms were chosen."""
    per = res.per_stream
    facts = [
        ("Selection method:", res.policy_description),
        ("Test:", res.test_description),
        ("Streams:", str(len(per))),
        _tested(res),
        ("Terms selected:", str(int(per["selected"].sum()))),
        ("Stopped by:", _STOPS.get(res.stopped_by, res.stopped_by)),
    ]
    if getattr(res, "history_mode", "full") == "none":
        kept = f"not kept (history='none'); only the {len(res.history)} selected and refused terms are recorded"
        facts.append(("History:", kept))
    status = res.history["status"].astype(str)
    for reason, label in (("refused: separation", "Refused (separation):"),
                          ("refused: IRLS", "Refused (no convergence):"),
                          ("refused: fitted means", "Refused (invalid means):")):
        count = int(status.str.startswith(reason).sum())
        if count:
            facts.append((label, f"{count} (see history)"))
    skipped = status[status.str.startswith("skipped")].str.removeprefix("skipped: ").value_counts()
    if len(skipped):
        why = ", ".join(f"{n} {_SKIP_WORDS.get(str(reason), str(reason))}" for reason, n in skipped.items())
        facts.append(("Skipped, not tested:", f"{int(skipped.sum())} ({why}; see history)"))
    if res.n_dropped:
        by = getattr(res, "missing_by_column", {})  # results pickled before it existed lack it
        shown = ", ".join(f"{c}: {k}" for c, k in list(by.items())[:4]) + (", ..." if len(by) > 4 else "")
        facts.append(("Rows dropped (NaN):", f"{res.n_dropped} ({shown})" if shown else str(res.n_dropped)))
    if res.success_level is not None and spec_of(res.family).response == "binary":
        facts.append(("Modelled:", f"P({res.response_name} = {res.success_level!r})"))
    return facts


#: why a search stopped, where the one word needs a sentence
_STOPS = {"separation": "separation (the fit is nearly separated and 10 candidates since the last acceptance "
                        "would have separated the response: the selected terms leave no information for more)"}

#: the history's skip reasons, shortened for the summary
_SKIP_WORDS = {"collinear with the current model": "collinear", "no residual degrees of freedom": "no df left"}


def _tested(res: StreamRegResults) -> tuple[str, str]:
    """Tests run; with several passes a re-offered candidate is tested (and counted) again."""
    tests = f"{int(res.per_stream['tested'].sum()):,}"
    history = res.history
    passes = int(history["pass"].max()) if "pass" in history and len(history) else 1
    if passes > 1:
        return ("Tests (all passes):", f"{tests}, re-offers counted ({passes} passes)")
    allowed = getattr(getattr(res, "search", None), "passes", 1)
    if getattr(res, "history_mode", "full") == "none" and allowed > 1:  # the rows of re-offers were not kept
        return ("Tests (all passes):", f"{tests}, re-offers counted (up to {allowed} passes)")
    return ("Candidates tested:", tests)


def stream_rows(res: StreamRegResults) -> list[list[str]]:
    rows = []
    for name, row in res.per_stream.iterrows():
        w = row["final_wealth"]
        rows.append([str(name), f"{int(row['tested']):,}", str(int(row["selected"])),
                     "-" if np.isnan(w) else f"{w:.4g}"])
    return rows


def states_r_aic(res: StreamRegResults) -> bool:
    """Whether :func:`notes` states R's AIC and BIC beside a header showing statsmodels'."""
    return _ols_aic_differs(res) or _llf_differs(res)


def _ols_aic_differs(res: StreamRegResults) -> bool:
    """An OLS header, whose AIC does not count the error variance."""
    return hasattr(res.fit, "rsquared") and abs(float(res.fit.aic) - res.aic) > 1e-9 * max(1.0, abs(res.aic))


def _llf_differs(res: StreamRegResults) -> bool:
    """A GLM header whose log-likelihood is not R's (Pearson dispersion; grouped binomial)."""
    if not np.isfinite(res.llf):
        return False  # a quasi family: its own note
    return not hasattr(res.fit, "rsquared") and abs(float(res.fit.llf) - res.llf) > 1e-9 * max(1.0, abs(res.llf))


_INTERACTION_KINDS = {"1": "products of two selected terms",
                      "2": "products of a selected term with an original candidate",
                      "3": "all pairwise products of the original candidates"}


def interaction_note(res: StreamRegResults) -> str | None:
    """What the ``interactions()`` streams of the table are (``name[1]`` ... ``name[3]``)."""
    formula = getattr(res, "formula", None) or ""
    if "interactions(" not in formula:
        return None
    kinds = {}
    for name in res.per_stream.index:
        found = re.fullmatch(r"(.+)\[([123])\]", str(name))
        if found:
            kinds[found.group(2)] = str(name)
    if not kinds:
        return None
    parts = [f"{kinds[k]}: {_INTERACTION_KINDS[k]}" for k in sorted(kinds)]
    return "Interaction streams, each with its own wealth: " + "; ".join(parts) + "."


def notes(res: StreamRegResults) -> list[str]:
    lines = [res.guarantee()]
    tested = candidate_test_note(res)
    if tested:
        lines.append(tested)
    about = interaction_note(res)
    if about:
        lines.append(about)
    est = res.false_selection_estimate()
    if est is not None:
        bits = hasattr(res.policy, "w_delta")  # information-investing: wealth and payout in bits
        payout = "w_delta" if bits else "alpha_delta"
        lines.append(
            f"Plug-in estimate of false selections ({payout}*k + W0 - W_final{', in bits' if bits else ''}): "
            f"{est:.3g} (an estimate, not a guarantee)."
        )
    if res.decoys is not None:
        lines.extend(res.decoys.describe(len(res.selected_terms)))
    val = getattr(res, "validation", None)
    if val:
        left = int(val.get("n_dropped", 0))
        lines.append(
            f"Sample splitting: terms were selected on {val['n_selection']} rows and the coefficients "
            f"below refit on {val['n_validation']} held-out rows, so their p-values and intervals are "
            "valid conditional on the selected model."
            + (f" {left} held-out row{'s' if left > 1 else ''} missing a value the refit uses "
               f"{'were' if left > 1 else 'was'} left out." if left else "")
        )
    else:
        lines.append(
            "Coefficient p-values below come from refitting the selected terms on the same data; "
            "they ignore the selection and are not valid post-selection p-values."
        )
    if _ols_aic_differs(res):
        # the header is statsmodels' OLS table; the results' own aic/bic are R's
        lines.append(f"AIC and BIC above are statsmodels' (the error variance is not counted as a parameter); "
                     f"R's AIC() and BIC(), as fit.aic, fit.bic and glance() report them: {res.aic:.6g} and "
                     f"{res.bic:.6g}.")
    elif _llf_differs(res):
        # a GLM header whose log-likelihood plugs in statsmodels' Pearson dispersion (Gamma, inverse Gaussian)
        # or leaves out the binomial coefficients of grouped binomial data (proportions, var_weights trials)
        grouped = spec_of(res.family).loglik == "grouped_binomial"
        lines.append(f"The Log-Likelihood above is statsmodels' ("
                     f"{'without the binomial coefficients' if grouped else 'Pearson dispersion'}); R's logLik(), "
                     f"AIC() and BIC(){'' if grouped else ' (dispersion deviance / n)'}, as fit.llf, fit.aic, fit.bic "
                     f"and glance() report them: {res.llf:.6g}, {res.aic:.6g} and {res.bic:.6g}.")
    if spec_of(res.family).loglik == "none":
        lines.append(f"A {spec_of(res.family).r_name} family has no likelihood: the Log-Likelihood above is "
                     "statsmodels' for the underlying family, and logLik, AIC and BIC are not available (NA "
                     f"in R). Standard errors use the Pearson dispersion {float(res.fit.scale):.4g} and t tests "
                     "on the residual degrees of freedom, as R's summary.glm.")
    for extra in (theta_note(res), lr_note(res), inference_note(res)):
        if extra:
            lines.append(extra)
    freq = np.asarray(getattr(res.fit.model, "freq_weights", 1.0), dtype=float)
    if freq.ndim and not np.all(freq == 1.0):
        # statsmodels' header counts rows; the residual df, BIC and glance() count observations
        lines.append(f"With freq_weights, No. Observations above counts the rows ({int(res.fit.nobs)}); Df "
                     f"Residuals, BIC and glance()'s nobs count the observations they stand for, "
                     f"sum(freq_weights) = {float(freq.sum()):g}.")
    refit_problems = list(getattr(res, "refit_warnings", []))
    separated = any(p.startswith("the response is separated") for p in refit_problems)
    for problem in refit_problems + [w for w in stability_warnings(res)
                                     if not (separated and w.startswith("nearly separated"))]:
        lines.append(f"WARNING: {problem[0].upper()}{problem[1:]}.")
    overdispersed = dispersion_note(res)
    if overdispersed:
        lines.append(overdispersed)
    return lines


def lr_note(res: StreamRegResults) -> str | None:
    """What a likelihood-ratio statistic is for a family that estimates its dispersion (R's add1)."""
    described = res.test_description
    if not ("likelihood ratio" in described or "2 delta loglik" in described):
        return None
    scale = spec_of(res.family).lr_scale
    if scale == "dispersion":
        what = ("the change in deviance over the Pearson dispersion of the model a term is added to or removed from "
                "(R's 'scaled dev.')")
    elif scale == "profile" and not spec_of(res.family).least_squares:
        what = "n log(D0 / D1), the Gaussian likelihood ratio with the variance profiled out"
    else:
        return None
    return (f"Likelihood-ratio statistics of this {spec_of(res.family).r_name} family are R's add1/drop1(test = "
            f"\"LRT\"), which step() ranks by: {what}, not twice the change in statsmodels' log-likelihood.")


def theta_note(res: StreamRegResults) -> str | None:
    """The negative binomial's theta and its standard error (R's ``summary.negbin``)."""
    estimate = getattr(res.family, "estimate", None)
    if not (spec_of(res.family).theta_estimated and isinstance(estimate, ThetaEstimate)):
        return None
    if estimate.capped:
        value = f"theta = {estimate.theta:.6g} (capped: it diverges, see the warning)"
    else:
        value = f"theta = {estimate.theta:.6g} (SE {estimate.se:.4g})"
    return (f"Negative binomial with theta estimated by maximum likelihood (R's MASS::glm.nb): {value}, "
            f"2 x log-likelihood = {estimate.twologlik:.6g}. The standard errors and z tests above hold theta at "
            f"its estimate, as R's summary.negbin; logLik, AIC and BIC count it as a parameter: AIC {res.aic:.6g}, "
            f"BIC {res.bic:.6g}.")


class StreamRegSummary(Summary):
    """A statsmodels Summary whose LaTeX output compiles and keeps each table its own tabular.

    statsmodels merges all tables into the first one for LaTeX, which fails when they
    have different numbers of columns, as the selection tables do; and it escapes only some
    of LaTeX's special characters (see :mod:`streamreg.results.latex`).
    """

    def as_latex(self) -> str:
        """Booktabs tabulars with every cell escaped, and the notes as paragraphs.

        Needs ``\\usepackage{booktabs}`` in the document.
        """
        notes_table = getattr(self, "_notes_table", None)
        parts: list[str] = []
        for table in self.tables:
            if table is notes_table:  # wrapped lines of prose: paragraphs in LaTeX
                parts.extend(latex_escape(note) for note in self._notes)
            else:
                parts.append(latex_tabular(table))
        if self.extra_txt is not None:
            parts.extend(latex_escape(note) for note in note_paragraphs(self.extra_txt))
        return "\n\n".join(parts)

    def as_html(self) -> str:
        """statsmodels' HTML with every name and note escaped (a column may be named ``<script>``)."""
        return tables_html(self.tables, self.extra_txt)


def add_selection_block(summary: Summary, res: StreamRegResults, width: int = 78) -> StreamRegSummary:
    """Insert the selection tables after the model header of a statsmodels Summary."""
    summary.__class__ = StreamRegSummary
    facts = selection_facts(res)
    label_width = max(len(a) for a, _ in facts)
    rows = []
    for label, value in facts:
        # long values (penalised methods' test descriptions) wrap onto continuation rows
        # so the block stays as wide as the statsmodels tables around it
        pieces = textwrap.wrap(value, width=width - label_width - 2) or [""]
        rows.append([label, pieces[0]])
        rows.extend(["", piece] for piece in pieces[1:])
    t1 = SimpleTable(rows, title="Streamwise selection",
                     txt_fmt={"colsep": "  ", "data_aligns": "l"})
    t2 = SimpleTable(stream_rows(res), headers=["stream", "tested", "selected", "final wealth"])
    paragraphs = notes(res)
    lines = []
    for note in paragraphs:
        lines.extend(textwrap.wrap(note, width=width))
    t3 = SimpleTable([[line] for line in lines], txt_fmt={"data_aligns": "l"})
    summary.tables[1:1] = [t1, t2, t3]
    summary._notes, summary._notes_table = paragraphs, t3  # as_latex prints them as paragraphs
    return summary
