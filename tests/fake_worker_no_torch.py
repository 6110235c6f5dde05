"""A worker that cannot start: what `python3 -m kforge_worker` does without torch installed."""

raise ModuleNotFoundError("No module named 'torch'")
