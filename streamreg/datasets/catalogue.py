"""What each data set is, where it comes from and how its files are checked.

One :class:`SetInfo` per data set.  Bundled sets ship as ``data/<name>.csv.gz`` (built by
the scripts in the repository's top-level ``datasets/`` folder); fetched sets name their
files twice: ``files`` in the layout of a mirror (``$STREAMREG_DATA_URL/<name>/<file>``,
the layout of the project's shared data folder) and ``upstream``, the public raw URLs
pinned to a commit, used when no mirror is set.  The two differ only for the
gene-expression sets (upstream: the ``.RData`` of the R package; mirror: a lossless CSV
conversion) and mfeat (upstream: six per-view CSVs; mirror: one combined CSV).  Every
file carries the sha256 recorded at staging time, of the uncompressed content for names
ending in ``.gz``.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any

import pandas as pd


@dataclass(frozen=True)
class FileSpec:
    """A file of a fetched set: its name in the set's folder, checksum, size and public URL."""

    name: str
    sha256: str  # of the uncompressed content when the name ends in .gz
    size: int  # bytes as downloaded
    url: str = ""
    optional: bool = False  # not published in every copy: used when present


@dataclass(frozen=True)
class SetInfo:
    """Catalogue entry of one data set (see :func:`catalogue`)."""

    name: str
    title: str
    n: int
    p: int
    response: str
    coding: str
    family: str
    reader: str
    source: str
    licence: str
    citation: str
    groups: tuple[tuple[str, int], ...] = ()
    levels: tuple[str, str] | None = None  # (failure, success) of a labelled response, R-factor order
    files: tuple[FileSpec, ...] = ()  # empty: bundled
    upstream: tuple[FileSpec, ...] = ()  # empty: the same files as ``files``

    @property
    def bundled(self) -> bool:
        return not self.files

    @property
    def upstream_files(self) -> tuple[FileSpec, ...]:
        return self.upstream or self.files


_NIPS_URL = ("https://raw.githubusercontent.com/Tuyki/TT_RNN/76d9a6c8b9b194ee1ca4f649e5ac1781e27899fb/"
             "Datasets/NIPS2003/{set}/{file}")
_NIPS_SOURCE = ("NIPS 2003 feature selection challenge (train + valid splits; validation labels released "
                "after the challenge); files byte-identical to github.com/Tuyki/TT_RNN@76d9a6c "
                "Datasets/NIPS2003/{set}/, checked against the challenge check-sums")
_NIPS_LICENCE = "CC BY 4.0 (UCI); the host repository's MIT licence covers its code only"
_NIPS_CITATION = ("Guyon, I., Gunn, S., Ben-Hur, A. and Dror, G. (2004). Result analysis of the NIPS 2003 "
                  "feature selection challenge. Advances in Neural Information Processing Systems 17.")
_DM_URL = "https://raw.githubusercontent.com/ramhiser/datamicroarray/a95f6f68ed3debf48ee54f198435fa12aa655b16/data/{file}"
_DM_SOURCE = ("datamicroarray R package (J. A. Ramey), github.com/ramhiser/datamicroarray@a95f6f6 data/{file}; "
              "raw values, no thresholding, log or filtering")
_DM_LICENCE = "MIT (datamicroarray); the expression data belong to the original study: cite it"
_UCI_LICENCE = "CC BY 4.0 (UCI Machine Learning Repository)"
_MFEAT_URL = "https://raw.githubusercontent.com/Ewonye/Data-Minning/2ed6b16039d8cb6cf0a31f4330822659bdaa339d/{file}"


def _nips(name: str, files: list[tuple[str, str, int]], **kw: Any) -> SetInfo:
    specs = tuple(FileSpec(f, sha, size, _NIPS_URL.format(set=name, file=f), optional=f.startswith("gisette_train.data"))
                  for f, sha, size in files)
    return SetInfo(name=name, response="y", family="binomial", reader="nips", source=_NIPS_SOURCE.format(set=name),
                   licence=_NIPS_LICENCE, citation=_NIPS_CITATION, files=specs, **kw)


def _gene(name: str, stem: str, csv: tuple[str, int], rdata: tuple[str, int], **kw: Any) -> SetInfo:
    return SetInfo(name=name, family="binomial", reader="gene", source=_DM_SOURCE.format(file=f"{stem}.RData"),
                   licence=_DM_LICENCE,
                   files=(FileSpec(f"{stem}.csv.gz", csv[0], csv[1]),),
                   upstream=(FileSpec(f"{stem}.RData", rdata[0], rdata[1], _DM_URL.format(file=f"{stem}.RData")),),
                   **kw)


_WISCONSIN = "github.com/WilliamWV/decisionForest@d8b7216 breast-cancer-wisconsin/{file} (the unmodified UCI file)"
_SETS: tuple[SetInfo, ...] = (
    # ---- bundled ------------------------------------------------------------------------
    SetInfo("wdbc", "Wisconsin Diagnostic Breast Cancer", 569, 30, "diagnosis", "M (malignant, 212) vs B (357)",
            "binomial", "bundled", _WISCONSIN.format(file="wdbc.data"), _UCI_LICENCE,
            "Street, W. N., Wolberg, W. H. and Mangasarian, O. L. (1993). Nuclear feature extraction for breast "
            "tumor diagnosis. IS&T/SPIE Electronic Imaging 1905, 861-870.",
            groups=(("mean", 10), ("se", 10), ("worst", 10))),
    SetInfo("wpbc", "Wisconsin Prognostic Breast Cancer", 198, 33, "outcome",
            "R (recurrent, 47) vs N (151); 4 rows lack lymph_nodes", "binomial", "bundled",
            _WISCONSIN.format(file="wpbc.data"), _UCI_LICENCE,
            "Street, W. N., Mangasarian, O. L. and Wolberg, W. H. (1995). An inductive learning approach to "
            "prognostic prediction. Proceedings of the 12th International Conference on Machine Learning, 522-530.",
            groups=(("mean", 10), ("se", 10), ("worst", 10), ("clinical", 3)), levels=("N", "R")),
    SetInfo("ionosphere", "Johns Hopkins ionosphere radar returns", 351, 34, "radar", "b (bad, 126) vs g (good, 225)",
            "binomial", "bundled", "github.com/WilliamWV/decisionForest@d8b7216 ionosphere/ionosphere.data "
            "(the unmodified UCI file)", _UCI_LICENCE,
            "Sigillito, V. G., Wing, S. P., Hutton, L. V. and Baker, K. B. (1989). Classification of radar returns "
            "from the ionosphere using neural networks. Johns Hopkins APL Technical Digest 10, 262-266.",
            levels=("g", "b")),
    SetInfo("spect", "SPECT heart images, binary version", 267, 22, "diagnosis", "1 (abnormal, 212) vs 0 (55)",
            "binomial", "bundled", "github.com/vishwesh-D-kumar/NaiveBayesClassifier@e6aea3b SPECT.train, "
            "SPECT.test (UCI files; an added header line removed)", _UCI_LICENCE,
            "Kurgan, L. A., Cios, K. J., Tadeusiewicz, R., Ogiela, M. and Goodenday, L. S. (2001). Knowledge "
            "discovery approach to automated cardiac SPECT diagnosis. Artificial Intelligence in Medicine 23, 149-169."),
    SetInfo("cleve", "Cleveland heart disease, mixed symbolic version", 303, 13, "diagnosis",
            "sick (138) vs buff (165); 7 rows have a missing value", "binomial", "bundled",
            "UCI heart-disease/cleve.mod via github.com/vipull2010/heart-disease-xai@6a36dce (CRLF converted to LF)",
            _UCI_LICENCE,
            "Detrano, R. et al. (1989). International application of a new probability algorithm for the "
            "diagnosis of coronary artery disease. American Journal of Cardiology 64, 304-310.",
            levels=("buff", "sick")),
    SetInfo("internet_ads", "Internet advertisements (images on web pages)", 3279, 1558, "ad",
            "ad (459) vs nonad (2820); 920 rows lack a geometry value", "binomial", "bundled",
            "the original 1998 UCI zip in github.com/suhailkhan0/Ad-NonAd-Prediction@1c1845a data/ad-dataset.zip",
            _UCI_LICENCE,
            "Kushmerick, N. (1999). Learning to remove Internet advertisements. Proceedings of the 3rd "
            "International Conference on Autonomous Agents, 175-181.",
            groups=(("geometry", 4), ("url", 457), ("origurl", 495), ("ancurl", 472), ("alt", 111), ("caption", 19)),
            levels=("nonad", "ad")),
    # ---- fetched: NIPS 2003 ---------------------------------------------------------------
    _nips("arcene", [
        ("arcene_train.data.gz", "0427dc237d8103810e3861e77ba7b16c3d10c8c526ae83bafdc2a660c5c608f0", 942050),
        ("arcene_train.labels.gz", "434bb813ff7e69d182eeed347f77bd4981917d6233efedd01b5f6d916c282fbe", 78),
        ("arcene_valid.data.gz", "7f8792b3cfb083c3b722e31b37a0c40604506bdece1d2db621e00d862da1c549", 947977),
        ("arcene_valid.labels.gz", "b591228155de082dd39b2e85b12b75a55bd8ca057b7e1c0d7f54683d0a594fc3", 81)],
        title="ARCENE (NIPS 2003): mass spectra, cancer vs normal", n=200, p=10000,
        coding="1 = cancer (+1, 88) vs 0 (-1, 112)"),
    _nips("dexter", [
        ("dexter_train.data.gz", "19f6a64c41bedd198f61b919f8b8bca98ee1173ca60db45f3aa980f1294d1fd0", 104923),
        ("dexter_train.labels.gz", "903477b77d8a81cc56828bb25626cd05a7fc95e3b67b6358faeee7cbdd85dbbc", 134),
        ("dexter_valid.data.gz", "5c105202f7e870130d168f04932ed8ba7be511e73723fd9895984344f600a7f9", 104076),
        ("dexter_valid.labels.gz", "fe7c62dbf436183511b7d745dc356e91ccea33d1855913dd0185944da2a673c5", 134)],
        title="DEXTER (NIPS 2003): Reuters texts, corporate acquisitions (sparse)", n=600, p=20000,
        coding="1 = +1 (300) vs 0 (-1, 300)"),
    _nips("dorothea", [
        ("dorothea_train.data.gz", "81623c6d3cbf7047332049c5400cdceafd57bb97ce0055f3bf6d502b68aed4b0", 1902968),
        ("dorothea_train.labels.gz", "bd6e76671eea59e152cf8dbce1046b8e7ec745561c1dcd02218d8740e23b7c4e", 147),
        ("dorothea_valid.data.gz", "dfa3bf047974f1e3a2d59aca1c2715b2ce9153806e92709f11e0288311370f02", 831416),
        ("dorothea_valid.labels.gz", "8af3b491a0b1ee57d1ca9fd5d800e22bff4b84d94020892d1919897e726b6db1", 97)],
        title="DOROTHEA (NIPS 2003): drug discovery, thrombin binding (sparse binary)", n=1150, p=100000,
        coding="1 = active (+1, 112) vs 0 (-1, 1038)"),
    _nips("gisette", [
        ("gisette_valid.data.gz", "5cea897956dd172a006132738254a27a8f61ecc1ceb6f5b20639c281d2942254", 1659163),
        ("gisette_valid.labels.gz", "a6b857a0448023f033c4dda2ef848714b4be2ae45ce598d088fb3efb406e08c5", 284),
        ("gisette_train.labels.gz", "42bd681fe51b161f033df773df14a0116e492676555ab14616c1b72edc054075", 1262),
        # not in the shared mirror; the UCI original's sha256 (pinned by public downloaders)
        ("gisette_train.data.gz", "6d4c5e998afe67937b9e77a3334e03c85e545ebc65a6eb1333ffc14125cfc389", 0)],
        title="GISETTE (NIPS 2003): handwritten 4 vs 9; validation rows (+6000 training rows when available)",
        n=1000, p=5000, coding="1 = +1 (500) vs 0 (-1, 500)"),
    _nips("madelon", [
        ("madelon_train.data.gz", "0b6e37711efdc7ab74250c51e7d6966bffd9f8f2b0e9971e882c3a7a380c2314", 1242313),
        ("madelon_train.labels.gz", "10bffcc3b017467cb810d326b931951adcbde2b4870faf981da2991993b48689", 484),
        ("madelon_valid.data.gz", "cb9a46475147de1a58d9f15ef4c318e5b85de344e0f9ab92626fa446aa815dc9", 372826),
        ("madelon_valid.labels.gz", "fbac32fa87fac41ab731994a1c824e7b25396069bff6df242c01fe240fcb34dc", 198)],
        title="MADELON (NIPS 2003): artificial XOR-like problem", n=2600, p=500,
        coding="1 = +1 (1300) vs 0 (-1, 1300)"),
    # ---- fetched: gene expression -----------------------------------------------------------
    _gene("golub_leukemia", "golub",
          ("6a5e34342cc2de245b163a59265f58be2c61ffd53bc99658fbb59ba1c90fe592", 961818),
          ("594f5507597fb2352d210c803a88a218fbf6d1f2705372029e5738815216747b", 1191760),
          title="ALL/AML leukaemia (Golub 1999; train + test merged)", n=72, p=7129, response="leukemia",
          coding="AML (25) vs ALL (47)", levels=("ALL", "AML"),
          citation="Golub, T. R. et al. (1999). Molecular classification of cancer: class discovery and class "
                   "prediction by gene expression monitoring. Science 286, 531-537."),
    _gene("alon_colon", "alon",
          ("db9652ccf244145fb331477d379b557052258eb6d3d2cf56aeea3527dc93cfe3", 346905),
          ("76ea2ffa6226e29237bbe3f41a68ec42ca9ec3bbdbf3f19613cd254fd5fcc1c7", 296180),
          title="Colon tumour vs normal tissue (Alon 1999)", n=62, p=2000, response="tissue",
          coding="t (tumour, 40) vs n (normal, 22)", levels=("n", "t"),
          citation="Alon, U. et al. (1999). Broad patterns of gene expression revealed by clustering analysis of "
                   "tumor and normal colon tissues probed by oligonucleotide arrays. PNAS 96, 6745-6750."),
    _gene("singh_prostate", "singh",
          ("ffe553152bd4bac764e88f50025b7f5c5626e728821a27037afeaf4b8314a8f7", 1609317),
          ("5197cdae41c6e25b9a59cfda23fd9434c25b7406ed1942c5ca074e140e5c2cff", 1234368),
          title="Prostate tumour vs normal (Singh 2002; the 102-sample training set)", n=102, p=12600,
          response="tissue", coding="Tumor (52) vs Normal (50)", levels=("Normal", "Tumor"),
          citation="Singh, D. et al. (2002). Gene expression correlates of clinical prostate cancer behavior. "
                   "Cancer Cell 1, 203-209."),
    _gene("gordon_lung", "gordon",
          ("64ea73bf0ef161384c53d592fba1b7ac24b00b1f507b942b7bea239c176606db", 4627883),
          ("09173f9c7b7d30bbbeca08b945755a03ad7601f4560bb185d47e3e441fc096f3", 3857348),
          title="Lung: mesothelioma vs adenocarcinoma (Gordon 2002)", n=181, p=12533, response="tumour",
          coding="mesothelioma (31) vs adenocarcinoma (150)", levels=("adenocarcinoma", "mesothelioma"),
          citation="Gordon, G. J. et al. (2002). Translation of microarray data into clinically relevant cancer "
                   "diagnostic tests using gene expression ratios in lung cancer and mesothelioma. Cancer Research "
                   "62, 4963-4967."),
    _gene("shipp_dlbcl", "shipp",
          ("ffbc556fac7518a9e91ce7ec6ed9572e2e6ec989dae256f6155b60bf746d4283", 973934),
          ("2f7b5fcb6dd874a67f7b463a5fc17d7e6b2ba69bd30277f8ec953b6b0b681e65", 828180),
          title="Lymphoma: follicular vs diffuse large B-cell (Shipp 2002)", n=77, p=7129, response="lymphoma",
          coding="FL (19) vs DLBCL (58)", levels=("DLBCL", "FL"),
          citation="Shipp, M. A. et al. (2002). Diffuse large B-cell lymphoma outcome prediction by gene-expression "
                   "profiling and supervised machine learning. Nature Medicine 8, 68-74."),
    # ---- fetched: multiple features ---------------------------------------------------------
    SetInfo("mfeat", "Multiple Features: handwritten numerals in six views", 2000, 649, "zero",
            "1 = digit 0 (200) vs the other digits (1800), as in Perkins & Theiler; meta['digit'] has 0-9",
            "binomial", "mfeat",
            "UCI mfeat (R. P. W. Duin) via github.com/Ewonye/Data-Minning@2ed6b16 (six CSV dumps of the UCI "
            "files, checked against three other copies)", _UCI_LICENCE,
            "van Breukelen, M., Duin, R. P. W., Tax, D. M. J. and den Hartog, J. E. (1998). Handwritten digit "
            "recognition by combined classifiers. Kybernetika 34, 381-386.",
            groups=(("fou", 76), ("fac", 216), ("kar", 64), ("pix", 240), ("zer", 47), ("mor", 6)),
            files=(FileSpec("mfeat_649.csv.gz", "465ccaef27d02e45e7a9ac48c120cbb9d762575708d639252a4a11ac2dc62f97",
                            2844341),),
            upstream=tuple(FileSpec(f, sha, size, _MFEAT_URL.format(file=f)) for f, sha, size in [
                ("mfeat-fou.csv", "6ac1f10e08cf781c31407e663d42ecc1ba4dd88b0befd65e2c2bdc0002162820", 1670542),
                ("mfeat-fac.csv", "b8075eacd4c6b981023a501d75a84fbef90c68d3c23a37b5769469780c899564", 1479074),
                ("mfeat-kar.csv", "6a34ecad5edbda635adc9b0f5abd4477175b5aedfa9b1d0e99136bc12a4e9b58", 1473298),
                ("pix.csv", "d7a260c8ca9a22f9831a91db5e544cfa6e0294ff76827b56daa9b20af2bb153d", 976469),
                ("mfeat-zer.csv", "879f826af0f356b5fa8b73238f67d3f04e198c3b311b68c0256cc11a2c6db805", 1132834),
                ("mfeat-mor.csv", "0ae682e51e4950d5d2833e384954e5bacd7caa66c0b38b1947a2cf39ca57a276", 100857)])),
)

REGISTRY: dict[str, SetInfo] = {s.name: s for s in _SETS}


def info(name: str) -> SetInfo:
    """The catalogue entry of ``name``; a clear error listing the names for an unknown one."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown data set {name!r}; available: {', '.join(sorted(REGISTRY))}") from None


def catalogue() -> pd.DataFrame:
    """Every data set: what it is, its size, response coding, groups, source and licence.

    Returns
    -------
    pandas.DataFrame
        One row per set, indexed by name, with columns ``title``, ``n``, ``p``,
        ``response`` (the column), ``coding`` (which level is modelled as 1, with counts),
        ``family``, ``groups`` (feature groups and their sizes, where the source defines
        them), ``storage`` (``"bundled"`` in the package or ``"fetched"`` on first use),
        ``size_kb`` (of the bundled file, or of the upstream download), ``source``,
        ``licence`` and ``citation``.

    Examples
    --------
    >>> from streamreg.datasets import catalogue
    >>> cat = catalogue()
    >>> cat.loc["internet_ads", ["title", "response", "storage"]].tolist()
    ['Internet advertisements (images on web pages)', 'ad', 'bundled']
    >>> cat.loc["arcene", "storage"], cat.loc["mfeat", "groups"]
    ('fetched', 'fou 76, fac 216, kar 64, pix 240, zer 47, mor 6')
    """
    data = resources.files("streamreg.datasets") / "data"
    rows = []
    for s in _SETS:
        if s.bundled:
            size = sum(len((data / f).read_bytes()) for f in bundled_files(s.name))
        else:
            size = sum(f.size for f in s.upstream_files)
        rows.append({"name": s.name, "title": s.title, "n": s.n, "p": s.p, "response": s.response,
                     "coding": s.coding, "family": s.family, "groups": ", ".join(f"{g} {k}" for g, k in s.groups),
                     "storage": "bundled" if s.bundled else "fetched", "size_kb": round(size / 1024),
                     "source": s.source, "licence": s.licence, "citation": s.citation})
    return pd.DataFrame(rows).set_index("name")


def bundled_files(name: str) -> list[str]:
    """The package files of a bundled set (its table, and the feature table where there is one)."""
    return [f"{name}.csv.gz"] + (["internet_ads_features.csv.gz"] if name == "internet_ads" else [])
