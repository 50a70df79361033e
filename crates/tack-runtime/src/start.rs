//! Building a ready session from settings and options: credentials, the
//! conversation (new, continued or resumed), its transcript, model and request
//! settings, tools, the permission gate, hooks and the prompt context.
//!
//! Start-up does only what the first request needs; the HTTPS client is built
//! on a blocking thread meanwhile ([`crate::client`]). Every failure here is a
//! [`StartError`] before anything is sent (and, but for resume problems,
//! before anything is written).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tack_api::{ClientConfig, ModelClient};
use tack_config::Settings;
use tack_core::QueryConfig;
use tack_core::context::{ContextOptions, LoadedContext, PromptContext, load_context};
use tack_core::deps::{ProductionDeps, QueryDeps};
use tack_core::executor::ToolSet;
use tack_core::query::LoopHooks;
use tack_core::session::{Session, SessionParts, TranscriptSink, UsageLedger};
use tack_extensions::custom_commands::CustomCommands;
use tack_extensions::output_styles::Styles;
use tack_extensions::plugins::SessionPlugins;
use tack_extensions::skills::Skills;
use tack_permissions::{PermissionContext, PermissionMode, RuleLists, RuleSource};
use tack_protocol::Message;
use tack_store::{Mirror, RecordMeta, SessionStore, Transcript};
use tack_tool::{Tool, ToolEnv};
use tokio::sync::mpsc;

use crate::auth::{AuthError, client_config};
use crate::checkpoints::Checkpoints;
use crate::client::DeferredClient;
use crate::config::LoadedSettings;
use crate::emit::Emitter;
use crate::event::{Notice, RuntimeEvent, SessionInfo};
use crate::extensions::{commands_and_skills, hook_sources, output_styles, plugins};
use crate::gate::{
    Gate, RulesError, SettingsFiles, TurnCancel, build_rules, cli_rule_source,
    settings_rule_sources,
};
use crate::hooks::watched_settings;
use crate::hooks::{HookPlace, HookReporting, HookSource, HooksError, SessionHooks};
use crate::mcp::{McpError, SessionMcp};
use crate::model::{RequestEnv, resolve_model, session_model};
use crate::options::{SdkToolPolicy, SessionOptions};
use crate::place::{Env, Place};
use crate::providers::{self, ProviderRouter};
use crate::runtime::Runtime;
use crate::session_tools::{ToolsParts, UnknownTools, session_tools};
use crate::structured_output::{AnswerReminder, OutputSchema, SchemaError, StructuredOutputTool};
use crate::transcript::{
    PendingAttachments, StoreSink, TranscriptPlace, prompt_json, session_mirror,
};

mod conversation;
mod refused;
use conversation::{Conversation, conversation, conversation_resumed, transcript_path};

/// tack's version, in `system/init` and every transcript record.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(
        "bypassPermissions mode is disabled by settings (permissions.disableBypassPermissionsMode)"
    )]
    BypassDisabled,
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error(transparent)]
    Auth(#[from] AuthError),
    #[error("--resume needs a session id in print mode; recent sessions:\n{0}")]
    ResumeNeedsId(String),
    #[error("Session ID {0} is already in use.")]
    SessionIdInUse(String),
    #[error(transparent)]
    Store(#[from] tack_store::StoreError),
    #[error(transparent)]
    Hooks(#[from] HooksError),
    #[error(transparent)]
    Mcp(#[from] McpError),
    #[error("--permission-prompt-tool: {0}")]
    PromptTool(#[from] tack_mcp::PermissionPromptError),
    #[error(transparent)]
    UnknownTools(#[from] UnknownTools),
    #[error("--fork-session and --resume-session-at need --continue or --resume")]
    NothingToResume,
    #[error("Resume rejected by --resume-drops-turn: {0}")]
    ResumeRejected(String),
    /// The message is whole: the schema error is not a `source` to print twice.
    #[error("--json-schema: {0}")]
    JsonSchema(SchemaError),
}

/// Starts a session; must be called within a tokio runtime. `loaded` comes
/// from [`crate::load_settings`] (its notices are the session's first events).
///
/// The prompt context (memory files, git) is the slowest part and needs only
/// the cwd, the model and the permission directories: it loads on its own
/// threads while the rest is set up, and is awaited where the tools need it.
pub async fn start(
    place: Place,
    loaded: &LoadedSettings,
    options: SessionOptions,
) -> Result<Runtime, StartError> {
    let store = place.session_store();
    let Place {
        cwd,
        config_dir,
        claude_dir,
        claude_json,
        home_dir,
        env,
    } = place;
    let settings = &loaded.settings;
    let (emit, events) = emitter(&loaded.notices, &env);
    remove_pending_writes(&config_dir);
    let plugins = plugins(&options, &cwd, loaded, &emit);
    // Only the terminal UI refreshes marketplaces (a `git` clone or fetch):
    // `-p`, SDK and `tack batch` sessions start with no network of their own.
    let auto_update = match options.interactive {
        true => crate::extensions::spawn_auto_update(loaded, &env, &emit),
        false => None,
    };

    let structured_output = structured_output_tool(&options)?;
    let perms = permissions(settings, &options, &cwd, home_dir.as_deref(), &emit)?;
    let model = session_model(&options, &env, settings);
    let project_dir = tack_config::find_project_dir(&cwd);
    let styles = output_styles(&project_dir, &config_dir, (loaded, &plugins), &emit);
    let ctx_opts = context_options(&cwd, home_dir, &model, &perms, &options, loaded, &styles);
    let context_load = spawn_context(ctx_opts.clone()).await;

    let (client, account, on_provider) =
        model_client(settings, &options, &env, &cwd, &model).await?;
    let deps: Arc<dyn QueryDeps> = Arc::new(ProductionDeps::new(client.clone()));
    let ledger = UsageLedger::default();
    let mcp = start_mcp(loaded, &options, &plugins, &store, &cwd, &env, &emit)?;

    let conversation = conversation(&store, &cwd, &options, &emit)?;
    let session_id = conversation.session_id.clone();
    let transcript_path = transcript_path(&store, &cwd, settings, &options, &conversation)?;
    let request = request_config(&options, &env, settings, &model, &emit);
    let (custom_commands, skills) = commands_and_skills(
        &project_dir,
        &ctx_opts,
        &config_dir,
        (loaded, &plugins),
        &emit,
    );
    let tool_env = tool_env(&cwd, transcript_path.with_extension(""), &perms, &env);
    let history = tack_store::file_history_dir(&config_dir, &session_id);
    let checkpoints = Checkpoints::for_session(options.file_checkpointing, &env, history);
    let Guard(hooks, gate, turn_cancel) = hooks_and_gate(
        &hook_sources(settings, &plugins),
        &options,
        perms.ctx,
        HookPlace {
            project_dir: &project_dir,
            cwd: &cwd,
            session_id: &session_id,
            transcript_path: &transcript_path,
            permission_mode: perms.mode.as_str(),
            settings_files: watched_settings(&loaded.locations.files()),
        },
        ctx_opts.home_dir.as_deref(),
        &emit,
        checkpoints.clone(),
    )?;

    let sandbox = crate::sandbox::start(
        crate::sandbox::SandboxPlace {
            settings,
            flag: options.sandbox,
            session_id: &session_id,
            roots: [cwd.clone()].into_iter().chain(perms.add_dirs).collect(),
            home: ctx_opts.home_dir.as_deref(),
            user_files: [config_dir.clone(), claude_dir]
                .into_iter()
                .chain(claude_json)
                .chain(
                    env.get("XDG_CONFIG_HOME")
                        .map(|x| Path::new(&x).join("git")),
                )
                .collect(),
        },
        &gate,
        &emit,
    )
    .await;
    let home_dir = ctx_opts.home_dir;
    let (permission_mode, bypass_allowed) = (perms.mode, perms.bypass_allowed);
    assemble(Prepared {
        options,
        store,
        cwd,
        env,
        emit,
        events,
        plugins,
        structured_output,
        permission_mode,
        bypass_allowed,
        model,
        project_dir,
        styles,
        home_dir,
        context_load,
        auto_update,
        client,
        account,
        on_provider,
        deps,
        ledger,
        mcp,
        conversation,
        session_id,
        transcript_path,
        request,
        custom_commands,
        skills,
        tool_env,
        checkpoints,
        hooks,
        gate,
        turn_cancel,
        sandbox,
    })
    .await
}

/// What [`start`] found and started, for [`assemble`]: everything that could
/// fail on the user's input has been checked; nothing is written yet.
struct Prepared {
    sandbox: Option<Arc<tack_sandbox::Sandbox>>,
    options: SessionOptions,
    store: SessionStore,
    cwd: PathBuf,
    env: Env,
    emit: Emitter,
    events: mpsc::UnboundedReceiver<RuntimeEvent>,
    plugins: SessionPlugins,
    structured_output: Option<Arc<StructuredOutputTool>>,
    permission_mode: PermissionMode,
    bypass_allowed: bool,
    model: String,
    project_dir: PathBuf,
    styles: Styles,
    home_dir: Option<PathBuf>,
    context_load: tokio::task::JoinHandle<LoadedContext>,
    /// The plugin auto-update's thread, if one runs.
    auto_update: Option<std::thread::JoinHandle<()>>,
    client: Arc<dyn ModelClient>,
    account: Account,
    /// The session's model is another provider's ([`crate::providers`]).
    on_provider: bool,
    deps: Arc<dyn QueryDeps>,
    ledger: UsageLedger,
    mcp: Option<SessionMcp>,
    conversation: Conversation,
    session_id: String,
    transcript_path: PathBuf,
    request: RequestSettings,
    custom_commands: CustomCommands,
    skills: Arc<Skills>,
    tool_env: Arc<ToolEnv>,
    checkpoints: Option<Arc<Checkpoints>>,
    hooks: Option<Arc<SessionHooks>>,
    gate: Arc<Gate>,
    turn_cancel: TurnCancel,
}

/// The second half of [`start`]: the tools (once the prompt context is in),
/// the transcript, the session and what front ends are told of it.
async fn assemble(p: Prepared) -> Result<Runtime, StartError> {
    let Prepared {
        options,
        store,
        cwd,
        env,
        emit,
        events,
        plugins,
        structured_output,
        permission_mode,
        bypass_allowed,
        model,
        project_dir,
        styles,
        home_dir,
        context_load,
        auto_update,
        client,
        account,
        on_provider,
        deps,
        ledger,
        mut mcp,
        conversation,
        session_id,
        transcript_path,
        request,
        custom_commands,
        skills,
        tool_env,
        checkpoints,
        hooks,
        gate,
        turn_cancel,
        sandbox,
    } = p;
    let context = loaded_context(context_load, &emit, &gate).await;
    if let Some(t) = emit.telemetry() {
        t.set_session(&session_id);
        gate.set_telemetry(t.clone());
    }
    let meta = options.persist.then(|| record_meta(&cwd, &options));
    let mirror = session_mirror(options.session_mirror, &emit);
    let session_tools = session_tools(ToolsParts {
        env: &env,
        on_provider,
        client,
        deps: deps.clone(),
        ledger: ledger.clone(),
        model: &model,
        gate: &gate,
        hooks: hooks.clone(),
        emit: &emit,
        context: context.clone(),
        base_config: &request.base,
        request_env: &request.env,
        session_id: &session_id,
        record_meta: meta.clone(),
        mirror: mirror.clone(),
        agents_flag: options.agents.as_deref(),
        home: home_dir.as_deref(),
        project: &project_dir,
        tool_env: &tool_env,
        only: options.tools.as_deref(),
        mcp: mcp.as_ref().map(|m| m.manager().weak()),
        structured_output: structured_output.clone().map(|t| t as Arc<dyn Tool>),
        skills: &skills,
        plugin_agents: &plugins.agents,
        sandbox,
    })?;
    let builtin = session_tools.tools;

    // The transcript opens once everything above is known to be valid.
    let transcripts = TranscriptPlace::new(store, &cwd, meta.clone(), mirror.clone());
    let (sink, history) = open_transcript(
        meta,
        &transcript_path,
        conversation,
        &options,
        &gate,
        &mirror,
        &transcripts.attachments,
    )?;
    let tools = mcp_tools(mcp.as_mut(), &builtin, &gate, &options, &model, &env, &emit).await?;
    let tool_names: Vec<String> = tools.iter().map(|t| t.name().to_owned()).collect();
    let parts = SessionParts {
        session_id: session_id.clone(),
        context: context.clone(),
        tools,
        tool_env,
        can_use_tool: gate.clone(),
        deps,
        config: request.config,
        max_budget_usd: options.max_budget_usd,
        transcript: sink.clone().map(|s| s as Arc<dyn TranscriptSink>),
    };
    let session = Session::new(parts).with_history(history);
    let session = with_loop_hooks(session, ledger, hooks.clone(), structured_output.is_some());
    let info = SessionInfo {
        session_id,
        cwd,
        model,
        tools: tool_names,
        permission_mode,
        api_key_source: account.key_source.to_owned(),
        api_provider: account.provider.to_owned(),
        transcript_path: sink.map(|s| s.path().to_path_buf()),
        resumed: conversation_resumed(&options),
        mcp_servers: mcp.as_ref().map(SessionMcp::statuses).unwrap_or_default(),
        version: VERSION.to_owned(),
        agents: session_tools.agents,
        slash_commands: crate::slash::slash_commands(&custom_commands, &skills),
        output_style: styles.named.clone(),
        output_styles: styles.all.names(),
        skills: skills.names(),
        plugins: plugins.summaries(),
        plugin_errors: plugins.failures,
    };
    Ok(Runtime::new(crate::runtime::Parts {
        session,
        gate,
        hooks,
        info,
        base_config: request.base,
        request_env: request.env,
        bypass_allowed,
        max_turns: options.max_turns,
        emit,
        events,
        turn_cancel,
        mcp,
        builtin,
        tool_search: env.get("ENABLE_TOOL_SEARCH"),
        agent_model: session_tools.model,
        tasks: session_tools.tasks,
        woken: session_tools.woken,
        session_state: options.session_state,
        auto_update,
        context,
        custom_commands,
        checkpoints,
        structured_output,
        transcripts,
        skills,
        output_style_reminder: styles.active.reminder(),
    }))
}

/// `--json-schema`'s `StructuredOutput` tool; a schema that cannot be used
/// stops the start.
fn structured_output_tool(
    options: &SessionOptions,
) -> Result<Option<Arc<StructuredOutputTool>>, StartError> {
    let Some(schema) = &options.json_schema else {
        return Ok(None);
    };
    let schema = OutputSchema::compile(schema.clone()).map_err(StartError::JsonSchema)?;
    Ok(Some(Arc::new(StructuredOutputTool::new(schema))))
}

/// `session` with its usage ledger and the loop's hook seams: the session's hooks, behind the
/// structured-output reminder when there is a schema.
fn with_loop_hooks(
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

/// The session's event stream, its first events the settings' notices.
fn emitter(notices: &[Notice], env: &Env) -> (Emitter, mpsc::UnboundedReceiver<RuntimeEvent>) {
    let (tx, events) = mpsc::unbounded_channel();
    let telemetry = crate::telemetry::start(env, &tx);
    let emit = Emitter::new(tx, telemetry);
    for notice in notices {
        emit.notice(notice.clone());
    }
    (emit, events)
}

/// The model client, built on a blocking thread from here on, and where its
/// credentials came from.
///
/// Other providers ([`crate::providers`]) get their clients on first use; a
/// session whose model is a provider's needs no Anthropic credentials.
async fn model_client(
    settings: &Settings,
    options: &SessionOptions,
    env: &Env,
    cwd: &Path,
    model: &str,
) -> Result<(Arc<dyn ModelClient>, Account, bool), StartError> {
    let specs = providers::provider_specs(settings, env);
    tack_api::set_price_book(providers::price_book(settings, &specs));
    let helper = settings.api_key_helper().map(|h| h.value().clone());
    let on_provider = providers::route(&specs, model).is_some();
    let (mut client_config, api_key_source) = match client_config(env, helper, cwd).await {
        Err(AuthError::Missing) if on_provider => (ClientConfig::from_env(|k| env.get(k)), "none"),
        other => other?,
    };
    client_config.betas.extend(options.betas.iter().cloned());
    let account = Account {
        key_source: api_key_source,
        provider: client_config.platform.name(),
    };
    let default = Arc::new(DeferredClient::spawn(client_config.clone()));
    Ok((
        Arc::new(ProviderRouter::new(default, specs, client_config)),
        account,
        on_provider,
    ))
}

/// Where the session's key came from (`apiKeySource`) and which API serves
/// its default model (`apiProvider`: `firstParty`, `bedrock`, `vertex`).
#[derive(Debug, Clone, Copy)]
struct Account {
    key_source: &'static str,
    provider: &'static str,
}

/// MCP servers start now, all at once, while the rest of start-up goes on;
/// the tools are collected just before the first request ([`mcp_tools`]).
fn start_mcp(
    loaded: &LoadedSettings,
    options: &SessionOptions,
    plugins: &SessionPlugins,
    store: &SessionStore,
    cwd: &Path,
    env: &Env,
    emit: &Emitter,
) -> Result<Option<SessionMcp>, StartError> {
    let (mcp_config, mcp_notices) = crate::mcp::load(
        &loaded.locations,
        &loaded.settings,
        &options.mcp_config,
        options.strict_mcp_config,
        plugins,
    )?;
    for notice in mcp_notices {
        emit.notice(notice);
    }
    // An SDK may add servers while the session runs (`mcp_set_servers`).
    let mcp_config = mcp_config.or_else(|| options.sdk_mcp.is_some().then(Default::default));
    Ok(mcp_config.as_ref().map(|config| {
        let logs = store.project_dir(cwd).join("mcp-logs");
        SessionMcp::start(config, cwd, &logs, env, options.sdk_mcp.clone())
    }))
}

/// Temporary files of atomic writes are journalled so a session killed
/// mid-write leaves nothing behind for long: the next start removes them,
/// off the start-up path.
fn remove_pending_writes(config_dir: &Path) {
    let pending_writes = config_dir.join("pending-writes");
    tack_sys::atomic_write::journal_in(&pending_writes);
    tokio::task::spawn_blocking(move || tack_sys::atomic_write::remove_leftovers(&pending_writes));
}

/// The session's permission context and what it was built from.
struct Permissions {
    ctx: PermissionContext,
    mode: PermissionMode,
    /// `--add-dir` and settings' additional directories, absolute.
    add_dirs: Vec<PathBuf>,
    bypass_allowed: bool,
}

/// Permissions, options over settings. Every rule is parsed now: an invalid
/// one stops the session before any request.
fn permissions(
    settings: &Settings,
    options: &SessionOptions,
    cwd: &Path,
    home_dir: Option<&Path>,
    emit: &Emitter,
) -> Result<Permissions, StartError> {
    let mode = options
        .permission_mode
        .or_else(|| {
            settings
                .permissions()
                .default_mode()
                .and_then(|m| m.value().parse().ok())
        })
        .unwrap_or_default();
    if mode == PermissionMode::BypassPermissions && settings.permissions().bypass_mode_disabled() {
        return Err(StartError::BypassDisabled);
    }
    let mut rule_sources = settings_rule_sources(settings.permissions());
    rule_sources.push(cli_rule_source(
        options.allowed_tools.clone(),
        options.disallowed_tools.clone(),
    ));
    let policy = &options.sdk_tool_policy;
    if policy != &SdkToolPolicy::default() {
        rule_sources.push((
            RuleSource::named("sdkMcpServerConfigs"),
            RuleLists {
                allow: Vec::new(),
                ask: policy.always_ask.clone(),
                deny: policy.always_deny.clone(),
            },
        ));
    }
    let (rules, rule_warnings) = build_rules(rule_sources)?;
    for w in rule_warnings {
        emit.notice(Notice::warning(w));
    }
    let mut add_dirs: Vec<PathBuf> = settings
        .permissions()
        .additional_directories()
        .iter()
        .map(|d| d.value().clone())
        .collect();
    add_dirs.extend(options.add_dirs.iter().map(|d| cwd.join(d)));
    let ctx = PermissionContext::new(
        mode,
        rules,
        cwd,
        home_dir.unwrap_or(Path::new("/")),
        &add_dirs,
    );
    let bypass_allowed = (mode == PermissionMode::BypassPermissions
        || options.allow_bypass_permissions)
        && !settings.permissions().bypass_mode_disabled();
    Ok(Permissions {
        ctx,
        mode,
        add_dirs,
        bypass_allowed,
    })
}

/// What the prompt context is loaded with.
fn context_options(
    cwd: &Path,
    home_dir: Option<PathBuf>,
    model: &str,
    perms: &Permissions,
    options: &SessionOptions,
    loaded: &LoadedSettings,
    styles: &Styles,
) -> ContextOptions {
    let mut ctx_opts = ContextOptions::new(cwd.to_path_buf(), today());
    ctx_opts.system_prompt.output_style = styles.active.system_prompt();
    ctx_opts.home_dir = home_dir;
    ctx_opts.system_prompt.custom = options.system_prompt.clone();
    ctx_opts.system_prompt.append = options.append_system_prompt.clone();
    ctx_opts.system_prompt.model = model.to_owned();
    ctx_opts.additional_dirs = perms.add_dirs.clone();
    ctx_opts.external_imports_approved = loaded.trust.external_imports;
    ctx_opts.git_prefetch = options.git_prefetch.clone();
    ctx_opts
}

/// Starts loading the prompt context (memory files, git) on its own task,
/// polled once now so its reads and `git` processes are under way before the
/// rest of start-up runs on this thread.
async fn spawn_context(ctx_opts: ContextOptions) -> tokio::task::JoinHandle<LoadedContext> {
    let load = tokio::spawn(async move { load_context(&ctx_opts).await });
    tokio::task::yield_now().await;
    load
}

/// The prompt context once loaded, its warnings emitted, its path rules
/// handed to the gate.
async fn loaded_context(
    load: tokio::task::JoinHandle<LoadedContext>,
    emit: &Emitter,
    gate: &Gate,
) -> Arc<PromptContext> {
    let loaded = load.await.unwrap_or_default();
    for warning in &loaded.warnings {
        emit.notice(Notice::warning(format!("warning: {warning}")));
    }
    gate.set_path_rules(loaded.path_rules);
    Arc::new(loaded.context)
}

/// The request settings: the first request's and the base later turns'
/// options apply to.
struct RequestSettings {
    base: QueryConfig,
    env: RequestEnv,
    config: QueryConfig,
}

/// Model and request settings; warns about a model without a price.
fn request_config(
    options: &SessionOptions,
    env: &Env,
    settings: &Settings,
    model: &str,
    emit: &Emitter,
) -> RequestSettings {
    let request_env =
        RequestEnv::from_env(env).with_choices(options.thinking.clone(), options.effort.clone());
    let mut base = QueryConfig::new(model.to_owned());
    base.max_turns = options.max_turns;
    base.fallback_model = options
        .fallback_model
        .clone()
        .or_else(|| settings.fallback_model().and_then(|c| c.first().cloned()))
        .map(|m| resolve_model(&m));
    base.auto_compact = settings.auto_compact_enabled();
    let config = request_env.apply(&base, model);
    for m in std::iter::once(model).chain(config.fallback_model.as_deref()) {
        if let Some(warning) = tack_api::unpriced_model_warning(m) {
            emit.notice(Notice::warning(format!("warning: {warning}")));
        }
    }
    RequestSettings {
        base,
        env: request_env,
        config,
    }
}

/// Where the tools work: the cwd, the session's directory (beside the
/// transcript, `<id>.jsonl` → `<id>/`: sub-agents, tool output), the permission
/// directories and `BASH_DEFAULT_TIMEOUT_MS`.
fn tool_env(cwd: &Path, session_dir: PathBuf, perms: &Permissions, env: &Env) -> Arc<ToolEnv> {
    let mut tool_env =
        ToolEnv::new(cwd.to_path_buf(), session_dir).with_additional_dirs(perms.add_dirs.clone());
    if let Some(ms) = env
        .get("BASH_DEFAULT_TIMEOUT_MS")
        .and_then(|v| v.parse::<u64>().ok())
    {
        tool_env = tool_env.with_bash_default_timeout(Duration::from_millis(ms));
    }
    Arc::new(tool_env)
}

/// The hooks and the permission gate every tool call passes.
struct Guard(Option<Arc<SessionHooks>>, Arc<Gate>, TurnCancel);

/// The session's hooks (every settings file's, plus the SDK's callbacks) and
/// the gate deciding with `ctx`, writing "always allow" rules to the settings
/// files of `place.project_dir` and `home_dir`.
fn hooks_and_gate(
    hook_sources: &[HookSource],
    options: &SessionOptions,
    ctx: PermissionContext,
    place: HookPlace<'_>,
    home_dir: Option<&Path>,
    emit: &Emitter,
    checkpoints: Option<Arc<Checkpoints>>,
) -> Result<Guard, StartError> {
    let project_dir = place.project_dir.to_path_buf();
    let files = SettingsFiles {
        local: project_dir.join(".claude/settings.local.json"),
        project: project_dir.join(".claude/settings.json"),
        user: home_dir.map(|h| h.join(".claude/settings.json")),
    };
    let hooks = SessionHooks::new(
        hook_sources,
        &options.hook_callbacks,
        place,
        HookReporting {
            verbose: options.verbose,
            all_events: options.hook_events,
        },
        emit.clone(),
    )?
    .map(|h| Arc::new(h.with_home(home_dir)));
    let turn_cancel = TurnCancel::default();
    let gate = Arc::new(
        Gate::new(
            ctx,
            hooks.clone(),
            options.permission_prompts.then(|| emit.clone()),
            turn_cancel.clone(),
            files,
            checkpoints,
        )
        .deferring(!options.interactive),
    );
    Ok(Guard(hooks, gate, turn_cancel))
}

/// Opens the transcript (when persisting) and returns it with the history
/// keyed by record uuid; a forked session's transcript starts with the
/// history it continues.
#[allow(clippy::type_complexity)]
fn open_transcript(
    meta: Option<RecordMeta>,
    path: &Path,
    conversation: Conversation,
    options: &SessionOptions,
    gate: &Arc<Gate>,
    mirror: &Mirror,
    attachments: &PendingAttachments,
) -> Result<(Option<Arc<StoreSink>>, Vec<(String, Message)>), StartError> {
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
    if options.fork_session {
        history = write_history(&mut transcript, history)?;
    }
    let sink = StoreSink::new(transcript)
        .with_gate(gate.clone())
        .with_attachments(attachments.clone());
    Ok((Some(Arc::new(sink)), history))
}

/// The session's tools with the MCP servers': waits for every server's tool
/// list (their tools must be in the first request) and sets an MCP
/// `--permission-prompt-tool`.
async fn mcp_tools(
    mcp: Option<&mut SessionMcp>,
    builtin: &[Arc<dyn tack_tool::Tool>],
    gate: &Gate,
    options: &SessionOptions,
    model: &str,
    env: &Env,
    emit: &Emitter,
) -> Result<ToolSet, StartError> {
    let Some(mcp) = mcp else {
        return Ok(ToolSet::new(builtin.to_vec()));
    };
    for notice in mcp.settle().await {
        emit.notice(notice);
    }
    if let Some(name) = options
        .permission_prompt_tool
        .as_deref()
        .filter(|n| n.starts_with("mcp__"))
    {
        gate.set_prompt_tool(tack_mcp::PermissionPromptTool::new(mcp.manager(), name)?);
    }
    let window = tack_api::model_limits(model).context_window;
    let keep = |t: &dyn tack_tool::Tool| !gate.removes_tool(t);
    Ok(mcp.tool_set(
        builtin,
        window,
        env.get("ENABLE_TOOL_SEARCH").as_deref(),
        &keep,
    ))
}

/// Writes a forked session's history into its new transcript (one chained
/// write); returns the history with the records' uuids.
fn write_history(
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
fn record_meta(cwd: &Path, options: &SessionOptions) -> RecordMeta {
    RecordMeta {
        cwd: cwd.to_string_lossy().into_owned(),
        git_branch: tack_git::head::branch_name(cwd),
        version: VERSION.to_owned(),
        entrypoint: if options.interactive {
            "cli"
        } else {
            "sdk-cli"
        }
        .to_owned(),
    }
}

/// Today's date (UTC) for the user context.
fn today() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    now[..10].to_owned()
}
