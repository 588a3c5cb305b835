# %% [markdown]
# # A tour of streamreg for statisticians
#
# streamreg fits a regression or a GLM whose terms are chosen from *streams* of candidates.
# Each candidate is tested once, against the model as it stands when the candidate arrives,
# and a *wealth rule* decides whether it enters.  The default rule, alpha-investing
# (Zhou, Foster, Stine and Ungar 2006), bounds the expected number of false selections
# however long the stream is.  The model that comes out is refitted by statsmodels, so
# everything you know about `glm()` in R or `smf.glm` in statsmodels still applies,
# with one caveat this tour keeps coming back to: the refit does not know that its terms
# were selected.
#
# The tour covers the formula, the summary, the side-by-side table, the plots, prediction
# and honest inference with `validate=`, on the breast-cancer data bundled with the package.
#
# Run it as a script (`python vignettes/tour.py`) or render it with its figures
# (`vignettes/render.sh`, see the README).  `STREAMREG_VIGNETTE_QUICK=1` shrinks the one
# simulation at the end so the whole script runs in seconds.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf

import streamreg as sr
from streamreg.results.plots import coefficient_plot, selection_path_plot

QUICK = os.environ.get("STREAMREG_VIGNETTE_QUICK", "") not in ("", "0")
pd.set_option("display.width", 110)
pd.set_option("display.max_columns", 12)

# %% [markdown]
# ## The data
#
# The package carries the data sets of the papers it implements; `catalogue()` lists them,
# with their size, response coding and whether they ship with the package or are fetched
# (and checksummed) on first use.

# %%
cat = sr.datasets.catalogue()
print(cat[["n", "p", "response", "storage"]].to_string())

# %% [markdown]
# Wisconsin Diagnostic Breast Cancer: 569 fine-needle aspirates, 212 malignant.  Ten
# nuclear measurements are each summarised three ways (mean, standard error, worst value
# over the cells of an image), which gives three natural *feature classes*.

# %%
wdbc = sr.datasets.load("wdbc")
print(wdbc.description.split("\n\n")[1])
print({name: len(cols) for name, cols in wdbc.groups.items()})
print(wdbc.data["diagnosis"].value_counts().to_dict())

# %% [markdown]
# The measurements are on very different scales (areas in the hundreds, smoothness
# around 0.1), so we standardise them: coefficients become effects per standard deviation.
# Nothing else changes, since the tests that drive the selection do not depend on the
# scale of a candidate.

# %%
features = [c for cols in wdbc.groups.values() for c in cols]
df = wdbc.data.copy()
df[features] = (df[features] - df[features].mean()) / df[features].std()

# %% [markdown]
# ## The formula
#
# The left-hand side and any plain terms are as in R or patsy; plain terms are *fixed*:
# always in the model, never tested.  Each `stream(...)` is one feature class: its
# candidates are offered in the order written, and each class keeps its own wealth,
# starting from an equal share of `w0`.  The next test goes to the class whose wealth per
# test so far is largest, so a class that keeps paying off is read further.
#
# Here the ten `*_mean` columns form one class and the twenty `*_se` and `*_worst` columns
# another.  The papers use `w0 = alpha_delta = 0.5`; when nothing is real that allows up to
# one false selection on average, so we start with the conservative `0.05`.

# %%
formula = "diagnosis ~ stream(*_mean) + stream(*_se, *_worst)"
fit = sr.streamreg(formula, df, family="binomial", w0=0.05, alpha_delta=0.05)
print(fit.summary())

# %% [markdown]
# Read the summary from the top.  The first block is statsmodels' own, for the refitted
# GLM.  The selection block says which rule ran, which test scored the candidates (a
# score, or Rao, test for GLMs: one IRLS fit per acceptance rather than one per candidate),
# how many candidates each class tested and selected, and why the search stopped.
#
# Then come three statements that matter more than any coefficient:
#
# * **the guarantee**: with `w0 = alpha_delta = 0.05`, the expected number of false
#   selections V satisfies `E[V] <= 0.05 (E[R] + 1)`, R being all selections.  It holds
#   when every null candidate's p-value is super-uniform given the earlier tests;
# * **a plug-in estimate** of the number of false selections, labelled as an estimate;
# * **a warning** that the coefficient table's standard errors and p-values come from
#   refitting on the data that chose the terms, so they ignore the selection.  Treat them
#   as descriptive.  The last section shows how much they can mislead, and the remedy.
#
# `selected` lists the terms in the order they entered, with the statistic, p-value and
# level at which each was accepted; `history` has one row per candidate examined.

# %%
print(fit.selected[["order", "term", "stream", "statistic", "pvalue", "level", "wealth"]].to_string())
print(fit.history[["test", "stream", "term", "pvalue", "level", "wealth", "status"]].head(12).to_string())

# %% [markdown]
# ## It is an ordinary statsmodels fit
#
# `fit.fit` is the statsmodels results object of the refit and `selected_formula` is a
# formula statsmodels accepts.  In R the refit is
# `glm(I(diagnosis == "M") ~ texture_mean + ..., family = binomial, data = wdbc)`.
#
# One trap for R users: a boolean response such as `I(diagnosis == 'M')` becomes a
# *two-column* outcome in patsy, and statsmodels then models the first column, which is
# `False`.  Multiply by one, as `selected_formula` does.

# %%
print(fit.selected_formula)
again = smf.glm(fit.selected_formula, df, family=sm.families.Binomial()).fit()
print("largest difference from the refit:", float((again.params - fit.params).abs().max()))
print(fit.tidy().round(3).to_string())
print(fit.glance().to_string())

# %% [markdown]
# The results answer what code written for a statsmodels result asks: `deviance`,
# `null_deviance`, `df_resid`, `df_model`, `scale`, `pearson_chi2` (and `rsquared` for least
# squares), with statsmodels' numbers.
#
# ## Analysis of deviance
#
# `fit.anova()` is R's `anova(glm, test = "Chisq")`: the refit's terms added one at a time,
# each with the deviance it explains.  `sr.anova(small, big, test=...)` compares nested fits
# as R's `anova(glm0, glm1)` does, with `"Chisq"` (or `"LRT"`), `"F"` or `"Rao"`; a plain
# statsmodels fit can be one of them.  Here: do the `*_mean` columns the selection left out
# add anything to the selected model?  (Both tables' p-values are those of the refit: they
# ignore that the terms were selected on these rows.)

# %%
print(fit.deviance, fit.null_deviance, fit.df_resid)
print(fit.anova())
left_out = [c for c in wdbc.groups["mean"] if c not in fit.selected_terms]
bigger = smf.glm(f"{fit.selected_formula} + {' + '.join(left_out)}", df, family=sm.families.Binomial()).fit()
print(sr.anova(fit, bigger, test="Chisq"))

# %% [markdown]
# ## The response can be an expression
#
# As in R and statsmodels, the left-hand side is evaluated in the formula's namespace (the
# data columns, numpy's element-wise functions, patsy's functions and `functions=`):
# `np.log(area_mean) ~ ...`, or `I(diagnosis == 'M') ~ ...` with `family="binomial"` (a
# boolean: `True` is success, as in R).  Binomial counts take R's `cbind(successes,
# failures) ~ ...` or statsmodels' `successes + failures ~ ...`: the proportion of
# successes with the trials as weights, so the refit equals R's `glm(cbind(s, f) ~ ...)`.
# The summary names the response by its expression, and `predict` needs only the columns
# the selected terms use.

# %%
raw = wdbc.data  # unstandardised: the areas are positive
size = sr.streamreg("np.log(area_mean) ~ stream(*_se)", raw, w0=0.05, alpha_delta=0.05)
print(size.selected_formula)
print(size.predict(raw.drop(columns="area_mean").head(3)).round(3).to_string())

# %% [markdown]
# ## Several rules side by side
#
# Every method returns the same results object, so rules compare on one formula.
# `sr.compare` lays them out as `summary_col` in statsmodels or `modelsummary` in R do:
# coefficients with standard errors, then rows for the selection (including the guarantee
# each rule gives, in short), then fit statistics.  A plain statsmodels fit can sit
# beside them; here, the logistic regression on all ten `*_mean` columns.

# %%
fits = {
    "alpha 0.05": fit,
    "alpha 0.5": sr.streamreg(formula, df, family="binomial"),
    "LORD++": sr.streamreg(formula, df, family="binomial", method="lord++"),
    "stepwise BIC": sr.streamreg(formula, df, family="binomial", method="stepwise-bic"),
}
means = " + ".join(wdbc.groups["mean"])
fits["glm, all means"] = smf.glm(f"I((diagnosis == 'M') * 1) ~ {means}", df,
                                 family=sm.families.Binomial()).fit()
table = sr.compare(fits, float_format="%.2f")
print(table)

# %% [markdown]
# The selection rows say what each column can be trusted for.  The two alpha-investing
# fits bound the marginal FDR at 0.05 and 0.5; LORD++ bounds the FDR at its `alpha`;
# stepwise BIC and the full GLM bound nothing.  The liberal setting selects more terms
# and fits the training data better (lower deviance) — which by itself says nothing about
# which terms are real.  `table.as_latex()` gives a booktabs table for a paper and
# `table.as_html()` a web page; the numbers themselves are in `table.params`,
# `table.bse` and `table.statistics`.
#
# For a paper, `modelsummary`'s controls shape the table.  `coef_map` picks the
# coefficients, names them and orders them (the rest are dropped; terms of different fits
# may share a row); `gof_map` does the same for the rows below them (`nobs`, `aic`, ... as
# in R are understood); `title` and `label` give the LaTeX float its caption and
# `\label`; `notes` adds yours.  Every note wraps to the table's width, in the text, the
# HTML and the LaTeX (which compiles with `booktabs`).

# %%
paper = sr.compare(
    fits,
    coef_map={"radius_mean": "Radius", "texture_mean": "Texture", "texture_worst": "Texture (worst)",
              "concavity_mean": "Concavity", "Intercept": "Constant"},
    gof_map={"Selected": "Terms selected", "Guarantee": "Guarantee", "nobs": "N", "bic": "BIC"},
    title="Malignancy of breast masses: five fits", label="tab:wdbc",
    notes="Features standardised: effects per standard deviation.", stars=True, float_format="%.2f")
print(paper)
print(paper.as_latex())

# %% [markdown]
# ## Plots
#
# Three pictures of one search.  The p-value plot puts every test's p-value against the
# level in force (the level jumps up after each acceptance and decays between them; red
# points are the selected candidates); the
# selection path shows each class's wealth and level along the tests; the coefficient plot
# shows the refit's estimates with *nominal* intervals, and says so on its axis.
#
# (`fit.plot_wealth()` draws the wealth alone; each function takes `ax=` and returns it.)
# The plots agree: a feature class has one colour in all of them (its estimates in the
# coefficient plot too), and every class's curves start at test 0, before any test, and
# show what is in force: the wealth after its latest test, the level its next test faces.
# A plot with nothing to show (the wealth of a stepwise search) says so on its axes.

# %%
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
fit.plot_pvalues(ax=axes[0])
axes[0].set_title("p-values and the level in force")
selection_path_plot(fit, ax=axes[1])
axes[1].set_title("wealth and level per feature class")
coefficient_plot(fit, ax=axes[2])
axes[2].set_title("refit estimates (nominal 95% intervals)")
fig.tight_layout()

# %% [markdown]
# ## Prediction
#
# `predict` rebuilds every selected term from new data with the training coding (patsy's
# stateful transforms included) and returns probabilities for a binomial fit, the linear
# predictor with `linear=True`.  R: `predict(fit, newdata, type = "response")` and
# `type = "link"`.

# %%
new = df.sample(6, random_state=1)
out = pd.DataFrame({"diagnosis": new["diagnosis"], "P(malignant)": fit.predict(new).round(3),
                    "linear predictor": fit.predict(new, linear=True).round(2)})
print(out.to_string())

# %% [markdown]
# `get_prediction` returns statsmodels' own prediction results, the object
# `smf.glm(...).fit().get_prediction(new)` gives: standard errors and intervals of the mean,
# computed on the link scale and transformed (R: `predict(fit, new, se.fit = TRUE)`).

# %%
print(fit.get_prediction(new).summary_frame().round(3).to_string())

# %% [markdown]
# ## Honest inference with `validate=`
#
# The p-values in the summary are computed as if the terms had been chosen before seeing
# the data.  They were not, and a term that got in because it happened to look strong will
# look strong again when refitted on the same rows.
#
# `validate=0.5` splits the rows at random (`seed=` fixes the split; without it a seed is drawn,
# kept as `res.seed` and printed in the summary, so any split can be repeated): the terms are selected
# on one half and refitted on the other.  On the held-out half the selected model is a
# fixed, pre-specified model, so its p-values and intervals are valid *conditional on the
# selected model*, at the price of half the rows for each task.  The summary states which
# case you are in.

# %%
honest = sr.streamreg(formula, df, family="binomial", w0=0.05, alpha_delta=0.05, validate=0.5, seed=1)
print(honest.validation, honest.seed)
print(honest.summary())

# %% [markdown]
# The summary now says that the terms were chosen on 285 rows and refitted on the other
# 284.  Several selected terms have wide held-out intervals: radius, perimeter and area
# all measure the size of a nucleus, so once one of them is in, the others have little
# of their own to add (the coefficient plot above shows the symptom: large estimates of
# opposite signs for perimeter and area), and a split-sample refit shows it.  (Two candidates were *refused*
# on the selection half: added to the terms already in, they would separate the two
# classes of those 285 rows perfectly, so the maximum-likelihood fit would not exist.
# A refusal is charged like a rejection.)
#
# How much can the naive p-values mislead?  A small experiment: permute the diagnosis so
# that no feature carries any signal, run the default (liberal) rule, and collect the
# refit p-values of whatever was selected, naive and split.  Every selection is false here.

# %%
reps = 40 if QUICK else 1000
rng = np.random.default_rng(2006)
naive, split, n_naive = [], [], []
for r in range(reps):
    null = df.copy()
    null["diagnosis"] = rng.permutation(null["diagnosis"].to_numpy())
    a = sr.streamreg(formula, null, family="binomial", history="none")
    b = sr.streamreg(formula, null, family="binomial", history="none", validate=0.5, seed=r)
    n_naive.append(len(a.selected_terms))
    naive += list(a.pvalues.drop("Intercept"))
    split += list(b.pvalues.drop("Intercept"))
naive, split = np.array(naive), np.array(split)
print(f"{reps} null data sets; false selections per data set: {np.mean(n_naive):.2f} "
      f"(the guarantee: E[V] <= 0.5 E[R] + 0.5 with R = V here, so at most 1)")
print(f"naive refit: {len(naive)} p-values, {np.mean(naive < 0.05):.0%} below 0.05")
print(f"split refit: {len(split)} p-values, {np.mean(split < 0.05):.0%} below 0.05")

# %%
fig, ax = plt.subplots(figsize=(5, 4))
grid = np.linspace(0, 1, 201)
for p, label in [(naive, "naive refit (same rows)"), (split, "validate=0.5 (held-out rows)")]:
    if len(p):
        ax.plot(grid, [np.mean(p <= g) for g in grid], label=f"{label}, {len(p)} p-values")
ax.plot([0, 1], [0, 1], color="0.5", ls=":", label="uniform")
ax.set_xlabel("p")
ax.set_ylabel("fraction of p-values <= p")
ax.set_title("refit p-values of falsely selected terms")
ax.legend(fontsize="small")
fig.tight_layout()

# %% [markdown]
# The naive p-values of terms selected under the null pile up near zero: in the full run
# about half are below 0.05 and nine in ten below 0.2.  Refitted on held-out rows they are
# close to uniform, as p-values of null terms should be (5% below 0.05).  Two further points:
#
# * the wealth guarantee is a statement about the *selection* (how many false terms get in),
#   and it holds with or without `validate=`; the split only repairs the refit's p-values
#   and intervals;
# * splitting costs power on both sides, and the held-out p-values are conditional on the
#   model chosen on the other half.  With small n, consider selecting on all rows and
#   reporting the selection's guarantee and a prediction error estimated honestly (for
#   instance, by cross-validating the whole selection procedure), without coefficient
#   p-values.
#
# ## Counts and positive responses: R's conventions
#
# For counts, `family="negbin"` is R's `MASS::glm.nb`: theta (variance `mu + mu^2 / theta`) is
# estimated by maximum likelihood, candidates are tested at the current model's theta (as R's
# `add1` tests them on a `glm.nb` fit), and the summary reports theta with its standard error.
# For families that estimate a dispersion (Gamma, inverse Gaussian) the refit's p-values are
# t tests on the residual degrees of freedom, as R's `summary.glm`; `.fit` keeps statsmodels'
# normal ones, and `use_t=` chooses.  `docs/families.md` lists every convention.

# %%
rng = np.random.default_rng(7)
counts = pd.DataFrame(rng.normal(size=(300, 6)), columns=[f"z{j}" for j in range(6)])
mean = np.exp(1.0 + 0.5 * counts.z0 - 0.4 * counts.z3)
counts["k"] = rng.negative_binomial(2.0, 2.0 / (2.0 + mean))  # theta = 2
nb = sr.streamreg("k ~ stream(z*)", counts, family="negbin")
print(nb.selected_terms, f"theta = {nb.theta:.3f} (SE {nb.theta_se:.3f})")

counts["cost"] = rng.gamma(3.0, mean / 3.0)
gamma = sr.streamreg("cost ~ z0 + z3 + stream(z1, z2)", counts, family=sm.families.Gamma(sm.families.links.Log()))
print(pd.DataFrame({"R's summary.glm (t)": gamma.pvalues, "statsmodels' .fit (normal)": gamma.fit.pvalues}))

# %% [markdown]
# ## Where next
#
# * `method=`: `"lord++"`, `"saffron"`, `"addis"`, the streamwise and stepwise AIC/BIC/RIC,
#   `"grafting"`, `"bp-sfs"`, or a policy object such as `sr.InformationInvesting()`;
# * `sr.select(y, X)` for arrays and generators without a formula, including streams too
#   long to hold in memory;
# * generated classes in the formula: `interactions()`, `pca()`, `squares()`, `clusters()`;
# * `sr.online_fdr(pvalues, method=...)` to run any of the rules on a plain vector of
#   p-values, as R's onlineFDR does;
# * `verbose=True` for a progress bar on long streams: a widget in Jupyter with
#   `pip install "streamreg[notebook]"` (ipywidgets), the text bar otherwise;
# * the next vignette, `paper000.py`, reproduces the simulation tables of the
#   alpha-investing paper.
