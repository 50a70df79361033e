//! The sub-agent of a `type: "agent"` hook: a small loop on the hook's model
//! (the small fast model unless it names one) that may read the project
//! (Read, Grep, Glob) and answers through a `StructuredOutput` tool whose
//! schema is `{ok, reason}`, as Claude Code's agent hooks do.
//!
//! - Its tool calls are decided by the permission rules alone: a deny rule
//!   stops a read; no hook runs (a PreToolUse agent hook would start itself
//!   again) and nobody is asked.
//! - At most [`MAX_TURNS`] model calls; its usage is billed to the session.
//! - No transcript: it is the hook's, not the conversation's.

use std::sync::{Arc, Weak};

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tack_core::context::PromptContext;
use tack_core::deps::QueryDeps;
use tack_core::executor::ToolSet;
use tack_core::permission::{CanUseTool, PermissionDecision};
use tack_core::session::UsageLedger;
use tack_core::{LoopEvent, QueryConfig, QueryParams, Terminal, query};
use tack_protocol::content::join_texts;
use tack_protocol::{ContentBlock, Message};
use tack_tool::{Tool, ToolContext, ToolEnv};
use tokio_util::sync::CancellationToken;

use crate::gate::Gate;
use crate::model::RequestEnv;
use crate::structured_output::{AnswerReminder, OutputSchema, StructuredOutputTool};

/// Model calls an agent hook may make (Claude Code's).
pub(crate) const MAX_TURNS: u32 = 50;

/// The tools an agent hook's sub-agent may use.
pub(crate) const HOOK_AGENT_TOOLS: &[&str] = &["Read", "Grep", "Glob"];

/// What an agent hook runs on (the session's, taken when its tools are built).
pub(crate) struct HookAgent {
    /// The session's Read, Grep and Glob.
    pub tools: Vec<Arc<dyn Tool>>,
    pub deps: Arc<dyn QueryDeps>,
    /// Weak: the gate runs the hooks that hold this.
    pub gate: Weak<Gate>,
    pub tool_env: Arc<ToolEnv>,
    pub base_config: QueryConfig,
    pub request_env: RequestEnv,
    pub ledger: UsageLedger,
    pub small_model: String,
}

impl HookAgent {
    /// Runs the sub-agent on `prompt` to its answer: the answer's JSON
    /// text, or why there is none. Dropping the future stops it.
    pub(crate) fn run(
        &self,
        model: Option<&str>,
        system: &str,
        prompt: String,
    ) -> BoxFuture<'static, Result<String, String>> {
        let model = model.map_or_else(
            || self.small_model.clone(),
            |m| self.request_env.resolve(m, false),
        );
        let schema = json!({"type": "object",
            "properties": {"ok": {"type": "boolean"}, "reason": {"type": "string"}},
            "required": ["ok"]});
        let answer = match OutputSchema::compile(schema) {
            Ok(schema) => Arc::new(StructuredOutputTool::new(schema)),
            Err(e) => return Box::pin(std::future::ready(Err(e.to_string()))),
        };
        let mut tools = self.tools.clone();
        tools.push(answer);
        let env = ToolEnv::new(
            self.tool_env.project_root().to_path_buf(),
            self.tool_env.session_dir().to_path_buf(),
        )
        .with_additional_dirs(self.tool_env.additional_dirs().to_vec());
        env.set_cwd(self.tool_env.cwd());
        let config = self.request_env.apply(
            &QueryConfig {
                max_turns: Some(MAX_TURNS),
                ..self.base_config.clone()
            },
            &model,
        );
        let params = QueryParams {
            messages: vec![Message::user_text(prompt)],
            context: Arc::new(PromptContext {
                system_prompt: vec![system.to_owned()],
                ..PromptContext::default()
            }),
            tools: ToolSet::new(tools),
            tool_env: Arc::new(env),
            can_use_tool: Arc::new(RulesOnly(self.gate.clone())),
            deps: Arc::clone(&self.deps),
            config,
            cancel: CancellationToken::new(),
            stop_hooks: Some(Arc::new(AnswerReminder { inner: None })),
            autocompact_tracking: Default::default(),
            model_switch: None,
        };
        let ledger = self.ledger.clone();
        Box::pin(async move {
            let mut stream = query(params);
            let mut last_text = String::new();
            while let Some(event) = stream.next().await {
                match event {
                    LoopEvent::AssistantMessage(a) => {
                        ledger.record(&a.model, &a.usage, a.api_duration);
                        if a.message.content.iter().any(is_text) {
                            last_text = join_texts(&a.message.content, "");
                        }
                    }
                    LoopEvent::Terminal(Terminal::Answered(answer)) => {
                        return Ok(answer.to_string());
                    }
                    LoopEvent::Terminal(Terminal::Completed) if !last_text.is_empty() => {
                        return Ok(last_text);
                    }
                    LoopEvent::Terminal(other) => {
                        return Err(format!(
                            "the hook's agent ended without an answer ({other:?})"
                        ));
                    }
                    _ => {}
                }
            }
            Err("the hook's agent ended without an answer".to_owned())
        })
    }
}

fn is_text(block: &ContentBlock) -> bool {
    matches!(block, ContentBlock::Text { .. })
}

/// The permission rules alone decide (see the module docs).
struct RulesOnly(Weak<Gate>);

impl CanUseTool for RulesOnly {
    fn check<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, PermissionDecision> {
        let decision = match self.0.upgrade() {
            Some(gate) => match gate.rules_deny(tool, input, ctx) {
                Some(message) => PermissionDecision::Deny { message },
                None => PermissionDecision::Allow,
            },
            None => PermissionDecision::Deny {
                message: "the session has ended".to_owned(),
            },
        };
        Box::pin(std::future::ready(decision))
    }
}
