"""A scripted model on loopback: the stand-in for the one thing we cannot run here, the model
behind an IDE agent. It speaks the three APIs of the agents we test:
  Anthropic Messages   POST /v1/messages (streaming and not), /v1/messages/count_tokens:
                       Claude Code, pointed at it with ANTHROPIC_BASE_URL
  OpenAI Responses     POST /v1/responses (streaming): Codex CLI, a custom model provider
  Gemini               POST /v1beta/models/M:streamGenerateContent (and :generateContent,
                       :countTokens): Gemini CLI, with GOOGLE_GEMINI_BASE_URL

It plays a script: one list of blocks per model turn — text, and tool calls named as Claude
Code names MCP tools (`mcp__hindsight__store_memory`; Codex gets namespace `mcp__hindsight`
and the bare name, Gemini `mcp_hindsight_store_memory`), and ToolSearch, which loads Claude
Code's deferred MCP tools — and it records every request it gets. So a test asserts what the
client really sent: the tools the model was offered, the tool results it saw, the text of an
error. The turn to play is counted from the request itself (the model's turns in its
conversation so far), so retries and side requests do not shift the script; a request
without tools (a side call of the client's) gets a short text.
"""

from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Block = dict[str, Any]
Script = list[list[Block]] | Callable[[dict], list[Block]]


def text(words: str) -> Block:
    return {"type": "text", "text": words}


def tool(name: str, **arguments: Any) -> Block:
    """A tool_use block (an id is added when it is played)."""
    return {"type": "tool_use", "name": name, "input": arguments}


def load(*names: str) -> Block:
    """ToolSearch loading deferred tools by name (Claude Code lists MCP tools deferred)."""
    return tool("ToolSearch", query="select:" + ",".join(names))


class ScriptedModel:
    """A loopback Messages API playing `script`, recording each request in `requests`."""

    def __init__(self, script: Script | None = None):
        self.script: Script = script or []
        self.requests: list[dict[str, Any]] = []  # {"path", "headers", "body"}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="scripted-model", daemon=True)

    def __enter__(self) -> "ScriptedModel":
        self._thread.start()
        return self

    def __exit__(self, *_exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def play(self, script: Script) -> None:
        """The script for the next session (what was recorded so far stays)."""
        with self._lock:
            self.script = script

    # ---- what the client sent -----------------------------------------------------------------
    def turns(self, session: str | None = None) -> list[dict[str, Any]]:
        """The bodies of the main conversation's requests (those offering tools), in order;
        `session`: only that Claude Code session's (its X-Claude-Code-Session-Id)."""
        return [
            r["body"]
            for r in self.requests
            if r["path"].startswith("/v1/messages")
            and "count_tokens" not in r["path"]
            and r["body"].get("tools")
            and (session is None or r["headers"].get("x-claude-code-session-id") == session)
        ]

    def tool_results(self, session: str | None = None) -> list[dict[str, Any]]:
        """Every tool result the model was shown: {"name", "input", "is_error", "text"}."""
        asked: dict[str, dict] = {}
        seen: dict[str, dict] = {}
        for body in self.turns(session):
            for message in body.get("messages", []):
                for block in message.get("content") if isinstance(message.get("content"), list) else []:
                    if block.get("type") == "tool_use":
                        asked[block["id"]] = block
                    elif block.get("type") == "tool_result" and block["tool_use_id"] not in seen:
                        use = asked.get(block["tool_use_id"], {})
                        seen[block["tool_use_id"]] = {
                            "name": use.get("name"),
                            "input": use.get("input"),
                            "is_error": bool(block.get("is_error")),
                            "text": _text_of(block.get("content")),
                        }
        return list(seen.values())

    def offered(self, session: str | None = None) -> dict[str, dict]:
        """The tools of the last main request, by name (name, description, input_schema)."""
        turns = self.turns(session)
        return {t["name"]: t for t in turns[-1]["tools"]} if turns else {}

    def context(self, session: str | None = None) -> str:
        """All the text the model was sent in a session (system prompt and messages)."""
        parts = []
        for body in self.turns(session):
            parts.append(_text_of(body.get("system")))
            for message in body.get("messages", []):
                parts.append(_text_of(message.get("content")))
        return "\n".join(parts)

    # ---- the API --------------------------------------------------------------------------
    def _blocks(self, body: dict) -> list[Block]:
        """Anthropic: the turn is the number of assistant messages so far."""
        return self._blocks_for(body, sum(1 for m in body.get("messages", []) if m.get("role") == "assistant"))

    def _blocks_for(self, body: dict, turn: int) -> list[Block]:
        if not body.get("tools"):
            return [text("ok")]
        with self._lock:
            script = self.script
        if callable(script):
            blocks = script(body)
        else:
            blocks = script[turn] if turn < len(script) else [text("Done.")]
        return [
            dict(b, id=b.get("id") or f"toolu_{next(self._ids):06d}") if b["type"] == "tool_use" else b for b in blocks
        ]

    def mark(self) -> int:
        """A point in the record: `since=` of the accessors below counts from it."""
        with self._lock:
            return len(self.requests)

    def calls(self, since: int = 0) -> list[dict[str, Any]]:
        """Codex and Gemini: every tool result the model was shown, as tool_results gives
        Claude Code's: {"name" (Claude Code's form: mcp__hindsight__x), "input", "text"}."""
        seen: dict[str, dict] = {}
        for r in self.requests[since:]:
            body = r["body"]
            if r["path"].split("?")[0].endswith("/responses"):
                asked = {i["call_id"]: i for i in body.get("input", []) if i.get("type") == "function_call"}
                for item in body.get("input", []):
                    if item.get("type") == "function_call_output" and item["call_id"] in asked:
                        use = asked[item["call_id"]]
                        name = f"{use['namespace']}__{use['name']}" if use.get("namespace") else use["name"]
                        seen[item["call_id"]] = {"name": name, "input": json.loads(use["arguments"]),
                                                 "text": _text_of(item.get("output"))}  # fmt: skip
            elif "GenerateContent" in r["path"]:
                parts = [p for c in body.get("contents", []) for p in c.get("parts", [])]
                uses = [p["functionCall"] for p in parts if "functionCall" in p]
                answers = [p["functionResponse"] for p in parts if "functionResponse" in p]
                for i, (use, answer) in enumerate(zip(uses, answers)):
                    response = answer.get("response") or {}
                    shown = response.get("output", response.get("error", response))
                    seen[f"gemini {i}"] = {"name": _claude_name(use["name"]), "input": use.get("args"),
                                           "text": _text_of(shown)}  # fmt: skip
        return list(seen.values())

    def offered_names(self, since: int = 0) -> set[str]:
        """Codex and Gemini: the tools of the last main request, in Claude Code's naming."""
        for r in reversed(self.requests[since:]):
            tools = r["body"].get("tools") or []
            if r["path"].split("?")[0].endswith("/responses") and tools:
                names = set()
                for t in tools:
                    inner = t.get("tools", []) if t.get("type") == "namespace" else []
                    names |= {f"{t['name']}__{i['name']}" for i in inner} if inner else {t.get("name")}
                return names - {None}
            if "GenerateContent" in r["path"] and tools:
                return {_claude_name(d["name"]) for t in tools for d in t.get("functionDeclarations", [])}
        return set()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                pass

            def do_GET(self) -> None:
                model._record(self.path, self.headers, {})
                self._json({"type": "error", "error": {"type": "not_found_error", "message": "not here"}}, 404)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"unparsed": raw[:200].decode("utf-8", "replace")}
                model._record(self.path, self.headers, body)
                path = self.path.split("?")[0]
                if path.endswith("/responses"):
                    return self._sse(_responses(body, model._blocks_for(body, _responses_turn(body))))
                if ":streamGenerateContent" in path or ":generateContent" in path:
                    answer = _gemini(body, model._blocks_for(body, _gemini_turn(body)))
                    return self._sse([("", answer)]) if ":stream" in path else self._json(answer)
                if ":countTokens" in path:
                    return self._json({"totalTokens": max(1, len(raw) // 4)})
                if "count_tokens" in self.path:
                    return self._json({"input_tokens": max(1, len(raw) // 4)})
                if not self.path.startswith("/v1/messages"):
                    return self._json({"type": "error", "error": {"type": "not_found_error", "message": "no"}}, 404)
                blocks = model._blocks(body)
                stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
                message = {
                    "id": f"msg_{next(model._ids):06d}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "scripted"),
                    "content": blocks,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": {"input_tokens": max(1, len(raw) // 4), "output_tokens": 8},
                }
                if body.get("stream"):
                    return self._sse(_events(message))
                return self._json(message)

            def _json(self, obj: Any, status: int = 200) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, events: list[tuple[str, dict]]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True
                for name, data in events:
                    self.wfile.write(
                        (f"event: {name}\n" if name else "").encode() + f"data: {json.dumps(data)}\n\n".encode()
                    )
                self.wfile.flush()

        return Handler

    def _record(self, path: str, headers: Any, body: dict) -> None:
        with self._lock:
            self.requests.append({"path": path, "headers": {k.lower(): v for k, v in headers.items()}, "body": body})


def _claude_name(gemini: str) -> str:
    """Gemini CLI's mcp_hindsight_store_memory as Claude Code names it: mcp__hindsight__store_memory."""
    return "mcp__" + gemini.removeprefix("mcp_").replace("_", "__", 1) if gemini.startswith("mcp_") else gemini


def _responses_turn(body: dict) -> int:
    """Codex: the model's turns so far are its function calls in the input (one a turn)."""
    return sum(1 for item in body.get("input") or [] if isinstance(item, dict) and item.get("type") == "function_call")


def _namespace_of(body: dict, name: str) -> tuple[str | None, str]:
    """Codex offers an MCP server's tools as one namespace tool (`mcp__hindsight`): a call
    names the namespace and the bare tool."""
    for offered in body.get("tools") or []:
        if offered.get("type") == "namespace" and name.startswith(offered["name"] + "__"):
            return offered["name"], name[len(offered["name"]) + 2 :]
    return None, name


def _responses(body: dict, blocks: list[Block]) -> list[tuple[str, dict]]:
    """The Responses API's events for one model turn."""
    output = []
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            output.append({"type": "message", "id": f"msg_{i}", "role": "assistant", "status": "completed",
                           "content": [{"type": "output_text", "text": block["text"], "annotations": []}]})  # fmt: skip
        else:
            namespace, name = _namespace_of(body, block["name"])
            call = {"type": "function_call", "id": f"fc_{block['id']}", "call_id": f"call_{block['id']}",
                    "name": name, "arguments": json.dumps(block["input"]), "status": "completed"}  # fmt: skip
            output.append({**call, "namespace": namespace} if namespace else call)
    response = {"id": f"resp_{blocks[0].get('id', 'text') if blocks else 'empty'}", "object": "response",
                "created_at": 0, "status": "completed", "model": body.get("model", "scripted"), "output": output,
                "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 8,
                          "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 18}}  # fmt: skip
    events = [("response.created", {"type": "response.created", "response": {**response, "status": "in_progress",
                                                                             "output": []}})]  # fmt: skip
    for i, item in enumerate(output):
        events.append(
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": i, "item": item})
        )
        events.append(
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": i, "item": item})
        )
    return events + [("response.completed", {"type": "response.completed", "response": response})]


def _gemini_turn(body: dict) -> int:
    return sum(1 for c in body.get("contents") or [] if c.get("role") == "model")


def _gemini(body: dict, blocks: list[Block]) -> dict:
    """One Gemini answer; a utility call asking for JSON (Gemini CLI's next-speaker check)
    gets a neutral one."""
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") == "application/json" or config.get("responseJsonSchema"):
        parts = [{"text": json.dumps({"reasoning": "scripted", "next_speaker": "user", "model_choice": "flash"})}]
    else:
        parts = [
            {"text": b["text"]} if b["type"] == "text"
            else {"functionCall": {"name": b["name"].replace("__", "_"),
                                   "args": b["input"]}}
            for b in blocks
        ]  # fmt: skip
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 8, "totalTokenCount": 18},
        "modelVersion": "scripted",
    }


def _events(message: dict) -> list[tuple[str, dict]]:
    """The server-sent events of one streamed message."""
    events = [("message_start", {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}})]
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": i}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 8},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text_of(c.get("text") if "text" in c else c.get("content")) for c in content)
    return str(content)
