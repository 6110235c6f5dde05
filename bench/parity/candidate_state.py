"""What the parity benches share (timing_parity.py, parity/state_probe.py, parity/host_probe.py):
loading a task or candidate file, building the candidate's model and the task's inputs on a
device with the seeds every bench uses, and putting a model under the candidate process's in-process
Guard (its snapshot, a policy, three guarded calls) as candidate_host does, so that a loop timed
afterwards runs in that state. Needs the worker on sys.path."""
import importlib.util


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def model_and_inputs(task, candidate, device):
    """ModelNew from the loaded `candidate` module with the loaded `task`'s init inputs (seed
    1000), and one input set (seed 1), both on `device`."""
    import torch
    torch.manual_seed(1000)
    model = candidate.ModelNew(*task.get_init_inputs()).to(device).eval()
    torch.manual_seed(1)
    inputs = [v.to(device) if isinstance(v, torch.Tensor) else v for v in task.get_inputs()]
    return model, inputs


def guard_as_candidate(module, model, inputs):
    """The Guard's set-up around `model` (from candidate `module`) and three guarded calls;
    returns the last call's outputs."""
    import torch
    from kforge_worker import trust
    from kforge_worker.trust_ops import Policy
    guard = trust.Guard(None, {"allow_pytorch_only": True})
    guard.before_candidate_import()
    guard.after_candidate_import(module, type("Model", (), {}))
    guard.use_policy(Policy([], [], None))
    guard.check_model(model, None)
    with torch.no_grad():
        for _ in range(3):
            outputs = guard.call_candidate(model, inputs)
    return outputs
