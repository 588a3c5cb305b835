# %% [markdown]
# # Streamwise feature selection (Zhou, Foster, Stine and Ungar, JMLR 2006)
#
# The paper introduces alpha-investing and information-investing and compares them, on a
# simulated regression, with AIC, BIC and RIC applied streamwise (each candidate tested
# once, in order) and stepwise (the best remaining candidate at each step).  This vignette
# reruns its Tables 4, 5 and 6, puts the published numbers beside ours, and explains each
# difference.  It adds what the paper leaves out: alpha-investing with an exact test,
# information-investing, and what each rule guarantees.
#
# The protocol is that of `bench/bench_methods.py`, with changes argued below: the noise
# variance is 0.1 (not 0.01), the error is the root of the exact expected squared prediction
# error, and the long streams extend the short ones.  `STREAMREG_VIGNETTE_QUICK=1` runs 3
# repetitions up to m = 10,000 (seconds); the full run uses the paper's 20 repetitions and
# m up to 1,000,000 (a few minutes, about 1 GB of memory for the largest design).

# %%
import os
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats
from scipy.integrate import trapezoid

import streamreg as sr

QUICK = os.environ.get("STREAMREG_VIGNETTE_QUICK", "") not in ("", "0")
RUNS = 3 if QUICK else 20
MS = [1_000, 10_000] if QUICK else [1_000, 10_000, 100_000, 1_000_000]
N, K, BASE = 100, 4, 1_000  # observations, true features, where the true features live
SIGMA2 = 0.1  # noise variance (Table 4's caption; see "Which error?")
pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)
t_start = time.perf_counter()

# %% [markdown]
# ## The simulation
#
# Section 6.1 of the paper: n = 100 rows, m candidate features, all independent N(0, 1);
# the response is the sum of four of them (coefficients 1) plus Gaussian noise.
#
# * Tables 4 and 5: the four true features sit at random among the first 1,000
#   candidates; for m > 1,000 the rest of the stream is pure noise.  Table 4 also puts them
#   first or last in a stream of 1,000.
# * Table 6: three true features among the first 1,000 and the fourth at a random position
#   in [1,001, m].
#
# A repetition draws the first 1,000 columns, the four random positions and the noise once,
# and appends further independent columns for each larger m.  So within a repetition every
# rule, scenario and m sees the same first 1,000 columns (common random numbers): a change
# along a row of Table 5 is the effect of the appended features alone.

# %%
def draw(m, run):
    """Design, the random and late true positions, and the noise of one repetition."""
    base = np.random.default_rng([2006, run])
    X0 = base.standard_normal((N, BASE))
    early = np.sort(base.choice(BASE, K, replace=False))
    noise = np.sqrt(SIGMA2) * base.standard_normal(N)
    if m == BASE:
        return X0, early, None, noise
    more = np.random.default_rng([2006, run, m])
    late = int(more.integers(BASE, m))
    X = np.empty((N, m))
    X[:, :BASE] = X0
    X[:, BASE:] = more.standard_normal((N, m - BASE))
    return X, early, late, noise


def truth(scenario, m, early, late):
    if scenario == "random":
        return early
    if scenario == "first":
        return np.arange(K)
    if scenario == "last":
        return np.arange(m - K, m)
    return np.r_[early[:K - 1], late]  # "spread" (Table 6)

# %% [markdown]
# ## Which error?
#
# The paper's text says the noise is N(0, 0.1²); the caption of Table 4 says σ² = 0.1.  Its
# "error" is not defined.  The published numbers settle both questions: whenever a rule finds
# the four features and little else (RIC, stepwise RIC, alpha-investing with the features
# first) the error is 0.33.  A least-squares fit of the true model predicts a new row with
# expected squared error σ²(1 + p/n) with p = 5 fitted coefficients, whose root is
# √(0.1 × 1.05) = 0.32 for σ² = 0.1.  With σ = 0.1 the same quantity is 0.10, and the mean
# squared error is 0.0105 or 0.105.  So we read the error as a root mean squared prediction
# error with σ² = 0.1.  The benchmark `bench/bench_methods.py` takes the other reading
# (σ = 0.1, MSE); its recorded output is in `bench/results/bench_methods.txt`.
#
# Since every feature is independent N(0, 1), the expected squared error of a fitted model on
# a fresh row is exact, with no test set needed:
# σ² + b₀² + Σ_j (β_j − b_j)², summing over the true and the selected features (b_j = 0 when
# j is not selected, β_j = 0 when j is spurious).  We report its root, averaged over runs.

# %%
print("root of sigma^2 (1 + 5/n):", round(np.sqrt(SIGMA2 * (1 + 5 / N)), 3), "with sigma^2 = 0.1;",
      round(np.sqrt(0.01 * (1 + 5 / N)), 3), "with sigma = 0.1")


def rmse(res, true):
    """Root of the exact expected squared prediction error on a fresh row."""
    b = {name: float(v) for name, v in res.params.items()}
    err = SIGMA2 + b.pop("Intercept", 0.0) ** 2
    coef = {int(name[1:]): v for name, v in b.items()}  # select() names array columns x0, x1, ...
    err += sum((1.0 - coef.get(int(j), 0.0)) ** 2 for j in true)
    err += sum(v ** 2 for j, v in coef.items() if j not in {int(t) for t in true})
    return float(np.sqrt(err))

# %% [markdown]
# ## The rules
#
# All with the paper's settings where it has them: `w0 = alpha_delta = 0.5` for
# alpha-investing, `W0 = W_delta = 0.5` bit for information-investing; AIC, BIC and RIC add a
# term when twice the gain in log-likelihood exceeds 2, log n and 2 log m.
#
# * *alpha-investing, paper's test* (`test="paper"`): the p-value of the authors' released
#   code, `exp(-ΔRSS / (2 RSS/n))`.  This is what Tables 4–6 report.
# * *alpha-investing, exact t*: the default, the exact partial t-test of the candidate.
# * *information-investing*: the bits rule of the paper's Fig. 2 (its results are not
#   published: "extremely similar", the paper says).
# * *alpha-investing, exact t, 0.05*: the exact test with the conservative setting
#   `w0 = alpha_delta = 0.05` (not in the paper).

# %%
STREAMWISE = {
    "streamwise AIC": lambda: {"method": "aic"},
    "streamwise BIC": lambda: {"method": "bic"},
    "streamwise RIC": lambda: {"method": "ric"},
    "alpha-investing, paper's test": lambda: {"method": "alpha-investing", "test": "paper"},
    "alpha-investing, exact t": lambda: {"method": "alpha-investing", "test": "t"},
    "information-investing": lambda: {"method": sr.InformationInvesting()},
    "alpha-investing, exact t, 0.05": lambda: {"method": "alpha-investing", "test": "t", "w0": 0.05, "alpha_delta": 0.05},
}
STEPWISE = {
    "stepwise AIC": lambda: {"method": "stepwise-aic"},
    "stepwise BIC": lambda: {"method": "stepwise-bic"},
    "stepwise RIC": lambda: {"method": "stepwise-ric"},
}
#: the rules that run on long streams (the paper could not run stepwise beyond m = 1,000)
LONG = ["streamwise RIC", "alpha-investing, paper's test", "alpha-investing, exact t", "information-investing",
        "alpha-investing, exact t, 0.05"]
ALL_RULES = {**STREAMWISE, **STEPWISE}


def plan(m):
    """(scenario, rules) pairs run on the designs of size m."""
    if m == BASE:
        return [("random", list(ALL_RULES)), ("first", LONG), ("last", LONG)]
    return [("random", LONG), ("spread", LONG)]


records, guarantees = [], {}
for m in MS:
    for run in range(RUNS):
        X, early, late, noise = draw(m, run)
        for scenario, rules in plan(m):
            true = truth(scenario, m, early, late)
            y = X[:, true].sum(axis=1) + noise
            for rule in rules:
                t0 = time.perf_counter()
                keep = "full" if rule in STEPWISE else "none"  # stepwise keeps its own history
                res = sr.select(y, X, history=keep, **ALL_RULES[rule]())
                chosen = [int(t[1:]) for t in res.selected_terms]
                order = sorted(int(j) for j in true)  # true features in stream order
                wealth = res.per_stream["final_wealth"].iloc[0] if "final_wealth" in res.per_stream else np.nan
                records.append({
                    "m": m, "run": run, "scenario": scenario, "rule": rule, "features": len(chosen),
                    "false": sum(j not in set(order) for j in chosen), "error": rmse(res, true),
                    "w_final": wealth, "seconds": time.perf_counter() - t0,
                    "missed": [order.index(j) + 1 for j in order if j not in chosen]})
                guarantees.setdefault(rule, res.guarantee())
        del X
runs = pd.DataFrame(records)
print(f"{len(runs)} fits in {time.perf_counter() - t_start:.0f} s")

# %% [markdown]
# ## The published numbers
#
# From the paper: features selected, false positives (Tables 5 and 6 only) and error,
# averages over 20 runs.  Table 4 gives alpha-investing and the three streamwise and
# stepwise penalties at m = 1,000; Tables 5 and 6 give RIC and alpha-investing as m grows.

# %%
PAPER = {  # (rule, scenario, m): (features, false positives, error)
    ("streamwise AIC", "random", 1_000): (100, None, 6.13),
    ("streamwise BIC", "random", 1_000): (90, None, 1.91),
    ("streamwise RIC", "random", 1_000): (4.3, 0.3, 0.33),
    ("alpha-investing, paper's test", "random", 1_000): (4.2, 0.3, 0.42),
    ("alpha-investing, paper's test", "first", 1_000): (4.6, None, 0.33),
    ("alpha-investing, paper's test", "last", 1_000): (3.7, None, 0.71),
    ("stepwise AIC", "random", 1_000): (100, None, 0.54),
    ("stepwise BIC", "random", 1_000): (100, None, 0.54),
    ("stepwise RIC", "random", 1_000): (4.5, None, 0.33),
    ("streamwise RIC", "random", 10_000): (4.0, 0.2, 0.42),
    ("streamwise RIC", "random", 100_000): (4.0, 0.2, 0.50),
    ("streamwise RIC", "random", 1_000_000): (3.4, 0.4, 0.97),
    ("alpha-investing, paper's test", "random", 10_000): (4.1, 0.2, 0.42),
    ("alpha-investing, paper's test", "random", 100_000): (4.7, 0.7, 0.43),
    ("alpha-investing, paper's test", "random", 1_000_000): (4.8, 0.9, 0.45),
    ("streamwise RIC", "spread", 10_000): (4.2, 0.3, 0.42),
    ("streamwise RIC", "spread", 100_000): (3.9, 0.1, 0.50),
    ("streamwise RIC", "spread", 1_000_000): (3.7, 0.6, 0.97),
    ("alpha-investing, paper's test", "spread", 10_000): (4.2, 0.3, 0.42),
    ("alpha-investing, paper's test", "spread", 100_000): (4.5, 0.6, 0.43),
    ("alpha-investing, paper's test", "spread", 1_000_000): (4.9, 0.8, 0.42),
}
groups = runs.groupby(["rule", "scenario", "m"])[["features", "false", "error", "seconds"]]
means, ses = groups.mean(), groups.std() / np.sqrt(RUNS)


def side_by_side(keys):
    """Paper and ours for a list of (rule, scenario, m) keys, one row each."""
    rows = []
    for key in keys:
        if key not in means.index:
            continue
        paper = PAPER.get(key, (None, None, None))
        ours, se = means.loc[key], ses.loc[key]

        def est(col, ours=ours, se=se):
            return f"{ours[col]:.2f} ({se[col]:.2f})"

        rows.append({"rule": key[0], "scenario": key[1], "m": key[2],
                     "features (paper)": paper[0], "features (ours)": est("features"),
                     "false pos. (paper)": paper[1], "false pos. (ours)": est("false"),
                     "error (paper)": paper[2], "RMSE (ours)": est("error"),
                     "s/fit": ours["seconds"]})
    return pd.DataFrame(rows).set_index(["rule", "scenario", "m"])


def show(frame):
    print(frame.to_string(float_format=lambda v: f"{v:.2f}", na_rep="-"))

# %% [markdown]
# ## Table 4: m = 1,000, streamwise against stepwise
#
# Our columns are means over the repetitions with their standard errors in parentheses.  The
# paper gives no standard errors; its means carry the same sampling noise as ours.

# %%
table4 = side_by_side([(rule, "random", BASE) for rule in ALL_RULES]
                      + [(rule, pos, BASE) for pos in ("first", "last") for rule in LONG])
show(table4)

# %% [markdown]
# ## Table 5: spurious features appended to the stream

# %%
table5 = side_by_side([(rule, "random", m) for rule in LONG for m in MS])
show(table5)

# %% [markdown]
# ## Table 6: the fourth feature far out in the stream

# %%
table6 = side_by_side([(rule, "random" if m == BASE else "spread", m) for rule in LONG for m in MS])
show(table6)

# %% [markdown]
# ## The paper's test against the exact one
#
# The released code scores a candidate by `p = exp(-n ΔRSS / (2 RSS))`, with RSS the
# residual sum of squares of the current model *before* the candidate enters.  Under the
# null (a candidate independent of everything else), `ΔRSS / RSS` follows a
# Beta(1/2, (n - k - 1)/2) distribution with k columns in the model, so the probability that
# the paper's test accepts at level α is exact to compute.  The exact t-test accepts with
# probability α; the ratio below says how far the paper's test is from that.

# %%
def paper_rate(alpha, k, n=N):
    """P(exp(-n B / 2) < alpha) with B = dRSS/RSS ~ Beta(1/2, (n - k - 1)/2): the null rate."""
    return stats.beta.sf(2 * np.log(1 / alpha) / n, 0.5, (n - k - 1) / 2)


levels = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
ratio = pd.DataFrame({f"k = {k}": [paper_rate(a, k) / a for a in levels] for k in (5, 30, 60)},
                     index=pd.Index([f"{a:.0e}" for a in levels], name="level"))
print("null acceptance rate of the paper's test / level (1 for an exact test), n = 100")
print(ratio.to_string(float_format=lambda v: f"{v:.3g}"))

# %% [markdown]
# With the four true features in (k = 5 columns with the intercept), the paper's test
# accepts a null candidate at a fraction of the nominal rate, and the fraction shrinks as
# the level falls: about 1/26 of it at 1e-6.  Far out in a long stream, where levels are
# that small, it almost never admits a spurious feature.  It turns anti-conservative only
# when the model is large relative to n (k = 60).
#
# What does that imply for Table 5?  After 1,000 tests the wealth is some w (its mean over
# our runs is used below).  If nothing more is accepted, the wealth decays like `w √(1000/i)`
# and the level like `w √(1000/i) / (2i)`; summing the null acceptance probability over the
# appended tests gives the expected number of spurious features they add.

# %%
w1000 = runs.query("rule == \"alpha-investing, paper's test\" and scenario == 'random' and m == @BASE")["w_final"].mean()
rows = {}
for M in [10_000, 100_000, 1_000_000]:
    # the sum over tests i = 1001 .. M, as an integral over a fine log grid (accurate to 1e-6)
    i = np.geomspace(BASE + 0.5, M + 0.5, 4001)
    lev = w1000 * np.sqrt(BASE / i) / (2 * i)
    rows[f"m = {M:,}"] = {"exact test": trapezoid(lev, i), "paper's test": trapezoid(paper_rate(lev, 5), i)}
print(f"mean wealth after 1,000 tests: {w1000:.2f}; expected spurious features among the appended candidates:")
show(pd.DataFrame(rows))
#
# ## Two knife edges, up close
#
# Twenty runs say little about a count that moves by fractions of a feature.  Here the
# first and last placements of Table 4 with more repetitions (all fits are on m = 1,000),
# and RIC's count of true features for Table 5's larger m.  For the latter it is enough to
# run on the first 1,000 columns and tell RIC the full m (`m=`): the true features all lie
# there, and a streamwise rule's decisions on them do not depend on what follows.

# %%
reps = 10 if QUICK else 200
close = []
for run in range(reps):
    rng = np.random.default_rng([6, run])
    X = rng.standard_normal((N, BASE))
    noise = np.sqrt(SIGMA2) * rng.standard_normal(N)
    for scenario in ("first", "last"):
        true = truth(scenario, BASE, None, None)
        y = X[:, true].sum(axis=1) + noise
        for rule in LONG[1:]:
            res = sr.select(y, X, history="none", **ALL_RULES[rule]())
            chosen = [int(t[1:]) for t in res.selected_terms]
            close.append({"rule": rule, "scenario": scenario, "features": len(chosen),
                              "true": sum(j in set(true) for j in chosen)})
close = pd.DataFrame(close).groupby(["scenario", "rule"]).agg(
    features=("features", "mean"), se=("features", lambda v: v.std() / np.sqrt(len(v))), true=("true", "mean"))
print(f"{reps} repetitions; paper: 4.6 features (first), 3.7 (last)")
show(close)

# %%
ric = []
for run in range(reps):
    X, early, _, noise = draw(BASE, 10_000 + run)  # fresh repetitions, not those of the tables
    y = X[:, early].sum(axis=1) + noise
    for m in MS[1:]:
        chosen = sr.select(y, X, method="ric", m=m, history="none").selected_terms
        ric.append({"m": m, "true": sum(int(t[1:]) in set(early) for t in chosen)})
ric = pd.DataFrame(ric).groupby("m")["true"].agg(["mean", lambda v: v.std() / np.sqrt(len(v))])
ric.columns = ["true features (ours)", "se"]
ric["paper (features - false pos.)"] = [round(PAPER[("streamwise RIC", "random", m)][0]
                                              - PAPER[("streamwise RIC", "random", m)][1], 2) for m in ric.index]
print(f"streamwise RIC, {reps} repetitions")
show(ric)

# %% [markdown]
# ## What each rule guarantees
#
# A table of averages says what happened; the guarantee says what the rule promises under
# its assumptions.  The package states it for each rule:

# %%
for rule, text in guarantees.items():
    print(f"{rule}:\n    {text}")

# %% [markdown]
# Alpha-investing's promise can be checked against the runs.  With R selections, V of them
# false, and final wealth w, it bounds `E[V] <= alpha_delta E[R] + w0 - E[w]`, whatever m
# is.  The table gives, per setting, the observed means of V and of the right-hand side, the
# mean difference with its standard error (the promise is that its expectation is at most
# 0), and the ratio of means V / (R + w0/alpha_delta) that the mFDR bound keeps below
# alpha_delta.

# %%
ai = runs[runs["rule"].str.startswith("alpha-investing")].copy()
setting = {rule: ALL_RULES[rule]() for rule in ai["rule"].unique()}
a_delta = ai["rule"].map(lambda r: setting[r].get("alpha_delta", 0.5))
ai["bound"] = a_delta * ai["features"] + ai["rule"].map(lambda r: setting[r].get("w0", 0.5)) - ai["w_final"]
ai["eta"] = ai["rule"].map(lambda r: setting[r].get("w0", 0.5) / setting[r].get("alpha_delta", 0.5))
check = ai.groupby(["rule", "scenario", "m"]).agg(R=("features", "mean"), V=("false", "mean"),
                                                  bound=("bound", "mean"))
check["V - bound"] = ai.groupby(["rule", "scenario", "m"]).apply(
    lambda g: f"{(g['false'] - g['bound']).mean():+.2f} ± {(g['false'] - g['bound']).std() / np.sqrt(len(g)):.2f}")
check["V / (R + eta)"] = check["V"] / (check["R"] + ai.groupby(["rule", "scenario", "m"])["eta"].first())
show(check)

# %% [markdown]
# ## Which true feature does a rule miss?
#
# For each rule, scenario and m, the fraction of runs in which the first, second, third or
# fourth true feature *in stream order* was missed, and in how many any was.  In Table 6's
# scenario the fourth is the one far out in the stream; the last column counts the runs that
# lost it while keeping the three early ones.

# %%
miss = runs[runs["scenario"].isin(["random", "spread"]) & runs["rule"].isin(LONG)].copy()
for k in range(1, K + 1):
    miss[f"missed #{k}"] = miss["missed"].map(lambda lst, k=k: k in lst)
miss["missed any"] = miss["missed"].map(bool)
miss["late lost, early kept"] = (miss["scenario"] == "spread") & miss["missed"].map(lambda lst: lst == [K])
show(miss.groupby(["rule", "scenario", "m"])[[f"missed #{k}" for k in range(1, K + 1)]
                                              + ["missed any", "late lost, early kept"]].mean())

# %% [markdown]
# RIC's error rate does not depend on where the features are: it admits each null candidate
# with probability about `P(chi2_1 > 2 log m)`, so about `m P(chi2_1 > 2 log m)` false
# features per run, whatever m.

# %%
print("RIC, expected false features per run:",
      {f"m = {m:,}": round(float(m * stats.chi2.sf(2 * np.log(m), 1)), 2) for m in [1_000, 10_000, 100_000, 1_000_000]})

# %% [markdown]
# ## The wealth story
#
# Alpha-investing spends `alpha_i = w_i / (2i)` on test i and earns `alpha_delta` when a test
# rejects.  Between two acceptances the wealth decays as `w_{i+1} = w_i (1 - 1/(2i))`, that
# is like `1/√i`, so the level falls like `i^(-3/2)`.  Early on, and just after a discovery,
# the level is generous; deep into a barren stretch it is stricter than Bonferroni at any
# fixed m.  Below, one run of Table 6 at the largest m: the level in force and the wealth
# along the stream, with RIC's fixed level (the chi-square tail at `2 log m`) for comparison.
# Dotted lines mark the true features.

# %%
m_story = MS[-1] if QUICK else 100_000
X, early, late, noise = draw(m_story, 0)
true = truth("spread", m_story, early, late)
y = X[:, true].sum(axis=1) + noise
story = {
    "alpha-investing, exact t": sr.select(y, X),
    "alpha-investing, paper's test": sr.select(y, X, test="paper"),
    "information-investing": sr.select(y, X, method=sr.InformationInvesting()),
}
del X


def thin(h):
    """Rows on a log grid of tests, plus every acceptance (keeps the figure light)."""
    keep = np.unique(np.geomspace(1, len(h), 1500).astype(int) - 1)
    return h.iloc[np.union1d(keep, np.flatnonzero(h["accepted"].to_numpy(bool)))]


fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.5))
for j, (rule, res) in enumerate(story.items()):
    h = thin(res.history)
    level = h["level"] if h["level"].notna().any() else h["bid"] / np.sqrt(2)  # II: exp(-t^2/2) < bid/2^W_delta
    style = {"where": "post", "color": f"C{j}", "lw": 1.2, "ls": ["-", "--", ":"][j], "label": rule}
    ax1.step(h["test"], level, **style)
    ax2.step(h["test"], h["wealth"], **style)
    acc = h["accepted"].to_numpy(bool)
    ax2.scatter(h["test"][acc], h["wealth"][acc], color=f"C{j}", edgecolor="k", s=25, zorder=3)
for m in MS[1:]:
    ax1.axhline(stats.chi2.sf(2 * np.log(m), 1), color="0.4", ls="--", lw=0.8)
    ax1.annotate(f"RIC, m = {m:,}", (1.5, stats.chi2.sf(2 * np.log(m), 1)), fontsize="x-small",
                 va="bottom", color="0.3")
for ax in (ax1, ax2):
    for j in true:
        ax.axvline(j + 1, color="k", ls=":", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("test")
ax1.set_ylabel("level in force (information-investing: its p-scale equivalent)")
ax2.set_ylabel("wealth")
ax1.set_title(f"levels, one run of Table 6 with m = {m_story:,}")
ax2.set_title("wealth; dots are acceptances")
ax1.legend(fontsize="x-small", loc="upper right")
fig.tight_layout()
# %% [markdown]
# The paths share their start: every rule spends the same bids until its first acceptance.
# Each acceptance lifts the wealth by about `alpha_delta` and the level with it, and the
# level then decays again along a line of slope -3/2 on these axes.  Below, what each rule
# selected in this run, with the p-value (exact t; the paper's p for its test) and the level
# at which it entered.

# %%
for rule, res in story.items():
    sel = res.selected[["term", "order", "pvalue", "level"]].copy()
    sel["true"] = [int(t[1:]) in {int(j) for j in true} for t in sel["term"]]
    print(rule, "(true features:", ", ".join(f"x{j}" for j in sorted(true)) + ")")
    print(sel.to_string(index=False, float_format=lambda v: f"{v:.3g}"))

# %% [markdown]
# ## Differences, explained
#
# The figures quoted here are those of the full run (20 repetitions, m up to 1,000,000);
# quick mode prints noisier numbers from 3 repetitions.  Our standard errors are about 0.1 to
# 0.2 for the feature counts and 0.1 for the errors, and the paper's means are no more
# precise, so differences of one or two standard errors are left unexplained on purpose:
# they are sampling noise.
#
# **The error scale.**  Read as a root mean squared error with σ² = 0.1 (see "Which error?"),
# the published errors line up with ours wherever a rule finds the right model: 0.33 for
# stepwise RIC and for alpha-investing with the features first, in both.
#
# **AIC and BIC overfit, as published.**  Streamwise BIC selects about 86 features (paper 90)
# and streamwise AIC, stepwise AIC and stepwise BIC fill the model.  The paper counts 100
# features there, we count 98.  With n = 100 and an intercept, 98 terms leave one residual
# degree of freedom; one more term would interpolate the data, with an infinite gain in
# likelihood and no test possible, so the package records the remaining candidates as
# skipped ("no residual degrees of freedom").  R's `lm` keeps going and reports the extra
# coefficients as aliased (`NA`).  Both mean "as many as the data allow".  The streamwise AIC
# error (7.8 ± 2.3 against 6.13) is that of a nearly interpolating fit, set by a few huge
# coefficients; only its order of magnitude means anything.  Stepwise AIC and BIC agree to the
# digit (0.54): stepwise search enters the four true features first, and the 94 spurious ones
# that follow get small coefficients.
#
# **RIC at m = 1,000** agrees streamwise and stepwise, with fewer false positives than
# published (0.05 against 0.3 streamwise, 4.05 against 4.5 features stepwise).  RIC's expected
# count of false features is about 0.2 per run at any m (printed above); the paper's 0.3 and our
# 0.05 are both draws around it.
#
# **RIC as m grows** (Tables 5 and 6) loses features in both, faster in our 20 runs: 2.7
# features at m = 1,000,000 against 3.4.  The missed-feature table says which ones go: the
# first true features in stream order.  When the first of them is tested, the three others
# are still in the residual, so it explains only a quarter of the residual variance: its
# likelihood-ratio statistic `n log(RSS_before / RSS_after)` is about 100 log(4.1 / 3.1) ≈ 28
# on average, with a standard deviation near 10, against RIC's threshold 2 log m = 27.6 at
# m = 1,000,000.  A coin flip.  Our 20 runs are an unlucky draw of it, and since they share
# their first 1,000 columns across m, the same draw counts in every column of the table.
# With 200 fresh repetitions ("Two knife edges") RIC keeps 3.80, 3.60 and 3.04 true features
# at m = 10,000, 100,000 and 1,000,000, against the paper's 3.8, 3.8 and 3.0.
#
# **Alpha-investing with the paper's test at m = 1,000** agrees on the counts (4.1 against 4.2
# features, 0.45 against 0.3 false) and with the features first (4.60 against 4.6; 4.61 ± 0.06
# over 200 runs).  Our error is higher (0.58 against 0.42) because we miss an early true feature
# in about a third of the runs, for the reason just given: the paper's statistic for the first true feature
# is n ΔRSS / RSS ≈ 100 / 4.1 ≈ 24 on average, while the level in force a few hundred tests into
# the stream asks for 2 log(1/α) ≈ 18 to 24.
#
# **With the features last**, the paper reports 3.7 features; we find 2.8 in 20 runs and
# 3.25 ± 0.09 over 200.  This is a real difference, and it is the same knife edge at its
# sharpest: after 996 rejections the wealth has decayed to `0.5 / √(π · 997) ≈ 0.009`, the
# level is 4.5e-6, the paper's test needs a statistic above 24.6, and the first true feature
# brings about 24.  Whatever makes the statistic slightly larger moves the count: the exact
# t-statistic of the same candidate uses the residual after the candidate enters (its t² is
# about 95 / 3.1 ≈ 31), and alpha-investing with the exact test finds 3.7 true features (plus 0.8
# false); information-investing selects 3.7 features, 3.6 of them true.  The published 3.7
# fits either better than it fits the released test; we cannot tell which code produced it.
#
# **Alpha-investing with the paper's test as m grows** is where ours and the paper part.  The
# paper's count rises to 4.7 and 4.8 features with 0.7 and 0.9 false at m = 100,000 and
# 1,000,000 (Table 6 likewise); ours stays at 4.2 with 0.55 false: in 20 runs, not one of the
# 990,000 appended null candidates entered after the ten-thousandth test.  That is what the
# released test implies.  Its null acceptance rate falls far below the level at the levels in
# force there (the rate table), and summed along the appended stream it predicts about 0.14
# spurious features in all, nearly all before m = 10,000 (ours: +0.10).  An exact test would
# add about 1.2 (ours, with the exact t: +1.55, the excess being wealth re-earned by false
# discoveries).  The paper's +0.6 lies between: its long-stream runs cannot have used the test
# as released.  Information-investing, which uses the exact t-statistic on the bits scale,
# happens to give nearly the paper's pattern (4.15 → 4.6 features, 0.45 → 0.9 false), as does
# its "last" count; the paper says the two rules gave "extremely similar results".
#
# **Table 6: the late feature.**  Once the three early features are in, the late one explains
# nearly all that is left (the paper's statistic is about 100 / 1.1 ≈ 90) and every rule finds
# it, however far out: the missed-feature table shows it is lost only in runs that had already
# lost an early feature.  So Table 6 mostly repeats Table 5: RIC's low counts (2.5 against 3.7
# at m = 1,000,000) are the knife edge on the early features again.  The paper's counts above 4.4 at
# m ≥ 100,000 come with 0.6–0.8 false features, the same growth as in its Table 5 and with the
# same explanation.
#
# **What the guarantee says.**  With an exact test every null test is a fair bet, so
# alpha-investing's inequality is nearly an equality: in the check table V sits close to the
# bound and never above it by more than its sampling error, at 2 to 5 false features per run
# with the paper's `w0 = alpha_delta = 0.5` — which is what an mFDR of 0.5 allows.  The paper's few false
# positives come from its conservative test, not from the rule.  If few false selections are
# wanted, say so in the rule: with `w0 = alpha_delta = 0.05` the exact test keeps 0.05 to 0.2
# false features per run at every m and finds 3.4 to 3.7 of the four true ones.
#
# **Speed.**  Stepwise search refits against every remaining candidate at each step (0.1 s per
# fit at m = 1,000 here, growing with m times the model size); a streamwise rule reads each
# candidate once, about 0.3 s for a million candidates, most of it spent reading the columns.

# %%
print(f"total {time.perf_counter() - t_start:.0f} s")
