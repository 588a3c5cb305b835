"""Bracket- and quote-aware splitting of formula text, and the error it raises.

Both the formula parser (``formula/parse.py``) and the interaction streams (term names
such as ``C(g, Sum):x3`` split into their factors) need to split text at top-level
separators.  This module is that shared piece, so that ``streams/`` does not import
``formula/``.  It imports nothing from streamreg.
"""
from __future__ import annotations

from collections.abc import Iterator

__all__ = ["FormulaError", "scan", "split_top_level"]

_CLOSING = {")": "(", "]": "[", "}": "{"}


class FormulaError(ValueError):
    """The formula cannot be read; the message says where and what to do.

    Examples
    --------
    >>> import streamreg as sr
    >>> issubclass(sr.FormulaError, ValueError)
    True
    """


def scan(text: str) -> Iterator[tuple[int, str, int]]:
    """Yield ``(index, character, depth)`` for the characters outside string literals.

    ``depth`` counts the brackets open after the character (a closing bracket is
    reported at the depth it returns to).

    Parameters
    ----------
    text : str
        Formula text.

    Yields
    ------
    tuple of (int, str, int)

    Raises
    ------
    FormulaError
        On an unbalanced or unclosed bracket, or an unterminated string.

    Examples
    --------
    >>> from streamreg.lexer import scan
    >>> [(ch, depth) for _, ch, depth in scan("f(a)")]
    [('f', 0), ('(', 1), ('a', 1), (')', 0)]
    """
    depth, quote = 0, None
    stack: list[tuple[str, int]] = []
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = None
            continue
        if ch in "'\"":
            quote = ch
            continue
        if ch in "([{":
            stack.append((ch, i))
            depth += 1
        elif ch in ")]}":
            if not stack or stack[-1][0] != _CLOSING[ch]:
                raise FormulaError(f"unbalanced {ch!r} at position {i} in formula {text!r}")
            stack.pop()
            depth -= 1
        yield i, ch, depth
    if quote:
        raise FormulaError(f"unterminated string in formula {text!r}")
    if stack:
        ch, i = stack[-1]
        raise FormulaError(f"unclosed {ch!r} at position {i} in formula {text!r}")


def split_top_level(text: str, seps: str) -> list[tuple[str, str]]:
    """Split ``text`` at the separator characters ``seps`` outside brackets and strings.

    Parameters
    ----------
    text : str
        Formula text.
    seps : str
        Separator characters, each splitting on its own.

    Returns
    -------
    list of (str, str)
        ``(separator before the piece, piece)`` pairs; the first separator is ``""``.

    Examples
    --------
    >>> from streamreg.lexer import split_top_level
    >>> split_top_level("a + f(b, c) - d", "+-")
    [('', 'a '), ('+', ' f(b, c) '), ('-', ' d')]
    """
    pieces, start, sep = [], 0, ""
    for i, ch, depth in scan(text):
        if depth == 0 and ch in seps:
            # '**' and comparison-like tokens never occur at top level in a patsy RHS
            pieces.append((sep, text[start:i]))
            sep, start = ch, i + 1
    pieces.append((sep, text[start:]))
    return pieces
