"""What a client sends that the SDK would drop or bend: every line gets an answer, and no
value is turned into another meaning."""

from __future__ import annotations

import json

import pytest
from mcp_client import server_command
from rawrpc import RawServer, is_tool_error, server_env, structured, tool_text

from hindsight.server import stdio

STORE = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "store_memory", "arguments": {"content": "a line"}},
}


@pytest.mark.parametrize(
    "line, code, request_id",
    [
        (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list"', -32700, None),  # cut off
        (b'\xff\xfe{"jsonrpc": "2.0"}', -32700, None),  # not UTF-8
        (json.dumps(STORE).replace('"a line"', '"bad \\ud800"').encode(), -32600, 7),  # lone surrogate
        (json.dumps(STORE).replace('"a line"', "NaN").encode(), -32700, None),
        (
            json.dumps(
                {
                    **STORE,
                    "params": {
                        "name": "store_memory",
                        "arguments": {"content": "deep", "metadata": {"a": json.loads("[" * 200 + "]" * 200)}},
                    },
                }
            ).encode(),
            -32600,
            7,
        ),
        (b"[" + json.dumps(STORE).encode() + b"]", -32600, None),  # a batch
        (json.dumps({"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list"}).encode(), -32600, None),
        (json.dumps({"jsonrpc": "2.0", "id": 7, "params": {}}).encode(), -32600, 7),  # no method
    ],
)
def test_unusable_lines_get_the_json_rpc_error_they_deserve(line, code, request_id):
    message, reply = stdio.parse(line)
    assert message is None
    error = reply.message
    assert error.error.code == code and error.id == request_id


def test_a_byte_order_mark_is_dropped_and_blank_lines_ignored():
    message, reply = stdio.parse(b"\xef\xbb\xbf" + json.dumps(STORE).encode() + b"\r\n")
    assert reply is None and message.id == 7
    assert stdio.parse(b"  \n") == (None, None)


async def test_over_stdio_every_line_is_answered_and_values_keep_their_meaning(db_url):
    server = RawServer([server_command()], server_env(HINDSIGHT_DATABASE_URL=db_url))
    await server.start()
    try:
        for line in (
            b'{"jsonrpc": "2.0", "id": 901, "method": "tools/list"',
            b'\xef\xbb\xbf{"jsonrpc":"2.0","id":902,"method":"tools/list"}',
            json.dumps(STORE).replace('"a line"', '"bad \\ud800"').replace("7", "903").encode(),
        ):
            assert await server.raw_answer(line, 902 if b"902" in line else 903 if b"903" in line else None)
        refusals = {
            "shared": ({"content": "x", "shared": "true"}, "shared: must be true or false"),
            "importance": ({"content": "x", "importance": "4"}, "importance: must be a whole number from 1 to 5"),
            "importance float": ({"content": "x", "importance": 4.0}, "importance: must be a whole number from 1 to 5"),
            "content null": ({"content": None}, "content: must be a string"),
        }
        for name, (args, expected) in refusals.items():
            answer = await server.call("store_memory", args)
            assert is_tool_error(answer) and tool_text(answer).startswith(expected), (name, tool_text(answer))
        kept = structured(await server.call("store_memory", {"content": "null", "session_id": "null"}))["memory"]
        assert kept["content"] == "null" and kept["session_id"] == "null"  # a string stays that string
        listed = structured(await server.call("store_memory", {"content": "stringified list", "tags": '["a", "b"]'}))
        assert listed["memory"]["tags"] == ["a", "b"]  # a client that stringifies arrays still works
        assert server.stray == []
    finally:
        await server.close()


async def test_an_unexpected_failure_reaches_the_client_as_a_reference_only(db_url, tmp_path):
    """'3000 years ago' overflowed in the time parser (being fixed there); whatever such a
    query does, the client sees a result or a reference — never the exception — and the log
    has the traceback under that reference."""
    log = tmp_path / "server.log"
    server = RawServer(
        [server_command()], server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_LOG_LEVEL="INFO"), stderr=log.open("w")
    )
    await server.start()
    try:
        answers = [
            await server.call("retrieve_memory", {"query": q})
            for q in ("what happened 3000 years ago", "9999999天前发生了什么")
        ]
    finally:
        await server.close()
    for answer in answers:
        if is_tool_error(answer):
            text = tool_text(answer)
            assert text.startswith("retrieve_memory failed because of an internal error in hindsight (ref ")
            ref = text.split("(ref ")[1].split()[0]
            assert "Error" not in text and f"ref {ref})" in log.read_text() and "Traceback" in log.read_text()
