//! The `statusLine` command: what it is told (Claude Code's JSON, COLUMNS
//! and LINES), when it runs (the driver's events, and its `refreshInterval`
//! timer, which exists only when set), and whose line is shown (the newest
//! run's).

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tack_protocol::ThinkingConfig;
use tack_tui::status::{Cost, StatusLineCommand, StatusLineInput, Worktree, run_status_line};
use tack_tui::{NoticeLevel, StatusPatch, UiEvent};
use tokio::sync::mpsc;

use super::{Driver, Internal, Slot};

/// How long the statusLine command may take.
const TIMEOUT: Duration = Duration::from_secs(5);

/// The `refreshInterval` timer; stops with the driver.
pub(super) struct Timer(tokio::task::JoinHandle<()>);

impl Timer {
    pub(super) fn start(
        command: Option<&StatusLineCommand>,
        tx: &mpsc::UnboundedSender<Internal>,
    ) -> Option<Timer> {
        let every = command?.refresh_interval?;
        let tx = tx.clone();
        Some(Timer(tokio::spawn(async move {
            let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                if tx.send(Internal::StatusTick).is_err() {
                    return;
                }
            }
        })))
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Driver {
    /// Runs the `statusLine` command of the settings, if any.
    pub(super) fn refresh_status_line(&self) {
        let (Some(command), Slot::Ready { info, .. }) = (&self.status_line, &self.slot) else {
            return;
        };
        let facts = &self.map.facts;
        let request = &self.options.request;
        let cwd = info.cwd.to_string_lossy().into_owned();
        let input = StatusLineInput {
            session_id: info.session_id.clone(),
            transcript_path: info
                .transcript_path
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
            git_worktree: linked_worktree(&info.cwd),
            cwd,
            model_id: self.model.clone(),
            model_display_name: self.model.clone(),
            project_dir: self.project_dir.to_string_lossy().into_owned(),
            added_dirs: (self.options.permissions.add_dirs.iter())
                .map(|d| d.to_string_lossy().into_owned())
                .collect(),
            version: info.version.clone(),
            output_style: info.extensions.output_style.clone(),
            cost: Cost {
                total_cost_usd: self.map.session_cost(),
                total_duration_ms: self.opened.elapsed().as_millis() as u64,
                total_api_duration_ms: facts.api_ms,
                total_lines_added: facts.lines_added,
                total_lines_removed: facts.lines_removed,
            },
            context: facts.context.clone(),
            thinking_enabled: matches!(
                request.thinking,
                Some(ThinkingConfig::Enabled { .. } | ThinkingConfig::Adaptive { .. })
            ),
            effort: request.effort.clone(),
            session_name: self.labels.name.clone(),
            vim_mode: self.vim_mode_name(),
            worktree: self.labels.worktree.clone(),
            agent_name: info.extensions.main_agent.clone(),
            ..StatusLineInput::default()
        };
        let (command, cwd, tx) = (command.clone(), info.cwd.clone(), self.tx.clone());
        let size = self.app.size();
        let runs = self.status_runs.clone();
        let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
        // The worktree the model entered (EnterWorktree) is the session's
        // to say: asked now, it answers after the ops sent before it.
        let snapshot = self.handle().map(|h| h.snapshot());
        tokio::spawn(async move {
            let mut input = input;
            if let Some(snapshot) = snapshot
                && let Ok(s) = snapshot.await
            {
                moved_to(&mut input, s.place);
            }
            let outcome = run_status_line(&command, &input, &cwd, size, TIMEOUT).await;
            if runs.load(Ordering::SeqCst) != run {
                // A newer run started with newer input: its line wins.
                return;
            }
            let event = match outcome {
                Ok(line) => UiEvent::Status(StatusPatch {
                    custom_line: Some(Some(line)),
                    ..StatusPatch::default()
                }),
                Err(e) => UiEvent::Notice {
                    level: NoticeLevel::Warning,
                    text: e.to_string(),
                },
            };
            let _ = tx.send(Internal::Ui(vec![event]));
        });
    }
}

/// Where the session works now (EnterWorktree moved it): its folder is
/// `cwd` and `workspace.current_dir`, and the worktree it entered is
/// `worktree` (a `--worktree` session's stays when it never moved).
fn moved_to(input: &mut StatusLineInput, place: tack_runtime::SessionPlace) {
    let cwd = place.cwd.to_string_lossy().into_owned();
    if cwd != input.cwd {
        input.git_worktree = linked_worktree(&place.cwd);
        input.cwd = cwd;
    }
    if let Some(entered) = place.worktree {
        input.worktree = Some(entered_worktree(entered));
    }
}

/// Claude Code's `worktree` object for the one EnterWorktree entered.
fn entered_worktree(w: tack_runtime::EnteredWorktree) -> Worktree {
    Worktree {
        name: w.name,
        path: w.path.to_string_lossy().into_owned(),
        branch: w.branch,
        original_cwd: w.original_cwd.to_string_lossy().into_owned(),
        original_branch: w.original_branch,
    }
}

/// The name of the linked worktree `cwd` is in (`git worktree add`): its
/// `.git` is a file naming `<repo>/.git/worktrees/<name>`. `None` in the
/// main work tree or outside git. Reads one small file; runs no git.
fn linked_worktree(cwd: &Path) -> Option<String> {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        let dot_git = d.join(".git");
        match std::fs::symlink_metadata(&dot_git) {
            Ok(m) if m.is_dir() => return None,
            Ok(m) if m.is_file() && m.len() < 4096 => {
                let text = std::fs::read_to_string(&dot_git).ok()?;
                let gitdir = text.strip_prefix("gitdir:")?.trim();
                let (parent, name) = gitdir.trim_end_matches('/').rsplit_once('/')?;
                return parent.ends_with("/worktrees").then(|| name.to_owned());
            }
            Ok(_) => return None,
            Err(_) => dir = d.parent(),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::linked_worktree;

    #[test]
    fn a_linked_worktree_is_named_and_the_main_tree_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("repo");
        std::fs::create_dir_all(main.join(".git/worktrees/feature-xyz")).unwrap();
        std::fs::create_dir_all(main.join("src")).unwrap();
        assert_eq!(linked_worktree(&main.join("src")), None);
        let linked = dir.path().join("wt");
        std::fs::create_dir_all(linked.join("sub")).unwrap();
        let gitdir = main.join(".git/worktrees/feature-xyz");
        std::fs::write(
            linked.join(".git"),
            format!("gitdir: {}\n", gitdir.display()),
        )
        .unwrap();
        assert_eq!(
            linked_worktree(&linked.join("sub")),
            Some("feature-xyz".into())
        );
        // A submodule's `.git` file names `.git/modules/...`: no worktree.
        let sub = dir.path().join("sm");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(".git"), "gitdir: ../repo/.git/modules/sm\n").unwrap();
        assert_eq!(linked_worktree(&sub), None);
    }
}
