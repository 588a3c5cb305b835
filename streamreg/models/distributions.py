"""Log-survival functions and critical values of the reference distributions.

scipy's ``chi2.logsf`` takes the log of an underflowed survival function and returns
``-inf`` beyond a statistic of about 1,500; alpha-investing compares p-values with levels
that shrink without bound, so the far tail is computed here from the asymptotic
expansion of the upper incomplete gamma function instead.
"""
from __future__ import annotations

import numpy as np
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
        val = stats.chi2.logsf(xr, dr)
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
    df = np.broadcast_to(np.asarray(df, dtype=float), x.shape)
    df_resid = np.broadcast_to(np.asarray(df_resid, dtype=float), x.shape)
    out = np.empty_like(x)
    one = df == 1
    if one.any():
        out[one] = np.log(2.0) + stats.t.logsf(np.sqrt(np.maximum(x[one], 0.0)), df_resid[one])
    if (~one).any():
        out[~one] = stats.f.logsf(x[~one], df[~one], df_resid[~one])
    return out


def log_sf(statistic: np.ndarray, df: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
    """Log p-value of a chi-square-type statistic: ``statistic / df ~ F(df, df_resid)``.

    ``df_resid = inf`` selects the chi-square distribution (score and LR tests).
    """
    statistic = np.asarray(statistic, dtype=float)
    df = np.asarray(df, dtype=float)
    df_resid = np.broadcast_to(np.asarray(df_resid, dtype=float), statistic.shape)
    out = np.empty_like(statistic)
    chi = ~np.isfinite(df_resid)
    if chi.any():
        out[chi] = log_chi2_sf(statistic[chi], np.broadcast_to(df, statistic.shape)[chi])
    if (~chi).any():
        dd = np.broadcast_to(df, statistic.shape)[~chi]
        out[~chi] = log_f_sf(statistic[~chi] / dd, dd, df_resid[~chi])
    return out


def critical(log_alpha: float, df: int, df_resid: float) -> float:
    """The statistic (on the ``log_sf`` scale) whose p-value is ``exp(log_alpha)``.

    Used only to screen candidates, so the far tail may be approximate: a value a hair
    low merely lets a few more candidates through to the exact computation.
    """
    if log_alpha >= 0:
        return 0.0
    alpha = np.exp(log_alpha)
    if not np.isfinite(df_resid):
        if alpha > 1e-300:
            return float(stats.chi2.isf(alpha, df))
        # invert the leading tail term h - (a-1) log h = -log_alpha - lgamma(a), loosely
        return 2.0 * max(-log_alpha - 10.0 * df, 0.0)
    if alpha > 1e-300:
        return float(df * stats.f.isf(alpha, df, df_resid))
    return 0.0
