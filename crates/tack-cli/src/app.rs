//! Print mode: flags → session → turns → output. Start-up is kept to what the
//! first request needs: flags, settings, the transcript, the prompt context.

use std::collections::HashMap;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Map, Value, json};
use tack_api::{Auth, ClientConfig};
use tack_config::{Locations, Settings};
use tack_core::context::{ContextOptions, load_context};
use tack_core::deps::ProductionDeps;

use crate::deferred_client::DeferredClient;
use tack_core::executor::ToolSet;
use tack_core::session::{ResultSubtype, Session, SessionEvent, SessionParts};
use tack_core::{LoopEvent, QueryConfig};
use tack_protocol::stream_json::SystemInit;
use tack_protocol::{Message, ThinkingConfig};
use tack_store::{RecordMeta, SessionStore, Transcript};
use tack_tool::ToolEnv;
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use crate::cli::{Cli, InputFormat, OutputFormat, PermissionMode, split_rules};
use crate::hooks::{Hooks, PromptVerdict, StopHookRunner};
use crate::output::{Printer, error_line, result_record};
use crate::permissions::{
    PermissionGate, PrintPermissions, RuleSources, build_rules, cli_rule_source,
    settings_rule_sources,
};
use crate::persist::Persist;
use crate::progress::Progress;

/// Piped stdin is read up to this size (as Claude Code does).
const MAX_STDIN_BYTES: u64 = 10 * 1024 * 1024;
const DEFAULT_MODEL: &str = "claude-sonnet-4-5";

/// The process environment as the session sees it: the real environment with
/// settings' `env` applied on top.
#[derive(Debug, Clone, Default)]
pub struct Env(pub HashMap<String, String>);

impl Env {
    pub fn from_process() -> Env {
        Env(std::env::vars().collect())
    }

    pub fn get(&self, key: &str) -> Option<String> {
        self.0.get(key).filter(|v| !v.trim().is_empty()).cloned()
    }

    /// Applies settings' `env`: it wins over the inherited environment (as in
    /// Claude Code, where a settings `env` value beats a shell export).
    pub fn apply(&mut self, vars: &std::collections::BTreeMap<String, String>) {
        self.0
            .extend(vars.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
}

/// Where a run happens; the demo overrides these.
pub struct Place {
    pub cwd: PathBuf,
    pub config_dir: PathBuf,
    pub home_dir: Option<PathBuf>,
    pub env: Env,
}

impl Place {
    pub fn from_process(env: Env) -> anyhow::Result<Place> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let home_dir = env.get("HOME").map(PathBuf::from);
        let config_dir = match (env.get("TACK_CONFIG_DIR"), &home_dir) {
            (Some(dir), _) => PathBuf::from(dir),
            (None, Some(home)) => home.join(".tack"),
            (None, None) => bail!("cannot find the config directory: set HOME or TACK_CONFIG_DIR"),
        };
        Ok(Place {
            cwd,
            config_dir,
            home_dir,
            env,
        })
    }
}

/// Flag combinations Claude Code rejects before starting; same messages.
pub fn validate(cli: &Cli) -> anyhow::Result<()> {
    let print = cli.print || cli.input_format == InputFormat::StreamJson;
    if print && cli.output_format == OutputFormat::StreamJson && !cli.verbose {
        bail!("When using --print, --output-format=stream-json requires --verbose");
    }
    if cli.include_partial_messages && cli.output_format != OutputFormat::StreamJson {
        bail!("--include-partial-messages requires --print and --output-format=stream-json");
    }
    if cli.input_format == InputFormat::StreamJson && cli.output_format != OutputFormat::StreamJson
    {
        bail!("--input-format=stream-json requires output-format=stream-json");
    }
    if let Some(id) = &cli.session_id
        && !tack_store::is_valid_session_id(id)
    {
        bail!("Invalid session ID. Must be a valid UUID.");
    }
    if cli.continue_session && cli.resume.is_some() {
        bail!("--continue and --resume cannot be used together");
    }
    if cli.session_id.is_some() && (cli.continue_session || cli.resume.is_some()) {
        bail!("--session-id cannot be used with --continue or --resume");
    }
    if cli.max_turns == Some(0) {
        bail!("--max-turns must be at least 1");
    }
    if let Some(b) = cli.max_budget_usd
        && (b.is_nan() || b <= 0.0)
    {
        bail!("--max-budget-usd must be a positive number");
    }
    Ok(())
}

/// The prompt for text input: the argument and/or piped stdin.
pub fn read_prompt(cli: &Cli) -> anyhow::Result<String> {
    let stdin = std::io::stdin();
    let piped = if stdin.is_terminal() {
        None
    } else if cli.prompt.is_some() && !stdin_ready(Duration::from_millis(50)) {
        // A prompt was given and nothing is waiting on stdin: do not block on a
        // pipe nobody writes to.
        None
    } else {
        let mut buf = String::new();
        stdin
            .lock()
            .take(MAX_STDIN_BYTES)
            .read_to_string(&mut buf)
            .context("cannot read stdin")?;
        Some(buf)
    };
    let piped = piped.filter(|s| !s.trim().is_empty());
    match (&cli.prompt, piped) {
        (Some(p), Some(s)) => Ok(format!("{p}\n\n{s}")),
        (Some(p), None) if !p.trim().is_empty() => Ok(p.clone()),
        (None, Some(s)) => Ok(s),
        _ => bail!(
            "Input must be provided either through stdin or as a prompt argument when using --print"
        ),
    }
}

fn stdin_ready(timeout: Duration) -> bool {
    let mut fds = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd for fd 0.
    let n = unsafe { libc::poll(&mut fds, 1, timeout.as_millis() as libc::c_int) };
    n > 0
}

/// Resolves `sonnet` / `opus` / `haiku` to model ids.
pub fn resolve_model(name: &str) -> String {
    match name {
        "sonnet" => "claude-sonnet-4-5".into(),
        "opus" => "claude-opus-4-1".into(),
        "haiku" => "claude-haiku-4-5".into(),
        other => other.to_owned(),
    }
}

/// The current git branch, read from `.git/HEAD` (no `git` process at start-up).
fn git_branch(cwd: &Path) -> String {
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

/// Reads every settings file for `place` (and `--settings`): user
/// (`~/.claude`, then tack's config dir), project and local (`.claude/`, then
/// `.tack/`), then the flag. Any problem in any of them is the error, with the
/// file, line and column: nothing starts with half a configuration.
pub fn load_settings(cli: &Cli, place: &Place) -> anyhow::Result<Settings> {
    let mut locations = Locations::discover(&place.cwd, |k| place.env.get(k));
    locations.tack_user_dir = Some(place.config_dir.clone());
    Settings::load(&locations, cli.settings.as_deref()).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Settings-derived inputs of a run (from tack-config by `main`; the demo
/// fills them itself). Command-line flags are applied on top in [`run_print`].
#[derive(Debug, Clone, Default)]
pub struct RunSettings {
    pub model: Option<String>,
    /// Permission rules per settings source (parsed in [`run_print`]).
    pub rules: RuleSources,
    /// Every settings file's `hooks` (file, value), lowest first; empty with
    /// `disableAllHooks`.
    pub hooks: Vec<(String, Value)>,
    pub default_mode: Option<String>,
    pub additional_directories: Vec<PathBuf>,
    /// `permissions.disableBypassPermissionsMode`.
    pub bypass_disabled: bool,
    /// `apiKeyHelper`: used when neither ANTHROPIC_AUTH_TOKEN nor
    /// ANTHROPIC_API_KEY is set.
    pub api_key_helper: Option<String>,
    /// Narrate the session on stdout (assistant text, tool calls, results): `tack demo`.
    pub narrate: bool,
    /// `fallbackModel` (the first of a chain): used after repeated overload errors.
    pub fallback_model: Option<String>,
    /// `autoCompactEnabled: false` (autocompact is on unless a setting turns it off).
    pub auto_compact_disabled: bool,
}

impl RunSettings {
    pub fn from_settings(settings: &Settings) -> RunSettings {
        let p = settings.permissions();
        RunSettings {
            model: settings.model().map(str::to_owned),
            rules: settings_rule_sources(p),
            hooks: settings
                .hooks_by_source()
                .into_iter()
                .map(|(source, value)| (source.to_string(), value))
                .collect(),
            default_mode: p.default_mode().map(|m| m.value().clone()),
            additional_directories: p
                .additional_directories()
                .iter()
                .map(|d| d.value().clone())
                .collect(),
            bypass_disabled: p.bypass_mode_disabled(),
            api_key_helper: settings.api_key_helper().map(|h| h.value().clone()),
            narrate: false,
            fallback_model: settings
                .fallback_model()
                .and_then(|chain| chain.first().cloned()),
            auto_compact_disabled: !settings.auto_compact_enabled(),
        }
    }
}

/// Runs print mode to the end; the exit code reflects the last turn.
pub async fn run_print(
    cli: &Cli,
    place: Place,
    settings: RunSettings,
    prompt: Option<String>,
) -> anyhow::Result<ExitCode> {
    let Place {
        cwd,
        config_dir,
        home_dir,
        env,
    } = place;
    let store = SessionStore::new(&config_dir);
    let version = env!("CARGO_PKG_VERSION");

    // Permissions (flags over settings).
    let mode = if cli.dangerously_skip_permissions {
        PermissionMode::BypassPermissions
    } else {
        cli.permission_mode
            .or_else(|| {
                settings
                    .default_mode
                    .as_deref()
                    .and_then(PermissionMode::parse)
            })
            .unwrap_or(PermissionMode::Default)
    };
    if mode == PermissionMode::BypassPermissions && settings.bypass_disabled {
        bail!(
            "bypassPermissions mode is disabled by settings (permissions.disableBypassPermissionsMode)"
        );
    }
    // Every rule is parsed now: an invalid one stops tack before any request.
    let mut rule_sources = settings.rules.clone();
    rule_sources.push(cli_rule_source(
        split_rules(&cli.allowed_tools),
        split_rules(&cli.disallowed_tools),
    ));
    let mut permission_dirs = settings.additional_directories.clone();
    permission_dirs.extend(cli.add_dir.iter().map(|d| cwd.join(d)));
    let permission_ctx = tack_permissions::PermissionContext::new(
        mode.as_str()
            .parse()
            .unwrap_or(tack_permissions::PermissionMode::Default),
        build_rules(rule_sources)?,
        &cwd,
        home_dir.as_deref().unwrap_or(Path::new("/")),
        &permission_dirs,
    );

    // Client: ANTHROPIC_AUTH_TOKEN, else ANTHROPIC_API_KEY, else apiKeyHelper
    // (Claude Code's order). Resolved before the transcript is opened: a
    // failing helper stops tack before anything is written or sent.
    let mut client_config = ClientConfig::from_env(|k| env.get(k));
    let mut api_key_source = "none";
    if client_config.auth != Auth::None {
        api_key_source = "ANTHROPIC_API_KEY";
    } else if let Some(command) = settings.api_key_helper.clone() {
        let helper_cwd = cwd.clone();
        let key = tokio::task::spawn_blocking(move || {
            tack_config::run_api_key_helper(
                &command,
                &helper_cwd,
                tack_config::API_KEY_HELPER_TIMEOUT,
            )
        })
        .await?
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        client_config.auth = Auth::Both(key);
        api_key_source = "apiKeyHelper";
    }
    let client = DeferredClient::spawn(client_config);

    // The session: new, --continue, --resume <id>.
    let (session_id, history, leaf) = if cli.continue_session || cli.resume.is_some() {
        let path = match cli.resume.as_deref() {
            Some("") => {
                let recent = store.list_sessions(&cwd)?;
                let list: Vec<String> = recent
                    .iter()
                    .take(5)
                    .map(|s| format!("  {}  {}", s.session_id, s.preview()))
                    .collect();
                bail!(
                    "--resume needs a session id in print mode; recent sessions:\n{}",
                    list.join("\n")
                );
            }
            Some(id) => store.find_session(&cwd, id)?,
            None => store.latest_session(&cwd)?.path,
        };
        let loaded = tack_store::load(&path)?;
        for w in &loaded.warnings {
            eprintln!("warning: {}: {w}", path.display());
        }
        (loaded.session_id, loaded.messages, loaded.leaf_uuid)
    } else {
        let id = cli
            .session_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        (id, Vec::new(), None)
    };

    let transcript_path = store.transcript_path(&cwd, &session_id)?;
    if cli.session_id.is_some() && history.is_empty() && transcript_path.exists() {
        bail!("Session ID {session_id} is already in use.");
    }
    let meta = RecordMeta {
        cwd: cwd.to_string_lossy().into_owned(),
        git_branch: git_branch(&cwd),
        version: version.to_owned(),
    };
    let mut persist = Persist(if cli.no_session_persistence {
        None
    } else {
        Some(Transcript::open(&transcript_path, &session_id, meta, leaf)?)
    });

    // Model and request settings.
    let model = resolve_model(
        &cli.model
            .clone()
            .or_else(|| env.get("ANTHROPIC_MODEL"))
            .or(settings.model.clone())
            .unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
    );
    let info = tack_api::model_info(&model);
    let mut config = QueryConfig::new(model.clone());
    config.max_turns = cli.max_turns;
    config.fallback_model = cli
        .fallback_model
        .clone()
        .or(settings.fallback_model.clone())
        .map(|m| resolve_model(&m))
        .filter(|m| *m != model);
    for m in std::iter::once(&model).chain(&config.fallback_model) {
        if let Some(warning) = tack_api::unpriced_model_warning(m) {
            eprintln!("warning: {warning}");
        }
    }
    config.auto_compact = !settings.auto_compact_disabled;
    config.prompt_caching = env.get("DISABLE_PROMPT_CACHING").is_none_or(|v| v == "0");
    config.context_window = info.map(|i| i.context_window);
    if let Some(max) = info.map(|i| i.max_output_tokens) {
        config.max_tokens = config.max_tokens.min(max as u32);
    }
    if let Some(n) = env
        .get("CLAUDE_CODE_MAX_OUTPUT_TOKENS")
        .and_then(|v| v.parse().ok())
    {
        config.max_tokens = n;
    }
    if let Some(n) = env
        .get("MAX_THINKING_TOKENS")
        .and_then(|v| v.parse::<u32>().ok())
        && n > 0
    {
        config.thinking = Some(ThinkingConfig::Enabled {
            budget_tokens: n,
            display: None,
        });
    }

    // Tools.
    let session_dir = store.project_dir(&cwd).join(&session_id);
    let mut add_dirs = settings.additional_directories.clone();
    add_dirs.extend(cli.add_dir.iter().map(|d| cwd.join(d)));
    let mut tool_env =
        ToolEnv::new(cwd.clone(), session_dir).with_additional_dirs(add_dirs.clone());
    if let Some(ms) = env
        .get("BASH_DEFAULT_TIMEOUT_MS")
        .and_then(|v| v.parse::<u64>().ok())
    {
        tool_env = tool_env.with_bash_default_timeout(Duration::from_millis(ms));
    }
    let tool_env = Arc::new(tool_env);
    // Hooks (none configured: nothing ever runs).
    let hooks = Hooks::new(
        &settings.hooks,
        &tack_config::find_project_dir(&cwd),
        &cwd,
        &session_id,
        &transcript_path,
        mode.as_str(),
        cli.verbose,
    )?
    .map(Arc::new);
    let permissions = Arc::new(PrintPermissions::new(permission_ctx, hooks.clone()));
    let tools: Vec<_> = tack_tools::builtin_tools(&tool_env)
        .into_iter()
        .filter(|t| !permissions.removes_tool(t.as_ref()))
        .collect();
    let tool_names: Vec<String> = tools.iter().map(|t| t.name().to_owned()).collect();

    // Context (memory files, git) for the first request.
    let mut ctx_opts = ContextOptions::new(cwd.clone(), today());
    ctx_opts.home_dir = home_dir;
    ctx_opts.system_prompt.custom = cli.system_prompt.clone();
    ctx_opts.system_prompt.append = cli.append_system_prompt.clone();
    ctx_opts.system_prompt.model = model.clone();
    ctx_opts.additional_dirs = add_dirs;
    let loaded = load_context(&ctx_opts).await;
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    let context = Arc::new(loaded.context);
    let mut start_context = None;
    if let Some(h) = &hooks {
        let source = if cli.continue_session || cli.resume.is_some() {
            "resume"
        } else {
            "startup"
        };
        start_context = h.session_start(source, &model).await;
    }

    let parts = SessionParts {
        session_id: session_id.clone(),
        context,
        tools: ToolSet::new(tools),
        tool_env,
        can_use_tool: Arc::new(PermissionGate(permissions.clone())),
        deps: Arc::new(ProductionDeps::new(Arc::new(client))),
        config,
        max_budget_usd: cli.max_budget_usd,
        transcript: None,
    };
    let history: Vec<(String, Message)> = history
        .into_iter()
        .map(|m| (uuid::Uuid::new_v4().to_string(), m))
        .collect();
    let mut session = Session::new(parts).with_history(history);
    if let Some(h) = hooks.as_ref().filter(|h| h.has("Stop")) {
        session = session.with_stop_hooks(Arc::new(StopHookRunner(h.clone())));
    }

    let progress = (cli.output_format == OutputFormat::Text
        && std::io::stderr().is_terminal()
        && std::io::stdout().is_terminal())
    .then(Progress::start);
    let mut printer = Printer::new(
        cli.output_format,
        cli.include_partial_messages,
        session_id.clone(),
        progress,
    )
    .narrating(settings.narrate);
    let init = SystemInit {
        cwd: cwd.to_string_lossy().into_owned(),
        session_id: session_id.clone(),
        tools: tool_names,
        mcp_servers: Vec::new(),
        model: model.clone(),
        permission_mode: mode.as_str().to_owned(),
        slash_commands: Vec::new(),
        api_key_source: api_key_source.to_owned(),
        claude_code_version: version.to_owned(),
        output_style: "default".to_owned(),
        agents: Vec::new(),
        skills: Vec::new(),
        plugins: Vec::new(),
        uuid: uuid::Uuid::new_v4().to_string(),
        extra: Map::new(),
    };

    let mut turn_runner = TurnRunner {
        session: &mut session,
        persist: &mut persist,
        printer: &mut printer,
        permissions: &permissions,
        max_turns: cli.max_turns,
        hooks: hooks.clone(),
        start_context,
    };
    match prompt {
        Some(prompt) => {
            let ok = turn_runner
                .run(Message::user_text(prompt), Some(init))
                .await?;
            if let Some(h) = &hooks {
                h.session_end("other").await;
            }
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        None => {
            // --input-format stream-json: one user message per line until stdin closes.
            let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
            let mut init = Some(init);
            let mut ok = true;
            while let Some(line) = lines.next_line().await.context("cannot read stdin")? {
                if line.trim().is_empty() {
                    continue;
                }
                let value: Value = serde_json::from_str(&line)
                    .with_context(|| format!("invalid JSON on stdin: {line}"))?;
                match value.get("type").and_then(Value::as_str) {
                    Some("user") => {
                        let message: Message = serde_json::from_value(
                            value.get("message").cloned().unwrap_or(Value::Null),
                        )
                        .with_context(|| format!("invalid user message on stdin: {line}"))?;
                        let message = Message::user(message.content);
                        ok = match compact_command(&message) {
                            Some(instructions) => {
                                turn_runner.compact(instructions, init.take()).await?
                            }
                            None => turn_runner.run(message, init.take()).await?,
                        };
                    }
                    Some("control_request") => turn_runner.printer.control_response(&value)?,
                    _ => eprintln!("warning: ignoring stdin line of unknown type: {line}"),
                }
            }
            if let Some(h) = &hooks {
                h.session_end("other").await;
            }
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

struct TurnRunner<'a> {
    session: &'a mut Session,
    persist: &'a mut Persist,
    printer: &'a mut Printer,
    permissions: &'a PrintPermissions,
    max_turns: Option<u32>,
    hooks: Option<Arc<Hooks>>,
    /// SessionStart hooks' context, appended to the first prompt.
    start_context: Option<String>,
}

/// `/compact [instructions]` typed as a user message: `Some(instructions)`.
fn compact_command(message: &Message) -> Option<Option<String>> {
    let text = message.text();
    let rest = text.trim_start().strip_prefix("/compact")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let rest = rest.trim();
    Some((!rest.is_empty()).then(|| rest.to_owned()))
}

impl TurnRunner<'_> {
    /// The manual `/compact`: summarise, persist the boundary and the new
    /// history, print the `compact_boundary` record. `Ok(false)` if it failed
    /// (the history is then unchanged).
    async fn compact(
        &mut self,
        instructions: Option<String>,
        init: Option<SystemInit>,
    ) -> anyhow::Result<bool> {
        if let Some(init) = init {
            self.printer.init(init)?;
        }
        if let Some(h) = &self.hooks
            && let Err(message) = h.pre_compact("manual", instructions.as_deref()).await
        {
            eprintln!("Error: /compact failed: {message}");
            return Ok(false);
        }
        match self
            .session
            .compact(instructions, CancellationToken::new())
            .await
        {
            Ok(compacted) => {
                self.persist.compacted(&compacted)?;
                self.printer.event(&LoopEvent::Compacted(compacted))?;
                Ok(true)
            }
            Err(error) => {
                eprintln!("Error: /compact failed: {error}");
                Ok(false)
            }
        }
    }

    /// A turn whose prompt a UserPromptSubmit hook blocked: nothing is sent or
    /// persisted; an error result, and the reason on stderr.
    fn blocked(&mut self, reason: String, init: Option<SystemInit>) -> anyhow::Result<bool> {
        if let Some(init) = init {
            self.printer.init(init)?;
        }
        let totals = self.session.totals();
        let result = tack_core::session::SessionResult {
            subtype: ResultSubtype::ErrorDuringExecution,
            is_error: true,
            terminal: None,
            result: String::new(),
            errors: vec![reason.clone()],
            duration: Duration::ZERO,
            duration_api: Duration::ZERO,
            num_turns: 0,
            total_cost_usd: totals.total_cost_usd,
            usage: Default::default(),
            model_usage: Default::default(),
            session_id: self.session.session_id().to_owned(),
        };
        let record = result_record(&result, None, self.permissions.take_denials());
        self.printer.result(&record)?;
        self.printer.summary(&record, self.persist.path());
        eprintln!("Error: {reason}");
        Ok(false)
    }

    /// One user turn; `Ok(false)` if it ended in an error result. `init` is
    /// printed first if given (the session's first turn).
    async fn run(&mut self, prompt: Message, init: Option<SystemInit>) -> anyhow::Result<bool> {
        let prompt = crate::hooks::with_context(prompt, self.start_context.take());
        let prompt = match &self.hooks {
            Some(h) => match h.user_prompt_submit(prompt).await {
                PromptVerdict::Send(p) => p,
                PromptVerdict::Blocked(reason) => return self.blocked(reason, init),
            },
            None => prompt,
        };
        // The prompt is on disk before anything is printed and before the first request.
        self.persist.prompt(&prompt)?;
        if let Some(init) = init {
            self.printer.init(init)?;
        }
        let mut stop_reason = None;
        let mut turn = self.session.submit(prompt, CancellationToken::new());
        while let Some(event) = turn.next().await {
            match event {
                SessionEvent::Loop(event) => {
                    match &event {
                        LoopEvent::AssistantMessage(a) => {
                            stop_reason = a.stop_reason.as_ref().map(|s| s.as_str().to_owned());
                            self.persist.assistant(a)?;
                        }
                        LoopEvent::ToolResults(r) => self.persist.tool_results(r)?,
                        LoopEvent::Tombstone { uuid, .. } => self.persist.tombstone(uuid),
                        LoopEvent::MetaMessage { uuid, message } => {
                            self.persist.meta(uuid, message)?;
                        }
                        LoopEvent::Compacted(c) => self.persist.compacted(c)?,
                        LoopEvent::ModelFallback { .. } | LoopEvent::CompactFailed { .. } => {}
                        LoopEvent::RequestStart { .. }
                        | LoopEvent::Stream(_)
                        | LoopEvent::Retry { .. }
                        | LoopEvent::ToolProgress(_)
                        | LoopEvent::Terminal(_) => {}
                    }
                    self.printer.event(&event)?;
                }
                SessionEvent::Result(result) => {
                    let record = result_record(
                        &result,
                        stop_reason.clone(),
                        self.permissions.take_denials(),
                    );
                    self.printer.result(&record)?;
                    let ok = result.subtype == ResultSubtype::Success && !result.is_error;
                    self.printer.summary(&record, self.persist.path());
                    if !ok {
                        eprintln!("{}", error_line(&result, self.max_turns));
                    }
                    return Ok(ok);
                }
            }
        }
        bail!("the session ended without a result")
    }
}

/// Today's date (UTC) for the user context.
fn today() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    now[..10].to_owned()
}

/// The answer to an SDK `control_request` (only `initialize` and `interrupt`
/// are understood so far; others get an error response).
pub fn control_response(request: &Value) -> Value {
    let id = request.get("request_id").cloned().unwrap_or(Value::Null);
    let subtype = request
        .pointer("/request/subtype")
        .and_then(Value::as_str)
        .unwrap_or("");
    match subtype {
        "initialize" => {
            json!({"type": "control_response", "response": {"subtype": "success", "request_id": id,
            "response": {"commands": [], "agents": [], "output_style": "default",
                         "available_output_styles": ["default"], "models": [], "account": {}}}})
        }
        "interrupt" => {
            json!({"type": "control_response", "response": {"subtype": "success", "request_id": id,
            "response": {"still_queued": []}}})
        }
        other => {
            json!({"type": "control_response", "response": {"subtype": "error", "request_id": id,
            "error": format!("unsupported control request: {other}")}})
        }
    }
}
