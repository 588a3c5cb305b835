"""Plain, obviously-correct reference implementations used by the tests.

Everything here refits statsmodels once per candidate and follows the papers' rules
line by line, with no blocks and no shortcuts.
"""
from __future__ import annotations

import numpy as np
import statsmodels.api as sm


def lord_gamma(j):
    """onlineFDR's default LORD++ / LOND / alpha-spending sequence (closed form)."""
    j = np.asarray(j, dtype=float)
    return 0.07720838 * np.log(np.maximum(j, 2)) / (j * np.exp(np.sqrt(np.log(j))))


def saffron_gamma(j):
    """onlineFDR's default SAFFRON / ADDIS / Alpha_investing sequence (closed form)."""
    return 0.4374901658 / np.asarray(j, dtype=float) ** 1.6


def is_collinear(x: np.ndarray, c: np.ndarray, tol: float = 1e-10) -> bool:
    """c (n x d) adds no direction to span(x): residual of c on x is ~0."""
    beta, *_ = np.linalg.lstsq(x, c, rcond=None)
    resid = c - x @ beta
    return bool(np.sum(resid**2) <= tol * np.sum(c**2))


def naive_alpha_investing(y, fixed, candidates, *, w0=0.5, alpha_delta=0.5, family=None, test="t"):
    """Zhou et al. (2006) Fig. 4 with a statsmodels refit per candidate.

    Returns (selected indices, list of (p, level, accepted) per tested candidate).
    """
    w, i = w0, 1
    chosen: list[int] = []
    trace = []
    for j, c in enumerate(candidates):
        c = c.reshape(len(y), -1)
        x = np.column_stack([fixed] + [candidates[s].reshape(len(y), -1) for s in chosen])
        if is_collinear(x, c):
            continue
        xc = np.column_stack([x, c])
        if family is None:
            res = sm.OLS(y, xc).fit()
            if c.shape[1] == 1:
                p = res.pvalues[-1]
            else:
                r = np.zeros((c.shape[1], xc.shape[1]))
                r[:, x.shape[1]:] = np.eye(c.shape[1])
                p = float(res.f_test(r).pvalue)
        else:
            res0 = sm.GLM(y, x, family=family).fit(tol=1e-12, maxiter=200)
            if test == "score":
                p = score_test(res0, c)[1]
            else:
                res1 = sm.GLM(y, xc, family=family).fit(tol=1e-12, maxiter=200)
                from scipy import stats

                p = float(stats.chi2.sf(2 * (res1.llf - res0.llf), c.shape[1]))
        alpha = w / (2 * i)
        accepted = p < alpha
        if accepted:
            w = w - alpha + alpha_delta
            chosen.append(j)
        else:
            w = w - alpha
        trace.append((j, p, alpha, accepted, w))
        i += 1
    return chosen, trace


def naive_multistream(y, fixed, streams, *, w0=0.5, alpha_delta=0.5):
    """Dhillon, Foster and Ungar (2010) Alg. 2 transcribed directly (Gaussian partial t-tests)."""
    k = len(streams)
    w = [w0 / k] * k
    i = [1] * k
    pos = [0] * k
    chosen: list[tuple[int, int]] = []
    order = []
    while any(pos[j] < len(streams[j]) for j in range(k)):
        live = [j for j in range(k) if pos[j] < len(streams[j])]
        jstar = max(live, key=lambda j: (w[j] / i[j], -j))
        c = streams[jstar][pos[jstar]]
        pos[jstar] += 1
        x = np.column_stack([fixed] + [streams[a][b] for a, b in chosen])
        if is_collinear(x, c[:, None]):
            continue
        p = sm.OLS(y, np.column_stack([x, c])).fit().pvalues[-1]
        alpha = w[jstar] / (2 * i[jstar])
        if p < alpha:
            w[jstar] += alpha_delta - alpha
            chosen.append((jstar, pos[jstar] - 1))
        else:
            w[jstar] -= alpha
        order.append((jstar, pos[jstar] - 1, p, alpha, p < alpha))
        i[jstar] += 1
    return chosen, order


def score_test(res, extra, observed=True):
    """statsmodels' score test as (statistic, pvalue, df) across statsmodels versions."""
    out = res.score_test(exog_extra=extra, observed=observed)
    if hasattr(out, "statistic"):
        return float(np.asarray(out.statistic).item()), float(np.asarray(out.pvalue).item()), int(
            getattr(out, "k_constraint", getattr(out, "df", extra.shape[1]))
        )
    stat, p, df = out
    return float(np.asarray(stat).item()), float(np.asarray(p).item()), int(df)


def naive_online(p, rule, alpha=0.05, w0=None, lam=None, tau=None):
    """The rules written as in the papers / onlineFDR, counting everything from scratch."""
    n = len(p)
    levels, rej = [], []
    for t in range(1, n + 1):  # 1-based test index
        past = p[: t - 1]
        taus = [i + 1 for i, r in enumerate(rej) if r]
        if rule == "lord":
            g = lord_gamma
            tilde = w0 * g(t) + sum((alpha - w0 if k == 0 else alpha) * g(t - tj) for k, tj in enumerate(taus))
            level = tilde
        elif rule in ("saffron", "ai"):
            g = saffron_gamma
            cand = (past <= lam) if rule == "saffron" else np.array(rej, dtype=bool)
            c0 = int(cand.sum())
            tilde = w0 * g(t - c0)
            for k, tj in enumerate(taus):
                cj = int(cand[tj: t - 1].sum())  # candidates strictly between tau_j and t
                tilde += (alpha - w0 if k == 0 else alpha) * g(t - tj - cj)
            level = min(lam, (1 - lam) * tilde) if rule == "saffron" else tilde / (1 + tilde)
        elif rule == "addis":
            g = saffron_gamma
            sel = past <= tau
            cand = past <= lam
            s, c0 = int(sel.sum()), int(cand.sum())
            tilde = w0 * g(s - c0 + 1)
            for k, tj in enumerate(taus):
                kstar = int(sel[:tj].sum())
                cj = int(cand[tj: t - 1].sum())
                tilde += (alpha - w0 if k == 0 else alpha) * g(s - kstar - cj + 1)
            level = min(lam, (tau - lam) * tilde)
        levels.append(float(level))
        rej.append(bool(p[t - 1] <= level))
    return np.array(levels), np.array(rej)


def naive_foster_stine(p, w0, omega):
    """Foster and Stine (2008) alpha-investing, one test at a time (level capped at W/(1+W))."""
    w, last = w0, 0
    levels, rej, wealth = [], [], []
    for j, pj in enumerate(p, start=1):
        a = min(w / (1 + j - last), w / (1 + w)) if w > 0 else 0.0
        levels.append(a)
        if pj <= a:
            rej.append(True)
            w = w + omega
            last = j
        else:
            rej.append(False)
            w = max(w - a / (1 - a), 0.0)
        wealth.append(w)
    return np.array(levels), np.array(rej), np.array(wealth)


def naive_information_investing(y, fixed, candidates, *, w0=0.5, w_delta=0.5, coef_bits=0.0, charge_bid=False):
    """Zhou et al. (2006) Fig. 2 line by line, t statistics from statsmodels OLS refits.

    Returns (accepted indices, rows of (bits_saved, bits_needed, wealth after)).
    """
    import statsmodels.api as sm

    x = np.asarray(fixed, dtype=float)
    w, i, chosen, rows = w0, 0, [], []
    for j, c in enumerate(candidates):
        i += 1  # noqa: SIM113 -- the paper's test counter i
        eps = w / (2 * i)
        t2 = float(sm.OLS(y, np.column_stack([x, c])).fit().tvalues[-1] ** 2)
        saved = t2 / 2 * np.log2(np.e)
        needed = np.log2(1 / eps) + coef_bits + w_delta
        if saved > needed:  # bits_saved - cost > W_delta
            x = np.column_stack([x, c])
            chosen.append(j)
            w = w + w_delta - (eps if charge_bid else 0.0)
        else:
            w = w - eps
        rows.append((saved, needed, w))
    return chosen, rows
