"""Scenarios for what the Python Agent SDK's own end-to-end suite checks of
the CLI (claude-agent-sdk 0.2.189), driven against tack and the scripted model
server.

Usage: python e2e.py SCENARIO TACK_BINARY

Run by crates/tack-cli/tests/sdk_e2e.rs in a temp project (the cwd), with
ANTHROPIC_BASE_URL pointing at the scripted server. Prints one JSON line:
{"observations": ...} or {"error": ...}. Scenarios:

  setting_sources  system/init of four sessions in a project with a command and
                   a local outputStyle: setting_sources=["user"], then
                   ["user", "project", "local"], then [], then None (omitted)
  defer            a PreToolUse hook defers the model's Bash call (the result
                   carries it), then the session resumes with no prompt under a
                   hook that denies it: through query() and through the client
  background       query() with a string prompt and a Write hook: the model
                   starts a background agent and ends its turn; the agent's
                   end wakes a second turn, whose Write hook is still served
  verbatim         with tools=[], a prompt naming a file outside the project
                   as @/abs/path: through query() without verbatim_prompts,
                   then with it, then through the client with it; the file
                   attachments each session's transcript records (read as
                   the SDK reads sessions)

  hooks            SDK callback hooks as the suite's hook tests register
                   them, one client session each: PreToolUse answering allow
                   with additionalContext, PostToolUse with additionalContext,
                   Notification, SessionStart, and all four together (Bash
                   allowed; the model runs echo where a tool is used)

Newer SDKs' options, passed as the flags they become (extra_args):
  persist          persist_session=False (--no-session-persistence) through
                   query() and the client, a persisted control run, the
                   sessions list_sessions finds, and a resume of an
                   unpersisted session
  prompts          permission_prompts="none" (--permission-prompts none): a
                   Write in default mode with an approving can_use_tool
                   (control, in host/), the same with "none" through the
                   client (in client/), and "none" through query() without a
                   callback (in query/)
  message_fields   what AssistantMessage and ResultMessage carry, without and
                   with include_partial_messages (the newer parser's
                   AssistantMessage.id is the record's message.id)
"""

import json
import os
import sys
from pathlib import Path

import anyio
from claude_agent_sdk._internal.sessions import (
    _parse_transcript_entries,
    _read_session_file,
)
from claude_agent_sdk import (
    AgentDefinition,
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    ResultMessage,
    SystemMessage,
    list_sessions,
    query,
)

STDERR: list[str] = []


def options(tack: str, **kwargs) -> ClaudeAgentOptions:
    base = {"cli_path": tack, "cwd": os.getcwd(), "stderr": STDERR.append}
    return ClaudeAgentOptions(**{**base, **kwargs})


async def run(opts: ClaudeAgentOptions, prompt: str, client: bool) -> list:
    """Every message of one prompt, through the client or query()."""
    if not client:
        return [m async for m in query(prompt=prompt, options=opts)]
    async with ClaudeSDKClient(options=opts) as c:
        await c.query(prompt)
        return [m async for m in c.receive_response()]


def final(messages: list) -> ResultMessage:
    (result,) = [m for m in messages if isinstance(m, ResultMessage)]
    return result


async def init_data(opts: ClaudeAgentOptions, prompt: str) -> dict:
    data: dict = {}
    async with ClaudeSDKClient(options=opts) as client:
        await client.query(prompt)
        async for message in client.receive_response():
            if isinstance(message, SystemMessage) and message.subtype == "init":
                data = message.data
    return data


async def setting_sources(tack: str) -> dict:
    project = Path(os.getcwd())
    (project / ".claude/commands").mkdir(parents=True)
    (project / ".claude/commands/testcmd.md").write_text(
        "---\ndescription: Test command\n---\n\nThis is a test command.\n"
    )
    (project / ".claude/settings.local.json").write_text('{"outputStyle": "local-test-style"}')
    seen = {}
    # None passes no --setting-sources (every level, as Claude Code reads them
    # then); [] passes an empty one (none at all).
    runs = [("user", ["user"]), ("all", ["user", "project", "local"]), ("none", []), ("omitted", None)]
    for name, sources in runs:
        init = await init_data(options(tack, setting_sources=sources, max_turns=1), "2 + 2?")
        seen[name] = {
            "output_style": init.get("output_style"),
            "slash_commands": init.get("slash_commands"),
        }
    return seen


def result_of(message: ResultMessage) -> dict:
    deferred = message.deferred_tool_use
    return {
        "is_error": message.is_error,
        "num_turns": message.num_turns,
        "result": message.result,
        "stop_reason": message.stop_reason,
        "terminal_reason": message.terminal_reason,
        "deferred_tool_use": deferred and {
            "id": deferred.id,
            "name": deferred.name,
            "input": deferred.input,
        },
    }


def decision(calls: list, verdict: str, reason: str):
    async def hook(data, tool_use_id, context):
        calls.append({"verdict": verdict, "tool_use_id": tool_use_id})
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": verdict,
                "permissionDecisionReason": reason,
            }
        }

    return hook


async def no_prompt():
    return
    yield {}


async def defer(tack: str) -> dict:
    seen: dict = {}
    for api in ["query", "client"]:
        calls: list = []

        def opts(verdict: str, reason: str, resume=None) -> ClaudeAgentOptions:
            hook = decision(calls, verdict, reason)
            return options(
                tack,
                setting_sources=[],
                tools=["Bash"],
                allowed_tools=["Bash"],
                hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook])]},
                max_turns=3,
                resume=resume,
                # As the suite runs it: sessions kept (and resumed) there.
                env={"CLAUDE_CONFIG_DIR": str(Path("config").absolute())},
            )

        first = [m async for m in query(prompt="Run it.", options=opts("defer", "Later"))]
        (deferred,) = [m for m in first if isinstance(m, ResultMessage)]
        resumed_opts = opts("deny", "Approval was denied", deferred.session_id)
        if api == "query":
            resumed = [m async for m in query(prompt=no_prompt(), options=resumed_opts)]
        else:
            async with ClaudeSDKClient(options=resumed_opts) as client:
                resumed = [m async for m in client.receive_response()]
        (result,) = [m for m in resumed if isinstance(m, ResultMessage)]
        seen[api] = {
            "deferred": result_of(deferred),
            "resumed": result_of(result),
            "same_session": result.session_id == deferred.session_id,
            "hook_calls": calls,
            "marker_exists": Path("executed.txt").exists(),
            "kept_in_config_dir": any(Path("config/projects").glob(f"*/{result.session_id}.jsonl")),
        }
    return seen


async def background(tack: str) -> dict:
    asked: list = []

    async def hook(data, tool_use_id, context):
        asked.append(data["tool_name"])
        return {}

    worker = AgentDefinition(description="One word.", prompt="Reply DONE.", tools=[])
    opts = options(
        tack,
        setting_sources=[],
        tools=["Agent", "Write"],
        allowed_tools=["Write"],
        hooks={"PreToolUse": [HookMatcher(matcher="Write", hooks=[hook])]},
        agents={"worker": worker},
    )
    messages = [m async for m in query(prompt="Start the worker.", options=opts)]
    results = [m for m in messages if isinstance(m, ResultMessage)]
    return {
        "results": [{"is_error": r.is_error, "result": r.result} for r in results],
        "system": sorted(m.subtype for m in messages if isinstance(m, SystemMessage)),
        "hook_asked": asked,
        "out_txt": Path("out.txt").read_text() if Path("out.txt").exists() else None,
    }


def attached_files(session_id: str | None) -> list:
    content = _read_session_file(session_id, os.getcwd()) if session_id else None
    if not content:
        raise RuntimeError(f"no transcript for session {session_id}")
    return [
        entry["attachment"]
        for entry in _parse_transcript_entries(content)
        if entry["type"] == "attachment" and entry["attachment"].get("type") == "file"
    ]


async def verbatim(tack: str) -> dict:
    outside = Path(os.environ["HOME"]) / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("The marker is MARKER-1234.\n")
    prompt = f"What marker does this file contain? @{secret}"

    def opts(verbatim_prompts: bool) -> ClaudeAgentOptions:
        return options(
            tack,
            verbatim_prompts=verbatim_prompts,
            tools=[],
            setting_sources=[],
            extra_args={"strict-mcp-config": None},
            max_turns=1,
        )

    async def via_query(verbatim_prompts: bool) -> list:
        results = [
            m async for m in query(prompt=prompt, options=opts(verbatim_prompts))
            if isinstance(m, ResultMessage)
        ]
        return attached_files(results[-1].session_id)

    async def via_client() -> list:
        session_id = None
        async with ClaudeSDKClient(options=opts(True)) as client:
            await client.query(prompt)
            async for message in client.receive_response():
                if isinstance(message, ResultMessage):
                    session_id = message.session_id
        return attached_files(session_id)

    return {
        "file": str(secret),
        "expanded": await via_query(False),
        "query_verbatim": await via_query(True),
        "client_verbatim": await via_client(),
    }


async def persist(tack: str) -> dict:
    def opts(persisted: bool, resume=None) -> ClaudeAgentOptions:
        extra: dict = {"strict-mcp-config": None}
        if not persisted:
            extra["no-session-persistence"] = None
        return options(
            tack, tools=[], setting_sources=[], extra_args=extra, max_turns=1, resume=resume
        )

    prompt = "Reply with only the word OK."
    kept = final(await run(opts(True), prompt, client=False))
    by_query = final(await run(opts(False), prompt, client=False))
    by_client = final(await run(opts(False), prompt, client=True))
    listed = {s.session_id for s in list_sessions(directory=os.getcwd())}
    STDERR.clear()
    try:
        resumed = final(await run(opts(True, by_query.session_id), prompt, client=False))
        resume = {"result": resumed.result, "is_error": resumed.is_error}
    except Exception as e:  # the CLI's refusal, as the SDK reports it
        resume = {"raised": type(e).__name__, "message": str(e).splitlines()[0]}
    return {
        "results": [r.result for r in (kept, by_query, by_client)],
        "listed": {
            "kept": kept.session_id in listed,
            "query": by_query.session_id in listed,
            "client": by_client.session_id in listed,
            "count": len(listed),
        },
        "ids": [kept.session_id, by_query.session_id, by_client.session_id],
        "resume": resume,
    }


async def prompts(tack: str) -> dict:
    prompt = "Use the Write tool to create out.txt containing the word hi."
    seen: dict = {}
    for name, none, client in [("host", False, True), ("client", True, True), ("query", True, False)]:
        folder = Path(os.getcwd()) / name
        folder.mkdir()
        asked: list = []

        async def can_use_tool(tool_name, tool_input, context, asked=asked):
            asked.append(tool_name)
            return PermissionResultAllow()

        extra: dict = {"strict-mcp-config": None}
        if none:
            extra["permission-prompts"] = "none"
        opts = options(
            tack,
            cwd=str(folder),
            tools=["Write"],
            permission_mode="default",
            setting_sources=[],
            extra_args=extra,
            max_turns=3,
            can_use_tool=can_use_tool if client else None,
        )
        result = final(await run(opts, prompt, client))
        seen[name] = {
            "asked": asked,
            "written": (folder / "out.txt").exists(),
            "is_error": result.is_error,
            "result": result.result,
            "denials": [d["tool_name"] for d in result.permission_denials or []],
        }
    return seen


async def message_fields(tack: str) -> dict:
    seen: dict = {}
    for name, partial in [("plain", False), ("partial", True)]:
        opts = options(
            tack, model="claude-sonnet-4-5", max_turns=1, include_partial_messages=partial
        )
        messages = await run(opts, "Say hi", client=True)
        assistant = next(m for m in messages if isinstance(m, AssistantMessage))
        result = final(messages)
        usage = result.model_usage or {}
        seen[name] = {
            "assistant": {
                "model": assistant.model,
                "id": assistant.message_id,
                "usage": sorted(assistant.usage or {}),
                "stop_reason": assistant.stop_reason,
                "same_session": assistant.session_id == result.session_id,
                "uuid": bool(assistant.uuid),
            },
            "result": {
                "model_usage": {k: sorted(v) for k, v in usage.items()},
                "cost_is_the_sum": abs(
                    (result.total_cost_usd or 0) - sum(v["costUSD"] for v in usage.values())
                )
                < 1e-4,
                "permission_denials": result.permission_denials,
                "uuid": bool(result.uuid),
            },
        }
    return seen


async def hooks(tack: str) -> dict:
    def recorder(seen: list, event: str, answer: dict):
        async def hook(data, tool_use_id, context):
            seen.append({
                "event": data.get("hook_event_name"),
                "tool_name": data.get("tool_name"),
                "tool_use_id": data.get("tool_use_id"),
                "source": data.get("source"),
                "notification_type": data.get("notification_type"),
            })
            return {"hookSpecificOutput": {"hookEventName": event, **answer}} if answer else {}

        return hook

    pre = {
        "permissionDecision": "allow",
        "permissionDecisionReason": "Approved with context",
        "additionalContext": "PRE-CONTEXT",
    }
    post = {"additionalContext": "POST-CONTEXT"}
    runs = [
        ("pre", "Run: echo pre", {"PreToolUse": ("Bash", pre)}),
        ("post", "Run: echo post", {"PostToolUse": ("Bash", post)}),
        ("notification", "Say hello.", {"Notification": (None, {})}),
        ("session_start", "Say hello.", {"SessionStart": (None, {"additionalContext": "SESSION-CONTEXT"})}),
        ("together", "Run: echo all", {
            "SessionStart": (None, {}),
            "Notification": (None, {}),
            "PreToolUse": ("Bash", {}),
            "PostToolUse": ("Bash", {}),
        }),
    ]
    seen_by_run: dict = {}
    for name, prompt, events in runs:
        seen: list = []
        registered = {
            event: [HookMatcher(matcher=matcher, hooks=[recorder(seen, event, answer)])]
            for event, (matcher, answer) in events.items()
        }
        opts = options(tack, allowed_tools=["Bash"], hooks=registered)
        result = final(await run(opts, prompt, client=True))
        seen_by_run[name] = {"calls": seen, "is_error": result.is_error, "result": result.result}
    return seen_by_run


SCENARIOS = {
    "background": background,
    "defer": defer,
    "hooks": hooks,
    "message_fields": message_fields,
    "persist": persist,
    "prompts": prompts,
    "setting_sources": setting_sources,
    "verbatim": verbatim,
}


def serve(scenarios: dict) -> None:
    """Runs the scenario argv names (with tack's path) and prints its report;
    other drivers (run_end.py) import this with their own scenarios."""
    scenario, tack = sys.argv[1], sys.argv[2]

    async def main() -> None:
        report: dict = {"scenario": scenario}
        try:
            with anyio.fail_after(60):
                report["observations"] = await scenarios[scenario](tack)
        except Exception as e:  # the observation is the failure itself
            report["error"] = f"{type(e).__name__}: {e}"
            report["stderr"] = STDERR[-20:]
        print(json.dumps(report, sort_keys=True))

    anyio.run(main)


if __name__ == "__main__":
    serve(SCENARIOS)
