"""pytest fixtures for model-gateway-mock (registered by the package's ``pytest11`` entry point).

- ``model_gateway`` (session): the server, started once for the run (or the one at ``--model-gateway-url`` /
  ``MODEL_GATEWAY_URL``), healthy before the first test, stopped after the last.
- ``gateway`` (each test): that test's side of it, with its own ``x-mock-test-id``: the base URLs and client
  keyword arguments (``openai_kwargs``, ``anthropic_kwargs``, ``google_kwargs``) carry the id, ``use()`` adds
  fixtures for this test only, ``requests()`` is its journal view; its state is reset after it.

Options (each also an environment variable): ``--model-gateway-url`` (``MODEL_GATEWAY_URL``),
``--model-gateway-args`` (``MODEL_GATEWAY_ARGS``: extra CLI flags, e.g. ``--fixtures tests/fixtures --seed 1``),
``--model-gateway-admin-token`` (``MODEL_GATEWAY_ADMIN_TOKEN``); ``MODEL_GATEWAY_CLI`` names the CLI.
"""

from __future__ import annotations

import os
import shlex
from typing import Iterator

import pytest

from . import Gateway, GatewayTest, test_id_for


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("model-gateway-mock")
    group.addoption("--model-gateway-url", default=os.environ.get("MODEL_GATEWAY_URL"), help="a running server to use instead of starting one")
    group.addoption("--model-gateway-args", default=os.environ.get("MODEL_GATEWAY_ARGS", ""), help="extra CLI flags for the server it starts")
    group.addoption("--model-gateway-admin-token", default=os.environ.get("MODEL_GATEWAY_ADMIN_TOKEN"), help="the server's admin token")


@pytest.fixture(scope="session")
def model_gateway(request: pytest.FixtureRequest) -> Iterator[Gateway]:
    """The standalone server for the whole run."""
    url = request.config.getoption("--model-gateway-url")
    admin_token = request.config.getoption("--model-gateway-admin-token")
    if url:
        gateway = Gateway(url, admin_token=admin_token)
        gateway.wait_healthy()
        yield gateway
        return
    gateway = Gateway.start(shlex.split(request.config.getoption("--model-gateway-args")), admin_token=admin_token)
    try:
        yield gateway
    finally:
        gateway.stop()


@pytest.fixture
def gateway(model_gateway: Gateway, request: pytest.FixtureRequest) -> Iterator[GatewayTest]:
    """The running test's side of the server, reset after it."""
    test = model_gateway.for_test(test_id_for(request.node.nodeid))
    try:
        yield test
    finally:
        test.reset()
