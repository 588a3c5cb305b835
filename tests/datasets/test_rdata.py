"""streamreg.datasets.rdata: R's .RData files, read by the rdata package, as pandas.

The files are written by R itself (``tests/reference/rdata_forms.R``: the data frame and
matrix forms of the gene-expression sets, a matrix with dimnames and a character vector
with NA, in R's serialisation versions 2 and 3, uncompressed and with gzip, bzip2 and
xz); the CSVs beside them are what R reads back.
"""
from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from reference_csv import REF, read_ref

from streamreg.datasets.catalogue import REGISTRY
from streamreg.datasets.rdata import read_rdata
from streamreg.datasets.readers import read_gene

FORMS = ["gzip_v2", "none_v2", "bzip2_v3", "xz_v3"]


@pytest.fixture(scope="module")
def expected():
    return {"x": read_ref("rdata_forms_x.csv", text=()), "y": read_ref("rdata_forms_y.csv", text=("label",)),
            "m": read_ref("rdata_forms_m.csv", text=("row", "col")),
            "s": read_ref("rdata_forms_s.csv", text=("value", "missing"))}


@pytest.mark.parametrize("form", FORMS)
def test_rdata_reads_what_r_saved(form, expected):
    objs = read_rdata((REF / f"rdata_forms_{form}.RData").read_bytes())
    assert sorted(objs) == ["alon", "golub", "m", "s"]
    for name in ("alon", "golub"):  # data frame and matrix forms of the gene sets
        x, y = objs[name]["x"], objs[name]["y"]
        assert isinstance(x, pd.DataFrame) and list(x.columns) == ["g1", "AFFX-x_at"]
        np.testing.assert_array_equal(x.to_numpy(dtype=float), expected["x"].to_numpy(dtype=float))  # NA as NaN
        assert isinstance(y, pd.Categorical) and list(y.categories) == ["n", "t"]
        assert list(y) == expected["y"]["label"].tolist()
        np.testing.assert_array_equal(y.codes + 1, expected["y"]["code"])
    m = objs["m"]
    assert list(m.index) == ["a", "b"] and list(m.columns) == ["u", "v", "w"]
    for row, col, value in expected["m"].itertuples(index=False):  # R stores matrices column by column
        assert m.loc[row, col] == value
    s = expected["s"]
    assert objs["s"].tolist() == [None if miss == "TRUE" else v for v, miss in zip(s["value"], s["missing"])]


def test_gene_reader_gives_the_same_set_from_rdata_and_csv():
    """The upstream .RData and the mirror's CSV conversion of a gene set load to the same frame."""
    info = REGISTRY["alon_colon"]
    from_rdata = read_gene(info, {"alon.RData": (REF / "rdata_forms_xz_v3.RData").read_bytes()}).data
    x = read_ref("rdata_forms_x.csv", text=())
    labels = read_ref("rdata_forms_y.csv", text=("label",))["label"]
    csv = pd.concat([labels.rename("class"), x], axis=1).to_csv(index=False).encode()
    from_csv = read_gene(info, {"alon.csv.gz": csv}).data
    pd.testing.assert_frame_equal(from_rdata, from_csv)


def test_unreadable_files_are_refused_with_a_message():
    with pytest.raises(ValueError, match=r"not an \.RData file that can be read"):
        read_rdata(b"PK\x03\x04 a zip")
    whole = gzip.decompress((REF / "rdata_forms_gzip_v2.RData").read_bytes())
    with pytest.raises(ValueError, match=r"not an \.RData file that can be read"):
        read_rdata(whole[: len(whole) // 2])  # truncated
    with pytest.raises(ValueError, match=r"alon\.RData holds no list\(x = <data frame or matrix>, y = <factor>\) "
                                         r"named 'alon'"):
        read_gene(REGISTRY["alon_colon"], {"alon.RData": (REF / "rdata_forms_none_v2.RData").read_bytes()
                                           .replace(b"alon", b"nola")})
