"""A small reader for R's ``.RData`` files: enough for data frames, matrices and factors.

R saves with ``save()`` a pairlist of named objects in its serialisation format (XDR,
versions 2 and 3), compressed with gzip, bzip2 or xz.  The gene-expression sets are
published upstream only in that form (the ``datamicroarray`` R package), and reading them
must not need R or a new dependency, so this module decodes the subset those files use:
atomic vectors, lists, pairlists, symbols, references and attributes.  Closures,
environments, byte code and ALTREP objects are refused with a clear error.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

NA_INTEGER = -(2**31)
# SEXP type codes (R Internals, "Serialization Formats")
_NIL, _SYM, _LIST, _CHAR, _LGL, _INT, _REAL, _CPLX, _STR, _VEC, _EXPR, _RAW = 0, 1, 2, 9, 10, 13, 14, 15, 16, 19, 20, 24
_REF, _NILVALUE, _GLOBALENV, _EMPTYENV, _BASEENV, _MISSINGARG, _UNBOUND = 255, 254, 253, 242, 241, 251, 252


@dataclass
class RObject:
    """An R value: ``value`` (numpy array, list or None) and its ``attrs`` (names -> values)."""

    type: int
    value: Any
    attrs: dict[str, Any] = field(default_factory=dict)

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attrs.get(name, default)

    @property
    def klass(self) -> list[str]:
        cls = self.attrs.get("class")
        return list(cls.value) if isinstance(cls, RObject) else []


class _Reader:
    def __init__(self, buf: bytes):
        self.buf = buf
        self.pos = 0
        self.refs: list[Any] = []

    def _take(self, n: int) -> bytes:
        if self.pos + n > len(self.buf):
            raise ValueError("truncated R serialisation stream")
        out = self.buf[self.pos:self.pos + n]
        self.pos += n
        return out

    def int32(self) -> int:
        return struct.unpack(">i", self._take(4))[0]

    def length(self) -> int:
        n = self.int32()
        if n == -1:  # long vector: two more words
            hi, lo = self.int32(), self.int32()
            n = (hi << 32) + lo
        return n

    def item(self) -> Any:
        flags = self.int32()
        kind, has_attr, has_tag = flags & 0xFF, bool(flags & (1 << 9)), bool(flags & (1 << 10))
        if kind == _NILVALUE:
            return None
        if kind in (_GLOBALENV, _EMPTYENV, _BASEENV, _MISSINGARG, _UNBOUND):
            return RObject(kind, None)
        if kind == _REF:
            index = flags >> 8 or self.int32()
            return self.refs[index - 1]
        if kind == _SYM:
            sym = self.item()  # a CHARSXP
            self.refs.append(sym)
            return sym
        if kind == _CHAR:
            n = self.int32()
            if n == -1:
                return None  # NA_character_
            raw = self._take(n)
            return raw.decode("latin-1" if flags & (1 << 14) else "utf-8", errors="replace")
        if kind == _LIST:
            return self._pairlist(flags, has_attr, has_tag)
        if kind in (_LGL, _INT):
            n = self.length()
            value: Any = np.frombuffer(self._take(4 * n), dtype=">i4").astype(np.int32)
        elif kind == _REAL:
            n = self.length()
            value = np.frombuffer(self._take(8 * n), dtype=">f8").astype(np.float64)
        elif kind == _CPLX:
            n = self.length()
            value = np.frombuffer(self._take(16 * n), dtype=">f8").astype(np.float64).view(np.complex128)
        elif kind == _RAW:
            n = self.length()
            value = np.frombuffer(self._take(n), dtype=np.uint8).copy()
        elif kind == _STR:
            value = np.array([self.item() for _ in range(self.length())], dtype=object)
        elif kind in (_VEC, _EXPR):
            value = [self.item() for _ in range(self.length())]
        else:
            raise ValueError(f"unsupported R object type {kind} at byte {self.pos - 4} "
                             "(only vectors, lists, factors, data frames and matrices are read)")
        obj = RObject(kind, value)
        if has_attr:
            obj.attrs = self._attributes(self.item())
        return obj

    def _pairlist(self, flags: int, has_attr: bool, has_tag: bool) -> dict[str, Any]:
        """A pairlist as an ordered dict tag -> value (iterative: pairlists can be long)."""
        out: dict[str, Any] = {}
        while True:
            if has_attr:
                self.item()  # attributes of a pairlist cell: not used by data files
            tag = self.item() if has_tag else None
            out[tag if tag is not None else f"[[{len(out) + 1}]]"] = self.item()
            flags = self.int32()
            kind = flags & 0xFF
            if kind == _NILVALUE:
                return out
            if kind != _LIST:  # a dotted pair: CDR is not a pairlist
                self.pos -= 4
                out["[[cdr]]"] = self.item()
                return out
            has_attr, has_tag = bool(flags & (1 << 9)), bool(flags & (1 << 10))

    @staticmethod
    def _attributes(pairs: Any) -> dict[str, Any]:
        return dict(pairs) if isinstance(pairs, dict) else {}


def decompress(raw: bytes) -> bytes:
    """The serialised stream inside an ``.RData`` file, whatever its compression."""
    if raw[:2] == b"\x1f\x8b":
        return gzip.decompress(raw)
    if raw[:3] == b"BZh":
        return bz2.decompress(raw)
    if raw[:6] == b"\xfd7zXZ\x00":
        return lzma.decompress(raw)
    return raw


def read_rdata(raw: bytes) -> dict[str, Any]:
    """The objects saved in an ``.RData`` file, by name.

    Parameters
    ----------
    raw : bytes
        The file's contents (compressed or not).

    Returns
    -------
    dict
        Object name -> :class:`RObject` (lists hold further ``RObject`` values).

    Examples
    --------
    >>> import struct
    >>> ints = lambda *v: b"".join(struct.pack(">i", x) for x in v)
    >>> chars = lambda s: ints(0x40009, len(s)) + s.encode()
    >>> body = ints(1026) + ints(1) + chars("z") + ints(14, 2) + struct.pack(">2d", 1.5, -2) + ints(254)
    >>> read_rdata(b"RDX2\\nX\\n" + ints(2, 0x30000, 0x20300) + body)["z"].value
    array([ 1.5, -2. ])
    """
    data = decompress(raw)
    if data[:5] not in (b"RDX2\n", b"RDX3\n"):
        raise ValueError("not an .RData file (no RDX2/RDX3 signature)")
    if data[5:7] != b"X\n":
        raise ValueError(f"unsupported .RData encoding {data[5:7]!r}: only the binary XDR format is read")
    reader = _Reader(data)
    reader.pos = 7
    version = reader.int32()
    reader.int32()  # the writer's R version
    reader.int32()  # the minimal reader version
    if version == 3:
        reader._take(reader.int32())  # native encoding name
    elif version != 2:
        raise ValueError(f"unsupported R serialisation version {version}")
    top = reader.item()
    if not isinstance(top, dict):
        raise ValueError("an .RData file holds a pairlist of named objects; found something else")  # noqa: TRY004
    return top


def as_pandas(obj: Any) -> Any:
    """An R value as pandas: data frames and matrices to DataFrame, factors to Categorical.

    Missing values (``NA``) become NaN (or None among strings).
    """
    if not isinstance(obj, RObject):
        return obj
    klass = obj.klass
    if "factor" in klass:
        levels = list(obj.attr("levels").value)
        codes = np.where(obj.value == NA_INTEGER, -1, obj.value - 1)
        return pd.Categorical.from_codes(codes, categories=pd.Index(levels), ordered="ordered" in klass)
    if "data.frame" in klass:
        names = [str(n) for n in obj.attr("names").value]
        kinds = {(v.type, bool(v.klass)) for v in obj.value}
        if names and kinds <= {(_REAL, False), (_INT, False)}:
            # one block for thousands of plain numeric columns (expression matrices)
            frame = pd.DataFrame(np.column_stack([_numeric(v) for v in obj.value]), columns=names)
        else:
            frame = pd.DataFrame({name: _column(v) for name, v in zip(names, obj.value)}, columns=names)
        rows = obj.attr("row.names")
        if rows is not None and rows.type == _STR:
            frame.index = list(rows.value)
        return frame
    dim = obj.attr("dim")
    if dim is not None and len(dim.value) == 2:
        nrow, ncol = (int(d) for d in dim.value)
        values = _column(RObject(obj.type, obj.value)).to_numpy().reshape((ncol, nrow)).T  # R is column-major
        rows, cols = None, None
        dimnames = obj.attr("dimnames")
        if dimnames is not None:
            rows, cols = (None if d is None else list(d.value) for d in dimnames.value)
        return pd.DataFrame(values, index=rows, columns=cols)
    if obj.type == _VEC:
        names = obj.attr("names")
        values = [as_pandas(v) for v in obj.value]
        return dict(zip(names.value, values)) if names is not None else values
    return obj.value if obj.type == _STR else _column(obj).to_numpy()


def _numeric(obj: RObject) -> np.ndarray:
    """A plain numeric vector, integer NA as NaN."""
    if obj.type == _INT and (obj.value == NA_INTEGER).any():
        return np.where(obj.value == NA_INTEGER, np.nan, obj.value)
    return obj.value


def _column(obj: RObject) -> pd.Series:
    if "factor" in obj.klass:
        return pd.Series(as_pandas(obj))
    if obj.type == _INT:
        return pd.Series(_numeric(obj))
    if obj.type == _LGL:
        return pd.Series(np.where(obj.value == NA_INTEGER, np.nan, obj.value.astype(float)))
    return pd.Series(obj.value)
