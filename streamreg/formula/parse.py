"""Parse the streamreg formula mini-language (pure string work; no patsy here).

``response ~ fixed terms + stream(glob_or_term, ..., name=, exclude=, order=)``

The right-hand side is split at top-level ``+``/``-``; ``stream(...)`` items become stream
specifications and everything else is handed to patsy unchanged as the fixed part.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Collection
from dataclasses import dataclass, field

# the lexer lives outside formula/ so that streams/ can split term names too; its names
# are re-exported here (FormulaError is importable from this module)
from ..lexer import FormulaError, scan as _scan, split_top_level
from ..streams.registry import stream_class_names

__all__ = [
    "STREAM_FUNCTIONS",
    "FormulaError",
    "ParsedFormula",
    "StreamSpec",
    "check_attributes",
    "check_nested",
    "check_no_dunder",
    "parse_formula",
    "parse_stream_call",
    "split_top_level",
]

#: functions that introduce candidate streams: ``stream()`` and the generated classes, a
#: live view of :mod:`streamreg.streams.registry` (classes registered later count)
STREAM_FUNCTIONS = stream_class_names()
_KEYWORD = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)(.*)$", re.DOTALL)
_GLOB = re.compile(r"^[\w.*?\[\]!]+$")


@dataclass
class StreamSpec:
    """One ``stream(...)`` (or generated-class) item of a formula."""

    function: str
    text: str
    globs: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    options: dict = field(default_factory=dict)
    args: list[str] = field(default_factory=list)  # positional arguments in order, as written

    @property
    def name(self) -> str:
        return self.options.get("name") or ", ".join(self.args) or self.function


@dataclass
class ParsedFormula:
    response: str
    fixed: str  # patsy right-hand side, "1" when only streams were given
    streams: list[StreamSpec]
    text: str


# A formula is code (as in R): patsy evaluates its terms as Python.  Evaluation sees only
# the data, np, patsy's functions and functions= (see design.py); these checks keep terms
# from reaching Python internals through names or attributes, and fail before any evaluation.
# a dunder is a word holding "__"; the message shows it with the dotted chain around it.  Found
# by str.find and matched outward from there (linear: one regex search for the whole chain
# backtracked over every start of a long a.a.a... chain, quadratic in the formula's length)
_WORD_END = re.compile(r"\w*")
_CHAIN_AFTER = re.compile(r"(?:\s*\.\s*\w+)*")  # also matches the chain before, read backwards
_SKIP_TOKENS = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
                tokenize.ENDMARKER}


def _match_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    m = pattern.match(text, pos)  # the patterns may match nothing, so they always match
    return m.end() if m else pos


def clip(text: str, width: int = 60) -> str:
    """``text`` shortened to about ``width`` characters for a message (a formula may be very long)."""
    return text if len(text) <= width else f"{text[:width - 25]} ... {text[-20:]}"


def _outside_strings(text: str) -> str:
    """``text`` with string literals blanked, so quoted column names are not checked."""
    keep = {i for i, _, _ in _scan(text)}
    return "".join(ch if i in keep else " " for i, ch in enumerate(text))


def check_no_dunder(text: str, what: str = "the formula") -> None:
    """Refuse names with a double underscore (``__import__``, ``x.__class__``)."""
    code = _outside_strings(text)
    at = code.find("__")
    if at >= 0:
        end = _match_end(_WORD_END, code, at)
        end = _match_end(_CHAIN_AFTER, code, end)
        start = at
        while start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
            start -= 1
        back = code[::-1]
        start = len(code) - _match_end(_CHAIN_AFTER, back, len(code) - start)
        raise FormulaError(
            f"{clip(code[start:end].strip())!r} in {clip(what, 100)} is not allowed: a formula is evaluated as code, and "
            "names with a double underscore reach Python internals (quote a column so named: Q('a__b'))"
        )


def _dotted(toks: list, k: int) -> str:
    """The dotted chain around the '.' token ``toks[k]``, for messages."""
    lo = k - 1
    while lo >= 2 and toks[lo - 1].string == "." and toks[lo - 2].type == tokenize.NAME:
        lo -= 2
    hi = k + 1
    while hi + 2 < len(toks) and toks[hi + 1].string == "." and toks[hi + 2].type == tokenize.NAME:
        hi += 2
    return "".join(t.string for t in toks[max(lo, 0) : hi + 1])


def check_attributes(code: str, what: str) -> None:
    """Allow only ``np.<name>`` attribute access in a patsy expression.

    Without builtins, attributes are the remaining way out: methods of the data columns
    write files, and numpy's submodules (``np.ctypeslib``) reach the operating system.
    """
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type not in _SKIP_TOKENS]
    except (tokenize.TokenError, SyntaxError):
        return  # patsy reports unreadable terms itself, and evaluation is guarded again
    for k, tok in enumerate(toks):
        if tok.type != tokenize.OP or tok.string != ".":
            continue
        prev = toks[k - 1] if k else None
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        ok = (
            prev is not None and prev.type == tokenize.NAME and prev.string == "np"
            and (k < 2 or toks[k - 2].string != ".")
            and nxt is not None and nxt.type == tokenize.NAME and not nxt.string.startswith("_")
        )
        if not ok:
            raise FormulaError(
                f"attribute access {clip(_dotted(toks, k))!r} in {clip(what, 100)} is not allowed: a formula may call "
                "np.<function> (e.g. np.log(x)) but use no other attributes; create derived columns first"
            )


def _call_name(item: str) -> str | None:
    m = re.match(r"^\s*([A-Za-z_]\w*)\s*\(", item)
    if m and item.rstrip().endswith(")"):
        # the call must span the whole item: its '(' closes at the last character
        open_at = item.index("(", m.start(1))
        for i, _ch, depth in _scan(item):
            if i > open_at and depth == 0:
                return m.group(1) if i == len(item.rstrip()) - 1 else None
    return None


def check_nested(spec: StreamSpec, response: str, functions: Collection[str] = ()) -> None:
    """Refuse a stream function called inside an item's terms, e.g. ``stream(squares(x*))``.

    patsy would evaluate ``squares(x*)`` as Python and fail with a bare ``SyntaxError``.  A
    name of ``functions=`` is the user's function there, not the class.

    Examples
    --------
    >>> from streamreg.formula.parse import check_nested, parse_formula
    >>> check_nested(parse_formula("y ~ stream(squares(x*))").streams[0], "y")
    Traceback (most recent call last):
    ...
    streamreg.lexer.FormulaError: stream(squares(x*)): squares() is a generated class, a top-level item of the formula like stream(), not a candidate term; write y ~ squares(x*) instead of y ~ stream(squares(x*))
    """
    for term in spec.terms:
        code = _outside_strings(term)
        for fn in STREAM_FUNCTIONS:
            if fn in functions or not re.search(rf"\b{fn}\s*\(", code):
                continue
            if fn == "stream":
                raise FormulaError(f"{spec.text}: stream() cannot be nested; give {spec.function}() the globs and "
                                   "terms themselves, or add another stream() to the formula with '+'")
            what = (f"{spec.text}: {fn}() is a generated class, a top-level item of the formula like stream(), "
                    f"not a candidate term")
            if _call_name(term) != fn:
                raise FormulaError(f"{what}; it cannot appear inside the term {term!r}")
            if spec.function == "stream" and spec.args == [term]:
                raise FormulaError(f"{what}; write {response} ~ {term} instead of {response} ~ {spec.text}")
            raise FormulaError(f"{what}; take it out of {spec.function}() and add it to the formula: "
                               f"{response} ~ ... + {term}")


def parse_stream_call(item: str, function: str) -> StreamSpec:
    inner = item.strip()[len(function) :].strip()[1:-1]
    spec = StreamSpec(function=function, text=item.strip())
    if not inner.strip():
        if function == "stream":
            raise FormulaError("stream() needs at least one column glob or term, e.g. stream(x*)")
        return spec
    for _, arg in split_top_level(inner, ","):
        arg = arg.strip()
        if not arg:
            raise FormulaError(f"empty argument in {item.strip()!r}")
        kw = _KEYWORD.match(arg)
        if kw:
            key, value = kw.group(1), kw.group(2).strip()
            try:
                spec.options[key] = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                spec.options[key] = value  # a bare word such as order=variance
            continue
        if arg[0] in "'\"":
            try:
                glob = ast.literal_eval(arg)
            except (ValueError, SyntaxError):
                raise FormulaError(f"cannot read the quoted column name {arg} in {item.strip()!r}") from None
            spec.globs.append(glob)
            spec.args.append(glob)
        elif _GLOB.match(arg):
            spec.globs.append(arg)
            spec.args.append(arg)
        else:
            spec.terms.append(arg)
            spec.args.append(arg)
    return spec


def parse_formula(formula: str) -> ParsedFormula:
    """Split a streamreg formula into response, fixed patsy part and stream items.

    An item is a stream item when it calls a function of the stream-class registry
    (:mod:`streamreg.streams.registry`) at top level; everything else is fixed.

    Parameters
    ----------
    formula : str
        ``response ~ fixed terms + stream(...) + pca(...) + ...``.

    Returns
    -------
    ParsedFormula

    Raises
    ------
    FormulaError
        When the formula cannot be read; the message says where.

    Examples
    --------
    >>> from streamreg.formula import parse_formula
    >>> p = parse_formula("y ~ age + stream(x*, order=variance) + pca(z*, k=3)")
    >>> p.response, p.fixed, [(s.function, s.globs, s.options) for s in p.streams]
    ('y', 'age', [('stream', ['x*'], {'order': 'variance'}), ('pca', ['z*'], {'k': 3})])
    """
    if not isinstance(formula, str):
        raise FormulaError(f"the formula must be a string, got {type(formula).__name__}")
    list(_scan(formula))  # bracket and quote balance first: the clearest message
    check_no_dunder(formula)
    sides = split_top_level(formula, "~")
    if len(sides) != 2:
        raise FormulaError(
            f"a formula needs exactly one '~' between response and terms, e.g. 'y ~ stream(x*)'; got {formula!r}"
        )
    lhs, rhs = sides[0][1].strip(), sides[1][1].strip()
    if not lhs:
        raise FormulaError(f"the formula has no response on the left of '~': {formula!r}")
    if not rhs:
        raise FormulaError(f"the formula has no terms on the right of '~': {formula!r}")
    fixed, streams = [], []
    for sign, item in split_top_level(rhs, "+-"):
        if not item.strip():
            if sign == "-" or (sign == "" and rhs.lstrip().startswith("-")):
                continue  # leading '-', as in '~ -1 + x'
            raise FormulaError(f"empty term in {rhs!r} (a doubled '+'?)")
        name = _call_name(item)
        if name is not None and name in STREAM_FUNCTIONS:
            if sign == "-":
                raise FormulaError(f"{name}() cannot be subtracted: remove '- {item.strip()}'")
            streams.append(parse_stream_call(item, name))
            continue
        for fn in STREAM_FUNCTIONS:
            if re.search(rf"\b{fn}\s*\(", item):
                raise FormulaError(
                    f"{fn}() must be a top-level term added with '+'; it cannot appear inside "
                    f"an interaction or a function: {item.strip()!r}"
                )
        fixed.append(f"{sign} {item.strip()}" if sign else item.strip())
    if not streams:
        raise FormulaError(
            "the formula has no stream() term, so there is nothing to select; add candidates, "
            "e.g. 'y ~ age + stream(x*)' (use statsmodels.formula.api for a fixed model)"
        )
    fixed_text = " ".join(fixed).strip()
    fixed_text = fixed_text.removeprefix("+ ")
    if not fixed_text or fixed_text.startswith("-"):
        fixed_text = ("1 " + fixed_text).strip()
    check_attributes(lhs, f"the response {lhs!r}")
    check_attributes(fixed_text, f"the fixed terms {fixed_text!r}")
    for spec in streams:
        for term in spec.terms:
            check_attributes(term, f"the candidate term {term!r} of {spec.text}")
    return ParsedFormula(response=lhs, fixed=fixed_text, streams=streams, text=formula)
