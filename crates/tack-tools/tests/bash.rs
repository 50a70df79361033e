//! Bash, TaskOutput and TaskStop with real processes.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::Session;
use pretty_assertions::assert_eq;
use serde_json::json;

/// True once no process with this pid exists (killed and reaped).
fn gone(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Waits (bounded) for orphans to be reaped by init: there is no event to await
/// for a process we are not the parent of.
async fn wait_gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test]
async fn runs_a_command() {
    let s = Session::new();
    let out = s
        .call(
            "Bash",
            json!({"command": "echo hello", "description": "Say hello"}),
        )
        .await
        .unwrap();
    assert_eq!(out.content.to_text(), "hello");
    assert!(!out.is_error);
    assert_eq!(
        out.structured,
        Some(
            json!({"stdout": "hello", "stderr": "", "exitCode": 0, "interrupted": false, "description": "Say hello"})
        )
    );
}

#[tokio::test]
async fn reports_stderr_and_exit_code() {
    let s = Session::new();
    let out = s
        .call("Bash", json!({"command": "echo out; echo err >&2; exit 3"}))
        .await
        .unwrap();
    assert_eq!(out.content.to_text(), "Exit code 3\nout\nerr");
    assert!(out.is_error);
    // grep finding nothing is not a failure.
    let out = s
        .call("Bash", json!({"command": "echo abc | grep xyz"}))
        .await
        .unwrap();
    assert_eq!(
        (out.content.to_text().as_str(), out.is_error),
        ("(no output)", false)
    );
}

#[tokio::test]
async fn cd_carries_over_between_calls() {
    let s = Session::new();
    std::fs::create_dir_all(s.path("sub/dir")).unwrap();
    assert_eq!(
        s.ok("Bash", json!({"command": "cd sub/dir && echo moved"}))
            .await,
        "moved"
    );
    assert_eq!(
        s.ok("Bash", json!({"command": "pwd"})).await,
        s.p("sub/dir")
    );
    assert_eq!(s.env.cwd(), s.path("sub/dir"));
    // Leaving the working directories resets the cwd, and says so.
    assert_eq!(
        s.ok("Bash", json!({"command": "cd / && echo out"})).await,
        format!("out\n\nShell cwd was reset to {}", s.root.display())
    );
    assert_eq!(s.env.cwd(), s.root);
}

#[tokio::test]
async fn timeout_kills_the_whole_group_even_children_ignoring_sigterm() {
    let s = Session::new();
    let command = r#"bash -c 'trap "" TERM; sleep 100 & echo $!; wait' & echo $!; wait"#;
    let started = Instant::now();
    let out = s
        .call("Bash", json!({"command": command, "timeout": 500}))
        .await
        .unwrap();
    let text = out.content.to_text();
    assert!(out.is_error);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("Command timed out after 500ms and was killed")
    );
    let pids: Vec<i32> = lines.map(|l| l.trim().parse().expect("pid")).collect();
    assert_eq!(pids.len(), 2, "{text}");
    for pid in pids {
        assert!(wait_gone(pid).await, "process {pid} survived the timeout");
    }
}

#[tokio::test]
async fn cancel_kills_the_group_and_returns_at_once() {
    let s = Session::with_grace(Duration::from_millis(300));
    let pid_file = s.path("pid");
    let command = format!(
        r#"trap "" TERM; sleep 100 & echo $! > {}; wait"#,
        pid_file.display()
    );
    let ctx = s.ctx();
    let cancel = ctx.cancel.clone();
    let call = s.call_with("Bash", json!({"command": command}), &ctx);
    let trigger = async {
        // The pid file is written by the command: wait for it to exist, then abort.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !std::fs::read_to_string(&pid_file).is_ok_and(|p| p.ends_with('\n'))
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        cancel.cancel();
        Instant::now()
    };
    let (result, cancelled_at) = tokio::join!(call, trigger);
    assert!(
        cancelled_at.elapsed() < Duration::from_millis(250),
        "returned late: {:?}",
        cancelled_at.elapsed()
    );
    assert_eq!(
        result.unwrap_err().message,
        "Command was interrupted by the user."
    );
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(wait_gone(pid).await, "sleep {pid} survived the abort");
}

#[tokio::test]
async fn leftover_background_processes_die_with_the_command() {
    let s = Session::new();
    let out = s
        .ok(
            "Bash",
            json!({"command": "sleep 100 >/dev/null 2>&1 & echo $!"}),
        )
        .await;
    let pid: i32 = out.trim().parse().unwrap();
    assert!(wait_gone(pid).await, "sleep {pid} outlived its command");
}

#[tokio::test]
async fn background_output_is_read_incrementally() {
    let s = Session::new();
    let go = s.path("go");
    let command = format!(
        "echo first; while [ ! -e {} ]; do sleep 0.02; done; echo second; exit 4",
        go.display()
    );
    let out = s
        .call(
            "Bash",
            json!({"command": command, "run_in_background": true}),
        )
        .await
        .unwrap();
    let id = out
        .structured
        .as_ref()
        .and_then(|v| v["backgroundTaskId"].as_str())
        .unwrap()
        .to_string();
    assert_eq!(id.len(), 9);
    assert!(id.starts_with('b'));
    let output_file = s.session_dir.join("tasks").join(format!("{id}.output"));
    assert_eq!(
        out.content.to_text(),
        format!(
            "Command running in background with ID: {id}. Output is being written to: {}",
            output_file.display()
        )
    );
    let tasks_mode = std::fs::metadata(s.session_dir.join("tasks"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(tasks_mode, 0o700);
    assert_eq!(
        std::fs::metadata(&output_file)
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600
    );

    // Poll without blocking until the first line is there.
    let deadline = Instant::now() + Duration::from_secs(10);
    let first = loop {
        let text = s
            .ok("TaskOutput", json!({"task_id": id, "block": false}))
            .await;
        if text.contains("<output>") || Instant::now() > deadline {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(
        first,
        format!(
            "<task_id>{id}</task_id>\n\n<status>running</status>\n\n<output>\nfirst\n</output>"
        )
    );

    std::fs::write(&go, "").unwrap();
    let second = s
        .ok("TaskOutput", json!({"task_id": id, "timeout": 10000}))
        .await;
    assert_eq!(
        second,
        format!(
            "<task_id>{id}</task_id>\n\n<status>failed</status>\n\n<exit_code>4</exit_code>\n\n<output>\nsecond\n</output>"
        )
    );
    let third = s.ok("BashOutput", json!({"bash_id": id})).await;
    assert_eq!(
        third,
        format!(
            "<task_id>{id}</task_id>\n\n<status>failed</status>\n\n<exit_code>4</exit_code>\n\n(no new output)"
        )
    );
}

#[tokio::test]
async fn task_output_filter() {
    let s = Session::new();
    let out = s
        .call(
            "Bash",
            json!({"command": "printf 'a1\\nb2\\na3\\n'", "run_in_background": true}),
        )
        .await
        .unwrap();
    let id = out
        .structured
        .as_ref()
        .and_then(|v| v["backgroundTaskId"].as_str())
        .unwrap()
        .to_string();
    assert_eq!(
        s.ok("TaskOutput", json!({"task_id": id, "filter": "^a"}))
            .await,
        format!(
            "<task_id>{id}</task_id>\n\n<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\na1\na3\n</output>"
        )
    );
    assert_eq!(
        s.err("TaskOutput", json!({"task_id": id, "filter": "("}))
            .await
            .lines()
            .next(),
        Some("Invalid filter regex: regex parse error:")
    );
}

#[tokio::test]
async fn task_stop_kills_the_task_group() {
    let s = Session::new();
    let pid_file = s.path("bgpid");
    let command = format!(
        r#"trap "" TERM; sleep 100 & echo $! > {}; wait"#,
        pid_file.display()
    );
    let out = s
        .call(
            "Bash",
            json!({"command": command, "run_in_background": true}),
        )
        .await
        .unwrap();
    let id = out
        .structured
        .as_ref()
        .and_then(|v| v["backgroundTaskId"].as_str())
        .unwrap()
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(&pid_file).is_ok_and(|p| p.ends_with('\n'))
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();

    // Legacy name and legacy field.
    assert_eq!(
        s.ok("KillShell", json!({"shell_id": id})).await,
        format!("Successfully stopped task: {id} ({command})")
    );
    assert!(wait_gone(pid).await, "sleep {pid} survived TaskStop");
    assert!(
        s.ok("TaskOutput", json!({"task_id": id}))
            .await
            .contains("<status>killed</status>")
    );
    assert_eq!(
        s.err("TaskStop", json!({"task_id": id})).await,
        format!("Task {id} is not running (status: killed).")
    );
    assert_eq!(
        s.err("TaskStop", json!({"task_id": "bnope0000"})).await,
        "No task found with ID: bnope0000"
    );
    assert_eq!(
        s.err("TaskStop", json!({})).await,
        "`task_id` is required: the id of the background task to stop."
    );
}

#[tokio::test]
async fn dropping_the_tools_kills_running_tasks() {
    let s = Session::new();
    let pid_file = s.path("bgpid");
    let command = format!("sleep 100 & echo $! > {}; wait", pid_file.display());
    s.call(
        "Bash",
        json!({"command": command, "run_in_background": true}),
    )
    .await
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(&pid_file).is_ok_and(|p| p.ends_with('\n'))
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    drop(s);
    assert!(wait_gone(pid).await, "sleep {pid} outlived the session");
}
