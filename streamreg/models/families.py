"""What each GLM family can do: one :class:`FamilySpec` per family, in one table.

Every layer asks the spec of a family (:func:`spec_of`) instead of checking the class of
the statsmodels family: which model state fits it (:attr:`FamilySpec.least_squares`), the
candidate tests it accepts and their descriptions, whether its dispersion is fixed, the
range of its mean and of its response, how separation is checked, the loss of the
penalised methods and R's log-likelihood convention of the refit.  The statsmodels family
instance itself still goes wherever statsmodels needs it.

A new candidate test of some families (say a score test with an estimated dispersion) is
one more :class:`CandidateTest` in the ``tests`` of their specs below, computed by the
model state that fits them.

This module is the bottom of the package: it imports statsmodels and numpy only (and the
family classes R has and statsmodels lacks, :mod:`.family_classes`).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import statsmodels.api as sm

from .family_classes import NegBin, QuasiBinomial, QuasiPoisson

_links = sm.families.links


@dataclass(frozen=True)
class CandidateTest:
    """A test of candidate terms: its ``test=`` name and a one-line description.

    Examples
    --------
    >>> SCORE.name, SCORE.description
    ('score', 'score (Rao) chi-square')
    """

    name: str
    description: str


T_TEST = CandidateTest("t", "partial F (t^2 for a single column)")
PAPER = CandidateTest("paper", "paper 000 code: p = exp(-dRSS / (2 RSS0 / n))")
SCORE = CandidateTest("score", "score (Rao) chi-square")
#: the score test with the dispersion estimated (Pearson) and an F reference: R's quasi families
SCORE_F = CandidateTest("score-f", "score (Rao) F, Pearson dispersion")
LR = CandidateTest("lr", "likelihood ratio chi-square")

#: the tests of exact least squares (:class:`~.gaussian.GaussianState`) and of IRLS fits
#: (:class:`~.glm.GLMState`), the first of each the default
LEAST_SQUARES_TESTS = (T_TEST, PAPER)
GLM_TESTS = (SCORE, SCORE_F, LR)


@dataclass(frozen=True)
class MeanRange:
    """Where a family's mean may lie (R's ``family$validmu``): ``lower`` to ``upper``.

    ``lower_open``: the lower end itself is outside (a Gamma mean of 0).  The ends of the
    binomial range are inside: a mean of exactly 0 or 1 is saturation, which the
    separation test decides.

    Examples
    --------
    >>> import numpy as np
    >>> POSITIVE.outside(np.array([-1.0, 0.0, 2.0]))
    array([ True,  True, False])
    """

    lower: float = -math.inf
    upper: float = math.inf
    lower_open: bool = False

    def outside(self, mu: np.ndarray) -> np.ndarray:
        """Which of the (finite) means ``mu`` lie outside the range; NaN is never outside."""
        mu = np.asarray(mu, dtype=float)
        below = mu <= self.lower if self.lower_open else mu < self.lower
        return below | (mu > self.upper)


REAL = MeanRange()
UNIT = MeanRange(0.0, 1.0)
NONNEGATIVE = MeanRange(0.0)
POSITIVE = MeanRange(0.0, lower_open=True)

#: what the response must be: ``"binary"`` 0/1 (or proportions of trials given as
#: ``var_weights``; a two-level factor is coded), ``"counts"`` non-negative, ``"positive"``,
#: ``"any"`` unchecked
Response = Literal["any", "binary", "counts", "positive"]
#: how the existence of the MLE is checked (:mod:`.separation`): ``"binary"`` Konis' linear
#: programme on the 0/1 response, ``"counts"`` Haberman's on the zero counts; None: not checked
Separation = Literal["binary", "counts"]
#: R's ``logLik`` of a GLM refit (:func:`streamreg.results.fitstats.r_loglik`): ``"llf"``
#: statsmodels' (R's too, or R has none), ``"grouped_binomial"`` statsmodels' but for the
#: binomial coefficients of proportions, else R's family ``aic`` at ``deviance / sum(w)``
LogLik = Literal["llf", "grouped_binomial", "gaussian", "gamma", "inverse_gaussian", "none"]


@dataclass(frozen=True)
class FamilySpec:
    """What one family can do.

    Attributes
    ----------
    name : str
        The short name (the class name in lower case: ``"gaussian"``, ``"inversegaussian"``).
    r_name : str or None
        R's name of the family (``"Gamma"``, ``"inverse.gaussian"``; ``MASS`` and
        ``statmod`` for the negative binomial and Tweedie); None when unknown.
    sm_class : type
        The statsmodels family class (an instance of a subclass has the spec too).
    factory : callable or None
        A new statsmodels family instance of the spec (its default link).
    names : tuple of str
        The strings :func:`resolve_family` accepts for it (lower case, ``_`` for ``-``).
    link : type or None
        The spec holds with this link class only (None: any link).
    least_squares : bool
        Fitted by exact least squares (:class:`~.gaussian.GaussianState`, an OLS refit).
    tests : tuple of CandidateTest
        The candidate tests it accepts (``test=``).
    default_test : str
        The test used when ``test=None``.
    grouped_default_test : str or None
        The default for binomial proportions of several trials, whose variance omitted terms
        can inflate as they inflate counts' (None: ``default_test``); see
        :meth:`default_test_for`.
    test_scope : str
        Who the tests are for, in the message refusing another test.
    fixed_dispersion : bool
        The dispersion is 1 in theory (binomial, Poisson, negative binomial); otherwise it
        is estimated (Pearson) and counted as a parameter in AIC and BIC.
    mean_range : MeanRange
        The valid means (``invalid_means``; ``needs_mle_check`` via ``separation``).
    response : {"any", "binary", "counts", "positive"}
        What the response must be (``check_response``).
    separation : {"binary", "counts"} or None
        How the existence of the MLE is checked.
    penalised_loss : {"squared", "logistic"} or None
        The loss of the penalised methods (grafting, BP-SFS, FSA), with ``penalised_link``.
    penalised_link : type or None
        The link the penalised loss needs.
    loglik : str
        R's log-likelihood convention of the refit (:data:`LogLik`; ``"none"``: R's ``logLik``
        is NA, as for the quasi families).
    refit_scale : str or None
        statsmodels' ``GLM.fit(scale=)`` of the refit (``"X2"``: the Pearson dispersion, with
        t tests on the residual df, as R's ``summary.glm`` of a quasi family); None: the
        family's own.
    theta_estimated : bool
        The family has a shape parameter estimated by maximum likelihood besides the
        coefficients (the negative binomial's theta, R's ``MASS::glm.nb``): the model state
        and the refit alternate IRLS with its estimation, and it is counted in AIC and BIC.

    Examples
    --------
    >>> BINOMIAL.r_name, BINOMIAL.test_names, BINOMIAL.default_test, BINOMIAL.estimates_dispersion
    ('binomial', ('score', 'score-f', 'lr'), 'score', False)
    """

    name: str
    r_name: str | None
    sm_class: type
    factory: Callable[[], Any] | None
    names: tuple[str, ...] = ()
    link: type | None = None
    least_squares: bool = False
    tests: tuple[CandidateTest, ...] = GLM_TESTS
    default_test: str = "score"
    grouped_default_test: str | None = None
    test_scope: str = "GLMs"
    fixed_dispersion: bool = False
    mean_range: MeanRange = REAL
    response: Response = "any"
    separation: Separation | None = None
    penalised_loss: Literal["squared", "logistic"] | None = None
    penalised_link: type | None = field(default=None, repr=False)
    loglik: LogLik = "llf"
    refit_scale: str | None = None
    theta_estimated: bool = False

    def __post_init__(self) -> None:
        if self.default_test not in self.test_names:
            raise ValueError(f"the default test {self.default_test!r} of {self.name} is not one of its tests")

    @property
    def test_names(self) -> tuple[str, ...]:
        """The names of the candidate tests, as ``test=`` takes them."""
        return tuple(t.name for t in self.tests)

    @property
    def estimates_dispersion(self) -> bool:
        """Whether the dispersion is estimated, and so counted as a parameter."""
        return not self.fixed_dispersion

    @property
    def extra_parameters(self) -> int:
        """Parameters besides the coefficients counted in AIC and BIC (R's ``logLik`` df minus
        the rank): the dispersion when it is estimated, the negative binomial's theta."""
        return int(self.estimates_dispersion) + int(self.theta_estimated)

    @property
    def lr_scale(self) -> Literal["llf", "dispersion", "profile"]:
        """How R's ``add1``/``drop1(test = "LRT")`` turn two nested fits into a statistic.

        ``"llf"``: twice the log-likelihood gain, the deviance change (dispersion 1);
        ``"dispersion"``: the deviance change over the Pearson dispersion of the model
        ``add1``/``drop1`` was called on (R's "scaled dev."; Gamma, inverse Gaussian, Tweedie);
        ``"profile"``: ``n log(D_small / D_large)``, the Gaussian likelihood ratio with the
        variance profiled out.

        Examples
        --------
        >>> POISSON.lr_scale, GAMMA.lr_scale, GAUSSIAN_GLM.lr_scale
        ('llf', 'dispersion', 'profile')
        """
        if self.least_squares or self.loglik == "gaussian":
            return "profile"
        return "llf" if self.fixed_dispersion else "dispersion"

    def default_test_for(self, y: Any) -> str:
        """The test used when ``test=None`` on the response ``y``.

        Families whose dispersion is 1 in theory but not in the data (counts; binomial
        proportions of several trials) default to ``"score-f"``: in a streamwise search the
        terms still to come are omitted from the current model, and they overdisperse the
        response, which makes the fixed-dispersion score test anti-conservative.  A 0/1
        response cannot be overdispersed, so it keeps the model-based ``"score"``.

        Examples
        --------
        >>> import numpy as np
        >>> POISSON.default_test_for(np.array([0.0, 3.0]))
        'score-f'
        >>> BINOMIAL.default_test_for(np.array([0.0, 1.0])), BINOMIAL.default_test_for(np.array([0.25, 1.0]))
        ('score', 'score-f')
        """
        if self.grouped_default_test is not None:
            values = np.asarray(y, dtype=float)
            if bool(np.any((values > 0) & (values < 1))):
                return self.grouped_default_test
        return self.default_test

    def describe_test(self, test: str) -> str:
        """The one-line description of one of the family's tests.

        Examples
        --------
        >>> GAUSSIAN.describe_test("t")
        'partial F (t^2 for a single column)'
        """
        for t in self.tests:
            if t.name == test:
                return t.description
        raise KeyError(f"{test!r} is not a test of the {self.name} family")

    def check_test(self, test: Any, *, allow_none: bool = True) -> str | None:
        """None (the default test; refused unless ``allow_none``) or one of the family's tests.

        A model state, which needs a test, passes ``allow_none=False``.

        Examples
        --------
        >>> GAUSSIAN.check_test("score")
        Traceback (most recent call last):
            ...
        ValueError: test must be one of ('t', 'paper') for the Gaussian family, got 'score'
        """
        if test is None and allow_none:
            return None
        if test not in self.test_names:
            raise ValueError(f"test must be one of {self.test_names} for {self.test_scope}, got {test!r}")
        return test

    def loss_for(self, family: Any) -> str | None:
        """The penalised methods' loss for ``family`` (of this spec); None when they cannot fit it.

        The link is checked with ``isinstance``: statsmodels' CDF links (probit, cauchy)
        subclass ``Logit`` and pass, as they always have for grafting and BP-SFS (FSA also
        requires the exact class).

        Examples
        --------
        >>> import statsmodels.api as sm
        >>> BINOMIAL.loss_for(sm.families.Binomial()), BINOMIAL.loss_for(sm.families.Binomial(sm.families.links.Log()))
        ('logistic', None)
        """
        if self.penalised_loss is None:
            return None
        if self.penalised_link is not None and not isinstance(getattr(family, "link", None), self.penalised_link):
            return None
        return self.penalised_loss


GAUSSIAN = FamilySpec("gaussian", "gaussian", sm.families.Gaussian, sm.families.Gaussian, ("gaussian", "normal"),
                      link=_links.Identity, least_squares=True, tests=LEAST_SQUARES_TESTS, default_test="t",
                      test_scope="the Gaussian family", penalised_loss="squared", loglik="gaussian")
#: the Gaussian family with another link (or an identity link fitted by IRLS: ``spec_of(as_glm=True)``)
GAUSSIAN_GLM = FamilySpec("gaussian", "gaussian", sm.families.Gaussian, None, loglik="gaussian")
BINOMIAL = FamilySpec("binomial", "binomial", sm.families.Binomial, sm.families.Binomial, ("binomial", "logistic"),
                      grouped_default_test="score-f",
                      fixed_dispersion=True, mean_range=UNIT, response="binary", separation="binary",
                      penalised_loss="logistic", penalised_link=_links.Logit, loglik="grouped_binomial")
POISSON = FamilySpec("poisson", "poisson", sm.families.Poisson, sm.families.Poisson, ("poisson",),
                     default_test="score-f", fixed_dispersion=True, mean_range=NONNEGATIVE, response="counts", separation="counts")
GAMMA = FamilySpec("gamma", "Gamma", sm.families.Gamma, sm.families.Gamma, ("gamma",),
                   mean_range=POSITIVE, response="positive", loglik="gamma")
INVERSE_GAUSSIAN = FamilySpec("inversegaussian", "inverse.gaussian", sm.families.InverseGaussian,
                              sm.families.InverseGaussian, ("inverse_gaussian",), mean_range=POSITIVE,
                              response="positive", loglik="inverse_gaussian")
#: R's glm.nb: theta estimated, so the overdispersion of omitted terms is modelled and the
#: model-based score test (R's add1 on a glm.nb fit) is the default
NEGBIN = FamilySpec("negbin", "glm.nb", NegBin, NegBin, ("negbin", "negativebinomial", "negative_binomial"),
                    fixed_dispersion=True, mean_range=NONNEGATIVE, response="counts", separation="counts",
                    theta_estimated=True)
#: statsmodels' NB2 at a fixed alpha (R's negative.binomial(theta = 1 / alpha)): an instance only,
#: sm.families.NegativeBinomial(alpha=...); the names give the estimated theta
NEGATIVE_BINOMIAL = FamilySpec("negativebinomial", "negative.binomial", sm.families.NegativeBinomial,
                               lambda: sm.families.NegativeBinomial(alpha=1.0),
                               default_test="score-f", fixed_dispersion=True, mean_range=POSITIVE, response="counts")
#: a quasi family has no likelihood (no LR test) and its dispersion is estimated (no score test at 1)
QUASI_TESTS = (SCORE_F,)
QUASIPOISSON = FamilySpec("quasipoisson", "quasipoisson", QuasiPoisson, QuasiPoisson, ("quasipoisson",),
                          tests=QUASI_TESTS, default_test="score-f", test_scope="a quasi family", mean_range=NONNEGATIVE, response="counts", separation="counts",
                          loglik="none", refit_scale="X2")
QUASIBINOMIAL = FamilySpec("quasibinomial", "quasibinomial", QuasiBinomial, QuasiBinomial, ("quasibinomial",),
                           tests=QUASI_TESTS, default_test="score-f", test_scope="a quasi family", mean_range=UNIT, response="binary", separation="binary",
                           loglik="none", refit_scale="X2")
#: statmod's ``tweedie()``: no R log-likelihood (its ``aic`` is NA), statsmodels' ``llf`` kept
TWEEDIE = FamilySpec("tweedie", "tweedie", sm.families.Tweedie, sm.families.Tweedie, mean_range=POSITIVE)
#: any other statsmodels family: a GLM with an estimated dispersion and nothing checked
OTHER = FamilySpec("family", None, sm.families.Family, None)

#: every spec, the first that fits a family instance being its spec
SPECS: tuple[FamilySpec, ...] = (GAUSSIAN, GAUSSIAN_GLM, QUASIBINOMIAL, QUASIPOISSON, BINOMIAL, POISSON, GAMMA,
                                 INVERSE_GAUSSIAN, NEGBIN, NEGATIVE_BINOMIAL, TWEEDIE, OTHER)
#: the family names :func:`resolve_family` accepts
FAMILIES: Mapping[str, FamilySpec] = {n: s for s in SPECS for n in s.names}


def resolve_family(family: str | Any) -> tuple[Any, str]:
    """A statsmodels family instance and a short name from a string or an instance.

    ``"negbin"`` and ``"negativebinomial"`` are :class:`NegBin`, theta estimated (R's
    ``MASS::glm.nb``); for a fixed theta pass statsmodels' ``NegativeBinomial(alpha=1 / theta)``
    (R's ``MASS::negative.binomial(theta)``).

    Examples
    --------
    >>> fam, name = resolve_family("Inverse-Gaussian")
    >>> type(fam).__name__, name
    ('InverseGaussian', 'inversegaussian')
    >>> resolve_family("weibull")
    Traceback (most recent call last):
        ...
    ValueError: unknown family 'weibull'; use one of ['binomial', 'gamma', 'gaussian', 'inverse_gaussian', 'logistic', 'negative_binomial', 'negativebinomial', 'negbin', 'normal', 'poisson', 'quasibinomial', 'quasipoisson'] or a statsmodels family instance
    """
    if isinstance(family, str):
        spec = FAMILIES.get(family.lower().replace("-", "_"))
        if spec is None or spec.factory is None:
            raise ValueError(
                f"unknown family {family!r}; use one of {sorted(FAMILIES)} or a statsmodels family instance"
            )
        fam = spec.factory()
    elif isinstance(family, sm.families.Family):
        fam = family
    else:
        raise TypeError(f"family must be a name or a statsmodels family instance, got {type(family).__name__}")
    return fam, family_name(fam)


def family_name(family: Any) -> str:
    """The short name of a family instance: its class name in lower case.

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> family_name(sm.families.Poisson())
    'poisson'
    """
    return type(family).__name__.lower()


def spec_of(family: str | Any, *, as_glm: bool = False) -> FamilySpec:
    """The :class:`FamilySpec` of a statsmodels family instance (or of a name, resolved).

    ``as_glm``: the spec of the family fitted by IRLS (:class:`~.glm.GLMState`), which for
    least squares is :data:`GAUSSIAN_GLM`.

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> spec_of(sm.families.Gaussian()) is GAUSSIAN, spec_of("normal") is GAUSSIAN
    (True, True)
    >>> spec_of(sm.families.Gaussian(sm.families.links.Log())).default_test
    'score'
    """
    fam: Any = resolve_family(family)[0] if isinstance(family, str) else family
    for spec in SPECS:
        if isinstance(fam, spec.sm_class) and (spec.link is None or isinstance(getattr(fam, "link", None), spec.link)):
            if as_glm and spec.least_squares:
                return GAUSSIAN_GLM
            return spec
    return OTHER


def is_ols(family: Any) -> bool:
    """Gaussian with identity link: use the exact least-squares state.

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> is_ols(sm.families.Gaussian()), is_ols(sm.families.Gaussian(sm.families.links.Log()))
    (True, False)
    """
    return not isinstance(family, str) and spec_of(family).least_squares


def describe_test(test: str) -> str:
    """The one-line description of a candidate test of any family (the name itself if unknown).

    Examples
    --------
    >>> describe_test("lr")
    'likelihood ratio chi-square'
    """
    for spec in SPECS:
        for t in spec.tests:
            if t.name == test:
                return t.description
    return test


__all__ = [
    "BINOMIAL", "FAMILIES", "GAMMA", "GAUSSIAN", "GAUSSIAN_GLM", "GLM_TESTS", "INVERSE_GAUSSIAN",
    "LEAST_SQUARES_TESTS", "NEGATIVE_BINOMIAL", "NEGBIN", "OTHER", "POISSON", "SPECS", "TWEEDIE", "CandidateTest",
    "FamilySpec", "MeanRange", "NegBin", "QuasiBinomial", "QuasiPoisson", "describe_test", "family_name", "is_ols", "resolve_family", "spec_of",
]
