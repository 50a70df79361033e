"""What the Python SDK's own e2e suite asks of the CLI in its message-shape
files (error result text, message fields, partial messages, tool permission
callbacks, in-process tools through query()), driven through the pinned SDK
(claude-agent-sdk 0.2.187) against tack and the scripted model server.

Usage: python suite.py SCENARIO TACK_BINARY

Run by crates/tack-cli/tests/sdk_suite.rs in a temp project (the cwd).
Prints one JSON line: {"observations": ...} or {"error": ...}.

  api_error     query() with a model the API does not know (the server answers
                404): the result before the exit, and the exception it becomes
  fields        the client, "Say hi": the assistant message's and the result's
                preserved fields; then again with include_partial_messages
  thinking      include_partial_messages with MAX_THINKING_TOKENS: the order
                of the stream, its event types, thinking and text blocks, the
                thinking deltas
  permission    can_use_tool allows a Write to $SDK_PERMISSION_TARGET (under
                the system temp folder, outside the project): asked, and the
                file is written
  mcp_string    query() with a string prompt and an allowed in-process tool,
                left at the first result
"""

import os
from pathlib import Path

from claude_agent_sdk import (
    AssistantMessage,
    ClaudeSDKClient,
    PermissionResultAllow,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    create_sdk_mcp_server,
    query,
    tool,
)

from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

from e2e import options, serve


async def api_error(tack: str) -> dict:
    opts = options(tack, model="claude-not-a-real-model-e2e", max_turns=1)
    result = None
    error = None
    try:
        async for message in query(prompt="Say hello", options=opts):
            if isinstance(message, ResultMessage):
                result = message
    except Exception as e:  # the exception is the observation
        error = e
    return {
        "result": result and {
            "subtype": result.subtype,
            "is_error": result.is_error,
            "result": result.result,
        },
        "exception": error and {"type": type(error).__name__, "text": str(error)},
    }


async def collect(opts) -> list:
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("Say hi")
        return [m async for m in client.receive_response()]


RAW: list = []


def recording(read_messages):
    """The transport's frames as they come, kept in RAW: the pinned SDK's
    AssistantMessage has no `id` yet (newer ones read `message.id`)."""

    async def read(self):
        async for message in read_messages(self):
            RAW.append(message)
            yield message

    return read


def field_report(messages: list) -> dict:
    (assistant, *_) = [m for m in messages if isinstance(m, AssistantMessage)]
    (raw, *_) = [m for m in RAW if m.get("type") == "assistant"]
    RAW.clear()
    message_id = raw["message"].get("id") or ""
    (result,) = [m for m in messages if isinstance(m, ResultMessage)]
    models = result.model_usage or {}
    cost_sum = sum(entry.get("costUSD", 0) for entry in models.values())
    return {
        "assistant": {
            "model": assistant.model,
            "id_is_msg": message_id.startswith("msg_"),
            "usage_keys": sorted(k for k in (assistant.usage or {}) if k.endswith("_tokens")),
            "session_id_set": bool(assistant.session_id),
            "uuid_set": bool(assistant.uuid),
        },
        "result": {
            "models": sorted(models),
            "model_entry_keys": sorted(
                k for entry in models.values() for k in ("inputTokens", "outputTokens", "costUSD")
                if k in entry
            ),
            "cost_matches": abs((result.total_cost_usd or 0) - cost_sum) < 1e-4,
            "permission_denials": result.permission_denials,
            "uuid_set": bool(result.uuid),
        },
        "stream_event_types": sorted(
            {m.event.get("type") for m in messages if isinstance(m, StreamEvent)}
        ),
    }


async def fields(tack: str) -> dict:
    SubprocessCLITransport.read_messages = recording(SubprocessCLITransport.read_messages)
    plain = field_report(await collect(options(tack, model="claude-sonnet-4-5", max_turns=1)))
    partial = field_report(
        await collect(
            options(tack, model="claude-sonnet-4-5", max_turns=1, include_partial_messages=True)
        )
    )
    return {"plain": plain, "partial": partial}


async def thinking(tack: str) -> dict:
    opts = options(
        tack,
        include_partial_messages=True,
        model="claude-sonnet-4-5",
        max_turns=2,
        env={"MAX_THINKING_TOKENS": "8000"},
    )
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("Think of three jokes, then tell one")
        messages = [m async for m in client.receive_response()]
    events = [m.event for m in messages if isinstance(m, StreamEvent)]
    blocks = [b for m in messages if isinstance(m, AssistantMessage) for b in m.content]
    first, last = messages[0], messages[-1]
    return {
        "first": [type(first).__name__, getattr(first, "subtype", None)],
        "last": [type(last).__name__, getattr(last, "subtype", None)],
        "event_types": sorted({e.get("type") for e in events}),
        "blocks": [type(b).__name__ for b in blocks if isinstance(b, (TextBlock, ThinkingBlock))],
        "thinking_deltas": "".join(
            e["delta"].get("thinking", "")
            for e in events
            if e.get("type") == "content_block_delta" and e["delta"].get("type") == "thinking_delta"
        ),
    }


async def permission(tack: str) -> dict:
    target = Path(os.environ["SDK_PERMISSION_TARGET"])
    asked: list = []

    async def can_use_tool(tool_name, tool_input, context):
        asked.append(tool_name)
        return PermissionResultAllow()

    opts = options(tack, can_use_tool=can_use_tool)
    try:
        async with ClaudeSDKClient(options=opts) as client:
            await client.query(f"Create a new file at {target} with the content 'hello world'.")
            results = [m.result async for m in client.receive_response() if isinstance(m, ResultMessage)]
        written = target.read_text() if target.exists() else None
    finally:
        target.unlink(missing_ok=True)
    return {"asked": asked, "results": results, "written": written}


async def mcp_string(tack: str) -> dict:
    executions: list = []

    @tool("echo", "Echo back the input text", {"text": str})
    async def echo(args):
        executions.append(args["text"])
        return {"content": [{"type": "text", "text": f"Echo: {args['text']}"}]}

    opts = options(
        tack,
        mcp_servers={"test": create_sdk_mcp_server(name="test", version="1.0.0", tools=[echo])},
        allowed_tools=["mcp__test__echo"],
    )
    kinds = []
    async for message in query(prompt="Call the echo tool with text='hello world'", options=opts):
        kinds.append(type(message).__name__)
        if isinstance(message, ResultMessage):
            break
    return {"executions": executions, "last": kinds[-1]}


if __name__ == "__main__":
    serve(
        {
            "api_error": api_error,
            "fields": fields,
            "mcp_string": mcp_string,
            "permission": permission,
            "thinking": thinking,
        }
    )
