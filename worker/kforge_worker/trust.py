"""Trust: the defences that stop a candidate from faking a result or harming the harness.

CONTRACT between evaluate.py/sandbox.py (harness) and this module (defences). The harness calls,
in this order, inside the sandboxed child:

    child_setup(scratch_dir)                 # once, after torch/triton import, before the candidate
    guard = Guard(task, options)             # options: dict of the evaluate request
    guard.before_candidate_import()
    module = <import candidate>
    guard.after_candidate_import(module, reference_cls)
    model = ModelNew(*init_inputs)
    guard.check_model(model, reference_model)
    outputs = guard.call_candidate(model, inputs)   # every correctness forward goes through this
    ...timing (plain calls, unguarded, so timings are not perturbed)...
    guard.after_timing()
    guard.violations -> list[str]            # non-empty = status "rejected", reasons = violations

Until the defences land, every method is a pass-through."""


def child_setup(scratch_dir):
    """Process-wide limits for the sandboxed child (audit policy, rlimits). No-op for now."""


class Guard:
    def __init__(self, task, options):
        self.task = task
        self.options = options
        self.violations = []

    def before_candidate_import(self):
        pass

    def after_candidate_import(self, module, reference_cls):
        pass

    def check_model(self, model, reference_model):
        pass

    def call_candidate(self, model, inputs):
        return model(*inputs)

    def after_timing(self):
        pass
