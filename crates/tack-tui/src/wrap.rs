//! Word wrapping of styled lines, and the row count of a line the terminal wraps.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Display width of a line.
pub fn line_width(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| s.content.width()).sum()
}

/// How many terminal rows `line` occupies when written at once into a terminal
/// `width` columns wide (character wrap, as the terminal does it: a wide
/// character that does not fit moves to the next row).
pub fn terminal_rows(line: &Line<'_>, width: u16) -> u16 {
    let width = usize::from(width.max(1));
    let mut rows: u16 = 1;
    let mut col = 0usize;
    for span in &line.spans {
        for g in span.content.graphemes(true) {
            let w = g.width();
            if col + w > width {
                rows = rows.saturating_add(1);
                col = 0;
            }
            col += w;
        }
    }
    rows
}

/// Word-wraps `spans` to `width` columns. The first row starts with `first`,
/// later rows with `rest` (indentation, list markers, quote bars). Words longer
/// than a row are broken between characters. Spaces at a break are dropped.
pub fn wrap_spans(
    spans: &[Span<'static>],
    width: u16,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let mut out = Vec::new();
    let mut row: Vec<Span<'static>> = first.to_vec();
    let prefix_width = |p: &[Span<'static>]| p.iter().map(|s| s.content.width()).sum::<usize>();
    let mut col = prefix_width(first);
    let mut row_has_text = false;
    // Pending whitespace is only written when a word follows it on the same row.
    let mut pending_space: Vec<(String, Style)> = Vec::new();

    let new_row = |out: &mut Vec<Line<'static>>, row: &mut Vec<Span<'static>>, col: &mut usize| {
        out.push(Line::from(std::mem::take(row)));
        *row = rest.to_vec();
        *col = prefix_width(rest);
    };

    for (word, style, is_space) in tokens(spans) {
        if is_space {
            pending_space.push((word, style));
            continue;
        }
        let word_width = word.width();
        let space_width: usize = pending_space.iter().map(|(s, _)| s.width()).sum();
        if row_has_text && col + space_width + word_width > width {
            new_row(&mut out, &mut row, &mut col);
            pending_space.clear();
            row_has_text = false;
        }
        if row_has_text {
            for (s, st) in pending_space.drain(..) {
                col += s.width();
                push_span(&mut row, s, st);
            }
        }
        pending_space.clear();
        if col + word_width <= width {
            col += word_width;
            push_span(&mut row, word, style);
            row_has_text = true;
            continue;
        }
        // A word longer than the room left: break it between graphemes.
        let mut piece = String::new();
        for g in word.graphemes(true) {
            let w = g.width();
            if col + w > width && (row_has_text || !piece.is_empty()) {
                push_span(&mut row, std::mem::take(&mut piece), style);
                new_row(&mut out, &mut row, &mut col);
            }
            piece.push_str(g);
            col += w;
            row_has_text = true;
        }
        push_span(&mut row, piece, style);
    }
    out.push(Line::from(row));
    out
}

fn push_span(row: &mut Vec<Span<'static>>, text: String, style: Style) {
    if text.is_empty() {
        return;
    }
    if let Some(last) = row.last_mut()
        && last.style == style
    {
        last.content.to_mut().push_str(&text);
        return;
    }
    row.push(Span::styled(text, style));
}

/// Splits spans into words and runs of whitespace, keeping each piece's style.
fn tokens(spans: &[Span<'static>]) -> Vec<(String, Style, bool)> {
    let mut out: Vec<(String, Style, bool)> = Vec::new();
    for span in spans {
        for piece in span.content.split_word_bounds() {
            let is_space = piece.chars().all(char::is_whitespace);
            match out.last_mut() {
                // Glue pieces of one word across spans and word-bound pieces
                // (punctuation) so "foo." or "**bold**," never breaks inside.
                Some((text, style, false)) if !is_space && *style == span.style => {
                    text.push_str(piece);
                }
                Some((text, _, true)) if is_space => text.push_str(piece),
                _ => out.push((piece.to_string(), span.style, is_space)),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn plain(lines: &[Line<'static>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn wraps_at_word_boundaries_and_drops_break_spaces() {
        let spans = [Span::raw("the quick brown fox jumps over the lazy dog")];
        let lines = wrap_spans(&spans, 15, &[], &[]);
        assert_eq!(
            plain(&lines),
            vec!["the quick brown", "fox jumps over", "the lazy dog"]
        );
    }

    #[test]
    fn prefixes_first_and_later_rows() {
        let spans = [Span::raw("alpha beta gamma delta")];
        let lines = wrap_spans(&spans, 12, &[Span::raw("• ")], &[Span::raw("  ")]);
        assert_eq!(plain(&lines), vec!["• alpha beta", "  gamma", "  delta"]);
    }

    #[test]
    fn breaks_words_longer_than_a_row() {
        let spans = [Span::raw("ab abcdefghij")];
        let lines = wrap_spans(&spans, 4, &[], &[]);
        assert_eq!(plain(&lines), vec!["ab", "abcd", "efgh", "ij"]);
    }

    #[test]
    fn counts_terminal_rows_with_wide_characters() {
        assert_eq!(terminal_rows(&Line::raw(""), 10), 1);
        assert_eq!(terminal_rows(&Line::raw("0123456789"), 10), 1);
        assert_eq!(terminal_rows(&Line::raw("0123456789a"), 10), 2);
        // The wide character does not fit in the last column and moves down.
        assert_eq!(terminal_rows(&Line::raw("012345678界"), 10), 2);
    }
}
