"""Black-box: `kforge doctor` against a local OpenAI-compatible server (127.0.0.1 only)."""

import http.server
import json
import os
import socket
import subprocess
import threading

import pytest

KFORGE = os.environ.get("KFORGE_BIN")
if not KFORGE or not os.path.exists(KFORGE):
    pytest.exit("KFORGE_BIN not set: build kforge first", returncode=125)

SECRET = "sk-e2e-doctor-0123456789"


class ChatHandler(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_POST(self):  # noqa: N802 (http.server naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ChatHandler.seen.append((self.path, self.headers.get("Authorization"), body))
        reply = {
            "id": "chatcmpl-e2e",
            "object": "chat.completion",
            "created": 1741569952,
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                         "logprobs": None, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
        }
        if body.get("stream"):
            chunk = {"id": "chatcmpl-e2e", "object": "chat.completion.chunk",
                     "created": 1741569952, "model": body["model"],
                     "choices": [{"index": 0, "delta": {"content": "ok"},
                                  "finish_reason": "stop"}]}
            data = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
            content_type = "text/event-stream"
        else:
            data = json.dumps(reply).encode()
            content_type = "application/json"
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), ChatHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    ChatHandler.seen = []
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


def doctor(*args, key=SECRET):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["HOME"] = "/nonexistent"
    env.pop("KFORGE_CONFIG", None)
    env.pop("XDG_CONFIG_HOME", None)
    if key:
        env["KFORGE_API_KEY"] = key
    return subprocess.run([KFORGE, "doctor", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_doctor_reports_the_endpoint_and_never_the_key(server):
    result = doctor("--provider", "vllm", "--model", "tiny-model", "--base-url", server, "--json")
    report = json.loads(result.stdout)
    assert report["endpoint_ok"] is True, result.stdout + result.stderr
    assert report["endpoint"] == server + "/chat/completions"
    assert report["model"] == "tiny-model"
    assert report["key_source"] == "KFORGE_API_KEY"
    assert report["reply"] == "ok"
    assert SECRET not in result.stdout + result.stderr
    path, authorization, body = ChatHandler.seen[0]
    assert path == "/v1/chat/completions"
    assert authorization == "Bearer " + SECRET
    assert body["max_tokens"] == 8
    # The worker may be unavailable here (no torch): only then is the exit code 3.
    assert result.returncode == (0 if report["worker"]["ok"] else 3)


def test_doctor_text_output_and_no_stream(server):
    result = doctor("--provider", "vllm", "--model", "tiny-model", "--base-url", server,
                    "--no-stream")
    assert "endpoint   " + server + "/chat/completions" in result.stdout
    assert "key        from KFORGE_API_KEY" in result.stdout
    assert "answer     ok in" in result.stdout
    assert ChatHandler.seen[0][2]["stream"] is False


def test_doctor_fails_when_the_endpoint_does_not_answer():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = doctor("--provider", "vllm", "--model", "m", "--base-url",
                    f"http://127.0.0.1:{port}/v1", "--json")
    report = json.loads(result.stdout)
    assert result.returncode == 3
    assert report["endpoint_ok"] is False
    assert "connection failed" in report["endpoint_error"]


def test_doctor_names_the_missing_key_variable():
    result = doctor("--provider", "deepseek", "--json", key=None)
    report = json.loads(result.stdout)
    assert result.returncode == 3
    assert report["key_source"] is None
    assert report["endpoint_error"] == ("failed to create provider deepseek: no API key: set "
                                        "DEEPSEEK_API_KEY or KFORGE_API_KEY")
