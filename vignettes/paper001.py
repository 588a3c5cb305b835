# %% [markdown]
# # Feature selection using multiple streams (Dhillon, Foster and Ungar, AISTATS 2010)
#
# The paper splits the candidates into classes, gives each class its own stream and
# wealth (`w0 / k` each), and always tests the next candidate of the stream with the most
# permissive level `w_j / i_j` (MSFS, its Alg. 2).  Streams can also be generated while
# the search runs: MSFS (I) adds the products of selected terms with each other and with
# the original features.  On the NIPS 2003 *arcene* data, which has no natural classes, the
# classes are made up: k-means clusters of the columns, the top 50 principal components and
# the squares (Table 2, k = 1000 clusters; Fig. 2, error against k).
#
# This vignette reruns Table 2 on arcene and Fig. 2, runs the same comparison on a data set
# that does have feature groups (UCI internet advertisements: six groups of columns), and
# puts the published numbers beside ours.  Every difference is discussed where it appears.
#
# `STREAMREG_VIGNETTE_QUICK=1` runs a shrunken version (every 40th arcene column, 10
# clusters, 2 folds, one fold of the ads data; seconds).  The full run (`vignettes/render.sh paper001.py`) uses the
# paper's sizes and takes about an hour on one core.

# %%
import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

import streamreg as sr

QUICK = os.environ.get("STREAMREG_VIGNETTE_QUICK", "") not in ("", "0")
FOLDS = 2 if QUICK else 10  # folds actually run, of one 10-fold split
STEP = 40 if QUICK else 1  # keep every STEP-th arcene column
K = 10 if QUICK else 1000  # clusters for Table 2
KS = [5, 10] if QUICK else [10, 30, 100, 300, 1000]  # Fig. 2
ADS_FOLDS = 1 if QUICK else 10
PASSES = 3 if QUICK else 10  # the stated-protocol section
pd.set_option("display.width", 130)
pd.set_option("display.max_columns", 20)
t_start = time.perf_counter()



# %% [markdown]
# ## Protocol
#
# What the paper states, and what we do:
#
# * **Data.** The paper calls arcene "100 observations, 10000 features": the challenge's
#   training split.  We use the training and validation splits together (200 rows, 88
#   cancers), because with 90 training rows per fold our searches select 0 or 1 terms
#   and the fold errors are 50-60% (one fold measured, below under "The paper's stated
#   protocol"); the validation labels were published after the paper's challenge.
# * **Classes.** k-means clusters of the columns (Euclidean distance; we standardise the
#   columns first, so that a cluster groups columns with similar profiles rather than
#   similar magnitudes -- the paper does not say), the top 50 principal components, and
#   the squares: k + 2 streams, all built inside each fold from the training rows only.
# * **Test and classifier.** The paper's model is least squares on the 0/1 response; its
#   p-value is `exp(-dRSS / 2 sigma^2)`.  We use the exact partial t-test (the user guide's
#   families-and-tests page) and classify by the least-squares fit of the selected terms at 0.5.
# * **Passes.** The paper makes 10 passes over the streams; we make one here (a re-offered
#   candidate is charged again, and on arcene the extra passes only spend wealth; see the
#   stated-protocol section).
# * **Wealth.** `w0 = alpha_delta = 0.5`, as in the paper.
# * **Folds.** One stratified 10-fold split (seed 0).  The paper's ± (0.2 to 1.0 points)
#   cannot be a standard deviation over folds of 10 to 20 rows, whose errors move in steps
#   of 5 to 10 points; ours is the sd over folds.

# %%
arcene = sr.datasets.load("arcene")
xa, ya = arcene.arrays()
xa = xa[:, ::STEP]
cols = [f"x{j * STEP}" for j in range(xa.shape[1])]  # names keep the original column numbers
folds = list(StratifiedKFold(n_splits=10, shuffle=True, random_state=0).split(xa, ya))[:FOLDS]
print(f"arcene: {xa.shape[0]} rows ({int(ya.sum())} cancer), {xa.shape[1]} columns, {FOLDS} folds, k = {K}")


def fold_frames(x, y, names, tr, te):
    """Training and test frames, standardised with the training rows' mean and sd."""
    mu, sd = x[tr].mean(axis=0), x[tr].std(axis=0)
    z = (x - mu) / np.where(sd > 0, sd, 1.0)
    train = pd.DataFrame(z[tr], columns=names)
    train["y"] = y[tr]
    return train, pd.DataFrame(z[te], columns=names)


def run(formula, train, held_out, y_held_out, **options):
    """Fit, and score the selection's least-squares fit on the held-out rows."""
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = sr.streamreg(formula, train, **options)
    pred = np.asarray(fit.predict(held_out))
    streams = fit.selected["stream"].astype(str)
    return {"err": float(np.mean((pred > 0.5) != (y_held_out > 0.5))), "nf": len(fit.selected_terms),
            # products are named a:b, whichever stream offered them (one merged stream with multistream=False)
            "inter": int(fit.selected["term"].astype(str).str.contains(":").sum()),
            "pca": int(streams.str.startswith("pca").sum()), "tests": getattr(fit.search, "n_tests", np.nan),
            "sec": time.perf_counter() - t, "fit": fit}


def lasso(train, test, y_test, seed):
    """L1-penalised logistic regression, penalty by 5-fold CV (the paper's Lasso row)."""
    from sklearn.linear_model import LogisticRegressionCV

    t = time.perf_counter()
    xtr = train.drop(columns="y").to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = LogisticRegressionCV(Cs=10, cv=5, penalty="l1", solver="liblinear", max_iter=2000,
                                 random_state=seed).fit(xtr, train["y"])
    return {"err": float(np.mean(m.predict(test.to_numpy()) != y_test)), "nf": int(np.sum(m.coef_ != 0)),
            "inter": 0, "pca": 0, "tests": np.nan, "sec": time.perf_counter() - t, "fit": None}


def summarise(rows, paper=None):
    """Mean ± sd over folds of each method, beside the published numbers."""
    out = []
    for label, res in rows.items():
        e = 100 * np.array([r["err"] for r in res])
        line = {"method": label, "error %": f"{e.mean():.1f} ± {e.std(ddof=1) if len(e) > 1 else 0:.1f}",
                "#f": np.mean([r["nf"] for r in res]), "#products": np.mean([r["inter"] for r in res]),
                "#pca": np.mean([r["pca"] for r in res]), "tests": np.mean([r["tests"] for r in res]),
                "s/fold": np.mean([r["sec"] for r in res])}
        if paper is not None:
            line["paper error % (#f)"] = paper.get(label, "")
        out.append(line)
    return pd.DataFrame(out).set_index("method").round(1)


# %% [markdown]
# ## Table 2 on arcene

# %%
GEN = "clusters(x*, k={k}, name=cl) + pca(x*, k=50) + squares(x*)"
# the paper's rule, named: the package default (method=None) screens, then confirms
PAPER_RULE = {"method": "alpha-investing", "w0": 0.5, "alpha_delta": 0.5}
SPECS = {
    "MSFS (I)": (GEN + " + interactions(cl)", PAPER_RULE),
    "MSFS": (GEN, PAPER_RULE),
    "SFS": (GEN, {**PAPER_RULE, "multistream": False}),
    # stepwise sees every candidate at every step: clusters make no difference to it
    "Stepwise RIC": ("stream(x*) + pca(x*, k=50) + squares(x*)", {"method": "stepwise-ric"}),
}
PAPER_T2 = {"MSFS (I)": "10.7 ± 0.8 (5.3)", "MSFS": "12.9 ± 0.4 (4.4)", "SFS": "16.5 ± 0.8 (4.4)",
            "Stepwise RIC": "16.1 ± 0.9 (4.2)", "Lasso": "16.3 ± 1.0 (13.4)"}

table2 = {label: [] for label in [*SPECS, "Lasso"]}
for f, (tr, te) in enumerate(folds):
    train, test = fold_frames(xa, ya, cols, tr, te)
    for label, (rhs, opts) in SPECS.items():
        table2[label].append(run("y ~ " + rhs.format(k=K), train, test, ya[te], **opts))
    table2["Lasso"].append(lasso(train, test, ya[te], f))
print(summarise(table2, PAPER_T2).to_string())

# %% [markdown]
# **Reading the table.** Every method, the L1 baseline included (which does not use
# streamreg at all), is 8 to 18 points worse than the paper's figure; the paper's numbers
# are not reachable on these data by a linear classifier with a handful of terms.  Among
# the streamwise methods the order is not the paper's either: SFS is as good as MSFS.
# The full run measured (10 folds, k = 1000; `bench/results/bench_generated_arcene.txt`
# has the same numbers with a logistic refit): MSFS (I) 29.0 ± 8.8 (7.4 terms),
# MSFS 29.0 ± 8.8 (7.4), SFS 26.0 ± 11.7 (9.4), stepwise RIC 27.5 ± 8.2 (3.0),
# L1 logistic 24.5 ± 11.7.
#
# Why MSFS gains nothing here: the first stream to win a test gets the wealth
# `alpha_delta = 0.5` and its own counter is still small, so its next candidates are
# tested at levels of 0.1 and more, and several columns of that one cluster enter with
# p-values near 0.01 (see the `selected` table below).  That is Alg. 2 working as
# designed -- the paper counts on it to "retrieve features with marginal statistical
# significance from the good stream" -- but k-means clusters of arcene's columns are
# groups of *correlated* columns, not groups rich in *useful* ones, so the winner's
# neighbours add little.  The PCA stream gets `w0 / (k + 2)` like every cluster, tests
# its leading components first, and has spent its wealth by the time components 14-15
# (the ones SFS and stepwise select) come; the paper reports PCA features in MSFS.

# %%
example = table2["MSFS"][0]["fit"]
print(example.selected[["term", "stream", "stream_test", "pvalue", "level", "wealth"]].to_string())

# %% [markdown]
# ## Why MSFS (I) equals MSFS on arcene
#
# In the bench run no product entered in any fold, so MSFS (I) made MSFS's selections.
# The products are offered: kinds 1 and 2 of `interactions(cl)` are two more streams,
# start with `w0 / (k + 4)` each and get their first turn at the end of the first round of
# the clusters (test 1,052 of fold 1 at k = 1000), and kind 2 offers the products of every
# selected term with each of the 10,000 columns (79,596 tests in fold 1).  None is
# accepted because none carries signal.  Below, on one fold, the largest squared t
# statistic of a product of a *selected* term with any column, given the selected model,
# is compared with that of products of as many *randomly chosen, unselected* columns:
# the selected terms' products are no stronger than products of arbitrary columns.
# (The synthetic test `tests/streams/test_generated_interactions.py::
# test_cluster_interaction_is_found_across_clusters` checks that a real product of a
# selected term with a column of another cluster is found through the same machinery.)

# %%
def max_t2(x_model, cands, y):
    """Largest squared partial t statistic of the candidate columns given the model."""
    q, _ = np.linalg.qr(np.column_stack([np.ones(len(y)), x_model]))
    r = y - q @ (q.T @ y)
    c = cands - q @ (q.T @ cands)
    d = np.einsum("ij,ij->j", c, c)
    ok = d > 1e-10 * np.einsum("ij,ij->j", cands, cands)
    gain = np.where(ok, (c.T @ r) ** 2 / np.where(ok, d, 1.0), 0.0)
    return float(np.max(gain / ((r @ r - gain) / (len(y) - q.shape[1] - 1))))


tr, te = folds[0]
train, _ = fold_frames(xa, ya, cols, tr, te)
z = train.drop(columns="y").to_numpy()
chosen = [cols.index(t) for t in example.selected_terms if t in cols]
products = np.concatenate([z[:, [j]] * z for j in chosen], axis=1)
observed = max_t2(z[:, chosen], products, ya[tr])
rng = np.random.default_rng(1)
others = np.setdiff1d(np.arange(z.shape[1]), chosen)
null = [max_t2(z[:, chosen], np.concatenate([z[:, [j]] * z for j in rng.choice(others, len(chosen), replace=False)],
                                             axis=1), ya[tr]) for _ in range(5)]
print(f"{len(chosen)} selected columns x {z.shape[1]} columns: max t^2 = {observed:.1f}")
print(f"{len(chosen)} random unselected columns x {z.shape[1]} columns (5 draws): max t^2 = "
      + ", ".join(f"{v:.1f}" for v in null))

# %% [markdown]
# Full size, fold 1 (8 selected terms, 80,000 products; the render of 2026-11-23): 22.3
# for the selected terms' products against 19.7, 31.0, 22.0, 30.6 and 22.1 for five draws of
# random columns -- the size of the largest of 80,000 null chi-square statistics.  A product would need a
# p-value below about 1e-7 to pass at the levels kind 2 reaches after a few hundred
# tests.  So MSFS (I) = MSFS is the correct outcome of Alg. 2 on these data, not a
# generation or scheduling fault; the paper's 2.2-point gain of MSFS (I) over MSFS cannot
# be reproduced from what it states.  One cost we do see: kind 2 offers one product per
# turn (what keeps its bookkeeping with kind 1 independent of block sizes), so MSFS (I)
# takes 2.6 times as long as MSFS (30.5 s against 11.7 s per fold in the full render).

# %% [markdown]
# ## The paper's stated protocol
#
# Matching what the paper does state -- arcene's 100 training rows, 10 passes, its own
# p-value (`test="paper"`) and candidates in random order within each class (section
# 4.1) -- makes things worse, not better: one fold at full size selected 1 term for
# MSFS (I) and MSFS and none for SFS, with 40-70% errors on the 10 held-out rows (each
# re-offer of a rejected candidate is charged, so 10 passes over 20,000 candidates spend
# the wealth ten times over).  Here is the same protocol at this run's size (quick mode:
# 3 passes).  At these small sizes a product may enter; it does not lower the error.

# %%
x100, y100 = xa[:100], ya[:100]
tr, te = next(StratifiedKFold(n_splits=10, shuffle=True, random_state=0).split(x100, y100))
train, test = fold_frames(x100, y100, cols, tr, te)
gen_r = f"clusters(x*, k={K}, name=cl, order=random) + pca(x*, k=50) + squares(x*, order=random)"
stated = {label: [run("y ~ " + rhs, train, test, y100[te], passes=PASSES, test="paper", time_budget=120, **opts)]
          for label, (rhs, opts) in {"MSFS (I)": (gen_r + " + interactions(cl)", {}), "MSFS": (gen_r, {}),
                                     "SFS": (gen_r, {"multistream": False})}.items()}
print(summarise(stated).to_string())

# %% [markdown]
# ## Fig. 2: error against the number of clusters
#
# The paper's figure (not legible in our copy) is described in its text: accuracy "is not
# a strong function of the number of clusters", and MSFS (I) is best at every k.  We plot
# MSFS (MSFS (I) makes the same selections on arcene, see above) and SFS, which does not
# use the clusters and is a flat reference line.

# %%
fig2 = {k: [] for k in KS}
for tr, te in folds:
    train, test = fold_frames(xa, ya, cols, tr, te)
    for k in KS:
        fig2[k].append(100 * run("y ~ " + GEN.format(k=k), train, test, ya[te])["err"])
sfs = 100 * np.array([r["err"] for r in table2["SFS"]])
means = np.array([np.mean(fig2[k]) for k in KS])
sds = np.array([np.std(fig2[k], ddof=1) if len(fig2[k]) > 1 else 0.0 for k in KS])
fig, ax = plt.subplots(figsize=(6, 4))
ax.errorbar(KS, means, yerr=sds, marker="o", capsize=3, label="MSFS (= MSFS (I) here)")
ax.axhline(sfs.mean(), color="grey", ls="--", label="SFS")
ax.axhline(10.7, color="C3", ls=":", label="paper, MSFS (I) at k = 1000")
ax.set_xscale("log")
ax.set_xlabel("number of k-means clusters")
ax.set_ylabel("CV error % (mean ± sd over folds)")
ax.set_title("arcene: error against the number of clusters")
ax.legend()
fig.tight_layout()
print(pd.DataFrame({"k": KS, "MSFS error %": means.round(1), "sd": sds.round(1)}).to_string(index=False))

# %% [markdown]
# Unlike the paper, the error does depend on k here, and the smallest k is best: in the
# full render (10 folds) MSFS has 15.0% ± 10.5 at k = 10 -- below SFS's 26.0% and near the
# paper's 12.9% for MSFS -- and 24-29% from k = 30 on, no better than SFS.  A likely
# reason: ten coarse clusters keep each stream large, so a winning stream's generous
# levels reach many columns; a thousand small clusters spend the wealth on streams of ten
# columns.

# %% [markdown]
# ## Natural feature groups: internet advertisements
#
# The paper's natural classes (word-sense disambiguation features) are not public.  The
# UCI internet-ads data have six groups of columns (image geometry, words of the page URL,
# of the image URL, of the anchor URL, of the alt text and of the caption), which
# `datasets.load` returns as `groups`; each becomes a `stream()`.  The paper has no
# numbers for these data, so there is nothing to compare with but ourselves: multiple
# streams against one stream (the groups concatenated, smallest first, as the paper's
# SFS), with and without interactions (full run only: kind 2 over 1,558 columns costs
# about a minute per fold).  Missing geometry values (28% of rows) are imputed with the
# training fold's median.

# %%
ads = sr.datasets.load("internet_ads")
xd, yd = ads.arrays()
names = [f"{g}_{i}" for g, members in ads.groups.items() for i in range(1, len(members) + 1)]
assert [c for members in ads.groups.values() for c in members] == list(ads.X.columns)
rhs = " + ".join(f"stream({g}_*)" for g in ads.groups)
ads_specs = {"multi-stream": (rhs, {}), "single stream": (rhs, {"multistream": False})}
if not QUICK:
    ads_specs["multi-stream + interactions"] = (rhs + " + interactions()", {})
    ads_specs["single stream + interactions"] = (rhs + " + interactions()", {"multistream": False})
ads_rows = {label: [] for label in ads_specs}
ads_folds = list(StratifiedKFold(n_splits=10, shuffle=True, random_state=0).split(xd, yd))[:ADS_FOLDS]
for tr, te in ads_folds:
    xi = np.where(np.isnan(xd), np.nanmedian(xd[tr], axis=0), xd)
    train, test = fold_frames(xi, yd, names, tr, te)
    for label, (r, opts) in ads_specs.items():
        ads_rows[label].append(run("y ~ " + r, train, test, yd[te], **opts))
print(f"internet ads: {len(yd)} rows ({int(yd.sum())} ads), {xd.shape[1]} columns in {len(ads.groups)} groups: "
      + ", ".join(f"{g} {len(m)}" for g, m in ads.groups.items()))
print(summarise(ads_rows).to_string())
per_group = pd.Series([s for r in ads_rows["multi-stream"] for s in r["fit"].selected["stream"].astype(str)])
print("terms selected by multi-stream, by group (summed over folds):")
print(per_group.value_counts().to_string())

# %% [markdown]
# On these data the classes are real, and both searches find about 3% error (the ads
# are 14% of the rows).  The full render (10 folds): 3.0% ± 0.8 for multi-stream with 134
# terms, 2.8% ± 0.6 for a single stream with 139 terms; `alpha_delta = 0.5` per stream
# rewards every acceptance generously, so a productive group keeps a permissive level for
# long.  Interactions cost time and added nothing: 4.0% ± 1.0 with 286 terms, 247 of them
# products (31 s per fold), and 3.5% ± 1.1 with 317 terms in a single stream (103 s per
# fold).

# %%
print(f"vignette run time: {time.perf_counter() - t_start:.0f} s ({'quick' if QUICK else 'full'} mode)")
