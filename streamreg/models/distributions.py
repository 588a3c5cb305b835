"""Log-survival functions and critical values of the reference distributions.

scipy's ``chi2.logsf`` takes the log of an underflowed survival function and returns
``-inf`` beyond a statistic of about 1,500; alpha-investing compares p-values with levels
that shrink without bound, so the far tail is computed here from the asymptotic
expansion of the upper incomplete gamma function instead.

The body of each law calls the same ``scipy.special`` functions that ``scipy.stats``
uses for it (``stdtr``, ``fdtrc``, ``chdtrc``; equal to the last digit), directly: the
``scipy.stats`` dispatch has a fixed cost per call that dominated small problems.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats


def log_chi2_sf(x: np.ndarray, df: np.ndarray) -> np.ndarray:
    """``log P(chi2_df > x)``, accurate in the far tail."""
    x = np.asarray(x, dtype=float)
    df = np.broadcast_to(np.asarray(df, dtype=float), x.shape)
    out = np.empty_like(x)
    one = df == 1
    # df = 1: P(chi2_1 > x) = 2 Phi(-sqrt x), and log_ndtr is exact in the tail
    out[one] = np.log(2.0) + special.log_ndtr(-np.sqrt(np.maximum(x[one], 0.0)))
    rest = ~one
    if rest.any():
        xr, dr = x[rest], df[rest]
        with np.errstate(divide="ignore"):
            val = np.log(special.chdtrc(dr, np.maximum(xr, 0.0)))
        far = ~np.isfinite(val) | (val < -600)
        if far.any():
            a, h = dr[far] / 2.0, xr[far] / 2.0
            # Gamma(a, h) ~ h^(a-1) e^-h (1 + (a-1)/h + (a-1)(a-2)/h^2 + ...)
            series = np.ones_like(h)
            term = np.ones_like(h)
            for k in range(1, 12):
                term = term * (a - k) / h
                series = series + term
            val[far] = (a - 1) * np.log(h) - h + np.log(series) - special.gammaln(a)
        out[rest] = val
    return out


def log_f_sf(x: np.ndarray, df: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
    """``log P(F(df, df_resid) > x)``; for df = 1 this is the two-sided t p-value."""
    x = np.asarray(x, dtype=float)
    df = _like(df, x)
    df_resid = _like(df_resid, x)
    one = df == 1
    with np.errstate(divide="ignore"):
        if one.all():  # t tests, the usual case: no masks
            out = np.log(2.0) + np.log(special.stdtr(df_resid, -np.sqrt(np.maximum(x, 0.0))))
        else:
            out = np.empty_like(x)
            if one.any():
                out[one] = np.log(2.0) + np.log(special.stdtr(df_resid[one], -np.sqrt(np.maximum(x[one], 0.0))))
            out[~one] = np.log(special.fdtrc(df[~one], df_resid[~one], np.maximum(x[~one], 0.0)))
    if out.size and out.min() >= -600:  # the usual case: no far tail, no NaN (one reduction, no masks)
        return out
    far = ~(out >= -600)  # below -600, -inf or NaN (out never exceeds log 2)
    if far.any():
        out[far] = _log_f_sf_far(x[far], df[far], df_resid[far])
    return out


def _log_t2_sf(x: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
    """:func:`log_f_sf` with ``df = 1`` (two-sided t), the same operations without its checks."""
    with np.errstate(divide="ignore"):
        out = _LOG2 + np.log(special.stdtr(df_resid, -np.sqrt(np.maximum(x, 0.0))))
    if out.size and out.min() >= -600:
        return out
    far = ~(out >= -600)
    out[far] = _log_f_sf_far(x[far], np.ones(int(far.sum())), df_resid[far])
    return out


_LOG2 = np.log(2.0)


def _log_f_sf_far(x: np.ndarray, df: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
    """Far tail of F: P(F > x) = I_u(b, a), u = dfr / (dfr + d x), a = d/2, b = dfr/2.

    I_u(b, a) = u^b (1-u)^a / (b B(a, b)) * 2F1(a + b, 1; b + 1; u), and the hypergeometric
    series converges fast because u is tiny this far out; all of it on the log scale.
    """
    a, b = df / 2.0, df_resid / 2.0
    log_u = np.log(df_resid) - np.log(df_resid + df * x)
    u = np.exp(log_u)
    series = np.ones_like(x)
    term = np.ones_like(x)
    for k in range(40):
        term = term * (a + b + k) / (b + 1 + k) * u
        series = series + term
    return b * log_u + a * np.log1p(-u) - np.log(b) - special.betaln(a, b) + np.log(series)


def log_sf(statistic: np.ndarray, df: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
    """Log p-value of a chi-square-type statistic: ``statistic / df ~ F(df, df_resid)``.

    ``df_resid = inf`` selects the chi-square distribution (score and LR tests).
    """
    statistic = np.asarray(statistic, dtype=float)
    df = _like(df, statistic)
    df_resid = _like(df_resid, statistic)
    chi = ~np.isfinite(df_resid)
    if not chi.any():  # the usual least-squares case: no masks, no copies
        if (df == 1).all():  # t tests: the fewest array operations (they dominate small blocks)
            return _log_t2_sf(statistic, df_resid)
        return log_f_sf(statistic / df, df, df_resid)
    out = np.empty_like(statistic)
    out[chi] = log_chi2_sf(statistic[chi], df[chi])
    if (~chi).any():
        dd = df[~chi]
        out[~chi] = log_f_sf(statistic[~chi] / dd, dd, df_resid[~chi])
    return out


def _like(values: ArrayLike, statistic: np.ndarray) -> np.ndarray:
    """``values`` as floats of the statistic's shape (broadcast only when needed)."""
    values = np.asarray(values, dtype=float)
    if values.shape == statistic.shape:
        return values
    if values.size == 1:  # np.broadcast_to costs more than the scalar's copies on a small block
        return np.full(statistic.shape, values.reshape(())[()])
    return np.broadcast_to(values, statistic.shape)


class CachedCritical:
    """Critical values reused while the level only falls (as it does between acceptances).

    A critical value computed for a larger level is still a valid screen for a smaller
    one (it is lower than needed), so it is kept until the level has fallen by a factor
    ``e`` or rises again; this saves an inverse-cdf evaluation per block.
    """

    def __init__(self) -> None:
        self._memo: dict[tuple[int, float], tuple[float, float]] = {}
        self._grid: dict[tuple[int, float], dict[float, float]] = {}

    def __call__(self, log_alpha: float, df: int, df_resid: float) -> float:
        key = (int(df), float(df_resid))
        hit = self._memo.get(key)
        if hit is not None and hit[0] - 1.0 <= log_alpha <= hit[0]:
            return hit[1]
        value = critical(log_alpha, df, df_resid)
        self._memo[key] = (log_alpha, value)
        return value


    def along(self, log_alpha: np.ndarray, df: int, df_resid: float) -> np.ndarray:
        """A valid screen for each of several levels: the critical value of each log-level
        rounded up to an integer (a larger level, so a lower critical value).

        Levels falling along a block then share a handful of critical values (one per factor
        ``e``), cached per law, so that a block is screened at each position's own level
        rather than at its first (and largest) one.
        """
        grid = np.minimum(np.ceil(log_alpha), 0.0)
        table = self._grid.setdefault(self._law(int(df), float(df_resid)), {})
        if len(table) > 4096:  # a long search of many laws: start over rather than grow
            table.clear()
        lo, hi = float(grid.min()), float(grid.max())
        if math.isfinite(lo) and hi - lo < 64:  # the usual case: a short range of integers, no sort
            keys = np.arange(lo, hi + 1.0)
            pos = (grid - lo).astype(np.intp)
        else:
            keys, pos = np.unique(grid, return_inverse=True)
        wanted = keys.tolist()
        missing = [k for k in wanted if k not in table]
        if missing:
            table.update(zip(missing, critical_many(np.array(missing), df, df_resid).tolist()))
        return np.array([table[k] for k in wanted])[pos]


    def _law(self, df: int, df_resid: float) -> tuple[int, float]:
        """The law whose table serves ``(df, df_resid)``: its own, or for a t test one with up
        to 10% more residual df.

        Each acceptance costs a residual df, and a new table would cost a critical value per
        level again.  ``P(|T_nu| > c)`` falls as ``nu`` grows (Student's t is more peaked for
        more df), so a critical value checked for ``nu0 >= nu`` is a valid, slightly low,
        screen for ``nu``.
        """
        if df == 1 and math.isfinite(df_resid):
            for d, r in self._grid:
                if d == 1 and df_resid <= r <= 1.1 * df_resid:
                    return d, r
        return df, df_resid


def critical_many(log_alpha: np.ndarray, df: int, df_resid: float) -> np.ndarray:
    """:func:`critical` for several levels: the inverse-cdf guesses and their checks in one
    vectorised call each; a guess that fails its check goes to the scalar bisection."""
    la = np.asarray(log_alpha, dtype=float)
    alpha = np.exp(la)
    with np.errstate(all="ignore"):
        if df == 1:
            # |t| quantile by the Cornish-Fisher expansion around the normal one: no iterative
            # inversion (stdtrit costs ~20 incomplete-beta calls); the check below decides
            z = special.ndtri(alpha / 2.0)
            shift = (z * z + 1.0) / (4.0 * float(df_resid))
            guess = (z * (1.0 + shift)) ** 2
            far = shift > 0.05  # where the expansion is poor (few df, far tail), invert exactly
            if far.any():
                guess[far] = np.square(special.stdtrit(df_resid, alpha[far] / 2.0))
        elif not np.isfinite(df_resid):
            guess = special.chdtri(df, alpha)
        else:
            guess = df * stats.f.isf(alpha, df, df_resid)
    low = guess * (1 - 1e-7)
    # a guess that passes its check is a valid screen, however it was found
    good = (alpha > 1e-300) & (la < 0) & np.isfinite(low)
    good[good] = log_sf(low[good], np.float64(df), np.float64(df_resid)) >= la[good]
    out = np.where(good, low, np.nan)
    for i in np.flatnonzero(~good).tolist():
        out[i] = np.inf if la[i] == -np.inf else critical(float(la[i]), df, df_resid)
    return out


def critical(log_alpha: float, df: int, df_resid: float) -> float:
    """A statistic below which the p-value is certainly above ``exp(log_alpha)``.

    Used only to screen candidates, so it errs low: a value a hair low merely lets a few
    more candidates through to the exact computation, while a value too high would change
    decisions.  scipy's inverse survival functions lose accuracy or overflow in the far
    tail, so every guess is checked against :func:`log_sf` and bisected if it fails.
    """
    if log_alpha >= 0:
        return 0.0
    d, dr = np.array([float(df)]), np.array([float(df_resid)])

    def ok(c: float) -> bool:
        return bool(np.isfinite(c)) and log_sf(np.array([c]), d, dr)[0] >= log_alpha

    alpha = np.exp(log_alpha)
    with np.errstate(all="ignore"):
        if not np.isfinite(df_resid):
            guess = float(special.chdtri(df, alpha)) if alpha > 1e-300 else 2.0 * (-log_alpha)
        elif df == 1:  # F(1, dfr) is a squared t
            # squared as numpy floats: a quantile beyond 1e154 squares to inf, not to OverflowError
            guess = float(np.square(special.stdtrit(df_resid, alpha / 2.0))) if alpha > 1e-300 else np.inf
        else:
            guess = float(df * stats.f.isf(alpha, df, df_resid)) if alpha > 1e-300 else np.inf
    if ok(guess * (1 - 1e-7)):  # isf is accurate to a few ulps in the body of the law
        return guess * (1 - 1e-7)
    # tail: bracket the root between a valid (low) and an invalid (high) point, then bisect
    hi = guess if np.isfinite(guess) and guess > 0 else 1.0
    lo = 0.0
    while ok(hi) and hi < 1e300:
        lo, hi = hi, hi * 4.0
    if lo == 0.0:
        for frac in (0.99, 0.9, 0.5):
            if ok(hi * frac):
                lo = hi * frac
                break
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if ok(mid):
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return lo
