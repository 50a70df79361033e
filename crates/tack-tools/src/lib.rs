//! tack's built-in tools, with Claude Code's names and input schemas.
//!
//! Models are trained on Claude Code's tool names and schemas, so each tool here
//! matches them field for field (see `shared/spec/builtin-tools.md`); that is also
//! what lets existing prompts, hooks and permission rules carry over.
//!
//! Every tool lives in its own file and implements [`tack_tool::Tool`]. Input types
//! derive `serde::Deserialize` and `schemars::JsonSchema`; the schema sent to the
//! model is generated from the type ([`tool_input`]), and `validate` deserialises into
//! the same type, so the two cannot drift apart.
//!
//! Session state shared between tools: the read records in [`tack_tool::ToolEnv`]
//! (Read writes them, Write/Edit/MultiEdit check them), the background task
//! registry (Bash starts tasks, TaskOutput reads them, TaskStop kills them) and the
//! [`TodoList`] (TodoWrite replaces it, the UI reads it).
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - one file per built-in tool:
//!   `tack-tools/src/{read,write,edit,multi_edit,notebook_edit,bash,task_output,task_stop,glob,grep,ls,todo_write}.rs`
//!   (Bash in the front end's client's terminal: `bash_terminal.rs`; a command's end worded:
//!   `command_end.rs`)
//! - the shared task list (Claude Code's `~/.claude/tasks/<list>/`): the store other code
//!   calls, its locks, and TaskCreate / TaskGet / TaskUpdate / TaskList, offered instead of
//!   TodoWrite (`BuiltinOptions::task_list`): `tack-tools/src/tasks/`
//! - background tasks (shells, and tasks their owner runs: background sub-agents); stopping one
//!   by id for TaskStop and the SDK's `stop_task`: `tack-tools/src/bg_tasks.rs`
//! - opening files without blocking (no devices, FIFOs); Read's one streaming pass:
//!   `tack-tools/src/{regular_file,line_scan}.rs`
//! - how Monitor's `ws` reaches its host (the sandbox's proxy, the environment's proxy, direct):
//!   `tack-tools/src/tunnel.rs`
//! - how Bash, its background tasks and Monitor start a command (sandbox, process group,
//!   cwd, variables, pipes or a task's file): `tack-tools/src/shell.rs`
//! - Bash output: bounded preview, the whole output saved to the session dir:
//!   `tack-tools/src/{output_capture,head_tail}.rs`
//! - the `LSP` tool and the language servers plugins declare (not among the built-ins:
//!   a session adds it when a server is configured, [`lsp::with_lsp`]): `tack-tools/src/lsp/`

mod bash;
mod bash_terminal;
mod bg_tasks;
mod command_end;
mod edit;
mod file_state;
mod file_write;
mod glob;
mod grep;
mod head_tail;
mod line_endings;
mod line_scan;
mod ls;
pub mod lsp;
mod monitor;
pub mod monitor_ws;
mod multi_edit;
mod notebook;
mod notebook_edit;
mod numbered_lines;
mod output_capture;
mod percent;
mod process_group;
mod read;
mod regular_file;
mod shell;
mod socks5;
mod string_replace;
mod task_output;
mod task_stop;
pub mod tasks;
mod todo_write;
mod tunnel;
#[cfg(test)]
mod tunnel_proxy_tests;
use tack_tool::input as tool_input;
mod walk;
mod write;

#[cfg(test)]
mod stored_schemas_tests;

use std::sync::Arc;
use std::time::Duration;

use tack_tool::{Tool, ToolEnv};

pub use bash::MAX_OUTPUT as BASH_MAX_OUTPUT;
pub use bg_tasks::{BackgroundTasks, OwnedTask, StopError, TaskEnd, new_task_id};
pub use file_state::resolve as resolve_tool_path;
pub use numbered_lines::numbered;
pub use regular_file::small_text as read_small_text;
pub use tack_sys::write_atomic;
pub use todo_write::{TodoItem, TodoList, TodoStatus};
pub use tunnel::ProxyVars;

/// Knobs for [`builtin_tools_with`]; `Default` is what a session uses.
#[derive(Clone)]
pub struct BuiltinOptions {
    /// The todo list TodoWrite replaces; keep a clone to show it in the UI.
    pub todos: TodoList,
    /// How long a process group gets between SIGTERM and SIGKILL (timeout, abort,
    /// TaskStop). Tests shorten it.
    pub kill_grace: Duration,
    /// The session's background-task registry, when other tools (the Agent
    /// tool) share it; `None`: a new one with `kill_grace`.
    pub tasks: Option<BackgroundTasks>,
    /// The session's sandbox for Bash (`None`: commands run unconfined).
    pub sandbox: Option<Arc<tack_sandbox::Sandbox>>,
    /// The shared task list's tools (`tasks::task_tools`), offered instead of
    /// TodoWrite (`CLAUDE_CODE_ENABLE_TASKS`); empty: TodoWrite.
    pub task_list: Vec<Arc<dyn Tool>>,
    /// TLS for Monitor's `wss:` URLs (the API client's roots); `None`: refused.
    pub ws_tls: Option<Arc<rustls::ClientConfig>>,
    /// The session's proxy variables, for Monitor's `ws` when the sandbox
    /// is off.
    pub proxy: ProxyVars,
}

impl Default for BuiltinOptions {
    fn default() -> Self {
        BuiltinOptions {
            todos: TodoList::default(),
            kill_grace: Duration::from_secs(2),
            tasks: None,
            sandbox: None,
            task_list: Vec::new(),
            ws_tls: None,
            proxy: ProxyVars::default(),
        }
    }
}

/// All built-in tools for one session, with default options.
pub fn builtin_tools(env: &Arc<ToolEnv>) -> Vec<Arc<dyn Tool>> {
    builtin_tools_with(env, BuiltinOptions::default())
}

/// All built-in tools for one session. Bash, TaskOutput and TaskStop share one
/// background-task registry; its tasks are killed when the last tool is dropped.
pub fn builtin_tools_with(env: &Arc<ToolEnv>, options: BuiltinOptions) -> Vec<Arc<dyn Tool>> {
    let _ = env; // tools get the env from each call's context; kept for future per-session setup
    let tasks = options
        .tasks
        .unwrap_or_else(|| BackgroundTasks::new(options.kill_grace));
    let todo: Vec<Arc<dyn Tool>> = match options.task_list.is_empty() {
        true => vec![Arc::new(todo_write::TodoWriteTool::new(options.todos))],
        false => options.task_list,
    };
    let mut tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(read::ReadTool),
        Arc::new(write::WriteTool),
        Arc::new(edit::EditTool),
        Arc::new(multi_edit::MultiEditTool),
        Arc::new(notebook_edit::NotebookEditTool),
        Arc::new(bash::BashTool::new(
            tasks.clone(),
            options.kill_grace,
            options.sandbox.clone(),
        )),
        Arc::new(task_output::TaskOutputTool::new(tasks.clone())),
        Arc::new(task_stop::TaskStopTool::new(tasks.clone())),
        Arc::new(glob::GlobTool),
        Arc::new(grep::GrepTool),
        Arc::new(ls::LsTool),
    ];
    tools.extend(todo);
    tools.push(Arc::new(monitor::MonitorTool::new(
        tasks,
        options.kill_grace,
        options.sandbox,
        (options.ws_tls, options.proxy),
    )));
    tools
}

/// The tool called `name`, by its current name or one of its aliases.
pub fn find_tool<'a>(tools: &'a [Arc<dyn Tool>], name: &str) -> Option<&'a Arc<dyn Tool>> {
    tools
        .iter()
        .find(|t| t.name() == name || t.aliases().contains(&name))
}
