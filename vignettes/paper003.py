# %% [markdown]
# # Bayesian penalised streaming feature selection (Wang and Luan, IEEE Access 2019)
#
# BP-SFS streams features through two rules: **rule 1** drops a feature whose correlation
# with the response is below `c`; **rule 2** is grafting's gradient test `|dL/dw_j| > lambda`,
# with `lambda` not tuned but re-estimated from the active weights by the Laplace-prior /
# Jeffreys argument, `lambda = p / sum|w|` on the summed negative log-likelihood (the paper's
# eq. 8; Williams 1995, Cawley and Talbot 2006).  Features that pass rule 1 but fail rule 2
# wait in a Possible set, re-tested whenever the Active set changes.
#
# The paper compares BP-SFS with grafting (lambda by cross-validation), alpha-investing and
# three others (OSFS, Fast-OSFS, SAOLA, not in streamreg) on five microarray sets and three
# UCI sets: 60 % / 40 % random splits, 20 times, k-NN on the selected features (Tables 3-6).
# This vignette reruns that protocol on the sets `streamreg.datasets` has, puts the published
# numbers beside ours and explains the differences.  It starts with the simulation that showed
# a defect in an earlier version (issue 15).
#
# `STREAMREG_VIGNETTE_QUICK=1` uses two seeds, two splits and the bundled UCI sets only
# (seconds); the full run (`vignettes/render.sh paper003.py`) uses 20 splits and the
# microarray sets, fetched on first use (`STREAMREG_DATA_URL` may point at a mirror); a set
# that cannot be fetched is reported and skipped.  `bench/bench_paper003.py` runs the same
# protocol with more methods (LORD++, SAFFRON, scikit-learn's L1-CV as a batch peer).

# %%
import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.linear_model import Lasso
from sklearn.neighbors import KNeighborsClassifier

import streamreg as sr
from streamreg.search.penalised.bpsfs import rule1_threshold

QUICK = os.environ.get("STREAMREG_VIGNETTE_QUICK", "") not in ("", "0")
SEEDS = 2 if QUICK else 10
SPLITS = 2 if QUICK else 20
pd.set_option("display.width", 130)
pd.set_option("display.max_columns", 20)
t_start = time.perf_counter()

# %% [markdown]
# ## 1. Rule 1 decides: the n = 200, p = 300 simulation
#
# The paper has no simulation we could read; issue 15 used n = 200 rows, p = 300 independent
# N(0, 1) candidates and 3 true features, and an earlier BP-SFS kept about 40 terms.  The
# cause is not a coding slip: every formula follows the paper, and the batch criterion
# (lambda = s2 p / (n sum|w|) iterated with scikit-learn's lasso, below) keeps as many terms
# (at c = 0.1 the criterion has several fixed points, so the sets overlap without being
# equal; at the new default they are equal, weights to 1e-7, in the test suite).  It is the
# method.  On grafting's mean-loss scale lambda is O(1/n) -- the weights do
# not shrink with n -- while a null feature's gradient is O(n^-1/2), so once the true features
# are active rule 2 admits a null feature when |z| > sqrt(phi) p / (sqrt(n) sum|w|), here
# about |z| > 0.45: nearly every feature that passes rule 1 stays.  The old default `c = 0.1`
# passes P(|r| >= 0.1), 16 % of the null features at n = 200, a share that does not fall with n.
#
# The paper gives `c` no legible value but calls rule 1 "very similar to the irrelevant
# feature test of OSFS".  streamreg now reads it that way: by default `c` is the critical
# |r| of Fisher's z test of zero correlation at level 0.01 (the level of the LOFS examples),
# `c = tanh(z_{0.995} / sqrt(n - 3))`, 0.18 at n = 200; a number given as `c=` is used as is.

# %%
def simulate(seed, family, n=200, p=300):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    eta = 1.5 * X[:, 10] - 1.0 * X[:, 100] + 0.8 * X[:, 200]
    if family == "binomial":
        return X, (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
    return X, eta + rng.normal(size=n)


def active_terms(res):
    """The search's active set (the paper's selection), as column indices."""
    run = res.search.run
    return sorted(int(run.terms[t].name[1:]) for t in run.active_terms())


rows = []
for family in ("gaussian", "binomial"):
    for c, label in ((0.1, "c = 0.1 (old default)"), (None, "Fisher z, level 0.01")):
        for seed in range(SEEDS):
            X, y = simulate(seed, family)
            res = sr.select(y, X, family=family, method="bp-sfs", c=c)
            act = set(active_terms(res))
            rows.append({"family": family, "rule 1": label, "selected": len(act),
                         "true found": len(act & {10, 100, 200}), "final lambda": res.search.lam})
sim = pd.DataFrame(rows).groupby(["family", "rule 1"], sort=False).mean().round(4)
print(f"rule 1 threshold at n = 200: c = {rule1_threshold(200, 0.01):.4f}")
print(sim.to_string())

# %% [markdown]
# The batch check with the old c = 0.1: an independent solver on the columns that pass rule 1
# (one Gaussian seed).

# %%
X, y = simulate(0, "gaussian")
res = sr.select(y, X, method="bp-sfs", c=0.1)
Z = (X - X.mean(0)) / X.std(0)
r = np.abs(Z.T @ (y - y.mean())) / (len(y) * y.std())
cols = np.flatnonzero(r >= 0.1)
lam = 0.01
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # coordinate descent's tolerance warnings near 1e-12
    for _ in range(300):
        fit = Lasso(alpha=lam, tol=1e-12, max_iter=200_000).fit(Z[:, cols], y)
        s2 = np.mean((y - fit.predict(Z[:, cols])) ** 2)
        new = s2 * np.count_nonzero(fit.coef_) / (len(y) * np.abs(fit.coef_).sum())
        if abs(new - lam) <= 1e-12 * lam:
            break
        lam = new
batch = set(cols[np.flatnonzero(fit.coef_)].tolist())
stream = set(active_terms(res))
print(f"c = 0.1: {len(cols)} columns pass rule 1; streaming keeps {len(stream)}, the batch criterion "
      f"{len(batch)} ({len(stream & batch)} in common); lambda {res.search.lam:.5f} vs {lam:.5f}")

# %% [markdown]
# ## 2. The paper's protocol (Tables 3-6)
#
# Each set is split at random into 60 % training and 40 % test rows, 20 times; features are
# standardised on the training rows; the selection runs on the training rows; a k-NN
# classifier on the selected features is scored on the test rows.  k is not legible; the LOFS
# toolbox of the paper's ref. [4] uses k = 3 in its examples, and so do we.
#
# * **BP-SFS**: streamreg's defaults (rule 1 at level 0.01, lambda0 = 0); the k-NN uses its
#   Active set.  (`selected_terms` can be smaller: the unpenalised binomial refit drops terms
#   that would separate the classes, which on the microarray sets is most of them.)
# * **Grafting**: lambda by 5-fold cross-validation (the paper's choice), Active set as above.
# * **Alpha-investing, as the paper ran it**: "its default settings [4]" -- the
#   `Alpha_Investing.m` of ref. [4]'s LOFS toolbox (Zhou et al.'s code): least squares on the
#   0/1 label, p-value `exp(-dRSS / (2 RSS0 / n))` (`family="gaussian", test="paper"`),
#   w0 = alpha_delta = 0.5.  A first version of this comparison used the logistic score test
#   instead; that row is kept ("score") to show the difference.

# %%
PAPER = {  # data set: {method: (accuracy, #selected)}; "?" = illegible in the OCR text
    "golub_leukemia": {"BP-SFS": ("0.931±0.05", "10.1"), "grafting": ("0.922±0.05", "16.9"),
                       "alpha-inv. LS": ("0.901±0.03", "1.1")},
    "alon_colon": {"BP-SFS": ("0.824±0.09", "10.3"), "grafting": ("0.811±0.08", "11.5"),
                   "alpha-inv. LS": ("0.781±0.13", "1.5")},
    "singh_prostate": {"BP-SFS": ("0.906±0.04", "?"), "grafting": ("0.894±0.05", "?"),
                       "alpha-inv. LS": ("0.872±0.03", "?")},
    "shipp_dlbcl": {"BP-SFS": ("0.859±0.03", "?"), "grafting": ("0.841±0.04", "?"),
                    "alpha-inv. LS": ("0.804±0.07", "?")},
    "gordon_lung": {"BP-SFS": ("0.915±0.03", "?"), "grafting": ("0.913±0.08", "?"),
                    "alpha-inv. LS": ("?", "?")},
    "ionosphere": {"BP-SFS": ("0.878±0.07", "18.7"), "grafting": ("?", "22.1"), "alpha-inv. LS": ("?", "4.9")},
    "wdbc": {"BP-SFS": ("0.966±0.04", "11.1"), "grafting": ("0.952±0.03", "16.9"),
             "alpha-inv. LS": ("0.947±0.03", "10.9")},
}
METHODS = {
    "BP-SFS": {"method": "bp-sfs", "family": "binomial"},
    "grafting": {"method": "grafting", "family": "binomial", "cv": 5},
    "alpha-inv. LS": {"method": "alpha-investing", "family": "gaussian", "test": "paper"},
    "alpha-inv. score": {"method": "alpha-investing", "family": "binomial"},
}
SETS = ["ionosphere", "wdbc"] if QUICK else list(PAPER)


def chosen(res, spec):
    if spec["method"] in ("bp-sfs", "grafting"):
        return active_terms(res)
    return [int(t[1:]) for t in res.selected_terms]


def knn_accuracy(ztr, ytr, zte, yte, cols):
    if not cols:  # nothing selected: the training majority class
        return float(np.mean(yte == float(ytr.mean() > 0.5)))
    pred = KNeighborsClassifier(n_neighbors=3).fit(ztr[:, cols], ytr).predict(zte[:, cols])
    return float(np.mean(pred == yte))


def protocol(name):
    ds = sr.datasets.load(name)
    x = ds.data.drop(columns=ds.response).to_numpy(float)
    y = ds.y.to_numpy(float)
    n = len(y)
    ntr = round(0.6 * n)
    out = {m: {"acc": [], "sel": [], "sec": []} for m in METHODS}
    for split in range(SPLITS):
        perm = np.random.default_rng([2024, split]).permutation(n)
        tr, te = perm[:ntr], perm[ntr:]
        mu, sd = x[tr].mean(0), x[tr].std(0)
        sd[sd == 0] = 1.0
        z = (x - mu) / sd
        for m, spec in METHODS.items():
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # refit warnings (separation) do not touch the selection
                res = sr.select(y[tr], z[tr], **spec)
            out[m]["sec"].append(time.perf_counter() - t0)
            cols = chosen(res, spec)
            out[m]["sel"].append(len(cols))
            out[m]["acc"].append(knn_accuracy(z[tr], y[tr], z[te], y[te], cols))
    rows = []
    for m, v in out.items():
        acc = np.asarray(v["acc"])
        paper = PAPER[name].get(m, ("-", "-"))
        rows.append({"data": name, "method": m, "accuracy": f"{acc.mean():.3f}±{acc.std(ddof=1):.2f}",
                     "paper acc.": paper[0], "#sel": round(float(np.mean(v["sel"])), 1), "paper #sel": paper[1],
                     "sec/run": round(float(np.mean(v["sec"])), 2), "mean acc": acc.mean()})
    return rows


table = []
for name in SETS:
    try:
        table += protocol(name)
    except sr.datasets.DownloadError as exc:  # offline without a cache or mirror
        print(f"{name}: skipped ({str(exc)[:160]}...)")
table = pd.DataFrame(table)
print(table.drop(columns="mean acc").to_string(index=False))

# %% [markdown]
# Published against ours, accuracy (Tables 3 and 4; the BP-SFS cells of Table 3 are garbled
# in the OCR text, so they come from Table 7, whose BP-SFS column agrees with the legible
# ones).  Points on the diagonal agree.

# %%
def paper_value(cell):
    try:
        return float(cell.split("±")[0])
    except ValueError:
        return np.nan


fig, ax = plt.subplots(figsize=(5, 5))
for m, marker in zip(["BP-SFS", "grafting", "alpha-inv. LS"], "os^"):
    sub = table[table["method"] == m]
    ax.scatter(sub["paper acc."].map(paper_value), sub["mean acc"], marker=marker, label=m)
ax.plot([0.6, 1], [0.6, 1], color="grey", lw=0.8)
ax.set_xlabel("paper (Tables 3, 4, 7)")
ax.set_ylabel("streamreg, same protocol")
ax.legend()
ax.set_title("k-NN test accuracy")
plt.show()

# %% [markdown]
# ## 3. The differences, one by one
#
# **BP-SFS and grafting agree with the paper** within its standard deviations on most sets
# (`bench/results/bench_paper003.txt`, 20 splits: leukemia BP-SFS 0.905 with 9.3 features
# against 0.931 with 10.1, grafting 0.926 with 16.4 against 0.922 with 16.9; colon BP-SFS
# 0.786 against 0.824, grafting 0.798 against 0.811).  Two systematic differences remain:
#
# * *Counts on colon.*  BP-SFS keeps 6.6 features where Table 5 has 10.3.  With 37 training
#   rows the logistic fit saturates: once a handful of genes separate the classes the
#   gradients of the rest are tiny and rule 2 stops admitting.  Rule 1 barely matters there
#   (at n = 37 its threshold at level 0.01 is |r| >= 0.41 and hundreds of genes pass; the old
#   c = 0.1 gives 7.2 features and the same accuracy).  The paper's rule 1 threshold, its
#   handling of separation and its optimiser are not stated, so the count cannot be pinned
#   down further.
# * *Lung.*  We get about 0.98 where the paper reports 0.90-0.92 for every method.  Our copy of
#   Gordon's lung set (181 rows, 12,533 probes, mesothelioma vs adenocarcinoma) matches
#   Table 1; with 31 of 181 in one class the majority rule alone scores 0.83.  We have no
#   explanation from the text; a different preprocessing of the expression values is likely.
#
# **Alpha-investing.**  The first comparison used streamreg's default for a binary response,
# the logistic score test, and got 0.716 on leukemia against the paper's 0.901.  Two causes,
# neither a defect of the test:
#
# 1. *The paper's alpha-investing is another test.*  "Default settings [4]" is LOFS's
#    `Alpha_Investing.m`: least squares on the 0/1 label with the p-value
#    `exp(-dRSS / (2 RSS0 / n))`.  With it streamreg selects 1.4 features on leukemia (paper
#    1.1), 0.3 on colon (paper 1.5).  With the score test it kept 3.9 and *refused* 18 strong
#    genes per split (the augmented logistic model separates the 43 training rows, checked
#    by the exact linear programme; those genes alone do not separate), so it ends with the
#    weak early features it accepted before the model saturated.
# 2. *The stream order.*  Golub's file starts with 59 Affymetrix control probes.  The first
#    test is at level w0 / 2 = 0.25, so a control probe with |r| of about 0.3 is accepted:
#    in 65 % of our leukemia splits the first feature kept is a control probe, and k-NN on
#    one such feature scores about 0.72.  On a randomly permuted stream the LS rule scores
#    0.831 with 3.2 features (bench row "same, shuffled stream"; colon 0.704).  The paper does not state its feature order;
#    its 0.901 with 1.1 features needs a strong gene to come first.  We cannot reproduce that
#    from the stated protocol.
#
# **What is not here**: OSFS, Fast-OSFS and SAOLA (not in streamreg), SPAMBASE (not among
# the data sets), Table 7's batch "sBP" (section 1 runs its fixed point on the simulation) and
# Table 8's run times (the paper's hardware and language differ; ours are in the table).

# %%
print(f"vignette wall time {time.perf_counter() - t_start:.1f} s ({'quick' if QUICK else 'full'} mode)")
