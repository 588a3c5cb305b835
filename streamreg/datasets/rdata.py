"""R's ``.RData`` files, read with the ``rdata`` package and handed over as pandas.

The gene-expression sets are published upstream only as ``.RData`` files of the
``datamicroarray`` R package: ``list(x = <data frame or matrix>, y = <factor>)``.  The
``rdata`` package (a kept reader of R's serialisation format, versions 2 and 3, gzip,
bzip2 or xz) parses them; it read R-saved copies of the gene sets (data frame and matrix
forms, all three compressions) exactly as the lossless CSV conversions hold them.  What
this module adds is the shape the loaders want: data frames and matrices as
:class:`pandas.DataFrame` (rdata gives a matrix as an ``xarray.DataArray`` and an integer
column with ``NA`` as a masked array), factors as :class:`pandas.Categorical`, and one
clear :class:`ValueError` for a file it cannot read.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd


def read_rdata(raw: bytes) -> dict[str, Any]:
    """The objects saved in an ``.RData`` file, by name, as pandas and numpy values.

    Parameters
    ----------
    raw : bytes
        The file's contents (compressed with gzip, bzip2 or xz, or not compressed).

    Returns
    -------
    dict
        Object name -> value: a data frame or a matrix as a DataFrame (a matrix keeps
        its ``dimnames``), a factor as a Categorical, a named list as a dict, an
        unnamed one as a list, other vectors as numpy arrays (``NA`` as NaN, or None
        among strings).

    Raises
    ------
    ValueError
        When the bytes are not an ``.RData`` file that the ``rdata`` package reads.

    Examples
    --------
    A file written by R's ``save(z, file = "z.RData", version = 2, compress = FALSE)``
    with ``z <- c(1.5, -2)``:

    >>> import struct
    >>> ints = lambda *v: b"".join(struct.pack(">i", x) for x in v)
    >>> chars = lambda s: ints(0x40009, len(s)) + s.encode()
    >>> body = ints(1026) + ints(1) + chars("z") + ints(14, 2) + struct.pack(">2d", 1.5, -2) + ints(254)
    >>> read_rdata(b"RDX2\\nX\\n" + ints(2, 0x30000, 0x20300) + body)["z"]
    array([ 1.5, -2. ])
    """
    # imported here, when an upstream file is read: rdata brings xarray (a quarter of a second)
    import rdata

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # rdata's guesses about file types and encodings
            objects = rdata.conversion.convert(rdata.parser.parse_data(raw))
    except Exception as exc:  # noqa: BLE001 -- any parse failure means the same to a caller
        raise ValueError(f"not an .RData file that can be read ({type(exc).__name__}: {exc})") from None
    if not isinstance(objects, dict):
        raise ValueError("an .RData file holds named objects; this file holds a single unnamed value")  # noqa: TRY004
    return {str(name): _pandas(value) for name, value in objects.items()}


def _pandas(value: Any) -> Any:
    """One converted R value in the shape the loaders use (see :func:`read_rdata`)."""
    if type(value).__name__ == "DataArray":  # xarray's, as rdata gives a matrix
        if value.ndim != 2:
            return value.to_numpy()
        rows, cols = (value.coords[d].to_numpy() if d in value.coords else None for d in value.dims)
        return pd.DataFrame(value.to_numpy(), index=rows, columns=cols)
    if isinstance(value, pd.DataFrame):
        # integer columns with NA arrive as pandas' nullable Int32: plain floats, NA as NaN
        nullable = [c for c in value.columns if isinstance(value[c].dtype, pd.Int32Dtype)]
        return value.astype({c: np.float64 for c in nullable}) if nullable else value
    if isinstance(value, dict):
        return {str(k): _pandas(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_pandas(v) for v in value]
    if isinstance(value, np.ma.MaskedArray):
        return np.ma.filled(value.astype(np.float64), np.nan)
    return value
