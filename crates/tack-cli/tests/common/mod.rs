//! Shared helpers of the end-to-end tests: a temp project + config dir, the
//! real `tack` binary pointed at a scripted server, and output normalisation.

#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tack_testkit::{MockServer, Script};

/// Flags of a session driven over stdin/stdout.
pub const STREAM_JSON: [&str; 5] = [
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
];

pub struct Env {
    pub project: tempfile::TempDir,
    pub home: tempfile::TempDir,
    pub server: MockServer,
}

impl Env {
    pub async fn new(script: Script) -> Env {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let server = MockServer::start(script).await.unwrap();
        Env {
            project,
            home,
            server,
        }
    }

    pub fn cwd(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    /// tack's own config dir (settings, trust, transcripts of older tacks).
    pub fn config_dir(&self) -> PathBuf {
        self.home.path().join(".tack")
    }

    /// Claude Code's config dir (`HOME/.claude`: the tests leave
    /// `CLAUDE_CONFIG_DIR` unset), where new transcripts go.
    pub fn claude_dir(&self) -> PathBuf {
        self.home.path().join(".claude")
    }

    /// The project's folder under tack's own config dir, where older tacks
    /// wrote transcripts.
    pub fn store_in_tack_dir(&self) -> PathBuf {
        tack_store::SessionStore::new(self.config_dir()).project_dir(&self.cwd())
    }

    /// The transcripts tack reads: Claude Code's dir, then tack's older one.
    pub fn store(&self) -> tack_store::SessionStore {
        tack_store::SessionStore::new(self.claude_dir()).also_reading(self.config_dir())
    }

    /// The whole environment tack runs with: the server's URL, a test key, temp
    /// home, no retries (set after `env_clear`).
    pub fn vars(&self) -> Vec<(&'static str, std::ffi::OsString)> {
        vec![
            ("PATH", std::env::var_os("PATH").unwrap_or_default()),
            ("HOME", self.home.path().into()),
            ("TACK_CONFIG_DIR", self.config_dir().into()),
            ("ANTHROPIC_BASE_URL", self.server.base_url().into()),
            ("ANTHROPIC_API_KEY", "test".into()),
            ("CLAUDE_CODE_MAX_RETRIES", "0".into()),
        ]
    }

    /// `tack` with a clean environment ([`Env::vars`]) in the project dir.
    pub fn tack(&self) -> Command {
        let mut cmd = Command::cargo_bin("tack").unwrap();
        cmd.env_clear()
            .envs(self.vars())
            .current_dir(self.cwd())
            .write_stdin("");
        cmd
    }

    /// `tack` reading and writing stream-json with stdin and stdout piped
    /// (stderr dropped): a session that stays open between turns.
    pub fn stream_json(&self) -> std::process::Child {
        self.stream_json_with(&[])
    }

    /// [`Env::stream_json`] with more flags.
    pub fn stream_json_with(&self, args: &[&str]) -> std::process::Child {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
            .env_clear()
            .envs(self.vars())
            .current_dir(self.cwd())
            .args(STREAM_JSON)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    }

    /// Trusts the project (`tack trust`), so its settings may allow tools,
    /// run hooks and set the environment.
    pub fn trust(&self) {
        let out = self.tack().arg("trust").output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The transcripts of the project, newest first.
    pub fn transcripts(&self) -> Vec<PathBuf> {
        self.store()
            .list_sessions(&self.cwd())
            .unwrap()
            .into_iter()
            .map(|s| s.path)
            .collect()
    }

    /// Requests the server received, as JSON bodies.
    pub fn request_bodies(&self) -> Vec<Value> {
        self.server.requests().into_iter().map(|r| r.body).collect()
    }
}

/// The text blocks of a request body's last message.
pub fn last_texts(body: &Value) -> Vec<String> {
    let last = body["messages"].as_array().unwrap().last().unwrap();
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .collect()
}

/// `type` or `type/subtype` of each stream-json record, for whole-sequence asserts.
/// The definition of the tool `name` in a request body.
pub fn request_tool(body: &Value, name: &str) -> Value {
    let tools = body["tools"].as_array().unwrap();
    let tool = tools.iter().find(|t| t["name"] == name);
    tool.cloned()
        .unwrap_or_else(|| panic!("no tool {name} in the request"))
}

pub fn kinds(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            let subtype = r["subtype"].as_str().map(|s| format!("/{s}"));
            format!(
                "{}{}",
                r["type"].as_str().unwrap_or("?"),
                subtype.unwrap_or_default()
            )
        })
        .collect()
}

/// A stream-json user message line's value.
pub fn user_line(text: &str) -> Value {
    serde_json::json!({"type": "user", "session_id": "", "parent_tool_use_id": null,
                       "message": {"role": "user", "content": text}})
}

/// `initialize`, then each prompt: stream-json stdin for an SDK-like session.
pub fn initialize_then(prompts: &[&str]) -> String {
    let init = serde_json::json!({"type": "control_request", "request_id": "init",
                                  "request": {"subtype": "initialize"}});
    std::iter::once(init)
        .chain(prompts.iter().map(|p| user_line(p)))
        .map(|l| format!("{l}\n"))
        .collect()
}

pub fn lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Replaces values that change between runs (ids, times, paths) so records can
/// be snapshotted.
pub fn redact(value: &mut Value, cwd: &Path) {
    let cwd = cwd.to_string_lossy().into_owned();
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                match k.as_str() {
                    "uuid" | "session_id" | "timestamp" | "duration_ms" | "duration_api_ms" => {
                        *v = Value::String(format!("[{k}]"));
                    }
                    _ => redact(v, Path::new(&cwd)),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact(v, Path::new(&cwd))),
        Value::String(s) if s.contains(&cwd) => *s = s.replace(&cwd, "[cwd]"),
        _ => {}
    }
}

/// Every tool_use in `messages` is answered in the next message.
pub fn assert_every_tool_use_answered(messages: &[Value]) {
    for (i, m) in messages.iter().enumerate() {
        if m["role"] != "assistant" {
            continue;
        }
        let Some(blocks) = m["content"].as_array() else {
            continue;
        };
        for b in blocks.iter().filter(|b| b["type"] == "tool_use") {
            let id = &b["id"];
            let next = messages
                .get(i + 1)
                .unwrap_or_else(|| panic!("tool_use {id} is the last message"));
            let answered = next["content"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|r| r["type"] == "tool_result" && &r["tool_use_id"] == id)
            });
            assert!(answered, "tool_use {id} has no tool_result in {next}");
        }
    }
}

/// The tool names a request offered.
pub fn offered(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A finished process's stderr, as text.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A finished process's stdout, as text.
pub fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes `text` to `path`, creating its folders; returns the path.
pub fn write(path: impl AsRef<Path>, text: &str) -> std::path::PathBuf {
    let path = path.as_ref();
    std::fs::create_dir_all(path.parent().expect("a file's folder")).expect("folders made");
    std::fs::write(path, text).expect("file written");
    path.to_path_buf()
}

/// `tack` with the usual environment, its address space capped at `bytes`
/// (so a regression that expands or reads without bound fails the test, not
/// the machine), and a 30 s timeout (so one that blocks fails too).
pub fn tack_with_memory_cap(env: &Env, bytes: u64) -> Command {
    let mut cmd = Command::from_std(capped_tack(env, bytes));
    cmd.write_stdin("")
        .timeout(std::time::Duration::from_secs(30));
    cmd
}

/// [`tack_with_memory_cap`]'s process, as a plain `std` command.
pub fn capped_tack(env: &Env, bytes: u64) -> std::process::Command {
    use std::os::unix::process::CommandExt as _;
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"));
    cmd.env_clear().envs(env.vars()).current_dir(env.cwd());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

/// Runs `cmd` (stdin empty) to the end: its output and its own peak resident
/// set size in bytes (`wait4` on that child alone, not every child this test
/// process ever had, which under `cargo test` includes other tests' SDK
/// drivers).
pub fn output_and_peak_rss(cmd: std::process::Command) -> (std::process::Output, u64) {
    output_and_peak_rss_within(cmd, None).expect("no time limit")
}

/// [`output_and_peak_rss`], the child killed once it has run for `limit`
/// (then `None`).
#[allow(clippy::zombie_processes)] // reaped by `wait4`, which std cannot do
pub fn output_and_peak_rss_within(
    mut cmd: std::process::Command,
    limit: Option<std::time::Duration>,
) -> Option<(std::process::Output, u64)> {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt as _;
    use std::process::Stdio;
    let started = std::time::Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).unwrap();
            bytes
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: `rusage` is plain integers and `timeval`s: all zeros is valid.
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    let flags = if limit.is_some() { libc::WNOHANG } else { 0 };
    let mut killed = false;
    loop {
        // SAFETY: valid out-pointers; `child` is not waited for elsewhere.
        let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        if reaped == pid {
            break;
        }
        assert_eq!(reaped, 0);
        if limit.is_some_and(|limit| started.elapsed() > limit) && !killed {
            // Not reaped yet, so the pid is still this child's.
            child.kill().unwrap();
            killed = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = std::process::Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    (!killed).then(|| (output, u64::try_from(usage.ru_maxrss).unwrap() * 1024))
}

/// `git <args>` in `dir` with no system config and `dir` as home; its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A script that records that it ran by creating `marker`, then behaves as `cat`.
pub fn marker_script(dir: &Path, name: &str, marker: &Path) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("#!/bin/sh\ntouch '{}'\ncat\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        &path,
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )
    .unwrap();
    path
}

/// The tool_result blocks of the last message of a request body, as text.
pub fn last_tool_results(body: &Value) -> Vec<(String, String)> {
    let messages = body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let text = match &b["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (b["tool_use_id"].as_str().unwrap().to_owned(), text)
        })
        .collect()
}

/// Makes `dir` a git repository (branch `main`) whose one commit holds `file`
/// with `content`.
pub fn git_repo_with(dir: &Path, file: &str, content: &str) {
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join(file), content).unwrap();
    git(dir, &["add", "-A"]);
    let id = ["-c", "user.name=T", "-c", "user.email=t@example.com"];
    git(dir, &[&id[..], &["commit", "-q", "-m", "base"]].concat());
}

/// SessionEnd and SessionStart as the hooks saw them: `(event, reason or source)`.
pub fn session_hooks(cwd: &std::path::Path) -> Vec<(String, String)> {
    let log = std::fs::read_to_string(cwd.join("hooks.jsonl")).unwrap();
    log.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let why = v.get("source").or_else(|| v.get("reason")).unwrap();
            (
                v["hook_event_name"].as_str().unwrap().to_owned(),
                why.as_str().unwrap().to_owned(),
            )
        })
        .collect()
}
