//! The observer hears of each command hook's start and end, paired by the id
//! it gave, with what the hook printed and how it ended.

use std::sync::{Arc, Mutex};

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_hooks::{HookEnd, HookEvent, HookLabel, HookObserver, HookRun, HookRunner, HooksConfig};
use tokio_util::sync::CancellationToken;

/// Records every call as one line.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl HookObserver for Log {
    fn started(&self, hook: &HookLabel) -> String {
        let mut log = self.0.lock().unwrap();
        let id = format!("h{}", log.len());
        log.push(format!("start {id} {} {}", hook.name, hook.event));
        id
    }

    fn finished(&self, hook_id: &str, hook: &HookLabel, run: &HookRun) {
        self.0.lock().unwrap().push(format!(
            "end {hook_id} {} {:?} {:?} {:?}",
            hook.name,
            HookEnd::of(run).as_str(),
            run.stdout,
            run.stderr
        ));
    }
}

fn runner(dir: &std::path::Path, log: &Arc<Log>) -> HookRunner {
    let hooks = json!({
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo out; echo err >&2"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "exit 2"}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": "sleep 30"}]}],
    });
    let config = HooksConfig::from_value("test", &hooks).unwrap();
    HookRunner::new(config, dir, "s1", &dir.join("t.jsonl")).with_observer(log.clone())
}

#[tokio::test]
async fn each_command_hook_is_reported_when_it_starts_and_ends() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(Log::default());
    let r = runner(dir.path(), &log);
    let never = CancellationToken::new();
    let pre = HookEvent::PreToolUse {
        tool_name: "Bash".into(),
        tool_input: json!({"command": "ls"}),
        tool_use_id: "t1".into(),
    };
    r.run(&pre, &never).await;
    let stop = HookEvent::Stop {
        stop_hook_active: false,
        last_assistant_message: None,
        session_crons: None,
    };
    r.run(&stop, &never).await;
    // No hook matches a Read: nothing to report.
    let read = HookEvent::PreToolUse {
        tool_name: "Read".into(),
        tool_input: json!({}),
        tool_use_id: "t2".into(),
    };
    r.run(&read, &never).await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let start = HookEvent::SessionStart {
        source: "startup".into(),
        model: None,
    };
    r.run(&start, &cancel).await;
    assert_eq!(
        *log.0.lock().unwrap(),
        [
            "start h0 PreToolUse:Bash PreToolUse",
            r#"end h0 PreToolUse:Bash "success" "out\n" "err\n""#,
            "start h2 Stop Stop",
            r#"end h2 Stop "error" "" """#,
            "start h4 SessionStart:startup SessionStart",
            r#"end h4 SessionStart:startup "cancelled" "" """#,
        ]
    );
}
