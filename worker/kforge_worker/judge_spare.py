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

Given the previous evaluate request, the spare also does the judge's own part of the next one
on the bet that it is for the same task (a pipeline's next candidate): the task, the reference,
its operator policy and the checked sets' references, each set from a fresh OS seed
(evaluate.prefetch). A request for other work (same_work: another task file or its contents,
shapes, settings) finds the spare discarded: a judge holds one task module only.

A client that asks for its next evaluation the moment a reply arrives (a suite eval) meets the
spare still preparing: it gains only what had finished by then. A pipeline, whose next
candidate takes a model's reply to arrive, meets it ready."""

import hashlib
import os

from kforge_worker import sandbox, warm_pool

_spare = None    # (sandbox.Child, device, the WarmHost it adopted, predicted request, digest)
_wanted = None   # (device, the request it follows) of the spare to fork after this reply

# Request fields that do not change the judge's own work before the candidate: a prefetched
# judge serves a request that differs from its prediction in these only
OTHER_CANDIDATE = ("id", "candidate_path", "timeout_s", "host_memory_gb")


def want(device, request=None):
    """After this reply, fork a spare judge for `device`, prefetched for `request`'s task when
    given (serve calls fork_pending)."""
    global _wanted
    _wanted = (device, request)


def same_work(predicted, request):
    """Whether `request` asks for the judge's own work `predicted` was prefetched for."""
    strip = lambda r: {k: v for k, v in r.items() if k not in OTHER_CANDIDATE}  # noqa: E731
    return strip(predicted) == strip(request)


def _task_digest(request):
    """The task file's bytes as the worker sees them (a prefetch of an edited file is stale)."""
    try:
        with open(sandbox.resolve(request, "task_path"), "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except (OSError, KeyError, TypeError):
        return None


def fork_pending():
    """In the worker, between requests: the spare judge asked for, if evaluations are still
    expected and none is waiting already."""
    global _spare, _wanted
    wanted, _wanted = _wanted, None
    if wanted is None or _spare is not None or not warm_pool.more_expected() or \
            os.environ.get("KFORGE_JUDGE_SPARE") == "0":
        return
    device, request = wanted
    # as run_request hands it over: paths are resolved against the worker's cwd
    predicted = {**request, "_cwd": os.getcwd()} if request else None
    digest = _task_digest(predicted) if predicted else None
    if predicted and digest is None:
        predicted = None
    from kforge_worker import evaluate
    host = warm_pool.peek(device)
    # the forked child reads warm_pool.adopted, as a judge forked at the request does
    warm_pool.adopted = host
    try:
        child = sandbox.fork_prepared(
            evaluate._evaluate_child,
            lambda waiting: evaluate.prepare_judge(device, predicted, waiting),
            keep_fds=host.fds() if host else ())
    finally:
        warm_pool.adopted = None
    _spare = (child, device, host, predicted, digest)


def take(device, host, request=None):
    """The waiting spare if it was prepared for this device and this warm process, else None (a
    spare that does not fit, or died while it waited, is discarded). `prefetch_stale` on it
    says whether what it prefetched is for other work than this request's."""
    global _spare
    if _spare is None:
        return None
    child, spare_device, spare_host, predicted, digest = _spare
    _spare = None
    try:
        done, _ = os.waitpid(child.pid, os.WNOHANG)
    except ChildProcessError:
        done = True
    fits = not done and spare_device == device and spare_host is host
    if not fits:
        sandbox.discard(child)
        return None
    # Prefetched for other work (another task, as in a suite, or the task file edited since):
    # still a prepared judge (CUDA, cuBLAS, cuDNN), which drops what it prefetched
    # (evaluate._evaluate_child)
    actual = {**(request or {}), "_cwd": os.getcwd()}
    child.prefetch_stale = predicted is not None and not (
        same_work(predicted, actual) and _task_digest(actual) == digest)
    return child


def discard():
    """The waiting spare, if any (the worker is shutting down)."""
    global _spare
    if _spare is not None:
        sandbox.discard(_spare[0])
        _spare = None
