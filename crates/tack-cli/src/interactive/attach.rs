//! `tack attach <id|name>`: the terminal UI as a client of a background
//! session's socket. The session runs in its own process; this one shows
//! the conversation so far and the live turn, sends what the user types and
//! answers, and leaves it running on detach (← on an empty prompt, `/exit`,
//! Ctrl-D, Ctrl-C twice).

use std::io::{self, IsTerminal};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use tack_runtime::{Env, Place, SessionOptions, SessionState};
use tack_tui::paths::ShownPaths;

use super::Ui;
use super::driver::{Driver, Joined, Setup};
use super::status_facts::SessionLabels;
use crate::background::attach::{Target, target};

/// Attaches to the background session `key` (from the folder `cwd`) and
/// drives the terminal UI on it until the user detaches or it ends.
pub fn run(cwd: &Path, key: &str) -> anyhow::Result<ExitCode> {
    let claude_dir = Place::new(cwd.to_path_buf(), Env::from_process())?.claude_dir;
    let job = target(&claude_dir, key)?;
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        anyhow::bail!(
            "tack attach needs a terminal: `tack logs {}` prints the conversation",
            job.id
        );
    }
    let color = tack_tui::color_allowed(std::env::var_os("NO_COLOR").as_deref());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // Connected before the terminal is taken: a session that just went
    // away is an error on a normal screen.
    let joined = runtime.block_on(connect(&job))?;
    // The UI is the session's folder's: its paths, history and settings.
    let place = Place::new(job.cwd.clone(), Env::from_process())?;
    let loaded = tack_runtime::load_settings(&place, None)?;
    let project_dir = tack_config::find_project_dir(&place.cwd);
    let mut notices = Vec::new();
    let Ui {
        mut app,
        term,
        guard,
    } = Ui::open(&place, &project_dir, color, &mut notices)?;
    app.set_paths(ShownPaths::new(
        Some(place.cwd.clone()),
        place.home_dir.clone(),
    ));
    let setup = Setup {
        app,
        term,
        guard,
        place,
        loaded,
        options: SessionOptions::default(),
        project_dir,
        model: String::new(),
        first_prompt: None,
        pick_session: false,
        notices,
        labels: SessionLabels::default(),
    };
    runtime.block_on(async {
        let (driver, actions) = Driver::new(setup);
        driver.attach(joined, actions).await
    })
}

/// Connects to `job`'s socket.
async fn connect(job: &Target) -> anyhow::Result<Joined> {
    let remote = tack_runtime::serve::attach(&job.socket)
        .await
        .with_context(|| format!("cannot attach to background session {}", job.id))?;
    let attached = remote.attached;
    Ok(Joined {
        handle: remote.handle,
        events: remote.events,
        info: attached.info,
        asks: attached.asks,
        running: attached.state == Some(SessionState::Running),
        turn: attached.turn,
        job: job.id.clone(),
        session_id: job.session_id.clone(),
    })
}
