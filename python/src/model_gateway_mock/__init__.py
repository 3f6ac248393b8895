"""Run model-gateway-mock's standalone server from Python and talk to its control plane (``/__admin``).

The pytest fixtures are in :mod:`model_gateway_mock.pytest_plugin`; this module is usable without pytest.
Only the standard library is used, so any HTTP client (the vendors' SDKs, httpx, urllib) can be the one
under test.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

__all__ = ["Gateway", "GatewayTest", "GatewayError", "find_cli", "test_id_for"]

TEST_ID_HEADER = "x-mock-test-id"
# The server takes test ids of 1 to 256 printable ASCII characters.
_MAX_TEST_ID = 256


class GatewayError(RuntimeError):
    """The server could not be started, or answered a control-plane call with an error."""


def find_cli(start: Optional[Path] = None) -> List[str]:
    """The command that runs the CLI: ``MODEL_GATEWAY_CLI`` (a command line; a ``.js`` file is run with
    ``MODEL_GATEWAY_NODE`` or ``node``), else ``node_modules/.bin/model-gateway-mock`` in the current folder
    or one above it (the package installed by npm), else ``model-gateway-mock`` on PATH."""
    node = os.environ.get("MODEL_GATEWAY_NODE", "node")
    configured = os.environ.get("MODEL_GATEWAY_CLI")
    if configured:
        command = shlex.split(configured)
        return [node, *command] if len(command) == 1 and command[0].endswith(".js") else command
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "node_modules" / ".bin" / "model-gateway-mock"
        if candidate.exists():
            return [str(candidate)]
    on_path = shutil.which("model-gateway-mock")
    if on_path:
        return [on_path]
    raise GatewayError(
        "model-gateway-mock's CLI was not found: install the npm package in your project "
        "(node_modules/.bin/model-gateway-mock), set MODEL_GATEWAY_CLI to a command that runs it "
        "(e.g. '/path/to/clone/bin/model-gateway-mock.js'), or MODEL_GATEWAY_URL to a running server."
    )


def test_id_for(name: str) -> str:
    """A test id for a test named ``name`` (its pytest node id): readable, then 8 random hex digits, so a
    rerun or another worker never shares state; other than printable ASCII is percent-encoded."""
    readable = re.sub(r"[^\x20-\x7e]", lambda m: urllib.parse.quote(m.group(0)), name)
    return f"{readable[: _MAX_TEST_ID - 12]} #{secrets.token_hex(4)}"


class _Admin:
    """Calls to ``/__admin``: JSON in and out, the admin token sent when there is one."""

    def __init__(self, url: str, admin_token: Optional[str]):
        self.url = url
        self.admin_token = admin_token

    def call(self, method: str, path: str, body: Any = None, query: Optional[Dict[str, Any]] = None) -> Any:
        params = {k: v for k, v in (query or {}).items() if v is not None}
        target = f"{self.url}/__admin{path}"
        if params:
            target += "?" + urllib.parse.urlencode(
                {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in params.items()}
            )
        headers = {"content-type": "application/json"}
        if self.admin_token:
            headers["x-admin-token"] = self.admin_token
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(target, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as error:
            raise GatewayError(f"{method} /__admin{path} answered {error.code}: {error.read().decode()}") from None
        return json.loads(text) if text else None


class _Clients:
    """Base URLs, and keyword arguments for each vendor's Python client."""

    url: str
    token: str
    headers: Dict[str, str]

    @property
    def openai_base_url(self) -> str:
        """For ``openai.OpenAI(base_url=...)``: the server's ``/v1``."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """For ``anthropic.Anthropic(base_url=...)``: the server's root (the client adds ``/v1/messages``)."""
        return self.url

    @property
    def google_base_url(self) -> str:
        """For ``google.genai.Client(http_options={'base_url': ...})``: the root (the client adds ``/v1beta``)."""
        return self.url

    @property
    def openai_kwargs(self) -> Dict[str, Any]:
        """``openai.OpenAI(**gateway.openai_kwargs)``."""
        return {"base_url": self.openai_base_url, "api_key": self.token, "default_headers": dict(self.headers)}

    @property
    def anthropic_kwargs(self) -> Dict[str, Any]:
        """``anthropic.Anthropic(**gateway.anthropic_kwargs)``."""
        return {"base_url": self.anthropic_base_url, "api_key": self.token, "default_headers": dict(self.headers)}

    @property
    def google_kwargs(self) -> Dict[str, Any]:
        """``google.genai.Client(**gateway.google_kwargs)``."""
        return {"api_key": self.token, "http_options": {"base_url": self.google_base_url, "headers": dict(self.headers)}}


class Gateway(_Clients):
    """The standalone server: started by :meth:`start` (and stopped by :meth:`stop`), or one already running
    at ``url``. Its admin calls are unscoped (every test's state)."""

    def __init__(self, url: Optional[str] = None, *, token: str = "sk-test", admin_token: Optional[str] = None):
        self.url = (url or "").rstrip("/")
        self.token = token
        self.admin_token = admin_token
        self.headers: Dict[str, str] = {}
        self.process: Optional[subprocess.Popen] = None
        self.output: List[str] = []

    @classmethod
    def start(
        cls,
        args: Sequence[str] = (),
        *,
        command: Optional[Sequence[str]] = None,
        admin_token: Optional[str] = None,
        token: str = "sk-test",
        timeout: float = 60.0,
        cwd: Optional[str] = None,
    ) -> "Gateway":
        """Starts the CLI on 127.0.0.1 and a free port (``args`` added, e.g. ``['--fixtures', 'tests/fixtures']``)
        in a process group of its own, so stopping it stops whatever wrapper ran it too; returns once
        ``/__admin/health`` answers."""
        argv = [*(command or find_cli()), "--host", "127.0.0.1", "--port", "0", *args]
        env = dict(os.environ)
        if admin_token:
            env["MGM_ADMIN_TOKEN"] = admin_token
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                cwd=cwd,
                env=env,
                start_new_session=True,
            )
        except OSError as error:
            raise GatewayError(f"cannot run {shlex.join(argv)}: {error}") from None
        gateway = cls(token=token, admin_token=admin_token)
        gateway.process = process
        found = threading.Event()

        def read() -> None:
            # Keeps reading after the banner, so the server never blocks on a full pipe.
            assert process.stdout is not None
            for line in process.stdout:
                gateway.output.append(line)
                match = re.search(r"listening on (https?://\S+)", line)
                if match and not found.is_set():
                    gateway.url = match.group(1).rstrip("/")
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(timeout) or not gateway.url:
            gateway.stop()
            raise GatewayError(f"{shlex.join(argv)} did not start:\n{''.join(gateway.output)}")
        gateway.wait_healthy(timeout)
        return gateway

    def wait_healthy(self, timeout: float = 60.0) -> None:
        """Polls ``GET /__admin/health`` until it answers 200."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/__admin/health", timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise GatewayError(f"{self.url}/__admin/health did not answer 200 in {timeout} s")
            time.sleep(0.05)

    def stop(self, timeout: float = 15.0) -> Optional[int]:
        """Stops the server it started (SIGTERM to its process group, SIGKILL if it outlasts ``timeout``);
        its exit code. A server it did not start is left running."""
        process = self.process
        if process is None:
            return None
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        return process.returncode

    @property
    def admin(self) -> _Admin:
        return _Admin(self.url, self.admin_token)

    def for_test(self, test_id: str) -> "GatewayTest":
        """One test's side of the server: what requests sent with ``x-mock-test-id: test_id`` see."""
        return GatewayTest(self, test_id)

    def requests(self, **filter: Any) -> List[Dict[str, Any]]:
        """The whole journal (every test's requests), oldest first, optionally filtered."""
        return self.admin.call("GET", "/requests", query=filter)["requests"]

    def reset(self) -> None:
        """Clears everything run-time on the server, every test's state included."""
        self.admin.call("POST", "/reset")


class GatewayTest(_Clients):
    """One test's view: its requests carry ``headers`` (its ``x-mock-test-id``); its fixtures, journal view,
    counters and scenario states on the server are its own, and :meth:`reset` drops them."""

    def __init__(self, gateway: Gateway, test_id: str):
        self.gateway = gateway
        self.test_id = test_id
        self.url = gateway.url
        self.token = gateway.token
        self.headers = {TEST_ID_HEADER: test_id}

    def _call(self, method: str, path: str, body: Any = None, **query: Any) -> Any:
        return self.gateway.admin.call(method, path, body, {**query, "test": self.test_id})

    def use(self, *fixtures: Dict[str, Any]) -> List[str]:
        """Adds fixtures for this test's requests only; their ids."""
        return self._call("POST", "/fixtures", list(fixtures))["ids"]

    def requests(self, **filter: Any) -> List[Dict[str, Any]]:
        """This test's requests since its last reset, oldest first; ``filter`` as the journal takes it
        (``path``, ``model``, ``status``, ``fixture``, ``unmatched``...)."""
        return self._call("GET", "/requests", **filter)["requests"]

    def count_requests(self, **filter: Any) -> int:
        """How many of this test's requests pass ``filter``."""
        return self._call("GET", "/requests/count", **filter)["count"]

    def scenarios(self) -> List[Dict[str, Any]]:
        """Each scenario, with its state as this test's requests see it."""
        return self._call("GET", "/scenarios")["scenarios"]

    def set_scenario(self, name: str, state: str) -> None:
        """Puts a scenario in a state for this test's requests."""
        self._call("PUT", f"/scenarios/{urllib.parse.quote(name, safe='')}/state", {"state": state})

    def reset(self) -> None:
        """Drops this test's fixtures, counters, scenario states and journal view (done after each test)."""
        self._call("POST", "/reset")
