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

/// Everything a front end decides; settings fill in the rest. Grouped by the
/// part of the session each group shapes, so a new option touches one group.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionOptions {
    /// The model and what every request carries.
    pub request: RequestOptions,
    /// Who may do what: modes, rules, directories, the sandbox, who answers.
    pub permissions: PermissionOptions,
    /// Which conversation, and how it is kept.
    pub conversation: ConversationOptions,
    /// Tools, sub-agents, plugins, MCP servers and client hooks.
    pub extensions: ExtensionOptions,
    /// What kind of front end runs the session and what it wants told.
    pub front_end: FrontEndOptions,
    /// The git snapshot, started by the front end as soon as it knew the
    /// cwd ([`GitPrefetch::start`]): the session's context takes it.
    pub git_prefetch: Option<GitPrefetch>,
    /// The clock scheduled prompts go by (the system's unless a test gives one).
    pub clock: crate::schedule::SessionClock,
}

/// The model and what every request carries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestOptions {
    /// `--model` (alias or id); beats `ANTHROPIC_MODEL` and settings.
    pub model: Option<String>,
    pub fallback_model: Option<String>,
    /// `--system-prompt`: replaces the default.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt`.
    pub append_system_prompt: Option<String>,
    /// Model calls per turn.
    pub max_turns: Option<u32>,
    /// Stop once the estimated spend reaches this.
    pub max_budget_usd: Option<f64>,
    /// `--max-thinking-tokens` / `--thinking`: beats `MAX_THINKING_TOKENS`.
    pub thinking: Option<ThinkingConfig>,
    /// `--effort` (`low` ... `max`): the request's `output_config.effort`.
    pub effort: Option<String>,
    /// `--betas`: more `anthropic-beta` values for every request.
    pub betas: Vec<String>,
    /// `--json-schema` (the SDKs' `output_format` / `outputFormat`): the turn's
    /// answer comes through the `StructuredOutput` tool, validated against it.
    /// Not a valid JSON Schema of an object: a start error.
    pub json_schema: Option<serde_json::Value>,
}

/// Who may do what.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PermissionOptions {
    /// `--permission-mode` (`--dangerously-skip-permissions` is bypass).
    pub mode: Option<PermissionMode>,
    /// `--allow-dangerously-skip-permissions`: the session may be switched to
    /// `bypassPermissions` later (starting in it allows that too).
    pub allow_bypass: bool,
    /// `--allowedTools` rules, already split.
    pub allowed_tools: Vec<String>,
    /// `--disallowedTools` rules, already split.
    pub disallowed_tools: Vec<String>,
    /// `--add-dir`s (relative to the cwd).
    pub add_dirs: Vec<PathBuf>,
    /// `--sandbox read-only|workspace-write|off`: beats `sandbox.enabled`.
    pub sandbox: Option<tack_sandbox::Mode>,
    /// The front end answers permission prompts (`RuntimeEvent::PermissionRequest`);
    /// otherwise a call the rules do not decide is denied.
    pub prompts: bool,
    /// `--permission-prompt-tool mcp__server__tool`: an MCP tool answers the
    /// prompts instead (Claude Code's protocol).
    pub prompt_tool: Option<String>,
    /// What the Agent SDK host declared of its in-process servers' tools
    /// (`sdkMcpServerConfigs`): calls that always ask, calls always denied.
    pub sdk_tool_policy: SdkToolPolicy,
}

/// Which conversation the session holds, and how it is kept.
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationOptions {
    pub session: SessionChoice,
    /// Write the transcript (off: `--no-session-persistence`).
    pub persist: bool,
    /// `--fork-session`: with `--continue` / `--resume`, the conversation goes on
    /// in a new session (new id, new transcript holding the loaded history).
    pub fork: bool,
    /// `--resume-session-at`: resume the conversation only up to (and including)
    /// the message with this uuid.
    pub resume_at: Option<String>,
    /// `--resume-drops-turn`: with `resume_at`, the prompt whose turn the
    /// truncation drops; the resume is refused unless every record cut off
    /// belongs to that turn.
    pub resume_drops_turn: Option<String>,
    /// A resumed conversation that ends in tool calls without results (a
    /// turn a PreToolUse hook's `defer` ended) runs them first, hooks and
    /// permissions included, with no new prompt (the Agent SDKs' resume).
    /// Off: they are recorded as interrupted, as after a crash.
    pub run_pending: bool,
    /// Keep files before each turn's first change to them, so
    /// `Op::RewindFiles` can put them back (also on with
    /// `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`, as the Agent SDKs set it).
    pub file_checkpointing: bool,
    /// `--session-mirror`: every transcript record is also emitted
    /// (`RuntimeEvent::TranscriptMirror`) for the SDKs' SessionStore.
    pub mirror: bool,
}

impl Default for ConversationOptions {
    fn default() -> Self {
        ConversationOptions {
            session: SessionChoice::New { id: None },
            persist: true,
            fork: false,
            resume_at: None,
            resume_drops_turn: None,
            run_pending: false,
            file_checkpointing: false,
            mirror: false,
        }
    }
}

/// Tools, sub-agents, plugins, MCP servers and the client's hooks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExtensionOptions {
    /// `--tools`: only these built-in tools (`Some(vec![])`: none); `None`: all.
    /// Unknown names are a start error.
    pub tools: Option<Vec<String>>,
    /// `--agents`: sub-agent definitions as JSON (`{"name": {"description",
    /// "prompt", "tools"?, "model"?}}`), over the files' and the built-ins.
    pub agents: Option<String>,
    /// `--agent`: the main session runs as this agent (its prompt, tools,
    /// model and mode; `main_agent.rs`). Start fills in the `agent`
    /// setting's when the flag is absent.
    pub agent: Option<String>,
    /// `--plugin-dir`s (the SDKs' `plugins: [{type: "local", path}]`): plugins
    /// loaded for this session only, relative to the cwd.
    pub plugin_dirs: Vec<PluginDir>,
    /// `--mcp-config` values: files or JSON strings.
    pub mcp_config: Vec<String>,
    /// `--strict-mcp-config`: only the `--mcp-config` servers.
    pub strict_mcp_config: bool,
    /// The Agent SDK's control channel, which serves `{"type": "sdk"}` MCP
    /// servers (in-process tools); `None` outside SDK mode, where such a
    /// server fails with a message naming it.
    pub sdk_mcp: Option<tack_mcp::SdkBridge>,
    /// Hooks whose handlers live in the front end's client (an Agent SDK's
    /// `hooks`, registered in `initialize`): run beside the settings hooks,
    /// each call a `RuntimeEvent::HookCallback` the front end answers.
    pub hook_callbacks: Vec<CallbackMatcher>,
    /// The client's files, read before the disk's (`tack acp`'s editor).
    pub client_files: Option<tack_tool::client_files::ClientFiles>,
    /// The client's terminal, where foreground Bash commands run (`tack
    /// acp`'s editor, when it offers terminals).
    pub client_terminal: Option<tack_tool::client_terminal::ClientTerminals>,
    /// Where teammates run (`--teammate-mode`, what starts a background one).
    pub teammates: crate::teams::backend::TeammateOptions,
}

/// What kind of front end runs the session, and what it wants told.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrontEndOptions {
    /// The terminal UI runs the session (transcripts say `entrypoint: "cli"`;
    /// else `"sdk-cli"`, as for `-p` and stream-json).
    pub interactive: bool,
    /// Report hooks' plain output (`--verbose`).
    pub verbose: bool,
    /// `--include-hook-events`: every command hook's start and end is a
    /// [`crate::RuntimeEvent::Hook`]; without it only SessionStart's are.
    pub hook_events: bool,
    /// Emit `RuntimeEvent::SessionState` (the SDKs' `session_state_changed`).
    pub session_state: bool,
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
