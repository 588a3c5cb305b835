"""The L1-penalised fit shared by grafting and BP-SFS.

The criterion (Perkins and Theiler 2003, eq. 1 with the lasso regulariser) is the *mean* loss plus
``lam * sum_j |w_j|`` over the active (penalised) weights; the fixed columns (intercept
and fixed terms) are unpenalised, as the paper's bias term.  Losses:

* ``"squared"``: ``L = ||y - eta||^2 / (2 n)`` -- the scaling of scikit-learn's ``Lasso``,
  so ``lam`` there is ``alpha`` here;
* ``"logistic"``: ``L = mean(log(1 + exp(eta)) - y eta)`` with y in {0, 1} -- the
  binomial negative log-likelihood of the paper (y = +-1 form), mean over the rows;
  scikit-learn's ``LogisticRegression(penalty="l1", C=1 / (lam n))`` minimises n times it.

A weight at zero can only move if ``|dL/dw_j| > lam`` (the gradient test).  The
optimisation over the active set is done in two stages: L-BFGS-B on the split
parametrisation ``w = u - v`` (``u, v >= 0``; smooth, bound-constrained), then a Newton
"polish" on the non-zero support with the signs fixed, i.e. a solve of the KKT equations
``Z'g + lam * [0, sign(w)] = 0``.  The polish makes the weights exact to rounding (the
squared loss needs one step) so that pruning a weight is a clear-cut decision and the
result can be compared with an independent lasso solver at 1e-5 and tighter.
"""
from __future__ import annotations

import numpy as np
from scipy import optimize
from scipy.special import expit

from ...validators import check_choice

LOSSES = ("squared", "logistic")
#: relative KKT slack: a zero weight with |grad| <= lam (1 + KKT_SLACK) stays at zero
KKT_SLACK = 1e-9


def loss_value(loss: str, y: np.ndarray, eta: np.ndarray) -> float:
    """Mean loss at the linear predictor ``eta``."""
    if loss == "squared":
        r = y - eta
        return float(r @ r) / (2 * len(y))
    return float(np.logaddexp(0.0, eta).sum() - y @ eta) / len(y)


def loss_derivatives(loss: str, y: np.ndarray, eta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Mean loss, its gradient with respect to ``eta`` and the Hessian diagonal."""
    n = len(y)
    if loss == "squared":
        r = y - eta
        return float(r @ r) / (2 * n), -r / n, np.full(n, 1.0 / n)
    mu = expit(eta)
    value = float(np.mean(np.logaddexp(0.0, eta) - y * eta))
    return value, (mu - y) / n, mu * (1 - mu) / n


class L1Model:
    """An L1-penalised GLM (squared or logistic loss) over a growing set of columns.

    Parameters
    ----------
    y : ndarray, shape (n,)
    fixed : ndarray, shape (n, k0)
        Unpenalised columns (at least the intercept).
    loss : {"squared", "logistic"}
    """

    def __init__(self, y: np.ndarray, fixed: np.ndarray, loss: str):
        check_choice("loss", loss, LOSSES)
        self.y = np.asarray(y, dtype=float)
        self.n = len(self.y)
        self.fixed = np.asarray(fixed, dtype=float).reshape(self.n, -1)
        self.loss = loss
        self.cols = np.empty((self.n, 0))
        self.w = np.zeros(0)
        self.b = np.zeros(self.fixed.shape[1])
        self._fit_unpenalised()

    # ------------------------------------------------------------------ state
    @property
    def p(self) -> int:
        """Number of active (penalised) weights."""
        return self.cols.shape[1]

    def eta(self) -> np.ndarray:
        return self.fixed @ self.b + self.cols @ self.w

    def loss_gradient(self) -> np.ndarray:
        """``dL/deta`` at the current fit (the paper's loss-gradient vector, / n included)."""
        return loss_derivatives(self.loss, self.y, self.eta())[1]

    def gradients(self, columns: np.ndarray) -> np.ndarray:
        """``dL/dw_j`` at ``w_j = 0`` for each column: one matrix-vector product."""
        return np.asarray(columns).T @ self.loss_gradient()

    def objective(self, lam: float) -> float:
        return loss_value(self.loss, self.y, self.eta()) + lam * float(np.abs(self.w).sum())

    def add(self, column: np.ndarray) -> int:
        """Append a column with weight 0; returns its position in the active set."""
        self.cols = np.column_stack([self.cols, np.asarray(column, dtype=float)])
        self.w = np.append(self.w, 0.0)
        return self.p - 1

    def remove(self, positions: np.ndarray | list[int]) -> None:
        keep = np.setdiff1d(np.arange(self.p), np.asarray(positions, dtype=int))
        self.cols = self.cols[:, keep]
        self.w = self.w[keep]

    # --------------------------------------------------------------- fitting
    def _fit_unpenalised(self) -> None:
        """The fixed columns alone: least squares, or Newton for the logistic loss."""
        f = self.fixed
        if self.loss == "squared":
            self.b = np.linalg.lstsq(f, self.y, rcond=None)[0]
            return
        self._newton(np.empty((self.n, 0)), np.zeros(0), 0.0)

    def fit(self, lam: float) -> np.ndarray:
        """Minimise the criterion over b and the active weights; returns pruned positions.

        Weights whose optimum is exactly zero are removed from the active set (the
        paper's explicit pruning); the returned positions refer to the active set
        *before* the removal, in increasing order.
        """
        if self.p == 0:
            self._fit_unpenalised()
            return np.zeros(0, dtype=int)
        # warm start: the active-set Newton alone usually settles in a few solves; L-BFGS-B
        # (robust, slower) is the fallback when the support does not settle
        if not self._polish(lam):
            self._lbfgs(lam)
            self._polish(lam)
        zero = np.flatnonzero(self.w == 0.0)
        if zero.size:
            self.remove(zero)
        return zero

    def _lbfgs(self, lam: float) -> None:
        k0, p = self.fixed.shape[1], self.p
        f, a, y, loss = self.fixed, self.cols, self.y, self.loss

        def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
            b, u, v = theta[:k0], theta[k0 : k0 + p], theta[k0 + p :]
            value, g, _ = loss_derivatives(loss, y, f @ b + a @ (u - v))
            ag = a.T @ g
            grad = np.concatenate([f.T @ g, ag + lam, -ag + lam])
            return value + lam * float(u.sum() + v.sum()), grad

        theta0 = np.concatenate([self.b, np.maximum(self.w, 0), np.maximum(-self.w, 0)])
        bounds = [(None, None)] * k0 + [(0.0, None)] * (2 * p)
        res = optimize.minimize(fun, theta0, jac=True, method="L-BFGS-B", bounds=bounds,
                                options={"maxiter": 20_000, "maxcor": 30, "ftol": 1e-15, "gtol": 1e-12})
        th = res.x
        self.b = th[:k0]
        self.w = th[k0 : k0 + p] - th[k0 + p :]

    def _polish(self, lam: float, rounds: int = 30) -> bool:
        """Newton on the KKT equations of the non-zero support, signs fixed.

        Weights that would cross zero leave the support; zero weights whose gradient
        violates ``|grad| <= lam`` join it (largest violation first).  Returns True when
        the support is stable, i.e. the KKT conditions hold for every active column.
        """
        scale = max(float(np.abs(self.w).max(initial=0.0)), 1e-300)
        support = np.abs(self.w) > 1e-9 * scale
        w_backup, b_backup = self.w.copy(), self.b.copy()
        for _ in range(rounds):
            self.w = np.where(support, self.w, 0.0)
            signs = np.sign(self.w)
            idx = np.flatnonzero(support)
            w_round, b_round = self.w.copy(), self.b.copy()
            start = self.objective(lam)
            # entering weights start at zero with the sign that lowers the criterion
            ok = self._newton(self.cols[:, idx], signs[idx], lam, idx)
            if not ok:
                break
            if not self.objective(lam) <= start + 1e-12 * abs(start):
                # with a wrong sign the smooth criterion can be unbounded below without any
                # weight crossing zero (Newton ran off to infinity): not a solution
                break
            crossed = idx[np.sign(self.w[idx]) != signs[idx]]
            if crossed.size:
                # with a sign fixed wrongly the smooth criterion is unbounded below and Newton
                # runs off: restart from the round's starting point, not from where it ran to
                self.w, self.b = w_round, b_round
                support[crossed] = False
                self.w[crossed] = 0.0
                continue
            grad = self.gradients(self.cols)
            bad = (~support) & (np.abs(grad) > lam * (1 + KKT_SLACK))
            if not bad.any():
                return True
            j = int(np.argmax(np.where(bad, np.abs(grad), -np.inf)))
            support[j] = True
            self.w[j] = -np.sign(grad[j]) * 1e-12  # sign for the Newton system; value refitted
        # did not settle (rare): restore the starting point with tiny weights zeroed
        self.w, self.b = w_backup, b_backup
        self.w[np.abs(self.w) <= 1e-9 * scale] = 0.0
        return False

    def _newton(self, a: np.ndarray, signs: np.ndarray, lam: float, idx: np.ndarray | None = None, maxiter: int = 100) -> bool:
        """Minimise ``L(F b + a w) + lam * signs'w`` (smooth) by damped Newton."""
        z = np.column_stack([self.fixed, a])
        k0 = self.fixed.shape[1]
        theta = np.concatenate([self.b, self.w[idx] if idx is not None else np.zeros(a.shape[1])])
        pen = np.concatenate([np.zeros(k0), lam * signs])
        y, loss = self.y, self.loss
        # the linear predictor of each accepted point is kept for the next derivatives
        eta = z @ theta
        cur = loss_value(loss, y, eta) + float(pen @ theta)
        for _ in range(maxiter):
            g, h = _eta_derivatives(loss, y, eta)
            grad = z.T @ g + pen
            hess = (z.T * h) @ z
            try:
                step = np.linalg.solve(hess, grad)
            except np.linalg.LinAlgError:
                step = np.linalg.lstsq(hess, grad, rcond=None)[0]
            if not np.all(np.isfinite(step)):
                return False
            t = 1.0
            while True:
                cand = theta - t * step
                eta_c = z @ cand
                new = loss_value(loss, y, eta_c) + float(pen @ cand)
                if new <= cur + 1e-16 * abs(cur) or t < 1e-10:
                    break
                t *= 0.5
            theta, eta, done = cand, eta_c, abs(cur - new) <= 1e-15 * max(abs(cur), 1e-300)
            cur = new
            if done or np.max(np.abs(t * step)) <= 1e-13 * max(1.0, np.max(np.abs(theta))):
                break
        else:
            return False  # no convergence (the smooth criterion may be unbounded below)
        self.b = theta[:k0]
        if idx is not None:
            self.w[idx] = theta[k0:]
        return True


def lasso_working_set(model: L1Model, columns: np.ndarray, lam: float, active: np.ndarray, *,
                      max_add: int = 10, max_iter: int = 1000) -> tuple[np.ndarray, bool]:
    """The batch L1 optimum over all ``columns``, warm-started from the model's active set.

    ``model`` holds ``columns[:, active]`` as its active columns (in that order).  Each
    round re-optimises the active set, then scores every column with one matrix-vector
    product and adds the (at most ``max_add``) worst KKT violators; it ends when KKT holds
    for every column.  Returns the new active indices (in the model's order) and whether
    KKT was reached (False: the criterion stopped decreasing, or ``max_iter`` rounds).

    With re-testing and a fixed lambda, grafting's online result is this optimum (paper
    004, 4.2), so cross-validation can follow a warm-started lambda path with it.
    """
    active = np.asarray(active, dtype=int)
    previous = np.inf
    for _ in range(max_iter):
        pruned = model.fit(lam)
        if len(pruned):
            active = np.delete(active, pruned)
        current = model.objective(lam)
        if not current < previous:
            return active, False
        previous = current
        grad = np.abs(columns.T @ model.loss_gradient())
        grad[active] = 0.0
        violating = np.flatnonzero(grad > lam * (1 + KKT_SLACK))
        if not violating.size:
            return active, True
        top = violating[np.argsort(-grad[violating], kind="stable")[:max_add]]
        for j in top:
            model.add(columns[:, j])
        active = np.concatenate([active, top])
    return active, False


def _eta_derivatives(loss: str, y: np.ndarray, eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian diagonal of the mean loss with respect to ``eta``."""
    n = len(y)
    if loss == "squared":
        return (eta - y) / n, np.full(n, 1.0 / n)
    mu = expit(eta)
    return (mu - y) / n, mu * (1 - mu) / n
