"""Drives tack through the official Python Agent SDK (claude-agent-sdk 0.2.189).

Usage: python drive.py SCENARIO TACK_BINARY

Run by crates/tack-cli/tests/sdk.rs in a temp project, with ANTHROPIC_BASE_URL
pointing at the scripted model server and ANTHROPIC_API_KEY=test in the
environment (the SDK passes its environment on to tack). Prints exactly one JSON
line of observations on stdout; the Rust test asserts on it. Scenarios (the
model's replies are scripted by the Rust test):

  deny_write     a can_use_tool callback denies the model's Write
  hook           a PreToolUse hook callback records every tool call
  interrupt      interrupt 1 s into a slow streamed answer, then a second query
  result_fields  one plain answer: ResultMessage and system/init fields
  rewind         file checkpointing: two turns edit files, rewind_files to the
                 first prompt's uuid puts them back; an unknown uuid fails
  session_store  session_store=InMemorySessionStore: mirrored records equal the
                 files; a resume from the store after the files are deleted
  structured     output_format (structured_schema.json): ResultMessage.structured_output
  hook_events    include_hook_events with settings hooks around a Bash call
  clear          a turn, /clear, a turn: conversation_reset and a new session
  replay         replay-user-messages echoes the user message with its uuid
  sdk_mcp        in-process tools (create_sdk_mcp_server "calc"): an allowed
                 add, an error result, an image, a denied and an unlisted tool

Every scenario also reports `parser`: each record tack printed, run through the
SDK's own message parser, and checked against the keys the SDK's types require
(records.json, shared with drive.mjs).
"""

import json
import logging
import os
import sys
import time
from pathlib import Path

import anyio
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ConversationResetMessage,
    HookEventMessage,
    HookMatcher,
    PermissionResultDeny,
    ResultMessage,
    create_sdk_mcp_server,
    tool,
    StreamEvent,
    SystemMessage,
    UserMessage,
    query,
)
from claude_agent_sdk._errors import MessageParseError
from claude_agent_sdk._internal.message_parser import parse_message
from claude_agent_sdk._internal.transport import subprocess_cli

SCHEMA = json.loads((Path(__file__).parent / "records.json").read_text())
CONTROL_TYPES = {"control_request", "control_response", "control_cancel_request"}
DENY_MESSAGE = "Writes are not allowed"
STRUCTURED_SCHEMA = json.loads((Path(__file__).parent / "structured_schema.json").read_text())
# Command hooks from settings (the twin of drive.mjs's).
HOOK_SETTINGS = json.dumps(
    {
        "hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": "echo started"}]}],
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre >&2"}]}
            ],
            "PostToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 3"}]}
            ],
        }
    }
)
REPLAY_UUID = "0b1c4c2e-5d4e-4b8a-9f1e-2a3b4c5d6e7f"

# ---------------------------------------------------------------------------
# Everything tack prints, as the transport read it
# ---------------------------------------------------------------------------

RAW: list[dict] = []
_read_messages = subprocess_cli.SubprocessCLITransport.read_messages


def _recording_read_messages(self):
    async def records():
        async for data in _read_messages(self):
            RAW.append(data)
            yield data

    return records()


subprocess_cli.SubprocessCLITransport.read_messages = _recording_read_messages


class _Collect(logging.Handler):
    """Keeps the SDK's warnings and its debug notes about skipped records."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.levelno >= logging.WARNING or "unknown message type" in message:
            self.lines.append(f"{record.levelname}: {message}")


LOG = _Collect()
_sdk_logger = logging.getLogger("claude_agent_sdk")
_sdk_logger.setLevel(logging.DEBUG)
_sdk_logger.addHandler(LOG)


def kind(record: dict) -> str:
    kind = str(record.get("type"))
    if kind in ("system", "result") and "subtype" in record:
        kind += "/" + str(record["subtype"])
    return kind


def missing_keys(record: dict) -> list[str]:
    required = SCHEMA["required"].get(kind(record), [])
    missing = []
    for key in required:
        holder, name = record, key
        if key.startswith("message."):
            holder, name = record.get("message") or {}, key[len("message.") :]
        if name not in holder:
            missing.append(f"{kind(record)}: {key}")
    return missing


def parser_report() -> dict:
    kinds, rejected, unknown, missing = [], [], [], []
    for record in RAW:
        # Frames the SDK asked for for itself and keeps from its caller.
        if record.get("type") in CONTROL_TYPES or record.get("sdk_host_only") is True:
            continue
        k = kind(record)
        kinds.append(k)
        base = k.split("/")[0] if k.startswith("result/") else k
        if base not in SCHEMA["known"]:
            unknown.append(k)
        try:
            if parse_message(record) is None:
                unknown.append(f"{k} (skipped by the parser)")
        except MessageParseError as e:
            rejected.append(f"{k}: {e}")
        missing.extend(missing_keys(record))
    return {
        "kinds": kinds,
        "rejected": rejected,
        "unknown": unknown,
        "missing": missing,
        "warnings": LOG.lines,
    }


# ---------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------


STDERR: list[str] = []


def options(tack: str, **kwargs) -> ClaudeAgentOptions:
    return ClaudeAgentOptions(cli_path=tack, cwd=os.getcwd(), stderr=STDERR.append, **kwargs)


def result_summary(result: ResultMessage) -> dict:
    return {
        "subtype": result.subtype,
        "is_error": result.is_error,
        "num_turns": result.num_turns,
        "result": result.result,
        "terminal_reason": result.terminal_reason,
        "permission_denials": result.permission_denials,
    }


def tool_results(messages: list) -> list[dict]:
    return [
        {"tool_use_id": b.tool_use_id, "is_error": b.is_error, "content": b.content}
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for b in m.content
        if type(b).__name__ == "ToolResultBlock"
    ]


async def deny_write(tack: str) -> dict:
    calls = []

    async def can_use_tool(tool_name, tool_input, context):
        calls.append(
            {"tool_name": tool_name, "input": tool_input, "tool_use_id": context.tool_use_id}
        )
        return PermissionResultDeny(message=DENY_MESSAGE)

    async def prompt():
        # Streaming input, the way the SDK docs pair prompts with can_use_tool.
        yield {
            "type": "user",
            "message": {"role": "user", "content": "Write out.txt"},
            "parent_tool_use_id": None,
            "session_id": "",
        }

    messages = [
        m async for m in query(prompt=prompt(), options=options(tack, can_use_tool=can_use_tool))
    ]
    results = [m for m in messages if isinstance(m, ResultMessage)]
    return {
        "callback_calls": calls,
        "file_exists": Path("out.txt").exists(),
        "tool_results": tool_results(messages),
        "result": result_summary(results[-1]) if results else None,
    }


async def hook(tack: str) -> dict:
    calls = []

    async def record(hook_input, tool_use_id, context):
        calls.append(
            {
                "hook_event_name": hook_input.get("hook_event_name"),
                "tool_name": hook_input.get("tool_name"),
                "tool_input": hook_input.get("tool_input"),
                "tool_use_id": hook_input.get("tool_use_id"),
                "tool_use_id_argument": tool_use_id,
            }
        )
        return {}

    opts = options(
        tack,
        permission_mode="acceptEdits",
        hooks={"PreToolUse": [HookMatcher(hooks=[record])]},
    )
    messages = [m async for m in query(prompt="Look around, then write b.txt", options=opts)]
    results = [m for m in messages if isinstance(m, ResultMessage)]
    written = Path("b.txt")
    return {
        "hook_calls": sorted(calls, key=lambda c: str(c["tool_use_id"])),
        "b_txt": written.read_text() if written.exists() else None,
        "result": result_summary(results[-1]) if results else None,
    }


async def interrupt(tack: str) -> dict:
    observed: dict = {}
    opts = options(tack, include_partial_messages=True)
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("Tell me a long story")
        first_result = None
        async for message in client.receive_response():
            if isinstance(message, StreamEvent) and "saw_delta" not in observed:
                if message.event.get("type") == "content_block_delta":
                    observed["saw_delta"] = True
                    await anyio.sleep(1.0)
                    sent = time.monotonic()
                    await client.interrupt()
                    observed["interrupt_ack_ms"] = round((time.monotonic() - sent) * 1000)
                    observed["_sent"] = sent
            if isinstance(message, ResultMessage):
                first_result = message
                if "_sent" in observed:
                    observed["interrupt_to_result_ms"] = round(
                        (time.monotonic() - observed["_sent"]) * 1000
                    )
        observed.pop("_sent", None)
        observed["first"] = result_summary(first_result) if first_result else None
        await client.query("Now a short one")
        second = [m async for m in client.receive_response()]
        second_result = next((m for m in second if isinstance(m, ResultMessage)), None)
        observed["second"] = result_summary(second_result) if second_result else None
        observed["same_session"] = (
            first_result is not None
            and second_result is not None
            and first_result.session_id == second_result.session_id
        )
    return observed


async def result_fields(tack: str) -> dict:
    opts = options(tack, model="claude-sonnet-4-5")
    messages = [m async for m in query(prompt="Say hello", options=opts)]
    init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
    result = next(m for m in messages if isinstance(m, ResultMessage))
    assistant = [m for m in messages if isinstance(m, AssistantMessage)]
    usage = result.usage or {}
    return {
        "result": {
            "subtype": result.subtype,
            "is_error": result.is_error,
            "num_turns": result.num_turns,
            "result": result.result,
            "stop_reason": result.stop_reason,
            "total_cost_usd": result.total_cost_usd,
            "usage": {
                k: usage.get(k)
                for k in (
                    "input_tokens",
                    "output_tokens",
                    "cache_creation_input_tokens",
                    "cache_read_input_tokens",
                )
            },
            "model_usage_models": sorted((result.model_usage or {}).keys()),
            "permission_denials": result.permission_denials,
            "duration_ms_is_int": isinstance(result.duration_ms, int),
            "uuid_is_set": bool(result.uuid),
        },
        "session_ids_agree": len(
            {init.data.get("session_id"), result.session_id}
            | {m.session_id for m in assistant}
        )
        == 1,
        "init": {
            k: init.data.get(k)
            for k in ("model", "permissionMode", "apiKeySource", "cwd", "output_style")
        },
        "assistant_texts": [
            b.text for m in assistant for b in m.content if type(b).__name__ == "TextBlock"
        ],
    }


async def control(tack: str) -> dict:
    observed: dict = {}
    async with ClaudeSDKClient(options=options(tack)) as client:
        await client.query("Say hello")
        async for _ in client.receive_response():
            pass
        usage = await client.get_context_usage()
        observed["context_usage"] = {
            "categories": [c["name"] for c in usage["categories"]],
            "totalTokens": usage["totalTokens"],
            "rawMaxTokens": usage["rawMaxTokens"],
            "model": usage["model"],
        }
        try:
            await client.stop_task("nope")
            observed["stop_task"] = "stopped"
        except Exception as e:  # the observation is the SDK's error
            observed["stop_task"] = str(e)
    return observed


def prompt_uuids(messages: list) -> list[str]:
    """The uuids of the replayed prompts (user messages that are not tool results)."""
    return [
        m.uuid
        for m in messages
        if isinstance(m, UserMessage)
        and m.uuid
        and not (
            isinstance(m.content, list)
            and any(type(b).__name__ == "ToolResultBlock" for b in m.content)
        )
    ]


async def rewind(tack: str) -> dict:
    observed: dict = {}
    opts = options(
        tack,
        permission_mode="acceptEdits",
        enable_file_checkpointing=True,
        extra_args={"replay-user-messages": None},
    )
    files = {"keep": Path("keep.txt"), "new": Path("new.txt")}

    def contents() -> dict:
        return {k: p.read_text() if p.exists() else None for k, p in files.items()}

    uuids = []
    async with ClaudeSDKClient(options=opts) as client:
        for prompt in ("Change keep.txt", "Change it again and add new.txt"):
            await client.query(prompt)
            messages = [m async for m in client.receive_response()]
            uuids.extend(prompt_uuids(messages))
        observed["prompt_uuids"] = len(uuids)
        observed["after_turns"] = contents()
        await client.rewind_files(uuids[0])
        observed["after_rewind"] = contents()
        try:
            await client.rewind_files("not-a-message")
            observed["unknown"] = "rewound"
        except Exception as e:  # the observation is the SDK's error
            observed["unknown"] = str(e)
    return observed


async def sessions(tack: str) -> dict:
    """A session with a sub-agent, then read back with the SDK's own session
    functions (CLAUDE_CONFIG_DIR is set for this process and tack alike)."""
    from claude_agent_sdk import (
        get_session_messages,
        get_subagent_messages,
        list_sessions,
        list_subagents,
    )

    result = None
    async for message in query(
        prompt="delegate it",
        options=options(tack, permission_mode="bypassPermissions"),
    ):
        if isinstance(message, ResultMessage):
            result = message
    sid = result.session_id
    cwd = os.getcwd()

    def gist(messages):
        out = []
        for m in messages:
            content = m.message.get("content")
            if isinstance(content, str):
                out.append([m.type, content])
            else:
                out.append([m.type, [b.get("text") or b.get("name") or b.get("tool_use_id") for b in content]])
        return out

    listed = list_sessions(directory=cwd)
    agents = list_subagents(sid, directory=cwd)
    sub = [get_subagent_messages(sid, a, directory=cwd) for a in agents]
    return {
        "sessions": [
            {"same_id": s.session_id == sid, "summary": s.summary, "first_prompt": s.first_prompt, "cwd": s.cwd == cwd}
            for s in listed
        ],
        "messages": gist(get_session_messages(sid, directory=cwd)),
        "messages_in_any_project": len(get_session_messages(sid)),
        "subagents": len(agents),
        "subagent_messages": [gist(m) for m in sub],
        "subagent_parent_tool_use_ids": sorted({m.parent_tool_use_id for ms in sub for m in ms}),
    }


async def session_store(tack: str) -> dict:
    """A session (with a sub-agent) mirrored into the SDK's InMemorySessionStore,
    compared line for line with tack's own files; then those files are deleted
    and the session resumed from the store alone."""
    import shutil

    from claude_agent_sdk import (
        InMemorySessionStore,
        get_subagent_messages_from_store,
        project_key_for_directory,
    )

    store = InMemorySessionStore()

    async def run(prompt: str, **kwargs) -> ResultMessage:
        opts = options(tack, session_store=store, permission_mode="bypassPermissions", **kwargs)
        messages = [m async for m in query(prompt=prompt, options=opts)]
        return [m for m in messages if isinstance(m, ResultMessage)][-1]

    def lines(path: Path) -> list:
        return [json.loads(line) for line in path.read_text().splitlines()]

    first = await run("delegate it")
    sid = first.session_id
    key = {"project_key": project_key_for_directory(os.getcwd()), "session_id": sid}
    projects = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    files = sorted(projects.rglob("*.jsonl"))
    main_file = next(p for p in files if p.stem == sid)
    sub_files = [p for p in files if p.stem != sid]
    subs = [
        await store.load({**key, "subpath": f"subagents/{p.stem}"}) for p in sub_files
    ]
    # A sub-agent's store entries are its transcript's lines plus its
    # .meta.json sidecar as an `agent_metadata` entry, which attributes its
    # messages to the Agent call that started it.
    def transcript(entries):
        return [e for e in entries if e.get("type") != "agent_metadata"]

    agent_ids = [p.stem.removeprefix("agent-") for p in sub_files]
    from_store = [
        await get_subagent_messages_from_store(store, sid, a, directory=os.getcwd())
        for a in agent_ids
    ]
    mirrored = {
        "main_same_as_file": await store.load(key) == lines(main_file),
        "subagents": len(sub_files),
        "subagents_same_as_files": [transcript(s) == lines(p) for s, p in zip(subs, sub_files)],
        "subagent_metadata": [
            [e for e in s if e.get("type") == "agent_metadata"] for s in subs
        ],
        "subagent_parent_tool_use_ids": sorted(
            {m.parent_tool_use_id for ms in from_store for m in ms}
        ),
    }
    before = len(lines(main_file))
    shutil.rmtree(projects)
    second = await run("and now?", resume=sid)
    after = await store.load(key)
    return {
        "first": result_summary(first),
        "mirrored": mirrored,
        "second": result_summary(second),
        "second_same_session": second.session_id == sid,
        "records_added_by_the_resumed_turn": len(after) - before,
    }


async def structured(tack: str) -> dict:
    output_format = {"type": "json_schema", "schema": STRUCTURED_SCHEMA}
    opts = options(tack, output_format=output_format)
    messages = [m async for m in query(prompt="Check a.txt", options=opts)]
    result = next(m for m in messages if isinstance(m, ResultMessage))
    return {
        "result": result_summary(result),
        "structured_output": result.structured_output,
        "tool_results": tool_results(messages),
    }


async def hook_events(tack: str) -> dict:
    opts = options(
        tack, include_hook_events=True, allowed_tools=["Bash"], settings=HOOK_SETTINGS
    )
    messages = [m async for m in query(prompt="run it", options=opts)]
    hooks = [
        {
            "subtype": m.subtype,
            "hook_event_name": m.hook_event_name,
            **{
                k: m.data.get(k)
                for k in ("hook_name", "outcome", "exit_code", "stdout", "stderr")
            },
        }
        for m in messages
        if isinstance(m, HookEventMessage)
    ]
    results = [m for m in messages if isinstance(m, ResultMessage)]
    return {"hooks": hooks, "result": result_summary(results[-1]) if results else None}


async def new_hook_events(tack: str) -> dict:
    """Callbacks for events added after the core set: a failed Read, then a
    Write the PermissionRequest callback allows."""
    calls = []
    keys = ("hook_event_name", "tool_name", "tool_input", "tool_use_id", "error", "is_interrupt")

    async def record(hook_input, tool_use_id, context):
        calls.append({k: hook_input.get(k) for k in keys} | {"tool_use_id_argument": tool_use_id})
        if hook_input.get("hook_event_name") == "PermissionRequest":
            decision = {"behavior": "allow"}
            return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
        context = "the notes moved to docs/"
        return {"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": context}}

    opts = options(
        tack,
        hooks={
            "PostToolUseFailure": [HookMatcher(hooks=[record])],
            "PermissionRequest": [HookMatcher(matcher="Write", hooks=[record])],
        },
    )
    messages = [m async for m in query(prompt="Read the notes, then write b.txt", options=opts)]
    results = [m for m in messages if isinstance(m, ResultMessage)]
    written = Path("b.txt")
    return {
        "hook_calls": calls,
        "b_txt": written.read_text() if written.exists() else None,
        "tool_results": tool_results(messages),
        "result": result_summary(results[-1]) if results else None,
    }


async def clear(tack: str) -> dict:
    observed: dict = {"turns": []}
    async with ClaudeSDKClient(options=options(tack)) as client:
        for prompt in ["remember FIRST-TOPIC", "/clear", "what was the topic?"]:
            await client.query(prompt)
            turn: dict = {"prompt": prompt, "resets": []}
            async for m in client.receive_response():
                if isinstance(m, ConversationResetMessage):
                    turn["resets"].append(
                        {"new_conversation_id": m.new_conversation_id, "session_id": m.session_id}
                    )
                if isinstance(m, ResultMessage):
                    turn["result"] = result_summary(m)
                    turn["session_id"] = m.session_id
            observed["turns"].append(turn)
    return observed


async def replay(tack: str) -> dict:
    opts = options(tack, extra_args={"replay-user-messages": None})

    async def prompt():
        yield {
            "type": "user",
            "message": {"role": "user", "content": "Say hello"},
            "parent_tool_use_id": None,
            "session_id": "",
            "uuid": REPLAY_UUID,
        }

    async with ClaudeSDKClient(options=opts) as client:
        await client.query(prompt())
        messages = [m async for m in client.receive_response()]
    users = [m for m in messages if isinstance(m, UserMessage)]
    results = [m for m in messages if isinstance(m, ResultMessage)]
    return {
        "replayed": [
            {
                "uuid": m.uuid,
                "content": m.content
                if isinstance(m.content, str)
                else [getattr(b, "text", None) for b in m.content],
            }
            for m in users
        ],
        "result": result_summary(results[-1]) if results else None,
    }


# A 1x1 PNG, for a tool that answers with an image.
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


async def sdk_mcp(tack: str) -> dict:
    calls = []

    @tool("add", "Add two numbers", {"a": float, "b": float})
    async def add(args):
        calls.append(["add", args])
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    @tool("divide", "Divide a by b", {"a": float, "b": float})
    async def divide(args):
        calls.append(["divide", args])
        return {"content": [{"type": "text", "text": "cannot divide by zero"}], "is_error": True}

    @tool("chart", "Draw a chart", {})
    async def chart(args):
        calls.append(["chart", args])
        return {"content": [{"type": "image", "data": PIXEL, "mimeType": "image/png"}]}

    @tool("wipe", "Forget everything", {})
    async def wipe(args):
        calls.append(["wipe", args])
        return {"content": [{"type": "text", "text": "wiped"}]}

    @tool("secret", "Tell a secret", {})
    async def secret(args):
        calls.append(["secret", args])
        return {"content": [{"type": "text", "text": "the secret"}]}

    server = create_sdk_mcp_server(
        name="calculator", version="1.0.0", tools=[add, divide, chart, wipe, secret]
    )
    opts = options(
        tack,
        mcp_servers={"calc": server},
        allowed_tools=["mcp__calc__add", "mcp__calc__divide", "mcp__calc__chart"],
        disallowed_tools=["mcp__calc__wipe"],
    )
    messages = [m async for m in query(prompt="Do the sums", options=opts)]
    init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
    results = [m for m in messages if isinstance(m, ResultMessage)]
    return {
        "calls": calls,
        "mcp_servers": init.data.get("mcp_servers"),
        "mcp_tools": [t for t in init.data.get("tools", []) if t.startswith("mcp__")],
        "tool_results": tool_results(messages),
        "result": result_summary(results[-1]) if results else None,
    }


async def plugins(tack: str) -> dict:
    local = {"type": "local", "path": os.environ["TACK_TEST_PLUGIN"]}
    opts = options(tack, plugins=[local])
    messages = [m async for m in query(prompt="/kit:commit fix typo", options=opts)]
    init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
    result = next(m for m in messages if isinstance(m, ResultMessage))
    return {
        "plugins": init.data.get("plugins"),
        "slash_commands": init.data.get("slash_commands"),
        "skills": init.data.get("skills"),
        "result": result_summary(result),
    }


SCENARIOS = {
    "new_hook_events": new_hook_events,
    "sdk_mcp": sdk_mcp,
    "clear": clear,
    "plugins": plugins,
    "control": control,
    "structured": structured,
    "hook_events": hook_events,
    "replay": replay,
    "deny_write": deny_write,
    "hook": hook,
    "interrupt": interrupt,
    "result_fields": result_fields,
    "rewind": rewind,
    "sessions": sessions,
    "session_store": session_store,
}


async def main() -> None:
    scenario, tack = sys.argv[1], sys.argv[2]
    report: dict = {"sdk": "python", "scenario": scenario}
    try:
        with anyio.fail_after(60):
            report["observations"] = await SCENARIOS[scenario](tack)
    except Exception as e:  # the observation is the failure itself
        report["error"] = f"{type(e).__name__}: {e}"
        # The Python SDK does not put tack's stderr in its exceptions.
        report["stderr"] = STDERR[-20:]
    report["parser"] = parser_report()
    print(json.dumps(report, sort_keys=True))


anyio.run(main)
