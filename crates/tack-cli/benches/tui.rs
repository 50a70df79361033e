//! The terminal UI's budgets, measured on the optimised `tack` binary in a
//! pseudo-terminal read through a terminal emulator (tack-tui's pty harness),
//! against the scripted model server. Prints one line per figure for
//! BENCHMARKS.md; no criterion, because each sample is a process or a key.
//!
//! Run: `cargo bench -p tack-cli --bench tui`

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;
use tack_protocol::Message;
use tack_store::{RecordMeta, SessionStore, Transcript};
use tack_testkit::{MockServer, Reply, Script};
use tack_tui::testing::{CommandBuilder, PtySession, keys};

const WAIT: Duration = Duration::from_secs(120);
const STARTS: usize = 20;
const KEYS: &str = "the quick brown fox jumps over the lazy dog";

struct Place {
    project: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let place = Place {
            project: tempfile::tempdir().expect("project"),
            home: tempfile::tempdir().expect("home"),
        };
        tack_runtime::TrustStore::new(&place.config_dir())
            .trust(&place.cwd(), false)
            .expect("trust");
        place
    }

    fn cwd(&self) -> PathBuf {
        self.project.path().canonicalize().expect("cwd")
    }

    fn config_dir(&self) -> PathBuf {
        self.home.path().join(".tack")
    }

    fn tack(&self, server: &MockServer, args: &[&str]) -> PtySession {
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
        cmd.env_clear();
        cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        cmd.env("HOME", self.home.path());
        cmd.env("TACK_CONFIG_DIR", self.config_dir());
        cmd.env("ANTHROPIC_BASE_URL", server.base_url());
        cmd.env("ANTHROPIC_API_KEY", "test");
        cmd.env("TERM", "xterm-256color");
        cmd.args(args);
        cmd.cwd(self.cwd());
        PtySession::spawn(cmd, 100, 40).expect("spawn")
    }
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

fn ready(pty: &mut PtySession) {
    pty.wait_for_text("? for shortcuts", WAIT)
        .expect("input-ready");
}

fn quit(mut pty: PtySession) {
    pty.send(keys::CTRL_D).expect("ctrl-d");
    pty.wait_exit(WAIT).expect("exit");
}

/// Keystroke to its echo on screen, one key at a time.
fn echoes(pty: &mut PtySession) -> Vec<Duration> {
    let mut out = Vec::new();
    for (i, c) in KEYS.char_indices() {
        let typed = format!("> {}", &KEYS[..=i]);
        let t = Instant::now();
        pty.send(c.to_string().as_bytes()).expect("key");
        pty.wait_until("echo", WAIT, |s| s.contents().contains(&typed))
            .expect("echo");
        out.push(t.elapsed());
    }
    // Clear the input again.
    pty.send(keys::CTRL_C).expect("ctrl-c");
    pty.wait_until("cleared", WAIT, |s| !s.contents().contains("> the quick"))
        .expect("cleared");
    out
}

/// (user + system CPU ticks, resident KiB, peak resident KiB) of `pid`.
fn proc_stats(pid: u32) -> (u64, u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // Fields 14 and 15 (utime, stime), counted after the command name.
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

/// CPU ticks used over `over` by an idle UI.
fn idle_ticks(pty: &PtySession, over: Duration) -> u64 {
    let pid = pty.pid().expect("pid");
    let (before, ..) = proc_stats(pid);
    std::thread::sleep(over);
    let (after, ..) = proc_stats(pid);
    after - before
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
    text
}

/// A transcript of `messages` messages (prompts and answers) for `place`.
fn long_session(place: &Place, messages: usize) -> String {
    let id = uuid::Uuid::new_v4().to_string();
    let store = SessionStore::new(place.config_dir());
    let path = store.transcript_path(&place.cwd(), &id).expect("path");
    let meta = RecordMeta {
        cwd: place.cwd().to_string_lossy().into_owned(),
        git_branch: String::new(),
        version: "bench".into(),
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

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let _guard = rt.enter();

    // Start-up to an input-ready prompt, and keystroke to echo.
    let server = rt
        .block_on(MockServer::start(
            Script::new([Reply::text("hi")]).looping(),
        ))
        .expect("server");
    let place = Place::new();
    let mut starts = Vec::new();
    for _ in 0..STARTS {
        let t = Instant::now();
        let mut pty = place.tack(&server, &[]);
        ready(&mut pty);
        starts.push(t.elapsed());
        quit(pty);
    }
    println!("start to input-ready prompt: {}", summary(starts));
    let mut pty = place.tack(&server, &[]);
    ready(&mut pty);
    std::thread::sleep(Duration::from_secs(1));
    let (_, rss_start, _) = proc_stats(pty.pid().expect("pid"));
    println!(
        "keystroke to echo, empty session: {}",
        summary(echoes(&mut pty))
    );
    let ticks = idle_ticks(&pty, Duration::from_secs(5));
    println!("idle CPU, fresh session: {ticks} ticks of 10 ms in 5 s; RSS {rss_start} KiB");
    quit(pty);

    // Bytes written per streamed token over a 2,000-token answer.
    let text = answer();
    let tokens = text.len() as f64 / 4.0;
    let stream_server = rt
        .block_on(MockServer::start(Script::new([Reply::message()
            .text(&text)
            .pacing(Duration::from_millis(8))
            .into()])))
        .expect("server");
    let place = Place::new();
    let mut pty = place.tack(&stream_server, &[]);
    ready(&mut pty);
    pty.send(b"explain the parser").expect("type");
    pty.wait_for_text("> explain the parser", WAIT)
        .expect("echo");
    let before = pty.bytes_received();
    let t = Instant::now();
    pty.send(keys::ENTER).expect("enter");
    pty.wait_until("the answer", WAIT, |s| {
        let c = s.contents();
        c.contains("? for shortcuts") && !c.contains("esc to interrupt") && c.contains("s.lines()")
    })
    .expect("answer");
    let bytes = pty.bytes_received() - before;
    println!(
        "streamed {} bytes of markdown (~{tokens:.0} tokens) in {:.1} s: {bytes} bytes written, \
         {:.1} bytes/token ({:.2}x the text itself)",
        text.len(),
        t.elapsed().as_secs_f64(),
        bytes as f64 / tokens,
        bytes as f64 / text.len() as f64
    );
    quit(pty);

    // 10,000 messages: resume a long session, then type.
    let place = Place::new();
    let id = long_session(&place, 10_000);
    let t = Instant::now();
    let mut pty = place.tack(&server, &["--resume", &id]);
    ready(&mut pty);
    let input_ready = t.elapsed();
    pty.wait_for_text("Resumed session", WAIT)
        .expect("replayed");
    println!(
        "10,000-message session resumed: input-ready after {:.1} ms, history replayed after {:.1} ms",
        ms(input_ready),
        ms(t.elapsed())
    );
    std::thread::sleep(Duration::from_secs(1));
    println!(
        "keystroke to echo, 10,000 messages: {}",
        summary(echoes(&mut pty))
    );
    let ticks = idle_ticks(&pty, Duration::from_secs(5));
    let (_, rss, hwm) = proc_stats(pty.pid().expect("pid"));
    println!("idle CPU, 10,000 messages: {ticks} ticks in 5 s; RSS {rss} KiB (peak {hwm} KiB)");
    quit(pty);

    // RSS after a live 1,000-message session: 250 turns of prompt, tool call,
    // tool result, answer.
    let tool_server = rt
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
    let place = Place::new();
    std::fs::write(place.cwd().join("README.md"), "# hello\n").expect("readme");
    let mut pty = place.tack(&tool_server, &[]);
    ready(&mut pty);
    let t = Instant::now();
    for i in 0..250 {
        let prompt = format!("prompt {i}");
        pty.send(format!("{prompt}\r").as_bytes()).expect("type");
        let echo = format!("> {prompt}");
        pty.wait_until("turn over", WAIT, |s| {
            let c = s.contents();
            c.contains(&echo) && c.contains("? for shortcuts") && !c.contains("esc to interrupt")
        })
        .expect("turn");
    }
    let turns = t.elapsed();
    std::thread::sleep(Duration::from_secs(1));
    let (_, rss, hwm) = proc_stats(pty.pid().expect("pid"));
    let ticks = idle_ticks(&pty, Duration::from_secs(5));
    println!(
        "1,000-message live session (250 tool turns in {:.1} s): RSS {rss} KiB (peak {hwm} KiB); idle after: {ticks} ticks in 5 s",
        turns.as_secs_f64()
    );
    quit(pty);
}
