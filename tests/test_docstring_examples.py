"""Every public callable documents itself with a numpydoc Examples section (run as a doctest).

Public: the names exported by ``streamreg``, ``streamreg.datasets``, ``streamreg.policies``
and ``streamreg.screening``, and the public methods of the results object.  The doctests
themselves run with the package's ``--doctest-modules``.
"""
from __future__ import annotations

import inspect

import pytest

import streamreg as sr
from streamreg import datasets, policies, screening
from streamreg.results import StreamRegResults


def _has_examples(obj: object) -> bool:
    doc = inspect.getdoc(obj) or ""
    _, found, examples = doc.partition("Examples\n--------")
    return bool(found) and ">>>" in examples


def _public_callables() -> list[tuple[str, object]]:
    out = []
    for module in (sr, datasets, policies, screening):
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and not inspect.ismodule(obj):
                out.append((f"{module.__name__}.{name}", obj))
    for name, attr in inspect.getmembers(StreamRegResults, inspect.isfunction):  # mixins' methods too
        if not name.startswith("_"):
            out.append((f"StreamRegResults.{name}", attr))
    return out


@pytest.mark.parametrize("name, obj", _public_callables(), ids=[n for n, _ in _public_callables()])
def test_public_callable_has_an_examples_section(name: str, obj: object) -> None:
    assert _has_examples(obj), f"{name} has no numpydoc Examples section with a doctest"


def test_the_package_ships_its_type_information() -> None:
    from importlib import resources

    assert resources.files("streamreg").joinpath("py.typed").is_file()
