//! What a front end decides for a session: the command-line flags of print
//! mode, the options an Agent SDK passes, what the terminal UI chose.

use std::path::PathBuf;

use tack_extensions::plugins::PluginDir;
use tack_git::prefetch::GitPrefetch;
use tack_hooks::CallbackMatcher;
use tack_permissions::PermissionMode;
use tack_protocol::ThinkingConfig;

/// Which conversation the session holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    /// A new session, with this id (a UUID) if given.
    New { id: Option<String> },
    /// The most recent session in this directory (`--continue`).
    Continue,
    /// The session with this id (`--resume <id>`); empty: the caller has no id
    /// (the error lists recent sessions).
    Resume(String),
}

/// Everything a front end decides; settings fill in the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionOptions {
    /// `--model` (alias or id); beats `ANTHROPIC_MODEL` and settings.
    pub model: Option<String>,
    pub fallback_model: Option<String>,
    /// `--permission-mode` (`--dangerously-skip-permissions` is bypass).
    pub permission_mode: Option<PermissionMode>,
    /// `--allowedTools` rules, already split.
    pub allowed_tools: Vec<String>,
    /// `--disallowedTools` rules, already split.
    pub disallowed_tools: Vec<String>,
    /// `--add-dir`s (relative to the cwd).
    pub add_dirs: Vec<PathBuf>,
    /// `--sandbox read-only|workspace-write|off`: beats `sandbox.enabled`.
    pub sandbox: Option<tack_sandbox::Mode>,
    /// `--system-prompt`: replaces the default.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt`.
    pub append_system_prompt: Option<String>,
    /// Model calls per turn.
    pub max_turns: Option<u32>,
    /// Stop once the estimated spend reaches this.
    pub max_budget_usd: Option<f64>,
    pub session: SessionChoice,
    /// Write the transcript (off: `--no-session-persistence`).
    pub persist: bool,
    /// Report hooks' plain output (`--verbose`).
    pub verbose: bool,
    /// `--include-hook-events`: every command hook's start and end is a
    /// [`crate::RuntimeEvent::Hook`]; without it only SessionStart's are.
    pub hook_events: bool,
    /// The front end answers permission prompts (`RuntimeEvent::PermissionRequest`);
    /// otherwise a call the rules do not decide is denied.
    pub permission_prompts: bool,
    /// `--permission-prompt-tool mcp__server__tool`: an MCP tool answers the
    /// prompts instead (Claude Code's protocol).
    pub permission_prompt_tool: Option<String>,
    /// `--mcp-config` values: files or JSON strings.
    pub mcp_config: Vec<String>,
    /// `--strict-mcp-config`: only the `--mcp-config` servers.
    pub strict_mcp_config: bool,
    /// Hooks whose handlers live in the front end's client (an Agent SDK's
    /// `hooks`, registered in `initialize`): run beside the settings hooks,
    /// each call a `RuntimeEvent::HookCallback` the front end answers.
    pub hook_callbacks: Vec<CallbackMatcher>,
    /// `--tools`: only these built-in tools (`Some(vec![])`: none); `None`: all.
    /// Unknown names are a start error.
    pub tools: Option<Vec<String>>,
    /// `--fork-session`: with `--continue` / `--resume`, the conversation goes on
    /// in a new session (new id, new transcript holding the loaded history).
    pub fork_session: bool,
    /// `--resume-session-at`: resume the conversation only up to (and including)
    /// the message with this uuid.
    pub resume_session_at: Option<String>,
    /// `--resume-drops-turn`: with `resume_session_at`, the prompt whose turn
    /// the truncation drops; the resume is refused unless every record cut
    /// off belongs to that turn.
    pub resume_drops_turn: Option<String>,
    /// `--max-thinking-tokens` / `--thinking`: beats `MAX_THINKING_TOKENS`.
    pub thinking: Option<ThinkingConfig>,
    /// `--effort` (`low` ... `max`): the request's `output_config.effort`.
    pub effort: Option<String>,
    /// `--betas`: more `anthropic-beta` values for every request.
    pub betas: Vec<String>,
    /// `--allow-dangerously-skip-permissions`: the session may be switched to
    /// `bypassPermissions` later (starting in it allows that too).
    pub allow_bypass_permissions: bool,
    /// `--agents`: sub-agent definitions as JSON (`{"name": {"description",
    /// "prompt", "tools"?, "model"?}}`), over the files' and the built-ins.
    pub agents: Option<String>,
    /// Keep files before each turn's first change to them, so
    /// `Command::RewindFiles` can put them back (also on with
    /// `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`, as the Agent SDKs set it).
    pub file_checkpointing: bool,
    /// `--session-mirror`: every transcript record is also emitted
    /// (`RuntimeEvent::TranscriptMirror`) for the SDKs' SessionStore.
    pub session_mirror: bool,
    /// A resumed conversation that ends in tool calls without results (a
    /// turn a PreToolUse hook's `defer` ended) runs them first, hooks and
    /// permissions included, with no new prompt (the Agent SDKs' resume).
    /// Off: they are recorded as interrupted, as after a crash.
    pub run_pending: bool,
    /// Emit `RuntimeEvent::SessionState` (the SDKs' `session_state_changed`).
    pub session_state: bool,
    /// The terminal UI runs the session (transcripts say `entrypoint: "cli"`;
    /// else `"sdk-cli"`, as for `-p` and stream-json).
    pub interactive: bool,
    /// `--json-schema` (the SDKs' `output_format` / `outputFormat`): the turn's
    /// answer comes through the `StructuredOutput` tool, validated against it.
    /// Not a valid JSON Schema of an object: a start error.
    pub json_schema: Option<serde_json::Value>,
    /// The Agent SDK's control channel, which serves `{"type": "sdk"}` MCP
    /// servers (in-process tools); `None` outside SDK mode, where such a
    /// server fails with a message naming it.
    pub sdk_mcp: Option<tack_mcp::SdkBridge>,
    /// What the Agent SDK host declared of its in-process servers' tools
    /// (`sdkMcpServerConfigs`): calls that always ask, calls always denied.
    pub sdk_tool_policy: SdkToolPolicy,
    /// `--plugin-dir`s (the SDKs' `plugins: [{type: "local", path}]`): plugins
    /// loaded for this session only, relative to the cwd.
    pub plugin_dirs: Vec<PluginDir>,
    /// The git snapshot, started by the front end as soon as it knew the
    /// cwd ([`GitPrefetch::start`]): the session's context takes it.
    pub git_prefetch: Option<GitPrefetch>,
}

/// Per-tool policies of in-process SDK servers, as `mcp__server__tool`
/// names. They become rules of their own source (`sdkMcpServerConfigs`):
/// an ask rule asks even where an allow rule or the mode would allow (and
/// is a denial in `dontAsk` or with nobody to ask); a deny rule denies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SdkToolPolicy {
    pub always_ask: Vec<String>,
    pub always_deny: Vec<String>,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            model: None,
            fallback_model: None,
            permission_mode: None,
            sandbox: None,
            allowed_tools: Vec::new(),
            disallowed_tools: Vec::new(),
            add_dirs: Vec::new(),
            sdk_mcp: None,
            sdk_tool_policy: SdkToolPolicy::default(),
            system_prompt: None,
            append_system_prompt: None,
            max_turns: None,
            max_budget_usd: None,
            session: SessionChoice::New { id: None },
            persist: true,
            verbose: false,
            hook_events: false,
            permission_prompts: false,
            permission_prompt_tool: None,
            mcp_config: Vec::new(),
            strict_mcp_config: false,
            hook_callbacks: Vec::new(),
            tools: None,
            fork_session: false,
            resume_session_at: None,
            thinking: None,
            effort: None,
            betas: Vec::new(),
            allow_bypass_permissions: false,
            agents: None,
            file_checkpointing: false,
            run_pending: false,
            session_state: false,
            interactive: false,
            json_schema: None,
            session_mirror: false,
            resume_drops_turn: None,
            plugin_dirs: Vec::new(),
            git_prefetch: None,
        }
    }
}
