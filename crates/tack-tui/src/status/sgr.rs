//! A status-line command's colours: its SGR sequences (`ESC [ … m`) become
//! the styles of the row's spans; every other escape or control character
//! is removed (cursor moves, screen clears and OSC 8 links cannot reach the
//! terminal from here), the link's text kept.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// `row` as spans, starting from `base`.
pub(crate) fn styled_row(row: &str, base: Style) -> Line<'static> {
    let mut spans = Vec::new();
    let mut style = base;
    let mut text = String::new();
    let mut chars = row.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            if !c.is_control() {
                text.push(c);
            }
            continue;
        }
        match chars.next() {
            Some('[') => {
                let mut params = String::new();
                let mut last = None;
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        last = Some(c);
                        break;
                    }
                    params.push(c);
                }
                if last == Some('m') {
                    if !text.is_empty() {
                        spans.push(Span::styled(std::mem::take(&mut text), style));
                    }
                    style = apply(style, base, &params);
                }
            }
            // OSC (a link's start or end): skipped up to BEL or ESC \.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

/// One SGR sequence's parameters applied to `style` (`0`: back to `base`).
fn apply(mut style: Style, base: Style, params: &str) -> Style {
    let codes: Vec<u16> = params
        .split([';', ':'])
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    let mut i = 0;
    while i < codes.len() {
        let code = codes[i];
        style = match code {
            0 => base,
            1 => style.add_modifier(Modifier::BOLD),
            2 => style.add_modifier(Modifier::DIM),
            3 => style.add_modifier(Modifier::ITALIC),
            4 => style.add_modifier(Modifier::UNDERLINED),
            7 => style.add_modifier(Modifier::REVERSED),
            9 => style.add_modifier(Modifier::CROSSED_OUT),
            22 => style.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => style.remove_modifier(Modifier::ITALIC),
            24 => style.remove_modifier(Modifier::UNDERLINED),
            27 => style.remove_modifier(Modifier::REVERSED),
            29 => style.remove_modifier(Modifier::CROSSED_OUT),
            30..=37 => style.fg(Color::Indexed((code - 30) as u8)),
            90..=97 => style.fg(Color::Indexed((code - 90 + 8) as u8)),
            40..=47 => style.bg(Color::Indexed((code - 40) as u8)),
            100..=107 => style.bg(Color::Indexed((code - 100 + 8) as u8)),
            39 => style.fg(base.fg.unwrap_or(Color::Reset)),
            49 => style.bg(base.bg.unwrap_or(Color::Reset)),
            38 | 48 => {
                let (color, used) = extended(&codes[i + 1..]);
                i += used;
                match color {
                    Some(c) if code == 38 => style.fg(c),
                    Some(c) => style.bg(c),
                    None => style,
                }
            }
            _ => style,
        };
        i += 1;
    }
    style
}

/// `5;n` or `2;r;g;b` after 38/48: the colour and how many codes it took.
fn extended(rest: &[u16]) -> (Option<Color>, usize) {
    match rest {
        [5, n, ..] => (u8::try_from(*n).ok().map(Color::Indexed), 2),
        [2, r, g, b, ..] => {
            let c = |v: &u16| u8::try_from(*v).unwrap_or(u8::MAX);
            (Some(Color::Rgb(c(r), c(g), c(b))), 4)
        }
        _ => (None, rest.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn colours_become_styles_and_other_escapes_go() {
        let base = Style::default().add_modifier(Modifier::DIM);
        let row = "\x1b[32m+2\x1b[0m \x1b[1;38;5;214mhot\x1b[22m\x1b[39m \x1b[2J\x1b]8;;https://x\x07link\x1b]8;;\x07 \x1b[48;2;1;2;3mbg\r";
        assert_eq!(
            styled_row(row, base),
            Line::from(vec![
                Span::styled("+2", base.fg(Color::Indexed(2))),
                Span::styled(" ", base),
                Span::styled(
                    "hot",
                    base.add_modifier(Modifier::BOLD).fg(Color::Indexed(214))
                ),
                Span::styled(
                    " link ",
                    base.remove_modifier(Modifier::BOLD | Modifier::DIM)
                        .fg(Color::Reset)
                ),
                Span::styled(
                    "bg",
                    base.remove_modifier(Modifier::BOLD | Modifier::DIM)
                        .fg(Color::Reset)
                        .bg(Color::Rgb(1, 2, 3))
                ),
            ])
        );
    }
}
