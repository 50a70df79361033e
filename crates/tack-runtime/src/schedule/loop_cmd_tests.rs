use pretty_assertions::assert_eq;

use super::*;

fn every(cron: &str, asked: &str, rounded: Option<&str>) -> Option<Every> {
    Some(Every {
        cron: cron.into(),
        asked: asked.into(),
        rounded: rounded.map(str::to_owned),
    })
}

#[test]
fn intervals_become_cron_rounded_to_what_it_can_say() {
    let got: Vec<LoopArgs> = [
        "1m check the build",
        "5m /review 42",
        "30s ping",
        "7m odd",
        "2h tidy",
        "90m long",
        "1d daily",
        "check the deploy every 10m",
        "check the deploy",
        "",
        "5x not an interval",
    ]
    .iter()
    .map(|a| parse(a))
    .collect();
    let args = |every: Option<Every>, prompt: &str| LoopArgs {
        every,
        prompt: prompt.into(),
    };
    assert_eq!(
        got,
        [
            args(every("* * * * *", "1m", None), "check the build"),
            args(every("*/5 * * * *", "5m", None), "/review 42"),
            args(every("* * * * *", "30s", Some("1m")), "ping"),
            args(every("*/6 * * * *", "7m", Some("6m")), "odd"),
            args(every("0 */2 * * *", "2h", None), "tidy"),
            args(every("0 */2 * * *", "90m", Some("2h")), "long"),
            args(every("0 0 * * *", "1d", None), "daily"),
            args(every("*/10 * * * *", "10m", None), "check the deploy"),
            args(None, "check the deploy"),
            args(None, ""),
            args(None, "5x not an interval"),
        ]
    );
}

#[test]
fn a_loop_without_a_prompt_reads_the_project_file_then_the_users() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let files = LoopFiles {
        project: project.path().to_path_buf(),
        home: Some(home.path().to_path_buf()),
    };
    let builtin = files.prompt();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(home.path().join(".claude/loop.md"), "the user's loop\n").unwrap();
    let users = files.prompt();
    std::fs::create_dir_all(project.path().join(".claude")).unwrap();
    std::fs::write(
        project.path().join(".claude/loop.md"),
        "the project's loop\n",
    )
    .unwrap();
    let projects = files.prompt();
    assert_eq!(
        [builtin, users, projects],
        [
            MAINTENANCE_PROMPT.to_owned(),
            "the user's loop".into(),
            "the project's loop".into()
        ]
    );
}

#[test]
fn a_wake_up_of_a_dynamic_loop_brings_its_instructions_back() {
    assert_eq!(
        [
            expand_sentinel("/loop check CI", || unreachable!()),
            expand_sentinel(DYNAMIC_SENTINEL, || "from loop.md".into()),
            expand_sentinel("just this", || unreachable!()),
            expand_sentinel("/loopy", || unreachable!()),
        ],
        [
            dynamic_message("check CI", "/loop check CI"),
            dynamic_message("from loop.md", DYNAMIC_SENTINEL),
            "just this".to_owned(),
            "/loopy".to_owned(),
        ]
    );
}
