"""The JSON-lines request loop (docs/protocol.md).

The protocol stream is the process's original stdout, duplicated to a private descriptor at start;
file descriptor 1 is then pointed at stderr so that nothing else (library warnings, a candidate's
prints) can corrupt the stream."""

import importlib
import json
import os
import re
import sys
import traceback

# op name -> "module:function"; each handler takes the request dict and returns the result dict,
# or raises RequestError for a request that cannot be served.
OPS = {
    "hello": "kforge_worker.hello:handle",
    "inspect_task": "kforge_worker.task_loader:handle_inspect",
    "baseline": "kforge_worker.baseline:handle",
    "evaluate": "kforge_worker.evaluate:handle",
    "analyze": "kforge_worker.facts:handle",
}


_SURROGATE = re.compile("[\ud800-\udfff]")


class RequestError(Exception):
    """A request that cannot be served: the reply is ok=false with this message."""


def _finite(value):
    """JSON has no NaN or infinity: such floats travel as the strings "nan", "inf", "-inf".
    Strings travel as valid Unicode: a lone surrogate (a candidate's exception text holding
    \ud800) would be written as an escape that the C++ side rightly refuses, losing the whole
    reply (blind red team, session 15); it becomes U+FFFD."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_finite(key): _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def encode(reply):
    return json.dumps(_finite(reply), allow_nan=False, default=str)


def _open_protocol_stream():
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(protocol_fd, "w", buffering=1, encoding="utf-8")


def _handler(op):
    target = OPS.get(op)
    if target is None:
        raise RequestError(f"failed to serve request: unknown op {op!r}")
    module_name, function_name = target.split(":")
    return getattr(importlib.import_module(module_name), function_name)


def handle_line(line):
    """One request line in, one reply dict out. Never raises."""
    try:
        request = json.loads(line)
    except json.JSONDecodeError as error:
        return {"id": None, "ok": False,
                "error": f"failed to parse request: {error.msg} at column {error.colno}"}
    if not isinstance(request, dict):
        return {"id": None, "ok": False, "error": "failed to parse request: not a JSON object"}
    request_id = request.get("id")
    op = request.get("op")
    try:
        if op == "shutdown":
            return {"id": request_id, "ok": True, "result": {}, "shutdown": True}
        result = _handler(op)(request)
        return {"id": request_id, "ok": True, "result": result}
    except RequestError as error:
        return {"id": request_id, "ok": False, "error": str(error)}
    except Exception as error:  # a bug in the worker itself: report, keep serving
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        print(traceback.format_exc(), file=sys.stderr, flush=True)
        return {"id": request_id, "ok": False, "error": f"failed to serve {op}: {detail}"}


def prepare_process(argv):
    """CPU mode (`--cpu` or KFORGE_DEVICE=cpu) sets TRITON_INTERPRET=1 before triton is imported
    (triton also reads it when a kernel is decorated). Then torch, triton and numpy are imported
    once here, without initialising CUDA, so that every forked evaluation child starts warm.
    Returns the device its evaluations run on by default."""
    if "--cpu" in argv or os.environ.get("KFORGE_DEVICE") == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    # Kineto finalises CUPTI after each profiling session (the judge's operator recording, the
    # candidate's own-kernel profile) instead of leaving it subscribed, which slowed every later
    # launch in that process: on the H100, KernelBench's own loop after the candidate process's
    # set-up read 0.447 -> 0.513 ms (6-launch softmax) without it, 0.470 -> 0.473 with it
    # (bench/parity/state_probe.py, docs/bench/judge_split.md). TEARDOWN_CUPTI=0 in the worker's
    # environment turns it off. The candidate processes get 0 (confinement.environment): there the
    # teardown's thread would follow every checked call.
    os.environ.setdefault("TEARDOWN_CUPTI", "1")
    from kforge_worker import sandbox, warm_pool
    for clean_up in (sandbox.remove_stale_scratch, warm_pool.remove_stale):
        try:  # what dead workers left behind: never a reason not to start
            clean_up()
        except Exception as error:
            print(f"kforge-worker: could not remove stale folders: {error!r}", file=sys.stderr,
                  flush=True)
    # The first evaluation's candidate process starts first: its start-up (torch, CUDA,
    # warm_up.py: ~7-12 s on an H200 host) then runs beside this process's own imports instead
    # of after them (it never touches this process's CUDA, and needs nothing imported here).
    warm_pool.fill("cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda")
    import numpy  # noqa: F401
    import torch  # noqa: F401
    import triton  # noqa: F401
    import triton.language  # noqa: F401
    for module in ("correctness", "evaluate", "baseline", "task_loader", "timing", "launches",
                   "snapshots", "trust_ops", "exec_monitor", "candidate_proxy"):
        importlib.import_module(f"kforge_worker.{module}")
    if os.environ.get("TRITON_INTERPRET") != "1":
        # the torch.compile baseline's import chain, once here rather than in every child
        # (~3 s per evaluation on the H100 host, bench/bench_harness.py --cprofile)
        import torch._dynamo  # noqa: F401
    else:
        # what torch imports the first time a shape is checked on the meta device (sympy among
        # it): task_loader's shrink trials do that in every child, 1.8 s of CPU per evaluation
        # there (cProfile of a judge, KernelBench level1/1)
        import torch.fx.experimental.symbolic_shapes  # noqa: F401
    from kforge_worker import interpreter_compat
    interpreter_compat.install()
    return "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"


def serve(stdin=None, argv=None):
    from kforge_worker import judge_spare
    stream = _open_protocol_stream()
    device = prepare_process(sys.argv[1:] if argv is None else argv)
    judge_spare.want(device)  # the first evaluation's judge, prepared while the client starts
    judge_spare.fork_pending()
    stdin = stdin or sys.stdin
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        reply = handle_line(line)
        shutdown = reply.pop("shutdown", False)
        stream.write(encode(reply) + "\n")
        stream.flush()
        if shutdown:
            break
        judge_spare.fork_pending()  # between requests, off the client's critical path
    from kforge_worker import warm_pool
    judge_spare.discard()
    warm_pool.discard_all()
    return 0
