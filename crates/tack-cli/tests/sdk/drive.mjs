// Drives tack through the official TypeScript Agent SDK
// (@anthropic-ai/claude-agent-sdk 0.3.332).
//
// Usage: node drive.mjs SCENARIO TACK_BINARY SDK_MODULE
//   SDK_MODULE: path of the installed package's sdk.mjs
//
// The twin of drive.py (same scenarios, same observation shape; see its
// docstring). The TypeScript SDK does not parse records, it hands the JSON
// objects to the caller typed as SDKMessage, so `parser` checks every record
// against the SDKMessage union (records.json): a known type/subtype with every
// key its type requires.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [scenario, tack, sdkModule] = process.argv.slice(2);
const sdk = await import(sdkModule);
const { query } = sdk;
const schema = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), "records.json"), "utf8"),
);
const DENY_MESSAGE = "Writes are not allowed";
const STRUCTURED_SCHEMA = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), "structured_schema.json"), "utf8"),
);
// Command hooks from settings (the twin of drive.py's).
const HOOK_SETTINGS = JSON.stringify({
  hooks: {
    SessionStart: [{ hooks: [{ type: "command", command: "echo started" }] }],
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo pre >&2" }] }],
    PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 3" }] }],
  },
});
const REPLAY_UUID = "0b1c4c2e-5d4e-4b8a-9f1e-2a3b4c5d6e7f";
// A 1x1 PNG, for a tool that answers with an image (as in drive.py).
const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** The twin of drive.py's in-process server "calc"; `onAdd` runs in add. */
async function calcServer(calls, onAdd = () => {}) {
  const { z } = await import(createRequire(sdkModule).resolve("zod"));
  const text = (t) => ({ content: [{ type: "text", text: t }] });
  const tools = [
    sdk.tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async (args) => {
      calls.push(["add", args]);
      await onAdd();
      return text(String(args.a + args.b));
    }),
    sdk.tool("divide", "Divide a by b", { a: z.number(), b: z.number() }, async (args) => {
      calls.push(["divide", args]);
      return { ...text("cannot divide by zero"), isError: true };
    }),
    sdk.tool("chart", "Draw a chart", {}, async (args) => {
      calls.push(["chart", args]);
      return { content: [{ type: "image", data: PIXEL, mimeType: "image/png" }] };
    }),
    sdk.tool("wipe", "Forget everything", {}, async (args) => {
      calls.push(["wipe", args]);
      return text("wiped");
    }),
    sdk.tool("secret", "Tell a secret", {}, async (args) => {
      calls.push(["secret", args]);
      return text("the secret");
    }),
  ];
  const server = sdk.createSdkMcpServer({ name: "calculator", version: "1.0.0", tools });
  return { server, z };
}

function mcpObservations(calls, messages) {
  const init = messages.find((m) => m.type === "system" && m.subtype === "init");
  const results = messages.filter((m) => m.type === "result");
  return {
    calls,
    mcp_servers: init?.mcp_servers ?? null,
    mcp_tools: (init?.tools ?? []).filter((t) => t.startsWith("mcp__")),
    tool_results: toolResults(messages),
    result: results.length ? resultSummary(results.at(-1)) : null,
  };
}
const RECORDS = [];
const WARNINGS = [];
process.on("warning", (w) => WARNINGS.push(`${w.name}: ${w.message}`));

function kind(record) {
  let k = String(record.type);
  if ((k === "system" || k === "result") && record.subtype !== undefined) k += `/${record.subtype}`;
  return k;
}

function parserReport() {
  const kinds = [];
  const unknown = [];
  const missing = [];
  for (const record of RECORDS) {
    const k = kind(record);
    kinds.push(k);
    const base = k.startsWith("result/") ? "result" : k;
    if (!schema.known.includes(base)) unknown.push(k);
    for (const key of schema.required[k] ?? []) {
      const [holder, name] = key.startsWith("message.")
        ? [record.message ?? {}, key.slice("message.".length)]
        : [record, key];
      if (!(name in holder)) missing.push(`${k}: ${key}`);
    }
  }
  return { kinds, rejected: [], unknown, missing, warnings: WARNINGS };
}

function options(extra) {
  return {
    pathToClaudeCodeExecutable: tack,
    cwd: process.cwd(),
    env: { ...process.env },
    stderr: () => {},
    ...extra,
  };
}

async function collect(q) {
  const messages = [];
  for await (const m of q) {
    RECORDS.push(m);
    messages.push(m);
  }
  return messages;
}

function resultSummary(r) {
  return {
    subtype: r.subtype,
    is_error: r.is_error,
    num_turns: r.num_turns,
    result: r.result ?? null,
    terminal_reason: r.terminal_reason ?? null,
    permission_denials: r.permission_denials ?? null,
  };
}

function toolResults(messages) {
  return messages
    .filter((m) => m.type === "user" && Array.isArray(m.message?.content))
    .flatMap((m) => m.message.content)
    .filter((b) => b.type === "tool_result")
    .map((b) => ({ tool_use_id: b.tool_use_id, is_error: b.is_error ?? null, content: b.content ?? null }));
}

/** An input stream the caller feeds: push() a prompt, end() to close stdin. */
function inputQueue() {
  const pending = [];
  let wake = null;
  let done = false;
  return {
    push(text, uuid) {
      pending.push({
        type: "user",
        message: { role: "user", content: [{ type: "text", text }] },
        parent_tool_use_id: null,
        session_id: "",
        ...(uuid ? { uuid } : {}),
      });
      wake?.();
    },
    end() {
      done = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (pending.length > 0) yield pending.shift();
        else if (done) return;
        else await new Promise((resolve) => (wake = resolve));
      }
    },
  };
}

const lastResult = (messages) => messages.filter((m) => m.type === "result").at(-1);

const scenarios = {
  async sdk_mcp() {
    const calls = [];
    const { server } = await calcServer(calls);
    const messages = await collect(
      query({
        prompt: "Do the sums",
        options: options({
          mcpServers: { calc: server },
          allowedTools: ["mcp__calc__add", "mcp__calc__divide", "mcp__calc__chart"],
          disallowedTools: ["mcp__calc__wipe"],
        }),
      }),
    );
    return mcpObservations(calls, messages);
  },

  // TypeScript only: setPermissionMode resolves with the mode in effect
  // (0.3.332), and the session's init names it.
  async set_mode() {
    const input = inputQueue();
    const q = query({ prompt: input, options: options({}) });
    const answer = await q.setPermissionMode("acceptEdits");
    input.push("Say hello");
    input.end();
    const messages = await collect(q);
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    return { answer: answer ?? null, init_mode: init?.permissionMode ?? null };
  },

  // TypeScript only (the Python SDK sends no sdkMcpServerConfigs): the host
  // declares a 1 s timeout for calc, secret always_ask and wipe always_deny,
  // though allowedTools names all three; add takes 2 s.
  async sdk_mcp_policy() {
    const calls = [];
    const asked = [];
    const { server } = await calcServer(calls, () => new Promise((r) => setTimeout(r, 2000)));
    const tools = [
      { name: "secret", permission_policy: "always_ask" },
      { name: "wipe", permission_policy: "always_deny" },
    ];
    const messages = await collect(
      query({
        prompt: "Use the tools",
        options: options({
          mcpServers: { calc: { ...server, timeout: 1000, tools } },
          allowedTools: ["mcp__calc__add", "mcp__calc__secret", "mcp__calc__wipe"],
          canUseTool: async (toolName, toolInput) => {
            asked.push(toolName);
            return { behavior: "allow", updatedInput: toolInput };
          },
        }),
      }),
    );
    return { asked, ...mcpObservations(calls, messages) };
  },

  // TypeScript only (Python's SDK drops what its servers send on their own):
  // add registers a tool, the server says its list changed, and the next
  // turn offers and calls it.
  async sdk_mcp_list_changed() {
    const calls = [];
    let added = false;
    let calc;
    const { server, z } = await calcServer(calls, () => {
      if (added) return;
      added = true;
      calc.instance.registerTool(
        "square",
        { description: "Square a number", inputSchema: { x: z.number() } },
        async (args) => {
          calls.push(["square", args]);
          return { content: [{ type: "text", text: String(args.x * args.x) }] };
        },
      );
    });
    calc = server;
    const input = inputQueue();
    const q = query({
      prompt: input,
      options: options({
        mcpServers: { calc: server },
        allowedTools: ["mcp__calc__add", "mcp__calc__square"],
      }),
    });
    const messages = [];
    input.push("Add 2 and 3");
    for await (const m of q) {
      RECORDS.push(m);
      messages.push(m);
      if (m.type !== "result") continue;
      if (messages.filter((x) => x.type === "result").length === 1) input.push("Square 4");
      else input.end();
    }
    return mcpObservations(calls, messages);
  },

  // Servers changed while the session runs: setMcpServers adds the
  // fixture server (its tool is offered from the next turn), toggle turns it
  // off and on, reconnect starts it again, an empty set removes it.
  async mcp_control() {
    const input = inputQueue();
    const q = query({ prompt: input, options: options({ allowedTools: ["mcp__fx__echo"] }) });
    const seen = {};
    const status = async () => (await q.mcpServerStatus()).map((s) => [s.name, s.status]);
    const messages = [];
    input.push("First");
    for await (const m of q) {
      RECORDS.push(m);
      messages.push(m);
      if (m.type !== "result") continue;
      if (messages.filter((x) => x.type === "result").length > 1) {
        seen.cleared = await q.setMcpServers({});
        seen.after_clear = await status();
        input.end();
        continue;
      }
      seen.set = await q.setMcpServers({
        fx: { type: "stdio", command: process.env.TACK_MCP_FIXTURE },
      });
      seen.after_set = await status();
      await q.toggleMcpServer("fx", false);
      seen.after_off = await status();
      await q.toggleMcpServer("fx", true);
      await q.reconnectMcpServer("fx");
      seen.after_on = await status();
      try {
        await q.reconnectMcpServer("nope");
      } catch (e) {
        seen.unknown = String(e?.message ?? e);
      }
      input.push("Echo hi");
    }
    return { ...seen, tool_results: toolResults(messages) };
  },

  async structured() {
    const messages = await collect(
      query({
        prompt: "Check a.txt",
        options: options({ outputFormat: { type: "json_schema", schema: STRUCTURED_SCHEMA } }),
      }),
    );
    const result = lastResult(messages);
    return {
      result: result ? resultSummary(result) : null,
      structured_output: result?.structured_output ?? null,
      tool_results: toolResults(messages),
    };
  },
  async deny_write() {
    const calls = [];
    const input = inputQueue();
    input.push("Write out.txt");
    input.end();
    const messages = await collect(
      query({
        prompt: input,
        options: options({
          canUseTool: async (toolName, toolInput, { toolUseID }) => {
            calls.push({ tool_name: toolName, input: toolInput, tool_use_id: toolUseID });
            return { behavior: "deny", message: DENY_MESSAGE };
          },
        }),
      }),
    );
    const result = lastResult(messages);
    return {
      callback_calls: calls,
      file_exists: existsSync("out.txt"),
      tool_results: toolResults(messages),
      result: result ? resultSummary(result) : null,
    };
  },

  // TypeScript only (the pinned Python SDK has no such option): with
  // permissionPrompts "none" what would ask is denied and the callback idle.
  async prompts_none() {
    const calls = [];
    const messages = await collect(
      query({
        prompt: "Write out.txt",
        options: options({
          permissionPrompts: "none",
          canUseTool: async (toolName) => {
            calls.push(toolName);
            return { behavior: "allow", updatedInput: {} };
          },
        }),
      }),
    );
    const result = lastResult(messages);
    return {
      callback_calls: calls,
      file_exists: existsSync("out.txt"),
      tool_results: toolResults(messages),
      result: result ? resultSummary(result) : null,
    };
  },

  async hook() {
    const calls = [];
    const record = async (hookInput, toolUseID) => {
      calls.push({
        hook_event_name: hookInput.hook_event_name ?? null,
        tool_name: hookInput.tool_name ?? null,
        tool_input: hookInput.tool_input ?? null,
        tool_use_id: hookInput.tool_use_id ?? null,
        tool_use_id_argument: toolUseID ?? null,
      });
      return {};
    };
    const messages = await collect(
      query({
        prompt: "Look around, then write b.txt",
        options: options({ permissionMode: "acceptEdits", hooks: { PreToolUse: [{ hooks: [record] }] } }),
      }),
    );
    calls.sort((a, b) => String(a.tool_use_id).localeCompare(String(b.tool_use_id)));
    const result = lastResult(messages);
    return {
      hook_calls: calls,
      b_txt: existsSync("b.txt") ? readFileSync("b.txt", "utf8") : null,
      result: result ? resultSummary(result) : null,
    };
  },

  // The twin of drive.py's: a failed Read, then a Write a PermissionRequest
  // callback allows.
  async new_hook_events() {
    const calls = [];
    const keys = ["hook_event_name", "tool_name", "tool_input", "tool_use_id", "error", "is_interrupt"];
    const record = async (hookInput, toolUseID) => {
      const call = Object.fromEntries(keys.map((k) => [k, hookInput[k] ?? null]));
      calls.push({ ...call, tool_use_id_argument: toolUseID ?? null });
      if (hookInput.hook_event_name === "PermissionRequest") {
        return { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } };
      }
      const additionalContext = "the notes moved to docs/";
      return { hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext } };
    };
    const hooks = {
      PostToolUseFailure: [{ hooks: [record] }],
      PermissionRequest: [{ matcher: "Write", hooks: [record] }],
    };
    const messages = await collect(
      query({ prompt: "Read the notes, then write b.txt", options: options({ hooks }) }),
    );
    const result = lastResult(messages);
    return {
      hook_calls: calls,
      b_txt: existsSync("b.txt") ? readFileSync("b.txt", "utf8") : null,
      tool_results: toolResults(messages),
      result: result ? resultSummary(result) : null,
    };
  },

  async interrupt() {
    const observed = {};
    const input = inputQueue();
    const q = query({ prompt: input, options: options({ includePartialMessages: true }) });
    input.push("Tell me a long story");
    let sent;
    let first;
    let second;
    for await (const m of q) {
      RECORDS.push(m);
      if (m.type === "stream_event" && !observed.saw_delta && m.event?.type === "content_block_delta") {
        observed.saw_delta = true;
        await new Promise((resolve) => setTimeout(resolve, 1000));
        sent = performance.now();
        await q.interrupt();
        observed.interrupt_ack_ms = Math.round(performance.now() - sent);
      }
      if (m.type === "result" && first === undefined) {
        first = m;
        if (sent !== undefined) observed.interrupt_to_result_ms = Math.round(performance.now() - sent);
        input.push("Now a short one");
      } else if (m.type === "result") {
        second = m;
        input.end();
      }
    }
    observed.first = first ? resultSummary(first) : null;
    observed.second = second ? resultSummary(second) : null;
    observed.same_session = Boolean(first && second && first.session_id === second.session_id);
    return observed;
  },

  async rewind() {
    const observed = {};
    const read = (f) => (existsSync(f) ? readFileSync(f, "utf8") : null);
    const contents = () => ({ keep: read("keep.txt"), new: read("new.txt") });
    const input = inputQueue();
    const q = query({
      prompt: input,
      options: options({
        permissionMode: "acceptEdits",
        enableFileCheckpointing: true,
        extraArgs: { "replay-user-messages": null },
      }),
    });
    const uuids = [];
    let results = 0;
    input.push("Change keep.txt");
    for await (const m of q) {
      RECORDS.push(m);
      const toolResult = Array.isArray(m.message?.content) && m.message.content.some((b) => b.type === "tool_result");
      if (m.type === "user" && m.uuid && !toolResult) uuids.push(m.uuid);
      if (m.type !== "result") continue;
      results += 1;
      if (results === 1) {
        input.push("Change it again and add new.txt");
        continue;
      }
      observed.prompt_uuids = uuids.length;
      observed.after_turns = contents();
      observed.dry_run = await q.rewindFiles(uuids[0], { dryRun: true });
      observed.after_dry_run = contents();
      observed.rewind = await q.rewindFiles(uuids[0]);
      observed.after_rewind = contents();
      try {
        await q.rewindFiles("not-a-message");
        observed.unknown = "rewound";
      } catch (e) {
        observed.unknown = e?.message ?? String(e);
      }
      observed.unknown_dry_run = await q.rewindFiles("not-a-message", { dryRun: true });
      input.end();
    }
    return observed;
  },

  async hook_events() {
    const messages = await collect(
      query({
        prompt: "run it",
        options: options({ includeHookEvents: true, allowedTools: ["Bash"], settings: HOOK_SETTINGS }),
      }),
    );
    const hooks = messages
      .filter((m) => m.type === "system" && m.subtype.startsWith("hook_"))
      .map((m) => ({
        subtype: m.subtype,
        hook_event_name: m.hook_event,
        hook_name: m.hook_name,
        outcome: m.outcome ?? null,
        exit_code: m.exit_code ?? null,
        stdout: m.stdout ?? null,
        stderr: m.stderr ?? null,
      }));
    const result = lastResult(messages);
    return { hooks, result: result ? resultSummary(result) : null };
  },

  async clear() {
    const prompts = ["remember FIRST-TOPIC", "/clear", "what was the topic?"];
    const input = inputQueue();
    const q = query({ prompt: input, options: options({}) });
    const turns = [];
    let turn = { prompt: prompts[0], resets: [] };
    input.push(prompts[0]);
    for await (const m of q) {
      RECORDS.push(m);
      if (m.type === "conversation_reset") {
        turn.resets.push({ new_conversation_id: m.new_conversation_id, session_id: m.session_id });
      }
      if (m.type === "result") {
        turn.result = resultSummary(m);
        turn.session_id = m.session_id;
        turns.push(turn);
        const next = prompts[turns.length];
        if (next === undefined) input.end();
        else {
          turn = { prompt: next, resets: [] };
          input.push(next);
        }
      }
    }
    return { turns };
  },

  async replay() {
    const input = inputQueue();
    input.push("Say hello", REPLAY_UUID);
    input.end();
    const messages = await collect(
      query({ prompt: input, options: options({ extraArgs: { "replay-user-messages": null } }) }),
    );
    const result = lastResult(messages);
    return {
      replayed: messages
        .filter((m) => m.type === "user")
        .map((m) => ({
          uuid: m.uuid ?? null,
          content:
            typeof m.message.content === "string" ? m.message.content : m.message.content.map((b) => b.text ?? null),
        })),
      result: result ? resultSummary(result) : null,
    };
  },

  async plugins() {
    const plugins = [{ type: "local", path: process.env.TACK_TEST_PLUGIN }];
    const messages = await collect(query({ prompt: "/kit:commit fix typo", options: options({ plugins }) }));
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    const result = lastResult(messages);
    return {
      plugins: init?.plugins ?? null,
      slash_commands: init?.slash_commands ?? null,
      skills: init?.skills ?? null,
      result: result ? resultSummary(result) : null,
    };
  },

  async result_fields() {
    const messages = await collect(query({ prompt: "Say hello", options: options({ model: "claude-sonnet-4-5" }) }));
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    const result = messages.find((m) => m.type === "result");
    const assistant = messages.filter((m) => m.type === "assistant");
    const usage = result.usage ?? {};
    const pick = (obj, keys) => Object.fromEntries(keys.map((k) => [k, obj?.[k] ?? null]));
    return {
      result: {
        subtype: result.subtype,
        is_error: result.is_error,
        num_turns: result.num_turns,
        result: result.result ?? null,
        stop_reason: result.stop_reason ?? null,
        total_cost_usd: result.total_cost_usd ?? null,
        usage: pick(usage, ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]),
        model_usage_models: Object.keys(result.modelUsage ?? {}).sort(),
        permission_denials: result.permission_denials ?? null,
        duration_ms_is_int: Number.isInteger(result.duration_ms),
        uuid_is_set: Boolean(result.uuid),
      },
      session_ids_agree: new Set([init?.session_id, result.session_id, ...assistant.map((m) => m.session_id)]).size === 1,
      init: pick(init, ["model", "permissionMode", "apiKeySource", "cwd", "output_style"]),
      assistant_texts: assistant.flatMap((m) => m.message.content.filter((b) => b.type === "text").map((b) => b.text)),
    };
  },

  async sessions() {
    const messages = await collect(query({ prompt: "delegate it", options: options({ permissionMode: "bypassPermissions" }) }));
    const sid = messages.find((m) => m.type === "result").session_id;
    const dir = process.cwd();
    const gist = (ms) =>
      ms.map((m) => {
        const c = m.message.content;
        return [m.type, typeof c === "string" ? c : c.map((b) => b.text ?? b.name ?? b.tool_use_id)];
      });
    const listed = await sdk.listSessions({ dir });
    const agents = await sdk.listSubagents(sid, { dir });
    const sub = [];
    for (const a of agents) sub.push(await sdk.getSubagentMessages(sid, a, { dir }));
    return {
      sessions: listed.map((s) => ({
        same_id: s.sessionId === sid,
        summary: s.summary,
        first_prompt: s.firstPrompt ?? null,
        cwd: s.cwd === dir,
      })),
      messages: gist(await sdk.getSessionMessages(sid, { dir })),
      messages_in_any_project: (await sdk.getSessionMessages(sid)).length,
      subagents: agents.length,
      subagent_messages: sub.map(gist),
      subagent_parent_tool_use_ids: [...new Set(sub.flat().map((m) => m.parent_tool_use_id))].sort(),
    };
  },
};

const report = { sdk: "typescript", scenario };
const timeout = setTimeout(() => {
  report.error = "timed out after 60 s";
  report.parser = parserReport();
  console.log(JSON.stringify(report));
  process.exit(0);
}, 60_000);
try {
  report.observations = await scenarios[scenario]();
} catch (e) {
  report.error = `${e?.name ?? "Error"}: ${e?.message ?? e}`;
}
clearTimeout(timeout);
report.parser = parserReport();
console.log(JSON.stringify(report));
process.exit(0);
