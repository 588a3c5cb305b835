"""Download the larger data sets on first use, check them against sha256, and cache them.

The cache holds one folder per set with the files under their published names, the same
layout as a mirror: ``<data_home>/<name>/<file>``.  pooch does the transfer: one
:func:`pooch.create` registry per set, whose keys are those ``<name>/<file>`` paths, so a
mirror (``STREAMREG_DATA_URL``) is its base URL and the public sources its per-file URLs.
A file arrives in a temporary file of the cache folder and is moved into place only when
complete and checked, so the cache never holds a partial file.  platformdirs names the
platform's user cache folder.

Two checks, because the catalogue records a ``.gz`` file's sha256 of its *uncompressed
content* (a copy gzipped anew, e.g. from the original uncompressed files, is the same
data and is accepted): pooch checks the known hash of every other file (``.RData``,
``.csv``) as it downloads it; a ``.gz`` file, whose bytes pooch would have to know, is
checked here right after the download (and discarded when it fails).  Every read checks
the checksum again (the files are decompressed anyway), so a damaged cache is reported
rather than parsed.  pooch has no downloader for ``file://`` URLs and plain folder paths,
which work as mirrors too; a small one copies those.
"""
from __future__ import annotations

import contextlib
import gzip
import hashlib
import logging
import os
import shutil
import urllib.parse
import urllib.request
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import platformdirs
import pooch
import requests

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


def get_data_home(data_home: str | os.PathLike[str] | None = None) -> Path:
    """The cache folder of fetched data sets.

    Parameters
    ----------
    data_home : path, optional
        Used as given (``~`` expanded).  Default: the environment variable
        ``STREAMREG_DATA``, else the platform's user cache folder (platformdirs) --
        ``$XDG_CACHE_HOME/streamreg`` or ``~/.cache/streamreg`` on Linux,
        ``~/Library/Caches/streamreg`` on macOS, ``%LOCALAPPDATA%\\streamreg\\Cache`` on
        Windows.

    Returns
    -------
    pathlib.Path
        The folder (not created here).

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
    # appauthor=False: no vendor folder on Windows (pooch.os_cache would add one)
    return Path(platformdirs.user_cache_dir("streamreg", appauthor=False))


def mirror_url() -> str | None:
    """``STREAMREG_DATA_URL`` as a base URL ending in ``/`` (a folder path becomes ``file://``).

    Returns
    -------
    str or None
        None when the variable is unset or empty.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> from streamreg.datasets.fetch import mirror_url
    >>> with mock.patch.dict(os.environ, {"STREAMREG_DATA_URL": "https://example.org/data"}):
    ...     mirror_url()
    'https://example.org/data/'
    """
    url = os.environ.get(ENV_URL, "").strip()
    if not url:
        return None
    if "://" not in url:
        url = Path(url).expanduser().resolve().as_uri()
    return url if url.endswith("/") else url + "/"


def checked(raw: bytes, spec: FileSpec, origin: str, *, remedy: str) -> bytes:
    """The file's content (gunzipped for ``.gz``) if its sha256 is the published one.

    Parameters
    ----------
    raw : bytes
        The file as stored.
    spec : FileSpec
        Its catalogue entry (the sha256 of the uncompressed content for ``.gz`` names).
    origin : str
        Where the bytes came from, for the error message.
    remedy : str
        What the user can do, for the error message.

    Returns
    -------
    bytes
        The content, decompressed for ``.gz`` names.

    Raises
    ------
    ChecksumError
        When the sha256 differs, or a ``.gz`` file is not valid gzip.

    Examples
    --------
    See :class:`ChecksumError`.
    """
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
    """Where to put which files by hand, their checksums, and the variables that redirect."""
    needed = [f for f in info.files if not f.optional]
    hint = f"put the files {', '.join(f.name for f in needed)} into {folder}"
    if info.upstream:
        hint += " (or the upstream form: " + ", ".join(f"{f.name} from {f.url}" for f in info.upstream) + ")"
    sums = ", ".join(f"{f.name} {f.sha256}" for f in needed)
    return (f"{hint}, or set {ENV_URL} to a mirror holding {info.name}/<file>; {ENV_HOME} or data_home= "
            f"chooses the cache folder. Expected sha256 (of the uncompressed content for .gz files): {sums}")


class _Unavailable(Exception):
    """The source did not deliver the file (no network, no such file, ...)."""


def _reason(exc: requests.RequestException) -> str:
    """A one-line reason for a failed request: the status, else the innermost cause."""
    if isinstance(exc, requests.HTTPError) and exc.response is not None:
        return f"HTTP {exc.response.status_code} {exc.response.reason}"
    cause: Any = exc
    while cause.args and isinstance(cause.args[0], BaseException):  # requests wraps urllib3's errors
        cause = cause.args[0]
    cause = getattr(cause, "reason", cause)  # urllib3's MaxRetryError keeps the socket error here
    text = str(cause)
    # urllib3 prefixes the connection object's repr: "<...HTTPConnection object at 0x..>: reason"
    return text.split(">: ", 1)[-1] if text.startswith("<") else f"{type(cause).__name__}: {text}"


class _Transfer:
    """A pooch downloader: requests for http(s), a copy for ``file://``; failures as :class:`_Unavailable`.

    It keeps the sha256 of the bytes it wrote, for the message when pooch finds them wrong.
    """

    def __init__(self) -> None:
        self.http = pooch.HTTPDownloader(timeout=TIMEOUT, headers={"User-Agent": "streamreg (pooch)"})
        self.digest = ""

    def __call__(self, url: str, output_file: str, store: Any) -> None:
        parts = urllib.parse.urlsplit(url)
        try:
            if parts.scheme == "file":
                shutil.copyfile(urllib.request.url2pathname(parts.path), output_file)
            else:
                self.http(url, output_file, store)
        except requests.RequestException as exc:
            raise _Unavailable(_reason(exc)) from None
        except OSError as exc:  # a local mirror without the file
            raise _Unavailable(f"{type(exc).__name__}: {exc.strerror or exc}") from None
        self.digest = hashlib.sha256(Path(output_file).read_bytes()).hexdigest()


@contextlib.contextmanager
def _quiet_pooch() -> Iterator[None]:
    """pooch announces every download on stderr; streamreg logs it instead (shown when asked)."""
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _registry(info: SetInfo, home: Path, variant: tuple[FileSpec, ...], base: str | None) -> Any:
    """The set's pooch: keys ``<name>/<file>``, the known hash of each file pooch can check."""
    keys = {spec.name: f"{info.name}/{spec.name}" for spec in variant}
    return pooch.create(
        path=home, base_url=base or "",
        registry={keys[s.name]: None if s.name.endswith(".gz") else f"sha256:{s.sha256}" for s in variant},
        urls={} if base else {keys[s.name]: s.url for s in variant})


def _download(store: Any, spec: FileSpec, info: SetInfo, url: str, dest: Path) -> None:
    transfer = _Transfer()
    origin = f"{info.name}/{spec.name} downloaded from {url}"
    remedy = "the download was discarded (the transfer was damaged or the source changed); try again"
    log.info("downloading %s", url)
    try:
        with _quiet_pooch():
            store.fetch(f"{info.name}/{spec.name}", downloader=transfer)
    except ValueError:  # pooch's known-hash check failed; it deleted the file
        raise ChecksumError(f"checksum mismatch: {origin} has sha256 {transfer.digest}, expected {spec.sha256}; "
                            f"{remedy}") from None
    if spec.name.endswith(".gz"):  # the content's checksum, which pooch cannot know
        try:
            checked(dest.read_bytes(), spec, origin, remedy=remedy)
        except ChecksumError:
            dest.unlink(missing_ok=True)
            raise


def ensure(info: SetInfo, home: Path, *, retry_optional: bool = False) -> tuple[Path, tuple[FileSpec, ...]]:
    """Download what the cache lacks; the set's folder and which form of its files it holds.

    Optional files (gisette's training data, absent from some copies) are tried on the
    first download, or again with ``retry_optional=True``; their absence is not an error.

    Parameters
    ----------
    info : SetInfo
        The set's catalogue entry.
    home : pathlib.Path
        The cache folder (see :func:`get_data_home`).
    retry_optional : bool, default False
        Try the optional files again even when the set is already cached.

    Returns
    -------
    folder : pathlib.Path
        ``home / info.name``.
    variant : tuple of FileSpec
        The files the folder holds: the mirror's form or the upstream one.

    Raises
    ------
    DownloadError, ChecksumError
        When a required file cannot be downloaded, or does not have its checksum.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from streamreg.datasets.catalogue import info
    >>> from streamreg.datasets.fetch import ensure
    >>> folder, files = ensure(info("madelon"), Path(tempfile.mkdtemp()))  # doctest: +SKIP
    >>> [f.name for f in files]  # doctest: +SKIP
    ['madelon_train.data.gz', 'madelon_train.labels.gz', 'madelon_valid.data.gz', 'madelon_valid.labels.gz']
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
    store = _registry(info, home, variant, base)
    for spec in variant:
        dest = folder / spec.name
        if dest.exists() or (not first and not spec.optional):
            continue
        url = f"{base}{info.name}/{spec.name}" if base else spec.url
        try:
            _download(store, spec, info, url, dest)
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
    """The verified contents of the cached files (optional ones only when present).

    Parameters
    ----------
    info : SetInfo
        The set's catalogue entry.
    folder : pathlib.Path
        The set's cache folder.
    variant : tuple of FileSpec
        The files to read (from :func:`ensure`).

    Returns
    -------
    dict of str to bytes
        File name -> content, decompressed for ``.gz`` names.

    Raises
    ------
    DownloadError
        When a required file is missing.
    ChecksumError
        When a file does not have its published checksum.

    Examples
    --------
    >>> from streamreg.datasets.catalogue import info
    >>> from streamreg.datasets.fetch import ensure, get_data_home, read_files
    >>> entry = info("madelon")
    >>> files = read_files(entry, *ensure(entry, get_data_home()))  # doctest: +SKIP
    >>> sorted(files)[0]  # doctest: +SKIP
    'madelon_train.data.gz'
    """
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


def download(name: str, *, data_home: str | os.PathLike[str] | None = None) -> Path:
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
