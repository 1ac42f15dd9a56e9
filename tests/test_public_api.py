"""The public API is explicit: what ``__all__`` promises exists, and nothing else leaks."""

from __future__ import annotations

import importlib

import pytest

import openeval

PUBLIC_MODULES = ["openeval", "openeval.adapters", "openeval.metrics", "openeval.report"]


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_is_sorted_and_every_name_resolves(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported)
    for attr in exported:
        assert getattr(module, attr) is not None, f"{name}.{attr}"


def test_models_are_importable_from_the_package_root() -> None:
    from openeval.models import AgentTrace, EvalTestCase, MetricResult, TraceStep

    assert (openeval.AgentTrace, openeval.EvalTestCase, openeval.MetricResult,
            openeval.TraceStep) == (AgentTrace, EvalTestCase, MetricResult, TraceStep)


def test_version_matches_the_distribution() -> None:
    from importlib.metadata import version

    assert openeval.__version__ == version("openeval-core")


def test_package_ships_py_typed() -> None:
    from importlib.resources import files

    assert files("openeval").joinpath("py.typed").is_file()
