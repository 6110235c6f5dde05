"""The next evaluation's judge, forked and prepared while the worker waits for its request.

Every evaluation gets a judge of its own, a fresh fork of the worker: nothing of one evaluation
reaches the next. Its first GPU work is expensive, though (CUDA's context, cuBLAS's and cuDNN's
libraries and handles, the first launch of the judge's own Triton kernel: bench/diag/
judge_cold_start.py), and it used to sit on every evaluation's critical path. The worker now
forks that judge as soon as it has answered a request (and once at start), lets it do that
work, and hands it the next evaluate request: the same fresh process, started earlier.

A spare is forked for one device and adopts the warm candidate process the next evaluation
would take (warm_pool.peek): it inherits that process's descriptors, as a judge forked at the
request does. If the request wants another device, the warm process it adopted is gone, or the
spare died while it waited, the spare is discarded and the judge forked at the request, as
before. Only while evaluations are expected (warm_pool.more_expected): a worker that serves one
`kforge eval` holds no spare GPU context afterwards. KFORGE_JUDGE_SPARE=0 turns it off (the
bench's comparison, bench/bench_harness.py --no-spare).

A client that asks for its next evaluation the moment a reply arrives (a suite eval) meets the
spare still preparing: it gains only what had finished by then. A pipeline, whose next
candidate takes a model's reply to arrive, meets it ready."""

import os

from kforge_worker import sandbox, warm_pool

_spare = None    # (sandbox.Child, device, the WarmHost it adopted)
_wanted = None   # the device of the spare to fork once the current reply is out


def want(device):
    """After this request's reply, fork a spare judge for `device` (serve calls fork_pending)."""
    global _wanted
    _wanted = device


def fork_pending():
    """In the worker, between requests: the spare judge asked for, if evaluations are still
    expected and none is waiting already."""
    global _spare, _wanted
    device, _wanted = _wanted, None
    if device is None or _spare is not None or not warm_pool.more_expected() or \
            os.environ.get("KFORGE_JUDGE_SPARE") == "0":
        return
    from kforge_worker import evaluate
    host = warm_pool.peek(device)
    # the forked child reads warm_pool.adopted, as a judge forked at the request does
    warm_pool.adopted = host
    try:
        child = sandbox.fork_prepared(evaluate._evaluate_child,
                                      lambda: evaluate.prepare_judge(device),
                                      keep_fds=host.fds() if host else ())
    finally:
        warm_pool.adopted = None
    _spare = (child, device, host)


def take(device, host):
    """The waiting spare if it was prepared for this device and this warm process, else None
    (a spare that does not fit, or died while it waited, is discarded)."""
    global _spare
    if _spare is None:
        return None
    child, spare_device, spare_host = _spare
    _spare = None
    try:
        done, _ = os.waitpid(child.pid, os.WNOHANG)
    except ChildProcessError:
        done = True
    if done or spare_device != device or spare_host is not host:
        sandbox.discard(child)
        return None
    return child


def discard():
    """The waiting spare, if any (the worker is shutting down)."""
    global _spare
    if _spare is not None:
        sandbox.discard(_spare[0])
        _spare = None
