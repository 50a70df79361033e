"""llama.cpp's OpenAI-compatible server (llama-cpp-python) for tests/llama.rs.

usage: serve.py MODEL.gguf PORT

The server is llama-cpp-python's own app, unchanged, with one ASGI layer in
front: a chat request with N tool results (N < 2) gets a `tool_choice`
naming its tool N, so a session calls its first two tools in turn, then
answers. A model of random weights answers nonsense, but a
forced call is written through the server's JSON-schema grammar, so it is a
valid call: that is how the test gets a real tool round trip out of a model
that knows nothing. The request the layer saw is appended to
$TACK_LLAMA_REQUESTS (one JSON line each) for the test to check.
"""

import json
import os
import sys

import uvicorn
from llama_cpp.server.app import create_app
from llama_cpp.server.settings import ModelSettings, ServerSettings

FORCED_CALLS = 2


def forcing_first_tool(app):
    async def layer(scope, receive, send):
        if scope["type"] != "http" or scope["path"] != "/v1/chat/completions":
            return await app(scope, receive, send)
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(body)
        with open(os.environ["TACK_LLAMA_REQUESTS"], "a") as log:
            log.write(json.dumps(request) + "\n")
        answered = sum(m.get("role") == "tool" for m in request.get("messages", []))
        tools = request.get("tools") or []
        if answered < min(FORCED_CALLS, len(tools)):
            name = tools[answered]["function"]["name"]
            request["tool_choice"] = {"type": "function", "function": {"name": name}}
        body = json.dumps(request).encode()
        headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await app({**scope, "headers": headers}, replay, send)

    return layer


def main(model, port):
    app = create_app(
        server_settings=ServerSettings(host="127.0.0.1", port=port),
        model_settings=[
            ModelSettings(
                model=model,
                model_alias="tiny",
                chat_format="chatml-function-calling",
                n_ctx=16384,
                seed=7,
                verbose=False,
            )
        ],
    )
    uvicorn.run(forcing_first_tool(app), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
