"""Download the larger data sets on first use, check them against sha256, and cache them.

The cache holds one folder per set with the files under their published names, the same
layout as a mirror: ``<data_home>/<name>/<file>``.  Every read checks the checksum again
(the files are decompressed anyway), so a damaged cache is reported rather than parsed.
Only the standard library downloads (``urllib``); ``file://`` URLs and plain folder paths
work as mirrors too.
"""
from __future__ import annotations

import gzip
import hashlib
import http.client
import logging
import os
import shutil
import sys
import urllib.error
import urllib.request
import zlib
from pathlib import Path

from .catalogue import FileSpec, SetInfo, info

ENV_HOME = "STREAMREG_DATA"
ENV_URL = "STREAMREG_DATA_URL"
TIMEOUT = 60.0  # seconds without progress before a download is given up

log = logging.getLogger("streamreg.datasets")


class DatasetError(OSError):
    """A data set cannot be made available (base class of the errors below).

    Examples
    --------
    >>> from streamreg.datasets import ChecksumError, DatasetError, DownloadError
    >>> [issubclass(error, DatasetError) for error in (ChecksumError, DownloadError)]
    [True, True]
    >>> issubclass(DatasetError, OSError)  # ``except OSError`` catches them too
    True
    """


class ChecksumError(DatasetError):
    """A downloaded or cached file does not have the published sha256.

    Examples
    --------
    >>> import hashlib
    >>> from streamreg.datasets import ChecksumError
    >>> from streamreg.datasets.catalogue import FileSpec
    >>> from streamreg.datasets.fetch import checked
    >>> spec = FileSpec("a.csv", hashlib.sha256(b"x,y").hexdigest(), 3)
    >>> checked(b"x,y", spec, "a.csv", remedy="download it again")
    b'x,y'
    >>> try:
    ...     checked(b"x,z", spec, "a.csv", remedy="download it again")
    ... except ChecksumError as exc:
    ...     print(str(exc)[:35])
    checksum mismatch: a.csv has sha256
    """


class DownloadError(DatasetError):
    """A file could not be downloaded and is not in the cache.

    Examples
    --------
    A mirror (``STREAMREG_DATA_URL``) and a cache that both lack the set:

    >>> import os, tempfile
    >>> from unittest import mock
    >>> from streamreg.datasets import DownloadError, load
    >>> with tempfile.TemporaryDirectory() as empty, mock.patch.dict(os.environ, {"STREAMREG_DATA_URL": empty}):
    ...     try:
    ...         load("madelon", data_home=empty)
    ...     except DownloadError as exc:
    ...         print(str(exc)[:64])
    cannot download madelon_train.data.gz of data set 'madelon' from
    """


def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The cache folder of fetched data sets.

    Parameters
    ----------
    data_home : path, optional
        Used as given (``~`` expanded).  Default: the environment variable
        ``STREAMREG_DATA``, else the user cache folder of the platform --
        ``$XDG_CACHE_HOME/streamreg`` or ``~/.cache/streamreg`` on Linux,
        ``~/Library/Caches/streamreg`` on macOS, ``%LOCALAPPDATA%\\streamreg\\Cache`` on
        Windows.

    Examples
    --------
    >>> from streamreg.datasets import get_data_home
    >>> get_data_home("sr-cache").name
    'sr-cache'
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    if os.environ.get(ENV_HOME):
        return Path(os.environ[ENV_HOME]).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "streamreg" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "streamreg"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "streamreg"


def mirror_url() -> str | None:
    """``STREAMREG_DATA_URL`` as a base URL ending in ``/`` (a folder path becomes ``file://``)."""
    url = os.environ.get(ENV_URL, "").strip()
    if not url:
        return None
    if "://" not in url:
        url = Path(url).expanduser().resolve().as_uri()
    return url if url.endswith("/") else url + "/"


def checked(raw: bytes, spec: FileSpec, origin: str, *, remedy: str) -> bytes:
    """The file's content (gunzipped for ``.gz``) if its sha256 is the published one."""
    content = raw
    if spec.name.endswith(".gz"):
        try:
            content = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise ChecksumError(f"checksum mismatch: {origin} is not a valid gzip file ({exc}); {remedy}") from None
    digest = hashlib.sha256(content).hexdigest()
    if digest != spec.sha256:
        raise ChecksumError(f"checksum mismatch: {origin} has sha256 {digest}, expected {spec.sha256}; {remedy}")
    return content


def _variant_in(folder: Path, info: SetInfo) -> tuple[FileSpec, ...] | None:
    """The mirror or the upstream form of the set, whichever the folder holds complete."""
    for variant in (info.files, info.upstream_files):
        if all((folder / f.name).exists() for f in variant if not f.optional):
            return variant
    return None


def _missing_hint(info: SetInfo, folder: Path) -> str:
    mirror = ", ".join(f.name for f in info.files if not f.optional)
    hint = f"put the files {mirror} into {folder}"
    if info.upstream:
        hint += " (or the upstream form: " + ", ".join(f"{f.name} from {f.url}" for f in info.upstream) + ")"
    return (f"{hint}, or set {ENV_URL} to a mirror holding {info.name}/<file>; {ENV_HOME} or data_home= "
            "chooses the cache folder")


class _Unavailable(Exception):
    """The source did not deliver the file (no network, no such file, ...)."""


def _download(url: str, dest: Path, spec: FileSpec, info: SetInfo) -> None:
    part = dest.with_name(f"{dest.name}.part{os.getpid()}")
    log.info("downloading %s", url)
    request = urllib.request.Request(url, headers={"User-Agent": "streamreg (python urllib)"})
    try:
        with open(part, "wb") as fh:
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                    shutil.copyfileobj(response, fh)
            except urllib.error.HTTPError as exc:
                raise _Unavailable(f"HTTP {exc.code} {exc.reason}") from None
            except urllib.error.URLError as exc:
                raise _Unavailable(str(exc.reason)) from None
            except (http.client.HTTPException, TimeoutError, ConnectionError) as exc:
                raise _Unavailable(f"{type(exc).__name__}: {exc}") from None
        checked(part.read_bytes(), spec, f"{info.name}/{spec.name} downloaded from {url}",
                remedy="the download was discarded (the transfer was damaged or the source changed); try again")
        os.replace(part, dest)  # atomic: a file in the cache is always complete and checked
    finally:
        part.unlink(missing_ok=True)


def ensure(info: SetInfo, home: Path, *, retry_optional: bool = False) -> tuple[Path, tuple[FileSpec, ...]]:
    """Download what the cache lacks; the set's folder and which form of its files it holds.

    Optional files (gisette's training data, absent from some copies) are tried on the
    first download, or again with ``retry_optional=True``; their absence is not an error.
    """
    folder = home / info.name
    variant = _variant_in(folder, info)
    first = variant is None
    if variant is not None and not retry_optional:
        return folder, variant
    base = mirror_url()
    if variant is None:
        variant = info.files if base else info.upstream_files
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(f"cannot create the cache folder {folder} ({exc}); set {ENV_HOME} or pass data_home= "
                            "to use another folder") from None
    for spec in variant:
        dest = folder / spec.name
        if dest.exists() or (not first and not spec.optional):
            continue
        url = f"{base}{info.name}/{spec.name}" if base else spec.url
        try:
            _download(url, dest, spec, info)
        except (_Unavailable, ChecksumError) as exc:
            if spec.optional:  # e.g. gisette's training data: the set is usable without it
                log.warning("optional file %s of %r not used: %s", spec.name, info.name, exc)
                continue
            if isinstance(exc, ChecksumError):
                raise
            raise DownloadError(f"cannot download {spec.name} of data set {info.name!r} from {url} ({exc}). "
                                f"Without network access, {_missing_hint(info, folder)}") from None
    return folder, variant


def read_files(info: SetInfo, folder: Path, variant: tuple[FileSpec, ...]) -> dict[str, bytes]:
    """The verified contents of the cached files (optional ones only when present)."""
    out = {}
    for spec in variant:
        path = folder / spec.name
        if not path.exists():
            if spec.optional:
                continue
            raise DownloadError(f"{path} is missing; {_missing_hint(info, folder)}")
        out[spec.name] = checked(path.read_bytes(), spec, f"the cached file {path}",
                                 remedy="delete it and load the data set again to download it anew")
    return out


def download(name: str, *, data_home: str | os.PathLike | None = None) -> Path:
    """Download a fetched data set into the cache now (also retrying its optional files).

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets` whose storage is ``"fetched"``.
    data_home : path, optional
        The cache folder (see :func:`get_data_home`).

    Returns
    -------
    pathlib.Path
        The set's folder in the cache.

    Raises
    ------
    ValueError
        For an unknown or a bundled set.
    DownloadError, ChecksumError
        When a file cannot be downloaded, or does not have its published checksum.

    Examples
    --------
    >>> from streamreg.datasets import download
    >>> download("gisette").name  # doctest: +SKIP
    'gisette'
    >>> download("wdbc")
    Traceback (most recent call last):
    ...
    ValueError: 'wdbc' is bundled with the package: nothing to download
    """
    entry = info(name)
    if entry.bundled:
        raise ValueError(f"{name!r} is bundled with the package: nothing to download")
    folder, variant = ensure(entry, get_data_home(data_home), retry_optional=True)
    read_files(entry, folder, variant)
    return folder
