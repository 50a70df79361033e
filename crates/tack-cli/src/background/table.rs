//! `tack agents`' text output: one row a session, its id, state, age, name
//! and folder in columns. A session waiting for an answer reads `needs
//! input` (its `state.json` says `blocked`, as Claude Code's does); one whose
//! process died without ending reads `killed` (`tack respawn` starts it again).

use std::path::Path;

use super::job::{JobState, State, Status};

/// The table of `rows` at `now` (ms since the epoch), `home` shown as `~`.
pub fn render(rows: &[JobState], now_ms: u64, home: Option<&Path>) -> String {
    let header = ["ID", "STATE", "AGE", "NAME", "CWD"].map(str::to_owned);
    let lines: Vec<[String; 5]> = std::iter::once(header)
        .chain(rows.iter().map(|row| {
            [
                row.id.clone(),
                state_text(row).to_owned(),
                age(now_ms.saturating_sub(row.started_at)),
                tack_sys::terminal_text::visible(&row.name).into_owned(),
                folder(&row.cwd, home),
            ]
        }))
        .collect();
    let mut widths = [0; 5];
    for line in &lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for line in &lines {
        let mut text = String::new();
        for (i, cell) in line.iter().enumerate() {
            if i + 1 < line.len() {
                text.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            } else {
                text.push_str(cell);
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

fn state_text(row: &JobState) -> &'static str {
    match (row.status, row.state) {
        (Status::Killed, _) => "killed",
        (_, State::Working) => "working",
        (_, State::Blocked) => "needs input",
        (_, State::Done) => "done",
        (_, State::Failed) => "failed",
        (_, State::Stopped) => "stopped",
    }
}

/// `42s`, `5m`, `3h`, `2d`.
fn age(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

fn folder(cwd: &Path, home: Option<&Path>) -> String {
    let shown = match home.and_then(|h| cwd.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Some(rest) => format!("~/{}", rest.display()),
        None => cwd.display().to_string(),
    };
    tack_sys::terminal_text::visible(&shown).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn row(id: &str, name: &str, cwd: &str, started_at: u64) -> JobState {
        JobState {
            started_at,
            ..JobState::launched(id, 1, PathBuf::from(cwd), Some(name))
        }
    }

    #[test]
    fn the_table_has_a_column_each_and_says_needs_input_for_blocked() {
        let now = 1_765_000_000_000;
        let rows = [
            JobState {
                state: State::Blocked,
                ..row("0a1b2c3d", "make a file", "/home/me/project", now - 42_000)
            },
            JobState {
                status: Status::Killed,
                state: State::Failed,
                ..row("1b2c3d4e", "think", "/srv/x", now - 3 * 3600 * 1000)
            },
            JobState {
                status: Status::Ended,
                state: State::Stopped,
                ..row("2c3d4e5f", "", "/home/me", now - 2 * 86_400_000)
            },
            row("3d4e5f60", "fix the flaky test", "/home/mine", now - 61_000),
        ];
        assert_eq!(
            render(&rows, now, Some(Path::new("/home/me"))),
            "\
ID        STATE        AGE  NAME                CWD
0a1b2c3d  needs input  42s  make a file         ~/project
1b2c3d4e  killed       3h   think               /srv/x
2c3d4e5f  stopped      2d                       ~
3d4e5f60  working      1m   fix the flaky test  /home/mine
"
        );
    }
}
