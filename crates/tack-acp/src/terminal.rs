//! The editor's terminal for Bash: when the client offers `terminal`, a
//! foreground command runs in a terminal the editor shows live
//! (`terminal/create`), named in the tool call at once (`tool_call_update`
//! with `{type: "terminal", terminalId}`), awaited (`terminal/wait_for_exit`),
//! read (`terminal/output`) and released (`terminal/release`). Its timeout
//! and the user's cancel kill it (`terminal/kill`, then release) without
//! waiting for the editor; a client that errors, or does not answer within
//! the command's timeout, is the tool's error, never a hang.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, CreateTerminalResponse, EnvVariable, KillTerminalRequest,
    ReleaseTerminalRequest, SessionId, TerminalExitStatus, TerminalId, TerminalOutputRequest,
    WaitForTerminalExitRequest,
};
use futures::FutureExt;
use futures::future::BoxFuture;
use tack_runtime::{ClientTerminal, TerminalCommand, TerminalEnd, TerminalRun};
use tokio::task::JoinHandle;

use crate::peer::{self, Peer};
use crate::updates::Translator;

/// How long the editor may take to answer a kill, an output or a release.
const AFTER: Duration = Duration::from_secs(5);

/// Terminals through the client, for one session (its id is known once the
/// session has started: until then commands run in tack).
#[derive(Debug)]
pub struct EditorTerminal {
    pub peer: Peer,
    pub session_id: Arc<OnceLock<String>>,
    /// The session's translation: the call is announced before its terminal.
    pub translator: Arc<Mutex<Translator>>,
}

impl ClientTerminal for EditorTerminal {
    fn run<'a>(
        &'a self,
        command: TerminalCommand<'a>,
    ) -> BoxFuture<'a, Option<Result<TerminalRun, String>>> {
        async move {
            let id = SessionId::new(self.session_id.get()?.as_str());
            Some(self.run_in(id, command).await)
        }
        .boxed()
    }
}

impl EditorTerminal {
    async fn run_in(
        &self,
        session: SessionId,
        c: TerminalCommand<'_>,
    ) -> Result<TerminalRun, String> {
        let create = CreateTerminalRequest::new(session.clone(), c.command)
            .env(vec![EnvVariable::new("CLAUDECODE", "1")])
            .cwd(c.cwd.to_path_buf())
            .output_byte_limit(c.output_byte_limit);
        let asked = tokio::spawn(self.peer.send_request(create).block_task());
        let mut creating = Creating {
            asked: Some(asked),
            peer: self.peer.clone(),
            session: session.clone(),
        };
        let created = tokio::select! {
            created = tokio::time::timeout(c.timeout, creating.answer()) => created,
            // A terminal made after all is killed and released (`Creating`).
            () = c.cancel.cancelled() => return Ok(cancelled()),
        };
        let terminal = match created {
            Ok(Ok(created)) => created.terminal_id,
            Ok(Err(e)) => return Err(format!("terminal/create failed: {e}")),
            Err(_) => return Err(no_answer("terminal/create", c.timeout)),
        };
        // From here a return or a drop (the call cancelled) kills it first.
        let live = Live {
            peer: self.peer.clone(),
            session: session.clone(),
            terminal: terminal.clone(),
            armed: true,
        };
        self.show(&session, &c, &terminal);
        let waited = (self.peer)
            .send_request(WaitForTerminalExitRequest::new(
                session.clone(),
                terminal.clone(),
            ))
            .block_task();
        let end = tokio::select! {
            waited = waited => match waited {
                Ok(exited) => Some(exit(&exited.exit_status)),
                Err(e) => {
                    live.release();
                    return Err(format!("terminal/wait_for_exit failed: {}", e.message));
                }
            },
            () = tokio::time::sleep(c.timeout) => None,
            // The call returns now; the editor hears kill, then release.
            () = c.cancel.cancelled() => return Ok(cancelled()),
        };
        if end.is_none() {
            let kill = KillTerminalRequest::new(session.clone(), terminal.clone());
            let _ = tokio::time::timeout(AFTER, self.peer.send_request(kill).block_task()).await;
        }
        let output = (self.peer)
            .send_request(TerminalOutputRequest::new(session, terminal))
            .block_task();
        let output = tokio::time::timeout(AFTER, output).await;
        live.release();
        let output = match output {
            Ok(Ok(output)) => output,
            Ok(Err(e)) => return Err(format!("terminal/output failed: {}", e.message)),
            Err(_) => return Err(no_answer("terminal/output", AFTER)),
        };
        Ok(TerminalRun {
            output: output.output,
            truncated: output.truncated,
            end: end.unwrap_or(TerminalEnd::TimedOut),
        })
    }

    /// The call shows its terminal (announced first if it was not yet).
    fn show(&self, session: &SessionId, c: &TerminalCommand<'_>, terminal: &TerminalId) {
        let mut translator = self
            .translator
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let updates = translator.terminal(c.tool_use_id, c.tool_name, c.input, &terminal.0);
        // Sent under the lock: nothing about the call overtakes them.
        for update in updates {
            peer::notify(&self.peer, &session.0, update);
        }
    }
}

type Created = Result<CreateTerminalResponse, agent_client_protocol::Error>;

/// A `terminal/create` asked: if nobody takes its answer (the call was
/// cancelled or timed out meanwhile), a terminal it makes after all is
/// killed and released.
struct Creating {
    asked: Option<JoinHandle<Created>>,
    peer: Peer,
    session: SessionId,
}

impl Creating {
    async fn answer(&mut self) -> Result<CreateTerminalResponse, String> {
        let Some(asked) = self.asked.as_mut() else {
            return Err("asked twice".to_owned());
        };
        let answer = asked.await;
        self.asked = None;
        match answer {
            Ok(Ok(created)) => Ok(created),
            Ok(Err(e)) => Err(e.message),
            Err(e) => Err(e.to_string()),
        }
    }
}

impl Drop for Creating {
    fn drop(&mut self) {
        let Some(asked) = self.asked.take() else {
            return;
        };
        let (peer, session) = (self.peer.clone(), self.session.clone());
        spawn(async move {
            if let Ok(Ok(Ok(created))) = tokio::time::timeout(AFTER, asked).await {
                kill_and_release(peer, session, created.terminal_id).await;
            }
        });
    }
}

/// A terminal of the editor's that this call made: released when done,
/// killed first when the call ends otherwise (a return, or its future
/// dropped when the turn is cancelled).
struct Live {
    peer: Peer,
    session: SessionId,
    terminal: TerminalId,
    armed: bool,
}

impl Live {
    /// Released from a task of its own: the result does not wait for it.
    fn release(mut self) {
        self.armed = false;
        let (peer, session) = (self.peer.clone(), self.session.clone());
        let release = ReleaseTerminalRequest::new(session, self.terminal.clone());
        spawn(async move {
            let _ = tokio::time::timeout(AFTER, peer.send_request(release).block_task()).await;
        });
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        if self.armed {
            let (peer, session) = (self.peer.clone(), self.session.clone());
            spawn(kill_and_release(peer, session, self.terminal.clone()));
        }
    }
}

/// Kills, then releases: nobody waits for the editor.
async fn kill_and_release(peer: Peer, session: SessionId, terminal: TerminalId) {
    let kill = KillTerminalRequest::new(session.clone(), terminal.clone());
    let _ = tokio::time::timeout(AFTER, peer.send_request(kill).block_task()).await;
    let release = ReleaseTerminalRequest::new(session, terminal);
    let _ = tokio::time::timeout(AFTER, peer.send_request(release).block_task()).await;
}

/// Runs `task` on the runtime a drop happens in (none: nothing to tell).
fn spawn(task: impl Future<Output = ()> + Send + 'static) {
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(task);
    }
}

fn cancelled() -> TerminalRun {
    TerminalRun {
        output: String::new(),
        truncated: false,
        end: TerminalEnd::Cancelled,
    }
}

fn exit(status: &TerminalExitStatus) -> TerminalEnd {
    TerminalEnd::Exited {
        code: status.exit_code,
        signal: status.signal.clone(),
    }
}

fn no_answer(method: &str, within: Duration) -> String {
    format!(
        "the editor did not answer {method} within {}",
        humantime_like(within)
    )
}

/// `300ms`, `2s`: how long was waited, as a person reads it.
fn humantime_like(d: Duration) -> String {
    match d.subsec_millis() {
        0 => format!("{}s", d.as_secs()),
        _ => format!("{}ms", d.as_millis()),
    }
}
