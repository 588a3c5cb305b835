"""Messages for values too large for the model's floating-point computations."""
from __future__ import annotations

import numpy as np

#: beyond this magnitude, squares and sums of squares overflow float64 (max 1.8e308)
SQUARE_LIMIT = 1e150


def too_large(what: str, values: np.ndarray | None) -> str | None:
    """Why ``values`` break the computations ("... as large as 1e+200 ..."), or None if they do not."""
    if values is None or values.size == 0:
        return None
    peak = float(np.max(np.abs(values)))
    if not np.isfinite(peak) or peak <= SQUARE_LIMIT:
        return None
    power = int(np.floor(np.log10(peak)))
    return (f"{what} has values as large as {peak:.3g}, whose squares overflow floating point (beyond 1.8e308); "
            f"rescale it, e.g. divide it by 1e{power - 2}")
