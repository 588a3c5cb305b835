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
from .fitstats import InformationCriteria, information_criteria
from .html_safe import tables_html
from .inference import inference_note
from .latex import latex_escape, latex_tabular, note_paragraphs

if TYPE_CHECKING:
    from .record import FittedSelection


def selection_facts(res: FittedSelection) -> list[tuple[str, str]]:
    """(label, value) pairs describing how the terms were chosen."""
    record, model = res.selection, res.selected_model
    per = record.per_stream
    facts = [
        ("Selection method:", record.policy_description),
        ("Test:", record.test_description),
        ("Streams:", str(len(per))),
        _tested(res),
        ("Terms selected:", str(int(per["selected"].sum()))),
        ("Stopped by:", _STOPS.get(record.stopped_by, record.stopped_by)),
    ]
    if record.history_mode == "none":
        kept = f"not kept (history='none'); only the {len(record.history)} selected and refused terms are recorded"
        facts.append(("History:", kept))
    status = record.history["status"].astype(str)
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
    if record.n_dropped:
        by = record.missing_by_column
        shown = ", ".join(f"{c}: {k}" for c, k in list(by.items())[:4]) + (", ..." if len(by) > 4 else "")
        facts.append(("Rows dropped (NaN):", f"{record.n_dropped} ({shown})" if shown else str(record.n_dropped)))
    if record.seed.drives:  # drawn or given, the seed that repeats the split and the orders
        facts.append(("Seed:", record.seed.describe()))
    if record.success_level is not None and spec_of(model.family).response == "binary":
        facts.append(("Modelled:", f"P({model.response_name} = {record.success_level!r})"))
    return facts


#: why a search stopped, where the one word needs a sentence
_STOPS = {"separation": "separation (the fit is nearly separated and 10 candidates since the last acceptance "
                        "would have separated the response: the selected terms leave no information for more)"}

#: the history's skip reasons, shortened for the summary
_SKIP_WORDS = {"collinear with the current model": "collinear", "no residual degrees of freedom": "no df left"}


def _tested(res: FittedSelection) -> tuple[str, str]:
    """Tests run; with several passes a re-offered candidate is tested (and counted) again."""
    record = res.selection
    tests = f"{int(record.per_stream['tested'].sum()):,}"
    if "confirmation pass of" in getattr(record.search, "confirmation", ""):  # screen-confirm: two phases
        total, confirming = int(record.search.n_tests), int(record.per_stream["tested"].sum())
        screening = getattr(record.search, "passes", 2) - 1
        return ("Tests (all passes):", f"{total:,}: {total - confirming:,} screening ({screening} "
                                       f"pass{'es' if screening > 1 else ''}), {confirming:,} confirming")
    history = record.history
    passes = int(history["pass"].max()) if "pass" in history and len(history) else 1
    if passes > 1:
        return ("Tests (all passes):", f"{tests}, re-offers counted ({passes} passes)")
    allowed = getattr(record.search, "passes", 1)
    if record.history_mode == "none" and allowed > 1:  # the rows of re-offers were not kept
        return ("Tests (all passes):", f"{tests}, re-offers counted (up to {allowed} passes)")
    return ("Candidates tested:", tests)


def stream_rows(res: FittedSelection) -> list[list[str]]:
    rows = []
    for name, row in res.selection.per_stream.iterrows():
        w = row["final_wealth"]
        rows.append([str(name), f"{int(row['tested']):,}", str(int(row["selected"])),
                     "-" if np.isnan(w) else f"{w:.4g}"])
    return rows


def states_r_aic(res: FittedSelection) -> bool:
    """Whether :func:`notes` states R's AIC and BIC beside a header showing statsmodels'."""
    return _ols_aic_differs(res) or _llf_differs(res)


def criteria(res: FittedSelection) -> InformationCriteria:
    """R's log-likelihood, AIC and BIC of the refit (what ``res.llf``, ``res.aic``, ``res.bic`` give)."""
    return information_criteria(res.fit, res.selected_model.family)


def _ols_aic_differs(res: FittedSelection) -> bool:
    """An OLS header, whose AIC does not count the error variance."""
    aic = criteria(res).aic
    return hasattr(res.fit, "rsquared") and abs(float(res.fit.aic) - aic) > 1e-9 * max(1.0, abs(aic))


def _llf_differs(res: FittedSelection) -> bool:
    """A GLM header whose log-likelihood is not R's (Pearson dispersion; grouped binomial)."""
    llf = criteria(res).llf
    if not np.isfinite(llf):
        return False  # a quasi family: its own note
    return not hasattr(res.fit, "rsquared") and abs(float(res.fit.llf) - llf) > 1e-9 * max(1.0, abs(llf))


_INTERACTION_KINDS = {"1": "products of two selected terms",
                      "2": "products of a selected term with an original candidate",
                      "3": "all pairwise products of the original candidates"}


def interaction_note(res: FittedSelection) -> str | None:
    """What the ``interactions()`` streams of the table are (``name[1]`` ... ``name[3]``)."""
    formula = res.selection.formula or ""
    if "interactions(" not in formula:
        return None
    kinds = {}
    for name in res.selection.per_stream.index:
        found = re.fullmatch(r"(.+)\[([123])\]", str(name))
        if found:
            kinds[found.group(2)] = str(name)
    if not kinds:
        return None
    parts = [f"{kinds[k]}: {_INTERACTION_KINDS[k]}" for k in sorted(kinds)]
    return "Interaction streams, each with its own wealth: " + "; ".join(parts) + "."


def notes(res: FittedSelection) -> list[str]:
    """The paragraphs under the selection tables: the guarantee, what the p-values mean, warnings."""
    record, family = res.selection, res.selected_model.family
    ic = criteria(res)
    lines = [record.guarantee()]
    confirmation = getattr(record.search, "confirmation", "")  # results pickled before screen-confirm have none
    if confirmation:
        lines.append(f"Confirmation: {confirmation}.")
    tested = candidate_test_note(res)
    if tested:
        lines.append(tested)
    about = interaction_note(res)
    if about:
        lines.append(about)
    est = record.false_selection_estimate()
    if est is not None:
        bits = hasattr(record.policy, "w_delta")  # information-investing: wealth and payout in bits
        payout = "w_delta" if bits else "alpha_delta"
        lines.append(
            f"Plug-in estimate of false selections ({payout}*k + W0 - W_final{', in bits' if bits else ''}): "
            f"{est:.3g} (an estimate, not a guarantee)."
        )
    decoys = getattr(record.search, "decoys", None)  # results pickled before decoys= have none
    if decoys is not None:
        lines.extend(decoys.describe(len(record.selected)))
    val = record.validation
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
                     f"R's AIC() and BIC(), as fit.aic, fit.bic and glance() report them: {ic.aic:.6g} and "
                     f"{ic.bic:.6g}.")
    elif _llf_differs(res):
        # a GLM header whose log-likelihood plugs in statsmodels' Pearson dispersion (Gamma, inverse Gaussian)
        # or leaves out the binomial coefficients of grouped binomial data (proportions, var_weights trials)
        grouped = spec_of(family).loglik == "grouped_binomial"
        lines.append(f"The Log-Likelihood above is statsmodels' ("
                     f"{'without the binomial coefficients' if grouped else 'Pearson dispersion'}); R's logLik(), "
                     f"AIC() and BIC(){'' if grouped else ' (dispersion deviance / n)'}, as fit.llf, fit.aic, fit.bic "
                     f"and glance() report them: {ic.llf:.6g}, {ic.aic:.6g} and {ic.bic:.6g}.")
    if spec_of(family).loglik == "none":
        lines.append(f"A {spec_of(family).r_name} family has no likelihood: the Log-Likelihood above is "
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
    refit_problems = list(res.refit_warnings)
    separated = any(p.startswith("the response is separated") for p in refit_problems)
    for problem in refit_problems + [w for w in stability_warnings(res)
                                     if not (separated and w.startswith("nearly separated"))]:
        lines.append(f"WARNING: {problem[0].upper()}{problem[1:]}.")
    overdispersed = dispersion_note(res)
    if overdispersed:
        lines.append(overdispersed)
    return lines


def lr_note(res: FittedSelection) -> str | None:
    """What a likelihood-ratio statistic is for a family that estimates its dispersion (R's add1)."""
    described, family = res.selection.test_description, res.selected_model.family
    if not ("likelihood ratio" in described or "2 delta loglik" in described):
        return None
    scale = spec_of(family).lr_scale
    if scale == "dispersion":
        what = ("the change in deviance over the Pearson dispersion of the model a term is added to or removed from "
                "(R's 'scaled dev.')")
    elif scale == "profile" and not spec_of(family).least_squares:
        what = "n log(D0 / D1), the Gaussian likelihood ratio with the variance profiled out"
    else:
        return None
    return (f"Likelihood-ratio statistics of this {spec_of(family).r_name} family are R's add1/drop1(test = "
            f"\"LRT\"), which step() ranks by: {what}, not twice the change in statsmodels' log-likelihood.")


def theta_note(res: FittedSelection) -> str | None:
    """The negative binomial's theta and its standard error (R's ``summary.negbin``)."""
    family = res.selected_model.family
    estimate = getattr(family, "estimate", None)
    if not (spec_of(family).theta_estimated and isinstance(estimate, ThetaEstimate)):
        return None
    if estimate.capped:
        value = f"theta = {estimate.theta:.6g} (capped: it diverges, see the warning)"
    else:
        value = f"theta = {estimate.theta:.6g} (SE {estimate.se:.4g})"
    return (f"Negative binomial with theta estimated by maximum likelihood (R's MASS::glm.nb): {value}, "
            f"2 x log-likelihood = {estimate.twologlik:.6g}. The standard errors and z tests above hold theta at "
            f"its estimate, as R's summary.negbin; logLik, AIC and BIC count it as a parameter: AIC {criteria(res).aic:.6g}, "
            f"BIC {criteria(res).bic:.6g}.")


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


def add_selection_block(summary: Summary, res: FittedSelection, width: int = 78) -> StreamRegSummary:
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
