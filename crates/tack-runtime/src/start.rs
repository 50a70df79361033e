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
use tack_core::QueryConfig;
use tack_core::context::{ContextOptions, load_prompt_context};
use tack_core::deps::ProductionDeps;
use tack_core::executor::ToolSet;
use tack_core::session::{Session, SessionParts, TranscriptSink};
use tack_permissions::{PermissionContext, PermissionMode};
use tack_protocol::Message;
use tack_store::{RecordMeta, SessionStore, Transcript};
use tack_tool::ToolEnv;
use tokio::sync::mpsc;

use crate::auth::{AuthError, client_config};
use crate::client::DeferredClient;
use crate::config::LoadedSettings;
use crate::emit::Emitter;
use crate::event::{Notice, SessionInfo};
use crate::gate::{
    Gate, RulesError, SettingsFiles, TurnCancel, build_rules, cli_rule_source,
    settings_rule_sources,
};
use crate::hooks::{HookPlace, HooksError, SessionHooks};
use crate::model::{RequestEnv, resolve_model, session_model};
use crate::options::{SessionChoice, SessionOptions};
use crate::place::Place;
use crate::runtime::Runtime;
use crate::transcript::StoreSink;

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
}

/// Starts a session; must be called within a tokio runtime. `loaded` comes
/// from [`crate::load_settings`] (its notices are the session's first events).
pub async fn start(
    place: Place,
    loaded: &LoadedSettings,
    options: SessionOptions,
) -> Result<Runtime, StartError> {
    let Place {
        cwd,
        config_dir,
        home_dir,
        env,
    } = place;
    let settings = &loaded.settings;
    let (tx, events) = mpsc::unbounded_channel();
    let emit = Emitter(tx);
    for notice in &loaded.notices {
        emit.notice(notice.clone());
    }
    let store = SessionStore::new(&config_dir);
    let version = env!("CARGO_PKG_VERSION");

    // Permissions (options over settings). Every rule is parsed now: an
    // invalid one stops the session before any request.
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
    let permission_ctx = PermissionContext::new(
        mode,
        rules,
        &cwd,
        home_dir.as_deref().unwrap_or(Path::new("/")),
        &add_dirs,
    );

    let helper = settings.api_key_helper().map(|h| h.value().clone());
    let (client_config, api_key_source) = client_config(&env, helper, &cwd).await?;
    let client = DeferredClient::spawn(client_config);

    // The conversation: new, --continue, --resume <id>.
    let (session_id, history, leaf, resumed) = match &options.session {
        SessionChoice::New { id } => {
            let id = id
                .clone()
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
            (id, Vec::new(), None, false)
        }
        SessionChoice::Continue | SessionChoice::Resume(_) => {
            let path = match &options.session {
                SessionChoice::Resume(id) if id.is_empty() => {
                    let recent = store.list_sessions(&cwd)?;
                    let list: Vec<String> = recent
                        .iter()
                        .take(5)
                        .map(|s| format!("  {}  {}", s.session_id, s.preview()))
                        .collect();
                    return Err(StartError::ResumeNeedsId(list.join("\n")));
                }
                SessionChoice::Resume(id) => store.find_session(&cwd, id)?,
                SessionChoice::Continue | SessionChoice::New { .. } => {
                    store.latest_session(&cwd)?.path
                }
            };
            let loaded = tack_store::load(&path)?;
            for w in &loaded.warnings {
                emit.notice(Notice::warning(format!("warning: {}: {w}", path.display())));
            }
            (loaded.session_id, loaded.messages, loaded.leaf_uuid, true)
        }
    };
    let transcript_path = store.transcript_path(&cwd, &session_id)?;
    if matches!(options.session, SessionChoice::New { id: Some(_) }) && transcript_path.exists() {
        return Err(StartError::SessionIdInUse(session_id));
    }
    let sink = if options.persist {
        let meta = RecordMeta {
            cwd: cwd.to_string_lossy().into_owned(),
            git_branch: git_branch(&cwd),
            version: version.to_owned(),
        };
        let transcript = Transcript::open(&transcript_path, &session_id, meta, leaf)?;
        Some(Arc::new(StoreSink::new(transcript)))
    } else {
        None
    };

    // Model and request settings.
    let model = session_model(&options, &env, settings);
    let request_env = RequestEnv::from_env(&env);
    let mut base = QueryConfig::new(model.clone());
    base.max_turns = options.max_turns;
    base.fallback_model = options
        .fallback_model
        .clone()
        .or_else(|| settings.fallback_model().and_then(|c| c.first().cloned()))
        .map(|m| resolve_model(&m));
    base.auto_compact = settings.auto_compact_enabled();
    let config = request_env.apply(&base, &model);

    // Tools, hooks, the gate.
    let session_dir = store.project_dir(&cwd).join(&session_id);
    let mut tool_env = ToolEnv::new(cwd.clone(), session_dir).with_additional_dirs(add_dirs);
    if let Some(ms) = env
        .get("BASH_DEFAULT_TIMEOUT_MS")
        .and_then(|v| v.parse::<u64>().ok())
    {
        tool_env = tool_env.with_bash_default_timeout(Duration::from_millis(ms));
    }
    let tool_env = Arc::new(tool_env);
    let hook_sources = hook_sources(settings);
    let hooks = SessionHooks::new(
        &hook_sources,
        HookPlace {
            project_dir: &tack_config::find_project_dir(&cwd),
            cwd: &cwd,
            session_id: &session_id,
            transcript_path: &transcript_path,
            permission_mode: mode.as_str(),
        },
        options.verbose,
        emit.clone(),
    )?
    .map(Arc::new);
    let turn_cancel = TurnCancel::default();
    let project_dir = tack_config::find_project_dir(&cwd);
    let files = SettingsFiles {
        local: project_dir.join(".claude/settings.local.json"),
        project: project_dir.join(".claude/settings.json"),
        user: home_dir.as_ref().map(|h| h.join(".claude/settings.json")),
    };
    let gate = Arc::new(Gate::new(
        permission_ctx,
        hooks.clone(),
        options.permission_prompts.then(|| emit.clone()),
        turn_cancel.clone(),
        files,
    ));
    let tools: Vec<_> = tack_tools::builtin_tools(&tool_env)
        .into_iter()
        .filter(|t| !gate.removes_tool(t.as_ref()))
        .collect();
    let tool_names: Vec<String> = tools.iter().map(|t| t.name().to_owned()).collect();

    // Context (memory files, git) for the first request.
    let mut ctx_opts = ContextOptions::new(cwd.clone(), today());
    ctx_opts.home_dir = home_dir;
    ctx_opts.system_prompt.custom = options.system_prompt.clone();
    ctx_opts.system_prompt.append = options.append_system_prompt.clone();
    ctx_opts.system_prompt.model = model.clone();
    let context = Arc::new(load_prompt_context(&ctx_opts).await);
    let start_context = match &hooks {
        Some(h) => {
            let source = if resumed { "resume" } else { "startup" };
            h.session_start(source, &model).await
        }
        None => None,
    };

    let prompt_context = context.clone();
    let tool_list = tools.clone();
    let parts = SessionParts {
        session_id: session_id.clone(),
        context,
        tools: ToolSet::new(tools),
        tool_env,
        can_use_tool: gate.clone(),
        deps: Arc::new(ProductionDeps::new(Arc::new(client))),
        config,
        max_budget_usd: options.max_budget_usd,
        transcript: sink.clone().map(|s| s as Arc<dyn TranscriptSink>),
    };
    let history: Vec<(String, Message)> = history
        .into_iter()
        .map(|m| (uuid::Uuid::new_v4().to_string(), m))
        .collect();
    let mut session = Session::new(parts).with_history(history);
    if let Some(h) = &hooks {
        session = session.with_stop_hooks(h.clone());
    }
    let info = SessionInfo {
        session_id,
        cwd,
        model,
        tools: tool_names,
        permission_mode: mode,
        api_key_source: api_key_source.to_owned(),
        transcript_path: sink.map(|s| s.path().to_path_buf()),
        resumed,
        version: version.to_owned(),
    };
    Ok(Runtime::new(crate::runtime::Parts {
        session,
        gate,
        hooks,
        info,
        base_config: base,
        request_env,
        start_context,
        max_turns: options.max_turns,
        emit,
        events,
        turn_cancel,
        context: prompt_context,
        tools: tool_list,
    }))
}

/// Every settings file's `hooks` (file, value), lowest first; empty with
/// `disableAllHooks`.
fn hook_sources(settings: &Settings) -> Vec<(String, serde_json::Value)> {
    settings
        .hooks_by_source()
        .into_iter()
        .map(|(source, value)| (source.to_string(), value))
        .collect()
}

/// The current git branch, read from `.git/HEAD` (no `git` process at
/// start-up): `HEAD` when detached, empty outside a repository.
pub fn git_branch(cwd: &Path) -> String {
    for dir in cwd.ancestors() {
        let head = dir.join(".git").join("HEAD");
        if let Ok(text) = std::fs::read_to_string(&head) {
            return text
                .trim()
                .strip_prefix("ref: refs/heads/")
                .unwrap_or("HEAD")
                .to_owned();
        }
    }
    String::new()
}

/// Today's date (UTC) for the user context.
fn today() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    now[..10].to_owned()
}
