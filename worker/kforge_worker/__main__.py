"""Entry point: `python3 -m kforge_worker` (PYTHONPATH=<repo>/worker)."""

from kforge_worker.protocol import serve

if __name__ == "__main__":
    raise SystemExit(serve())
