//! Streaming into the scrollback: a 60-line answer whose lines are joined by
//! single newlines, streamed in 5 ms chunks of 12 characters into a 100x30
//! pseudo-terminal, with the real binary against the scripted model server.
//! Every byte the terminal receives from Enter to the end of the turn is
//! counted; then the emulator's scrollback and screen are searched for each of
//! the 60 lines. Prints one line for BENCHMARKS.md.
//!
//! Run: `cargo bench -p tack-cli --bench scrollback` (the figures are byte and
//! row counts, the same in any profile: `--profile dev` builds faster).

use std::time::{Duration, Instant};

use tack_testkit::{MockServer, Reply, Script};
use tack_tui::testing::{
    CommandBuilder, PtySession, keys, lines_on_own_row_once, single_newline_answer,
};

const WAIT: Duration = Duration::from_secs(120);
const LINES: usize = 60;
const RUNS: usize = 5;

/// (bytes written from Enter to the turn's end, lines on their own row once).
fn run(server: &MockServer, answer: &str) -> (usize, usize) {
    let project = tempfile::tempdir().expect("project");
    let home = tempfile::tempdir().expect("home");
    let cwd = project.path().canonicalize().expect("cwd");
    let config = home.path().join(".tack");
    tack_runtime::TrustStore::new(&config)
        .trust(&cwd, false)
        .expect("trust");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
    cmd.env_clear();
    cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd.env("HOME", home.path());
    cmd.env("TACK_CONFIG_DIR", &config);
    cmd.env("ANTHROPIC_BASE_URL", server.base_url());
    cmd.env("ANTHROPIC_API_KEY", "test");
    cmd.env("TERM", "xterm-256color");
    cmd.cwd(&cwd);
    let mut pty = PtySession::spawn(cmd, 100, 30).expect("spawn");
    pty.wait_for_text("? for shortcuts", WAIT).expect("ready");
    pty.send(b"write sixty lines").expect("type");
    pty.wait_for_text("> write sixty lines", WAIT)
        .expect("echo");
    let before = pty.bytes_received();
    pty.send(keys::ENTER).expect("enter");
    let last = answer.lines().last().unwrap_or_default().to_string();
    pty.wait_until("turn over", WAIT, |s| {
        let c = s.contents();
        c.contains(&last) && !c.contains("esc to interrupt")
    })
    .expect("turn over");
    let bytes = pty.bytes_received() - before;
    let lines: Vec<&str> = answer.lines().collect();
    let kept = lines_on_own_row_once(&pty.all_rows(), &lines);
    pty.send(keys::CTRL_C).expect("ctrl-c");
    pty.send(keys::CTRL_C).expect("ctrl-c");
    let _ = pty.wait_exit(Duration::from_secs(10));
    (bytes, kept)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let _guard = rt.enter();
    let answer = single_newline_answer(LINES);
    let server = rt
        .block_on(MockServer::start(
            Script::new([Reply::message()
                .text(&answer)
                .pacing(Duration::from_millis(5))
                .into()])
            .looping(),
        ))
        .expect("server");
    let t = Instant::now();
    let mut results: Vec<(usize, usize)> = (0..RUNS).map(|_| run(&server, &answer)).collect();
    results.sort();
    let (median, kept) = results[RUNS / 2];
    let (min, max) = (results[0].0, results[RUNS - 1].0);
    let per_byte = |b: usize| b as f64 / answer.len() as f64;
    println!(
        "tack: {LINES}-line answer ({} bytes, single newlines) in 5 ms chunks, 100x30 pty: \
         {median} bytes written, {:.2} bytes per answer byte (min {:.2}, max {:.2}, {RUNS} runs, \
         {:.0} s); {kept}/{LINES} lines on their own row exactly once (scrollback + screen; \
         all runs: {:?})",
        answer.len(),
        per_byte(median),
        per_byte(min),
        per_byte(max),
        t.elapsed().as_secs_f64(),
        results.iter().map(|r| r.1).collect::<Vec<_>>()
    );
}
