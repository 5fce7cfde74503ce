"""Hermetic's emulator for a Python test suite: a real `hermetic serve` on a free port, one namespace per test.

Standard library only (no pytest needed; a pytest fixture can wrap it the same way). The command that runs Hermetic
comes from $HERMETIC_BIN ("node /path/to/hermetic/bin/hermetic.js"), else `npx --no-install hermetic` (Hermetic
installed in a Node project beside the tests). On Windows, name node itself in $HERMETIC_BIN (`node
C:/path/to/hermetic/bin/hermetic.js`, forward slashes): there the server is stopped as one process, and npx would
leave the node it starts running.

The server is stopped when the block ends, and at the latest when Python exits (a test run stopped with Ctrl-C too: the
server runs in a session of its own, so the terminal's Ctrl-C does not reach it).

    with HermeticServer("--time", "1789169800", "--frozen") as server:
        hermes = server.namespace("test-1")         # a whole gateway of its own: runs, clock, faults, journal
        status, body = hermes.request("POST", "/v1/runs", {"input": "hello"})
        hermes.admin("POST", f"/runs/{body['run_id']}/complete", {"output": "Done."})
"""
import atexit
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
        self._reader = None

    def start(self):
        self.url = None
        process = self._process = subprocess.Popen(
            [*self.command, "serve", "--port", "0", *self.args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )
        atexit.register(self.stop)
        found = threading.Event()

        def read():
            # Keeps reading after the banner, so a server that logs never blocks on a full pipe.
            for line in process.stdout:
                self.output.append(line)
                match = _LISTENING.search(line)
                if match and self.url is None:
                    self.url = match.group(1)
                    found.set()
            found.set()

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()
        if not found.wait(self.start_timeout) or self.url is None:
            self.stop()
            raise RuntimeError("hermetic serve did not start:\n" + "".join(self.output))
        return self

    def namespace(self, name):
        """A namespace of its own (letters, digits, `.`, `_`, `-`), created on first use."""
        return Namespace(f"{self.url}/ns/{name}")

    def stop(self):
        """SIGTERM to its process group (serve stops cleanly, exit 0), then SIGKILL if it is still there after 10 s."""
        process, self._process = self._process, None
        if process is None:
            return
        atexit.unregister(self.stop)
        if process.poll() is None and not hasattr(os, "killpg"):
            process.kill()  # Windows: no process group to signal
            process.wait()
        elif process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        # The reader ends at the pipe's end; then the pipe is closed (no ResourceWarning for a test run to print).
        self._reader.join(10)
        process.stdout.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
