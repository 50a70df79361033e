//! `tack batch` end to end (issue 26): 20 tasks, 4 at a time, against the
//! scripted server; killed with SIGKILL half-way, rerun, and every task ends
//! with one result, its worktree gone and a patch that applies to the base.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Env, git};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

const TASKS: usize = 20;

fn task_id(i: usize) -> String {
    format!("t{i:02}")
}

/// What the model does for a task: edit the tracked file and add one of its
/// own (slowly, so the batch can be killed while tasks run), then answer.
fn replies(id: &str) -> Vec<Reply> {
    let command = format!("sleep 0.2; echo {id} >> base.txt; echo {id} > answer-{id}.txt");
    vec![
        Reply::tool_use("b1", "Bash", json!({"command": command})),
        Reply::text(&format!("done {id}")),
    ]
}

fn marker(id: &str) -> String {
    format!("task {id}:")
}

/// Processes whose working folder is inside `dir`.
pub(crate) fn sessions_in(dir: &Path) -> usize {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    procs
        .flatten()
        .filter(|p| std::fs::read_link(p.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(dir)))
        .count()
}

/// The whole lines of a results file: a line still being written (read
/// while the batch appends it), or cut by a kill, is not one yet; the batch
/// cuts a torn last line itself when it opens the file again.
pub(crate) fn results(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let whole = text.rfind('\n').map_or("", |end| &text[..end]);
    whole
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn batch(env: &Env, out: &Path) -> Command {
    batch_with(env, out, &[])
}

/// `tack batch` with `extra` flags of its own.
fn batch_with(env: &Env, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("tack"));
    cmd.env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .args(["batch", "tasks.jsonl", "--parallel", "4", "--out"])
        .arg(out)
        .args(extra)
        .args(["--max-turns", "5", "--timeout", "60", "--"])
        .args(["--permission-mode", "bypassPermissions"]);
    cmd
}

#[tokio::test(flavor = "multi_thread")]
async fn twenty_tasks_killed_half_way_then_resumed() {
    let routes = (0..TASKS).map(|i| (marker(&task_id(i)), replies(&task_id(i))));
    let env = Env::new(Script::routed(routes)).await;
    let repo = env.cwd().join("repo");
    std::fs::create_dir(&repo).unwrap();
    common::git_repo_with(&repo, "base.txt", "base\n");
    let base = git(&repo, &["rev-parse", "HEAD"]);
    let tasks: String = (0..TASKS)
        .map(|i| {
            let id = task_id(i);
            let prompt = format!("{} note yourself in the files", marker(&id));
            let line = json!({"id": id, "prompt": prompt, "repo": "repo", "commit": base});
            format!("{line}\n")
        })
        .collect();
    std::fs::write(env.cwd().join("tasks.jsonl"), tasks).unwrap();
    let out = env.cwd().join("results.jsonl");

    // First run: killed with SIGKILL once a few tasks are done.
    let mut first = batch(&env, &out).stderr(Stdio::null()).spawn().unwrap();
    let waited = Instant::now();
    while results(&out).len() < 6 {
        assert!(waited.elapsed() < Duration::from_secs(60), "no progress");
        assert!(first.try_wait().unwrap().is_none(), "the batch ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    first.kill().unwrap();
    first.wait().unwrap();
    // Its sessions die with it (PR_SET_PDEATHSIG), but not in the same
    // instant: one still running could take a reply meant for the rerun.
    let work = env.cwd().join("results.jsonl.worktrees");
    while sessions_in(&work) > 0 {
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "sessions outlived the batch"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let after_kill = results(&out);
    assert!(
        after_kill.len() < TASKS,
        "killed too late: {}",
        after_kill.len()
    );

    // The tasks not finished start over with a fresh script.
    let finished: BTreeSet<String> = (after_kill.iter())
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    for i in 0..TASKS {
        if !finished.contains(&task_id(i)) {
            env.server
                .set_route(&marker(&task_id(i)), replies(&task_id(i)));
        }
    }
    let second = batch(&env, &out).output().unwrap();
    assert!(second.status.success(), "{}", common::stderr(&second));

    let all = results(&out);
    let ids: Vec<String> = all
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    let unique: BTreeSet<String> = ids.iter().cloned().collect();
    let expected: BTreeSet<String> = (0..TASKS).map(task_id).collect();
    assert_eq!((ids.len(), unique), (TASKS, expected));

    for result in &all {
        let id = result["id"].as_str().unwrap();
        assert_eq!(
            (&result["status"], &result["instance_id"], &result["result"]),
            (&json!("success"), &json!(id), &json!(format!("done {id}"))),
            "{result}"
        );
        assert_eq!(result["num_turns"], json!(2));
        // The transcript is where the result says.
        let transcript = Path::new(result["transcript"].as_str().unwrap());
        assert!(transcript.is_file(), "{}", transcript.display());
        // The patch applies to the base and makes exactly the task's changes.
        let patch = result["model_patch"].as_str().unwrap();
        let check = env.cwd().join(format!("{id}.diff"));
        std::fs::write(&check, patch).unwrap();
        git(&repo, &["apply", "--check", check.to_str().unwrap()]);
        assert!(patch.contains(&format!("+{id}\n")), "{patch}");
        assert!(patch.contains(&format!("answer-{id}.txt")), "{patch}");
    }

    // Every worktree is gone: the folders and git's records of them.
    let work = env.cwd().join("results.jsonl.worktrees");
    let left: Vec<_> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, Vec::<std::ffi::OsString>::new());
    git(&repo, &["worktree", "prune"]);
    let listed = git(&repo, &["worktree", "list", "--porcelain"]);
    assert_eq!(listed.matches("worktree ").count(), 1, "{listed}");
    // The repository itself is untouched.
    assert_eq!(
        std::fs::read_to_string(repo.join("base.txt")).unwrap(),
        "base\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_folder_outside_git_runs_in_a_copy_and_a_finished_batch_reruns_nothing() {
    let env = Env::new(Script::routed([(
        marker("solo"),
        vec![
            Reply::tool_use("b1", "Bash", json!({"command": "echo new > made.txt"})),
            Reply::text("made"),
        ],
    )]))
    .await;
    let folder = env.cwd().join("plain");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("keep.txt"), "kept\n").unwrap();
    let line =
        json!({"id": "solo", "prompt": format!("{} make it", marker("solo")), "cwd": "plain"});
    std::fs::write(env.cwd().join("tasks.jsonl"), format!("{line}\n")).unwrap();
    let out = env.cwd().join("r.jsonl");

    let first = batch(&env, &out).output().unwrap();
    assert!(first.status.success(), "{}", common::stderr(&first));
    let all = results(&out);
    assert_eq!((all.len(), &all[0]["status"]), (1, &json!("success")));
    let patch = all[0]["model_patch"].as_str().unwrap();
    assert!(
        patch.contains("made.txt") && patch.contains("+new"),
        "{patch}"
    );
    // The original folder is untouched; the copy is gone.
    assert!(!folder.join("made.txt").exists());
    assert!(!env.cwd().join("r.jsonl.worktrees/solo").exists());

    // Nothing left to run: no request, the same file.
    let requests = env.server.requests().len();
    let second = batch(&env, &out).output().unwrap();
    assert!(second.status.success(), "{}", common::stderr(&second));
    assert_eq!(
        (env.server.requests().len(), results(&out).len()),
        (requests, 1)
    );
    assert!(
        common::stderr(&second).contains("1 of 1 tasks done (0 this run"),
        "{}",
        common::stderr(&second)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_tasks_file_runs_nothing_and_says_which_line() {
    let env = Env::new(Script::new([])).await;
    std::fs::write(
        env.cwd().join("tasks.jsonl"),
        "{\"id\": \"a\", \"prompt\": \"p\"}\n{\"id\": \"a\", \"prompt\": \"q\"}\n",
    )
    .unwrap();
    let out = env.cwd().join("r.jsonl");
    let run = batch(&env, &out).output().unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(
        common::stderr(&run).contains("tasks.jsonl line 2: the id \"a\" is used twice"),
        "{}",
        common::stderr(&run)
    );
    assert!(!out.exists());
    assert_eq!(env.server.requests().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn shards_split_the_tasks_by_line_position() {
    let routes = (0..5).map(|i| {
        (
            marker(&task_id(i)),
            vec![Reply::text(&format!("done {}", task_id(i)))],
        )
    });
    let env = Env::new(Script::routed(routes)).await;
    let tasks: String = (0..5)
        .map(|i| {
            format!(
                "{}\n",
                json!({"id": task_id(i), "prompt": marker(&task_id(i))})
            )
        })
        .collect();
    std::fs::write(env.cwd().join("tasks.jsonl"), tasks).unwrap();
    git(&env.cwd(), &["init", "-q", "-b", "main"]);
    let id = ["-c", "user.name=T", "-c", "user.email=t@example.com"];
    git(
        &env.cwd(),
        &[&id[..], &["commit", "-q", "--allow-empty", "-m", "base"]].concat(),
    );
    let ran = |shard: &str| {
        let out = env
            .cwd()
            .join(format!("r{}.jsonl", shard.replace('/', "-")));
        let run = batch_with(&env, &out, &["--shard", shard])
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", common::stderr(&run));
        let ids: Vec<String> = results(&out)
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect();
        BTreeSet::from_iter(ids)
    };
    assert_eq!(
        ran("0/2"),
        BTreeSet::from(["t00".into(), "t02".into(), "t04".into()])
    );
    assert_eq!(ran("1/2"), BTreeSet::from(["t01".into(), "t03".into()]));
    let bad = batch_with(&env, &env.cwd().join("x.jsonl"), &["--shard", "2/2"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        common::stderr(&bad).contains("is not INDEX/COUNT"),
        "{}",
        common::stderr(&bad)
    );
}

/// Runs `cmd` (stderr captured) until it exits, or kills it past `limit`:
/// its status (`None` when it had to be killed) and its stderr.
fn run_within(cmd: &mut Command, limit: Duration) -> (Option<std::process::ExitStatus>, String) {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut said = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut said).unwrap();
    (status, said)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_batch_on_the_same_results_file_refuses_at_once() {
    // Each task waits in its session until the test lets it go, so the
    // first batch is surely running when the second starts.
    let wait = "while [ ! -e \"$HOME/release\" ]; do sleep 0.02; done; echo x > made.txt";
    let routes = (0..3).map(|i| {
        let id = task_id(i);
        let replies = vec![
            Reply::tool_use("b1", "Bash", json!({"command": wait})),
            Reply::text(&format!("done {id}")),
        ];
        (marker(&id), replies)
    });
    let env = Env::new(Script::routed(routes)).await;
    let release = env.home.path().join("release");
    let repo = env.cwd().join("repo");
    std::fs::create_dir(&repo).unwrap();
    common::git_repo_with(&repo, "base.txt", "base\n");
    let tasks: String = (0..3)
        .map(|i| {
            let id = task_id(i);
            let line = json!({"id": id, "prompt": marker(&id), "repo": "repo"});
            format!("{line}\n")
        })
        .collect();
    std::fs::write(env.cwd().join("tasks.jsonl"), tasks).unwrap();
    let out = env.cwd().join("results.jsonl");

    let mut first = batch(&env, &out).stderr(Stdio::null()).spawn().unwrap();
    let work = env.cwd().join("results.jsonl.worktrees");
    let started = Instant::now();
    while sessions_in(&work) < 3 {
        assert!(started.elapsed() < Duration::from_secs(60), "never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    let (refused, said) = run_within(&mut batch(&env, &out), Duration::from_secs(30));
    std::fs::write(&release, "").unwrap();
    assert_eq!(refused.and_then(|s| s.code()), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "another `tack batch` is writing {} (it holds the file's lock)",
            out.display()
        )),
        "{said}"
    );
    let first = first.wait().unwrap();
    assert!(first.success(), "{first:?}");
    let ids: Vec<String> = results(&out)
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    assert_eq!(BTreeSet::from_iter(ids), (0..3).map(task_id).collect());
    for result in results(&out) {
        let patch = result["model_patch"].as_str().unwrap();
        assert_eq!(patch.matches("+++ b/made.txt").count(), 1, "{patch}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_commit_that_would_be_an_option_to_git_is_refused() {
    let env = Env::new(Script::new([])).await;
    let repo = env.cwd().join("repo");
    std::fs::create_dir(&repo).unwrap();
    common::git_repo_with(&repo, "base.txt", "base\n");
    let line = json!({"id": "a", "prompt": "p", "repo": "repo", "commit": "--output=stolen"});
    std::fs::write(env.cwd().join("tasks.jsonl"), format!("{line}\n")).unwrap();
    let out = env.cwd().join("r.jsonl");
    let run = batch(&env, &out).output().unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", common::stderr(&run));
    assert!(
        common::stderr(&run).contains(
            "tasks.jsonl line 1: `commit` \"--output=stolen\" is not a commit name (it may not be empty or start with `-`)"
        ),
        "{}",
        common::stderr(&run)
    );
    assert!(!out.exists());
    assert_eq!(env.server.requests().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fifo_for_results_is_refused_not_waited_on() {
    let env = Env::new(Script::new([])).await;
    std::fs::write(
        env.cwd().join("tasks.jsonl"),
        format!("{}\n", json!({"id": "a", "prompt": "p"})),
    )
    .unwrap();
    let out = env.cwd().join("r.jsonl");
    let c_path = std::ffi::CString::new(out.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let (status, said) = run_within(&mut batch(&env, &out), Duration::from_secs(30));
    assert_eq!(status.and_then(|s| s.code()), Some(1), "hung or: {said}");
    assert!(
        said.contains(&format!(
            "the results file {} is not a regular file",
            out.display()
        )),
        "{said}"
    );
    assert_eq!(env.server.requests().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_gigabyte_task_line_is_refused_without_reading_it_all() {
    let env = Env::new(Script::new([])).await;
    // One line of 1 GiB: a sparse file, so the test writes almost nothing.
    let tasks = std::fs::File::create(env.cwd().join("tasks.jsonl")).unwrap();
    std::io::Write::write_all(&mut &tasks, br#"{"id": "big", "prompt": ""#).unwrap();
    tasks.set_len(1 << 30).unwrap();
    drop(tasks);
    let mut cmd = common::capped_tack(&env, 2 << 30);
    cmd.args(["batch", "tasks.jsonl", "--out", "r.jsonl"]);
    let (run, peak) = common::output_and_peak_rss(cmd);
    assert_eq!(run.status.code(), Some(1), "{}", common::stderr(&run));
    assert!(
        common::stderr(&run).contains(
            "tasks.jsonl line 1: the line is longer than 16 MiB, the most a task may have"
        ),
        "{}",
        common::stderr(&run)
    );
    // Before the fix the whole line was read: over 1 GiB.
    assert!(peak < 100 << 20, "peak RSS {} MiB", peak >> 20);
    assert!(!env.cwd().join("r.jsonl").exists());
}

/// A task that ran without success, or could not start for a folder that is
/// not there, makes the batch fail, and says why; a rerun that runs nothing
/// still fails while an unsuccessful result stands.
#[tokio::test(flavor = "multi_thread")]
async fn a_task_without_success_or_a_missing_folder_fails_the_batch() {
    let env = Env::new(Script::routed([
        (
            marker("short"),
            vec![
                Reply::tool_use("b1", "Bash", json!({"command": "echo hi"})),
                Reply::text("never reached"),
            ],
        ),
        (marker("missing"), vec![Reply::text("found")]),
    ]))
    .await;
    std::fs::create_dir(env.cwd().join("plain")).unwrap();
    let short = json!({"id": "short", "prompt": format!("{} go", marker("short")), "cwd": "plain", "max_turns": 1});
    let missing =
        json!({"id": "missing", "prompt": format!("{} go", marker("missing")), "cwd": "not-here"});
    std::fs::write(
        env.cwd().join("tasks.jsonl"),
        format!("{short}\n{missing}\n"),
    )
    .unwrap();
    let out = env.cwd().join("r.jsonl");

    let run = batch(&env, &out).output().unwrap();
    let said = common::stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    let missing_folder = env.cwd().join("not-here");
    assert!(
        said.contains(&format!(
            "missing: could not start: its `cwd` {} is not a folder (no such folder)",
            missing_folder.display()
        )),
        "{said}"
    );
    assert!(!said.contains("cannot run git"), "{said}");
    let all = results(&out);
    assert_eq!(
        all.iter()
            .map(|r| (r["id"].clone(), r["status"].clone(), r["subtype"].clone()))
            .collect::<Vec<_>>(),
        vec![(json!("short"), json!("error"), json!("error_max_turns"))]
    );

    // The missing folder made, the rerun runs only that task and succeeds
    // with it; the earlier unsuccessful result still fails the batch.
    std::fs::create_dir(&missing_folder).unwrap();
    let rerun = batch(&env, &out).output().unwrap();
    let said = common::stderr(&rerun);
    assert_eq!(rerun.status.code(), Some(1), "{said}");
    assert!(
        said.contains("tack batch: 1 task did not succeed (their `status` in"),
        "{said}"
    );
}
