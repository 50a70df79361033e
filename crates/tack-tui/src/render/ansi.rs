//! Styles to SGR escape sequences, emitting only what changes.

use std::io::{self, Write};

use ratatui::style::{Color, Modifier, Style};

/// The pen of the terminal: the SGR state last written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pen {
    fg: Color,
    bg: Color,
    modifier: Modifier,
}

impl Default for Pen {
    fn default() -> Self {
        Pen {
            fg: Color::Reset,
            bg: Color::Reset,
            modifier: Modifier::empty(),
        }
    }
}

impl Pen {
    pub(crate) fn of(style: Style) -> Pen {
        Pen {
            fg: style.fg.unwrap_or(Color::Reset),
            bg: style.bg.unwrap_or(Color::Reset),
            modifier: style.add_modifier - style.sub_modifier,
        }
    }

    /// Writes what turns `self` into `next`; `self` becomes `next`.
    pub(crate) fn switch(&mut self, next: Pen, out: &mut impl Write) -> io::Result<()> {
        if *self == next {
            return Ok(());
        }
        let mut codes: Vec<String> = Vec::new();
        let removed = self.modifier - next.modifier;
        let mut current = *self;
        if !removed.is_empty() {
            // No portable "turn off one attribute" for all of them (bold and dim
            // share 22): reset and set everything again.
            codes.push("0".into());
            current = Pen::default();
        }
        for (flag, code) in [
            (Modifier::BOLD, "1"),
            (Modifier::DIM, "2"),
            (Modifier::ITALIC, "3"),
            (Modifier::UNDERLINED, "4"),
            (Modifier::SLOW_BLINK, "5"),
            (Modifier::RAPID_BLINK, "6"),
            (Modifier::REVERSED, "7"),
            (Modifier::HIDDEN, "8"),
            (Modifier::CROSSED_OUT, "9"),
        ] {
            if next.modifier.contains(flag) && !current.modifier.contains(flag) {
                codes.push(code.into());
            }
        }
        if next.fg != current.fg {
            codes.push(color_code(next.fg, false));
        }
        if next.bg != current.bg {
            codes.push(color_code(next.bg, true));
        }
        *self = next;
        if codes.is_empty() {
            return Ok(());
        }
        write!(out, "\x1b[{}m", codes.join(";"))
    }
}

fn color_code(color: Color, bg: bool) -> String {
    let base = |n: u8| if bg { n + 10 } else { n };
    match color {
        Color::Reset => base(39).to_string(),
        Color::Black => base(30).to_string(),
        Color::Red => base(31).to_string(),
        Color::Green => base(32).to_string(),
        Color::Yellow => base(33).to_string(),
        Color::Blue => base(34).to_string(),
        Color::Magenta => base(35).to_string(),
        Color::Cyan => base(36).to_string(),
        Color::Gray => base(37).to_string(),
        Color::DarkGray => base(90).to_string(),
        Color::LightRed => base(91).to_string(),
        Color::LightGreen => base(92).to_string(),
        Color::LightYellow => base(93).to_string(),
        Color::LightBlue => base(94).to_string(),
        Color::LightMagenta => base(95).to_string(),
        Color::LightCyan => base(96).to_string(),
        Color::White => base(97).to_string(),
        Color::Indexed(i) => format!("{};5;{i}", base(38)),
        Color::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", base(38)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn switch(from: Style, to: Style) -> String {
        let mut pen = Pen::of(from);
        let mut out = Vec::new();
        pen.switch(Pen::of(to), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn writes_only_changes() {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        assert_eq!(switch(Style::new(), bold), "\x1b[1m");
        assert_eq!(switch(bold, bold), "");
        assert_eq!(
            switch(bold, bold.fg(Color::Rgb(1, 2, 3))),
            "\x1b[38;2;1;2;3m"
        );
        // Removing an attribute resets and re-applies the rest.
        assert_eq!(
            switch(bold.fg(Color::Red), Style::new().fg(Color::Red)),
            "\x1b[0;31m"
        );
        assert_eq!(
            switch(Style::new(), Style::new().bg(Color::Indexed(4))),
            "\x1b[48;5;4m"
        );
    }
}
