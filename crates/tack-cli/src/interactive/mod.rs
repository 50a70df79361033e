//! Interactive mode (`tack` with no `-p`): the terminal UI (tack-tui) as a
//! front end of the session runtime.
//!
//! Start-up draws the prompt before anything slow happens: settings are read
//! (and the workspace's trust asked for, first time in a folder), the first
//! frame is drawn, and only then does the runtime start in the background
//! (credentials, transcript, git context, SessionStart hooks). Prompts typed
//! meanwhile wait for it. The loop itself is [`driver::Driver`]; how runtime
//! events become UI events is [`map`].

pub mod attach;
mod driver;
mod info;
mod map;
mod model_picker;
mod status_facts;

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use tack_runtime::PermissionMode;
use tack_runtime::{Env, LoadedSettings, Place, SessionChoice, SessionOptions};
use tack_tui::input::{FileIndex, PromptHistory};
use tack_tui::paths::ShownPaths;
use tack_tui::status::{StatusInfo, StatusLineCommand, Worktree};
use tack_tui::{
    App, AppConfig, InlineTerminal, ModeOptions, NoticeLevel, TerminalGuard, Theme, ThemeKind,
    UiAction, UiEvent,
};

use crate::cli::Cli;
use crate::settings_env;
use driver::{Driver, Setup};
use status_facts::SessionLabels;

/// Runs the terminal UI until the user leaves. `color`: NO_COLOR was not set.
pub fn run(
    cli: &Cli,
    cwd: PathBuf,
    color: bool,
    worktree: Option<Worktree>,
) -> anyhow::Result<ExitCode> {
    needs_terminal()?;
    let mut place = Place::new(cwd, Env::from_process())?;
    let loaded = tack_runtime::load_settings(&place, cli.settings.as_deref())?;
    // SAFETY: single-threaded: no runtime, no highlighter loader, no other thread yet.
    unsafe { settings_env::apply(&mut place, &loaded) };
    let project_dir = tack_config::find_project_dir(&place.cwd);
    let start = Start {
        project_dir: project_dir.canonicalize().unwrap_or(project_dir),
        place,
        loaded,
        options: crate::print::session_options(cli),
        first_prompt: cli.prompt.clone().filter(|p| !p.trim().is_empty()),
        notices: Vec::new(),
        worktree,
    };
    run_from(cli, start, color)
}

/// What a terminal session starts from: `tack`'s flags and files, or what
/// `tack demo` made.
pub struct Start {
    pub place: Place,
    pub loaded: LoadedSettings,
    pub options: SessionOptions,
    pub project_dir: PathBuf,
    /// Typed for the user at start.
    pub first_prompt: Option<String>,
    /// Shown first.
    pub notices: Vec<UiEvent>,
    /// The `--worktree` session's worktree.
    pub worktree: Option<Worktree>,
}

/// Interactive mode reads keys and draws: both ends must be a terminal.
pub fn needs_terminal() -> anyhow::Result<()> {
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        bail!(
            "interactive mode needs a terminal: use -p/--print to run a prompt from a script or a pipe"
        );
    }
    Ok(())
}

/// The terminal UI from `start` until the user leaves (the workspace's trust
/// asked for first if it is not trusted yet).
pub fn run_from(cli: &Cli, start: Start, color: bool) -> anyhow::Result<ExitCode> {
    let Start {
        mut place,
        mut loaded,
        mut options,
        project_dir,
        first_prompt,
        mut notices,
        worktree,
    } = start;
    let Ui {
        mut app,
        mut term,
        guard,
    } = Ui::open(&place, &project_dir, color, &mut notices)?;

    if !loaded.trust.trusted {
        if !trust(&mut app, &mut term, &project_dir)? {
            term.erase_live()?;
            return Ok(ExitCode::from(1));
        }
        // Trust covers every folder below: the home folder (or `/`) is
        // trusted for this session only, as Claude Code does.
        let session_only =
            tack_runtime::too_broad_to_trust(&project_dir, place.home_dir.as_deref()).is_some();
        if !session_only {
            place.trust_store().trust(&project_dir, false)?;
        }
        // The project's settings apply now, environment included.
        loaded = tack_runtime::load_settings_trusting(
            &place,
            cli.settings.as_deref(),
            None,
            session_only,
        )?;
        // SAFETY: still single-threaded: the trust dialog reads keys synchronously.
        unsafe { settings_env::apply(&mut place, &loaded) };
    }
    options.permissions.prompts = true;
    options.front_end.interactive = true;
    // As Claude Code's UI does: `/rewind` can put files back. Nothing touches
    // the disk until a file tool first changes a file.
    options.conversation.file_checkpointing = true;
    let model = tack_runtime::session_model(&options, &place.env, &loaded.settings);
    let mode = options
        .permissions
        .mode
        .or_else(|| {
            let settings = loaded.settings.permissions().default_mode();
            settings.and_then(|m| m.value().parse::<PermissionMode>().ok())
        })
        .unwrap_or_default();
    app.set_mode_options(ModeOptions {
        // As the runtime decides it at start.
        bypass: (mode == PermissionMode::BypassPermissions || options.permissions.allow_bypass)
            && !loaded.settings.permissions().bypass_mode_disabled(),
        skip_auto_intro: loaded.settings.skip_auto_permission_prompt(),
    });
    let branch = tack_git::head::head(&place.cwd).map(|head| head.name().to_owned());
    app.handle_event(
        UiEvent::Status(tack_tui::StatusPatch {
            model: Some(model.clone()),
            context_window: Some(tack_api::model_limits(&model).context_window),
            permission_mode: Some(mode),
            git_branch: Some(branch),
            // A statusLine command's rows (none until it answers) replace
            // the built-in line and the `? for shortcuts` hint.
            custom_line: (loaded.settings.status_line())
                .and_then(StatusLineCommand::from_settings)
                .map(|_| Some(String::new())),
            ..tack_tui::StatusPatch::default()
        }),
        Instant::now(),
    );
    // Claude Code's `/vim`, saved in `~/.claude.json`; its indicator hidden
    // when the statusLine command shows the mode itself.
    app.set_vim_remaps(tack_tui::input::insert_remaps(
        loaded.settings.unknown_keys().get("vimInsertModeRemaps"),
    ));
    app.set_vim((place.claude_json.as_deref()).is_some_and(tack_runtime::claude_json::vim_mode));
    app.hide_vim_indicator(
        (loaded.settings.status_line())
            .and_then(StatusLineCommand::from_settings)
            .is_some_and(|c| c.hide_vim_mode_indicator),
    );
    app.set_paths(ShownPaths::new(
        Some(place.cwd.clone()),
        place.home_dir.clone(),
    ));
    app.handle_event(
        UiEvent::Welcome {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            model: model.clone(),
            cwd: place.cwd.display().to_string(),
        },
        Instant::now(),
    );
    // Input-ready: the first frame, before anything slow.
    tack_tui::draw(&mut app, &mut term)?;
    tack_tui::markdown::preload_highlighter();

    let pick_session =
        matches!(&options.conversation.session, SessionChoice::Resume(id) if id.is_empty());
    let setup = Setup {
        app,
        term,
        guard,
        place,
        loaded,
        options,
        project_dir,
        model,
        first_prompt,
        pick_session,
        notices,
        labels: SessionLabels {
            name: cli.name.clone(),
            worktree,
        },
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (driver, actions) = Driver::new(setup);
        driver.run(actions).await
    })
}

/// The terminal taken over, and the UI on it (nothing drawn yet).
pub(crate) struct Ui {
    pub app: App,
    pub term: InlineTerminal<io::Stdout>,
    pub guard: TerminalGuard,
}

impl Ui {
    /// Raw mode on, the theme, the prompt history of `project_dir` (a
    /// problem reading it is added to `notices`).
    pub(crate) fn open(
        place: &Place,
        project_dir: &std::path::Path,
        color: bool,
        notices: &mut Vec<UiEvent>,
    ) -> anyhow::Result<Ui> {
        let (width, height) =
            crossterm::terminal::size().context("cannot read the terminal size")?;
        let guard = TerminalGuard::enter(&mut io::stdout())?;
        let theme = Theme::new(
            ThemeKind::from_colorfgbg(place.env.get("COLORFGBG").as_deref()),
            color,
        );
        let history = PromptHistory::load(&place.config_dir, project_dir).unwrap_or_else(|e| {
            notices.push(warning(format!("Could not read the prompt history: {e}")));
            PromptHistory::in_memory(Vec::new())
        });
        let app = App::new(AppConfig {
            theme,
            width,
            height,
            history,
            // The runtime loads them; the menu gets them once it has started.
            custom_commands: Vec::new(),
            files: FileIndex::default(),
            status: StatusInfo::default(),
        });
        let term = InlineTerminal::new(io::stdout(), width, height);
        Ok(Ui { app, term, guard })
    }
}

/// The trust dialog, before anything of the folder's settings runs: `true`
/// when the user trusts it. Keys are read synchronously: no thread exists yet.
fn trust(
    app: &mut App,
    term: &mut InlineTerminal<io::Stdout>,
    dir: &std::path::Path,
) -> anyhow::Result<bool> {
    app.handle_event(
        UiEvent::TrustRequest {
            dir: dir.display().to_string(),
        },
        Instant::now(),
    );
    loop {
        tack_tui::draw(app, term)?;
        let event = crossterm::event::read()?;
        for action in app.handle_terminal_event(event, Instant::now()) {
            match action {
                UiAction::Trust(yes) => return Ok(yes),
                UiAction::Exit => return Ok(false),
                _ => {}
            }
        }
    }
}

fn warning(text: String) -> UiEvent {
    UiEvent::Notice {
        level: NoticeLevel::Warning,
        text,
    }
}
