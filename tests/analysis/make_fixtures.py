"""Regenerates tests/analysis/facts/<case>.json from the corpus with the worker's facts extractor
(run from the repository root: `.venv/bin/python3 tests/analysis/make_fixtures.py`). Run-time
facts are measured on the CPU (TRITON_INTERPRET=1) for the cases whose manifest entry says
"runtime": true. The C++ corpus test (src/analysis/corpus_test.cc) applies the rules to these
files; worker/tests/test_facts_corpus.py checks that they are up to date."""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "worker"))


def case_paths(name, case):
    candidate = os.path.relpath(os.path.join(HERE, "corpus", name), ROOT)
    task = case.get("task")
    task = os.path.relpath(os.path.join(HERE, "tasks", task), ROOT) if task else None
    return candidate, task


def generate(name, case):
    from kforge_worker.facts import extract
    candidate, task = case_paths(name, case)
    return extract(candidate, task, runtime=bool(case.get("runtime")), device="cpu", shrink=False)


def main():
    os.chdir(ROOT)
    with open(os.path.join(HERE, "manifest.json")) as handle:
        manifest = json.load(handle)
    out_dir = os.path.join(HERE, "facts")
    os.makedirs(out_dir, exist_ok=True)
    only = set(sys.argv[1:])
    for name, case in sorted(manifest["cases"].items()):
        if only and name not in only:
            continue
        facts = generate(name, case)
        with open(os.path.join(out_dir, name[:-3] + ".json"), "w") as handle:
            json.dump(facts, handle, indent=1, sort_keys=True)
            handle.write("\n")
        runtime = facts.get("runtime") or {}
        print(f"{name}: {len(facts['jit_functions'])} jit, {len(facts['launches'])} launches, "
              f"runtime {runtime.get('status')} {runtime.get('launches_per_forward')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
