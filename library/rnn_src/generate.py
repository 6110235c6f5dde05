"""Writes the self-contained RNN library candidates (library/<name>/candidate.py) from
rnn_common.py plus a per-signature ModelNew, and their meta.json (signature and tasks; the
measured fields are kept from the existing meta.json and filled by fill_meta.py from bench output).

The harness loads a candidate from one file copied into a scratch folder, so every candidate
carries the shared kernel source verbatim. The candidates are build output, never committed: the
build (CMakeLists.txt, target kforge_library) writes them whenever rnn_common.py, rnn_cluster.cu
or this script changes, and installs them with the rest of library/.
    python3 library/rnn_src/generate.py                    candidates and meta.json
    python3 library/rnn_src/generate.py --candidates-only  candidates (what the build runs)
    python3 library/rnn_src/generate.py --list             the candidate paths, one per line
    python3 library/rnn_src/generate.py --check            exit 1 when one is missing or stale
    ... --out DIR                                          the library folder to write into
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = os.path.dirname(HERE)

# name, task, family, bidirectional, returns, batch_first (as the task builds it), has_fc
ENTRIES = [
    ("lstm_fc", "35_LSTM", "lstm", False, "fc_last", True, True),
    ("lstm_hn", "36_LSTMHn", "lstm", False, "h_n", True, True),
    ("lstm_cn", "37_LSTMCn", "lstm", False, "c_n", True, True),
    ("lstm_bi_fc", "38_LSTMBidirectional", "lstm", True, "fc_last", True, True),
    ("gru_out", "39_GRU", "gru", False, "output", False, False),
    ("gru_hn", "40_GRUHidden", "gru", False, "h_n", False, False),
    ("gru_bi_out", "41_GRUBidirectional", "gru", True, "output", False, False),
    ("gru_bi_hn", "42_GRUBidirectionalHidden", "gru", True, "h_n", False, False),
]

TASK_CONSTANT = '''

def _task_constant(name, default):
    """The task draws h0 in __init__ with its module-level `name` (batch_size), which the harness
    may override: the harness sets the task's shape constants as globals of this module (the
    task module itself is never loaded in the candidate's process); else the file's default."""
    return globals().get(name, default)
'''

LSTM_MODEL = '''

class ModelNew(nn.Module):
    """{title}.

    Built as KernelBench's Model builds itself: the nn.LSTM, then the nn.Linear head, and no
    other random draw, so the same seed gives the same weights (same parameter names and
    order). The nn.LSTM only holds the parameters; the forward never calls it."""

    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True,
                            dropout=dropout, bidirectional={bidirectional})
        self.fc = nn.Linear(hidden_size * {dirs}, output_size)
        self._packed = _PackedWeights()

    def forward(self, x, h0=None, c0=None):
        # Initial states the caller does not pass are drawn here, h0 then c0, with the same
        # calls as KernelBench's 35_LSTM forward (the harness seeds the RNG before every call,
        # identically for the reference and the candidate).
        if h0 is None:
            h0 = torch.randn(self.num_layers * {dirs}, x.size(0), self.hidden_size, device=x.device)
        if c0 is None:
            c0 = torch.randn(self.num_layers * {dirs}, x.size(0), self.hidden_size, device=x.device)
        out, h_n, c_n = rnn_forward(self.lstm, self._packed, x, h0, c0, lstm=True)
{ret}
'''

GRU_MODEL = '''

class ModelNew(nn.Module):
    """{title}.

    The nn.GRU only holds the parameters (same names and order as the task's Model); the
    forward never calls it."""

    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional={bidirectional})
        # same RNG draw, after the GRU's parameters, as the task's Model.__init__
        self.h0 = torch.randn((num_layers * {dirs}, _task_constant("batch_size", 10), hidden_size))
        self._packed = _PackedWeights()

    def forward(self, x, h0=None):
        self.h0 = self.h0.to(x.device)
        h0 = self.h0 if h0 is None else h0
        out, h_n, _ = rnn_forward(self.gru, self._packed, x, h0, None, lstm=False)
{ret}
'''

RETURNS = {
    "fc_last": "        # the linear head on the last time step, as the task's fc(out[:, -1, :])\n"
               "        return torch.addmm(self.fc.bias, out[:, -1, :], self.fc.weight.t())",
    "h_n": "        return h_n",
    "c_n": "        return c_n",
    "output": "        return out.contiguous()",
}


def candidate_source(entry, common, cuda):
    name, task, family, bi, returns, batch_first, has_fc = entry
    kind = "bidirectional " if bi else ""
    title = f"{task}: {kind}{family.upper()} stack, persistent cluster kernel (Triton on CPU)"
    template = LSTM_MODEL if family == "lstm" else GRU_MODEL
    model = template.format(title=title, dirs=2 if bi else 1, bidirectional=bi,
                            ret=RETURNS[returns])
    header = (f'"""kforge library kernel {name} ({task}). Generated by '
              f'library/rnn_src/generate.py\nfrom rnn_common.py: edit those, not this file."""\n\n')
    cuda_block = ('\n\n# The CUDA cluster kernel (library/rnn_src/rnn_cluster.cu), built by load_inline on '
                  'first use.\nRNN_CLUSTER_CU = r"""' + cuda + '"""\n')
    return header + common.rstrip() + "\n" + cuda_block + TASK_CONSTANT + model


def meta(entry, old):
    name, task, family, bi, returns, batch_first, has_fc = entry
    data = {
        "name": name,
        "source": "candidate.py",
        "language": "cuda+triton",
        "description": (
            f"{'bidirectional ' if bi else ''}{family.upper()} stack: a persistent CUDA kernel, one "
            f"thread-block cluster of 16 CTAs per "
            + ("(layer, direction, group of 4 batch rows), one launch per layer"
               if bi else "layer, all layers as one wavefront launch")
            + "; weights in registers, h[t] exchanged through distributed shared memory on "
              "mbarriers, inputs streamed by TMA; the Triton kernel on CPU and where the cluster "
              "kernel does not fit"),
        "tasks": [task],
        "signature": {"type": family, "bidirectional": bi, "returns": returns,
                      "batch_first": batch_first, "has_fc": has_fc},
        "verified_shapes": old.get("verified_shapes", []),
        "measurements": old.get("measurements", []),
    }
    return data


def sources():
    """rnn_common.py and rnn_cluster.cu, as the candidates embed them."""
    with open(os.path.join(HERE, "rnn_common.py"), encoding="utf-8") as handle:
        common = handle.read()
    with open(os.path.join(HERE, "rnn_cluster.cu"), encoding="utf-8") as handle:
        cuda = handle.read()
    assert '"""' not in cuda
    return common, cuda


def candidate_path(entry, library=LIBRARY):
    return os.path.join(library, entry[0], "candidate.py")


def stale_candidates(library=LIBRARY):
    """The candidate paths that are missing or differ from what the sources generate."""
    common, cuda = sources()
    stale = []
    for entry in ENTRIES:
        path = candidate_path(entry, library)
        try:
            with open(path, encoding="utf-8") as handle:
                current = handle.read() == candidate_source(entry, common, cuda)
        except FileNotFoundError:
            current = False
        if not current:
            stale.append(path)
    return stale


def write_candidates(library=LIBRARY):
    """Writes every candidate (the build's outputs: each is rewritten, so it is newer than the
    sources)."""
    common, cuda = sources()
    for entry in ENTRIES:
        path = candidate_path(entry, library)
        text = candidate_source(entry, common, cuda)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        print(f"wrote {path}")


def write_meta(library=LIBRARY):
    for entry in ENTRIES:
        meta_path = os.path.join(library, entry[0], "meta.json")
        old = {}
        if os.path.exists(meta_path):
            with open(meta_path, encoding="utf-8") as handle:
                old = json.load(handle)
        with open(meta_path, "w", encoding="utf-8") as handle:
            json.dump(meta(entry, old), handle, indent=2)
            handle.write("\n")
        print(f"wrote {meta_path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=LIBRARY, help="library folder to write into")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--candidates-only", action="store_true", help="do not rewrite meta.json")
    mode.add_argument("--list", action="store_true", help="print the candidate paths")
    mode.add_argument("--check", action="store_true", help="exit 1 when a candidate is stale")
    args = parser.parse_args(argv)
    library = os.path.abspath(args.out)
    if args.list:
        for entry in ENTRIES:
            print(candidate_path(entry, library))
        return 0
    if args.check:
        stale = stale_candidates(library)
        for path in stale:
            print(f"stale or missing: {path} (build, or run library/rnn_src/generate.py)",
                  file=sys.stderr)
        return 1 if stale else 0
    write_candidates(library)
    if not args.candidates_only:
        write_meta(library)
    return 0


if __name__ == "__main__":
    sys.exit(main())
