//! `tack batch` killed at random moments (issue 35): 12 small tasks, 4 at a
//! time, the batch stopped with SIGINT (sent to its process group, as a
//! terminal's Ctrl+C is) or SIGKILL (to it alone, or to its group with its
//! `git`s), then resumed until done. Every task must end with exactly one
//! line, whose patch holds the task's edit and applies to the base, and no
//! worktree may be left, folder or git record.
//!
//! The moments are drawn from a seed printed at the start; set
//! `BATCH_KILL_SEED` to replay one. Every wait is polled against a deadline:
//! nothing here is right only because a sleep was long enough.

use crate::batch::{results, sessions_in};
use crate::common;

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{Env, git};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

const TASKS: usize = 12;
const RUNS: usize = 10;
/// Generous: under a loaded 2-core machine a whole batch takes seconds.
const DEADLINE: Duration = Duration::from_secs(120);

fn task_id(i: usize) -> String {
    format!("t{i:02}")
}

fn marker(id: &str) -> String {
    format!("task {id}:")
}

/// What the model does for a task, each reply streamed slowly enough that a
/// kill lands mid-task: read the file, edit it, answer.
fn replies(id: &str) -> Vec<Reply> {
    let pace = Duration::from_millis(10);
    let edit =
        json!({"file_path": "base.txt", "old_string": "base", "new_string": format!("base {id}")});
    vec![
        Reply::message()
            .tool_use("r1", "Read", json!({"file_path": "base.txt"}))
            .pacing(pace)
            .into(),
        Reply::message()
            .tool_use("e1", "Edit", edit)
            .pacing(pace)
            .into(),
        Reply::message()
            .text(&format!("done {id}"))
            .pacing(pace)
            .into(),
    ]
}

#[derive(Debug, Clone, Copy)]
enum Stop {
    /// SIGINT to the batch's process group: what Ctrl+C at a terminal does.
    Interrupt,
    /// SIGKILL to the batch alone (`kill -9 PID`); its `git`s live on.
    KillBatch,
    /// SIGKILL to the batch's group, its `git`s with it.
    KillGroup,
}

struct Bench {
    env: Env,
    repo: PathBuf,
}

impl Bench {
    async fn new() -> Bench {
        let routes = (0..TASKS).map(|i| (marker(&task_id(i)), replies(&task_id(i))));
        let env = Env::new(Script::routed(routes)).await;
        let repo = env.cwd().join("repo");
        std::fs::create_dir(&repo).unwrap();
        common::git_repo_with(&repo, "base.txt", "base\n");
        let tasks: String = (0..TASKS)
            .map(|i| {
                let id = task_id(i);
                let prompt = format!("{} edit the file", marker(&id));
                format!("{}\n", json!({"id": id, "prompt": prompt, "repo": "repo"}))
            })
            .collect();
        std::fs::write(env.cwd().join("tasks.jsonl"), tasks).unwrap();
        Bench { env, repo }
    }

    /// The batch on `out`, leading its own process group, its stderr in a file.
    fn start(&self, out: &Path, log: &Path) -> Child {
        let log = std::fs::File::create(log).unwrap();
        Command::new(assert_cmd::cargo::cargo_bin("tack"))
            .env_clear()
            .envs(self.env.vars())
            .current_dir(self.env.cwd())
            .args(["batch", "tasks.jsonl", "--parallel", "4", "--out"])
            .arg(out)
            .args(["--max-turns", "5", "--timeout", "60", "--"])
            .args(["--permission-mode", "bypassPermissions"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap()
    }

    /// One run: the batch stopped by `kill` once `after` tasks are done and
    /// `extra` more has passed, then resumed until it ends by itself.
    fn run(&self, n: usize, kill: Stop, after: usize, extra: Duration) {
        let out = self.env.cwd().join(format!("r{n}.jsonl"));
        let work = PathBuf::from(format!("{}.worktrees", out.display()));
        let log = self.env.cwd().join(format!("r{n}.log"));
        let what = format!("run {n}: {kill:?} after {after} done + {extra:?}");
        for i in 0..TASKS {
            let id = task_id(i);
            self.env.server.set_route(&marker(&id), replies(&id));
        }

        let mut batch = self.start(&out, &log);
        let started = Instant::now();
        while results(&out).len() < after && batch.try_wait().unwrap().is_none() {
            assert!(started.elapsed() < DEADLINE, "{what}: no progress");
            std::thread::sleep(Duration::from_millis(10));
        }
        // The moment itself: not a condition of anything checked.
        std::thread::sleep(extra);
        let pgid = -i32::try_from(batch.id()).unwrap();
        let (target, signal) = match kill {
            Stop::Interrupt => (pgid, libc::SIGINT),
            Stop::KillBatch => (-pgid, libc::SIGKILL),
            Stop::KillGroup => (pgid, libc::SIGKILL),
        };
        // SAFETY: kill(2) on the batch (or its group), which has not been reaped.
        unsafe { libc::kill(target, signal) };
        let status = wait_for(&mut batch, &what);
        let log_text = || std::fs::read_to_string(&log).unwrap_or_default();
        if let Stop::Interrupt = kill {
            // Stopped with Ctrl+C, it stops its sessions and clears up.
            assert!(
                [Some(130), Some(0)].contains(&status.code())
                    || std::os::unix::process::ExitStatusExt::signal(&status) == Some(libc::SIGINT),
                "{what}: {status:?}\n{}",
                log_text()
            );
            self.assert_no_worktree(&work, &what);
        }
        // A session not yet dead could take a reply meant for the rerun.
        while sessions_in(&work) > 0 {
            assert!(
                started.elapsed() < DEADLINE,
                "{what}: sessions outlived the batch"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let stopped = results(&out);
        self.check_lines(&stopped, &what);
        for i in 0..TASKS {
            let id = task_id(i);
            if !stopped.iter().any(|r| r["id"] == json!(id)) {
                self.env.server.set_route(&marker(&id), replies(&id));
            }
        }

        let mut resumed = self.start(&out, &log);
        let status = wait_for(&mut resumed, &what);
        assert!(
            status.success(),
            "{what}: resumed: {status:?}\n{}",
            log_text()
        );
        let all = results(&out);
        self.check_lines(&all, &what);
        let mut count = BTreeMap::new();
        for line in &all {
            *count
                .entry(line["id"].as_str().unwrap().to_owned())
                .or_insert(0) += 1;
        }
        let expected: BTreeMap<String, i32> = (0..TASKS).map(|i| (task_id(i), 1)).collect();
        assert_eq!(count, expected, "{what}");
        self.assert_no_worktree(&work, &what);
    }

    /// Each line is a task run to its end: its answer, its edit in a patch
    /// that applies to the base.
    fn check_lines(&self, lines: &[Value], what: &str) {
        for line in lines {
            let id = line["id"].as_str().unwrap();
            let seen = (&line["status"], &line["result"], &line["num_turns"]);
            let answer = json!(format!("done {id}"));
            assert_eq!(
                seen,
                (&json!("success"), &answer, &json!(3)),
                "{what}: {line}"
            );
            let patch = line["model_patch"].as_str().unwrap();
            assert!(
                patch.contains(&format!("-base\n+base {id}\n")),
                "{what}: {id}'s patch lacks its edit: {patch:?}"
            );
            let file = self.env.cwd().join(format!("{id}.diff"));
            std::fs::write(&file, patch).unwrap();
            git(&self.repo, &["apply", "--check", file.to_str().unwrap()]);
        }
    }

    /// No worktree folder under `work` and no record of one in git (not
    /// pruned first: a record whose folder is gone counts).
    fn assert_no_worktree(&self, work: &Path, what: &str) {
        let left: Vec<String> = std::fs::read_dir(work)
            .map(|dir| {
                dir.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(left, Vec::<String>::new(), "{what}: folders left");
        let listed = git(&self.repo, &["worktree", "list", "--porcelain"]);
        assert_eq!(listed.matches("worktree ").count(), 1, "{what}: {listed}");
    }
}

/// Waits (polled, bounded) for `child` to exit.
fn wait_for(child: &mut Child, what: &str) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("{what}: the batch did not end");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn rng() -> StdRng {
    let seed = std::env::var("BATCH_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    eprintln!("BATCH_KILL_SEED={seed}");
    StdRng::seed_from_u64(seed)
}

/// `RUNS` runs of `kinds`, each at a random moment: after 0 to 9 tasks are
/// done, plus up to 400 ms.
async fn killed_and_resumed(kinds: &[Stop]) {
    let bench = Bench::new().await;
    let mut rng = rng();
    for n in 0..RUNS {
        let kill = kinds[n % kinds.len()];
        let after = rng.random_range(0..10);
        let extra = Duration::from_millis(rng.random_range(0..400));
        bench.run(n, kill, after, extra);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn batch_interrupted_at_random_moments_then_resumed() {
    killed_and_resumed(&[Stop::Interrupt]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn batch_killed_at_random_moments_then_resumed() {
    killed_and_resumed(&[Stop::KillBatch, Stop::KillGroup]).await;
}
