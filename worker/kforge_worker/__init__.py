"""kforge-worker: the Python side of kforge. Loads tasks and candidates, checks, times, profiles
and analyses them on one device, and answers the C++ core over a JSON-lines pipe
(docs/protocol.md). It decides nothing: verdicts are facts, the core chooses."""

__version__ = "0.1.0"
