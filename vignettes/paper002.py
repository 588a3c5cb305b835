# %% [markdown]
# # Online and offline feature screening (M. Wang, FSU thesis 2021)
#
# The thesis has three parts, and so has this vignette.
#
# 1. **Offline screening scores** (chapter 2): T-score, Fisher score, chi-square, Gini
#    index, mutual information, Relief and mRMR for classification; correlation, mutual
#    information and RReliefF for regression.  The thesis judges them by the test AUC or R²
#    of learners trained on the features they keep (7 runs of 7-fold cross-validation on ten
#    real data sets, Tables 2.2–2.9).  We check every score against an independent
#    computation, measure how often each one finds the true features where the truth is
#    known (the thesis's own simulation, eqs. 3.20–3.21, and madelon, whose 20 relevant
#    columns can be read off the data), and rerun the cross-validated comparison of its
#    Table 2.7 on the two of its classification sets we have (madelon, dexter).
# 2. **Online screeners** (chapter 3): the moment scores from running sums, and chi-square,
#    Gini and mutual information from streaming quantile summaries; their agreement with
#    the offline scores as the summary precision ε varies (Tables 3.4–3.6), and concept
#    drift handled by fading (eqs. 3.20–3.22, Figs. 3.2–3.3).
# 3. **Feature selection with annealing** (FSA, section 2.5): the annealing schedule (eq.
#    2.26), and FSA run as a selection method through `sr.select`, so that its model is the
#    same results object as alpha-investing's and `sr.compare` can put them side by side.
#
# `STREAMREG_VIGNETTE_QUICK=1` runs shrunken versions (about 10 seconds).  The full run
# (`vignettes/render.sh paper002.py`) uses the thesis's sizes where it gives them; without
# the cross-validation of section 1 it takes about 5 minutes on one core, and the
# cross-validation (madelon and dexter, 2 runs of 7 folds, 3 learners) adds what is likely
# the better part of an hour.  Numbers quoted in the text come from full-size runs.

# %%
import os
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy import stats
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import mutual_info_score, roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB

import streamreg as sr
from streamreg import screening as S
from streamreg.screening import criteria

QUICK = os.environ.get("STREAMREG_VIGNETTE_QUICK", "") not in ("", "0")
pd.set_option("display.width", 130)
pd.set_option("display.max_columns", 20)
t_start = time.perf_counter()



def show(df, digits=3):
    print(df.to_string(float_format=lambda v: f"{v:.{digits}g}"))


# %% [markdown]
# ## 1. Offline scores
#
# ### Each score against an independent computation
#
# `screening.score(X, y, method)` returns one number per column, higher always meaning more
# relevant (the Gini index is reported as the gain `Gini(y) − min_h Gini_split(h)`, so that
# the thesis's "smaller split impurity is better" keeps its order).  Before using the scores
# we recompute each one another way on a small data set: the T-score is Welch's statistic
# (`scipy.stats.ttest_ind(equal_var=False)`); the Fisher score of eq. 2.16 is the one-way
# ANOVA F scaled by `(C − 1)/(n − C)`; chi-square and mutual information are those of the
# bin × class table (`scipy.stats.chi2_contingency` without continuity correction,
# `sklearn.metrics.mutual_info_score`) with the equal-frequency bins of `bin_codes`; Gini is
# a loop over thresholds; Relief (eq. 2.3, one neighbour) a loop over instances with
# range-scaled distances; correlation `numpy.corrcoef`.

# %%
rng = np.random.default_rng(2021)
n_chk, p_chk = 240, 12
Xc = rng.normal(size=(n_chk, p_chk)) + 0.5 * rng.normal(size=(n_chk, 1))
Xc[:, 3] = np.round(Xc[:, 3])  # ties, as in discrete features
yc_num = Xc[:, :3].sum(axis=1) + rng.normal(size=n_chk)
yc = (yc_num > 0).astype(int)
codes = S.bin_codes(Xc, 5)


def gini_gain_loop(x_codes, labels, K=5):
    def impurity(lab):
        if lab.size == 0:
            return 0.0
        q = np.bincount(lab, minlength=2) / lab.size
        return 1 - (q ** 2).sum()
    best = min(((x_codes <= h).mean() * impurity(labels[x_codes <= h])
                + (x_codes > h).mean() * impurity(labels[x_codes > h])) for h in range(K))
    return impurity(labels) - best


def relief_loop(X, labels):
    Z = (X - X.min(0)) / (X.max(0) - X.min(0))
    D = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    W = np.zeros(X.shape[1])
    for i in range(len(Z)):
        same = labels == labels[i]
        hit = np.argmin(np.where(same, D[i], np.inf))
        miss = np.argmin(np.where(~same, D[i], np.inf))
        W += np.abs(Z[i] - Z[miss]) - np.abs(Z[i] - Z[hit])
    return W / len(Z)


C_ = 2
reference = {
    "t": np.abs(stats.ttest_ind(Xc[yc == 1], Xc[yc == 0], equal_var=False).statistic),
    "fisher": stats.f_oneway(Xc[yc == 0], Xc[yc == 1]).statistic * (C_ - 1) / (n_chk - C_),
    "chi2": np.array([stats.chi2_contingency(pd.crosstab(codes[:, j], yc).to_numpy(), correction=False)[0]
                      for j in range(p_chk)]),
    "mi": np.array([mutual_info_score(codes[:, j], yc) for j in range(p_chk)]),
    "gini": np.array([gini_gain_loop(codes[:, j], yc) for j in range(p_chk)]),
    "relief": relief_loop(Xc, yc),
}
check = pd.DataFrame({m: {"max |ours - reference| / max |reference|":
                          np.abs(S.score(Xc, yc, m).to_numpy() - ref).max() / np.abs(ref).max()}
                      for m, ref in reference.items()}).T
check.loc["corr (regression)"] = np.abs(S.score(Xc, yc_num, "corr").to_numpy()
                                        - np.abs([np.corrcoef(Xc[:, j], yc_num)[0, 1] for j in range(p_chk)])).max()
show(check)
assert (check.iloc[:, 0] < 1e-10).all()

# %% [markdown]
# Agreement to rounding for every score.  (mRMR is an ordering built from the same mutual
# informations, RReliefF a weighted neighbour count of eq. 2.22; both are covered by the
# package's tests, not repeated here.)
#
# ### Recovery on the thesis's simulation
#
# The thesis's only simulated design is the one of its drift experiment (eqs. 3.20–3.21):
# `x_i = ν z_i 1 + ε_i` (one common factor, `ν = 0.5`, so any two features correlate at
# 0.2), `y_i = β'x_i + e_i` with `k = 100` coefficients equal to `b = 1` among `p = 1000`,
# and Gaussian noise.  Without drift the true features are fixed; we put them at random
# positions (the scores break ties by column order, so true features in the first columns
# would be favoured by a score that ties, such as mRMR's zero for the unchosen features).
# The classification scores see the label `sign(y)` (the thesis does not say how it turned
# its continuous `y` into classes for them); the regression scores see `y`.
#
# Its metric is the detection rate `DetRate@k = |selected ∩ true| / |true|` of the top-`k`
# features (eq. 3.23; the thesis uses `k = 500`).  It reports no offline recovery numbers
# (chapter 2 works on real data only), so this table stands alone.  It shows how hard the
# design is: the common factor dominates `y` (its share of `var(y)` is `100² ν² / (100² ν²
# + 100 + 1) ≈ 0.96`), so every feature, true or not, correlates with `y` at about 0.44 and a
# true one only about 0.02 more.  Only thousands of rows tell them apart.

# %%
P_SIM, K_SIM = (300, 30) if QUICK else (1000, 100)
NS_SIM = [1000] if QUICK else [1000, 4000, 16000]
REPS_SIM = 1 if QUICK else 3


def simulate(n, p=P_SIM, k=K_SIM, nu=0.5, seed=0):
    g = np.random.default_rng([2021, seed, n])
    X = nu * g.normal(size=(n, 1)) + g.normal(size=(n, p))
    true = np.sort(g.choice(p, k, replace=False))
    y = X[:, true].sum(axis=1) + g.normal(size=n)
    return X, y, true


def det_rate(scores, true, k):
    r = S.rank(scores).to_numpy()
    return float(np.mean(r[true] <= k))


CLASS_METHODS = ["t", "fisher", "chi2", "gini", "mi", "relief", "relieff", "mrmr"]
REG_METHODS = ["corr", "mi", "rrelieff"]
rows = []
for n in NS_SIM:
    for rep in range(REPS_SIM):
        X, y, true = simulate(n, seed=rep)
        lab = (y > 0).astype(int)
        for task, methods, target in [("classification", CLASS_METHODS, lab), ("regression", REG_METHODS, y)]:
            for m in methods:
                if m in ("relief", "relieff", "rrelieff", "mrmr") and n > 4000:
                    continue  # O(n^2) neighbour searches, O(k p n) for mRMR: the smaller n only
                kw = {"n_select": 2 * K_SIM} if m == "mrmr" else {}
                t0 = time.perf_counter()
                s = S.score(X, target, m, task=task if m == "mi" else None, **kw)
                rows.append({"task": task, "score": m, "n": n, "rep": rep, "seconds": time.perf_counter() - t0,
                             f"DetRate@{K_SIM}": det_rate(s, true, K_SIM),
                             f"DetRate@{5 * K_SIM}": det_rate(s, true, 5 * K_SIM)})
rec = pd.DataFrame(rows)
show(rec.groupby(["task", "score", "n"], sort=False)[[f"DetRate@{K_SIM}", f"DetRate@{5 * K_SIM}", "seconds"]]
     .mean().unstack("n"), 2)

# %% [markdown]
# A random choice of `5k` features of `p = 10k` would detect half of the true ones, of `k`
# a tenth.  Every score does better, and detection grows with n (full run: DetRate@100 of
# the T-score 0.21, 0.38, 0.66 at n = 1,000, 4,000, 16,000).  With a Gaussian design the
# signal is a shift of the class means, which the T and Fisher scores measure directly;
# chi-square and mutual information, which see it through five bins, are as good at these
# sizes and Gini, which keeps only the best single split, a little worse (0.54 against
# 0.66 at n = 16,000).  Relief and ReliefF, whose neighbours are found in all 1,000
# dimensions, are the weakest.  mRMR is the best at @100 with n = 4,000 (0.41) but orders
# only its first 200 features; the others tie at zero, so its @500 is near chance.  For
# regression, correlation uses the continuous `y` and beats every classification score,
# which see only its sign; RReliefF does better still at n = 4,000 (0.54 against 0.47).  The
# T and Fisher scores (and correlation) take milliseconds where the bin-count scores take
# seconds: their cost is a sort of every column.
#
# ### Recovery on madelon, whose relevant columns are known
#
# madelon (NIPS 2003) was built from 5 informative features, 15 linear combinations of them
# and 480 independent probes (Guyon et al. 2005).  The challenge never published which
# columns are which, but the data tell: 20 columns correlate at |r| ≥ 0.69 with some other
# column, all others at |r| ≤ 0.1, and the covariance of those 20 has five large singular
# values (65 to 217) and 15 small ones (13 or less): they are the informative features and their
# combinations.  We take them as the truth and ask how many of them each score puts in its
# top 20 (all 2,600 rows: training and validation).

# %%
mad = sr.datasets.load("madelon")
Xm, ym = mad.arrays()
Xm = np.asarray(Xm, dtype=float)
Cm = np.corrcoef(Xm, rowvar=False)
np.fill_diagonal(Cm, 0)
max_r = np.abs(Cm).max(axis=0)
mad_true = np.sort(np.argsort(-max_r)[:20])
sv = np.linalg.svd(Xm[:, mad_true] - Xm[:, mad_true].mean(0), compute_uv=False) / np.sqrt(len(Xm))
print("largest |r| with another column: relevant", np.round(max_r[mad_true].min(), 2),
      "(smallest of the 20), probes", np.round(np.delete(max_r, mad_true).max(), 2), "(largest of the 480)")
print("singular values of the 20 relevant columns (centred, / sqrt n):", np.round(sv, 1))
print("relevant columns (1-based, as madelon's x1..x500):", (mad_true + 1).tolist())

mad_methods = ["t", "fisher", "chi2", "gini", "mi"] if QUICK else CLASS_METHODS
mad_rows = {}
for m in mad_methods:
    t0 = time.perf_counter()
    s = S.score(Xm, ym, m, **({"n_select": 40} if m == "mrmr" else {}))
    r = S.rank(s).to_numpy()
    mad_rows[m] = {"relevant in top 20": int((r[mad_true] <= 20).sum()),
                   "relevant in top 40": int((r[mad_true] <= 40).sum()),
                   "seconds": time.perf_counter() - t0}
show(pd.DataFrame(mad_rows).T, 3)

# %% [markdown]
# The univariate scores put 13 of the 20 in their top 20, and no more in their top 40: the
# other seven matter to the label only jointly (madelon's classes are clusters on the
# vertices of a five-dimensional hypercube), which no univariate score can see.  Relief and
# ReliefF, built to catch such interactions, find 17 and 19 of them in their top 20 (full
# run; quick mode prints the univariate five only).  mRMR finds 3: once one of a group of
# near-identical columns is in, the redundancy penalty keeps its copies out, which is the
# point of mRMR and here costs recovery of the redundant copies.
#
# ### Does screening help a learner? (Table 2.7, madelon and dexter)
#
# The thesis's protocol: standardise the predictors; for each of 7 random permutations,
# 7-fold cross-validation, screening on the training folds only, then a learner on the kept
# features; the AUC of the pooled test predictions of a run, averaged over the runs; the
# number of kept features `M_i = [(4i)^τ]`, `i = 1..30` (τ = 1.25 for madelon, 1.78 for
# dexter).  For each screening method, the best learner and `M` are compared with the best
# learner without screening by a paired t-test over the runs at level 0.05: `*` when
# significantly better, `=` when not significantly different, blank when worse.
#
# We run a reduced version: learners logistic regression (L2, C = 1), Gaussian naive Bayes
# and gradient-boosted trees (scikit-learn's `HistGradientBoostingClassifier`) stand in for
# the thesis's Matlab logistic regression, naive Bayes, boosted trees, SVM and FSA; 6 of the
# 30 values of `M`; 2 runs of 7-fold cross-validation (quick mode: madelon, two screening
# methods, two fast learners, 2 runs of 3 folds).  The thesis's Table 2.7 row for each data
# set is printed beside ours.

# %%
PAPER_T27 = {  # thesis Table 2.7: * better than the best learner without screening, = same group, blank worse
    "madelon": {"chi2": "*", "gini": "*", "relief": "*", "mi": "*", "t": "*", "fisher": "*", "mrmr": "*"},
    "dexter": {"chi2": "=", "gini": "=", "relief": "", "mi": "=", "t": "=", "fisher": "=", "mrmr": "="},
}
TAU = {"madelon": 1.25, "dexter": 1.78}
MRMR_MAX = 150
if QUICK:
    CV_SETS, CV_METHODS, RUNS_CV, FOLDS_CV, I_GRID = ["madelon"], ["t", "mi"], 2, 3, [3, 8]
    LEARNERS = {"logistic": lambda: LogisticRegression(C=1.0, max_iter=500), "naive Bayes": GaussianNB}
else:
    CV_SETS, CV_METHODS, RUNS_CV, FOLDS_CV, I_GRID = ["madelon", "dexter"], CLASS_METHODS[:], 2, 7, [2, 5, 12]
    CV_METHODS.remove("relieff")  # the thesis's Relief is the one-neighbour version
    LEARNERS = {"logistic": lambda: LogisticRegression(C=1.0, max_iter=500), "naive Bayes": GaussianNB,
                "boosted trees": lambda: HistGradientBoostingClassifier(max_iter=100, random_state=0)}


def standardise(X):
    if sp.issparse(X):
        X = X.toarray()
    X = np.asarray(X, dtype=float)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def cv_auc(name):
    X, y = sr.datasets.load(name).arrays()
    X = standardise(X)
    if name == "dexter":
        X = X[:, X.std(axis=0) > 0]  # dexter has all-zero columns
    p = X.shape[1]
    Ms = sorted({min(p, int((4 * i) ** TAU[name])) for i in I_GRID})
    out = []
    for run in range(RUNS_CV):
        folds = StratifiedKFold(FOLDS_CV, shuffle=True, random_state=run).split(X, y)
        pred = {}
        for tr, te in folds:
            ranks = {"none": np.arange(1, p + 1)}
            for m in CV_METHODS:
                kw = {"n_select": MRMR_MAX} if m == "mrmr" else {}
                ranks[m] = S.rank(S.score(X[tr], y[tr], m, **kw)).to_numpy()
            for m, r in ranks.items():
                # mRMR orders only its first MRMR_MAX features (O(M p n) work): no larger M
                for M in ([p] if m == "none" else [M for M in Ms if m != "mrmr" or M <= MRMR_MAX]):
                    cols = np.flatnonzero(r <= M)
                    for ln, make in LEARNERS.items():
                        fit = make().fit(X[tr][:, cols], y[tr])
                        key = (m, ln, M)
                        pred.setdefault(key, np.empty(len(y)))[te] = fit.predict_proba(X[te][:, cols])[:, 1]
        out += [{"data": name, "screening": m, "learner": ln, "M": M, "run": run, "auc": roc_auc_score(y, v)}
                for (m, ln, M), v in pred.items()]
    return pd.DataFrame(out)


t0 = time.perf_counter()
auc = pd.concat([cv_auc(name) for name in CV_SETS], ignore_index=True)
print(f"cross-validation: {time.perf_counter() - t0:.0f} s")


def table27(auc):
    rows = {}
    for name, d in auc.groupby("data"):
        mean = d.groupby(["screening", "learner", "M"])["auc"].mean()
        base_key = mean.loc["none"].idxmax()
        base = d[(d.screening == "none") & (d.learner == base_key[0])].sort_values("run")["auc"].to_numpy()
        rows[(name, "no screening")] = {"best learner": base_key[0], "M": base_key[1], "AUC": base.mean(),
                                        "ours": "", "thesis": ""}
        for m in CV_METHODS:
            ln, M = mean.loc[m].idxmax()
            best = d[(d.screening == m) & (d.learner == ln) & (d.M == M)].sort_values("run")["auc"].to_numpy()
            pval = stats.ttest_rel(best, base).pvalue if np.any(best != base) else 1.0
            mark = "=" if pval >= 0.05 else ("*" if best.mean() > base.mean() else "")
            rows[(name, m)] = {"best learner": ln, "M": M, "AUC": best.mean(), "paired p": pval,
                               "ours": mark, "thesis": PAPER_T27[name][m]}
    return pd.DataFrame(rows).T


t27 = table27(auc)
show(t27, 3)

# %% [markdown]
# AUC against the number of kept features for the best learner of each screening method
# (the thesis's Fig. 2.3, left), with the best learner without screening as a horizontal
# line.

# %%
fig, axes = plt.subplots(1, len(CV_SETS), figsize=(6.5 * len(CV_SETS), 4), squeeze=False)
for ax, (name, d) in zip(axes[0], auc.groupby("data")):
    curve = d[d.screening != "none"].groupby(["screening", "M", "learner"])["auc"].mean().groupby(["screening", "M"]).max()
    for m in CV_METHODS:
        ax.plot(curve.loc[m].index, curve.loc[m].to_numpy(), marker="o", ms=3, label=m)
    ax.axhline(d[d.screening == "none"].groupby("learner")["auc"].mean().max(), color="k", ls="--",
               label="no screening")
    ax.set_xscale("log")
    ax.set_xlabel("features kept M")
    ax.set_ylabel("AUC (best learner)")
    ax.set_title(name)
    ax.legend(fontsize="x-small")
fig.tight_layout()

# %% [markdown]
# **madelon**: the thesis marks every screening method `*`.  The gain comes from nonlinear
# learners on a few screened features: madelon's classes are not linearly separable, so
# logistic regression and naive Bayes stay near an AUC of 0.6 with or without screening,
# while boosted trees reach about 0.93 on the 13–22 best features by T, MI or Relief
# against 0.895 on all 500 columns (one 7-fold run, checked separately while writing).
# mRMR is the exception in ours: its best is about 0.84, below no screening, because it
# keeps only 3 of the 20 relevant columns in its top 20 (see above).  The thesis's mRMR
# (the ASU code, on its own discretisation) got `*`; we have not found why, and our MID
# criterion follows eq. 2.6.  Quick mode has no boosted trees and so no `*`.
#
# **dexter**: the thesis finds no significant gain from any method (`=`) and a loss for
# Relief (blank).  With a paired t-test over 2 runs (1 degree of freedom, against the
# thesis's 6) the `=` and blank marks swing with the split; where ours differ from the
# thesis's the cause is this protocol (fewer runs, three of the thirty `M`, scikit-learn
# learners in place of Matlab's), not the scores, which section 1 checked exactly.
#
# ## 2. Online screeners
#
# ### Moment scores are exact
#
# Section 3.3.1: the T and Fisher scores need only per-class counts, means and sums of
# squares, so running sums give the offline values exactly.  The thesis therefore reports no
# comparison for them.  Fed in minibatches of 250 rows, as in the thesis:

# %%
def feed(screener, X, y, batch=250):
    for i in range(0, X.shape[0], batch):
        screener.partial_fit(X[i:i + batch], y[i:i + batch])
    return screener


ONLINE_SETS = ["madelon", "dexter"] if QUICK else ["madelon", "dexter", "dorothea", "gisette"]
data_on = {}
for name in ONLINE_SETS:
    X, y = sr.datasets.load(name).arrays()
    data_on[name] = (X.astype(np.float64).tocsr() if sp.issparse(X) else np.asarray(X, dtype=float),
                     np.asarray(y).astype(int))
mom = {}
for name, (X, y) in data_on.items():
    for m in ("t", "fisher"):
        ref = S.score(X, y, m).to_numpy()
        got = feed(S.OnlineMomentScreener(m, classes=[0, 1]), X, y).scores_.to_numpy()
        ok = np.isfinite(ref) & (ref > 0)
        mom[(name, m)] = float(np.max(np.abs(got[ok] / ref[ok] - 1)))
print("max relative difference, online vs offline:")
show(pd.Series(mom).unstack())

# %% [markdown]
# ### Quantile-summary scores against their offline versions (Tables 3.4–3.6)
#
# Chi-square, Gini and mutual information need bin counts, and equal-frequency bins need
# quantiles.  `OnlineQuantileScreener` keeps a weighted ε-approximate quantile summary per
# feature (the multi-level structure of section 3.3.2, with the thesis's "exact weight
# update": each tuple is a mini-bin carrying the exact number of observations it covers) and
# bins it on demand with Algorithm 4, K = 5 bins.  We pass each data set once in minibatches
# of 250 rows, for the thesis's values of ε, and compare with the offline scores:
#
# * Table 3.4: mean absolute count difference per feature per bin (summed over the two
#   classes; the thesis does not say how it counts the classes);
# * Table 3.5: the score difference ratio DR of eq. 3.19, `mean_j |w_on − w_off| /
#   (max W_off − min W_off)`;
# * Table 3.6: the share of the offline top 10 % of features whose online rank differs.
#
# The thesis's columns for our four data sets are printed beside ours.  Its gisette has the
# 7,000 training and validation rows; the project's copy lacks the training data, so ours is
# the 1,000 validation rows.  The other three are the sizes of the thesis (madelon 2,600,
# dexter 600, dorothea 1,150).

# %%
EPS = [0.2, 0.01, 0.002] if QUICK else [0.2, 0.02, 0.01, 0.002, 0.001, 1 / 1500, 0.0005]
PAPER_34 = {0.2: [76.09, 0.012, 0, 8.21], 0.02: [7.57, 0.0011, 0, 0.7], 0.01: [1.18, 0.00047, 0, 0.17]}
PAPER_35 = {
    "chi2": {0.2: [0.18, 4.2e-5, 0, 0.001], 0.02: [0.0042, 6.6e-7, 0, 4.3e-5], 0.01: [0.00089, 4.7e-7, 0, 1.0e-5]},
    "gini": {0.2: [0.12, 3.4e-5, 0, 0.00037], 0.02: [0.0029, 1.4e-6, 0, 2.4e-5], 0.01: [0.00055, 2.2e-7, 0, 3.2e-6]},
    "mi": {0.2: [0.17, 4.5e-5, 0, 0.00099], 0.02: [0.0042, 7.7e-7, 0, 4.3e-5], 0.01: [0.00088, 4.0e-7, 0, 1.1e-5]},
}
PAPER_36 = {
    "chi2": {0.2: [1, 0.89, 0, 0.81], 0.02: [0.8, 0, 0, 0.36], 0.01: [0.42, 0, 0, 0.12]},
    "gini": {0.2: [0.92, 0.88, 0, 0.66], 0.02: [0.68, 0, 0, 0.28], 0.01: [0.28, 0, 0, 0.028]},
    "mi": {0.2: [1, 0.92, 0, 0.8], 0.02: [0.8, 0, 0, 0.39], 0.01: [0.44, 0, 0, 0.12]},
}
PAPER_ORDER = ["madelon", "dexter", "dorothea", "gisette"]  # the columns of the lists above


def paper_value(table, eps, name):
    """The thesis's value, 0 for every eps <= 0.002 (all its tables are 0 there)."""
    if eps <= 0.002 + 1e-12:
        return 0.0
    return table[eps][PAPER_ORDER.index(name)]


def dr(on, off):
    span = off.max() - off.min()
    return float(np.mean(np.abs(on - off)) / span) if span > 0 else 0.0


def top_mismatch(on, off):
    r_on, r_off = S.rank(pd.Series(on)).to_numpy(), S.rank(pd.Series(off)).to_numpy()
    top = r_off <= max(1, len(off) // 10)
    return float(np.mean(r_on[top] != r_off[top]))


off_counts = {name: S.bin_counts(X, y) for name, (X, y) in data_on.items()}
rows34, rows35, rows36, cert, timing = [], [], [], {}, {}
for eps in EPS:
    for name, (X, y) in data_on.items():
        t0 = time.perf_counter()
        on = feed(S.OnlineQuantileScreener("chi2", eps=eps, classes=[0, 1]), X, y)
        counts = on.counts_
        timing[(name, eps)] = time.perf_counter() - t0
        cert[(f"{eps:.3g}", name)] = float(on.sketch_.error_.max())
        rows34.append({"eps": f"{eps:.3g}", "data": name,
                       "ours": float(np.abs(counts - off_counts[name]).sum(axis=2).mean()),
                       "thesis": paper_value(PAPER_34, eps, name)})
        for m in ("chi2", "gini", "mi"):
            w_on = criteria.contingency_score(m, counts)
            w_off = criteria.contingency_score(m, off_counts[name])
            rows35.append({"score": m, "eps": f"{eps:.3g}", "data": name, "ours": dr(w_on, w_off),
                           "thesis": paper_value(PAPER_35[m], eps, name)})
            rows36.append({"score": m, "eps": f"{eps:.3g}", "data": name, "ours": top_mismatch(w_on, w_off),
                           "thesis": paper_value(PAPER_36[m], eps, name)})


def side_by_side(rows, index):
    d = pd.DataFrame(rows).set_index(index + ["data"])[["ours", "thesis"]].unstack("data")
    return d.swaplevel(axis=1).reindex(columns=[(n, c) for n in ONLINE_SETS for c in ("ours", "thesis")])


print("Table 3.4: mean |count difference| per feature per bin")
show(side_by_side(rows34, ["eps"]))
print("\ncertified rank error of the summaries / n (largest over features; must be <= eps)")
show(pd.Series(cert).unstack())

# %%
print("Table 3.5: score difference ratio DR (eq. 3.19)")
show(side_by_side(rows35, ["score", "eps"]), 2)

# %%
print("Table 3.6: share of the offline top 10 % ranked differently online")
show(side_by_side(rows36, ["score", "eps"]), 2)
print("\nseconds per pass (minibatch 250), by eps:")
show(pd.Series(timing).unstack(0), 2)

# %% [markdown]
# **What agrees.**  The shape of all three tables: differences shrink with ε and vanish
# for ε ≤ 0.002 on every data set, in both; dorothea is exact at every ε in both (its
# features are binary: a summary of two distinct values is never pruned); dexter's counts
# differ by almost nothing while its top-10 % ranking is scrambled at ε = 0.2 in both
# (0.9 of the top features re-ranked in the thesis and in ours, with score differences of
# 1e-5 of the range: dexter's top scores are nearly tied); and the ranking is the most
# fragile quantity: 0.4 of madelon's top 50 features are still re-ranked at ε = 0.01 in
# both, none at ε ≤ 0.002.
#
# **What differs, and why.**  At the larger ε our summaries are closer to the offline
# counts than the thesis's: on madelon at ε = 0.2 we are off by about 25 observations per
# bin, the thesis by 76 (of 520 per bin), and our DR is 20 times smaller (0.0077 against
# 0.18 for chi-square).  Both are within the guarantee (rank error at most εn = 520
# observations), so neither is a defect: the error actually incurred depends on how often
# the summaries are pruned and to what size.  Ours buffer `max(256, 2/ε)` rows exactly
# before the first prune and prune level `l` to `(l + 1)(l + 2)/ε` tuples (the certified
# error printed above, 0.1 of n at ε = 0.2, is half the bound), while the thesis's blocks of
# `L/ε` rows prune sooner.  gisette is not comparable: the thesis's has 7,000 rows, ours
# 1,000.  Our count error there is smaller (1.0 against 8.2 per bin at ε = 0.2), but our DR
# and rank mismatch at ε = 0.01–0.02 are larger (chi-square top 10 %: 0.33 against 0.12 at
# ε = 0.01): with a seventh of the rows the top scores are closer together relative to the
# count errors, so the same relative error reorders more of them.
#
# **Time.**  The thesis's Tables 3.2–3.3 time its Matlab code; ours (seconds per pass above)
# are Python and not comparable in absolute terms.  Small ε costs little here because a
# summary of `n` rows with `n < 2/ε` is exact and stays one buffer.
#
# ### Concept drift and fading (section 3.4.2, Figs. 3.2–3.3)
#
# The drifting simulation: eqs. 3.20–3.21 as above (p = 1000, k = 100 true, ν = 0.5, b =
# 1, 100,000 rows), but the true set slides: the coefficients are `b` on features
# `⌊i/l⌋ .. ⌊i/l⌋ + k − 1` for row `i`, so it moves one feature every `l` rows.  The label
# is `sign(y)`; the screeners see minibatches of 250 rows; at the end we measure the
# detection rate of the *current* true set.  The thesis shows its results only as figures
# (no numbers), with the fading factor `α = 0.9` and `k = 500` selected.
#
# The package's fading is per row (eq. 3.16: a row seen `a` rows ago weighs `α^a`), so the
# screener remembers about `1/(1 − α)` rows.  The thesis's `α = 0.9` cannot be per row here:
# ten rows cannot tell a true feature from a null one when the two differ in correlation by
# 0.02 (section 1), and its Fig. 3.2 shows detection rates near 1.  It is presumably per
# minibatch of 250 rows, i.e. `0.9^(1/250) ≈ 0.99958` per row, a memory of about 2,400 rows.
# We run per-row `α` of 0.9999, 0.9995 (≈ the thesis's 0.9 per minibatch) and 0.999, and no
# fading.

# %% [markdown]
# First, fading itself, checked: with `α` per row, the faded T-score is Welch's statistic
# with frequency weights `α^(n − i)`, i.e. weighted class means and variances with
# `Σw − 1` in the denominator and the class mass `Σw` in place of the class size.
# `statsmodels`' `DescrStatsW` computes those independently.  Dense and sparse input (whose
# features are faded lazily, from a time anchor per feature, as in section 3.3.1) in chunks
# of 37 rows:

# %%
from statsmodels.stats.weightstats import DescrStatsW

g = np.random.default_rng(5)
n_f, p_f, a_f = 1000, 20, 0.995
Xf = g.normal(size=(n_f, p_f)) + np.linspace(0, 1, n_f)[:, None] * (np.arange(p_f) < 3)
Xf[g.random((n_f, p_f)) < 0.7] = 0.0
yf = (g.random(n_f) < 0.4).astype(int)
wf = a_f ** (n_f - 1 - np.arange(n_f))
ref_f = []
for j in range(p_f):
    d0, d1 = (DescrStatsW(Xf[yf == c, j], weights=wf[yf == c], ddof=1) for c in (0, 1))
    ref_f.append(abs(d1.mean - d0.mean) / np.sqrt(d1.var / d1.sum_weights + d0.var / d0.sum_weights))
for label, M in [("dense", Xf), ("sparse", sp.csr_matrix(Xf))]:
    got = feed(S.OnlineMomentScreener("t", fading=a_f, classes=[0, 1]), M, yf, batch=37).scores_.to_numpy()
    rel = np.max(np.abs(got / np.array(ref_f) - 1))
    print(f"faded T-score, {label}: max relative difference from DescrStatsW {rel:.1e}")
    assert rel < 1e-10

# %%
N_DRIFT = 10_000 if QUICK else 100_000
SHIFTS = [250, 2000] if QUICK else [250, 500, 1000, 2000]
FADINGS = [None, 0.9995] if QUICK else [None, 0.9999, 0.9995, 0.999]
P_D, K_D, KS_D = 1000, 100, [100, 200, 500]


def drift_stream(n, shift, seed=0, chunk=250, p=P_D, k=K_D, nu=0.5):
    g = np.random.default_rng([3, seed, shift])
    for start in range(0, n, chunk):
        i = start + np.arange(min(chunk, n - start))
        X = nu * g.normal(size=(len(i), 1)) + g.normal(size=(len(i), p))
        idx = ((i // shift)[:, None] + np.arange(k)[None, :]) % p
        y = np.take_along_axis(X, idx, axis=1).sum(axis=1) + g.normal(size=len(i))
        yield i[-1], X, (y > 0).astype(int)


def current_truth(last_row, shift, p=P_D, k=K_D):
    return (last_row // shift + np.arange(k)) % p


def run_drift(make, shift, n=N_DRIFT, every=None):
    scr, curve = make(), []
    for last, X, y in drift_stream(n, shift):
        scr.partial_fit(X, y)
        if every and (last + 1) % every == 0:
            curve.append((last + 1, det_rate(scr.scores_, current_truth(last, shift), 500)))
    s = scr.scores_
    truth = current_truth(n - 1, shift)
    return {f"@{k}": det_rate(s, truth, k) for k in KS_D}, curve


drift_rows, curves = [], {}
drift_methods = {"t": "moment"} if QUICK else {"t": "moment", "fisher": "moment", "mi": "quantile"}
for m, kind in drift_methods.items():
    for shift in SHIFTS:
        for a in FADINGS:
            if kind == "quantile" and (shift not in (250, 2000) or a not in (None, 0.9995)):
                continue  # the quantile screeners take ~35 s per run here: a reduced grid
            def make(m=m, a=a, kind=kind):
                if kind == "moment":
                    return S.OnlineMomentScreener(m, fading=a, classes=[0, 1])
                return S.OnlineQuantileScreener(m, eps=0.05, fading=a, classes=[0, 1])
            t0 = time.perf_counter()
            rates, curve = run_drift(make, shift, every=N_DRIFT // 20 if kind == "moment" else None)
            if m == "t":
                curves[(shift, a)] = curve
            drift_rows.append({"score": m, "shift every l rows": shift,
                               "fading per row": "none" if a is None else a, **rates,
                               "seconds": time.perf_counter() - t0})
show(pd.DataFrame(drift_rows).set_index(["score", "shift every l rows", "fading per row"]), 2)

# %% [markdown]
# Detection rate @500 of the current true set as the stream goes on, T-score (the thesis's
# Fig. 3.2, top).  Without fading the screener keeps crediting features that left the true
# set long ago; with fading it tracks the moving set, at the price of a noisier estimate.

# %%
fig, ax = plt.subplots(figsize=(7, 4))
for (shift, a), curve in curves.items():
    if a not in (None, 0.9995) or shift not in (SHIFTS[0], SHIFTS[-1]):
        continue
    rows_seen, rate = zip(*curve)
    ax.plot(rows_seen, rate, ls="--" if a is None else "-", color=f"C{SHIFTS.index(shift)}",
            label=f"l = {shift}, " + ("no fading" if a is None else f"alpha = {a} per row"))
ax.axhline(0.5, color="0.5", lw=0.8)
ax.annotate("random choice of 500", (N_DRIFT * 0.6, 0.51), fontsize="x-small", color="0.4")
ax.set_xlabel("rows seen")
ax.set_ylabel("DetRate@500, current true set")
ax.set_ylim(0.3, 1.02)
ax.legend(fontsize="x-small")
fig.tight_layout()

# %% [markdown]
# **Against the thesis.**  It claims (i) the five screeners perform alike — ours do (T and
# Fisher identical to two digits, mutual information close); (ii) faster drift lowers
# detection — yes, at every fading; (iii) fading improves detection under fast drift — yes:
# at `l = 250` the rate @500 rises from 0.58 without fading to 0.85 with `α = 0.9999`
# and 0.79 with 0.9995;
# (iv) "across all four shift rates, the methods with model adaptation outperform those
# without" — not in ours: at `l = 2000` the true set moves only 50 features in 100,000 rows,
# most of the final true set was true for most of the stream, and forgetting costs more
# than it gains (0.72 without fading @100 against 0.33 with `α = 0.9995`); the longest
# memory, 0.9999, roughly ties (0.70).  The right `α` depends on the drift rate — the thesis's
# heat map (Fig. 3.2, bottom right) makes the same point — and a fixed `α` that helps fast
# drift hurts slow drift.  We cannot check its claim (iv) more closely: its figures give no
# numbers and its label and fading conventions are not stated.
#
# ## 3. Feature selection with annealing (FSA)
#
# ### The schedule
#
# Eq. 2.26: after iteration `e` of `N`, keep `M_e = k + (p − k) max(0, (N − 2e)/(2eμ + N))`
# features.  The package rounds down (as the authors' code does), so the schedule reaches `k`
# exactly at `e = N/2` and FSA then fits the `k` survivors for the remaining iterations.

# %%
p_, k_, N_, mu_ = 1000, 10, 100, 100.0
e = np.arange(1, N_ + 1)
closed = k_ + (p_ - k_) * np.maximum(0, (N_ - 2 * e) / (2 * e * mu_ + N_))
sched = S.fsa_schedule(p_, k_, N_, mu_)
assert np.array_equal(sched, k_ + np.floor(closed - k_).astype(int))
print("M_e for e = 1, 2, 5, 10, 25, 49, 50:", sched[[0, 1, 4, 9, 24, 48, 49]].tolist(),
      "| eq. 2.26 unrounded:", np.round(closed[[0, 1, 4, 9, 24, 48, 49]], 1).tolist())

# %% [markdown]
# With `μ = 100` (the package's default) the first iteration already drops most features:
# FSA's first gradient step is a marginal-correlation screen.
#
# ### FSA as a selection method, in the common results object
#
# `screening.fsa` returns a support and coefficients.  To compare it with the streamwise
# rules on the same footing it is also a search method, `method="fsa"` with its `k=`: it
# reads every candidate, runs FSA and hands the kept terms to the package's refit (least
# squares or logistic regression), so FSA's model gets the same summary, `predict`, plots
# and `sr.compare` as alpha-investing's.

# %% [markdown]
# A regression with a known truth: the design of Zhou et al. (2006) (n = 100 rows, p = 1,000 independent
# N(0, 1) candidates, four of them with coefficient 1, noise variance 0.1), 20 repetitions
# (quick: 3).  FSA is told `k = 4`, the true number, which flatters it; alpha-investing
# (`w0 = alpha_delta = 0.05`) must find the number itself, once in the given column order and
# once with the stream ordered by a screening score (`order="corr"`, the package's use of
# chapter 2: the most correlated candidates first).  Ordering by a score that looks at `y`
# voids alpha-investing's guarantee, and the results say so.

# %%
REPS_FSA = 3 if QUICK else 20
fsa_rows = []
for rep in range(REPS_FSA):
    g = np.random.default_rng([2006, rep])
    X = g.standard_normal((100, 1000))
    true = set(g.choice(1000, 4, replace=False).tolist())
    y = X[:, sorted(true)].sum(axis=1) + np.sqrt(0.1) * g.standard_normal(100)
    top4 = np.flatnonzero(S.rank(S.score(X, y, "corr")).to_numpy() <= 4)
    fits = {
        "FSA, k = 4": sr.select(y, X, method="fsa", k=4),
        "alpha-investing": sr.select(y, X, w0=0.05, alpha_delta=0.05),
        "alpha-investing, order='corr'": sr.select(y, X, w0=0.05, alpha_delta=0.05, order="corr"),
        "top 4 by corr": sr.select(y, pd.DataFrame({f"x{j}": X[:, j] for j in top4}), method="fsa", k=4),
    }
    for rule, f in fits.items():
        hits = len({int(t[1:]) for t in f.selected_terms} & true)
        fsa_rows.append({"rule": rule, "rep": rep, "selected": len(f.selected_terms), "true found": hits,
                         "false": len(f.selected_terms) - hits})
    if rep == 0:
        example = fits
fsa_tab = pd.DataFrame(fsa_rows).groupby("rule", sort=False)[["selected", "true found", "false"]].mean()
show(fsa_tab, 3)

# %% [markdown]
# One repetition side by side, through `sr.compare` (the same table for every method):

# %%
print(sr.compare({k: v for k, v in example.items() if not k.startswith("top")}, float_format="%.3f").as_text())

# %% [markdown]
# Told the right `k`, FSA finds all four features in every one of the 20 runs: with n = 100
# and signal variance 4 against noise 0.1 the annealing path never loses a true feature.
# Marginal screening with the same `k` (top 4 by correlation) finds 3.7 of them: with 1,000
# candidates and 100 rows a null feature sometimes out-correlates a true one, which FSA's
# joint fit corrects.  Alpha-investing, which is not told `k`, finds 3.65 in the given order
# with 0.05 false ones (its mFDR bound is 0.05 with these settings); ordering the stream by
# correlation puts the true features first, where the wealth is largest, so it finds all
# four, with 0.3 false ones — and its guarantee is then reported as void, because the order
# looked at `y`.  FSA's `k` is a tuning parameter that the thesis chooses by
# cross-validation; alpha-investing's stopping is part of the rule.
#
# ## Summary of the differences
#
# * **Offline scores**: equal to independent computations to rounding.  The thesis
#   publishes no recovery numbers; its real-data Table 2.7 is reproduced for madelon (every
#   screening method helps) and, within the noise of three runs, for dexter (none helps).
#   The differences there are protocol: fewer runs, three of the thirty `M`, scikit-learn
#   learners in place of Matlab's.
# * **Online scores**: moment scores exact (to 1e-12) as the thesis says; quantile-summary
#   scores equal to the offline ones for ε ≤ 0.002 as in Tables 3.4–3.6, and closer than
#   the thesis's at larger ε — a different pruning schedule within the same guarantee, not a
#   defect.  gisette has 1,000 rows here against 7,000 in the thesis (training data missing).
# * **Drift**: fading helps under fast drift and hurts under slow drift; the thesis claims it
#   helps at every drift rate, with an unstated fading convention and no numbers.
# * **FSA**: the schedule is eq. 2.26 rounded down; the package has no `method="fsa"`, and
#   the adapter above (about 60 lines) runs it through `sr.select`.

# %%
print(f"total {time.perf_counter() - t_start:.0f} s")
