"""Render the README's figures from the bundled wdbc data: ``python docs/make_figures.py``.

Writes ``docs/images/plots.png``: the p-value plot, the selection path and the coefficient
plot of one fit, each drawn by the results' own ``plot_*`` method on a given Axes.
"""
from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's streamreg, not an installed one
import streamreg as sr


def main() -> Path:
    df = sr.datasets.load("wdbc").data
    fit = sr.streamreg("diagnosis ~ stream(*_mean) + stream(*_se, *_worst)", df, family="binomial",
                       w0=0.05, alpha_delta=0.05)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    fit.plot_pvalues(ax=axes[0])
    fit.plot_selection_path(ax=axes[1])
    fit.plot_coefficients(ax=axes[2])
    fig.tight_layout()
    out = Path(__file__).resolve().parent / "images" / "plots.png"
    out.parent.mkdir(exist_ok=True)
    fig.savefig(out, dpi=80)
    return out


if __name__ == "__main__":
    print(main())
