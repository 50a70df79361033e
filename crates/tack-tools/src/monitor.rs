//! Monitor: runs a command in the background and turns each line it prints
//! into an event the model answers.
//!
//! The command runs as Bash's background tasks do (`bash -c` in its own
//! process group, through the session's sandbox, stdin from /dev/null; the
//! permission rules decide it as a Bash call of it). Its lines, batched when
//! they come within [`BATCH_WINDOW`] of each other, reach the model as
//! `<monitor-event>` arrivals delivered with the next request of a running
//! turn, or waking an idle session. It is a background task: TaskOutput reads
//! what it printed and TaskStop stops it; `timeout_ms` ends it, and so does
//! the end of the session. While it runs, a `-p` session whose input has
//! ended waits for its events. With `ws` instead of `command`, a WebSocket's
//! frames are its lines (`monitor_ws.rs`); the permission rules decide it as
//! a WebFetch of its host, and it connects as the session's connections do:
//! through the sandbox's network rules when the sandbox is on, else through
//! the environment's proxy (`tunnel.rs`).

use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_protocol::relayed::attribute;
use tack_sandbox::Sandbox;
use tack_tool::{Arrival, Arrivals, Tool, ToolContext, ToolError, ToolOutput, ToolResult};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::mpsc;

use crate::bg_tasks::{BackgroundTasks, OwnedTask, TaskEnd};
use crate::process_group;
use crate::shell::Shell;
use crate::tool_input;
use crate::tunnel::ProxyVars;

/// Lines that come within this long of the first of a batch go with it.
pub const BATCH_WINDOW: Duration = Duration::from_millis(200);
/// A batch shows at most this many lines; the rest are counted.
const MAX_BATCH_LINES: usize = 50;
/// A line longer than this is cut.
const MAX_LINE_CHARS: usize = 2_000;
const DEFAULT_TIMEOUT_MS: u64 = 300_000;
const MIN_TIMEOUT_MS: u64 = 1_000;
const MAX_TIMEOUT_MS: u64 = 3_600_000;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct MonitorInput {
    /// What is being watched, in a few words (shown with each event).
    description: String,
    /// The shell command whose output lines become events (e.g. `tail -f app.log | grep --line-buffered ERROR`).
    command: Option<String>,
    /// A WebSocket URL (ws:// or wss://) whose frames become events, instead of `command`.
    ws: Option<String>,
    /// Stop watching after this many milliseconds (default 300000, at least 1000, at most 3600000).
    timeout_ms: Option<u64>,
}

#[derive(Debug)]
pub(crate) struct MonitorTool {
    tasks: BackgroundTasks,
    grace: Duration,
    sandbox: Option<Arc<Sandbox>>,
    /// For `wss:` URLs (`None`: refused).
    tls: Option<Arc<rustls::ClientConfig>>,
    /// The environment's proxies, for `ws` when the sandbox is off.
    proxy: ProxyVars,
}

/// What a monitor watches.
#[derive(Clone, Copy)]
enum Source<'a> {
    Command(&'a str),
    Socket(&'a str),
}

/// A monitor's running source.
enum Running {
    /// The command and its process group.
    Command(tokio::process::Child, i32),
    /// The task reading the socket; it ends with why it ended.
    Socket(tokio::task::JoinHandle<(String, TaskEnd)>),
}

impl MonitorTool {
    pub(crate) fn new(
        tasks: BackgroundTasks,
        grace: Duration,
        sandbox: Option<Arc<Sandbox>>,
        ws: (Option<Arc<rustls::ClientConfig>>, ProxyVars),
    ) -> Self {
        let (tls, proxy) = ws;
        MonitorTool {
            tasks,
            grace,
            sandbox,
            tls,
            proxy,
        }
    }

    fn source(input: &MonitorInput) -> Result<Source<'_>, ToolError> {
        let command = input.command.as_deref().filter(|c| !c.trim().is_empty());
        match (command, input.ws.as_deref()) {
            (Some(_), Some(_)) => Err(ToolError::new("Give `command` or `ws`, not both.")),
            (None, Some(url)) => {
                crate::monitor_ws::ws_host(url).map_err(ToolError::new)?;
                Ok(Source::Socket(url))
            }
            (Some(command), None) => Ok(Source::Command(command)),
            (None, None) => Err(ToolError::new(
                "`command` is required: the shell command to watch (or `ws`, a WebSocket URL).",
            )),
        }
    }
}

impl MonitorTool {
    /// Starts `command`, confined as a Bash call of it would be, its stdout
    /// and stderr lines going to `lines_tx`.
    fn spawn(
        &self,
        command: &str,
        ctx: &ToolContext,
        lines_tx: mpsc::UnboundedSender<String>,
    ) -> Result<Running, ToolError> {
        let (shell, _note) = Shell::plan(self.sandbox.as_deref(), command, false)?;
        let started = shell.spawn_piped(command, &ctx.env.cwd(), &[])?;
        let stdout = started
            .stdout
            .map(|p| Box::new(p) as Box<dyn AsyncRead + Send + Unpin>);
        let stderr = started
            .stderr
            .map(|p| Box::new(p) as Box<dyn AsyncRead + Send + Unpin>);
        for pipe in [stdout, stderr].into_iter().flatten() {
            tokio::spawn(read_lines(pipe, lines_tx.clone()));
        }
        Ok(Running::Command(started.child, started.pgid))
    }
}

/// The text of one event: the lines, inside a tag naming the monitor.
pub(crate) fn event_text(task_id: &str, description: &str, body: &str) -> String {
    format!(
        "<monitor-event task_id=\"{}\" description=\"{}\">\n{body}\n</monitor-event>",
        attribute(task_id),
        attribute(description)
    )
}

const DESCRIPTION: &str = "Watches a background command: every line it prints (stdout and stderr) comes to you as a <monitor-event> message, in this turn if it is running or waking the session when idle, so you can react without polling or sleeping.

- Use it to wait for something: `tail -f log | grep --line-buffered ERROR`, `until curl -sf URL; do sleep 5; done; echo up`, a build's output. Filter so only lines worth reacting to are printed; pipelines need line buffering (`grep --line-buffered`).
- The command is checked like a Bash call of it and runs as Bash's background tasks do. Lines within 200 ms of each other arrive together.
- It stops after `timeout_ms` (default 5 minutes), when the command exits (you are told), or with TaskStop and the returned id. TaskOutput reads everything it printed.";

impl Tool for MonitorTool {
    fn name(&self) -> &str {
        "Monitor"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::schema_for::<MonitorInput>()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: MonitorInput = tool_input::parse(self.name(), input)?;
        Self::source(&input).map(|_| ())
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: MonitorInput = tool_input::parse(self.name(), &input)?;
            let source = Self::source(&input)?;
            let timeout_ms = input
                .timeout_ms
                .unwrap_or(DEFAULT_TIMEOUT_MS)
                .clamp(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
            let session_dir = ctx.env.session_dir();
            tack_sys::private_file::create_dirs_private(session_dir)?;
            let task = self
                .tasks
                .register('m', &input.description, session_dir)
                .map_err(|e| ToolError::new(format!("Could not start the monitor: {e}")))?;
            let (lines_tx, lines) = mpsc::unbounded_channel();
            let started = match source {
                Source::Command(command) => self.spawn(command, ctx, lines_tx),
                Source::Socket(url) => {
                    let reach = (self.sandbox.as_deref(), &self.proxy);
                    crate::monitor_ws::connect(url, self.tls.as_ref(), reach, lines_tx)
                        .await
                        .map(Running::Socket)
                }
            };
            let running = match started {
                Ok(running) => running,
                Err(e) => {
                    task.finish(TaskEnd::Failed);
                    return Err(e);
                }
            };
            let id = task.id().to_owned();
            let watch = Watch {
                task,
                description: input.description.clone(),
                arrivals: ctx.env.arrivals().clone(),
                timeout: Duration::from_millis(timeout_ms),
                grace: self.grace,
            };
            tokio::spawn(watch.run(running, lines));
            let (what, ends) = match source {
                Source::Command(_) => ("line it prints", "the command exits"),
                Source::Socket(_) => ("line of a frame", "the socket closes"),
            };
            Ok(ToolOutput::text(format!(
                "Monitor {id} started: {}. Each {what} arrives as a <monitor-event> message; \
it stops after {}s, when {ends}, or with TaskStop {id}.",
                input.description,
                timeout_ms / 1000
            ))
            .with_structured(json!({ "taskId": id, "timeoutMs": timeout_ms })))
        }
        .boxed()
    }
}

async fn read_lines(pipe: Box<dyn AsyncRead + Send + Unpin>, tx: mpsc::UnboundedSender<String>) {
    let mut lines = BufReader::new(pipe).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if tx.send(line).is_err() {
            return;
        }
    }
}

/// One running monitor: its task, where its events go, when it ends.
struct Watch {
    task: OwnedTask,
    description: String,
    arrivals: Arrivals,
    timeout: Duration,
    grace: Duration,
}

/// Why its lines stopped coming.
#[derive(Clone, Copy)]
enum Why {
    /// The source has no more (the command's pipes closed, the socket ended).
    Drained,
    TimedOut,
    Stopped,
}

impl Why {
    /// The end for a timeout or a stop.
    fn end(self) -> End {
        match self {
            Why::TimedOut => End::TimedOut,
            Why::Stopped | Why::Drained => End::Stopped,
        }
    }
}

/// Why a monitor ended.
enum End {
    Exited(Option<i32>),
    /// The socket ended: what the model is told, and how the task ended.
    Closed(String, TaskEnd),
    TimedOut,
    Stopped,
}

impl Watch {
    fn send(&self, body: &str) {
        self.arrivals.push(Arrival::soon(event_text(
            self.task.id(),
            &self.description,
            body,
        )));
    }

    /// Forwards lines in batches until the command (or socket) ends, times
    /// out or is stopped.
    async fn run(mut self, running: Running, mut lines: mpsc::UnboundedReceiver<String>) {
        let _expecting = self.arrivals.expect();
        let why = self.forward(&mut lines).await;
        let end = match running {
            Running::Command(mut child, pgid) => {
                match why {
                    Why::Drained => {
                        // Both pipes closed: the command is done (or detached them).
                        let status = child.wait().await.ok();
                        process_group::stop_leftovers(pgid, self.grace).await;
                        End::Exited(status.and_then(|s| s.code()))
                    }
                    Why::TimedOut | Why::Stopped => {
                        process_group::terminate(pgid, &mut child, self.grace).await;
                        why.end()
                    }
                }
            }
            Running::Socket(mut socket) => {
                let end = match why {
                    // The reader ended: it says why.
                    Why::Drained => match (&mut socket).await {
                        Ok((note, task_end)) => End::Closed(note, task_end),
                        Err(_) => End::Closed(
                            "The WebSocket reader failed; the monitor has ended.".into(),
                            TaskEnd::Failed,
                        ),
                    },
                    Why::TimedOut | Why::Stopped => why.end(),
                };
                // Dropping the reader's task closes the connection.
                socket.abort();
                end
            }
        };
        self.ended(end);
    }

    /// Sends the lines as they come until there are no more, the timeout or
    /// TaskStop.
    async fn forward(&mut self, lines: &mut mpsc::UnboundedReceiver<String>) -> Why {
        let stop = self.task.stop_requested();
        let deadline = tokio::time::sleep(self.timeout);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                line = lines.recv() => match line {
                    Some(first) => self.batch(first, lines).await,
                    None => return Why::Drained,
                },
                () = &mut deadline => return Why::TimedOut,
                () = stop.cancelled() => return Why::Stopped,
            }
        }
    }

    /// Tells the model why the monitor ended and settles its task.
    fn ended(mut self, end: End) {
        let (note, task_end) = match end {
            End::Closed(note, task_end) => (note, task_end),
            End::Exited(Some(0)) => (
                "The command exited (code 0); the monitor has ended.".to_owned(),
                TaskEnd::Completed,
            ),
            End::Exited(Some(code)) => (
                format!("The command exited with code {code}; the monitor has ended."),
                TaskEnd::Failed,
            ),
            End::Exited(None) => (
                "The command was killed; the monitor has ended.".to_owned(),
                TaskEnd::Failed,
            ),
            End::TimedOut => (
                format!(
                    "The monitor timed out after {}s and was stopped; start it again if still needed.",
                    self.timeout.as_secs()
                ),
                TaskEnd::Completed,
            ),
            End::Stopped => (String::new(), TaskEnd::Killed),
        };
        if !note.is_empty() {
            let _ = self.task.write(&format!("[{note}]\n"));
            self.send(&format!("[{note}]"));
        }
        self.task.finish(task_end);
    }

    /// Sends `first` and the lines that follow it within the batch window.
    async fn batch(&mut self, first: String, lines: &mut mpsc::UnboundedReceiver<String>) {
        let mut batch = vec![first];
        let window = tokio::time::sleep(BATCH_WINDOW);
        tokio::pin!(window);
        loop {
            tokio::select! {
                line = lines.recv() => match line {
                    Some(line) => batch.push(line),
                    None => break,
                },
                () = &mut window => break,
            }
        }
        for line in &batch {
            let _ = self.task.write(&format!("{line}\n"));
        }
        let more = batch.len().saturating_sub(MAX_BATCH_LINES);
        let mut shown: Vec<String> = batch
            .into_iter()
            .take(MAX_BATCH_LINES)
            .map(|l| cut(&l))
            .collect();
        if more > 0 {
            shown.push(format!(
                "[{more} more lines; TaskOutput {} has them all]",
                self.task.id()
            ));
        }
        self.send(&shown.join("\n"));
    }
}

fn cut(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}
