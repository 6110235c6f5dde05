"""The analysis corpus fixtures (tests/analysis/facts/*.json) must match what the facts extractor
says today; regenerate with `.venv/bin/python3 tests/analysis/make_fixtures.py`. The rules are
applied to the same fixtures by src/analysis/corpus_test.cc (precision/recall per rule)."""

import json
import os

import pytest
# Imported once here so that the forked children of extract() start warm, as in the worker.
import torch  # noqa: F401
import triton.language  # noqa: F401

from kforge_worker.facts import extract

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tests", "analysis")
with open(os.path.join(HERE, "manifest.json")) as handle:
    MANIFEST = json.load(handle)

VOLATILE = ("runtime", "versions")


def strip(facts):
    return {key: value for key, value in facts.items() if key not in VOLATILE}


@pytest.mark.parametrize("name", sorted(MANIFEST["cases"]))
def test_fixture_is_current(name):
    case = MANIFEST["cases"][name]
    os.chdir(ROOT)
    candidate = f"tests/analysis/corpus/{name}"
    task = f"tests/analysis/tasks/{case['task']}" if case.get("task") else None
    fresh = json.loads(json.dumps(extract(candidate, task)))
    with open(os.path.join(HERE, "facts", name[:-3] + ".json")) as handle:
        stored = json.load(handle)
    assert strip(fresh) == strip(stored), f"stale fixture: run tests/analysis/make_fixtures.py {name}"
    if case.get("runtime"):
        assert stored["runtime"]["status"] == "ok", stored["runtime"]


def test_manifest_names_every_rule_for_every_case():
    rules = set(MANIFEST["rules"])
    for name, case in MANIFEST["cases"].items():
        assert set(case["must"]) | set(case["must_not"]) == rules, name
        assert not set(case["must"]) & set(case["must_not"]), name
        assert os.path.isfile(os.path.join(HERE, "corpus", name)), name
