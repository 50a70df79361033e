//! The Kubernetes Indexed Job (`integrations/kubernetes/job.yaml`, issue 26):
//! valid against the Kubernetes schemas (kubernetes-validate, strict, from
//! `.ci/install-integrations.sh`), and its container's command line, run here
//! once per completion index as the kubelet would expand it, completes every
//! task exactly once across the shards.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};
use yaml_rust2::Yaml;

use tack_testkit::installed::integrations_venv;

fn manifest() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../integrations/kubernetes/job.yaml");
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn the_manifest_is_valid_kubernetes_and_a_broken_one_is_not() {
    let Some(venv) = integrations_venv("kubernetes_validate") else {
        return;
    };
    let validate = |text: &str| {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("job.yaml");
        std::fs::write(&file, text).unwrap();
        Command::new(venv.join("bin/kubernetes-validate"))
            .args(["--strict", "--quiet"])
            .arg(&file)
            .output()
            .unwrap()
    };
    let good = validate(&manifest());
    assert!(
        good.status.success(),
        "{}{}",
        common::stdout(&good),
        common::stderr(&good)
    );
    let broken = manifest().replace(
        "completionMode: Indexed",
        "completionMode: Indexed\n  completionz: 3",
    );
    assert!(!validate(&broken).status.success());
}

/// The Job's container: command + args, its env entries with plain values,
/// and its completion count.
fn job_container() -> (Vec<String>, Vec<(String, String)>, usize) {
    let docs = tack_config::load_yaml(&manifest()).unwrap();
    let job = docs
        .iter()
        .find(|d| d["kind"].as_str() == Some("Job"))
        .unwrap();
    let completions = job["spec"]["completions"].as_i64().unwrap() as usize;
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    let strings = |y: &Yaml| -> Vec<String> {
        y.as_vec()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    let mut argv = strings(&container["command"]);
    argv.extend(strings(&container["args"]));
    let env = (container["env"].as_vec().unwrap().iter())
        .filter_map(|e| {
            Some((
                e["name"].as_str()?.to_owned(),
                e["value"].as_str()?.to_owned(),
            ))
        })
        .collect();
    (argv, env, completions)
}

#[tokio::test(flavor = "multi_thread")]
async fn every_index_of_the_job_runs_its_shard_and_together_they_run_every_task() {
    const TASKS: usize = 7;
    let id = |i: usize| format!("k{i}");
    let routes = (0..TASKS).map(|i| {
        (
            format!("task {}:", id(i)),
            vec![Reply::text(&format!("done {}", id(i)))],
        )
    });
    let env = Env::new(Script::routed(routes)).await;
    let root = env.cwd();
    for dir in ["tasks", "results", "project"] {
        std::fs::create_dir(root.join(dir)).unwrap();
    }
    let tasks: String = (0..TASKS)
        .map(|i| {
            format!(
                "{}\n",
                json!({"id": id(i), "prompt": format!("task {}: go", id(i)), "cwd": "../project"})
            )
        })
        .collect();
    std::fs::write(root.join("tasks/tasks.jsonl"), tasks).unwrap();

    let (argv, pod_env, completions) = job_container();
    assert_eq!((argv[0].as_str(), completions), ("tack", 4));
    let local = |s: &str, index: usize| {
        s.replace("$(JOB_COMPLETION_INDEX)", &index.to_string())
            .replace("/tasks/", &format!("{}/tasks/", root.display()))
            .replace("/results/", &format!("{}/results/", root.display()))
            .replace("/work", &format!("{}/work-{index}", root.display()))
    };
    for index in 0..completions {
        let mut tack = Command::new(assert_cmd::cargo::cargo_bin("tack"));
        tack.env_clear()
            .envs(env.vars())
            .current_dir(&root)
            .args(argv[1..].iter().map(|a| local(a, index)));
        for (name, value) in &pod_env {
            if name != "HOME" {
                tack.env(name, local(value, index));
            }
        }
        let out = tack.output().unwrap();
        assert!(
            out.status.success(),
            "index {index}: {}",
            common::stderr(&out)
        );
    }
    let mut ids = Vec::new();
    for index in 0..completions {
        let text =
            std::fs::read_to_string(root.join(format!("results/results-{index}.jsonl"))).unwrap();
        for line in text.lines() {
            let result: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(result["status"], json!("success"), "{result}");
            ids.push(result["id"].as_str().unwrap().to_owned());
        }
        // Each shard's transcripts went to its own folder under the results.
        assert!(
            root.join(format!("results/sessions-{index}/projects"))
                .is_dir()
        );
    }
    let unique: BTreeSet<String> = ids.iter().cloned().collect();
    assert_eq!((ids.len(), unique), (TASKS, (0..TASKS).map(id).collect()));
}
