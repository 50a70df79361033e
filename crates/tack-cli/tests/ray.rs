//! The Ray integration (`integrations/ray/tack_ray.py`, issue 26) on a real
//! local Ray cluster (`ray start --head`, PyPI `ray`, installed by
//! `.ci/install-integrations.sh`): the same 20 tasks as `tack batch`'s test, one Ray
//! task each, results gathered by the driver; a rerun finds nothing left.
//! Without the install the test says why and passes, unless
//! `TACK_REQUIRE_INTEGRATIONS` is set (`.ci/run` sets it).

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::installed::integrations_venv;
use tack_testkit::{Reply, Script};

/// `ray start --head --block`: the cluster lives as long as this process;
/// dropping it stops what it started (and nothing else on the machine).
struct Cluster(Child);

impl Drop for Cluster {
    fn drop(&mut self) {
        let pid = self.0.id() as i32;
        // SAFETY: plain kill(2) on the group this test made.
        unsafe { libc::kill(-pid, libc::SIGTERM) };
        let waited = Instant::now();
        while self.0.try_wait().unwrap().is_none() && waited.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(100));
        }
        // SAFETY: as above: kill(2) on this test's group touches no memory.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn start_cluster(ray: &Path, temp: &Path) -> (Cluster, String) {
    use std::os::unix::process::CommandExt;
    let port = free_port();
    let child = Command::new(ray.join("bin/ray"))
        .args([
            "start",
            "--head",
            "--block",
            "--num-cpus=4",
            "--include-dashboard=false",
        ])
        .args(["--disable-usage-stats", "--node-ip-address=127.0.0.1"])
        .arg(format!("--port={port}"))
        .arg(format!("--temp-dir={}", temp.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let cluster = Cluster(child);
    let address = format!("127.0.0.1:{port}");
    // Ready once the GCS answers.
    let started = Instant::now();
    loop {
        let status = Command::new(ray.join("bin/ray"))
            .args(["status", "--address", &address])
            .output()
            .unwrap();
        if status.status.success() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "the Ray cluster did not start"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    (cluster, address)
}

const TASKS: usize = 20;

#[tokio::test(flavor = "multi_thread")]
async fn twenty_tasks_on_a_local_ray_cluster() {
    let Some(ray) = integrations_venv("ray") else {
        return;
    };
    let id = |i: usize| format!("t{i:02}");
    let marker = |id: &str| format!("task {id}:");
    let routes = (0..TASKS).map(|i| {
        let command = format!("echo {} > answer-{}.txt", id(i), id(i));
        let replies = vec![
            Reply::tool_use("b1", "Bash", json!({"command": command})),
            Reply::text(&format!("done {}", id(i))),
        ];
        (marker(&id(i)), replies)
    });
    let env = Env::new(Script::routed(routes)).await;
    let repo = env.cwd().join("repo");
    std::fs::create_dir(&repo).unwrap();
    common::git_repo_with(&repo, "base.txt", "base\n");
    let tasks: String = (0..TASKS)
        .map(|i| {
            let line =
                json!({"id": id(i), "prompt": format!("{} go", marker(&id(i))), "repo": "repo"});
            format!("{line}\n")
        })
        .collect();
    std::fs::write(env.cwd().join("tasks.jsonl"), tasks).unwrap();

    // A short folder: Ray's Unix sockets live under its temp dir.
    let temp = tempfile::Builder::new()
        .prefix("r")
        .tempdir_in("/tmp")
        .unwrap();
    let (_cluster, address) = start_cluster(&ray, temp.path());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../integrations/ray/tack_ray.py");
    let tack = assert_cmd::cargo::cargo_bin("tack");
    let run = || {
        Command::new(ray.join("bin/python"))
            .arg(&script)
            .args([
                "tasks.jsonl",
                "--out",
                "results.jsonl",
                "--address",
                &address,
            ])
            .arg("--tack")
            .arg(&tack)
            .args([
                "--",
                "--max-turns",
                "5",
                "--",
                "--permission-mode",
                "bypassPermissions",
            ])
            .env_clear()
            .envs(env.vars())
            .current_dir(env.cwd())
            .output()
            .unwrap()
    };
    let first = run();
    assert!(first.status.success(), "{}", common::stderr(&first));
    let results: Vec<Value> = std::fs::read_to_string(env.cwd().join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: BTreeSet<String> = results
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!((results.len(), ids), (TASKS, (0..TASKS).map(id).collect()));
    for result in &results {
        let id = result["id"].as_str().unwrap();
        assert_eq!(result["status"], json!("success"), "{result}");
        let patch = result["model_patch"].as_str().unwrap();
        assert!(
            patch.contains(&format!("answer-{id}.txt")) && patch.contains(&format!("+{id}")),
            "{patch}"
        );
    }
    // Every task was a session of its own against the scripted server.
    assert_eq!(env.server.requests().len(), 2 * TASKS);

    // A rerun: nothing left, nothing asked.
    let second = run();
    assert!(second.status.success(), "{}", common::stderr(&second));
    assert!(
        common::stderr(&second)
            .contains("20 of 20 tasks done (0 this run, 0 not successful, 0 lost"),
        "{}",
        common::stderr(&second)
    );
    assert_eq!(env.server.requests().len(), 2 * TASKS);
}
