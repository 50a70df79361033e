//! tack's terminal UI, as a library: everything the interactive mode needs
//! that does not depend on the session runtime.
//!
//! # The model
//! [`App`] is a state machine with no terminal, clock or environment inside.
//! The driver feeds it three things and draws after each:
//!
//! ```text
//! loop {
//!     select! {
//!         ev = terminal_events.next()  => actions = app.handle_terminal_event(ev, Instant::now()),
//!         ev = runtime_events.recv()    => actions = app.handle_event(map(ev), Instant::now()),
//!         _ = sleep_until(app.next_tick()), if app.next_tick().is_some()
//!                                       => app.tick(Instant::now()),
//!     }
//!     for a in actions { runtime.send(map(a)) }   // UiAction -> runtime command
//!     tack_tui::draw(&mut app, &mut inline_terminal)?;
//! }
//! ```
//!
//! [`UiEvent`] and [`UiAction`] are the whole vocabulary between the two. When
//! nothing happens nothing is drawn and no timer runs ([`App::next_tick`] is
//! `None` while idle).
//!
//! # Rendering
//! [`InlineTerminal`] keeps the UI inline, below the shell's output: finished
//! history is written into the terminal's own scrollback exactly once (so the
//! terminal's search, selection, tmux history all work, and it survives exit);
//! only the live area at the bottom (the line being streamed, tool calls in
//! flight, spinner, input, status) is redrawn, by cell diff; a frame of more
//! than one change (and more than a few bytes) is wrapped in a DEC 2026
//! synchronized update. History is never laid out again, so a frame costs the
//! size of the live area, not of the session. See [`render::InlineTerminal`]
//! for how rows are inserted above the live area without redrawing it, and how
//! a streamed line becomes history in the row where it streamed.
//!
//! Markdown streams through [`markdown::MarkdownStream`]: a single newline is
//! a line break (as in chat UIs), and each line goes to history as soon as it
//! is complete; only the partial last line is live, or a block whose lines may
//! still change (a code fence, a table) until it ends.
//!
//! # Code highlighting: syntect, default syntax set, fancy-regex
//! Candidates were measured as stand-alone release binaries (the workspace's
//! release profile: thin LTO, one codegen unit, stripped), each highlighting a
//! file, against a baseline with ratatui and pulldown-cmark:
//!
//! | candidate | binary | delta | languages | first highlight (load + Rust) |
//! | --- | ---: | ---: | --- | ---: |
//! | baseline (ratatui + pulldown-cmark) | 0.80 MB | | | |
//! | syntect, default set, fancy-regex | 3.08 MB | **+2.28 MB** | ~75 (no TypeScript, TOML) | 0.14 s |
//! | syntect + two-face (bat's set), fancy | 3.65 MB | +2.85 MB | ~200 | 0.18 s; TypeScript 1.6 s and 80 MB RSS |
//! | tree-sitter-highlight + 10 grammars | 13.59 MB | +11.37 MB over tree-sitter + bash alone (2.22 MB, already in tack) | 10 | 0.05 s |
//!
//! tree-sitter highlights better, but each grammar costs about a megabyte
//! (C++ and TypeScript more), so ten languages cost five times syntect's whole
//! set. two-face's set covers TypeScript and TOML, but its TypeScript grammar
//! takes 1.6 s and 80 MB to compile its regexes on first use, which a terminal
//! UI cannot afford. So: syntect's default set, with TypeScript/TSX/JSX
//! highlighted by the JavaScript grammar, the pure-Rust regex engine (no
//! Oniguruma C library), and no theme dump: scopes map onto the UI's own
//! [`Theme`] (dark, light, or none under NO_COLOR). A trimmed syntax set was
//! tried and dropped: syntect links contexts across syntaxes by index, so a
//! subset cannot be rebuilt from a dump without the `.sublime-syntax` sources.
//! The set loads lazily (about 100 ms); [`markdown::preload_highlighter`] does
//! it on a background thread at start-up.
//!
//! # Measured
//! (debug build of this crate, dependencies at opt-level 1; `cargo nextest run
//! -p tack-tui -E 'test(/^budgets::|^pty::/)' --no-capture`)
//! - A 2,631-token answer (10 KB of markdown: headings, lists, code) streamed
//!   token by token: 36.6 bytes written per token, history and colour codes
//!   included; the largest single frame 517 bytes. A typical token is one
//!   cursor move and the token's text (about 15 bytes plus the text): the
//!   spinner line changes on 200 ms ticks only, unchanged rows below the
//!   streaming text are moved with IL/DL rather than rewritten, and a frame
//!   that is one run of text is not wrapped in a synchronized update.
//! - Frame time (event + render + diff + write), median: 1.1 ms with 10
//!   messages of history, 0.9 ms with 10,000 (release build: 0.41 ms and
//!   0.36 ms). A frame never touches history.
//! - In a pty: input-ready 8 ms after spawn; keystroke to echo 3.9 ms median.
//! - A permission dialog waiting a second (the real `tack` in a pty): 0 bytes
//!   written and 0 thread wake-ups; with the spinner's 200 ms timer left
//!   running, 27 wake-ups (`tack-cli/tests/interactive.rs`, the "don't ask
//!   again" test). The spinner's clock does not count the wait.
//!
//! # Resizing, tmux
//! Erasing is done with DL (delete lines) from the park point, never with ED
//! (erase display): tmux's `scroll-on-clear` copies the screen into the
//! scrollback when ED clears it from the top-left corner, which happens when
//! the live area fills the screen or sits at the top after a resize, and put
//! copies of the live area into history. Trailing cells are cleared with EL,
//! so rows are never wider than what they show and reflow less on a narrowing
//! resize. Checked by hand in tmux 3.3a (resizes 80x20 → 50x12 → 90x25 → 30x10
//! during a session: the scrollback holds every message once).
//!
//! # Tests
//! `tests/` has TestBackend snapshots of every screen, the key state machine,
//! markdown streaming (split anywhere = rendered whole), the byte and frame-time
//! budgets, and a pty harness ([`testing`], feature `testing`) that runs a
//! program in a pseudo-terminal and reads its screen and scrollback with a
//! terminal emulator.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - the UI's `/rewind` and Esc Esc: the picker (prompts newest last, then restore code and
//!   conversation / conversation / code / never mind, the code options only when a dry run
//!   changes files), the driver's dry runs and restores; a conversation restore clears the
//!   terminal and shows what is left (the one redraw of history):
//!   `tack-tui/src/dialogs/rewind.rs`, `tack-cli/src/interactive/driver/rewind.rs`
//! - terminal UI vocabulary (`UiEvent` in, `UiAction` out): `tack-tui/src/event.rs`
//! - terminal UI state machine: events, keys, live area:
//!   `tack-tui/src/app/{mod,keys,live,view}.rs`; permission modes (Shift+Tab's cycle with
//!   auto and bypass, a refused mode skipped, the runtime's answers, auto's first notice):
//!   `tack-tui/src/app/modes.rs`
//! - `/permissions`' auto-mode decisions (`a` turns a block into an allow rule):
//!   `tack-tui/src/dialogs/decisions.rs`, `tack-cli/src/interactive/{info.rs,driver/permissions.rs}`
//! - inline viewport: history to scrollback once (a streamed line becomes history in the row
//!   where it streamed), live area by diff: `tack-tui/src/render/inline.rs`
//! - streaming markdown (single newlines are line breaks; each line committed as it completes,
//!   a code fence or table when it ends), code highlighting:
//!   `tack-tui/src/markdown/{stream,render,highlight}.rs`
//! - prompt editor, history file, pastes, `@` mentions, `$EDITOR`: `tack-tui/src/input/`
//! - vim mode (`/vim`): INSERT/NORMAL, motions, operators, text objects, undo and `.`:
//!   `tack-tui/src/input/vim/`; its keys before the prompt's: `tack-tui/src/app/vim_keys.rs`;
//!   the help naming the keybindings' keys: `tack-tui/src/app/help.rs`
//! - paths as shown (relative inside the session's directory, `~` under home) and the
//!   welcome lines: `tack-tui/src/paths.rs`, `tack-tui/src/cells/welcome.rs`
//! - times as `/resume` says them ("3 minutes ago", "yesterday 14:05", local zone):
//!   `tack-tui/src/when.rs`
//! - the UI's built-in slash commands and the menu (custom commands listed from the runtime),
//!   dialogs, status line: `tack-tui/src/{commands,dialogs,status}/`
//! - pty + terminal-emulator harness for end-to-end tests: `tack-tui/src/testing.rs` (feature
//!   `testing`)

pub mod app;
pub mod cells;
pub mod commands;
pub mod dialogs;
pub mod event;
pub mod input;
pub mod keybindings;
pub mod markdown;
pub mod paths;
pub mod render;
pub mod status;
pub mod terminal;
pub mod theme;
pub mod when;
pub mod wrap;

#[cfg(feature = "testing")]
pub mod testing;

pub use app::{App, AppConfig, ModeOptions};
pub use event::{
    AutoDecision, CodeChanges, Decider, NoticeLevel, PermissionAnswer, PermissionRequest, Prompt,
    Restore, RewindChoice, StatusPatch, TurnSummary, UiAction, UiEvent,
};
pub use render::InlineTerminal;
pub use terminal::{TerminalGuard, draw};
pub use theme::{Theme, ThemeKind, color_allowed};
pub use when::WallClock;
