"""Command line: ``python -m streamreg FORMULA --data NAME_OR_CSV [options]``."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from .api import streamreg
from .datasets import list_datasets, load


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="streamreg",
        description="Streamwise feature selection with a formula; prints a statsmodels-style summary.",
        epilog='example: python -m streamreg "diagnosis ~ stream(*_mean) + stream(*_se, *_worst)" '
        "--data wdbc --family binomial",
    )
    p.add_argument("formula", help="e.g. 'y ~ age + stream(x*)'")
    p.add_argument("--data", required=True, help=f"a bundled data set ({', '.join(list_datasets())}) or a CSV path")
    p.add_argument("--family", default=None, help="gaussian (default; bundled sets suggest their own), binomial, poisson, ...")
    p.add_argument("--method", default="alpha-investing", help="selection rule (default alpha-investing)")
    p.add_argument("--w0", type=float, default=None, help="initial wealth")
    p.add_argument("--alpha-delta", type=float, default=None, help="payout per acceptance (alpha-investing)")
    p.add_argument("--test", default=None, help="t or paper (gaussian); score or lr (GLMs)")
    p.add_argument("--max-tests", type=int, default=None)
    p.add_argument("--latex", metavar="FILE", help="also write the summary as LaTeX")
    p.add_argument("--html", metavar="FILE", help="also write the summary as HTML")
    p.add_argument("--history", metavar="FILE", help="write the selection history as CSV")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    family = args.family
    if args.data in list_datasets():
        ds = load(args.data)
        data = ds.data
        family = family or ds.family
    else:
        path = Path(args.data)
        if not path.exists():
            print(f"streamreg: --data {args.data!r} is neither a bundled data set "
                  f"({', '.join(list_datasets())}) nor an existing file", file=sys.stderr)
            return 2
        data = pd.read_csv(path)
    options = {}
    if args.w0 is not None:
        options["w0"] = args.w0
    if args.alpha_delta is not None:
        options["alpha_delta"] = args.alpha_delta
    try:
        fit = streamreg(args.formula, data, family=family or "gaussian", method=args.method, test=args.test,
                        max_tests=args.max_tests, **options)
    except (ValueError, TypeError) as exc:
        print(f"streamreg: {exc}", file=sys.stderr)
        return 2
    smry = fit.summary()
    print(smry.as_text())
    print(f"\nSelected formula: {fit.selected_formula}")
    if args.latex:
        Path(args.latex).write_text(smry.as_latex(), encoding="utf-8")
    if args.html:
        Path(args.html).write_text(smry.as_html(), encoding="utf-8")
    if args.history:
        fit.history.to_csv(args.history, index=False)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
