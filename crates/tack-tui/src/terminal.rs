//! Putting the real terminal into the UI's mode and back.

use std::io::{self, Write};

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::{cursor, execute, terminal};

use crate::app::App;
use crate::render::InlineTerminal;

/// Raw mode, bracketed paste, the hidden cursor (the UI draws its own caret) and,
/// where the terminal supports it, key disambiguation (so Shift+Enter is
/// distinguishable from Enter). Restored on drop, also when unwinding.
#[derive(Debug)]
pub struct TerminalGuard {
    enhanced_keys: bool,
}

impl TerminalGuard {
    pub fn enter(out: &mut impl Write) -> io::Result<TerminalGuard> {
        terminal::enable_raw_mode()?;
        let enhanced_keys = terminal::supports_keyboard_enhancement().unwrap_or(false);
        execute!(out, EnableBracketedPaste, cursor::Hide)?;
        if enhanced_keys {
            execute!(
                out,
                PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
            )?;
        }
        Ok(TerminalGuard { enhanced_keys })
    }

    fn restore(&self) -> io::Result<()> {
        let mut out = io::stdout();
        if self.enhanced_keys {
            execute!(out, PopKeyboardEnhancementFlags)?;
        }
        execute!(out, DisableBracketedPaste, cursor::Show)?;
        terminal::disable_raw_mode()
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = self.restore();
    }
}

/// One frame: the app's new history lines into the scrollback, then its live
/// area; or the full-screen view on the alternate screen while one is open (new
/// history waits for its end). Writes nothing when nothing changed.
/// A resize the app was told about (`Event::Resize` through
/// [`App::handle_terminal_event`]) is applied to the terminal here first.
pub fn draw<W: Write>(app: &mut App, term: &mut InlineTerminal<W>) -> io::Result<()> {
    let (width, height) = app.size();
    if term.size() != (width, height) {
        term.resize(width, height)?;
    }
    if app.is_fullscreen() {
        return term.frame_fullscreen(&app.render_live(width, height));
    }
    let history = app.take_history();
    let live = app.render_live(width, height);
    term.frame(&history, &live)
}
