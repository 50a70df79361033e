//! `tack demo`: a real session end to end with no key and no network. The
//! scripted model server (tack-testkit) runs in-process on loopback; the
//! "model" inspects a small generated project, finds the bug behind a failing
//! test, fixes it with Edit, runs the test with Bash and reports. Everything
//! except the model is real: tools, permissions, transcript, cost accounting.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use serde_json::json;
use tack_testkit::{MockServer, Reply, Script};

use tack_runtime::{Env, Place, RequestOptions, SessionOptions};

use crate::cli::Cli;

const CALC: &str = "#!/bin/sh\n# Arithmetic helpers.\nadd() {\n  echo $(( $1 - $2 ))\n}\n";
const TEST: &str = "#!/bin/sh\n. ./calc.sh\ngot=$(add 2 3)\nif [ \"$got\" = 5 ]; then\n  echo \"PASS: add 2 3 = 5\"\nelse\n  echo \"FAIL: add 2 3 = $got, expected 5\"\n  exit 1\nfi\n";
pub const PROMPT: &str = "The test in this project fails. Find the bug, fix it and run the test.";

fn script(project: &Path) -> Script {
    let calc = project.join("calc.sh").to_string_lossy().into_owned();
    let test = project.join("test.sh").to_string_lossy().into_owned();
    let pace = std::time::Duration::from_millis(15);
    Script::new([
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
    ])
}

pub async fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let project = tempfile::Builder::new()
        .prefix("tack-demo-")
        .tempdir()
        .context("cannot create the demo project")?
        .keep();
    let project = project.canonicalize().unwrap_or(project);
    std::fs::write(project.join("calc.sh"), CALC)?;
    std::fs::write(project.join("test.sh"), TEST)?;
    std::fs::write(
        project.join("README.md"),
        "# calc\n\nRun the tests with `sh test.sh`.\n",
    )?;

    let server = MockServer::start(script(&project))
        .await
        .context("cannot start the demo model server")?;
    let mut env = Env::from_process();
    for key in [
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_MODEL",
        "MAX_THINKING_TOKENS",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    ] {
        env.0.remove(key);
    }
    env.0.insert("ANTHROPIC_BASE_URL".into(), server.base_url());
    env.0
        .insert("ANTHROPIC_API_KEY".into(), "demo-key-no-network".into());
    let place = Place::new(project.clone(), env)?;

    println!(
        "tack demo: a real session against a built-in scripted model (no API key, no network)."
    );
    println!("project: {}", project.display());
    println!("model server: {} (in-process)\n", server.base_url());
    println!("> {PROMPT}\n");
    // The demo's own settings only (none of the user's files): its rules, as
    // the flag layer.
    let settings =
        r#"{"permissions": {"allow": ["Bash(sh test.sh)"], "defaultMode": "acceptEdits"}}"#;
    let loaded = tack_runtime::LoadedSettings {
        locations: tack_config::Locations::discover(&project, |_| None),
        settings: tack_config::Settings::from_layers(
            [(tack_config::Source::inline(&project), settings.to_owned())],
            None,
        )?,
        trust: tack_runtime::Trust::default(),
        notices: Vec::new(),
    };
    let options = SessionOptions {
        request: RequestOptions {
            model: Some("claude-sonnet-4-5".into()),
            ..Default::default()
        },
        ..SessionOptions::default()
    };
    let code = crate::print::run(cli, place, loaded, options, PROMPT.to_owned(), true).await?;
    let test = std::process::Command::new("sh")
        .arg("test.sh")
        .current_dir(&project)
        .output()?;
    println!(
        "\nverify yourself: cd {} && sh test.sh  →  {}",
        project.display(),
        String::from_utf8_lossy(&test.stdout).trim()
    );
    Ok(code)
}
