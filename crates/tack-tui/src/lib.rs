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
//! only the live area at the bottom (streaming block, tool calls in flight,
//! spinner, input, status) is redrawn, by cell diff, inside DEC 2026
//! synchronized updates. History is never laid out again, so a frame costs the
//! size of the live area, not of the session. See [`render::InlineTerminal`]
//! for how rows are inserted above the live area without redrawing it.
//!
//! Markdown streams through [`markdown::MarkdownStream`]: each finished block
//! goes to history as soon as the next block has started on a complete line;
//! only the block being written is live.
//!
//! # Code highlighting: syntect with a trimmed syntax set
//! HIGHLIGHTER_FIGURES
//!
//! # Tests
//! `tests/` has TestBackend snapshots of every screen, the key state machine,
//! markdown streaming (split anywhere = rendered whole), the byte and frame-time
//! budgets, and a pty harness ([`testing`], feature `testing`) that runs a
//! program in a pseudo-terminal and reads its screen and scrollback with a
//! terminal emulator.

pub mod app;
pub mod cells;
pub mod commands;
pub mod dialogs;
pub mod event;
pub mod input;
pub mod markdown;
pub mod render;
pub mod status;
pub mod terminal;
pub mod theme;
pub mod wrap;

#[cfg(feature = "testing")]
pub mod testing;

pub use app::{App, AppConfig};
pub use event::{
    NoticeLevel, PermissionAnswer, PermissionRequest, Prompt, StatusPatch, TurnSummary, UiAction,
    UiEvent,
};
pub use render::InlineTerminal;
pub use terminal::{TerminalGuard, draw};
pub use theme::{Theme, ThemeKind, color_allowed};
