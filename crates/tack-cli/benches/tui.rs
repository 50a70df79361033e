//! The terminal UI's budgets, measured on the optimised `tack` binary in a
//! pseudo-terminal read through a terminal emulator (tack-tui's pty harness),
//! against the scripted model server. Prints one line per figure for
//! BENCHMARKS.md; no criterion, because each sample is a process or a key.
//!
//! With `CLAUDE_CODE_BIN` set to a Claude Code executable, the figures that
//! can be measured the same way are measured for it too, against the same
//! server (its onboarding, API-key and trust prompts answered in its config).
//!
//! Run: `cargo bench -p tack-cli --bench tui`

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;
use tack_protocol::Message;
use tack_store::{RecordMeta, SessionStore, Transcript};
use tack_testkit::{MockServer, Reply, Script};
use tack_tui::testing::{CommandBuilder, PtySession, keys};

const WAIT: Duration = Duration::from_secs(180);
const STARTS: usize = 20;
/// Typed one key at a time; no spaces (the caret cell is a space already).
const KEYS: &str = "thequickbrownfoxjumpsoverthelazydog";

/// The program under test and how its screen says what.
#[derive(Clone)]
enum Front {
    Tack,
    ClaudeCode(PathBuf),
}

impl Front {
    fn name(&self) -> &'static str {
        match self {
            Front::Tack => "tack",
            Front::ClaudeCode(_) => "Claude Code",
        }
    }

    /// On screen once the prompt takes input.
    fn ready_marker(&self) -> &'static str {
        match self {
            Front::Tack => "? for shortcuts",
            Front::ClaudeCode(_) => "shift+tab to cycle",
        }
    }

    /// What precedes typed text in the input box.
    fn prompt(&self) -> &'static str {
        match self {
            Front::Tack => "> ",
            Front::ClaudeCode(_) => "❯\u{a0}",
        }
    }
}

struct Place {
    front: Front,
    project: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Place {
    fn new(front: &Front) -> Place {
        let place = Place {
            front: front.clone(),
            project: tempfile::tempdir().expect("project"),
            home: tempfile::tempdir().expect("home"),
        };
        let cwd = place.cwd().to_string_lossy().into_owned();
        match front {
            Front::Tack => tack_runtime::TrustStore::new(&place.config_dir())
                .trust(&place.cwd(), false)
                .expect("trust"),
            // Onboarding done, the key approved, the folder trusted.
            Front::ClaudeCode(_) => std::fs::write(
                place.home.path().join(".claude.json"),
                json!({"hasCompletedOnboarding": true, "autoUpdates": false, "theme": "dark",
                       "customApiKeyResponses": {"approved": ["test"], "rejected": []},
                       "projects": {cwd: {"hasTrustDialogAccepted": true,
                                          "hasCompletedProjectOnboarding": true}}})
                .to_string(),
            )
            .expect("claude config"),
        }
        place
    }

    fn cwd(&self) -> PathBuf {
        self.project.path().canonicalize().expect("cwd")
    }

    fn config_dir(&self) -> PathBuf {
        self.home.path().join(".tack")
    }

    fn spawn(&self, server: &MockServer, args: &[&str]) -> PtySession {
        let program = match &self.front {
            Front::Tack => PathBuf::from(env!("CARGO_BIN_EXE_tack")),
            Front::ClaudeCode(path) => path.clone(),
        };
        let mut cmd = CommandBuilder::new(program);
        cmd.env_clear();
        cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        cmd.env("HOME", self.home.path());
        cmd.env("TACK_CONFIG_DIR", self.config_dir());
        cmd.env("ANTHROPIC_BASE_URL", server.base_url());
        cmd.env("ANTHROPIC_API_KEY", "test");
        cmd.env("DISABLE_AUTOUPDATER", "1");
        cmd.env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        cmd.env("TERM", "xterm-256color");
        cmd.args(args);
        cmd.cwd(self.cwd());
        PtySession::spawn(cmd, 100, 40).expect("spawn")
    }

    fn ready(&self, pty: &mut PtySession) {
        pty.wait_for_text(self.front.ready_marker(), WAIT)
            .expect("input-ready");
    }

    /// Waits until `text` is shown and no turn runs.
    fn turn_over(&self, pty: &mut PtySession, text: &str) {
        let marker = self.front.ready_marker();
        pty.wait_until("turn over", WAIT, |s| {
            let c = s.contents();
            c.contains(text) && c.contains(marker) && !c.contains("esc to interrupt")
        })
        .expect("turn over");
    }

    /// Keystroke to its echo on screen, one key at a time.
    fn echoes(&self, pty: &mut PtySession) -> Vec<Duration> {
        let mut out = Vec::new();
        for i in 0..KEYS.len() {
            let typed = format!("{}{}", self.front.prompt(), &KEYS[..=i]);
            let t = Instant::now();
            pty.send(&KEYS.as_bytes()[i..=i]).expect("key");
            pty.wait_until("echo", WAIT, |s| s.contents().contains(&typed))
                .expect("echo");
            out.push(t.elapsed());
        }
        pty.send(keys::CTRL_C).expect("ctrl-c");
        pty.wait_until("cleared", WAIT, |s| !s.contents().contains(KEYS))
            .expect("cleared");
        out
    }
}

fn quit(mut pty: PtySession) {
    pty.send(keys::CTRL_C).expect("ctrl-c");
    pty.send(keys::CTRL_C).expect("ctrl-c");
    // Whatever it does on exit: gone within the wait, or killed on drop.
    let _ = pty.wait_exit(Duration::from_secs(10));
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn summary(mut samples: Vec<Duration>) -> String {
    samples.sort();
    format!(
        "median {:.2} ms, min {:.2} ms, max {:.2} ms ({} samples)",
        ms(samples[samples.len() / 2]),
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
        samples.len()
    )
}

/// (user + system CPU ticks, resident KiB, peak resident KiB) of `pid`.
fn proc_stats(pid: u32) -> (u64, u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // utime and stime (fields 14 and 15), counted after the command name.
    let ticks = fields[11].parse::<u64>().unwrap_or(0) + fields[12].parse::<u64>().unwrap_or(0);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let kib = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (ticks, kib("VmRSS:"), kib("VmHWM:"))
}

/// (CPU time in ns, context switches) of each live thread of `pid`, by
/// thread id: each switch is a wakeup or a preemption.
fn threads(pid: u32) -> std::collections::HashMap<String, (u64, u64)> {
    let mut out = std::collections::HashMap::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let path = task.path();
        let ns = std::fs::read_to_string(path.join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0);
        let switches = std::fs::read_to_string(path.join("status"))
            .map(|status| {
                status
                    .lines()
                    .filter(|l| l.contains("ctxt_switches:"))
                    .filter_map(|l| l.split_whitespace().last()?.parse::<u64>().ok())
                    .sum::<u64>()
            })
            .unwrap_or(0);
        out.insert(
            task.file_name().to_string_lossy().into_owned(),
            (ns, switches),
        );
    }
    out
}

/// What a UI left alone for `over` costs: CPU time and context switches of
/// its threads (threads that exit meanwhile, such as idle pool workers, are
/// counted up to the first sample only).
fn idle(pty: &PtySession, over: Duration) -> String {
    let pid = pty.pid().expect("pid");
    let (ticks0, ..) = proc_stats(pid);
    let before = threads(pid);
    std::thread::sleep(over);
    let (ticks1, ..) = proc_stats(pid);
    let after = threads(pid);
    let (mut ns, mut switches) = (0, 0);
    for (tid, (ns1, sw1)) in &after {
        let (ns0, sw0) = before.get(tid).copied().unwrap_or((0, 0));
        ns += ns1.saturating_sub(ns0);
        switches += sw1.saturating_sub(sw0);
    }
    let exited = before.keys().filter(|t| !after.contains_key(*t)).count();
    let cpu = Duration::from_nanos(ns);
    format!(
        "{:.3} ms CPU in {} s ({:.4}%), {switches} context switches, {exited} threads exited, \
         {} clock ticks",
        ms(cpu),
        over.as_secs(),
        cpu.as_secs_f64() * 100.0 / over.as_secs_f64(),
        ticks1 - ticks0
    )
}

/// About 2,000 tokens (8,000 bytes) of a typical answer: prose, lists, code.
fn answer() -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 8_000 {
        i += 1;
        text.push_str(&format!(
            "## Step {i}\n\nThe function `parse_{i}` reads the input line by line and keeps the \
             items it has seen in a vector; when the input ends without a newline the last item \
             was dropped.\n\n- check the boundary\n- keep the last item\n\n\
             ```rust\nfn parse_{i}(s: &str) -> Vec<&str> {{\n    s.lines().collect()\n}}\n```\n\n"
        ));
    }
    text.push_str("That is the whole parser.");
    text
}

/// A tack transcript of `messages` messages (prompts and answers) for `place`.
fn long_session(place: &Place, messages: usize) -> String {
    let id = uuid::Uuid::new_v4().to_string();
    let store = SessionStore::new(place.config_dir());
    let path = store.transcript_path(&place.cwd(), &id).expect("path");
    let meta = RecordMeta {
        cwd: place.cwd().to_string_lossy().into_owned(),
        git_branch: String::new(),
        version: "bench".into(),
        entrypoint: String::new(),
    };
    let mut t = Transcript::open(&path, &id, meta, None).expect("open");
    for i in 0..messages / 2 {
        t.append_user(&Message::user_text(format!("question number {i}")))
            .expect("user");
        t.append_assistant(
            json!({"id": format!("msg_{i}"), "type": "message", "role": "assistant",
                   "model": "claude-sonnet-4-5",
                   "content": [{"type": "text", "text": format!("Answer {i}: the parser keeps **every** item now.\n\nDone.")}],
                   "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 10}}),
            None,
        )
        .expect("assistant");
    }
    id
}

fn start_and_echo(front: &Front, server: &MockServer) {
    let place = Place::new(front);
    let mut starts = Vec::new();
    for _ in 0..STARTS {
        let t = Instant::now();
        let mut pty = place.spawn(server, &[]);
        place.ready(&mut pty);
        starts.push(t.elapsed());
        quit(pty);
    }
    let name = front.name();
    println!("{name}: start to input-ready prompt: {}", summary(starts));
    let mut pty = place.spawn(server, &[]);
    place.ready(&mut pty);
    std::thread::sleep(Duration::from_secs(2));
    let (_, rss, _) = proc_stats(pty.pid().expect("pid"));
    println!(
        "{name}: keystroke to echo, empty session: {}",
        summary(place.echoes(&mut pty))
    );
    let idle = idle(&pty, Duration::from_secs(10));
    println!("{name}: idle, fresh session: {idle}; RSS {rss} KiB");
    quit(pty);
}

fn streaming(front: &Front, server: &MockServer, text: &str) {
    let tokens = text.len() as f64 / 4.0;
    let place = Place::new(front);
    let mut pty = place.spawn(server, &[]);
    place.ready(&mut pty);
    pty.send(b"explain the parser").expect("type");
    let echo = format!("{}explain the parser", front.prompt());
    pty.wait_for_text(&echo, WAIT).expect("echo");
    let before = pty.bytes_received();
    let t = Instant::now();
    pty.send(keys::ENTER).expect("enter");
    place.turn_over(&mut pty, "That is the whole parser.");
    let bytes = pty.bytes_received() - before;
    println!(
        "{}: streamed {} bytes of markdown (~{tokens:.0} tokens) in {:.1} s: {bytes} bytes written, \
         {:.1} bytes/token ({:.2}x the text itself)",
        front.name(),
        text.len(),
        t.elapsed().as_secs_f64(),
        bytes as f64 / tokens,
        bytes as f64 / text.len() as f64
    );
    quit(pty);
}

fn live_session(front: &Front, server: &MockServer, turns: usize) {
    let place = Place::new(front);
    std::fs::write(place.cwd().join("README.md"), "# hello\n").expect("readme");
    let mut pty = place.spawn(server, &[]);
    place.ready(&mut pty);
    let t = Instant::now();
    for i in 0..turns {
        // Unique on screen ("turn 1 please" is not in "turn 10 please").
        let prompt = format!("turn {i} please");
        pty.send(format!("{prompt}\r").as_bytes()).expect("type");
        place.turn_over(&mut pty, &prompt);
    }
    let took = t.elapsed();
    std::thread::sleep(Duration::from_secs(2));
    let (_, rss, hwm) = proc_stats(pty.pid().expect("pid"));
    let idle = idle(&pty, Duration::from_secs(10));
    println!(
        "{}: {}-message live session ({turns} tool turns in {:.1} s): RSS {rss} KiB (peak {hwm} KiB); \
         idle after: {idle}",
        front.name(),
        turns * 4,
        took.as_secs_f64()
    );
    quit(pty);
}

/// Esc while an answer streams, to the turn shown over (no spinner): the
/// runtime's interrupt seen from the keyboard. Ten turns in one session.
fn esc_interrupts(front: &Front, server: &MockServer) {
    let place = Place::new(front);
    let mut pty = place.spawn(server, &[]);
    place.ready(&mut pty);
    let mut samples = Vec::new();
    for i in 0..10 {
        pty.send(format!("be slow {i}\r").as_bytes()).expect("type");
        pty.wait_until("streaming", WAIT, |s| {
            let c = s.contents();
            c.contains("Thinking about it") && c.contains("esc to interrupt")
        })
        .expect("streaming");
        std::thread::sleep(Duration::from_millis(300));
        let t = Instant::now();
        pty.send(keys::ESC).expect("esc");
        pty.wait_until("interrupted", WAIT, |s| {
            !s.contents().contains("esc to interrupt")
        })
        .expect("interrupted");
        samples.push(t.elapsed());
    }
    println!(
        "{}: Esc to the turn shown interrupted: {}",
        front.name(),
        summary(samples)
    );
    quit(pty);
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let _guard = rt.enter();
    let mut fronts = vec![Front::Tack];
    if let Some(path) = std::env::var_os("CLAUDE_CODE_BIN") {
        fronts.push(Front::ClaudeCode(PathBuf::from(path)));
    }
    let text = answer();
    let hello = rt
        .block_on(MockServer::start(
            Script::new([Reply::text("hi")]).looping(),
        ))
        .expect("server");
    let stream = rt
        .block_on(MockServer::start(
            Script::new([Reply::message()
                .text(&text)
                .pacing(Duration::from_millis(8))
                .into()])
            .looping(),
        ))
        .expect("server");
    let tools = rt
        .block_on(MockServer::start(
            Script::new([
                Reply::message()
                    .text("Looking for the files.")
                    .tool_use("toolu_1", "Glob", json!({"pattern": "*.md"}))
                    .into(),
                Reply::text("Found **README.md**; it is the only markdown file here."),
            ])
            .looping(),
        ))
        .expect("server");

    let slow = rt
        .block_on(MockServer::start(
            Script::new([Reply::message()
                .text(&"Thinking about it slowly. ".repeat(50))
                .stall_after(4, Duration::from_secs(60))
                .into()])
            .looping(),
        ))
        .expect("server");

    for front in &fronts {
        esc_interrupts(front, &slow);
        start_and_echo(front, &hello);
        streaming(front, &stream, &text);
        live_session(front, &tools, 250);
    }

    // 10,000 messages (tack's transcript format): resume, then type.
    let place = Place::new(&Front::Tack);
    let id = long_session(&place, 10_000);
    let t = Instant::now();
    let mut pty = place.spawn(&hello, &["--resume", &id]);
    pty.wait_for_text("Resumed session", WAIT)
        .expect("replayed");
    println!(
        "tack: 10,000-message session resumed: history replayed after {:.1} ms",
        ms(t.elapsed())
    );
    std::thread::sleep(Duration::from_secs(2));
    println!(
        "tack: keystroke to echo, 10,000 messages: {}",
        summary(place.echoes(&mut pty))
    );
    let idle = idle(&pty, Duration::from_secs(10));
    let (_, rss, hwm) = proc_stats(pty.pid().expect("pid"));
    println!("tack: idle, 10,000 messages: {idle}; RSS {rss} KiB (peak {hwm} KiB)");
    quit(pty);
}
