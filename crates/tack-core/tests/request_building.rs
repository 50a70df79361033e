//! Building requests: normalisation, user-context placement and prompt-cache
//! breakpoints.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_core::context::PromptContext;
use tack_core::request::{
    MAX_CACHE_BREAKPOINTS, RequestOptions, build_request, normalize_messages, system_reminder,
};
use tack_protocol::{
    CacheControl, ContentBlock, ImageSource, Message, MessagesRequest, Role, SystemBlock,
    SystemPrompt, ThinkingConfig, ToolDefinition, ToolResultContent, UnknownBlock,
};

fn text(t: &str) -> ContentBlock {
    ContentBlock::text(t)
}

fn tool_use(id: &str) -> ContentBlock {
    ContentBlock::tool_use(id, "Read", json!({"file_path": format!("/r/{id}.rs")}))
}

fn tool_result(id: &str) -> ContentBlock {
    ContentBlock::tool_result(id, format!("contents of {id}"), false)
}

fn thinking(t: &str) -> ContentBlock {
    ContentBlock::Thinking {
        thinking: t.into(),
        signature: format!("sig-{t}"),
    }
}

fn redacted() -> ContentBlock {
    ContentBlock::RedactedThinking {
        data: "opaque".into(),
    }
}

fn cached(mut block: ContentBlock) -> ContentBlock {
    if let Some(slot) = block.cache_control_mut() {
        *slot = Some(CacheControl::ephemeral());
    }
    block
}

fn tool_def(name: &str) -> ToolDefinition {
    ToolDefinition {
        name: name.into(),
        description: Some(format!("The {name} tool.")),
        input_schema: json!({"type": "object"}),
        cache_control: None,
    }
}

fn context() -> PromptContext {
    PromptContext {
        system_prompt: vec!["You are tack.".into()],
        user_context: Some("Contents of /r/CLAUDE.md: use tabs.".into()),
        system_context: Some("gitStatus: clean".into()),
    }
}

fn options(tools: &[ToolDefinition]) -> RequestOptions<'_> {
    RequestOptions {
        model: "claude-sonnet-4-5",
        max_tokens: 8192,
        tools,
        thinking: None,
        prompt_caching: true,
    }
}

/// Where the breakpoints are, as `tools[i]`, `system[i]` and `messages[m][b]`.
fn breakpoints(req: &MessagesRequest) -> Vec<String> {
    let mut out = Vec::new();
    for (i, tool) in req.tools.iter().enumerate() {
        if tool.cache_control.is_some() {
            out.push(format!("tools[{i}]"));
        }
    }
    if let Some(SystemPrompt::Blocks(blocks)) = &req.system {
        for (i, block) in blocks.iter().enumerate() {
            if block.cache_control.is_some() {
                out.push(format!("system[{i}]"));
            }
        }
    }
    for (m, message) in req.messages.iter().enumerate() {
        for (b, block) in message.content.iter().enumerate() {
            if block.cache_control().is_some() {
                out.push(format!("messages[{m}][{b}]"));
            }
        }
    }
    out
}

/// Every `cache_control` key anywhere in the serialised request, nested ones included.
fn cache_controls_in_json(value: &Value) -> usize {
    match value {
        Value::Object(map) => {
            usize::from(map.contains_key("cache_control"))
                + map.values().map(cache_controls_in_json).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(cache_controls_in_json).sum(),
        _ => 0,
    }
}

// ---------------------------------------------------------------- normalisation

#[test]
fn normalize_merges_same_role_runs_and_puts_tool_results_first() {
    let messages = vec![
        Message::user_text("fix the test"),
        Message::user_text("it is in core"),
        Message::assistant(vec![thinking("plan"), text(""), tool_use("t1")]),
        Message::assistant(vec![tool_use("t2")]),
        Message::user(vec![text("(interrupted? no)"), tool_result("t1")]),
        Message::user(vec![tool_result("t2"), text("  \n")]),
    ];
    let before = messages.clone();
    assert_eq!(
        normalize_messages(&messages),
        vec![
            Message::user(vec![text("fix the test"), text("it is in core")]),
            Message::assistant(vec![thinking("plan"), tool_use("t1"), tool_use("t2")]),
            Message::user(vec![
                tool_result("t1"),
                tool_result("t2"),
                text("(interrupted? no)")
            ]),
        ]
    );
    assert_eq!(messages, before, "the stored conversation is not modified");
}

#[test]
fn normalize_drops_empty_messages_and_merges_around_them() {
    let messages = vec![
        Message::user_text("a"),
        Message::assistant(vec![text("")]),
        Message::user_text("b"),
        Message::assistant(vec![]),
    ];
    assert_eq!(
        normalize_messages(&messages),
        vec![Message::user(vec![text("a"), text("b")])]
    );
}

#[test]
fn normalize_keeps_thinking_verbatim_and_strips_stale_cache_control() {
    let unknown = ContentBlock::Unknown(UnknownBlock(json!({
        "type": "web_search_tool_result", "tool_use_id": "srv_1", "content": [],
        "cache_control": {"type": "ephemeral"}
    })));
    let nested = ContentBlock::ToolResult {
        tool_use_id: "t1".into(),
        content: Some(ToolResultContent::Blocks(vec![
            cached(text("out")),
            text(""),
        ])),
        is_error: false,
        cache_control: Some(CacheControl::ephemeral()),
    };
    let only_empty = ContentBlock::ToolResult {
        tool_use_id: "t2".into(),
        content: Some(ToolResultContent::Blocks(vec![text(" ")])),
        is_error: true,
        cache_control: None,
    };
    let messages = vec![
        Message::user(vec![cached(text("go"))]),
        Message::assistant(vec![
            thinking("a"),
            redacted(),
            thinking("b"),
            unknown,
            cached(tool_use("t1")),
        ]),
        Message::user(vec![nested, only_empty]),
    ];
    assert_eq!(
        normalize_messages(&messages),
        vec![
            Message::user(vec![text("go")]),
            Message::assistant(vec![
                thinking("a"),
                redacted(),
                thinking("b"),
                ContentBlock::Unknown(UnknownBlock(json!({
                    "type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []
                }))),
                tool_use("t1"),
            ]),
            Message::user(vec![
                ContentBlock::tool_result("t1", vec![text("out")], false),
                ContentBlock::ToolResult {
                    tool_use_id: "t2".into(),
                    content: None,
                    is_error: true,
                    cache_control: None,
                },
            ]),
        ]
    );
}

// ---------------------------------------------------------------- build_request

#[test]
fn first_turn_request() {
    let tools = [tool_def("Read"), tool_def("Bash")];
    let mut opts = options(&tools);
    opts.thinking = Some(ThinkingConfig::Adaptive { display: None });
    let req = build_request(&context(), &[Message::user_text("hello")], &opts);

    let mut expected = MessagesRequest::new(
        "claude-sonnet-4-5",
        8192,
        vec![Message::user(vec![
            text("<system-reminder>\nContents of /r/CLAUDE.md: use tabs.\n</system-reminder>"),
            cached(text("hello")),
        ])],
    );
    expected.system = Some(SystemPrompt::Blocks(vec![
        SystemBlock {
            cache_control: Some(CacheControl::ephemeral()),
            ..SystemBlock::text("You are tack.")
        },
        SystemBlock {
            cache_control: Some(CacheControl::ephemeral()),
            ..SystemBlock::text("gitStatus: clean")
        },
    ]));
    expected.tools = tools.to_vec();
    expected.thinking = Some(ThinkingConfig::Adaptive { display: None });
    assert_eq!(req, expected);
}

#[test]
fn later_turn_request_has_the_user_context_once_at_the_start() {
    let conversation = vec![
        Message::user_text("hello"),
        Message::assistant(vec![thinking("look"), text("Reading."), tool_use("t1")]),
        Message::user(vec![tool_result("t1")]),
        Message::assistant(vec![text("Done.")]),
        Message::user_text("thanks, now the docs"),
    ];
    let before = conversation.clone();
    let req = build_request(&context(), &conversation, &options(&[]));

    let reminder = text(&system_reminder("Contents of /r/CLAUDE.md: use tabs."));
    assert_eq!(
        req.messages,
        vec![
            Message::user(vec![reminder, text("hello")]),
            Message::assistant(vec![thinking("look"), text("Reading."), tool_use("t1")]),
            Message::user(vec![tool_result("t1")]),
            Message::assistant(vec![text("Done.")]),
            Message::user(vec![cached(text("thanks, now the docs"))]),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, mut m)| {
            // The previous request's last block: read back from the cache.
            if i == 2 {
                m.content[0] = cached(m.content[0].clone());
            }
            m
        })
        .collect::<Vec<_>>()
    );
    let body = serde_json::to_string(&req).unwrap();
    assert_eq!(body.matches("<system-reminder>").count(), 1);
    assert_eq!(body.matches("use tabs").count(), 1);
    assert_eq!(conversation, before);
}

#[test]
fn user_context_goes_after_leading_tool_results_or_in_its_own_message() {
    let ctx = PromptContext {
        user_context: Some("ctx".into()),
        ..PromptContext::default()
    };
    let mut opts = options(&[]);
    opts.prompt_caching = false;
    let reminder = text("<system-reminder>\nctx\n</system-reminder>");

    let req = build_request(
        &ctx,
        &[Message::user(vec![tool_result("t0"), text("go on")])],
        &opts,
    );
    assert_eq!(
        req.messages,
        vec![Message::user(vec![
            tool_result("t0"),
            reminder.clone(),
            text("go on")
        ])]
    );

    let req = build_request(&ctx, &[Message::assistant(vec![text("Hi.")])], &opts);
    assert_eq!(
        req.messages,
        vec![
            Message::user(vec![reminder.clone()]),
            Message::assistant(vec![text("Hi.")])
        ]
    );

    assert_eq!(
        build_request(&ctx, &[], &opts).messages,
        vec![Message::user(vec![reminder])]
    );
    assert_eq!(build_request(&ctx, &[], &opts).system, None);
}

// ---------------------------------------------------------------- breakpoints

#[test]
fn breakpoints_one_two_three_turns() {
    let ctx = context();
    let tools = [tool_def("Read")];
    let opts = options(&tools);

    let one = vec![Message::user_text("q")];
    assert_eq!(
        breakpoints(&build_request(&ctx, &one, &opts)),
        ["system[0]", "system[1]", "messages[0][1]"]
    );

    let two = vec![
        Message::user_text("q"),
        Message::assistant(vec![text("Let me look."), tool_use("t1"), tool_use("t2")]),
        Message::user(vec![tool_result("t1"), tool_result("t2")]),
    ];
    assert_eq!(
        breakpoints(&build_request(&ctx, &two, &opts)),
        ["system[0]", "system[1]", "messages[0][1]", "messages[2][1]"]
    );

    let mut three = two.clone();
    three.push(Message::assistant(vec![tool_use("t3")]));
    three.push(Message::user(vec![tool_result("t3")]));
    assert_eq!(
        breakpoints(&build_request(&ctx, &three, &opts)),
        ["system[0]", "system[1]", "messages[2][1]", "messages[4][0]"]
    );
}

#[test]
fn breakpoints_skip_thinking_blocks() {
    let ctx = context();
    let opts = options(&[]);

    // An assistant turn to continue (pause_turn) that ends in thinking.
    let ends_in_thinking = vec![
        Message::user_text("q"),
        Message::assistant(vec![
            thinking("a"),
            text("Partial answer"),
            thinking("b"),
            redacted(),
        ]),
    ];
    assert_eq!(
        breakpoints(&build_request(&ctx, &ends_in_thinking, &opts)),
        ["system[0]", "system[1]", "messages[0][1]", "messages[1][1]"]
    );

    // Only thinking in the last message: the breakpoint falls back to the
    // previous message, which already has one.
    let only_thinking = vec![
        Message::user_text("q"),
        Message::assistant(vec![thinking("a"), redacted()]),
    ];
    assert_eq!(
        breakpoints(&build_request(&ctx, &only_thinking, &opts)),
        ["system[0]", "system[1]", "messages[0][1]"]
    );
}

#[test]
fn breakpoints_without_system_use_the_last_tool() {
    let tools = [tool_def("Read"), cached_tool("Bash")];
    let opts = options(&tools);
    let bare = PromptContext::default();
    let one = [Message::user_text("q")];
    assert_eq!(
        breakpoints(&build_request(&bare, &one, &opts)),
        ["tools[1]", "messages[0][0]"]
    );
    assert_eq!(
        breakpoints(&build_request(&bare, &one, &options(&[]))),
        ["messages[0][0]"]
    );

    let single_layer = PromptContext {
        system_prompt: vec!["S".into()],
        ..PromptContext::default()
    };
    assert_eq!(
        breakpoints(&build_request(&single_layer, &one, &opts)),
        ["system[0]", "messages[0][0]"]
    );
}

fn cached_tool(name: &str) -> ToolDefinition {
    ToolDefinition {
        cache_control: Some(CacheControl::ephemeral()),
        ..tool_def(name)
    }
}

#[test]
fn no_breakpoints_when_prompt_caching_is_off() {
    let tools = [cached_tool("Read")];
    let mut opts = options(&tools);
    opts.prompt_caching = false;
    let messages = [Message::user(vec![cached(text("q"))])];
    let req = build_request(&context(), &messages, &opts);
    assert_eq!(req.cache_breakpoints(), 0);
    assert_eq!(
        cache_controls_in_json(&serde_json::to_value(&req).unwrap()),
        0
    );
}

/// A conversation as the loop grows it: each step adds an assistant message with
/// `calls[i]` tool calls and the user message with their results.
fn tool_loop(calls: &[usize]) -> Vec<Vec<Message>> {
    let mut conversation = vec![Message::user_text("do the thing")];
    let mut snapshots = vec![conversation.clone()];
    for (step, &n) in calls.iter().enumerate() {
        let ids: Vec<String> = (0..n).map(|i| format!("toolu_{step}_{i}")).collect();
        let mut assistant = vec![thinking(&format!("step {step}")), text("Working.")];
        assistant.extend(ids.iter().map(|id| tool_use(id)));
        conversation.push(Message::assistant(assistant));
        conversation.push(Message::user(
            ids.iter().map(|id| tool_result(id)).collect(),
        ));
        snapshots.push(conversation.clone());
    }
    snapshots
}

/// The prompt as a list of blocks (tools, system, messages) without their
/// `cache_control`, and the indexes of the breakpoints in it.
fn prefix_blocks(req: &MessagesRequest) -> (Vec<String>, Vec<usize>) {
    let body = serde_json::to_value(req).unwrap();
    let mut blocks = Vec::new();
    let mut breakpoints = Vec::new();
    let mut push = |section: &str, block: &Value| {
        let mut block = block.clone();
        if block
            .as_object_mut()
            .unwrap()
            .remove("cache_control")
            .is_some()
        {
            breakpoints.push(blocks.len());
        }
        blocks.push(format!("{section}:{block}"));
    };
    for tool in body["tools"].as_array().into_iter().flatten() {
        push("tools", tool);
    }
    for block in body["system"].as_array().into_iter().flatten() {
        push("system", block);
    }
    for message in body["messages"].as_array().unwrap() {
        for block in message["content"].as_array().unwrap() {
            push(message["role"].as_str().unwrap(), block);
        }
    }
    (blocks, breakpoints)
}

#[test]
fn each_request_reads_the_previous_requests_last_write() {
    let tools = [tool_def("Read"), tool_def("Bash")];
    let ctx = context();
    let opts = options(&tools);
    // Turns with many tool calls push the previous write beyond the API's
    // 20-block look-back from the last breakpoint.
    let requests: Vec<MessagesRequest> = tool_loop(&[1, 3, 30, 2, 25, 25, 1])
        .iter()
        .map(|messages| build_request(&ctx, messages, &opts))
        .collect();
    for pair in requests.windows(2) {
        let (prev_blocks, prev_bps) = prefix_blocks(&pair[0]);
        let (next_blocks, next_bps) = prefix_blocks(&pair[1]);
        let last_write = *prev_bps.last().unwrap();
        assert!(next_bps.len() <= MAX_CACHE_BREAKPOINTS);
        assert!(
            next_bps.contains(&last_write),
            "the next request has a breakpoint where the previous one wrote: {prev_bps:?} → {next_bps:?}"
        );
        assert_eq!(
            next_blocks[..=last_write],
            prev_blocks[..=last_write],
            "the prefix up to the previous write is byte-identical"
        );
    }
    let many = requests.last().unwrap();
    assert_eq!(many.cache_breakpoints(), 4);
    let last = many.messages.len() - 1;
    assert_eq!(
        breakpoints(many),
        [
            "system[0]",
            "system[1]",
            format!("messages[{}][24]", last - 2).as_str(),
            format!("messages[{last}][0]").as_str()
        ]
    );
}

/// A small deterministic generator (no `rand` in tack-core's dev-deps).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn random_block(rng: &mut Lcg, id: u64) -> ContentBlock {
    let block = match rng.below(9) {
        0 => text(""),
        1 => text(&format!("text {id}")),
        2 => thinking(&format!("t{id}")),
        3 => redacted(),
        4 => tool_use(&format!("toolu_{id}")),
        5 => tool_result(&format!("toolu_{id}")),
        6 => ContentBlock::tool_result(
            format!("toolu_{id}"),
            vec![cached(text("nested")), text("")],
            rng.chance(50),
        ),
        7 => ContentBlock::Image {
            source: ImageSource::Url {
                url: format!("https://example.org/{id}.png"),
            },
            cache_control: None,
        },
        _ => ContentBlock::Unknown(UnknownBlock(json!({
            "type": "server_tool_use", "id": format!("srv_{id}"), "cache_control": {"type": "ephemeral"}
        }))),
    };
    if rng.chance(30) { cached(block) } else { block }
}

#[test]
fn breakpoints_never_exceed_four_on_generated_conversations() {
    let mut rng = Lcg(0x7ac4);
    let mut most = 0;
    for case in 0..2000 {
        let mut messages = Vec::new();
        for m in 0..rng.below(12) {
            let role = if rng.chance(70) == (m % 2 == 0) {
                Role::User
            } else {
                Role::Assistant
            };
            let content = (0..rng.below(6))
                .map(|b| random_block(&mut rng, m * 10 + b))
                .collect();
            messages.push(Message { role, content });
        }
        let layers = rng.below(4) as usize;
        let ctx = PromptContext {
            system_prompt: (0..layers)
                .map(|i| {
                    if rng.chance(20) {
                        String::new()
                    } else {
                        format!("layer {i}")
                    }
                })
                .collect(),
            user_context: rng.chance(50).then(|| "memory".to_owned()),
            system_context: rng.chance(50).then(|| "git".to_owned()),
        };
        let tools: Vec<ToolDefinition> = (0..rng.below(4))
            .map(|i| {
                if rng.chance(50) {
                    cached_tool(&format!("T{i}"))
                } else {
                    tool_def(&format!("T{i}"))
                }
            })
            .collect();
        let mut opts = options(&tools);
        opts.prompt_caching = rng.chance(85);

        let req = build_request(&ctx, &messages, &opts);
        let body = serde_json::to_value(&req).unwrap();
        let in_json = cache_controls_in_json(&body);
        assert_eq!(
            in_json,
            req.cache_breakpoints(),
            "case {case}: no hidden breakpoints"
        );
        assert!(
            in_json <= MAX_CACHE_BREAKPOINTS,
            "case {case}: {in_json} breakpoints"
        );
        most = most.max(in_json);
        if !opts.prompt_caching {
            assert_eq!(in_json, 0, "case {case}");
            continue;
        }
        // The newest cacheable block always carries one, so the next request can read it.
        let last_cacheable = req
            .messages
            .iter()
            .flat_map(|m| &m.content)
            .rev()
            .find(|b| {
                matches!(
                    b,
                    ContentBlock::Text { .. }
                        | ContentBlock::Image { .. }
                        | ContentBlock::ToolUse { .. }
                        | ContentBlock::ToolResult { .. }
                )
            });
        if let Some(block) = last_cacheable {
            assert!(block.cache_control().is_some(), "case {case}: {block:?}");
        }
        for message in &req.messages {
            for block in &message.content {
                if let ContentBlock::Text {
                    text,
                    cache_control: Some(_),
                    ..
                } = block
                {
                    assert!(
                        !text.trim().is_empty(),
                        "case {case}: breakpoint on empty text"
                    );
                }
            }
        }
        // Same input, same bytes.
        assert_eq!(build_request(&ctx, &messages, &opts), req, "case {case}");
    }
    assert_eq!(
        most, MAX_CACHE_BREAKPOINTS,
        "the generator reaches the limit"
    );
}
