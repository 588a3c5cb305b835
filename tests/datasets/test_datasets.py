"""streamreg.datasets: catalogue, bundled sets, fetching (over loopback HTTP), checksums, caching.

The fetched sets are served from the project's shared data folder (``../shared/data``
beside the repository) by an ``http.server`` on 127.0.0.1; those tests are skipped when
that folder is absent.  No test reaches the internet: every test runs with an
unreachable ``STREAMREG_DATA_URL`` unless it sets its own.
"""
from __future__ import annotations

import configparser
import fnmatch
import functools
import gzip
import hashlib
import http.server
import importlib.util
import re
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import streamreg as sr
from streamreg.cli import main as cli_main
from streamreg.datasets import (
    ChecksumError,
    DownloadError,
    catalogue,
    get_data_home,
    list_datasets,
    load,
)
from streamreg.datasets.catalogue import REGISTRY, FileSpec, bundled_files
from streamreg.datasets.fetch import mirror_url

ROOT = Path(__file__).resolve().parents[2]
SHARED = (ROOT / ".." / "shared" / "data").resolve()
#: why the mirror tests skip, and how to get their data
SHARED_MISSING = (
    "needs the fetched data sets in ../shared/data beside the repository (one folder per set, <name>/<file>, "
    "as a STREAMREG_DATA_URL mirror; about 23 MB): copy the project's data folder there, or download the sets "
    "into it with STREAMREG_DATA=../shared/data python -c \"import streamreg as sr; "
    "[sr.datasets.download(n) for n in sr.datasets.list_datasets(storage='fetched')]\""
)
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=SHARED_MISSING)
FETCHED = list_datasets(storage="fetched")
BUNDLED = list_datasets(storage="bundled")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


class Server:
    """A loopback HTTP server over a folder, in a thread."""

    def __init__(self, root: Path):
        handler = functools.partial(_Quiet, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(autouse=True)
def _offline(monkeypatch, tmp_path):
    """Never the internet, never the user's cache: an unreachable mirror and a fresh cache."""
    monkeypatch.setenv("STREAMREG_DATA_URL", f"http://127.0.0.1:{_free_port()}/")
    monkeypatch.setenv("STREAMREG_DATA", str(tmp_path / "default-cache"))


@pytest.fixture(scope="module")
def mirror():
    if not SHARED.is_dir():
        pytest.skip(SHARED_MISSING)
    server = Server(SHARED)
    yield server.url
    server.close()


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def fetched(mirror, shared_cache):
    """Each fetched set loaded once from the loopback mirror (module cache of Datasets)."""
    loaded: dict[str, sr.datasets.Dataset] = {}

    def get(name):
        if name not in loaded:
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("STREAMREG_DATA_URL", mirror)
                loaded[name] = load(name, data_home=shared_cache)
        return loaded[name]
    return get


# ---- catalogue ---------------------------------------------------------------------------
def test_list_datasets_is_a_sorted_list_of_names_matching_the_catalogue():
    names = list_datasets()
    assert names == sorted(names) and len(names) == 17 and "wdbc" in names
    cat = catalogue()
    assert sorted(cat.index) == names
    assert list(cat.columns) == ["title", "n", "p", "response", "coding", "family", "groups", "storage", "size_kb",
                                 "source", "licence", "citation"]
    assert set(BUNDLED) == {"wdbc", "wpbc", "ionosphere", "spect", "cleve", "internet_ads"}
    assert set(BUNDLED) | set(FETCHED) == set(names) and not set(BUNDLED) & set(FETCHED)
    assert (cat.loc[BUNDLED, "storage"] == "bundled").all() and (cat.loc[FETCHED, "storage"] == "fetched").all()
    assert cat["licence"].str.len().min() > 5 and cat["citation"].str.contains(r"\(\d{4}\)").all()
    with pytest.raises(ValueError, match="storage must be 'bundled', 'fetched' or None, got 'cached'"):
        list_datasets(storage="cached")


def test_unknown_name_lists_the_available_ones():
    with pytest.raises(ValueError, match=r"unknown data set 'nope'; available: alon_colon, arcene, .*wpbc"):
        load("nope")
    with pytest.raises(ValueError, match="unknown data set 'wdbc.csv'"):
        sr.datasets.download("wdbc.csv")
    with pytest.raises(ValueError, match="'wdbc' is bundled with the package: nothing to download"):
        sr.datasets.download("wdbc")


def test_bundled_data_stay_small_and_ship_in_the_wheel():
    data = ROOT / "streamreg" / "datasets" / "data"
    bundled = [p for p in data.iterdir() if p.suffix == ".gz"]
    assert sum(p.stat().st_size for p in bundled) < 1_000_000
    assert {p.name for p in bundled} == {f for n in BUNDLED for f in bundled_files(n)}
    assert {p.stem for p in data.glob("*.rst")} == set(list_datasets())  # a description for every set
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    patterns = [p.strip() for p in cfg["options.package_data"]["streamreg.datasets"].split(",")]
    for path in data.iterdir():
        assert any(fnmatch.fnmatch(f"data/{path.name}", pat) for pat in patterns), path.name


@needs_shared
def test_catalogue_checksums_are_those_of_the_provenance_records():
    missing = [e.name for e in REGISTRY.values() if not e.bundled and not (SHARED / e.name / "PROVENANCE.txt").is_file()]
    if missing:
        pytest.skip(f"the provenance records ../shared/data/<name>/PROVENANCE.txt of {', '.join(missing)} are absent: "
                    "they come with the project's copy of the data folder, not with downloaded sets")
    for entry in REGISTRY.values():
        if entry.bundled:
            continue
        text = (SHARED / entry.name / "PROVENANCE.txt").read_text()
        recorded = dict(re.findall(r"^\s*(\S+): \d+ bytes on disk;.*?sha256(?:\(uncompressed\))?=([0-9a-f]{64})",
                                   text, flags=re.MULTILINE))
        for spec in entry.files + entry.upstream:
            if spec.name in recorded:
                assert recorded[spec.name] == spec.sha256, (entry.name, spec.name)
            elif spec.optional:
                assert spec.sha256 in text  # gisette_train.data: the UCI value quoted there
            else:  # mfeat's six upstream CSVs: pinned here from their git blobs
                assert entry.name == "mfeat" and spec.url.startswith("https://raw.githubusercontent.com/Ewonye/")
        for spec in entry.upstream_files:
            assert re.fullmatch(r"https://raw\.githubusercontent\.com/[\w.-]+/[\w.-]+/[0-9a-f]{40}/\S+", spec.url)


# ---- bundled sets ------------------------------------------------------------------------
PAPER_ROWS = {"cleve": 296, "wpbc": 194, "internet_ads": 2359, "ionosphere": 351, "spect": 267, "wdbc": 569}


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_set_shape_coding_and_groups(name):
    ds = load(name)
    entry = REGISTRY[name]
    assert ds.data.shape == (entry.n, entry.p + 1) and ds.response == ds.data.columns[0] == entry.response
    assert ds.family == "binomial" and ds.info is entry
    assert len(ds.data.dropna()) == PAPER_ROWS[name]  # Zhou et al. (2006), Table 7: complete rows
    counts = [int(c) for c in re.findall(r"(\d+)\)", entry.coding)]
    y = ds.y
    assert set(y) == {0.0, 1.0} and int(y.sum()) == counts[0] and len(y) - int(y.sum()) == counts[1]
    if entry.levels:
        assert list(ds.data[ds.response].cat.categories) == list(entry.levels)
    assert {g: len(c) for g, c in ds.groups.items()} == dict(entry.groups)
    for cols in ds.groups.values():
        assert set(cols) <= set(ds.data.columns)
    assert ds.description.splitlines()[0] and entry.citation.split(",")[0] in ds.description


def test_bundled_sets_equal_their_sources():
    raw = ROOT / "datasets"
    ion = pd.read_csv(raw / "ionosphere" / "ionosphere.data.gz", header=None)
    ds = load("ionosphere")
    np.testing.assert_array_equal(ion.iloc[:, :34].to_numpy(), ds.X.to_numpy())
    assert (ion[34].to_numpy() == ds.data["radar"].astype(str).to_numpy()).all()
    assert ds.y.sum() == 126  # 'b' is 1, as in the bench of Wang and Luan (2019)

    ads = load("internet_ads")
    orig = pd.read_csv(raw / "internet_ads" / "ad.data.gz", header=None, na_values="?", skipinitialspace=True,
                       low_memory=False)
    np.testing.assert_array_equal(orig.iloc[:, :-1].to_numpy(float), ads.X.to_numpy(float))
    assert list(ads.features["term"][:5]) == ["height", "width", "aratio", "local", "url*images+buttons"]
    assert ads.features.loc["caption_19", "group"] == "caption"
    assert ads.groups["geometry"] == ["height", "width", "aratio", "local"]

    cleve = load("cleve")
    assert cleve.data["cp"].dropna().unique().tolist() == ["angina", "asympt", "notang", "abnang"]
    assert cleve.meta["severity"].value_counts().to_dict()["H"] == 165  # every buff row
    with pytest.raises(ValueError, match=r"'cleve' has non-numeric features \(sex, cp, fbs, restecg, exang, "
                                         r"\.\.\.\): code them first, e\.g\. pandas\.get_dummies"):
        cleve.arrays()

    spect = load("spect")
    assert spect.meta["split"].value_counts().to_dict() == {"test": 187, "train": 80}
    wpbc = load("wpbc")
    assert wpbc.data.index.name == "id" and wpbc.data["lymph_nodes"].isna().sum() == 4


def test_build_script_reproduces_the_bundled_files(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("build_uci", ROOT / "datasets" / "build_uci.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    monkeypatch.setattr(build, "OUT", tmp_path)
    for name in build.BUILDERS:
        for out in build.build(name):
            assert out.read_bytes() == (ROOT / "streamreg" / "datasets" / "data" / out.name).read_bytes(), out.name


def test_groups_become_streams_and_the_cli_takes_any_bundled_set(capsys):
    ds = load("wpbc")
    d = ds.data.dropna()
    fit = sr.select(ds.y[d.index], {g: d[cols] for g, cols in ds.groups.items()}, family="binomial",
                    w0=0.05, alpha_delta=0.05)
    assert set(fit.selected_terms) <= set(ds.X.columns)
    assert cli_main(["diagnosis ~ stream(*)", "--data", "spect", "--family", "binomial"]) == 0
    assert "Streamwise selection" in capsys.readouterr().out


# ---- fetched sets over loopback HTTP -----------------------------------------------------
#: the NIPS 2003 challenge check-sums (sum of the values; dorothea: non-zeros), train and valid
CHALLENGE = {"arcene": (70726744, 71410108), "dexter": (2816528, 2820952), "dorothea": (727760, 317752),
             "gisette": (None, 535016668), "madelon": (488083511, 146395833)}


@needs_shared
@pytest.mark.parametrize("name", FETCHED)
def test_fetched_set_loads_from_the_mirror_coded_as_documented(name, fetched):
    ds = fetched(name)
    entry = REGISTRY[name]
    assert ds.data.shape == (entry.n, entry.p + 1) and ds.data.columns[0] == ds.response == entry.response
    counts = [int(c) for c in re.findall(r"(\d+)\)", entry.coding)]
    assert int(ds.y.sum()) == counts[0] and len(ds.y) - int(ds.y.sum()) == counts[1]
    assert {g: len(c) for g, c in ds.groups.items()} == dict(entry.groups)
    if entry.levels:
        assert list(ds.data[ds.response].cat.categories) == list(entry.levels)
    if name in CHALLENGE:
        X, _ = ds.arrays()
        split = ds.meta["split"].to_numpy()
        for part, expected in zip(("train", "valid"), CHALLENGE[name]):
            if expected is not None:
                block = X[split == part]
                got = block.nnz if name == "dorothea" else block.sum()
                assert got == expected, (name, part)
        assert sp.issparse(X) == (name in ("dexter", "dorothea"))
    if name == "gisette":  # the mirror lacks the training data: valid rows and a note
        assert "gisette_train.data.gz was not available" in ds.description
    if name == "mfeat":
        assert ds.meta["digit"].value_counts().tolist() == [200] * 10
        assert (ds.y == (ds.meta["digit"] == 0)).all()


@needs_shared
def test_a_fetched_set_is_read_from_the_cache_afterwards(fetched, shared_cache, monkeypatch):
    first = fetched("madelon")  # the autouse mirror is unreachable now: only the cache can serve it
    again = load("madelon", data_home=shared_cache)
    pd.testing.assert_frame_equal(first.data, again.data)
    assert sorted(p.name for p in (shared_cache / "madelon").iterdir()) == sorted(
        f.name for f in REGISTRY["madelon"].files)  # no partial files left behind
    monkeypatch.setenv("STREAMREG_DATA", str(shared_cache))
    assert load("madelon").data.shape == (2600, 501)  # the environment variable names the cache too


@needs_shared
def test_download_retries_the_optional_gisette_training_data(fetched, shared_cache, mirror, monkeypatch, caplog):
    fetched("gisette")
    monkeypatch.setenv("STREAMREG_DATA_URL", mirror)
    with caplog.at_level("WARNING", logger="streamreg.datasets"):
        folder = sr.datasets.download("gisette", data_home=shared_cache)
    assert folder == shared_cache / "gisette" and not (folder / "gisette_train.data.gz").exists()
    assert "optional file gisette_train.data.gz of 'gisette' not used: HTTP 404" in caplog.text


@needs_shared
def test_a_corrupted_cache_file_is_reported(fetched, shared_cache, tmp_path):
    fetched("alon_colon")
    cache = tmp_path / "copy"
    shutil.copytree(shared_cache / "alon_colon", cache / "alon_colon")
    target = cache / "alon_colon" / "alon.csv.gz"
    target.write_bytes(gzip.compress(gzip.decompress(target.read_bytes()).replace(b"1", b"2", 1)))
    with pytest.raises(ChecksumError, match=r"checksum mismatch: the cached file .*alon\.csv\.gz has sha256 "
                                            r"[0-9a-f]{64}, expected db9652cc.*delete it and load the data set again"):
        load("alon_colon", data_home=cache)


@needs_shared
def test_a_corrupted_download_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "mirror" / "alon_colon"
    bad.mkdir(parents=True)
    good = gzip.decompress((SHARED / "alon_colon" / "alon.csv.gz").read_bytes())
    (bad / "alon.csv.gz").write_bytes(gzip.compress(good[:-10]))  # truncated, still valid gzip
    server = Server(tmp_path / "mirror")
    try:
        monkeypatch.setenv("STREAMREG_DATA_URL", server.url)
        cache = tmp_path / "cache"
        with pytest.raises(ChecksumError, match=r"checksum mismatch: alon_colon/alon\.csv\.gz downloaded from "
                                                r"http://127\.0\.0\.1:\d+/alon_colon/alon\.csv\.gz has sha256 .*"
                                                r"expected db9652cc.*the download was discarded"):
            load("alon_colon", data_home=cache)
        assert list((cache / "alon_colon").iterdir()) == []  # neither the file nor a partial one kept
        (bad / "alon.csv.gz").write_bytes(b"<html>not found</html>")
        with pytest.raises(ChecksumError, match="is not a valid gzip file"):
            load("alon_colon", data_home=cache)
    finally:
        server.close()


def test_offline_without_cache_says_where_to_put_the_files(tmp_path):
    cache = tmp_path / "empty"
    with pytest.raises(DownloadError) as err:
        load("arcene", data_home=cache)
    msg = str(err.value)
    assert re.search(r"cannot download arcene_train\.data\.gz of data set 'arcene' from http://127\.0\.0\.1:\d+/"
                     r"arcene/arcene_train\.data\.gz \(.*\)\. Without network access, put the files "
                     r"arcene_train\.data\.gz, arcene_train\.labels\.gz, arcene_valid\.data\.gz, "
                     r"arcene_valid\.labels\.gz into ", msg), msg
    assert str(cache / "arcene") in msg and "STREAMREG_DATA_URL" in msg and "STREAMREG_DATA or data_home=" in msg
    with pytest.raises(DownloadError, match=r"golub\.csv\.gz into .* \(or the upstream form: golub\.RData from "
                                            r"https://raw\.githubusercontent\.com/ramhiser/datamicroarray/"):
        load("golub_leukemia", data_home=cache)


@needs_shared
def test_a_local_folder_works_as_a_mirror(tmp_path, monkeypatch):
    monkeypatch.setenv("STREAMREG_DATA_URL", str(SHARED))
    assert mirror_url() == SHARED.as_uri() + "/"
    ds = load("alon_colon", data_home=tmp_path)
    assert ds.data.shape == (62, 2001) and ds.data["tissue"].value_counts().to_dict() == {"t": 40, "n": 22}


def test_data_home_resolution(monkeypatch, tmp_path):
    assert get_data_home(tmp_path / "x") == tmp_path / "x"
    monkeypatch.setenv("STREAMREG_DATA", str(tmp_path / "env"))
    assert get_data_home() == tmp_path / "env"
    monkeypatch.delenv("STREAMREG_DATA")
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert get_data_home() == tmp_path / "xdg" / "streamreg"
        monkeypatch.delenv("XDG_CACHE_HOME")
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert get_data_home() == tmp_path / "home" / ".cache" / "streamreg"
    monkeypatch.delenv("STREAMREG_DATA_URL")
    assert mirror_url() is None


# ---- the upstream forms (RData, mfeat's six CSVs), served as if from the public source ------
R_SAVED = ROOT / "tests" / "reference" / "rdata_forms_gzip_v2.RData"  # written by R (tests/reference/rdata_forms.R)


def test_upstream_forms_are_read_when_no_mirror_is_set(tmp_path, monkeypatch):
    """Gene sets come upstream as .RData and mfeat as six CSVs: both forms load."""
    up = tmp_path / "upstream"
    up.mkdir()
    shutil.copyfile(R_SAVED, up / "alon.RData")  # holds alon = list(x = <data frame>, y = <factor>)
    views = {"mfeat-fou.csv": 2, "mfeat-fac.csv": 1, "mfeat-kar.csv": 1, "pix.csv": 1, "mfeat-zer.csv": 1,
             "mfeat-mor.csv": 3}
    rng = np.random.default_rng(0)
    for file, k in views.items():
        v = pd.DataFrame(rng.normal(size=(2000, k)).round(6), columns=[f"V{j}" for j in range(1, k + 1)])
        v.index = v.index + 1
        (up / file).write_text(v.to_csv())
    server = Server(up)
    try:
        def spec(file):
            data = (up / file).read_bytes()
            return FileSpec(file, hashlib.sha256(data).hexdigest(), len(data), server.url + file)
        monkeypatch.setitem(REGISTRY, "alon_colon", replace(REGISTRY["alon_colon"], upstream=(spec("alon.RData"),)))
        monkeypatch.setitem(REGISTRY, "mfeat", replace(REGISTRY["mfeat"], upstream=tuple(spec(f) for f in views)))
        monkeypatch.delenv("STREAMREG_DATA_URL")
        alon = load("alon_colon", data_home=tmp_path / "cache")
        assert list(alon.data.columns) == ["tissue", "g1", "AFFX-x_at"]
        assert alon.y.tolist() == [1.0, 0.0, 1.0, 0.0]
        assert (tmp_path / "cache" / "alon_colon" / "alon.RData").exists()
        mfeat = load("mfeat", data_home=tmp_path / "cache")
        assert list(mfeat.data.columns[:4]) == ["zero", "fou_1", "fou_2", "fac_1"]
        assert {g: len(c) for g, c in mfeat.groups.items()} == {"fou": 2, "fac": 1, "kar": 1, "pix": 1, "zer": 1,
                                                               "mor": 3}
        assert mfeat.y.sum() == 200 and mfeat.meta["digit"].iloc[-1] == 9
    finally:
        server.close()


def test_an_upstream_file_with_another_checksum_is_discarded(tmp_path, monkeypatch):
    """pooch checks the published sha256 of a file it downloads as is (.RData here) and keeps nothing else."""
    up = tmp_path / "upstream"
    up.mkdir()
    shutil.copyfile(R_SAVED, up / "alon.RData")
    served = hashlib.sha256(R_SAVED.read_bytes()).hexdigest()
    published = hashlib.sha256(b"another file").hexdigest()
    server = Server(up)
    try:
        spec = FileSpec("alon.RData", published, R_SAVED.stat().st_size, server.url + "alon.RData")
        monkeypatch.setitem(REGISTRY, "alon_colon", replace(REGISTRY["alon_colon"], upstream=(spec,)))
        monkeypatch.delenv("STREAMREG_DATA_URL")
        with pytest.raises(ChecksumError, match=rf"checksum mismatch: alon_colon/alon\.RData downloaded from "
                                                rf"{re.escape(server.url)}alon\.RData has sha256 {served}, "
                                                rf"expected {published}; the download was discarded"):
            load("alon_colon", data_home=tmp_path / "cache")
        assert list((tmp_path / "cache" / "alon_colon").iterdir()) == []  # neither the file nor a temporary one
    finally:
        server.close()


# ---- the bench scripts ---------------------------------------------------------------------
def test_bench_scripts_use_streamreg_datasets_not_absolute_paths():
    scripts = ["bench_paper003.py", "bench_generated.py", "bench_screening.py"]
    for script in scripts:
        text = (ROOT / "bench" / script).read_text()
        assert "/work/" not in text and '"shared"' not in text and "shared/data" not in text, script
        assert "datasets.load" in text or "load_dataset" in text, script
    code = ("import sys; sys.path.insert(0, 'bench'); import bench_paper003, bench_generated, bench_screening; "
            "x, y, note = bench_paper003.load('cleve'); print(x.shape, int(y.sum()), note)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("(296, 18) 136 y=1: sick")
