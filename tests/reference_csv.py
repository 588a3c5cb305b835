"""Reading the R reference tables of tests/reference (shared by the tests that compare with R)."""
from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import numpy as np
import pandas as pd

REF = Path(__file__).parent / "reference"


def read_ref(name: str, text: Collection[str]) -> pd.DataFrame:
    """A reference CSV: the ``text`` columns as str ("" stays ""), the others numeric ("" is NaN)."""
    df = pd.read_csv(REF / name, dtype=str, keep_default_na=False)
    for col in df.columns:
        if col not in text:
            df[col] = pd.to_numeric(df[col].replace("", np.nan))
    return df
