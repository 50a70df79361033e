//! End-to-end tests for issue 17 ("Hardening"): each test runs the real `tack`
//! binary against the scripted server and pins one defect the adversarial
//! sweep found. Every one of them failed before its fix.

use crate::common;

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use common::stderr;
use common::{Env, git, lines, marker_script, tack_with_memory_cap};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// How long one `tack` run may take before the test calls it hung.
const HANG: Duration = Duration::from_secs(30);

/// The text of every `tool_result` block in the last user message of `body`,
/// keyed by tool_use id, with its `is_error` flag.
fn tool_results(body: &Value) -> Vec<(String, bool, String)> {
    let messages = body["messages"].as_array().expect("messages");
    let last = messages.last().expect("a last message");
    last["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let text = match &b["content"] {
                Value::String(s) => s.clone(),
                Value::Array(blocks) => blocks
                    .iter()
                    .filter_map(|x| x["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(""),
                _ => String::new(),
            };
            (
                b["tool_use_id"].as_str().unwrap_or("").to_owned(),
                b["is_error"].as_bool().unwrap_or(false),
                text,
            )
        })
        .collect()
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

// ---------------------------------------------------------------------------
// 1. Read of a device or FIFO; streaming of large files.

#[tokio::test(flavor = "multi_thread")]
async fn read_refuses_devices_and_fifos_without_blocking() {
    let script = Script::new([
        Reply::message()
            .tool_use("t_zero", "Read", json!({"file_path": "zero"}))
            .tool_use("t_urandom", "Read", json!({"file_path": "/dev/urandom"}))
            .tool_use("t_fifo", "Read", json!({"file_path": "pipe"}))
            .tool_use("t_dir", "Read", json!({"file_path": "sub"}))
            .into(),
        Reply::text("done"),
    ]);
    let env = Env::new(script).await;
    let cwd = env.cwd();
    std::os::unix::fs::symlink("/dev/zero", cwd.join("zero")).unwrap();
    mkfifo(&cwd.join("pipe"));
    std::fs::create_dir(cwd.join("sub")).unwrap();
    let out = tack_with_memory_cap(&env, 2 << 30)
        .args(["-p", "read them", "--dangerously-skip-permissions"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2);
    let expected = vec![
        (
            "t_zero".to_owned(),
            true,
            format!(
                "<tool_use_error>{} is a character device, not a regular file: Read only reads files. \
                 Inspect it with Bash if you must (e.g. `head -c 100 {0} | xxd`).</tool_use_error>",
                cwd.join("zero").display()
            ),
        ),
        (
            "t_urandom".to_owned(),
            true,
            "<tool_use_error>/dev/urandom is a character device, not a regular file: Read only reads \
             files. Inspect it with Bash if you must (e.g. `head -c 100 /dev/urandom | xxd`).</tool_use_error>"
                .to_owned(),
        ),
        (
            "t_fifo".to_owned(),
            true,
            format!(
                "<tool_use_error>{} is a FIFO (named pipe), not a regular file: Read only reads files. \
                 Inspect it with Bash if you must (e.g. `head -c 100 {0} | xxd`).</tool_use_error>",
                cwd.join("pipe").display()
            ),
        ),
        (
            "t_dir".to_owned(),
            true,
            format!(
                "<tool_use_error>{} is a directory, not a file. Use LS, Glob, or `ls` via Bash to list its contents.</tool_use_error>",
                cwd.join("sub").display()
            ),
        ),
    ];
    assert_eq!(tool_results(&bodies[1]), expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn reading_a_large_file_costs_what_it_returns_not_its_size() {
    let script = Script::new([
        Reply::tool_use("t1", "Read", json!({"file_path": "big.log"})),
        Reply::text("done"),
    ]);
    let env = Env::new(script).await;
    // 4,000,000 lines of 25 bytes: 100 MB.
    let file = std::fs::File::create(env.cwd().join("big.log")).unwrap();
    let mut w = std::io::BufWriter::new(file);
    for i in 0..4_000_000u32 {
        writeln!(w, "{i:>10} {}", "x".repeat(13)).unwrap();
    }
    w.into_inner().unwrap().sync_all().unwrap();
    let mut cmd = common::capped_tack(&env, 2 << 30);
    cmd.args(["-p", "read it"]);
    let (out, peak) = common::output_and_peak_rss(cmd);
    assert!(out.status.success(), "{out:?}");
    let bodies = env.request_bodies();
    let results = tool_results(&bodies[1]);
    assert_eq!(results.len(), 1);
    let (_, is_error, text) = &results[0];
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with(&format!("1\t{:>10} {}\n", 0, "x".repeat(13))),
        "{}",
        &text[..200]
    );
    assert!(
        text.ends_with("\n[Showing lines 1-2000 of 4000000. Use offset and limit to read more.]"),
        "{}",
        &text[text.len() - 200..]
    );
    // Before the fix the whole file was in memory (~115 MB peak).
    assert!(
        peak < 60 << 20,
        "tack's peak RSS was {} MB reading 2,000 lines of a 100 MB file",
        peak >> 20
    );
}

// ---------------------------------------------------------------------------
// 2. A repository's own git config must not run code.

#[tokio::test(flavor = "multi_thread")]
async fn git_context_never_runs_repo_configured_programs() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let repo = env.cwd();
    let evil = tempfile::tempdir().unwrap();
    let markers = tempfile::tempdir().unwrap();
    let m = |name: &str| markers.path().join(name);

    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["config", "user.email", "dev@example.com"]);
    git(&repo, &["config", "user.name", "Dev"]);
    std::fs::write(repo.join("a.txt"), "hello\n").unwrap();
    std::fs::write(repo.join(".gitattributes"), "*.txt filter=evil diff=evil\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    // A signed commit on top (the signature is junk: only whether gpg runs matters).
    let tree = git(&repo, &["rev-parse", "HEAD^{tree}"]);
    let parent = git(&repo, &["rev-parse", "HEAD"]);
    let commit = format!(
        "tree {tree}\nparent {parent}\nauthor Dev <dev@example.com> 1700000000 +0000\n\
         committer Dev <dev@example.com> 1700000000 +0000\n\
         gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n\
         signed commit\n"
    );
    std::fs::write(evil.path().join("commit.txt"), commit).unwrap();
    let signed = git(
        &repo,
        &[
            "hash-object",
            "-t",
            "commit",
            "-w",
            &evil.path().join("commit.txt").to_string_lossy(),
        ],
    );
    git(&repo, &["update-ref", "refs/heads/main", &signed]);

    // The hostile configuration, set after the commits so setting up runs none of it.
    let fsmonitor = marker_script(evil.path(), "fsmonitor", &m("fsmonitor"));
    let clean = marker_script(evil.path(), "clean", &m("clean-filter"));
    let process = marker_script(evil.path(), "process", &m("process-filter"));
    let gpg = marker_script(evil.path(), "gpg", &m("gpg"));
    let pager = marker_script(evil.path(), "pager", &m("pager"));
    let textconv = marker_script(evil.path(), "textconv", &m("textconv"));
    let hooks = evil.path().join("hooks");
    std::fs::create_dir(&hooks).unwrap();
    for hook in [
        "post-index-change",
        "reference-transaction",
        "post-checkout",
    ] {
        marker_script(&hooks, hook, &m(hook));
    }
    let s = |p: &Path| p.to_string_lossy().into_owned();
    for (key, value) in [
        ("core.fsmonitor", s(&fsmonitor)),
        ("filter.evil.clean", s(&clean)),
        ("filter.evil.smudge", s(&clean)),
        ("filter.evil.required", "true".to_owned()),
        ("filter.other.process", s(&process)),
        ("diff.evil.textconv", s(&textconv)),
        ("diff.external", s(&textconv)),
        ("core.hooksPath", s(&hooks)),
        ("log.showSignature", "true".to_owned()),
        ("gpg.program", s(&gpg)),
        ("core.pager", s(&pager)),
        ("pager.status", s(&pager)),
    ] {
        git(&repo, &["config", key, &value]);
    }
    std::fs::write(
        repo.join(".gitattributes"),
        "*.txt filter=evil diff=evil\n*.md filter=other\n",
    )
    .unwrap();
    // Same size, new mtime: git must look at the content (through the filter).
    std::fs::write(repo.join("a.txt"), "HELLO\n").unwrap();
    std::fs::write(repo.join("b.md"), "new\n").unwrap();

    let out = env
        .tack()
        .timeout(HANG)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let ran: Vec<String> = std::fs::read_dir(markers.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(ran, Vec::<String>::new(), "repo-configured programs ran");

    // The git context is still right.
    let system = env.request_bodies()[0]["system"].to_string();
    let short = &signed[..7];
    for expected in [
        "Current branch: main",
        "Status:\\n M .gitattributes\\n M a.txt\\n?? b.md",
        &format!("Recent commits:\\n{short} signed commit\\n"),
    ] {
        assert!(system.contains(expected), "{expected} not in {system}");
    }
}

// ---------------------------------------------------------------------------
// 3. Imports outside the project in project memory files.

#[tokio::test(flavor = "multi_thread")]
async fn project_memory_imports_from_outside_the_project_are_skipped() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let cwd = env.cwd();
    let outside = tempfile::tempdir().unwrap();
    let outside = outside.path().canonicalize().unwrap();
    std::fs::write(outside.join("secret.txt"), "OUTSIDE-SECRET-1").unwrap();
    std::fs::write(outside.join("linked.txt"), "OUTSIDE-SECRET-2").unwrap();
    std::fs::write(env.home.path().join("secret.txt"), "HOME-SECRET-3").unwrap();
    std::fs::write(env.home.path().join("notes.md"), "USER-NOTES-OK").unwrap();
    std::fs::create_dir_all(cwd.join("docs")).unwrap();
    std::fs::write(cwd.join("docs/style.md"), "PROJECT-STYLE-OK").unwrap();
    std::os::unix::fs::symlink(outside.join("linked.txt"), cwd.join("docs/link.md")).unwrap();
    std::fs::write(
        cwd.join("CLAUDE.md"),
        format!(
            "Project rules. See @docs/style.md and @{}\nAlso @~/secret.txt and @docs/link.md\n",
            outside.join("secret.txt").display()
        ),
    )
    .unwrap();
    // User-level memory imports freely.
    std::fs::create_dir_all(env.home.path().join(".claude")).unwrap();
    std::fs::write(
        env.home.path().join(".claude/CLAUDE.md"),
        "User rules: @~/notes.md\n",
    )
    .unwrap();

    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let body = env.request_bodies()[0].to_string();
    for leaked in ["OUTSIDE-SECRET-1", "OUTSIDE-SECRET-2", "HOME-SECRET-3"] {
        assert!(!body.contains(leaked), "{leaked} was sent to the API");
    }
    for kept in ["PROJECT-STYLE-OK", "USER-NOTES-OK", "Project rules."] {
        assert!(body.contains(kept), "{kept} missing from the request");
    }
    assert_eq!(
        stderr(&out),
        format!(
            "warning: Skipped 3 import(s) in {} from outside the project ({}, ~/secret.txt, docs/link.md). \
             To allow them: tack trust --allow-external-imports\n",
            cwd.join("CLAUDE.md").display(),
            outside.join("secret.txt").display(),
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cut_and_dropped_memory_files_are_reported() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let cwd = env.cwd();
    std::fs::write(cwd.join("CLAUDE.md"), "a".repeat(45_000)).unwrap();
    std::fs::write(cwd.join("AGENTS.md"), "b".repeat(5_000_000)).unwrap();
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {} has 45000 characters; only the first 40000 are sent to the model\n\
             warning: {} is 5000000 bytes, over the 4194304-byte limit for memory files; it was not loaded\n",
            cwd.join("CLAUDE.md").display(),
            cwd.join("AGENTS.md").display(),
        )
    );
    let body = env.request_bodies()[0].to_string();
    assert!(body.contains(&"a".repeat(40_000)));
    assert!(!body.contains("bbbb"));
}

// ---------------------------------------------------------------------------
// 4. Daemonised children must not outlive the session.

fn alive(pid: i32) -> bool {
    // A zombie has exited; only a process still running counts.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn daemonised_children_do_not_outlive_the_session() {
    let command = "setsid sh -c 'echo $$ > d1.pid; exec sleep 300' </dev/null >/dev/null 2>&1 & \
                   (nohup sh -c 'echo $$ > d2.pid; exec sleep 300' </dev/null >/dev/null 2>&1 &) ; \
                   while [ ! -s d1.pid ] || [ ! -s d2.pid ]; do sleep 0.05; done; echo started";
    let script = Script::new([
        Reply::tool_use("t1", "Bash", json!({"command": command})),
        Reply::text("done"),
    ]);
    let env = Env::new(script).await;
    let out = env
        .tack()
        .timeout(HANG)
        .args(["-p", "daemonise", "--dangerously-skip-permissions"])
        .output()
        .unwrap();
    let pids: Vec<i32> = ["d1.pid", "d2.pid"]
        .iter()
        .map(|f| {
            std::fs::read_to_string(env.cwd().join(f))
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        })
        .collect();
    let survivors: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
    for pid in &survivors {
        // SAFETY: plain kill of a pid this test started (through tack).
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    assert!(out.status.success(), "{out:?}");
    assert_eq!(tool_results(&env.request_bodies()[1])[0].2, "started");
    assert_eq!(
        survivors,
        Vec::<i32>::new(),
        "still running after tack exited"
    );
}

// ---------------------------------------------------------------------------
// 5. A budget with a model tack has no price for.

#[tokio::test(flavor = "multi_thread")]
async fn an_unpriced_model_still_stops_on_budget_and_says_so() {
    let turn = || {
        Reply::message()
            .tool_use("t", "Glob", json!({"pattern": "*"}))
            .usage(100, 20)
            .into()
    };
    let env = Env::new(Script::new([
        turn(),
        turn(),
        turn(),
        turn(),
        Reply::text("over"),
    ]))
    .await;
    let out = env
        .tack()
        .args([
            "-p",
            "go",
            "--model",
            "nonsense-model",
            "--max-budget-usd",
            "0.001",
            "--output-format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let result = &lines(&out.stdout)[0];
    assert_eq!(result["subtype"], "error_max_budget_usd", "{result}");
    // Twice 100 input and 20 output tokens at the default model's $4 / $20
    // per million: the first ($0.0008) is under the budget, the second over.
    assert_eq!(result["total_cost_usd"], json!(0.0016));
    assert_eq!(env.request_bodies().len(), 2);
    assert_eq!(
        stderr(&out),
        "warning: no price known for model \"nonsense-model\": costs are estimated at \
         claude-opus-5-5's rates ($4/$20 per million input/output tokens)\n\
         Error: Reached maximum budget ($0.001)\n"
    );
}

// ---------------------------------------------------------------------------
// 6. Bash output truncation states the real size and keeps the whole output.

#[tokio::test(flavor = "multi_thread")]
async fn huge_bash_output_is_saved_whole_and_its_real_size_stated() {
    let command = "head -c 15000000 /dev/zero | tr '\\0' 'a'; echo; echo the-end";
    let script = Script::new([
        Reply::tool_use("t1", "Bash", json!({"command": command})),
        Reply::text("done"),
    ]);
    let env = Env::new(script).await;
    let out = env
        .tack()
        .timeout(HANG)
        .args(["-p", "spam", "--dangerously-skip-permissions"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let results = tool_results(&env.request_bodies()[1]);
    let text = &results[0].2;
    let first_line = text.lines().next().unwrap();
    let path = first_line
        .strip_prefix("Output too large (14.3MB). Full output saved to: ")
        .unwrap_or_else(|| panic!("{first_line}"));
    let saved = std::fs::read(path).unwrap();
    assert_eq!(saved.len(), 15_000_009);
    assert!(saved.ends_with(b"a\nthe-end\n"));
    assert!(
        text.contains("\n\n... [14970009 bytes truncated] ...\n\n"),
        "{}",
        &text[..300]
    );
    assert!(
        text.ends_with("aaaa\nthe-end"),
        "{}",
        &text[text.len() - 100..]
    );
    assert!(text.len() < 31_000, "{}", text.len());
}

// ---------------------------------------------------------------------------
// 7. Silent losses of user intent.

#[tokio::test(flavor = "multi_thread")]
async fn a_typo_in_a_settings_key_is_warned_with_file_line_and_suggestion() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let dir = env.cwd().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("settings.json"),
        "{\n  \"model\": \"claude-sonnet-4-5\",\n  \"permisions\": {\"deny\": [\"Bash\"]},\n  \
         \"permissions\": {\"allow\": [\"Read\"], \"dney\": [\"Write\"]},\n  \"theme\": \"dark\"\n}\n",
    )
    .unwrap();
    env.trust();
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let file = dir.join("settings.json");
    assert_eq!(
        stderr(&out),
        format!(
            "warning: unknown settings key \"permisions\" in {0}:3 (did you mean \"permissions\"?); it is ignored\n\
             warning: unknown settings key \"permissions.dney\" in {0}:4 (did you mean \"permissions.deny\"?); it is ignored\n",
            file.display()
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_transcript_resumes_with_a_warning() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let id = "0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60";
    let store = tack_store::SessionStore::new(env.config_dir());
    let path = store.transcript_path(&env.cwd(), id).unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "").unwrap();
    let out = env.tack().args(["-p", "hi", "-r", id]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {}: the transcript is empty (0 bytes): nothing to resume, starting the conversation afresh\n",
            path.display()
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn session_id_with_continue_or_resume_is_an_error() {
    let env = Env::new(Script::new([])).await;
    let id = "0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60";
    for flag in [
        vec!["-c"],
        vec!["--continue"],
        vec!["-r", id],
        vec!["--resume"],
    ] {
        let out = env
            .tack()
            .args(["-p", "hi", "--session-id", id])
            .args(&flag)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{flag:?}");
        assert_eq!(
            stderr(&out),
            "Error: --session-id cannot be used with --continue or --resume\n",
            "{flag:?}"
        );
    }
    assert_eq!(env.request_bodies().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn max_turns_zero_is_an_error_and_documented() {
    let env = Env::new(Script::new([Reply::text("never")])).await;
    let out = env
        .tack()
        .args(["-p", "hi", "--max-turns", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "Error: --max-turns must be at least 1\n");
    assert_eq!(env.request_bodies().len(), 0);
    let help = env.tack().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("Maximum number of model calls in one turn (at least 1)"),
        "{help}"
    );
}

// ---------------------------------------------------------------------------
// 8. Resume after a lost middle record.

#[tokio::test(flavor = "multi_thread")]
async fn resume_after_a_lost_middle_record_keeps_the_earlier_history() {
    let env = Env::new(Script::new([
        Reply::text("FIRST-ANSWER"),
        Reply::tool_use("t1", "Glob", json!({"pattern": "*.nothing"})),
        Reply::text("SECOND-ANSWER"),
        Reply::text("THIRD-ANSWER"),
    ]))
    .await;
    let out = env
        .tack()
        .args(["-p", "FIRST-PROMPT", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let out = env
        .tack()
        .args(["-p", "SECOND-PROMPT", "-c"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Lines: prompt 1, answer 1, prompt 2, tool_use, tool result, answer 2.
    // The tool_use record (line 4) is lost mid-file.
    let path = env.transcripts()[0].clone();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut records: Vec<String> = text.lines().map(str::to_owned).collect();
    assert_eq!(records.len(), 6, "{text}");
    assert!(records[3].contains("\"tool_use\""), "{}", records[3]);
    // Cut inside a string, whatever else the record holds.
    let cut = records[3].find("\"tool_use\"").unwrap() + 4;
    records[3] = records[3][..cut].to_owned();
    std::fs::write(&path, records.join("\n") + "\n").unwrap();

    let out = env
        .tack()
        .args(["-p", "THIRD-PROMPT", "-c"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let body = &env.request_bodies()[3];
    let texts: Vec<String> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let blocks = m["content"].as_array().unwrap();
            let words: Vec<String> = blocks
                .iter()
                .map(|b| match b["type"].as_str().unwrap() {
                    "text" => b["text"].as_str().unwrap().to_owned(),
                    other => other.to_owned(),
                })
                .filter(|t| !t.starts_with("<system-reminder>"))
                .collect();
            format!("{}: {}", m["role"].as_str().unwrap(), words.join(" | "))
        })
        .collect();
    assert_eq!(
        texts,
        vec![
            "user: FIRST-PROMPT",
            "assistant: FIRST-ANSWER",
            "user: SECOND-PROMPT",
            "assistant: SECOND-ANSWER",
            "user: THIRD-PROMPT",
        ]
    );
    let lost_parent = serde_json::from_str::<Value>(&records[4]).unwrap()["parentUuid"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {0}: line 4 is not a valid record (EOF while parsing a string at line 1 column {1}); skipped\n\
             warning: {0}: line 5 continues from record {lost_parent}, which is lost; the conversation \
             is joined to line 3, the intact record before it, and what the lost record held is not resumed\n\
             warning: {0}: tool result for unknown call t1; dropped\n",
            path.display(),
            records[3].len(),
        )
    );
}

// ---------------------------------------------------------------------------
// 9. Messages.

#[tokio::test(flavor = "multi_thread")]
async fn os_errors_are_printed_once() {
    let env = Env::new(Script::new([Reply::text("never")])).await;
    std::fs::create_dir_all(env.claude_dir()).unwrap();
    std::fs::write(env.claude_dir().join("projects"), "a file, not a directory").unwrap();
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = stderr(&out);
    assert_eq!(stderr.matches("(os error").count(), 1, "{stderr}");
    assert!(stderr.starts_with("Error: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_directory_in_place_of_a_transcript_is_reported_as_such() {
    let env = Env::new(Script::new([])).await;
    let id = "0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60";
    let store = tack_store::SessionStore::new(env.config_dir());
    let path = store.transcript_path(&env.cwd(), id).unwrap();
    std::fs::create_dir_all(&path).unwrap();
    let out = env.tack().args(["-p", "hi", "-r", id]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "Error: {} is a directory, not a session transcript\n",
            path.display()
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_tool_input_is_not_echoed_whole() {
    let huge = "a".repeat(1_000_000);
    let raw = format!("{{\"command\": \"{huge}");
    let script = Script::new([
        Reply::message()
            .raw_tool_input("t_json", "Bash", &raw)
            .tool_use(
                "t_type",
                "Read",
                json!({"file_path": "x", "limit": "b".repeat(100_000)}),
            )
            .usage(100, 20)
            .into(),
        Reply::text("done"),
    ]);
    let env = Env::new(script).await;
    let out = env.tack().args(["-p", "go"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let results = tool_results(&env.request_bodies()[1]);
    assert_eq!(results.len(), 2);
    let prefix_1000 = &raw[..1000];
    assert_eq!(
        results[0],
        (
            "t_json".to_owned(),
            true,
            format!(
                "<tool_use_error>InputValidationError: the input of Bash was not valid JSON \
                 (EOF while parsing a string at line 1 column 1000013). Call the tool again with a \
                 complete JSON object. Received: {prefix_1000}… (1000013 bytes)</tool_use_error>"
            )
        )
    );
    // serde quotes the 100 KB string in its message: kept are its start and end.
    let message = format!(
        "invalid type: string \"{}\", expected u64",
        "b".repeat(100_000)
    );
    let (head, tail) = (&message[..800], &message[message.len() - 200..]);
    assert_eq!(
        results[1],
        (
            "t_type".to_owned(),
            true,
            format!(
                "<tool_use_error>InputValidationError: Read failed: {head}… ({} bytes left out) …{tail} \
                 at `limit`. Expected input: {{file_path: string, offset?: integer, limit?: integer}}</tool_use_error>",
                message.len() - 1000
            )
        )
    );
}
