"""Black-box: the suite report (report.html) opened in headless Chromium renders its charts.

A suite journal with synthetic GPU timings (written here; the harness never times on the CPU) is
turned into reports by `kforge suite report`, and Chromium draws the page: the DOM it built holds
the three charts (the fast_p curve with one line per baseline, tasks by status, speed-up per task),
and the screenshot holds the pixels of their colours. KFORGE_UPDATE_DOCS=1 copies the screenshot
to docs/suite_report.png. Exit 125 (skipped) without chromium."""

import json
import os
import pathlib
import shutil
import struct
import subprocess
import zlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
KFORGE = os.environ.get("KFORGE_BIN")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which(
    "google-chrome")
if not KFORGE or not os.path.exists(KFORGE):
    pytest.exit("KFORGE_BIN not set: build kforge first", returncode=125)
if not CHROMIUM:
    pytest.exit("no chromium: apt-get install -y chromium (scripts/setup.sh does)", returncode=125)


def synthetic_suite(folder):
    """16 tasks: 11 correct with timings, a wrong one, a rejected one, three without a candidate."""
    ids = [f"{n}_Task{n}" for n in range(1, 17)]
    config = {"mode": "eval", "task_ids": ids, "task_paths": [f"/kb/level1/{i}.py" for i in ids],
              "candidates_dir": "/synthetic", "device": "cuda", "shrink": False, "shards": 1,
              "gpus": [0, 1]}
    lines = [{"kind": "config", "config": config}]
    speedups = [0.4, 0.8, 0.95, 1.1, 1.3, 1.6, 1.8, 2.2, 2.6, 3.5, 5.0]
    for n, task_id in enumerate(ids):
        row = {"id": task_id, "task": config["task_paths"][n], "status": "missing",
               "gpu": n % 2}
        if n < len(speedups):
            eager = 1.0 + n * 0.3
            row.update(status="ok", pass_calibrated=True, pass_kernelbench=True,
                       generalizes="yes", max_abs_err=1e-6, eager_ms=eager,
                       best_ms=eager / speedups[n], compile_ms=eager * 0.8,
                       cuda_graph_ms=eager * 0.6)
        elif n == 11:
            row.update(status="wrong_output", error_head="output 0 differs at [3]")
        elif n == 12:
            row.update(status="rejected", reasons=["called the operator it replaces: aten::mm"],
                       error_head="called the operator it replaces: aten::mm")
        lines.append({"kind": "task", "result": row})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "journal.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB/RGBA non-interlaced PNG."""
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def colour_counts(path, colours):
    width, height, channels, rows = png_pixels(path)
    wanted = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)): c for c in colours}
    counts = dict.fromkeys(colours, 0)
    for line in rows:
        for x in range(0, width * channels, channels):
            hit = wanted.get((line[x], line[x + 1], line[x + 2]))
            if hit:
                counts[hit] += 1
    return counts


def test_report_renders_its_charts_in_chromium(tmp_path):
    suite_dir = tmp_path / "suite"
    synthetic_suite(suite_dir)
    result = subprocess.run([KFORGE, "suite", "report", str(suite_dir)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    report = suite_dir / "report.html"
    html = report.read_text()
    assert "<script" not in html and "<link" not in html  # self-contained, no CDN

    chrome = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(chrome + ["--dump-dom", report.as_uri()], capture_output=True,
                         text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert dom.stdout.count("<svg") == 3, dom.stdout[:2000]
    assert dom.stdout.count('<polyline class="series"') == 3  # eager, torch.compile, CUDA graph

    shot = tmp_path / "report.png"
    subprocess.run(chrome + [f"--screenshot={shot}", "--window-size=1280,1500", report.as_uri()],
                   capture_output=True, text=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000
    # Chart colours as Chromium painted them: the three fast_p lines and the status bars.
    counts = colour_counts(shot, ["#1f77b4", "#d62728", "#2ca02c", "#33aa77", "#ee9933"])
    assert all(n > 50 for n in counts.values()), counts
    if os.environ.get("KFORGE_UPDATE_DOCS") == "1":
        shutil.copy(shot, REPO / "docs" / "suite_report.png")
