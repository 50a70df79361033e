//! The batch's progress on stderr: on a terminal one line redrawn in place
//! (done / total, running, throughput, spend, elapsed); otherwise one line per
//! finished task, for logs.

use std::io::Write;
use std::time::{Duration, Instant};

pub struct Progress {
    total: usize,
    /// Finished before this run (skipped).
    skipped: usize,
    done: usize,
    failed: usize,
    /// Ended with no result line (they run again on a rerun).
    unfinished: usize,
    running: usize,
    spent: f64,
    started: Instant,
    tty: bool,
}

impl Progress {
    pub fn new(total: usize, skipped: usize, tty: bool) -> Progress {
        Progress {
            total,
            skipped,
            done: 0,
            failed: 0,
            unfinished: 0,
            running: 0,
            spent: 0.0,
            started: Instant::now(),
            tty,
        }
    }

    pub fn started_one(&mut self) {
        self.running += 1;
        self.draw();
    }

    pub fn finished_one(&mut self, id: &str, status: &str, cost: f64, turns: u64, took: Duration) {
        self.running = self.running.saturating_sub(1);
        self.done += 1;
        self.spent += cost;
        if status != "success" {
            self.failed += 1;
        }
        if !self.tty {
            let line = format!(
                "[{}/{}] {id}: {status}, {turns} turns, ${cost:.4}, {:.1}s",
                self.skipped + self.done,
                self.total,
                took.as_secs_f64()
            );
            let _ = writeln!(std::io::stderr(), "{line}");
        }
        self.draw();
    }

    /// A task that ended without a result: why, on its own line even on a
    /// terminal (it needs the user's eye).
    pub fn unfinished_one(&mut self, id: &str, why: &str) {
        self.running = self.running.saturating_sub(1);
        self.unfinished += 1;
        let clear = if self.tty { "\r\x1b[2K" } else { "" };
        let _ = writeln!(
            std::io::stderr(),
            "{clear}tack batch: {id}: {why}; no result written, a rerun runs it again"
        );
        self.draw();
    }

    /// Tasks that ended with no result line this run.
    pub fn unfinished(&self) -> usize {
        self.unfinished
    }

    /// Tasks of this run that ended without success.
    pub fn failed(&self) -> usize {
        self.failed
    }

    pub fn spent(&self) -> f64 {
        self.spent
    }

    pub fn summary(&self) -> String {
        format!(
            "{} of {} tasks done ({} this run, {} not successful), ${:.4}, {}",
            self.skipped + self.done,
            self.total,
            self.done,
            self.failed,
            self.spent,
            clock(self.started.elapsed())
        )
    }

    fn draw(&self) {
        if !self.tty {
            return;
        }
        let minutes = self.started.elapsed().as_secs_f64() / 60.0;
        let rate = if minutes > 0.0 {
            self.done as f64 / minutes
        } else {
            0.0
        };
        let line = format!(
            "\r\x1b[2Ktack batch: {}/{} done · {} running · {} not successful · {rate:.1}/min · ${:.4} · {}",
            self.skipped + self.done,
            self.total,
            self.running,
            self.failed,
            self.spent,
            clock(self.started.elapsed())
        );
        let mut err = std::io::stderr();
        let _ = err.write_all(line.as_bytes());
        let _ = err.flush();
    }

    /// Ends the redrawn line before other output.
    pub fn finish_line(&self) {
        if self.tty {
            let _ = writeln!(std::io::stderr());
        }
    }
}

fn clock(elapsed: Duration) -> String {
    let s = elapsed.as_secs();
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}
