"""A scripted OpenAI-compatible chat-completions server for the e2e suites (127.0.0.1 only).

It answers POST <base>/chat/completions, streaming (SSE `data:` chunks, usage in the last chunk,
`data: [DONE]`) or not, from a script of canned replies: the first rule whose `match` strings all
occur in the request's last user message (and whose `times` is not used up) gives the reply.
Every request is recorded — the stage heading (`# Stage: …`), the messages, whether it
streamed — so tests can assert on the feedback text kforge sent back.

Rule fields: match (str or list of str), reply (str), times (int, optional), hang (bool: hold
the request open until release() — for killing the client mid-call), usage (dict, optional),
finish_reason (default "stop"), status (HTTP status to answer with, default 200).

Usable as a library (FakeModelServer) or standalone:
    python3 fake_model_server.py script.json   # prints the base URL, serves until killed
"""

import http.server
import json
import re
import sys
import threading
import time

STAGE = re.compile(r"^# Stage: (.*)$", re.MULTILINE)


class FakeModelServer:
    def __init__(self, script=None):
        self._lock = threading.Lock()
        self._script = [dict(rule) for rule in (script or [])]
        self._used = [0] * len(self._script)
        self.requests = []
        self._release = threading.Event()
        self._httpd = None
        self._thread = None

    # -- control ---------------------------------------------------------------------------
    def start(self):
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 (http.server naming)
                server._handle(self)

            def log_message(self, *args):
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self.base_url

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def stop(self):
        self._release.set()
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()

    def release(self):
        """Lets hanging requests go (they then answer with their reply)."""
        self._release.set()

    def set_script(self, script):
        with self._lock:
            self._script = [dict(rule) for rule in script]
            self._used = [0] * len(self._script)
            self._release.clear()

    def stages(self):
        with self._lock:
            return [r["stage"] for r in self.requests]

    def wait_for(self, predicate, timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self._lock:
                if predicate(list(self.requests)):
                    return True
            time.sleep(0.1)
        return False

    # -- serving ---------------------------------------------------------------------------
    def _pick(self, user):
        with self._lock:
            for i, rule in enumerate(self._script):
                match = rule.get("match", [])
                if isinstance(match, str):
                    match = [match]
                if not all(m in user for m in match):
                    continue
                if "times" in rule and self._used[i] >= rule["times"]:
                    continue
                self._used[i] += 1
                return rule
        return None

    def _handle(self, handler):
        length = int(handler.headers.get("Content-Length", "0"))
        try:
            body = json.loads(handler.rfile.read(length))
        except json.JSONDecodeError:
            return self._send(handler, 400, {"error": {"message": "invalid JSON"}})
        if not handler.path.endswith("/chat/completions"):
            return self._send(handler, 404, {"error": {"message": "no such endpoint"}})
        messages = body.get("messages", [])
        user = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
        system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
        heading = STAGE.search(user)
        record = {"stage": heading.group(1) if heading else "", "user": user, "system": system,
                  "stream": bool(body.get("stream")), "model": body.get("model"),
                  "authorization": handler.headers.get("Authorization")}
        with self._lock:
            self.requests.append(record)
        rule = self._pick(user)
        if rule is None:
            return self._send(handler, 500, {"error": {"message": f"no scripted reply for {record['stage']!r}"}})
        if rule.get("hang"):
            self._release.wait()
        if rule.get("status", 200) != 200:
            return self._send(handler, rule["status"], {"error": {"message": "scripted failure"}})
        content = rule.get("reply", "")
        usage = rule.get("usage") or {"prompt_tokens": max(1, len(user) // 4),
                                      "completion_tokens": max(1, len(content) // 4)}
        usage = dict(usage, total_tokens=usage["prompt_tokens"] + usage["completion_tokens"])
        finish = rule.get("finish_reason", "stop")
        model = body.get("model", "fake")
        try:
            if body.get("stream"):
                self._stream(handler, model, content, usage, finish)
            else:
                self._send(handler, 200, {
                    "id": "chatcmpl-fake", "object": "chat.completion", "created": 1763700000,
                    "model": model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                 "logprobs": None, "finish_reason": finish}],
                    "usage": usage})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away (killed mid-call)

    @staticmethod
    def _send(handler, status, payload):
        data = json.dumps(payload).encode()
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    @staticmethod
    def _stream(handler, model, content, usage, finish):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1763700000,
                "model": model}

        def event(payload):
            handler.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
            handler.wfile.flush()

        event(dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""},
                                   "finish_reason": None}]))
        step = max(1, len(content) // 4)
        for start in range(0, len(content), step):
            event(dict(base, choices=[{"index": 0, "delta": {"content": content[start:start + step]},
                                       "finish_reason": None}]))
        event(dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}]))
        event(dict(base, choices=[], usage=usage))
        handler.wfile.write(b"data: [DONE]\n\n")
        handler.wfile.flush()
        handler.close_connection = True


def main():
    script = json.load(open(sys.argv[1])) if len(sys.argv) > 1 else []
    server = FakeModelServer(script)
    print(server.start(), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
