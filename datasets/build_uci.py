"""Build the bundled UCI tables in streamreg/datasets/data/ from the originals kept here.

Run from the repository root: ``python datasets/build_uci.py [name ...]`` (default: all of
ionosphere, wpbc, spect, cleve, internet_ads).  Each source file is checked against the
sha256 in its folder's PROVENANCE.txt first.  The output is deterministic (gzip without
name or time stamp), so rebuilding changes nothing; a test checks that.

Codings (the papers' -- see each set's .rst in streamreg/datasets/data/):

* missing values ``?`` are left empty (NaN), so a formula drops those rows as the papers
  did (cleve 296 rows, wpbc 194, internet_ads 2359);
* class labels are kept as in the source (``ad.``/``nonad.`` lose the C4.5 full stop);
  which level is modelled as 1 is fixed by the loader, not by the file.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import re
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "datasets"
OUT = ROOT / "streamreg" / "datasets" / "data"

SHA256 = {  # of the uncompressed content (PROVENANCE.txt of each folder)
    "ionosphere/ionosphere.data.gz": "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd",
    "wpbc/wpbc.data.gz": "f2bd5ccdb6086fa832370dc043319907430cf6bfcfd3b96a3961a357be345c8e",
    "spect/SPECT.train": "9b56d9cc1ac620b6d3c40aefca137710c4e6f8a2034ebe3b87905ec1fbb7dab4",
    "spect/SPECT.test": "0b963206a741022d73a0491aa954c62b02b45cb427c3788f4e25fc1e94ac3a79",
    "cleve/cleve.mod": "a1d2a0369d138b45a761522e897f34dc49d779a1b8f7c323dd9732d632ecc83d",
    "internet_ads/ad.data.gz": "4841bab145e0b2df2bc17893ecd9d62f8fbeac2c389b41ca59d77da682c0c4eb",
    "internet_ads/ad.names": "74ef40720a61888c2fe9ab36b4a638aad4cefe841d114b6fc5b98d4ac0b25077",
}
MEASURES = ["radius", "texture", "perimeter", "area", "smoothness", "compactness", "concavity",
            "concave_points", "symmetry", "fractal_dimension"]
WISCONSIN = [f"{m}_{s}" for s in ("mean", "se", "worst") for m in MEASURES]


def raw(path: str) -> bytes:
    data = (RAW / path).read_bytes()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256[path]:
        raise SystemExit(f"checksum mismatch for datasets/{path}: {digest}")
    return data


def write(df: pd.DataFrame, name: str, *, index: bool = False) -> Path:
    text = df.to_csv(index=index, lineterminator="\n").encode()
    out = OUT / name
    with open(out, "wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=9) as gz:
        gz.write(text)
    return out


def ionosphere() -> list[pd.DataFrame]:
    df = pd.read_csv(io.BytesIO(raw("ionosphere/ionosphere.data.gz")), header=None)
    df.columns = [f"x{j}" for j in range(1, 35)] + ["radar"]
    assert df.shape == (351, 35) and df["radar"].value_counts().to_dict() == {"g": 225, "b": 126}
    return [df[["radar"] + [f"x{j}" for j in range(1, 35)]]]


def wpbc() -> list[pd.DataFrame]:
    names = ["id", "outcome", "time"] + WISCONSIN + ["tumor_size", "lymph_nodes"]
    df = pd.read_csv(io.BytesIO(raw("wpbc/wpbc.data.gz")), header=None, names=names, na_values="?")
    assert df.shape == (198, 35) and df["outcome"].value_counts().to_dict() == {"N": 151, "R": 47}
    assert df.isna().sum().sum() == 4 and df["lymph_nodes"].isna().sum() == 4
    return [df]


def spect() -> list[pd.DataFrame]:
    parts = []
    for split in ("train", "test"):
        part = pd.read_csv(io.BytesIO(raw(f"spect/SPECT.{split}")), header=None)
        part.columns = ["diagnosis"] + [f"F{j}" for j in range(1, 23)]
        part.insert(1, "split", split)
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)
    assert df.shape == (267, 24) and df["diagnosis"].value_counts().to_dict() == {1: 212, 0: 55}
    return [df]


CLEVE = ["age", "sex", "cp", "trestbps", "chol", "fbs", "restecg", "thalach", "exang", "oldpeak", "slope", "ca",
         "thal", "diagnosis", "severity"]


def cleve() -> list[pd.DataFrame]:
    lines = [ln for ln in raw("cleve/cleve.mod").decode().splitlines() if ln.strip() and not ln.startswith("%")]
    rows = [ln.split() for ln in lines]
    assert all(len(r) == 15 for r in rows)
    df = pd.DataFrame(rows, columns=CLEVE).replace("?", float("nan"))
    for col in ("age", "trestbps", "chol", "thalach", "oldpeak", "ca"):
        df[col] = df[col].astype(float)
    assert df.shape == (303, 15) and df["diagnosis"].value_counts().to_dict() == {"buff": 165, "sick": 138}
    assert df.isna().any(axis=1).sum() == 7
    return [df[["diagnosis"] + CLEVE[:13] + ["severity"]]]


def internet_ads() -> list[pd.DataFrame]:
    names_text = raw("internet_ads/ad.names").decode("latin-1")
    # ad.names lists the columns in order; '| N features from X terms' opens each term group
    terms, groups, group = [], [], "geometry"
    for line in names_text.splitlines():
        head = re.match(r"\|\s*(\d+) features from (\w+) terms", line)
        if head:
            group = head.group(2)
            continue
        attr = re.match(r"([^|:][^:]*):\s*(continuous|0,1)\.", line)
        if attr:
            terms.append(attr.group(1))
            groups.append(group)
    assert len(terms) == 1558, len(terms)
    counts: dict[str, int] = {}
    columns = []
    for term, g in zip(terms, groups):
        counts[g] = counts.get(g, 0) + 1
        columns.append(term if g == "geometry" else f"{g}_{counts[g]}")
    assert counts == {"geometry": 4, "url": 457, "origurl": 495, "ancurl": 472, "alt": 111, "caption": 19}, counts
    shared = pd.read_csv(RAW / "internet_ads" / "feature_groups.csv")
    assert shared["group"].tolist() == groups and shared["name"].tolist() == terms  # the staged groups agree

    df = pd.read_csv(io.BytesIO(raw("internet_ads/ad.data.gz")), header=None, na_values="?",
                     skipinitialspace=True, low_memory=False)
    df.columns = columns + ["ad"]
    df["ad"] = df["ad"].str.strip().str.rstrip(".")
    assert df.shape == (3279, 1559) and df["ad"].value_counts().to_dict() == {"nonad": 2820, "ad": 459}
    assert df.isna().any(axis=1).sum() == 920
    assert set(pd.unique(df[columns[4:]].to_numpy().ravel())) == {0, 1}  # term indicators: int, no gaps
    features = pd.DataFrame({"column": columns, "group": groups, "term": terms})
    return [df[["ad"] + columns], features]


BUILDERS = {"ionosphere": ionosphere, "wpbc": wpbc, "spect": spect, "cleve": cleve, "internet_ads": internet_ads}


def build(name: str) -> list[Path]:
    tables = BUILDERS[name]()
    outs = [write(tables[0], f"{name}.csv.gz")]
    if len(tables) > 1:
        outs.append(write(tables[1], f"{name}_features.csv.gz"))
    return outs


def main(argv: list[str]) -> None:
    for name in argv or list(BUILDERS):
        for out in build(name):
            print(f"wrote {out.relative_to(ROOT)} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
