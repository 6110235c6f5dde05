"""Fills the measured fields of the RNN library entries' meta.json from a bench JSON written by
bench/bench_rnn_library.py --json (never by hand):

    python3 library/rnn_src/fill_meta.py docs/bench/rnn_library_h100_20261121b_part*.json

`verified_shapes` lists every shape the run checked with both verdicts; `measurements` the
timings: the default engine's (the CUDA cluster kernel on Hopper), plus any Triton row from the
run's engine sweep, marked as not the default."""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = os.path.dirname(HERE)


def verdicts(pair):
    return {"kernelbench": pair[0] == "pass", "calibrated": pair[1] == "pass"}


def main(path):
    with open(path, encoding="utf-8") as handle:
        run = json.load(handle)
    header = run["header"]
    device = header.split(";")[0].replace("device: ", "")
    date = header.rsplit(";", 1)[1].strip()
    source = os.path.relpath(os.path.abspath(path), os.path.dirname(LIBRARY))
    for task, record in run["tasks"].items():
        meta_path = os.path.join(LIBRARY, record["entry"], "meta.json")
        with open(meta_path, encoding="utf-8") as handle:
            meta = json.load(handle)
        shapes = [{"shape": "task", **verdicts(record["verdict"]),
                   "max_abs_err_fp64": record["max_abs_err_fp64"],
                   "reference_err_fp64": record["reference_err_fp64"]}]
        shapes += [{"shape": other["shape"], **verdicts(other["verdict"]),
                    "max_abs_err_fp64": other["max_abs_err_fp64"]}
                   for other in record["other_shapes"]]
        med = record["median_ms"]
        engine = record["resources"].get("engine", "triton")
        rows = [(engine, med["library"], True)]
        for row in record.get("sweep", []):
            if "ms" in row and row.get("engine") == "triton" and len(row) <= 7:
                rows.append(("triton", row["ms"], False))
        measurements = []
        for name, ms, default in rows:
            measurements.append({
                "task": task, "device": device, "date": date, "engine": name, "default": default,
                "library_ms": round(ms, 3),
                "eager_ms": round(med["eager"], 3),
                "compile_ms": round(med["compile"], 3) if "compile" in med else None,
                "cuda_graph_ms": round(med["cuda_graph"], 3) if "cuda_graph" in med else None,
                "speedup_vs_eager": round(med["eager"] / ms, 2),
                "speedup_vs_compile": round(med["compile"] / ms, 2) if "compile" in med else None,
                "speedup_vs_cuda_graph":
                    round(med["cuda_graph"] / ms, 2) if "cuda_graph" in med else None,
                "source": source, "versions": header,
            })
        meta["verified_shapes"] = shapes
        meta["measurements"] = measurements
        meta.pop("note", None)
        if not any(m["default"] for m in measurements):
            meta["note"] = ("the default engine was not timed for this task in this run; only "
                            "the rows in measurements were")
        with open(meta_path, "w", encoding="utf-8") as handle:
            json.dump(meta, handle, indent=2)
            handle.write("\n")
        print(f"{meta_path}: {[(m['engine'], m['speedup_vs_cuda_graph']) for m in measurements]}")


if __name__ == "__main__":
    for json_path in sys.argv[1:]:
        main(json_path)
