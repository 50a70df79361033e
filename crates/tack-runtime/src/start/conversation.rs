//! The conversation a session starts with (new, continued, resumed,
//! forked) and its transcript's path (with the `cleanupPeriodDays` sweep).

use std::path::{Path, PathBuf};
use std::time::Duration;

use tack_config::Settings;
use tack_protocol::Message;
use tack_store::{SessionStore, StoreError};

use super::StartError;
use crate::emit::Emitter;
use crate::event::Notice;
use crate::options::{SessionChoice, SessionOptions};

/// The conversation a session continues, if any.
pub(super) struct Conversation {
    pub(super) session_id: String,
    pub(super) history: Vec<Message>,
    /// The record the transcript's next record chains to.
    pub(super) leaf: Option<String>,
    /// The transcript continued (appended to where it is, in Claude Code's dir
    /// or tack's older one); `None` for a new or forked session.
    pub(super) path: Option<PathBuf>,
    /// The agent the resumed session ran as (its `agent-setting` record).
    pub(super) agent: Option<String>,
}

/// The conversation: new, `--continue`, `--resume <id>`; forked into a new
/// session with `--fork-session`.
pub(super) async fn conversation(
    store: &SessionStore,
    cwd: &Path,
    options: &SessionOptions,
    emit: &Emitter,
) -> Result<Conversation, StartError> {
    let path = match &options.conversation.session {
        SessionChoice::New { .. }
            if options.conversation.fork || options.conversation.resume_at.is_some() =>
        {
            return Err(StartError::NothingToResume);
        }
        SessionChoice::New { id } => {
            let session_id = id
                .clone()
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
            return Ok(Conversation {
                session_id,
                history: Vec::new(),
                leaf: None,
                path: None,
                agent: None,
            });
        }
        SessionChoice::Resume(id) if id.is_empty() => {
            let recent = store.list_sessions(cwd)?;
            let list: Vec<String> = recent
                .iter()
                .take(5)
                .map(|s| format!("  {}  {}", s.session_id, s.preview()))
                .collect();
            return Err(StartError::ResumeNeedsId(list.join("\n")));
        }
        SessionChoice::Resume(id) => match store.find_session(cwd, id) {
            Err(StoreError::SessionNotFound { .. })
                if let Some(path) = in_another_worktree(store, cwd, id).await =>
            {
                path
            }
            found => found?,
        },
        SessionChoice::Continue => store.latest_session(cwd)?.path,
    };
    if let (Some(at), Some(drops)) = (
        &options.conversation.resume_at,
        &options.conversation.resume_drops_turn,
    ) && let Some(reason) = tack_store::check_drops_turn(&path, at, drops)?
    {
        return Err(StartError::ResumeRejected(reason));
    }
    let mut loaded = match &options.conversation.resume_at {
        Some(uuid) => tack_store::load_until(&path, uuid)?,
        None => tack_store::load(&path)?,
    };
    // The SDKs run the calls a deferred turn left pending (the runtime's
    // `ResumePending`); elsewhere they are recorded interrupted.
    if options.conversation.run_pending && options.conversation.resume_at.is_none() {
        loaded.reopen_last_tool_uses();
    }
    for w in &loaded.warnings {
        emit.notice(Notice::warning(format!("warning: {}: {w}", path.display())));
    }
    Ok(if options.conversation.fork {
        Conversation {
            session_id: uuid::Uuid::new_v4().to_string(),
            history: loaded.messages,
            leaf: None,
            path: None,
            agent: loaded.agent_setting,
        }
    } else {
        Conversation {
            session_id: loaded.session_id,
            history: loaded.messages,
            leaf: loaded.leaf_uuid,
            path: Some(path),
            agent: loaded.agent_setting,
        }
    })
}

/// Session `id` kept under the folder matching `cwd` in another worktree of
/// its repository: a session that moved into a worktree (EnterWorktree)
/// keeps its transcript where it started, and resuming it from the worktree
/// finds it there (and one started in a worktree is found from the main one).
async fn in_another_worktree(store: &SessionStore, cwd: &Path, id: &str) -> Option<PathBuf> {
    let root = tack_git::worktree::repo_root(cwd).await.ok()?;
    let listed = tack_git::worktree::list(cwd).await.ok()?;
    listed.iter().find_map(|w| {
        let there = tack_git::worktree::matching_folder(&w.path, &root, cwd);
        (there != cwd)
            .then(|| store.find_session(&there, id).ok())
            .flatten()
    })
}

/// Whether the session continues an earlier conversation.
pub(super) fn conversation_resumed(options: &SessionOptions) -> bool {
    match options.conversation.session {
        SessionChoice::New { .. } => false,
        SessionChoice::Continue | SessionChoice::Resume(_) => true,
    }
}

/// The session's transcript file; an explicit `--session-id` must be new.
/// Starts the `cleanupPeriodDays` sweep (off the start-up path, never the
/// session at hand, at most once an hour).
pub(super) fn transcript_path(
    store: &SessionStore,
    cwd: &Path,
    settings: &Settings,
    options: &SessionOptions,
    conversation: &Conversation,
) -> Result<PathBuf, StartError> {
    let path = match &conversation.path {
        Some(path) => path.clone(),
        None => store.transcript_path(cwd, &conversation.session_id)?,
    };
    let session_id = &conversation.session_id;
    let now = std::time::SystemTime::now();
    let cutoff = now.checked_sub(Duration::from_secs(
        u64::from(settings.cleanup_period_days()) * 86_400,
    ));
    if let Some(cutoff) = cutoff
        && store.claim_sweep(tack_store::SWEEP_INTERVAL, now)
    {
        let (store, keep) = (store.clone(), path.clone());
        // Only on an idle core: on a small machine the sweep of every
        // project's transcripts would otherwise compete with start-up.
        let _ = tack_sys::idle_thread::spawn_idle("session-cleanup", move || {
            store.remove_older_than(cutoff, Some(&keep));
        });
    }
    if matches!(
        options.conversation.session,
        SessionChoice::New { id: Some(_) }
    ) && path.exists()
    {
        return Err(StartError::SessionIdInUse(session_id.to_owned()));
    }
    Ok(path)
}
