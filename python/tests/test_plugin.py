"""The plugin's own suite, against the real CLI (test/python.test.ts runs it from the repository's vitest
suite): plain urllib as the HTTP client (the vendors' Python clients take the same base URLs and headers),
httpx too where it is installed."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from model_gateway_mock import Gateway, GatewayTest


def post(url: str, body: dict, headers: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={"content-type": "application/json", **headers})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def chat(gateway: GatewayTest, content: str) -> str:
    kwargs = gateway.openai_kwargs
    reply = post(
        f"{kwargs['base_url']}/chat/completions",
        {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": content}]},
        {"authorization": f"Bearer {kwargs['api_key']}", **kwargs["default_headers"]},
    )
    return reply["choices"][0]["message"]["content"]


def test_the_server_is_healthy_and_started_for_the_run(model_gateway: Gateway):
    with urllib.request.urlopen(f"{model_gateway.url}/__admin/health") as response:
        assert json.loads(response.read())["status"] == "healthy"
    assert model_gateway.url.startswith("http://127.0.0.1:")


def test_gives_the_clients_base_urls(gateway: GatewayTest, model_gateway: Gateway):
    assert gateway.openai_base_url == f"{model_gateway.url}/v1"
    assert gateway.anthropic_base_url == model_gateway.url
    assert gateway.google_base_url == model_gateway.url
    assert gateway.google_kwargs["http_options"]["headers"] == gateway.headers


def test_answers_from_a_fixture_of_this_test_only(gateway: GatewayTest):
    gateway.use({"name": "weather", "match": {"userMessage": {"contains": "weather"}}, "reply": {"text": "Sunny, 21 °C."}})
    assert chat(gateway, "What is the weather?") == "Sunny, 21 °C."
    entries = gateway.requests()
    assert [(e["path"], e["fixture"], e["headers"]["x-mock-test-id"]) for e in entries] == [
        ("/v1/chat/completions", "weather", gateway.test_id)
    ]


def test_starts_with_its_own_empty_state(gateway: GatewayTest):
    # The previous test's fixture and requests were its own, and were reset after it.
    assert gateway.requests() == []
    assert chat(gateway, "What is the weather?") != "Sunny, 21 °C."


def test_keeps_two_tests_apart(model_gateway: Gateway):
    first, second = model_gateway.for_test("first #1"), model_gateway.for_test("second #2")
    try:
        first.use({"reply": {"text": "For the first."}})
        assert chat(first, "hi") == "For the first."
        assert chat(second, "hi") != "For the first."
        assert first.count_requests() == 1 and second.count_requests() == 1
    finally:
        first.reset()
        second.reset()


def test_speaks_anthropic_and_gemini(gateway: GatewayTest):
    gateway.use({"reply": {"text": "Hello from every format."}})
    message = post(
        f"{gateway.anthropic_base_url}/v1/messages",
        {"model": "claude-sonnet-5-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]},
        {"x-api-key": gateway.token, "anthropic-version": "2023-06-01", **gateway.headers},
    )
    assert message["content"][0]["text"] == "Hello from every format."
    content = post(
        f"{gateway.google_base_url}/v1beta/models/gemini-2.5-flash:generateContent?key={gateway.token}",
        {"contents": [{"parts": [{"text": "Hi"}]}]},
        gateway.headers,
    )
    assert content["candidates"][0]["content"]["parts"][0]["text"] == "Hello from every format."
    assert [e["format"] for e in gateway.requests()] == ["anthropic", "gemini"]


def test_moves_a_scenario_for_this_test(gateway: GatewayTest):
    gateway.use(
        {"scenario": "checkout", "requiredScenarioState": "paid", "reply": {"text": "Already paid."}},
        {"scenario": "checkout", "newScenarioState": "paid", "reply": {"text": "Paid."}},
    )
    assert chat(gateway, "pay") == "Paid."
    assert chat(gateway, "pay") == "Already paid."
    assert [s["state"] for s in gateway.scenarios() if s["name"] == "checkout"] == ["paid"]


def test_works_with_httpx(gateway: GatewayTest):
    httpx = pytest.importorskip("httpx")
    gateway.use({"reply": {"text": "From httpx."}})
    with httpx.Client(base_url=gateway.openai_base_url, headers={"authorization": f"Bearer {gateway.token}", **gateway.headers}) as client:
        reply = client.post("/chat/completions", json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]})
    assert reply.json()["choices"][0]["message"]["content"] == "From httpx."


def test_a_wrong_key_gets_the_vendor_401(gateway: GatewayTest):
    request = urllib.request.Request(f"{gateway.openai_base_url}/models", headers={"authorization": "Bearer sk-wrong", **gateway.headers})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request)
    assert refused.value.code == 401
    assert "Incorrect API key" in json.loads(refused.value.read())["error"]["message"]


def test_stops_a_server_it_started_and_leaves_none_behind():
    started = Gateway.start()
    url = started.url
    assert started.stop() == 0
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{url}/__admin/health", timeout=5)
