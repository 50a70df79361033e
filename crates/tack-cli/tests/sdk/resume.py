"""Scenarios for the Python Agent SDK's truncating resume (resume_session_at
with resume_drops_turn), as its own end-to-end suite asks of the CLI, driven
against tack and the scripted model server.

Usage: python resume.py SCENARIO TACK_BINARY

Run by crates/tack-cli/tests/sdk_resume.rs in a temp project (the cwd). Each
scenario first runs a two-turn session through the client ("one", then "two"),
then forks it at the end of turn one with query() and a third prompt:

  drops_matching   resume_drops_turn names turn two's prompt: the fork goes
                   ahead; the prompts of the fork and of the source session,
                   read back as the SDK reads sessions
  drops_wrong      resume_drops_turn names a uuid of no record: the exception
                   query() raises, and the source session's prompts
"""

import uuid

from claude_agent_sdk import (
    AssistantMessage,
    ClaudeSDKClient,
    ResultMessage,
    get_session_messages,
    query,
)

from e2e import options, serve


async def two_turns(tack: str) -> dict:
    """The session id, the uuid of turn one's last assistant message, the
    uuid of turn two's prompt, and whether that prompt is the record right
    after it in the session's chain."""
    last_of_one = None
    results: list = []
    async with ClaudeSDKClient(options(tack, max_turns=1)) as client:
        for prompt in ["one", "two"]:
            await client.query(prompt)
            async for message in client.receive_response():
                if isinstance(message, AssistantMessage) and prompt == "one":
                    last_of_one = message
                elif isinstance(message, ResultMessage):
                    results.append(message)
    session_id = results[-1].session_id
    chain = get_session_messages(session_id, directory=options(tack).cwd)
    uuids = [m.uuid for m in chain]
    two = next(
        i for i, m in enumerate(chain)
        if m.type == "user" and m.message.get("content") == "two"
    )
    return {
        "session_id": session_id,
        "keep_at": last_of_one.uuid,
        "two": chain[two].uuid,
        "two_follows": last_of_one.uuid in uuids and uuids.index(last_of_one.uuid) + 1 == two,
        "errors": [r.is_error for r in results],
    }


def prompts(tack: str, session_id: str) -> list:
    """The plain-text prompts of a session, as the SDK reads them back."""
    return [
        m.message["content"]
        for m in get_session_messages(session_id, directory=options(tack).cwd)
        if m.type == "user" and isinstance(m.message.get("content"), str)
    ]


def fork_options(tack: str, source: dict, drops: str):
    return options(
        tack,
        max_turns=1,
        resume=source["session_id"],
        fork_session=True,
        resume_session_at=source["keep_at"],
        resume_drops_turn=drops,
    )


async def drops_matching(tack: str) -> dict:
    source = await two_turns(tack)
    forked = None
    async for message in query(prompt="three", options=fork_options(tack, source, source["two"])):
        if isinstance(message, ResultMessage):
            forked = message
    return {
        "source": {"errors": source["errors"], "two_follows": source["two_follows"]},
        "forked": {
            "is_error": forked.is_error,
            "new_session": forked.session_id != source["session_id"],
            "prompts": prompts(tack, forked.session_id),
        },
        "source_prompts": prompts(tack, source["session_id"]),
    }


async def drops_wrong(tack: str) -> dict:
    source = await two_turns(tack)
    raised = None
    try:
        async for _ in query(prompt="three", options=fork_options(tack, source, str(uuid.uuid4()))):
            pass
    except Exception as e:  # noqa: BLE001 -- the exception is the observation
        raised = e
    return {
        "source": {"errors": source["errors"], "two_follows": source["two_follows"]},
        "exception": raised and {
            "types": [t.__name__ for t in type(raised).__mro__[:3]],
            "text": str(raised),
        },
        "source_prompts": prompts(tack, source["session_id"]),
    }


SCENARIOS = {
    "drops_matching": drops_matching,
    "drops_wrong": drops_wrong,
}


if __name__ == "__main__":
    serve(SCENARIOS)
