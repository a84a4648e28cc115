"""A call that names an agent it may not act for is refused with the fix for the transport in
use: over stdio the server's environment pins the agent (HINDSIGHT_ALLOWED_AGENTS), over HTTP
the request's token does (`hindsight token create --agent A --allow B`). tests/e2e/test_http.py
and test_cross_agent.py see the same words through real servers."""

from __future__ import annotations

import pytest

from hindsight import services
from hindsight.config import Settings
from hindsight.errors import AgentRefused
from hindsight.store.tokens import Caller


def _services() -> services.Services:
    settings = Settings.from_env({"HINDSIGHT_AGENT_ID": "server-default", "HINDSIGHT_ALLOWED_AGENTS": "ops"})
    return services.Services(settings, db=None, url="")  # acting_for reads the settings and the caller only


def test_over_stdio_the_refusal_names_the_servers_environment():
    s = _services()
    assert s.acting_for("ops") == "ops"
    with pytest.raises(AgentRefused) as refused:
        s.acting_for("bob")
    text = str(refused.value)
    assert text.startswith("agent_id: may only name this server's own agent") and "HINDSIGHT_ALLOWED_AGENTS" in text
    assert "hindsight token" not in text


def test_over_http_the_refusal_names_the_token_that_would_allow_it():
    s = _services()
    token = services.CALLER.set(Caller("alice", frozenset({"carol"})))
    try:
        assert s.acting_for(None) == "alice" and s.acting_for("carol") == "carol"
        refusals = {}
        for agent in ("bob", "ops", "server-default"):  # the server's own agents are the token's to allow too
            with pytest.raises(AgentRefused) as refused:
                s.acting_for(agent)
            refusals[agent] = str(refused.value)
    finally:
        services.CALLER.reset(token)
    assert refusals["bob"] == (
        "agent_id: may only name this token's own agent 'alice'; acting for 'bob' as well needs a token made "
        "with `hindsight token create --agent alice --allow bob,carol`"
    )
    assert all("HINDSIGHT_ALLOWED_AGENTS" not in text for text in refusals.values())
    assert "--allow carol,ops`" in refusals["ops"]
