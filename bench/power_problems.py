"""Simulated problems for ``bench/bench_power.py`` (power / FDR of selection rules).

Each ``make_<P>(seed)`` returns ``(X, y, true_idx, family)``, deterministic from
``np.random.default_rng(seed)``:

* ``X`` -- an ``n x m`` float64 array whose columns are the candidates (names ``x0 ...``
  when given to ``streamreg.select``); for problem F a DataFrame instead (see below);
* ``y`` -- the response (0/1 for binomial, counts for Poisson);
* ``true_idx`` -- sorted indices of the true candidates;
* ``family`` -- ``"gaussian"``, ``"binomial"`` or ``"poisson"``.

Problems
--------
A  n 100, m 1,000 iid N(0,1), 4 true (beta 1) at random positions, noise sd 0.1, gaussian.
B  n 200, m 2,000 AR(1) columns (rho 0.5: x_j = rho x_{j-1} + sqrt(1 - rho^2) z_j), 20 true
   at random positions, beta = +-U(0.5, 1) * 0.5 (random signs), noise sd 1, gaussian.
C  n 400, m 1,000 iid, 10 true, beta +-1, y ~ Bernoulli(sigmoid(X beta)), binomial.
D  n 200, m 100,000 iid, 10 true, beta +-1, noise sd 1, gaussian (X is 160 MB).
P  n 400, m 1,500 iid, 6 true, beta +-0.25, y ~ Poisson(exp(1 + X beta)), poisson.
F  n 400, binomial; 20 categorical columns ``f0 .. f19`` with 3-5 equiprobable levels
   (pandas Categorical, levels ``"a"``, ``"b"``, ...) and 300 iid N(0,1) numeric columns
   ``x0 .. x299``; truth: 2 factors whose non-reference levels have effects +-0.8 (random
   signs; the first level is the reference, 0) and 5 numeric columns with beta +-0.8;
   y ~ Bernoulli(sigmoid(eta)).  ``X`` is a DataFrame with the factor columns first and
   the response is NOT in it.  Candidates are *terms*: term k < 20 is factor ``f{k}``,
   term 20 + j is ``x{j}``; ``true_idx`` indexes terms.  ``dummies(X)`` gives the one-hot
   (drop-first) design for peers and the term of each of its columns.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pandas as pd

Problem = tuple  # (X, y, true_idx, family)


def _true_positions(rng: np.random.Generator, m: int, k: int) -> np.ndarray:
    return np.sort(rng.choice(m, size=k, replace=False))


def _signs(rng: np.random.Generator, k: int) -> np.ndarray:
    return rng.choice(np.array([-1.0, 1.0]), size=k)


def _sigmoid(eta: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-eta))


def make_A(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    n, m, k = 100, 1_000, 4
    X = rng.standard_normal((n, m))
    idx = _true_positions(rng, m, k)
    y = X[:, idx].sum(axis=1) + 0.1 * rng.standard_normal(n)
    return X, y, idx, "gaussian"


def make_B(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    n, m, k, rho = 200, 2_000, 20, 0.5
    Z = rng.standard_normal((n, m))
    X = np.empty_like(Z)
    X[:, 0] = Z[:, 0]
    s = np.sqrt(1.0 - rho * rho)
    for j in range(1, m):
        X[:, j] = rho * X[:, j - 1] + s * Z[:, j]
    idx = _true_positions(rng, m, k)
    beta = _signs(rng, k) * rng.uniform(0.5, 1.0, size=k) * 0.5
    y = X[:, idx] @ beta + rng.standard_normal(n)
    return X, y, idx, "gaussian"


def make_C(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    n, m, k = 400, 1_000, 10
    X = rng.standard_normal((n, m))
    idx = _true_positions(rng, m, k)
    beta = _signs(rng, k)
    y = (rng.random(n) < _sigmoid(X[:, idx] @ beta)).astype(float)
    return X, y, idx, "binomial"


def make_D(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    n, m, k = 200, 100_000, 10
    X = rng.standard_normal((n, m))
    idx = _true_positions(rng, m, k)
    beta = _signs(rng, k)
    y = X[:, idx] @ beta + rng.standard_normal(n)
    return X, y, idx, "gaussian"


def make_P(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    n, m, k = 400, 1_500, 6
    X = rng.standard_normal((n, m))
    idx = _true_positions(rng, m, k)
    beta = 0.25 * _signs(rng, k)
    y = rng.poisson(np.exp(1.0 + X[:, idx] @ beta)).astype(float)
    return X, y, idx, "poisson"


F_FACTORS, F_NUMERIC = 20, 300


def make_F(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    n, kf, kx, eff = 400, 2, 5, 0.8
    levels = rng.integers(3, 6, size=F_FACTORS)            # 3..5 levels each
    codes = [rng.integers(0, L, size=n) for L in levels]
    Xnum = rng.standard_normal((n, F_NUMERIC))
    true_f = _true_positions(rng, F_FACTORS, kf)
    true_x = _true_positions(rng, F_NUMERIC, kx)
    eta = np.zeros(n)
    for f in true_f:
        effects = np.concatenate([[0.0], eff * _signs(rng, levels[f] - 1)])
        eta += effects[codes[f]]
    eta += Xnum[:, true_x] @ (eff * _signs(rng, kx))
    y = (rng.random(n) < _sigmoid(eta)).astype(float)
    cols: dict[str, object] = {}
    for f in range(F_FACTORS):
        cats = [chr(ord("a") + i) for i in range(levels[f])]
        cols[f"f{f}"] = pd.Categorical.from_codes(codes[f], categories=cats)
    for j in range(F_NUMERIC):
        cols[f"x{j}"] = Xnum[:, j]
    X = pd.DataFrame(cols)
    idx = np.concatenate([true_f, F_FACTORS + true_x])
    return X, y, idx, "binomial"


def dummies(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """One-hot (drop-first) design of problem F's frame and the term index of each column."""
    blocks, term = [], []
    for f in range(F_FACTORS):
        c = df[f"f{f}"].cat.codes.to_numpy()
        L = len(df[f"f{f}"].cat.categories)
        blocks.append((c[:, None] == np.arange(1, L)[None, :]).astype(float))
        term += [f] * (L - 1)
    blocks.append(df[[f"x{j}" for j in range(F_NUMERIC)]].to_numpy(dtype=float))
    term += list(range(F_FACTORS, F_FACTORS + F_NUMERIC))
    return np.hstack(blocks), np.asarray(term)


_TERM = re.compile(r"^(?:C\()?\s*([fx])(\d+)\s*\)?(?:\[.*\])?$")


def term_index(name: str) -> int:
    """Problem F: term index of a streamreg term name (``f3``, ``C(f3)``, ``x12``)."""
    mt = _TERM.match(str(name).strip())
    if mt is None:
        raise ValueError(f"unrecognised term name {name!r}")
    kind, num = mt.group(1), int(mt.group(2))
    return num if kind == "f" else F_FACTORS + num


def n_candidates(key: str, X) -> int:
    """Number of candidates m (terms for F)."""
    return F_FACTORS + F_NUMERIC if key == "F" else X.shape[1]


PROBLEMS: dict[str, Callable[[int], Problem]] = {
    "A": make_A, "B": make_B, "C": make_C, "D": make_D, "P": make_P, "F": make_F,
}
