"""Testing a Python client of Hermes's /v1/runs API against Hermetic's emulator, with the standard library alone.

    HERMETIC_BIN="node /path/to/hermetic/bin/hermetic.js" python3 -m unittest -v test_hermes_client.py

`HermesRunsClient` stands for your own client, the code under test. Each test gets a namespace of its own on one
server, so tests never see each other's runs; the fake agent is played through the control routes (`/__admin`).
"""
import http.client
import json
import time
import unittest
import urllib.error
import urllib.request
import uuid

from hermetic_server import HermeticServer

API_KEY = "test-key-0123456789abcdef"
TERMINAL = {"completed", "failed", "cancelled"}


class HermesRunsClient:
    """A small client of Hermes's peer-run API: submit (retried with one Idempotency-Key), poll, events, approve."""

    def __init__(self, base_url, api_key, retries=3):
        self.base_url = base_url
        self.api_key = api_key
        self.retries = retries

    def _call(self, method, path, body=None, headers=None):
        req = urllib.request.Request(
            self.base_url + path, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json", **(headers or {})},
        )
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.loads(res.read())

    def submit(self, text):
        """Starts a run and returns its id. A connection lost before the answer is retried with the same key, so
        the run is made once however often the request is sent; an answer (a 4xx or 5xx) is raised, not retried."""
        key = uuid.uuid4().hex
        for attempt in range(self.retries + 1):
            try:
                return self._call("POST", "/v1/runs", {"input": text}, {"Idempotency-Key": key})["run_id"]
            except urllib.error.HTTPError:
                raise  # Hermes answered: sending the same request again would get the same answer
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError):
                if attempt == self.retries:
                    raise

    def status(self, run_id):
        return self._call("GET", f"/v1/runs/{run_id}")

    def wait(self, run_id, timeout=30):
        """Polls until the run ends; returns its last status object."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.status(run_id)
            if status["status"] in TERMINAL or time.monotonic() > deadline:
                return status
            time.sleep(0.02)

    def events(self, run_id):
        """The run's events from its stream, read until the server closes it."""
        req = urllib.request.Request(f"{self.base_url}/v1/runs/{run_id}/events", headers={"Authorization": f"Bearer {self.api_key}"})
        with urllib.request.urlopen(req, timeout=30) as res:
            text = res.read().decode("utf-8")
        return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]

    def approve(self, run_id, choice="once"):
        return self._call("POST", f"/v1/runs/{run_id}/approval", {"choice": choice})


server = None


def setUpModule():
    global server
    server = HermeticServer("--api-key", API_KEY, "--time", "1789169800", "--frozen").start()


def tearDownModule():
    server.stop()


class HermesClientTest(unittest.TestCase):
    def setUp(self):
        # A namespace per test: its own runs, clock, faults and request journal.
        self.hermes = server.namespace(self._testMethodName[:56])
        self.client = HermesRunsClient(self.hermes.url, API_KEY)

    def test_returns_the_agents_answer_and_streams_its_events(self):
        run_id = self.client.submit("Summarize the repo")
        self.hermes.admin("POST", f"/runs/{run_id}/event", {"event": "tool.started", "tool": "terminal", "preview": "ls"})
        self.hermes.admin("POST", f"/runs/{run_id}/complete", {"output": "Done.", "usage": {"input_tokens": 50, "output_tokens": 200}})
        status = self.client.wait(run_id)
        self.assertEqual((status["status"], status["output"]), ("completed", "Done."))
        self.assertEqual(status["usage"], {"input_tokens": 50, "output_tokens": 200, "total_tokens": 250})
        self.assertEqual([e["event"] for e in self.client.events(run_id)], ["tool.started", "run.completed"])

    def test_a_lost_answer_is_retried_and_makes_one_run(self):
        # Hermes admits the run, then the connection drops before the 202 reaches the client.
        self.hermes.admin("POST", "/faults", {"preset": "hermes_submit_accepted_drop"})
        run_id = self.client.submit("hello")
        self.assertEqual([r["run_id"] for r in self.hermes.admin("GET", "/runs")["runs"]], [run_id])
        self.assertEqual(self.hermes.admin("GET", "/requests/count?operation=submit")["count"], 2)

    def test_answers_an_approval_and_the_run_goes_on(self):
        run_id = self.client.submit("clean up")
        self.hermes.admin("POST", f"/runs/{run_id}/approval-request", {"preset": "shell", "command": "rm -rf build/", "description": "delete the build folder"})
        waiting = self.client.status(run_id)
        self.assertEqual(waiting["status"], "waiting_for_approval")
        self.assertEqual(waiting["approval"]["command"], "rm -rf build/")
        self.assertEqual(self.client.approve(run_id)["choice"], "once")
        self.assertEqual(self.client.status(run_id)["status"], "running")
        self.hermes.admin("POST", f"/runs/{run_id}/complete", {"output": "Cleaned."})
        self.assertEqual(self.client.wait(run_id)["output"], "Cleaned.")

    def test_refusals_are_hermess_own(self):
        status, body = self.hermes.request("POST", "/v1/runs", {"input": "hi"}, {"Authorization": "Bearer wrong"})
        self.assertEqual(status, 401)
        self.assertEqual(body["error"]["code"], "gateway_auth_failed")
        status, body = self.hermes.request("GET", "/v1/runs/run_unknown", headers={"Authorization": f"Bearer {API_KEY}"})
        self.assertEqual((status, body["error"]["code"]), (404, "run_not_found"))
        # The client raises an answer it was given, and sends the refused request once.
        with self.assertRaises(urllib.error.HTTPError) as refused:
            self.client.submit("")
        refused.exception.close()
        self.assertEqual(refused.exception.code, 400)
        self.assertEqual(self.hermes.admin("GET", "/requests/count?operation=submit&status=400")["count"], 1)

    def test_namespaces_keep_tests_apart(self):
        run_id = self.client.submit("mine")
        other = server.namespace(self.hermes.url.rsplit("/", 1)[1] + "-other")
        status, _ = other.request("GET", f"/v1/runs/{run_id}", headers={"Authorization": f"Bearer {API_KEY}"})
        self.assertEqual(status, 404)


if __name__ == "__main__":
    unittest.main()
