# %% [markdown]
# # Getting started with streamreg
#
# Streamwise selection tests candidate terms one at a time against the current model and
# lets a wealth rule decide.  This vignette walks through the bundled breast-cancer data:
# a formula with two feature classes, the summary, the selection history, and what the
# numbers do and do not mean.  Run it as a script (`python vignettes/getting_started.py`)
# or open it as a notebook with jupytext.

# %%
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import streamreg as sr

wdbc = sr.datasets.load("wdbc")
df = wdbc.data
print(wdbc)
print(df["diagnosis"].value_counts())

# %% [markdown]
# ## Two feature classes
#
# The thirty features are ten nuclear measurements summarised three ways.  The `*_mean`
# columns form one stream and the `*_se` and `*_worst` columns another; each stream gets
# half of the initial wealth and the search draws from the one that has been paying off.
# We use a conservative setting, `w0 = alpha_delta = 0.05`: the papers' defaults (0.5)
# allow about one false selection even when nothing is real.

# %%
fit = sr.streamreg(
    "diagnosis ~ stream(*_mean) + stream(*_se, *_worst)",
    df,
    family="binomial",
    w0=0.05,
    alpha_delta=0.05,
)
print(fit.summary())

# %% [markdown]
# The selection block states the guarantee of alpha-investing (an mFDR bound, valid when
# each null p-value is super-uniform given the past), a plug-in estimate of the number of
# false selections, and a reminder that the coefficient p-values come from refitting on the
# same data and ignore the selection.

# %%
print(fit.selected)
print(fit.history.head(12)[["test", "stream", "term", "statistic", "pvalue", "level", "wealth", "status"]])

# %% [markdown]
# ## Wealth and p-values over the search

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
fit.plot_wealth(ax=ax1)
fit.plot_pvalues(ax=ax2)
fig.tight_layout()
fig.savefig("getting_started_wealth.png", dpi=80)

# %% [markdown]
# ## The selected model is an ordinary statsmodels fit
#
# `selected_formula` refits with `statsmodels.formula.api`; `fit.fit` is the statsmodels
# results object itself.

# %%
import statsmodels.api as sm
import statsmodels.formula.api as smf

print(fit.selected_formula)
again = smf.glm(fit.selected_formula, df, family=sm.families.Binomial()).fit()
print((again.params - fit.params).abs().max())
print(fit.tidy().round(3))
print(fit.glance())
