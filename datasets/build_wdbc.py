"""Build streamreg/datasets/data/wdbc.csv.gz from the UCI original in datasets/wdbc/.

Run from the repository root: ``python datasets/build_wdbc.py``.  The output is
deterministic (gzip without name or time stamp), so rebuilding changes nothing.
"""
import gzip
import hashlib
import io
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "datasets" / "wdbc" / "wdbc.data.gz"
OUT = ROOT / "streamreg" / "datasets" / "data" / "wdbc.csv.gz"
SHA256 = "d606af411f3e5be8a317a5a8b652b425aaf0ff38ca683d5327ffff94c3695f4a"  # of the uncompressed UCI file

MEASURES = ["radius", "texture", "perimeter", "area", "smoothness", "compactness", "concavity",
            "concave_points", "symmetry", "fractal_dimension"]
COLUMNS = ["id", "diagnosis"] + [f"{m}_{s}" for s in ("mean", "se", "worst") for m in MEASURES]


def main() -> None:
    raw = gzip.decompress(RAW.read_bytes())
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SHA256:
        raise SystemExit(f"checksum mismatch: {digest}")
    df = pd.read_csv(io.BytesIO(raw), header=None, names=COLUMNS)
    assert df.shape == (569, 32) and set(df["diagnosis"]) == {"B", "M"}
    text = df.to_csv(index=False, lineterminator="\n").encode()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=9) as gz:
        gz.write(text)
    print(f"wrote {OUT.relative_to(ROOT)}: {df.shape[0]} rows x {df.shape[1]} columns")


if __name__ == "__main__":
    main()
