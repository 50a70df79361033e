"""How a one-shot run ends (the Python SDK's `end_user_input`, its issue
#1190), driven through the pinned SDK (claude-agent-sdk 0.2.187) against tack
and the scripted model server.

Usage: python run_end.py SCENARIO TACK_BINARY

Run by crates/tack-cli/tests/sdk_run_end.rs in a temp project (the cwd), with
ANTHROPIC_BASE_URL pointing at the scripted server. Prints one JSON line:
{"observations": ...} or {"error": ...}. The pinned SDK does not send
`end_user_input` itself; these scenarios send it as newer SDKs do (before a
string prompt's user message) and read stdout to its end, as they then do.

  declared  a Write hook, a background agent: the declaration, then the
            prompt; the model starts the agent and ends its turn (its result
            held until the agent ends), the agent's end wakes a second turn
            whose Write hook is served, and tack ends the run itself (stdout
            closes with stdin still open)
  declared_then_closed
            the same with nothing to answer: stdin closed right after the
            prompt; the woken turn still runs
  alone     the declaration with no prompt after it: answered, and the
            session waits for stdin's end
  hook_only a plain query() with a string prompt and a hook: one result, no
            session_state_changed frame in the caller's stream
  follow_up without the declaration: query() with a Write hook that allows the
            call (no allowed_tools), the background agent's end wakes a turn
            whose Write the hook grants; once as the SDK runs it (it asks for
            sdk_host_only state frames and hides them), once with the caller
            opted in to the frames (CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS);
            the frames on the wire and the ones the caller saw
"""

import os
from pathlib import Path

from claude_agent_sdk import (
    AgentDefinition,
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    ResultMessage,
    SystemMessage,
    ToolUseBlock,
    query,
)
from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

from e2e import STDERR, serve

DECLARATION = {"subtype": "end_user_input"}


def options(tack: str, **kwargs) -> ClaudeAgentOptions:
    return ClaudeAgentOptions(
        cli_path=tack,
        cwd=os.getcwd(),
        stderr=STDERR.append,
        setting_sources=[],
        extra_args={"strict-mcp-config": None},
        **kwargs,
    )


def recording(asked: list):
    async def hook(data, tool_use_id, context):
        asked.append(data["tool_name"])
        return {}

    return hook


def result_of(message: ResultMessage) -> dict:
    return {
        "is_error": message.is_error,
        "num_turns": message.num_turns,
        "result": message.result,
    }


async def declared(tack: str) -> dict:
    asked: list = []
    worker = AgentDefinition(description="One word.", prompt="Reply DONE.", tools=[])
    opts = options(
        tack,
        tools=["Agent", "Write"],
        allowed_tools=["Write"],
        hooks={"PreToolUse": [HookMatcher(matcher="Write", hooks=[recording(asked)])]},
        agents={"worker": worker},
    )
    async with ClaudeSDKClient(options=opts) as client:
        reply = await client._query._send_control_request(DECLARATION, timeout=30)
        await client.query("Start the worker.")
        # Ends only when tack closes stdout: the client never closes stdin.
        messages = [m async for m in client.receive_messages()]
    return {
        "reply": reply,
        "results": [result_of(m) for m in messages if isinstance(m, ResultMessage)],
        "order": [
            "result" if isinstance(m, ResultMessage) else m.subtype
            for m in messages
            if isinstance(m, ResultMessage)
            or (isinstance(m, SystemMessage) and m.subtype.startswith("task_"))
        ],
        "system": sorted(m.subtype for m in messages if isinstance(m, SystemMessage)),
        "hook_asked": asked,
        "out_txt": Path("out.txt").read_text() if Path("out.txt").exists() else None,
    }


async def declared_then_closed(tack: str) -> dict:
    """As newer SDKs run a string prompt with nothing to answer (no hooks,
    callbacks or in-process servers): the declaration, the prompt, stdin
    closed at once; tack still waits for the background agent and runs the
    turn its end wakes."""
    worker = AgentDefinition(description="One word.", prompt="Reply DONE.", tools=[])
    opts = options(tack, tools=["Agent", "Write"], allowed_tools=["Write"], agents={"worker": worker})
    async with ClaudeSDKClient(options=opts) as client:
        reply = await client._query._send_control_request(DECLARATION, timeout=30)
        await client.query("Start the worker.")
        await client._transport.end_input()
        messages = [m async for m in client.receive_messages()]
    return {
        "reply": reply,
        "results": [result_of(m) for m in messages if isinstance(m, ResultMessage)],
        "out_txt": Path("out.txt").read_text() if Path("out.txt").exists() else None,
    }


async def alone(tack: str) -> dict:
    async with ClaudeSDKClient(options=options(tack, tools=[])) as client:
        reply = await client._query._send_control_request(DECLARATION, timeout=30)
    return {"reply": reply}


async def hook_only(tack: str) -> dict:
    asked: list = []
    opts = options(tack, tools=[], hooks={"PreToolUse": [HookMatcher(hooks=[recording(asked)])]})
    messages = [m async for m in query(prompt="Reply with OK.", options=opts)]
    return {
        "results": [result_of(m) for m in messages if isinstance(m, ResultMessage)],
        "system": sorted(m.subtype for m in messages if isinstance(m, SystemMessage)),
        "hook_asked": asked,
    }


def granting(asked: list):
    async def hook(data, tool_use_id, context):
        asked.append(data["tool_name"])
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}

    return hook


def state_of(frame: dict) -> dict:
    return {"state": frame.get("state"), "sdk_host_only": frame.get("sdk_host_only")}


async def follow_up(tack: str) -> dict:
    wire: list = []
    read_messages = SubprocessCLITransport.read_messages

    async def recording(self):
        async for message in read_messages(self):
            if message.get("subtype") == "session_state_changed":
                wire.append(state_of(message))
            yield message

    SubprocessCLITransport.read_messages = recording
    seen: dict = {}
    for variant, env in [("sdk", {}), ("caller", {"CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS": "1"})]:
        wire.clear()
        asked: list = []
        Path("out.txt").unlink(missing_ok=True)
        worker = AgentDefinition(description="One word.", prompt="Reply DONE.", tools=[])
        opts = options(
            tack,
            tools=["Agent", "Write"],
            hooks={"PreToolUse": [HookMatcher(matcher="Write", hooks=[granting(asked)])]},
            agents={"worker": worker},
            env=env,
        )
        messages = [m async for m in query(prompt="Start the worker.", options=opts)]
        kinds = []
        for m in messages:
            if isinstance(m, ResultMessage):
                kinds.append("result")
            elif isinstance(m, AssistantMessage):
                kinds.extend(f"tool_use:{b.name}" for b in m.content if isinstance(b, ToolUseBlock))
        seen[variant] = {
            "results": [result_of(m) for m in messages if isinstance(m, ResultMessage)],
            "tool_uses_and_results": kinds,
            "caller_states": [
                state_of(m.data)
                for m in messages
                if isinstance(m, SystemMessage) and m.subtype == "session_state_changed"
            ],
            "wire_states": list(wire),
            "hook_asked": asked,
            "out_txt": Path("out.txt").read_text() if Path("out.txt").exists() else None,
        }
    return seen


if __name__ == "__main__":
    serve(
        {
            "alone": alone,
            "declared": declared,
            "declared_then_closed": declared_then_closed,
            "follow_up": follow_up,
            "hook_only": hook_only,
        }
    )
