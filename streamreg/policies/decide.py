"""One rule's decisions over a sequence of tests that nothing between them changes.

:func:`streamreg.online_fdr` runs a rule over given p-values with it, and the confirmation
pass of ``method="screen-confirm"`` over its candidates' tests against the screened model.
"""
from __future__ import annotations

import numpy as np

from ..outcomes import TestOutcomes
from .base import Policy

#: tests planned at once: few after an acceptance (a rule's planning cost grows with its
#: acceptances), doubling up to the largest while none happens
_FIRST_BLOCK, _MAX_BLOCK = 16, 65536


def run_rule(policy: Policy, outcomes: TestOutcomes, *,
             wealth: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Levels and decisions of a started ``policy`` over ``outcomes``, one test after another
    (the tests do not depend on the decisions: nothing enters a model between them).

    The p-values the rule computed (those that could fall below their level) are left on
    ``outcomes`` (:meth:`~streamreg.outcomes.TestOutcomes.known_log_p`), so that a history
    computes the rest only when it is read.  ``wealth`` (length ``len(outcomes)``), if given,
    receives the rule's wealth after each test."""
    n = len(outcomes)
    level = np.empty(n)
    rejected = np.zeros(n, dtype=bool)
    known = np.full(n, np.nan)
    pos, block = 0, _FIRST_BLOCK
    while pos < n:
        part = outcomes.take(slice(pos, min(pos + block, n)))
        plan = policy.plan(part)
        hits = np.flatnonzero(plan.accept)
        used = int(hits[0]) + 1 if hits.size else len(part)
        level[pos:pos + used] = plan.level[:used]
        known[pos:pos + used] = part.known_log_p()[:used]
        rejected[pos + used - 1] = bool(hits.size)
        if wealth is not None:  # under rejection; the last test's own wealth once recorded
            wealth[pos:pos + used] = plan.head(used)[1]
        policy.record(part, used, bool(hits.size))
        if wealth is not None:
            wealth[pos + used - 1] = policy.wealth
        pos += used
        block = _FIRST_BLOCK if hits.size else min(2 * block, _MAX_BLOCK)
    outcomes.keep_screened(known)
    return level, rejected
