"""The harness's own first steps, run once per candidate process before any candidate code
(candidate_host.main, while the process waits in the warm pool).

The libraries the harness drives start threads the first time each step runs, and on a GPU that
first time used to fall inside a candidate's `load` or first checked call: on the H100 (session
13) a legitimate candidate started 18 threads after its import (CUPTI's, the CUDA driver's,
torch's), among which a thread of the candidate's own could not be told apart, so the judge only
counted threads there. Running each step of an evaluation once on a model of ours first (the
profilers' first sessions, a Triton kernel compiled cold and launched, a checked call under the
guard's recorders, a timing phase under the timed calls' recorder) leaves nothing for the
libraries to start later, given that Kineto does not finalise CUPTI after each session
(TEARDOWN_CUPTI=0 in the candidate's environment, confinement.environment): the judge refuses
every thread after the import on the GPU as on the CPU (exec_monitor.Monitor.candidate_code).
bench/thread_probe.py prints what each step starts."""

import os
import shutil
import tempfile

import torch
import triton
import triton.language as tl


@triton.jit
def _plus_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)


class WarmUpModel(torch.nn.Module):
    """What a candidate does: a Triton launch of its own and a PyTorch operator beside it."""

    def forward(self, x):
        out = torch.empty_like(x)
        _plus_one[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
        return torch.relu(out)


def _compile_cold(model, x):
    """The first launch compiles in a folder of its own, so the compiler really runs (LLVM's
    handlers, the compiler's threads) whatever the candidate's build cache holds."""
    folder = tempfile.mkdtemp(prefix=".kforge-warm-up-", dir=os.getcwd())
    before = os.environ.get("TRITON_CACHE_DIR")
    os.environ["TRITON_CACHE_DIR"] = folder
    try:
        model(x)
        torch.cuda.synchronize()
    finally:
        if before is None:
            os.environ.pop("TRITON_CACHE_DIR", None)
        else:
            os.environ["TRITON_CACHE_DIR"] = before
        shutil.rmtree(folder, ignore_errors=True)


def _recorders():
    """The operator recorders of checked calls (with shapes) and of timed calls (names only)."""
    from kforge_worker.trust_ops import AtenRecorder, NameRecorder
    for recorder in (AtenRecorder(shapes=True), AtenRecorder(shapes=False), NameRecorder()):
        recorder.start()
        torch.zeros(1, device="cuda").add_(1)
        torch.cuda.synchronize()
        recorder.stop()
        recorder.read()


def _checked_call(model, x):
    from kforge_worker import trust
    with torch.no_grad():
        trust.Guard(None, {}).call_candidate(model, [x])
    torch.cuda.synchronize()


def _timing_phase(model, x):
    """A calibration-like timing phase: the timed calls' recorder open over event-timed trials
    with the L2 flush, closed afterwards (the close is where Kineto started its thread)."""
    from kforge_worker import timing
    from kforge_worker.candidate_host import TimedCallWatch
    watch = TimedCallWatch(None)
    watch.start()
    try:
        flush = timing.l2_flush_buffer(torch.cuda.current_device())
        timing.time_block([lambda: model(x)] * 3, flush, warmup=2,
                          after=lambda index, outputs: watch.after_trial(), seed=0)
    finally:
        watch.close()


def _first_recorder_session():
    """The operator recorder's first session (~5 s on the H100 in session 19, bench/guard_cost.py;
    0.03-0.08 s on an H200 in session 27, once nothing imported torch._dynamo behind it)."""
    from kforge_worker.trust_ops import AtenRecorder
    with AtenRecorder():
        torch.empty(1)


def _first_kineto_session():
    """Kineto's first session (the GPU profile request's kind, launches.kineto_session): what
    it starts the first time falls here, not after the candidate's import."""
    from kforge_worker.launches import kineto_session
    with kineto_session(cuda=False):
        torch.empty(1)


def steps(device):
    """(name, function) for every step, in an evaluation's order; run twice by the probe."""
    first = [("first recorder session", _first_recorder_session)]
    if device != "cuda":
        # No Kineto session on the CPU: only the GPU's profile request starts one (evaluate.
        # profile, facts_runtime), so the ~2 s of imports its first session costs (a fifth of a
        # CPU evaluation) would buy nothing; a candidate that starts one itself is charged with
        # what it registers, as it should be.
        return first
    first.append(("first Kineto session", _first_kineto_session))
    model = WarmUpModel()
    x = torch.randn(4096, device="cuda")
    return first + [
        ("intra-op pool", lambda: torch.ones(1 << 22).sum()),
        ("operator recorders", _recorders),
        ("first compile", lambda: _compile_cold(model, x)),
        ("checked call", lambda: _checked_call(model, x)),
        ("timing phase", lambda: _timing_phase(model, x)),
        ("checked call after timing", lambda: _checked_call(model, x)),
        ("empty cache", torch.cuda.empty_cache),
    ]


def warm_up(device):
    """Every step once; returns {step name: seconds} (the process's start-up, reported with the
    seal: where a warm process's seconds go)."""
    import time
    took = {}
    for name, step in steps(device):
        began = time.monotonic()
        step()
        took[name] = round(time.monotonic() - began, 3)
    return took
