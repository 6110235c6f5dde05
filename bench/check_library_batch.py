"""A library kernel against its task's reference at several batch sizes, in one process (GPU):
max |difference| per batch size, to tell a kernel bug at a batch size from a harness problem.

    python3 bench/check_library_batch.py tasks/39_GRU.py library/gru_out/candidate.py 10 11 9
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "worker"))
from kforge_worker.evaluate import to_float64  # noqa: E402
from kforge_worker.seeding import seed_all  # noqa: E402
from kforge_worker.task_loader import load_candidate, load_task  # noqa: E402


def main(task_path, candidate_path, *batches):
    for batch in map(int, batches):
        task = load_task(task_path, overrides={"batch_size": batch})
        seed_all(1000)
        init = task.init_inputs()
        seed_all(1000)
        reference = task.model_class(*init).cuda().eval()
        module, model_new = load_candidate(candidate_path, candidate_path)
        for name, value in task.shapes.items():
            setattr(module, name, value)
        seed_all(1000)
        candidate = model_new(*init).cuda().eval()
        seed_all(7)
        inputs = [value.cuda() for value in task.inputs()]
        with torch.no_grad():
            want = to_float64(reference, "cuda")(*[v.double() for v in inputs])
            got = candidate(*inputs)
        want = want[0] if isinstance(want, tuple) else want
        got = got[0] if isinstance(got, tuple) else got
        error = (got.double() - want).abs()
        where = tuple(int(i) for i in torch.nonzero(error == error.max())[0])
        print(f"batch {batch}: max |err| vs fp64 {float(error.max()):.3g} at {where}, "
              f"elements > 1e-3: {int((error > 1e-3).sum())}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
