//! The Bash sandbox end to end (issue 25): the real binary, a scripted model
//! calling Bash, and each escape blocked next to its allowed twin (the same
//! thing done inside the project, or the same command with
//! `dangerouslyDisableSandbox`). Nothing here is skipped: a kernel without
//! user namespaces, Landlock or seccomp fails these tests with the sandbox's
//! own reason.

use crate::common;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::Path;

use common::{Env, last_tool_results, lines, stderr};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// The tool results (id → text) of a request's last message.
pub(crate) fn results(body: &Value) -> BTreeMap<String, String> {
    last_tool_results(body).into_iter().collect()
}

/// A trusted project (with `.git/hooks`) whose settings are `settings`.
pub(crate) async fn project(script: Script, settings: Value) -> Env {
    let env = Env::new(script).await;
    std::fs::create_dir_all(env.cwd().join(".git/hooks")).unwrap();
    std::fs::write(env.cwd().join(".git/config"), "[core]\n").unwrap();
    let path = env.cwd().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, settings.to_string()).unwrap();
    env.trust();
    env
}

pub(crate) fn bash(id: &str, command: &str) -> (String, Value) {
    (id.to_owned(), json!({"command": command}))
}

fn unsandboxed(id: &str, command: &str) -> (String, Value) {
    (
        id.to_owned(),
        json!({"command": command, "dangerouslyDisableSandbox": true}),
    )
}

/// Runs `tack -p` with `extra_args`; returns its output and the results of
/// each scripted message of Bash calls.
pub(crate) async fn run(
    env: &Env,
    extra_args: &[&str],
) -> (std::process::Output, Vec<BTreeMap<String, String>>) {
    let mut cmd = env.tack();
    cmd.args(extra_args);
    run_command(env, cmd)
}

/// [`run`], with `cmd` (a `tack` of `env`) as given.
pub(crate) fn run_command(
    env: &Env,
    mut cmd: assert_cmd::Command,
) -> (std::process::Output, Vec<BTreeMap<String, String>>) {
    let out = cmd
        .args(["-p", "go", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let bodies = env.request_bodies();
    let all = bodies.iter().skip(1).map(results).collect();
    (out, all)
}

/// [`run`] with the sandbox forced unavailable (the variable is set on the
/// spawned binary only).
fn run_unavailable(env: &Env) -> (std::process::Output, Vec<BTreeMap<String, String>>) {
    let mut cmd = env.tack();
    cmd.env("TACK_SANDBOX_FORCE_UNAVAILABLE", "1");
    run_command(env, cmd)
}

pub(crate) fn script(messages: Vec<Vec<(String, Value)>>) -> Script {
    let mut replies: Vec<Reply> = Vec::new();
    for calls in messages {
        let mut m = Reply::message();
        for (id, input) in calls {
            m = m.tool_use(&id, "Bash", input);
        }
        replies.push(m.into());
    }
    replies.push(Reply::text("done"));
    Script::new(replies)
}

/// A folder outside the project (and outside every writable tree).
fn outside() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().canonicalize().unwrap();
    (dir, path)
}

fn exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

#[tokio::test(flavor = "multi_thread")]
async fn filesystem_escapes_are_blocked_with_bash_allowed_and_their_twins_work() {
    let (_keep, out_dir) = outside();
    let secret = out_dir.join("secret.txt");
    std::fs::write(&secret, "s3cret\n").unwrap();
    std::fs::write(out_dir.join("public.txt"), "public\n").unwrap();
    let out = out_dir.display();
    let calls = vec![
        bash("write_out", &format!("echo x > {out}/f; echo rc=$?")),
        bash("write_in", "echo x > inside.txt; echo rc=$?"),
        bash("hook", "echo evil > .git/hooks/pre-commit; echo rc=$?"),
        bash("git_config", "echo '[alias]' >> .git/config; echo rc=$?"),
        bash("git_other", "echo ok > .git/description; echo rc=$?"),
        bash("deny_write", "echo x >> locked.txt; echo rc=$?"),
        bash("settings", "echo '{}' > .claude/settings.json; echo rc=$?"),
        bash(
            "settings_new",
            "echo '{}' > .claude/settings.local.json; echo rc=$?",
        ),
        bash(
            "read_denied",
            &format!("cat {}; echo rc=$?", secret.display()),
        ),
        bash("read_public", &format!("cat {out}/public.txt")),
        bash(
            "planted",
            &format!("ln -s {out} planted && echo x > planted/via-link; echo rc=$?"),
        ),
        bash(
            "planted_in",
            "mkdir sub && ln -s sub link && echo x > link/f && cat sub/f",
        ),
        // A folder swapped for a symlink to the outside while written through.
        bash(
            "swap",
            &format!(
                "(for i in $(seq 300); do rm -rf d; ln -s {out} d; rm -f d; mkdir d; done) 2>/dev/null & \
                 for i in $(seq 300); do {{ echo x > d/f$i; }} 2>/dev/null; done; wait; echo swapped"
            ),
        ),
    ];
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true, "filesystem": {
            "denyRead": [format!("/{}", secret.display())],
            "denyWrite": ["./locked.txt"],
        }},
    });
    let env = project(script(vec![calls]), settings).await;
    std::fs::write(env.cwd().join("locked.txt"), "kept\n").unwrap();
    let (_, results) = run(&env, &[]).await;
    let r = &results[0];
    let cwd = env.cwd();
    let denied = |what: &str| refused(what, false);
    let read_only = |what: &str| refused(what, true);
    let got: BTreeMap<&str, String> = (r.iter())
        .map(|(k, v)| (k.as_str(), cut_note(v).to_owned()))
        .collect();
    let expected = BTreeMap::from([
        ("write_out", denied(&format!("{out}/f"))),
        ("write_in", "rc=0".to_owned()),
        ("hook", read_only(".git/hooks/pre-commit")),
        ("git_config", read_only(".git/config")),
        // The whole git dir: what git runs can be named from any file in it.
        ("git_other", read_only(".git/description")),
        ("deny_write", read_only("locked.txt")),
        ("settings", read_only(".claude/settings.json")),
        ("settings_new", read_only(".claude/settings.local.json")),
        ("read_denied", "rc=0".to_owned()),
        ("read_public", "public".to_owned()),
        ("planted", denied("planted/via-link")),
        ("planted_in", "x".to_owned()),
        ("swap", "swapped".to_owned()),
    ]);
    assert_eq!(got, expected);
    assert!(!exists(&out_dir.join("f")));
    assert!(!exists(&out_dir.join("via-link")));
    assert!(!exists(&cwd.join(".git/hooks/pre-commit")));
    assert_eq!(
        std::fs::read_to_string(cwd.join(".git/config")).unwrap(),
        "[core]\n"
    );
    let stray: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        stray.len(),
        2,
        "written outside through a swapped link: {stray:?}"
    );
    assert!(exists(&cwd.join("inside.txt")));
    assert_eq!(
        std::fs::read_to_string(cwd.join("locked.txt")).unwrap(),
        "kept\n"
    );
}

/// Waits until each `sleep N` has started (so it has left its process
/// group, if it does), then says "started".
fn started(seconds: &[&str]) -> String {
    let waits: Vec<String> = seconds
        .iter()
        .map(|n| format!("until pgrep -f '^sleep {n}$' >/dev/null; do sleep 0.02; done"))
        .collect();
    format!("{}; echo started", waits.join("; "))
}

/// Python one-liners run by the sandboxed shell.
fn py(code: &str) -> String {
    format!("python3 -c '{code}' 2>&1 | tail -1")
}

#[tokio::test(flavor = "multi_thread")]
async fn process_and_network_escapes_are_blocked_and_their_unsandboxed_twins_work() {
    let (_keep, out_dir) = outside();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = py(&format!(
        "import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=2); print(\"connected\")"
    ));
    let dev_tcp =
        format!("(echo > /dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo open || echo closed");
    let curl = format!("curl -s -o /dev/null -m 2 http://127.0.0.1:{port}/; echo curl=$?");
    let attach = py(
        "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); \
         r = libc.ptrace(16, os.getppid(), 0, 0); print(r, ctypes.get_errno())",
    );
    let setuid = "cp /usr/bin/id ./suid-id && chown 65534 ./suid-id && chmod u+s ./suid-id";
    let first = vec![
        bash("connect", &connect),
        unsandboxed("connect_twin", &connect),
        bash("dev_tcp", &dev_tcp),
        unsandboxed("dev_tcp_twin", &dev_tcp),
        bash("curl", &curl),
        // Inside, loopback is the namespace's own: a local server works.
        bash(
            "local_server",
            &py(
                "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 8765)); s.listen(); socket.create_connection((\"127.0.0.1\", 8765)); print(\"local ok\")",
            ),
        ),
        bash(
            "dns",
            &py("import socket; socket.getaddrinfo(\"example.com\", 443)"),
        ),
        bash(
            "route",
            &py(
                "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect((\"192.0.2.1\", 53))",
            ),
        ),
        bash("ptrace_parent", &attach),
        bash(
            "parent_mem",
            "head -c1 /proc/$PPID/mem >/dev/null 2>&1; echo rc=$?",
        ),
        // Its own PID namespace: the shell's parent is the namespace's init.
        bash("pids", "echo $PPID"),
        // Its own session (no controlling terminal), its own ptys, no way
        // to push input into a terminal.
        bash(
            "tty",
            "cat /dev/tty 2>/dev/null; echo tty=$? sid=$(( $(cut -d' ' -f6 /proc/$$/stat) == $$ )); ls /dev/pts",
        ),
        bash(
            "tiocsti",
            &py(
                "import fcntl, os, termios; fd = os.open(\"/dev/ptmx\", os.O_RDWR); fcntl.ioctl(fd, termios.TIOCSTI, b\"x\")",
            ),
        ),
        unsandboxed("setuid_prep", setuid),
        bash("setuid", "./suid-id -u; grep CapEff /proc/self/status"),
        unsandboxed("setuid_twin", "./suid-id -u"),
        bash(
            "bg",
            &format!(
                "sleep 3001 & nohup sleep 3011 >/dev/null 2>&1 & setsid sleep 3021 & {}",
                started(&["3001", "3011", "3021"])
            ),
        ),
        unsandboxed(
            "bg_twin",
            &format!("setsid sleep 3031 >/dev/null 2>&1 & {}", started(&["3031"])),
        ),
        // A `run_in_background` shell is confined the same way.
        (
            "bg_task".to_owned(),
            json!({
                "command": format!("touch {}/bg-task; echo rc=$? > bg-task.txt", out_dir.display()),
                "run_in_background": true,
            }),
        ),
    ];
    let second = vec![
        bash(
            "bg_task_done",
            "for i in $(seq 50); do [ -s bg-task.txt ] && break; sleep 0.1; done; cat bg-task.txt",
        ),
        unsandboxed(
            "left",
            "pgrep -a -x sleep | awk '$3 ~ /^30[0-3]1$/ {print $3}' | sort",
        ),
    ];
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true},
    });
    let env = project(script(vec![first, second]), settings).await;
    std::thread::spawn(move || listener.incoming().for_each(drop));
    let (_, results) = run(&env, &[]).await;
    let mut got = trimmed(&results);
    // The task's id and output file vary.
    let task = got[0].remove("bg_task").unwrap();
    assert!(
        task.starts_with("Command running in background with ID: "),
        "{task}"
    );
    let expected = vec![
        BTreeMap::from([
            (
                "connect",
                "ConnectionRefusedError: [Errno 111] Connection refused",
            ),
            ("connect_twin", "connected"),
            ("dev_tcp", "closed"),
            ("dev_tcp_twin", "open"),
            ("curl", "curl=7"),
            ("local_server", "local ok"),
            (
                "dns",
                "socket.gaierror: [Errno -3] Temporary failure in name resolution",
            ),
            ("route", "OSError: [Errno 101] Network is unreachable"),
            ("ptrace_parent", "-1 1"),
            ("parent_mem", "rc=1"),
            ("pids", "1"),
            ("tty", "tty=1 sid=1\nptmx"),
            (
                "tiocsti",
                "PermissionError: [Errno 1] Operation not permitted",
            ),
            ("setuid_prep", "(no output)"),
            ("setuid", "0\nCapEff:\t0000000000000000"),
            ("setuid_twin", "65534"),
            ("bg", "started"),
            ("bg_twin", "started"),
        ]),
        BTreeMap::from([("bg_task_done", "rc=1"), ("left", "3031")]),
    ];
    assert_eq!(got, expected);
}

/// Each result trimmed, and the sandbox's note cut before its list of
/// writable folders (which names the session's temp dir).
pub(crate) fn trimmed(results: &[BTreeMap<String, String>]) -> Vec<BTreeMap<&str, &str>> {
    results
        .iter()
        .map(|r| r.iter().map(|(k, v)| (k.as_str(), cut_note(v))).collect())
        .collect()
}

pub(crate) fn cut_note(text: &str) -> &str {
    let text = text.trim_end();
    text.split(" It may write in: ").next().unwrap_or(text)
}

/// What `echo x > WHAT; echo rc=$?` (or `>>`) gives when the sandbox refuses
/// the write, `read_only` (a read-only bind) or outside every writable
/// tree (Landlock), with the sandbox's note as [`cut_note`] leaves it.
pub(crate) fn refused(what: &str, read_only: bool) -> String {
    let (error, why) = if read_only {
        (
            "Read-only file system",
            "kept read-only: code outside the sandbox reads or runs it, or `denyWrite` names it",
        )
    } else {
        ("Permission denied", "outside the folders it may write")
    };
    format!(
        "rc=1\nbash: line 2: {what}: {error}\n\ntack sandbox: this command ran confined, and the sandbox refused `{what}` ({why}), not the files' own permissions."
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unavailable_sandbox_says_so_once_then_runs_unconfined_or_refuses() {
    let why = "user namespaces: forced unavailable (TACK_SANDBOX_FORCE_UNAVAILABLE)";
    let calls = || {
        vec![vec![
            bash("a", "touch made-a && echo a"),
            bash("b", "touch made-b && echo b"),
        ]]
    };
    let allowed = json!({"permissions": {"allow": ["Bash(*)"]}, "sandbox": {"enabled": true}});
    let env = project(script(calls()), allowed).await;
    let (out, got) = run_unavailable(&env);
    let note = format!(
        "Note: the sandbox is not available on this system ({why}); this command ran \
         without it (sandbox.allowUnsandboxedCommands is true)."
    );
    let first = format!("a\n\n{note}");
    assert_eq!(
        trimmed(&got),
        vec![BTreeMap::from([("a", first.as_str()), ("b", "b")])]
    );
    let warning = format!(
        "warning: sandbox: unavailable ({why}); Bash commands run unconfined (allowUnsandboxedCommands)"
    );
    assert_eq!(
        stderr(&out).matches(&warning).count(),
        1,
        "{}",
        stderr(&out)
    );

    let strict = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true, "allowUnsandboxedCommands": false},
    });
    let env = project(script(calls()), strict).await;
    let (_, got) = run_unavailable(&env);
    let refused = format!(
        "<tool_use_error>The sandbox is not available on this system ({why}) and \
         sandbox.allowUnsandboxedCommands is false, so the command was not run.</tool_use_error>"
    );
    assert_eq!(
        trimmed(&got),
        vec![BTreeMap::from([
            ("a", refused.as_str()),
            ("b", refused.as_str())
        ])]
    );
    assert!(!exists(&env.cwd().join("made-a")));
}

#[tokio::test(flavor = "multi_thread")]
async fn sandboxed_commands_are_auto_allowed_but_ask_rules_and_unsandboxed_ones_still_ask() {
    let calls = vec![
        bash("auto", "touch auto.txt && echo ran"),
        bash("asked", "rm -f auto.txt"),
        unsandboxed("unconfined", "touch loose.txt"),
    ];
    let settings = json!({
        "permissions": {"ask": ["Bash(rm:*)"]},
        "sandbox": {"enabled": true},
    });
    let env = project(script(vec![calls]), settings).await;
    let (out, results) = run(&env, &[]).await;
    let result = &lines(&out.stdout)[0];
    let denied: Vec<&str> = result["permission_denials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(denied, ["asked", "unconfined"]);
    assert_eq!(results[0]["auto"].trim_end(), "ran");
    assert!(exists(&env.cwd().join("auto.txt")));
    assert!(!exists(&env.cwd().join("loose.txt")));

    let off = json!({"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": false}});
    let env = project(script(vec![vec![bash("auto", "touch auto.txt")]]), off).await;
    let (out, _) = run(&env, &[]).await;
    assert_eq!(
        lines(&out.stdout)[0]["permission_denials"][0]["tool_use_id"],
        "auto"
    );
    assert!(!exists(&env.cwd().join("auto.txt")));
}

#[tokio::test(flavor = "multi_thread")]
async fn read_only_mode_writes_only_the_temp_dir_and_excluded_commands_run_outside() {
    let (_keep, out_dir) = outside();
    let out = out_dir.display();
    let calls = vec![
        bash("project", "echo x > ro.txt; echo rc=$?"),
        bash("tmp", "echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\""),
        // A simple command only: `touch x && y` would run in the sandbox.
        bash("excluded", &format!("touch {out}/excluded")),
    ];
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"excludedCommands": ["touch"]},
    });
    let env = project(script(vec![calls]), settings).await;
    let (_, results) = run(&env, &["--sandbox", "read-only"]).await;
    assert_eq!(
        trimmed(&results),
        vec![BTreeMap::from([
            ("project", refused("ro.txt", false).as_str()),
            ("tmp", "t"),
            ("excluded", "(no output)"),
        ])]
    );
    assert!(!exists(&env.cwd().join("ro.txt")));
    assert!(exists(&out_dir.join("excluded")));
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_says_what_the_kernel_offers_and_whether_confinement_works() {
    let env = project(Script::new([]), json!({"sandbox": {"enabled": true}})).await;
    let kernel = "  kernel: user namespaces yes; Landlock ABI 7; seccomp yes\n";
    let sandbox = |stdout: &str| -> String {
        let start = stdout.find("sandbox: ").expect(stdout);
        stdout[start..]
            .lines()
            .take(3)
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let out = env.tack().arg("doctor").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        sandbox(&stdout),
        format!(
            "sandbox: enabled (sandbox.enabled; Bash commands are confined)\n{kernel}  confinement: works here\n"
        )
    );
    let out = env
        .tack()
        .env("TACK_SANDBOX_FORCE_UNAVAILABLE", "1")
        .arg("doctor")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        sandbox(&stdout),
        format!(
            "sandbox: enabled (sandbox.enabled; Bash commands are confined)\n{kernel}  confinement: unavailable: user namespaces: forced unavailable (TACK_SANDBOX_FORCE_UNAVAILABLE)\n"
        )
    );
}

/// The namespace's only way out: a loopback port bridged to a Unix socket
/// outside (the proxy's). Played here by an echo server on that socket, with
/// the init run directly as the Bash tool runs it.
#[test]
fn the_bridge_carries_a_loopback_connection_to_the_unix_socket_outside() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("http.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            reader.read_line(&mut line).unwrap();
            (&stream)
                .write_all(format!("echo: {line}").as_bytes())
                .unwrap();
        }
    });
    let policy = json!({
        "writable": [], "read_only": [], "deny_read": [],
        "allow_unix_sockets": false, "allow_local_binding": false,
        "bridges": [{"port": 3128, "socket": socket}],
    });
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .args(["__tack_sandbox_init", &policy.to_string(), "bash", "-c"])
        .arg(
            "exec 3<>/dev/tcp/127.0.0.1/3128 && echo hello >&3 && head -1 <&3; \
             (echo > /dev/tcp/127.0.0.1/3129) 2>/dev/null || echo 'no other port'",
        )
        .output()
        .unwrap();
    assert_eq!(
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code()
        ),
        ("echo: hello\nno other port\n".to_owned(), Some(0)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `httpProxyPort`: the namespace's HTTP_PROXY leads to the user's own proxy
/// on the host's loopback (here a stand-in answering every request), the
/// allowed way out; without a proxy setting, the same request finds nothing.
#[tokio::test(flavor = "multi_thread")]
async fn http_proxy_port_is_the_way_out_to_the_users_proxy() {
    use std::io::{BufRead, BufReader, Write};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (seen_tx, seen) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut line = String::new();
            BufReader::new(stream.try_clone().unwrap())
                .read_line(&mut line)
                .unwrap();
            let _ = seen_tx.send(line.trim_end().to_owned());
            let body = "via proxy";
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            (&stream).write_all(reply.as_bytes()).unwrap();
        }
    });
    let fetch = "curl -s -m 5 http://example.com/page; echo \" curl=$?\"";
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true, "network": {"httpProxyPort": port}},
    });
    let env = project(script(vec![vec![bash("fetch", fetch)]]), settings).await;
    let (_, results) = run(&env, &[]).await;
    assert_eq!(
        trimmed(&results),
        vec![BTreeMap::from([("fetch", "via proxy curl=0")])]
    );
    assert_eq!(
        seen.try_iter().collect::<Vec<_>>(),
        ["GET http://example.com/page HTTP/1.1"]
    );

    // Without the setting, tack's own proxy is the way out, and it refuses a
    // domain nobody allowed (print mode cannot ask); the refusal is in the
    // tool result.
    let settings = json!({"permissions": {"allow": ["Bash(*)"]}, "sandbox": {"enabled": true}});
    let env = project(script(vec![vec![bash("fetch", fetch)]]), settings).await;
    let (_, results) = run(&env, &[]).await;
    let why = "not in sandbox.network.allowedDomains, and not allowed";
    let expected = format!(
        "tack sandbox: connection to example.com:80 refused: {why}\n curl=0\n\n\
         sandbox: network access to example.com:80 denied ({why})"
    );
    assert_eq!(
        trimmed(&results),
        vec![BTreeMap::from([("fetch", expected.as_str())])]
    );
}

/// A timeout's SIGTERM to the command's process group reaches the command in
/// its own session through the namespace's init: the call ends at once, not
/// after the kill grace.
#[tokio::test(flavor = "multi_thread")]
async fn a_sandboxed_command_that_times_out_stops_at_once() {
    let call = (
        "slow".to_owned(),
        json!({"command": "sleep 30; echo never", "timeout": 300}),
    );
    let settings = json!({"permissions": {"allow": ["Bash(*)"]}, "sandbox": {"enabled": true}});
    let env = project(script(vec![vec![call]]), settings).await;
    let start = std::time::Instant::now();
    let (_, results) = run(&env, &[]).await;
    let took = start.elapsed();
    assert_eq!(
        trimmed(&results),
        vec![BTreeMap::from([(
            "slow",
            "Command timed out after 300ms and was killed"
        )])]
    );
    assert!(took < std::time::Duration::from_millis(1800), "{took:?}");
}
