//! The second half of [`super::start`]: once the prompt context is in, the
//! tools, the transcript, the session and what front ends are told of it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tack_core::context::{LoadedContext, PromptContext};
use tack_core::executor::ToolSet;
use tack_core::query::LoopHooks;
use tack_core::session::{Session, SessionParts, TranscriptSink, UsageLedger};
use tack_extensions::custom_commands::CustomCommands;
use tack_extensions::output_styles::Styles;
use tack_extensions::plugins::SessionPlugins;
use tack_extensions::skills::Skills;
use tack_permissions::PermissionMode;
use tack_protocol::Message;
use tack_store::{Mirror, RecordMeta, SessionStore, Transcript};
use tack_tool::{Tool, ToolEnv};
use tokio::sync::mpsc;

use super::conversation::{Conversation, conversation_resumed};
use super::model::SessionModel;
use super::{StartError, VERSION};
use crate::checkpoints::Checkpoints;
use crate::emit::Emitter;
use crate::event::{AgentSummary, ExtensionsInfo, Notice, RuntimeEvent, SessionInfo};
use crate::gate::Gate;
use crate::hooks::SessionHooks;
use crate::mcp::SessionMcp;
use crate::options::SessionOptions;
use crate::place::Env;
use crate::runtime::{Book, Extensions, ModelNames, Policy, Runtime, Services, TurnSettings};
use crate::session_tools::{ToolChoices, ToolsModels, ToolsParts, ToolsPlace, session_tools};
use crate::structured_output::{AnswerReminder, StructuredOutputTool};
use crate::transcript::{
    PendingAttachments, StoreSink, TranscriptPlace, prompt_json, session_mirror,
};

/// What [`super::start`] found and started, for [`assemble`]: everything that could
/// fail on the user's input has been checked; nothing is written yet.
pub(super) struct Prepared {
    pub(super) options: SessionOptions,
    pub(super) at: Where,
    pub(super) emit: Emitter,
    pub(super) events: mpsc::UnboundedReceiver<RuntimeEvent>,
    pub(super) extensions: Loaded,
    pub(super) model: SessionModel,
    pub(super) policy: Policy,
    pub(super) permission_mode: PermissionMode,
    pub(super) checkpoints: Option<Arc<Checkpoints>>,
    pub(super) sandbox: Option<Arc<tack_sandbox::Sandbox>>,
    /// The conversation and its transcript's path.
    pub(super) conversation: (Conversation, PathBuf),
    pub(super) context_load: tokio::task::JoinHandle<LoadedContext>,
    pub(super) mcp: Option<SessionMcp>,
    pub(super) tool_env: Arc<ToolEnv>,
    pub(super) structured_output: Option<Arc<StructuredOutputTool>>,
}

/// Where the session runs.
pub(super) struct Where {
    pub(super) store: SessionStore,
    pub(super) cwd: PathBuf,
    pub(super) env: Env,
    pub(super) home_dir: Option<PathBuf>,
    pub(super) project_dir: PathBuf,
    /// The settings' `worktree.baseRef`, for sub-agents' worktrees.
    pub(super) worktree_base: tack_config::WorktreeBase,
    /// What the prompt context is loaded with.
    pub(super) prompt: tack_core::context::ContextOptions,
}

/// The session's extensions as read at start.
pub(super) struct Loaded {
    pub(super) plugins: SessionPlugins,
    pub(super) styles: Styles,
    pub(super) custom_commands: CustomCommands,
    pub(super) skills: Arc<Skills>,
    /// The plugin auto-update's thread, if one runs.
    pub(super) auto_update: Option<std::thread::JoinHandle<()>>,
    /// The agent definitions, and the main session's.
    pub(super) agents: crate::main_agent::SessionAgents,
}

impl Loaded {
    /// What front ends list of the extensions (`system/init`), with the
    /// sub-agent types the Agent tool offers.
    fn info(&self, agents: Vec<AgentSummary>) -> ExtensionsInfo {
        ExtensionsInfo {
            agents,
            main_agent: self.agents.main.as_ref().map(|d| d.name.clone()),
            slash_commands: crate::slash::slash_commands(&self.custom_commands, &self.skills),
            output_style: self.styles.named.clone(),
            output_styles: self.styles.all.names(),
            skills: self.skills.names(),
            plugins: self.plugins.summaries(),
            plugin_errors: self.plugins.failures.clone(),
        }
    }
}

/// The second half of [`super::start`]: the tools (once the prompt context is
/// in), the transcript, the session and what front ends are told of it.
pub(super) async fn assemble(mut p: Prepared) -> Result<Runtime, StartError> {
    let session_id = p.conversation.0.session_id.clone();
    let context = loaded_context(&mut p.context_load, &p.emit, &p.policy.gate).await;
    report_telemetry(&p.emit, &session_id, &p.policy.gate);
    let meta = (p.options.conversation.persist).then(|| record_meta(&p.at.cwd, &p.options));
    let mirror = session_mirror(p.options.conversation.mirror, &p.emit);
    let session_tools = session_tools(tools_parts(&p, &context, &session_id, &meta, &mirror))?;
    let Prepared {
        options,
        at,
        emit,
        events,
        extensions,
        model: engine,
        policy,
        permission_mode,
        checkpoints,
        sandbox: _,
        conversation: (conversation, transcript_path),
        context_load: _,
        mut mcp,
        tool_env,
        structured_output,
    } = p;
    let (gate, hooks) = (policy.gate.clone(), policy.hooks.clone());
    let builtin = session_tools.tools;
    // The transcript opens once everything above is known to be valid.
    let transcripts = TranscriptPlace::new(at.store, &at.cwd, meta.clone(), mirror.clone());
    let (sink, history) = open_transcript(
        meta,
        &transcript_path,
        conversation,
        &options,
        &gate,
        &mirror,
        &transcripts.attachments,
    )?;
    let sink = sink.map(|s| Arc::new(s.with_cwd_of(tool_env.clone())));
    let tools = mcp_tools(
        mcp.as_mut(),
        &builtin,
        &gate,
        &options,
        &engine.model,
        &at.env,
        &emit,
    )
    .await?;
    let tool_names = crate::deferral::offered_names(&tools, &builtin);
    let parts = SessionParts {
        session_id: session_id.clone(),
        context: context.clone(),
        tools,
        tool_env,
        can_use_tool: gate.clone(),
        deps: engine.deps,
        config: engine.request.config,
        max_budget_usd: options.request.max_budget_usd,
        transcript: sink.clone().map(|s| s as Arc<dyn TranscriptSink>),
    };
    note_history(&gate, &history);
    let session = Session::new(parts).with_history(history);
    let session = with_loop_hooks(
        session,
        engine.ledger,
        hooks.clone(),
        structured_output.is_some(),
    );
    let info = SessionInfo {
        extensions: extensions.info(session_tools.agents),
        session_id,
        cwd: at.cwd,
        model: engine.model,
        tools: tool_names,
        permission_mode,
        api_key_source: engine.account.key_source.to_owned(),
        api_provider: engine.account.provider.to_owned(),
        transcript_path: sink.map(|s| s.path().to_path_buf()),
        resumed: conversation_resumed(&options),
        mcp_servers: mcp.as_ref().map(SessionMcp::statuses).unwrap_or_default(),
        version: VERSION.to_owned(),
    };
    Ok(Runtime::new(crate::runtime::Parts {
        session,
        info,
        emit,
        events,
        policy,
        settings: TurnSettings {
            base_config: engine.request.base,
            request_env: engine.request.env,
            model_names: ModelNames::of(engine.name),
            agent_model: session_tools.model,
            structured_output,
            context,
            skill_listing: extensions.skills.listing(),
            output_style_reminder: extensions.styles.active.reminder(),
            start_context: None,
        },
        extensions: Extensions {
            custom_commands: extensions.custom_commands,
            skills: extensions.skills,
        },
        services: Services {
            mcp,
            builtin,
            deferral: session_tools.deferral,
            tasks: session_tools.tasks,
            woken: session_tools.woken,
            arrivals: session_tools.arrivals,
            auto_update: extensions.auto_update,
            schedule: session_tools.schedule,
        },
        book: Book::new(transcripts, checkpoints),
        session_state: options.front_end.session_state,
    }))
}

/// What the session's tools are built from: what start found, the prompt
/// context once in, and where the tools record.
fn tools_parts<'a>(
    p: &'a Prepared,
    context: &Arc<PromptContext>,
    session_id: &'a str,
    meta: &Option<RecordMeta>,
    mirror: &Mirror,
) -> ToolsParts<'a> {
    ToolsParts {
        env: &p.at.env,
        policy: &p.policy,
        emit: &p.emit,
        context: context.clone(),
        models: ToolsModels {
            on_provider: p.model.on_provider,
            client: Arc::clone(&p.model.client),
            deps: p.model.deps.clone(),
            ledger: p.model.ledger.clone(),
            model: &p.model.model,
            base_config: &p.model.request.base,
            request_env: &p.model.request.env,
        },
        place: ToolsPlace {
            session_id,
            record_meta: meta.clone(),
            mirror: mirror.clone(),
            home: p.at.home_dir.as_deref(),
            project: &p.at.project_dir,
            tool_env: &p.tool_env,
            worktree_base: p.at.worktree_base,
            prompt: &p.at.prompt,
        },
        choices: ToolChoices {
            options: &p.options,
            mcp: p.mcp.as_ref().map(|m| m.manager().weak()),
            structured_output: (p.structured_output.clone()).map(|t| t as Arc<dyn Tool>),
            skills: &p.extensions.skills,
            plugins: &p.extensions.plugins,
            agents: &p.extensions.agents,
            sandbox: p.sandbox.clone(),
        },
    }
}

/// `session` with its usage ledger and the loop's hook seams: the session's hooks, behind the
/// structured-output reminder when there is a schema.
pub(super) fn with_loop_hooks(
    session: Session,
    ledger: UsageLedger,
    hooks: Option<Arc<SessionHooks>>,
    structured_output: bool,
) -> Session {
    let session = session.with_usage_ledger(ledger);
    let inner = hooks.map(|h| h as Arc<dyn LoopHooks>);
    match (structured_output, inner) {
        (true, inner) => session.with_stop_hooks(Arc::new(AnswerReminder { inner })),
        (false, Some(hooks)) => session.with_stop_hooks(hooks),
        (false, None) => session,
    }
}

/// Telemetry (when on) learns the session and hears the gate's decisions.
fn report_telemetry(emit: &Emitter, session_id: &str, gate: &Gate) {
    if let Some(t) = emit.telemetry() {
        t.set_session(session_id);
        gate.set_telemetry(t.clone());
    }
}

/// Auto mode's classifier reads the conversation a resumed session continues.
fn note_history(gate: &Gate, history: &[(String, Message)]) {
    if let Some(auto) = gate.auto().filter(|_| !history.is_empty()) {
        auto.note_history(history.iter().map(|(_, m)| m));
    }
}

/// The prompt context once loaded, its warnings emitted, its path rules
/// handed to the gate.
pub(super) async fn loaded_context(
    load: &mut tokio::task::JoinHandle<LoadedContext>,
    emit: &Emitter,
    gate: &Gate,
) -> Arc<PromptContext> {
    let loaded = load.await.unwrap_or_default();
    for warning in &loaded.warnings {
        emit.notice(Notice::warning(format!("warning: {warning}")));
    }
    gate.set_path_rules(loaded.path_rules);
    let git = loaded.context.system_context.as_deref();
    gate.tell_auto_environment(None, git);
    Arc::new(loaded.context)
}

/// Opens the transcript (when persisting) and returns it with the history
/// keyed by record uuid; a forked session's transcript starts with the
/// history it continues.
#[allow(clippy::type_complexity)]
pub(super) fn open_transcript(
    meta: Option<RecordMeta>,
    path: &Path,
    conversation: Conversation,
    options: &SessionOptions,
    gate: &Arc<Gate>,
    mirror: &Mirror,
    attachments: &PendingAttachments,
) -> Result<(Option<StoreSink>, Vec<(String, Message)>), StartError> {
    let mut history: Vec<(String, Message)> = conversation
        .history
        .into_iter()
        .map(|m| (uuid::Uuid::new_v4().to_string(), m))
        .collect();
    let Some(meta) = meta else {
        return Ok((None, history));
    };
    let mut transcript = Transcript::open(path, &conversation.session_id, meta, conversation.leaf)?
        .mirrored(mirror.clone());
    if let Some(agent) = &options.extensions.agent {
        transcript.note_agent(agent);
    }
    if options.conversation.fork {
        history = write_history(&mut transcript, history)?;
    }
    let sink = StoreSink::new(transcript)
        .with_gate(gate.clone())
        .with_attachments(attachments.clone());
    Ok((Some(sink), history))
}

/// The session's tools with the MCP servers': waits for every server's tool
/// list (their tools must be in the first request) and sets an MCP
/// `--permission-prompt-tool`.
pub(super) async fn mcp_tools(
    mcp: Option<&mut SessionMcp>,
    builtin: &[Arc<dyn tack_tool::Tool>],
    gate: &Gate,
    options: &SessionOptions,
    model: &str,
    env: &Env,
    emit: &Emitter,
) -> Result<ToolSet, StartError> {
    let tool_search = env.get("ENABLE_TOOL_SEARCH");
    let defer_builtins = crate::deferral::builtins_deferred(tool_search.as_deref(), env, model);
    let Some(mcp) = mcp else {
        let parts = crate::deferral::ToolSetParts {
            builtin,
            defer_builtins,
            mcp: Vec::new(),
            defer_mcp: false,
            resources: Vec::new(),
        };
        return Ok(crate::deferral::tool_set(parts, &mut None));
    };
    mcp.defer_builtins = defer_builtins;
    for notice in mcp.settle().await {
        emit.notice(notice);
    }
    if let Some(name) = options
        .permissions
        .prompt_tool
        .as_deref()
        .filter(|n| n.starts_with("mcp__"))
    {
        gate.set_prompt_tool(tack_mcp::PermissionPromptTool::new(mcp.manager(), name)?);
    }
    let window = tack_api::model_limits(model).context_window;
    let keep = |t: &dyn tack_tool::Tool| !gate.removes_tool(t);
    Ok(mcp.tool_set(builtin, window, tool_search.as_deref(), &keep))
}

/// Writes a forked session's history into its new transcript (one chained
/// write); returns the history with the records' uuids.
pub(super) fn write_history(
    transcript: &mut Transcript,
    history: Vec<(String, Message)>,
) -> Result<Vec<(String, Message)>, tack_store::StoreError> {
    let mut records = Vec::with_capacity(history.len());
    let mut out = Vec::with_capacity(history.len());
    for (_, message) in history {
        // A prompt keeps the shape the source recorded it in (plain text a
        // string), so the fork's prompts read back as the source's do.
        let (kind, value) = match message.role {
            tack_protocol::Role::User => ("user", prompt_json(&message)),
            tack_protocol::Role::Assistant => (
                "assistant",
                serde_json::to_value(&message).unwrap_or_default(),
            ),
        };
        let mut record = transcript.chain_record(kind);
        record.message = Some(value);
        if let Some(parent) = records
            .last()
            .map(|r: &tack_store::TranscriptRecord| r.uuid.clone())
        {
            record.parent_uuid = parent;
        }
        out.push((record.uuid.clone().unwrap_or_default(), message));
        records.push(record);
    }
    transcript.append_batch(records)?;
    Ok(out)
}

/// What every transcript record says about where it was written.
pub(super) fn record_meta(cwd: &Path, options: &SessionOptions) -> RecordMeta {
    RecordMeta {
        cwd: cwd.to_string_lossy().into_owned(),
        git_branch: tack_git::head::branch_name(cwd),
        version: VERSION.to_owned(),
        entrypoint: if options.front_end.interactive {
            "cli"
        } else {
            "sdk-cli"
        }
        .to_owned(),
    }
}
