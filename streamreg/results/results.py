"""StreamRegResults: the final refit plus the whole selection story."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..formula.design import design_matrix
from ..models import is_ols
from .summary import add_selection_block

if TYPE_CHECKING:
    from .selected import SelectedModel, SelectionRecord


class StreamRegResults:
    """Results of a streamwise selection, read like statsmodels results.

    Attributes
    ----------
    fit : statsmodels OLSResults or GLMResults
        The final refit of fixed + selected terms (a real statsmodels object).
    selected : DataFrame
        One row per selected term: order, term, stream, test index, statistic, df,
        p-value, level and wealth after the acceptance.
    history : DataFrame
        One row per candidate examined, tested or skipped, in search order; with
        ``history="none"`` only the rows of the accepted and refused candidates.
    history_mode : str
        ``"full"`` or ``"none"`` (the ``history=`` option of the call).
    selected_formula : str
        A plain formula for the refit, usable with ``statsmodels.formula.api``.
    family : statsmodels family
        The family of the search and the refit: Gaussian with identity link is refit by
        OLS, every other family and link by a GLM.

    Results are built by :func:`~streamreg.results.selected.fit_selected` from the selected
    model and the record of its selection (keyword-only ``model``, ``selection``, ``fit``
    and ``refit_warnings``).
    """

    def __init__(self, *, model: SelectedModel, selection: SelectionRecord, fit,
                 refit_warnings: list[str] | None = None):
        self.fit = fit
        #: problems statsmodels reported when refitting the selected terms (plain language)
        self.refit_warnings = list(refit_warnings or [])
        search = selection.search
        self.search = search
        self.selected = search.selected
        self._history = None  # the search's history as the rule explains it, built on first access
        self.per_stream = search.per_stream
        self.history_mode = getattr(search, "history_mode", "full")
        self.stopped_by = search.stopped_by
        self.formula = selection.formula
        self.selected_formula = f"{model.response_label} ~ {model.rhs}"
        self.response_name = model.response_name
        self.success_level = selection.success_level
        self.family = model.family  # a statsmodels family object: results branch on it, never on a name
        self.policy = selection.policy
        self.policy_description = selection.policy.describe()
        self.test_description = selection.test_description
        self.n_dropped = selection.n_dropped
        self._rhs = model.rhs
        self._train = model.train
        self.validation = selection.validation  # sample-splitting sizes, None when selected and refit on the same rows
        self._derived = model.derived  # generated-term state (PCA loadings, transforms) for new data
        self._functions = dict(model.functions)  # the formula's functions the terms call
        self.order_used_y = list(selection.y_ordered)  # streams ordered by a y-dependent score

    @property
    def family_name(self) -> str:
        """The family's class name in lower case (``"gaussian"``, ``"binomial"``, ...), for display."""
        return type(self.family).__name__.lower()

    @property
    def history_kept(self) -> bool:
        """False when the call had ``history="none"``: only accepted and refused rows were kept."""
        return self.history_mode != "none"

    @property
    def history(self) -> pd.DataFrame:
        """One row per candidate examined (built on first access for long streams).

        With ``history="none"`` only the accepted and refused candidates' rows, with all
        their columns (identical to the same rows of the full history).
        """
        if self._history is None:
            started = next(iter(self.search.policies.values()), None)
            annotate = getattr(started, "annotate", None)
            self._history = annotate(self.search.history) if annotate else self.search.history
        return self._history

    # statsmodels-style accessors -------------------------------------------------
    @property
    def params(self) -> pd.Series:
        return self.fit.params

    @property
    def bse(self) -> pd.Series:
        return self.fit.bse

    @property
    def pvalues(self) -> pd.Series:
        return self.fit.pvalues

    @property
    def tvalues(self) -> pd.Series:
        return self.fit.tvalues

    @property
    def nobs(self) -> int:
        return int(self.fit.nobs)

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        return self.fit.conf_int(alpha=alpha)

    @property
    def selected_terms(self) -> list[str]:
        return list(self.selected["term"])

    @property
    def wealth(self) -> pd.DataFrame:
        """Wealth after each test, one column per stream (forward-filled), indexed by test.

        With ``history="none"`` the rows are the acceptances (and refusals) only and each
        stream has its wealth at its own rows, NaN elsewhere: the wealth between them was
        not kept, so nothing is forward-filled.
        """
        h = self.history[self.history["test"].notna()]
        if h.empty:
            return pd.DataFrame()
        w = h.pivot_table(index="test", columns="stream", values="wealth", aggfunc="last", sort=False)
        w = w.reindex(columns=list(self.per_stream.index)).sort_index()
        if not self.history_kept:
            return w
        w = w.ffill()
        start = {s: p.share * _initial_wealth(p) for s, p in self.search.policies.items()}
        return w.fillna(pd.Series(start))

    # prediction --------------------------------------------------------------
    def design(self, newdata: pd.DataFrame) -> pd.DataFrame:
        """The refit's design matrix coded on ``newdata`` (training factor levels)."""
        if not isinstance(newdata, pd.DataFrame):
            raise TypeError("newdata must be a pandas DataFrame with the model's columns")
        generated = set(self._derived.columns) if self._derived else set()
        missing = [c for c in self._train.columns
                   if c != self.response_name and c not in generated and c not in newdata.columns]
        if missing:
            raise ValueError(f"newdata lacks the column(s) {missing} used by the selected model")
        return self._design(newdata)

    def _design(self, newdata: pd.DataFrame) -> pd.DataFrame:
        # _functions is missing from results pickled before functions= reached every term
        return design_matrix(self._rhs, self._train, newdata, self._derived, getattr(self, "_functions", None))

    def predict(self, newdata: pd.DataFrame | None = None, *, linear: bool = False) -> pd.Series:
        """Predicted mean (or linear predictor) for ``newdata``; the training rows if None."""
        if newdata is None:
            x = self._design(self._train)
            index = self._train.index
        else:
            x = self.design(newdata)
            index = x.index
        with np.errstate(over="ignore"):  # exp overflow in the logit inverse saturates to 0/1
            if is_ols(self.family):  # OLS: identity link, the mean is the linear predictor
                pred = np.asarray(self.fit.predict(x.to_numpy()))
            else:
                pred = np.asarray(self.fit.predict(x.to_numpy(), which="linear" if linear else "mean"))
        return pd.Series(pred, index=index, name="prediction")

    # the selection story ----------------------------------------------------------
    def guarantee(self) -> str:
        """What the rule guarantees, under which assumption (statistics.md section 1)."""
        text = self.policy.guarantee()
        if self.order_used_y:
            text += (f" VOID here: the order of stream(s) {self.order_used_y} was chosen by a "
                     "screening score that looked at the response, so the candidates were not "
                     "generated independently of y and the wealth guarantee does not apply.")
        return text

    def false_selection_estimate(self) -> float | None:
        """Plug-in estimate ``alpha_delta * k + W0 - W_final`` (investing rules only)."""
        payout = getattr(self.policy, "alpha_delta", None) or getattr(self.policy, "w_delta", None)
        if payout is None or not hasattr(self.policy, "w0"):
            return None
        k = len(self.selected)
        w_final = float(np.nansum(self.per_stream["final_wealth"]))
        return payout * k + self.policy.w0 - w_final

    def summary(self, alpha: float = 0.05):
        """statsmodels ``Summary`` with the selection block above the coefficients."""
        smry = self.fit.summary(alpha=alpha)
        return add_selection_block(smry, self)

    def tidy(self, conf_int: bool = True, alpha: float = 0.05) -> pd.DataFrame:
        """One row per coefficient, broom-style column names."""
        out = pd.DataFrame(
            {
                "term": self.params.index,
                "estimate": self.params.to_numpy(),
                "std.error": self.bse.to_numpy(),
                "statistic": np.asarray(self.tvalues),
                "p.value": self.pvalues.to_numpy(),
            }
        )
        if conf_int:
            ci = self.conf_int(alpha)
            out["conf.low"], out["conf.high"] = ci.iloc[:, 0].to_numpy(), ci.iloc[:, 1].to_numpy()
        return out

    def glance(self) -> pd.DataFrame:
        """One-row model summary."""
        f = self.fit
        row = {
            "nobs": int(f.nobs),
            "df.model": float(f.df_model),
            "logLik": float(f.llf),
            "AIC": float(f.aic),
            "BIC": float(f.bic_llf) if hasattr(f, "bic_llf") else float(f.bic),
            "tested": int(self.per_stream["tested"].sum()),
            "selected": len(self.selected),
            "method": self.policy_description,
        }
        if is_ols(self.family):  # refit by OLS; every other family (any link) by a GLM
            row["r.squared"] = float(f.rsquared)
            row["sigma"] = math.sqrt(float(f.scale))
        else:
            row["deviance"] = float(f.deviance)
        return pd.DataFrame([row])

    # plots -----------------------------------------------------------------------
    def plot_wealth(self, ax=None):
        """Wealth per stream against the test index; returns the Axes.

        With ``history="none"`` the wealth was kept at the acceptances only: those points
        are plotted (joined per stream) and the title says so.
        """
        import matplotlib.pyplot as plt

        ax = ax or plt.gca()
        w = self.wealth
        if self.history_kept:
            for col in w.columns:
                ax.step(w.index.astype(float), w[col].to_numpy(), where="post", label=str(col))
        else:
            kept = self.history[self.history["test"].notna()]
            for name, rows in kept.groupby("stream", sort=False):
                ax.plot(rows["test"].astype(float), rows["wealth"].to_numpy(dtype=float), ls=":", marker=".",
                        label=str(name))
            ax.set_title("history='none': wealth at acceptances only (the path between them was not kept)",
                         fontsize="small")
        sel = self.selected
        if len(sel):
            ax.scatter(sel["test"], sel["wealth"], marker="o", color="k", zorder=3, label="selected")
        ax.set_xlabel("test")
        ax.set_ylabel("wealth")
        ax.legend(loc="best", fontsize="small")
        return ax

    def plot_pvalues(self, ax=None):
        """p-values of every test (log scale) against the level in force; returns the Axes.

        Needs the full history: raises ValueError after ``history="none"``.
        """
        if not self.history_kept:
            raise ValueError("plot_pvalues needs the p-value of every test, but the history was not kept "
                             f"(history='none'; only the {len(self.history)} selected and refused terms are "
                             "recorded): rerun with history='full' to plot it")
        import matplotlib.pyplot as plt

        ax = ax or plt.gca()
        h = self.history[self.history["test"].notna()]
        t = h["test"].astype(float)
        ax.scatter(t, h["pvalue"].clip(lower=1e-300), s=6, c=np.where(h["accepted"], "C3", "C0"))
        if h["level"].notna().any():  # rules that compare bits, not p-values, have no level
            ax.plot(t, h["level"], color="k", lw=1, label="level")
            ax.legend(loc="best", fontsize="small")
        ax.set_yscale("log")
        ax.set_xlabel("test")
        ax.set_ylabel("p-value")
        return ax

    def __repr__(self) -> str:
        terms = ", ".join(self.selected_terms) or "none"
        return f"<StreamRegResults: {self.selected_formula!r}; selected {len(self.selected)} ({terms})>"

    def __getstate__(self):
        return self.__dict__.copy()


def _initial_wealth(policy) -> float:
    w0 = getattr(policy, "w0", float("nan"))
    return float(w0)
