"""Hermetic's emulator for a Python test suite: a real `hermetic serve` on a free port, one namespace per test.

Standard library only (no pytest needed; a pytest fixture can wrap it the same way). The command that runs Hermetic
comes from $HERMETIC_BIN ("node /path/to/hermetic/bin/hermetic.js"), else `npx --no-install hermetic` (Hermetic
installed in a Node project beside the tests).

    with HermeticServer("--time", "1789169800", "--frozen") as server:
        hermes = server.namespace("test-1")         # a whole gateway of its own: runs, clock, faults, journal
        status, body = hermes.request("POST", "/v1/runs", {"input": "hello"})
        hermes.admin("POST", f"/runs/{body['run_id']}/complete", {"output": "Done."})
"""
import json
import os
import re
import shlex
import signal
import subprocess
import threading
import urllib.error
import urllib.request

# The first line `hermetic serve` prints: "... emulator listening on http://127.0.0.1:PORT".
_LISTENING = re.compile(r"listening on (http://\S+)")


class Namespace:
    """One namespace of the server (`/ns/<name>`): Hermes's routes under `url`, the control routes under `admin`."""

    def __init__(self, url, headers=None):
        self.url = url
        self.headers = dict(headers or {})

    def request(self, method, path, body=None, headers=None, timeout=30):
        """One HTTP request; returns (status, parsed JSON or text). Error statuses are returned, not raised."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        sent = {"Content-Type": "application/json", **self.headers, **(headers or {})}
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                return res.status, _parsed(res)
        except urllib.error.HTTPError as e:
            with e:
                return e.code, _parsed(e)

    def admin(self, method, path, body=None):
        """A control route (`/__admin/...`) of this namespace; raises on anything but 2xx."""
        status, answer = self.request(method, "/__admin" + path, body)
        if not 200 <= status < 300:
            raise AssertionError(f"{method} /__admin{path} answered {status}: {answer}")
        return answer


def _parsed(res):
    text = res.read().decode("utf-8")
    return json.loads(text) if res.headers.get_content_type() == "application/json" and text else text


class HermeticServer:
    """`hermetic serve --port 0 ARGS...` for the length of a `with` block (or `start()` / `stop()`)."""

    def __init__(self, *args, command=None, start_timeout=60):
        self.args = list(args)
        self.command = command or shlex.split(os.environ.get("HERMETIC_BIN", "npx --no-install hermetic"))
        self.start_timeout = start_timeout
        self.url = None
        self.output = []
        self._process = None

    def start(self):
        self._process = subprocess.Popen(
            [*self.command, "serve", "--port", "0", *self.args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )
        found = threading.Event()

        def read():
            # Keeps reading after the banner, so a server that logs never blocks on a full pipe.
            for line in self._process.stdout:
                self.output.append(line)
                match = _LISTENING.search(line)
                if match and self.url is None:
                    self.url = match.group(1)
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(self.start_timeout) or self.url is None:
            self.stop()
            raise RuntimeError("hermetic serve did not start:\n" + "".join(self.output))
        return self

    def namespace(self, name):
        """A namespace of its own (letters, digits, `.`, `_`, `-`), created on first use."""
        return Namespace(f"{self.url}/ns/{name}")

    def stop(self):
        """SIGTERM (serve stops cleanly, exit 0), then SIGKILL if it is still there after 10 s."""
        if self._process is None or self._process.poll() is not None:
            return
        os.killpg(self._process.pid, signal.SIGTERM)
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
