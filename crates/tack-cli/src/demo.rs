//! `tack demo`: a real session end to end with no key and no network. The
//! scripted model server (tack-testkit) runs in-process on loopback; the
//! "model" inspects a small generated project, finds the bug behind a failing
//! test, fixes it with Edit, runs the test with Bash and reports. Everything
//! except the model is real: tools, permissions, transcript, cost accounting.
//!
//! On a terminal it is the terminal UI, as plain `tack` is, with the prompt
//! typed for the user and the Edit's permission dialog to answer. Piped, it
//! is print mode narrating a transcript on stdout (edits allowed up front:
//! nobody can answer a dialog). Either way it ends with the test's result.
//! The project is a temporary folder removed when the demo ends, on every
//! way out (a return, an error, SIGINT, SIGTERM, SIGHUP); with `--keep` it
//! stays, and the demo ends with its path and commands that work from any
//! folder.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use serde_json::json;
use tack_testkit::{MockServer, Reply, Script};

use tack_runtime::{Env, LoadedSettings, Place, RequestOptions, SessionOptions};
use tack_tui::{NoticeLevel, UiEvent};

use crate::cli::Cli;
use crate::interactive::Start;
use crate::output::Narration;
use crate::refusals::shell_quote;

const CALC: &str = "#!/bin/sh\n# Arithmetic helpers.\nadd() {\n  echo $(( $1 - $2 ))\n}\n";
const TEST: &str = "#!/bin/sh\n. ./calc.sh\ngot=$(add 2 3)\nif [ \"$got\" = 5 ]; then\n  echo \"PASS: add 2 3 = 5\"\nelse\n  echo \"FAIL: add 2 3 = $got, expected 5\"\n  exit 1\nfi\n";
pub const PROMPT: &str = "The test in this project fails. Find the bug, fix it and run the test.";

fn script(project: &Path) -> Script {
    let calc = project.join("calc.sh").to_string_lossy().into_owned();
    let test = project.join("test.sh").to_string_lossy().into_owned();
    let pace = std::time::Duration::from_millis(15);
    Script::new(
        [
        Reply::message()
            .text("Let me look at the project first.")
            .tool_use("toolu_demo_1", "Glob", json!({"pattern": "*"}))
            .pacing(pace)
            .into(),
        Reply::message()
            .tool_use("toolu_demo_2", "Read", json!({"file_path": test}))
            .tool_use("toolu_demo_3", "Read", json!({"file_path": calc}))
            .pacing(pace)
            .into(),
        Reply::message()
            .text("Let me run the test to see the failure.")
            .tool_use("toolu_demo_4", "Bash", json!({"command": "sh test.sh", "description": "Run the tests"}))
            .pacing(pace)
            .into(),
        Reply::message()
            .text("`add` subtracts its arguments instead of adding them. Fixing it.")
            .tool_use(
                "toolu_demo_5",
                "Edit",
                json!({"file_path": calc, "old_string": "$(( $1 - $2 ))", "new_string": "$(( $1 + $2 ))"}),
            )
            .pacing(pace)
            .into(),
        Reply::message()
            .tool_use("toolu_demo_6", "Bash", json!({"command": "sh test.sh", "description": "Run the tests"}))
            .pacing(pace)
            .into(),
        Reply::message()
            .text("Fixed: `add` in calc.sh computed `$1 - $2`; it now computes `$1 + $2`, and `sh test.sh` passes.")
            .pacing(pace)
            .into(),
    ]
    .into_iter()
    // What a prompt typed after the demo gets.
    .chain((0..50).map(|_| Reply::text(END))))
}

const END: &str = "That was the whole of the demo's script. Leave with /exit to see how to try tack on this project with your own API key.";

/// `tack demo`: the terminal UI on a terminal, a transcript on a pipe; the
/// project is removed at the end unless `keep`.
pub fn run(cli: &Cli, keep: bool) -> anyhow::Result<ExitCode> {
    let demo = make_project(keep)?;
    let project = demo.path.clone();
    let base_url = serve(script(&project), (!keep).then(|| project.clone()))?;
    let place = Place::new(project.clone(), demo_env(&base_url))?;
    let in_project = format!(
        "cd {} && {}",
        shell_quote(&project.to_string_lossy()),
        crate::self_command::tack_command()
    );
    let options = SessionOptions {
        request: RequestOptions {
            // Named, so the user's own model settings cannot send the demo
            // elsewhere; today's default, priced as such.
            model: Some(tack_runtime::DEFAULT_MODEL.into()),
            ..Default::default()
        },
        ..SessionOptions::default()
    };
    let code = if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let notice = format!(
            "tack demo: a real session against a built-in scripted model (no API key, no network), in {}. \
             Answer its permission dialog; /exit when done.",
            project.display()
        );
        let start = Start {
            loaded: settings(&project, false)?,
            options,
            project_dir: project.clone(),
            place,
            first_prompt: Some(PROMPT.to_owned()),
            notices: vec![UiEvent::Notice {
                level: NoticeLevel::Info,
                text: notice,
            }],
            worktree: None,
        };
        let color = tack_tui::color_allowed(std::env::var_os("NO_COLOR").as_deref());
        crate::interactive::run_from(cli, start, color)?
    } else {
        println!(
            "tack demo: a real session against a built-in scripted model (no API key, no network)."
        );
        println!("project: {}\n", project.display());
        println!("> {PROMPT}\n");
        let narration = Narration::new(&project, keep.then(|| in_project.clone()));
        let session = crate::print::run(
            cli,
            place,
            settings(&project, true)?,
            options,
            PROMPT.to_owned(),
            Some(narration),
        );
        let code = crate::runtime()?.block_on(session)?;
        if code == ExitCode::from(crate::print::STDOUT_CLOSED_EXIT) {
            return Ok(code);
        }
        code
    };
    let test = std::process::Command::new("sh")
        .arg("test.sh")
        .current_dir(&project)
        .output()?;
    let passed = String::from_utf8_lossy(&test.stdout).trim().to_owned();
    if keep {
        let at = shell_quote(&project.to_string_lossy());
        println!("\nverify yourself: cd {at} && sh test.sh  →  {passed}");
        println!("try tack on it with your own API key: {in_project} -p \"What does calc.sh do?\"");
    } else {
        println!("\nthe test now: sh test.sh  →  {passed}");
        println!(
            "the demo's project is removed; `{} demo --keep` keeps it to try tack on it with your own API key",
            crate::self_command::tack_command()
        );
    }
    drop(demo);
    Ok(code)
}

/// The demo's project folder: removed when this is dropped, unless kept.
struct DemoProject {
    path: PathBuf,
    keep: bool,
}

impl Drop for DemoProject {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// The demo project, in a fresh temporary folder.
fn make_project(keep: bool) -> anyhow::Result<DemoProject> {
    let path = tempfile::Builder::new()
        .prefix("tack-demo-")
        .tempdir()
        .context("cannot create the demo project")?
        .keep();
    let path = path.canonicalize().unwrap_or(path);
    let project = DemoProject { path, keep };
    let file = |name: &str, text: &str| std::fs::write(project.path.join(name), text);
    file("calc.sh", CALC)?;
    file("test.sh", TEST)?;
    file("README.md", "# calc\n\nRun the tests with `sh test.sh`.\n")?;
    Ok(project)
}

/// SIGINT, SIGTERM and SIGHUP watched, each with its number.
type Watched = Vec<(tokio::signal::unix::Signal, i32)>;

/// Watches SIGINT, SIGTERM and SIGHUP from now on (inside a runtime), for
/// [`remove_on_signal`]; `None` when they cannot be watched.
fn watch_signals(project: PathBuf) -> Option<(PathBuf, Watched)> {
    use tokio::signal::unix::{SignalKind, signal};
    let watched = [
        (SignalKind::interrupt(), libc::SIGINT),
        (SignalKind::terminate(), libc::SIGTERM),
        (SignalKind::hangup(), libc::SIGHUP),
    ];
    let streams = (watched.iter())
        .map(|(kind, number)| signal(*kind).ok().map(|s| (s, *number)))
        .collect::<Option<Watched>>()?;
    Some((project, streams))
}

/// Until one of the watched signals: then removes the project and ends the
/// process by that signal, as it would have ended unwatched. Without a
/// watch, waits forever.
async fn remove_on_signal(watch: Option<(PathBuf, Watched)>) {
    let Some((project, streams)) = watch else {
        return std::future::pending().await;
    };
    let arrivals = streams.into_iter().map(|(mut stream, number)| {
        Box::pin(async move {
            stream.recv().await;
            number
        })
    });
    let (number, _, _) = futures::future::select_all(arrivals).await;
    let _ = std::fs::remove_dir_all(&project);
    // SAFETY: restoring a signal's default action and raising it touch no
    // memory of ours; the default action ends the process.
    unsafe {
        libc::signal(number, libc::SIG_DFL);
        libc::raise(number);
    }
}

/// Starts the scripted model server on loopback, on a thread of its own (the
/// terminal UI runs its own runtime); its base URL. It lives as long as the
/// process; its thread also removes `project` (when given) on a signal.
fn serve(script: Script, project: Option<PathBuf>) -> anyhow::Result<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("demo-model".into())
        .spawn(move || {
            let runtime = match crate::runtime() {
                Ok(runtime) => runtime,
                Err(e) => return drop(tx.send(Err(e))),
            };
            runtime.block_on(async move {
                match MockServer::start(script).await {
                    Ok(server) => {
                        let watch = project.and_then(watch_signals);
                        let _ = tx.send(Ok(server.base_url()));
                        remove_on_signal(watch).await;
                    }
                    Err(e) => drop(tx.send(Err(e))),
                }
            });
        })
        .context("cannot start the demo model server")?;
    let url = rx.recv().context("the demo model server did not start")?;
    url.context("cannot start the demo model server")
}

/// The user's environment with the model pointed at the demo's server.
fn demo_env(base_url: &str) -> Env {
    let mut env = Env::from_process();
    for key in [
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_MODEL",
        "MAX_THINKING_TOKENS",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    ] {
        env.0.remove(key);
    }
    env.0
        .insert("ANTHROPIC_BASE_URL".into(), base_url.to_owned());
    env.0
        .insert("ANTHROPIC_API_KEY".into(), "demo-key-no-network".into());
    env
}

/// The demo's own settings only (none of the user's files), as the flag
/// layer, the project trusted: its test may run; edits ask on a terminal and
/// are allowed up front on a pipe (`accept_edits`).
fn settings(project: &Path, accept_edits: bool) -> anyhow::Result<LoadedSettings> {
    let mode = if accept_edits {
        r#", "defaultMode": "acceptEdits""#
    } else {
        ""
    };
    let settings = format!(r#"{{"permissions": {{"allow": ["Bash(sh test.sh)"]{mode}}}}}"#);
    Ok(LoadedSettings {
        locations: tack_config::Locations::discover(project, |_| None),
        settings: tack_config::Settings::from_layers(
            [(tack_config::Source::inline(project), settings)],
            None,
        )?,
        trust: tack_runtime::Trust {
            trusted: true,
            external_imports: false,
        },
        notices: Vec::new(),
    })
}
