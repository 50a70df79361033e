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

use tack_config::Settings;
use tack_core::context::{ContextOptions, LoadedContext, load_context};
use tack_extensions::output_styles::Styles;
use tack_extensions::plugins::SessionPlugins;
use tack_permissions::{AutoOptions, PermissionContext, PermissionMode, RuleLists, RuleSource};
use tack_store::SessionStore;
use tack_tool::ToolEnv;
use tokio::sync::mpsc;

use crate::auth::AuthError;
use crate::checkpoints::Checkpoints;
use crate::config::LoadedSettings;
use crate::emit::Emitter;
use crate::event::{Notice, RuntimeEvent};
use crate::extensions::{commands_and_skills, hook_sources, output_styles, plugins};
use crate::gate::{
    AutoMode, Gate, RulesError, SettingsFiles, TurnCancel, build_rules, cli_rule_source,
    settings_rule_sources,
};
use crate::hooks::watched_settings;
use crate::hooks::{HookPlace, HookReporting, HookSource, HooksError, SessionHooks};
use crate::mcp::{McpError, SessionMcp};
use crate::model::{model_for, session_model_name};
use crate::options::{SdkToolPolicy, SessionOptions};
use crate::place::{Env, Place};
use crate::runtime::{Policy, Runtime};
use crate::session_tools::UnknownTools;
use crate::structured_output::{OutputSchema, SchemaError, StructuredOutputTool};

mod assemble;
pub(crate) mod auto;
mod conversation;
mod model;
mod refused;
use assemble::{Loaded, Prepared, Where, assemble};
use conversation::{conversation, transcript_path};
use model::model_client;

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
    #[error(transparent)]
    OpenAiBaseUrl(#[from] crate::providers::BadOpenAiBaseUrl),
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
    #[error(transparent)]
    UnknownAgent(#[from] crate::main_agent::UnknownAgent),
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
    let headers_helper = (settings.otel_headers_helper()).map(|h| (h.value().clone(), cwd.clone()));
    let (emit, events) = emitter(&loaded.notices, &env, headers_helper);
    remove_pending_writes(&config_dir);
    let plugins = plugins(&options, &cwd, loaded, &emit);
    // Only the terminal UI refreshes marketplaces (a `git` clone or fetch):
    // `-p`, SDK and `tack batch` sessions start with no network of their own.
    let auto_update = match options.front_end.interactive {
        true => crate::extensions::spawn_auto_update(loaded, &env, &emit),
        false => None,
    };

    let structured_output = structured_output_tool(&options)?;
    let mut options = options;
    options.extensions.teammates.setting = settings.unknown_keys().get("teammateMode").cloned();
    let project_dir = tack_config::find_project_dir(&cwd);
    let dirs = (home_dir.as_deref(), project_dir.as_path());
    // Before the agent: a resumed session runs as the agent it ran as.
    let conversation = conversation(&store, &cwd, &options, &emit).await?;
    let named = (loaded, conversation.agent.as_deref());
    let agents = crate::main_agent::apply(&mut options, named, &plugins, dirs, &emit)?;
    // `permissions.denyInsteadOfPrompting`: an unattended run refuses what
    // would wait for a person.
    options.permissions.prompts &= !settings.permissions().deny_instead_of_prompting();
    let mut perms = permissions(settings, &options, &cwd, home_dir.as_deref(), &emit)?;
    let auto_setup = auto::auto_setup(settings, &emit);
    manual_without_auto(&mut perms, &auto_setup, &emit);
    // Plan mode classifies only when entered from auto mode (`Gate::set_mode`).
    perms.ctx.set_auto_options(AutoOptions {
        classify_all_shell: auto_setup.config.classify_all_shell,
        during_plan: false,
    });
    let model_name = session_model_name(&options, &env, settings);
    let model = model_for(&model_name, &env, perms.mode == PermissionMode::Plan);
    let styles = output_styles(&project_dir, &config_dir, (loaded, &plugins), &emit);
    let ctx_opts = context_options(&cwd, home_dir, &model, &perms, &options, loaded, &styles);
    let context_load = spawn_context(ctx_opts.clone()).await;

    let names = (model_name, model);
    let model = model_client(settings, &options, &env, &cwd, names, &emit).await?;
    let auto = auto::arm(auto_setup, &env, &model);
    let mcp = start_mcp(loaded, &options, &plugins, &store, &cwd, &env, &emit)?;

    let session_id = conversation.session_id.clone();
    let transcript_path = transcript_path(&store, &cwd, settings, &options, &conversation)?;
    let (custom_commands, skills) = commands_and_skills(
        &project_dir,
        &ctx_opts,
        &config_dir,
        (loaded, &plugins),
        &emit,
    );
    let tool_env = tool_env(&cwd, transcript_path.with_extension(""), &perms, &env)
        .with_client_files(options.extensions.client_files.clone())
        .with_client_terminal(options.extensions.client_terminal.clone());
    let tool_env = Arc::new(tool_env);
    let history = tack_store::file_history_dir(&config_dir, &session_id);
    let checkpoints =
        Checkpoints::for_session(options.conversation.file_checkpointing, &env, history);
    let policy = policy(
        &hook_sources(settings, &plugins),
        &options,
        (perms.ctx, perms.bypass_allowed, auto),
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
    read_mode_from(&policy.gate, &tool_env);

    let sandbox = crate::sandbox::start(
        crate::sandbox::SandboxPlace {
            settings,
            flag: options.permissions.sandbox,
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
        &policy.gate,
        &emit,
    )
    .await;
    assemble(Prepared {
        options,
        at: Where {
            store,
            cwd,
            env,
            prompt: ctx_opts.clone(),
            home_dir: ctx_opts.home_dir,
            project_dir,
            worktree_base: settings.worktree_base(),
        },
        emit,
        events,
        extensions: Loaded {
            plugins,
            styles,
            custom_commands,
            skills,
            auto_update,
            agents,
        },
        model,
        policy,
        permission_mode: perms.mode,
        checkpoints,
        sandbox,
        conversation: (conversation, transcript_path),
        context_load,
        mcp,
        tool_env,
        structured_output,
    })
    .await
}

/// `--json-schema`'s `StructuredOutput` tool; a schema that cannot be used
/// stops the start.
fn structured_output_tool(
    options: &SessionOptions,
) -> Result<Option<Arc<StructuredOutputTool>>, StartError> {
    let Some(schema) = &options.request.json_schema else {
        return Ok(None);
    };
    let schema = OutputSchema::compile(schema.clone()).map_err(StartError::JsonSchema)?;
    Ok(Some(Arc::new(StructuredOutputTool::new(schema))))
}

/// The session's event stream, its first events the settings' notices.
fn emitter(
    notices: &[Notice],
    env: &Env,
    headers_helper: Option<(String, PathBuf)>,
) -> (Emitter, mpsc::UnboundedReceiver<RuntimeEvent>) {
    let (tx, events) = mpsc::unbounded_channel();
    let telemetry = crate::telemetry::start(env, &tx, headers_helper);
    let emit = Emitter::new(tx, telemetry);
    for notice in notices {
        emit.notice(notice.clone());
    }
    (emit, events)
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
        &options.extensions.mcp_config,
        options.extensions.strict_mcp_config,
        plugins,
    )?;
    for notice in mcp_notices {
        emit.notice(notice);
    }
    // An SDK may add servers while the session runs (`mcp_set_servers`).
    let mcp_config =
        mcp_config.or_else(|| options.extensions.sdk_mcp.is_some().then(Default::default));
    Ok(mcp_config.as_ref().map(|config| {
        let logs = store.project_dir(cwd).join("mcp-logs");
        SessionMcp::start(config, cwd, &logs, env, options.extensions.sdk_mcp.clone())
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
        .permissions
        .mode
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
        options.permissions.allowed_tools.clone(),
        options.permissions.disallowed_tools.clone(),
    ));
    let policy = &options.permissions.sdk_tool_policy;
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
    add_dirs.extend(options.permissions.add_dirs.iter().map(|d| cwd.join(d)));
    let ctx = PermissionContext::new(
        mode,
        rules,
        cwd,
        home_dir.unwrap_or(Path::new("/")),
        &add_dirs,
    );
    let bypass_allowed = (mode == PermissionMode::BypassPermissions
        || options.permissions.allow_bypass)
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
    ctx_opts.system_prompt.custom = options.request.system_prompt.clone();
    ctx_opts.system_prompt.append = options.request.append_system_prompt.clone();
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

/// Where the tools work: the cwd, the session's directory (beside the
/// transcript, `<id>.jsonl` → `<id>/`: sub-agents, tool output), the permission
/// directories and `BASH_DEFAULT_TIMEOUT_MS`.
fn tool_env(cwd: &Path, session_dir: PathBuf, perms: &Permissions, env: &Env) -> ToolEnv {
    let mut tool_env =
        ToolEnv::new(cwd.to_path_buf(), session_dir).with_additional_dirs(perms.add_dirs.clone());
    if let Some(ms) = env
        .get("BASH_DEFAULT_TIMEOUT_MS")
        .and_then(|v| v.parse::<u64>().ok())
    {
        tool_env = tool_env.with_bash_default_timeout(Duration::from_millis(ms));
    }
    tool_env
}

/// The tools read the session's mode from `gate` (SendMessage's plan
/// approval sends the lead's).
fn read_mode_from(gate: &Arc<Gate>, tool_env: &ToolEnv) {
    let gate = Arc::downgrade(gate);
    let read = move || gate.upgrade().map(|g| g.mode().as_str().to_owned());
    tool_env.mode_slot().set(tack_tool::ModeSource::new(read));
}

/// The session's [`Policy`]: its hooks (every settings file's, plus the SDK's
/// callbacks) and (every settings file's, plus the SDK's callbacks) and
/// the gate deciding with `ctx`, writing "always allow" rules to the settings
/// files of `place.project_dir` and `home_dir`.
fn policy(
    hook_sources: &[HookSource],
    options: &SessionOptions,
    (ctx, bypass_allowed, auto): (PermissionContext, bool, Arc<AutoMode>),
    place: HookPlace<'_>,
    home_dir: Option<&Path>,
    emit: &Emitter,
    checkpoints: Option<Arc<Checkpoints>>,
) -> Result<Policy, StartError> {
    let project_dir = place.project_dir.to_path_buf();
    let files = SettingsFiles {
        local: project_dir.join(".claude/settings.local.json"),
        project: project_dir.join(".claude/settings.json"),
        user: home_dir.map(|h| h.join(".claude/settings.json")),
    };
    let hooks = SessionHooks::new(
        hook_sources,
        &options.extensions.hook_callbacks,
        place,
        HookReporting {
            verbose: options.front_end.verbose,
            all_events: options.front_end.hook_events,
        },
        emit.clone(),
    )?
    .map(|h| Arc::new(h.with_home(home_dir)));
    let turn_cancel = TurnCancel::default();
    let gate = Arc::new(
        Gate::new(
            ctx,
            hooks.clone(),
            options.permissions.prompts.then(|| emit.clone()),
            turn_cancel.clone(),
            files,
            checkpoints,
        )
        .deferring(!options.front_end.interactive)
        .reporting(emit.clone())
        .with_auto(auto)
        .allowing_bypass(bypass_allowed),
    );
    Ok(Policy {
        gate,
        hooks,
        turn_cancel,
    })
}

/// Today's date (UTC) for the user context.
fn today() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    now[..10].to_owned()
}

/// A session asked to start in auto mode where auto mode is not available
/// starts in Manual mode, saying why.
fn manual_without_auto(perms: &mut Permissions, setup: &auto::AutoSetup, emit: &Emitter) {
    if let Some(why) = setup.auto.unavailable()
        && perms.mode == PermissionMode::Auto
    {
        emit.notice(Notice::warning(format!(
            "warning: auto mode is not available ({why}); starting in Manual mode"
        )));
        perms.mode = PermissionMode::Default;
        perms.ctx.set_mode(PermissionMode::Default);
    }
}
