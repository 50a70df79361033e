//! The multi-line prompt editor: a text and a cursor, edited by grapheme.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use super::paste::placeholder_before;

/// The text being typed. The cursor is a byte offset on a grapheme boundary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Editor {
    text: String,
    cursor: usize,
}

impl Editor {
    pub fn new() -> Editor {
        Editor::default()
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Replaces the text; the cursor goes to the end.
    pub fn set_text(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.cursor = self.text.len();
    }

    /// Empties the editor, returning what it held.
    pub fn take(&mut self) -> String {
        self.cursor = 0;
        std::mem::take(&mut self.text)
    }

    pub fn insert_str(&mut self, s: &str) {
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
    }

    pub fn insert_char(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    /// Moves the cursor to `at` (clamped to the text, back to a character
    /// boundary).
    pub fn set_cursor(&mut self, at: usize) {
        let mut at = at.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        self.cursor = at;
    }

    /// Replaces `range` with `with`; the cursor is the caller's to set
    /// (it is kept inside the text).
    pub fn splice(&mut self, range: std::ops::Range<usize>, with: &str) {
        self.text.replace_range(range, with);
        self.set_cursor(self.cursor);
    }

    /// Replaces `start..cursor` with `with` (completions).
    pub fn replace_before_cursor(&mut self, start: usize, with: &str) {
        let start = start.min(self.cursor);
        self.text.replace_range(start..self.cursor, with);
        self.cursor = start + with.len();
    }

    fn prev_boundary(&self, at: usize) -> usize {
        self.text[..at]
            .grapheme_indices(true)
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self, at: usize) -> usize {
        self.text[at..]
            .graphemes(true)
            .next()
            .map_or(at, |g| at + g.len())
    }

    /// Deletes the grapheme before the cursor; a paste placeholder goes whole.
    pub fn backspace(&mut self) {
        if self.cursor == 0 {
            return;
        }
        let start = placeholder_before(&self.text[..self.cursor])
            .unwrap_or_else(|| self.prev_boundary(self.cursor));
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Deletes the grapheme under the cursor.
    pub fn delete(&mut self) {
        let end = self.next_boundary(self.cursor);
        self.text.replace_range(self.cursor..end, "");
    }

    pub fn left(&mut self) {
        self.cursor = self.prev_boundary(self.cursor);
    }

    pub fn right(&mut self) {
        self.cursor = self.next_boundary(self.cursor);
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i)
    }

    pub fn home(&mut self) {
        self.cursor = self.line_start();
    }

    pub fn end(&mut self) {
        self.cursor = self.line_end();
    }

    pub fn word_left(&mut self) {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end();
        self.cursor = trimmed.rfind(|c: char| c.is_whitespace()).map_or(0, |i| {
            i + trimmed[i..].chars().next().map_or(1, char::len_utf8)
        });
    }

    pub fn word_right(&mut self) {
        let after = &self.text[self.cursor..];
        let skip_ws = after.len() - after.trim_start().len();
        let rest = &after[skip_ws..];
        let word = rest.find(char::is_whitespace).unwrap_or(rest.len());
        self.cursor += skip_ws + word;
    }

    /// Ctrl+W: deletes the word before the cursor.
    pub fn delete_word_back(&mut self) {
        let end = self.cursor;
        self.word_left();
        self.text.replace_range(self.cursor..end, "");
    }

    /// Ctrl+U: deletes to the start of the line.
    pub fn kill_to_line_start(&mut self) {
        let start = self.line_start();
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Ctrl+K: deletes to the end of the line.
    pub fn kill_to_line_end(&mut self) {
        let end = self.line_end();
        self.text.replace_range(self.cursor..end, "");
    }

    /// Column (in graphemes) of the cursor in its line.
    fn column(&self) -> usize {
        self.text[self.line_start()..self.cursor]
            .graphemes(true)
            .count()
    }

    fn move_to_column(&mut self, line_start: usize, column: usize) {
        let line = &self.text[line_start..];
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        let offset: usize = line.graphemes(true).take(column).map(str::len).sum();
        self.cursor = line_start + offset;
    }

    /// Moves to the line above; false when already on the first line.
    pub fn up(&mut self) -> bool {
        let start = self.line_start();
        if start == 0 {
            return false;
        }
        let column = self.column();
        let prev_start = self.text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        self.move_to_column(prev_start, column);
        true
    }

    /// Moves to the line below; false when already on the last line.
    pub fn down(&mut self) -> bool {
        let end = self.line_end();
        if end == self.text.len() {
            return false;
        }
        let column = self.column();
        self.move_to_column(end + 1, column);
        true
    }

    /// Whether the cursor is on the first / last line.
    pub fn on_first_line(&self) -> bool {
        self.line_start() == 0
    }

    pub fn on_last_line(&self) -> bool {
        self.line_end() == self.text.len()
    }

    /// The text as rows of at most `width` columns (wrapped by character), with
    /// the cursor drawn as a reversed cell when `show_cursor`.
    pub fn render(&self, width: u16, style: Style, show_cursor: bool) -> Vec<Line<'static>> {
        self.render_selected(width, style, show_cursor, None)
    }

    /// [`Editor::render`] with the `selected` bytes (vim's VISUAL) shown
    /// reversed, as the cursor is.
    pub fn render_selected(
        &self,
        width: u16,
        style: Style,
        show_cursor: bool,
        selected: Option<std::ops::Range<usize>>,
    ) -> Vec<Line<'static>> {
        let width = usize::from(width.max(1));
        let caret = style.add_modifier(Modifier::REVERSED);
        let selected = selected.unwrap_or(0..0);
        let mut rows: Vec<Line<'static>> = Vec::new();
        let mut offset = 0;
        for line in self.text.split('\n') {
            let mut row: Vec<Span<'static>> = Vec::new();
            let mut run = String::new();
            let mut col = 0;
            for g in line.graphemes(true) {
                let w = g.width();
                if col + w > width {
                    if !run.is_empty() {
                        row.push(Span::styled(std::mem::take(&mut run), style));
                    }
                    rows.push(Line::from(std::mem::take(&mut row)));
                    col = 0;
                }
                if (show_cursor && offset == self.cursor) || selected.contains(&offset) {
                    if !run.is_empty() {
                        row.push(Span::styled(std::mem::take(&mut run), style));
                    }
                    row.push(Span::styled(g.to_string(), caret));
                } else {
                    run.push_str(g);
                }
                col += w;
                offset += g.len();
            }
            if !run.is_empty() {
                row.push(Span::styled(run, style));
            }
            if show_cursor && offset == self.cursor {
                if col + 1 > width {
                    rows.push(Line::from(std::mem::take(&mut row)));
                }
                row.push(Span::styled(" ", caret));
            }
            rows.push(Line::from(row));
            offset += 1; // the newline
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn editor(text: &str, cursor: usize) -> Editor {
        Editor {
            text: text.to_string(),
            cursor,
        }
    }

    #[test]
    fn a_selection_is_shown_reversed_as_the_cursor() {
        let e = editor("abcd", 3);
        let plain = Style::new();
        let caret = plain.add_modifier(Modifier::REVERSED);
        let rows = e.render_selected(10, plain, true, Some(1..3));
        let spans: Vec<(String, Style)> = rows[0]
            .spans
            .iter()
            .map(|s| (s.content.to_string(), s.style))
            .collect();
        assert_eq!(
            spans,
            [
                ("a".to_owned(), plain),
                ("b".to_owned(), caret),
                ("c".to_owned(), caret),
                ("d".to_owned(), caret),
            ]
        );
    }

    #[test]
    fn edits_by_grapheme() {
        let mut e = Editor::new();
        e.insert_str("héllo👍🏽");
        e.backspace();
        assert_eq!(e, editor("héllo", 6));
        e.left();
        e.left();
        e.delete();
        // Two steps left of the end is before the second "l" (é is 2 bytes).
        assert_eq!(e, editor("hélo", 4));
        e.insert_char('L');
        assert_eq!(e, editor("hélLo", 5));
    }

    #[test]
    fn moves_between_lines_keeping_the_column() {
        let mut e = editor("first line\nab\nthird", 8);
        assert!(e.down());
        assert_eq!(e.cursor(), 13); // end of "ab"
        assert!(e.down());
        assert_eq!(e.cursor(), 16); // "th|ird"
        assert!(!e.down());
        assert!(e.up());
        assert!(e.up());
        assert_eq!(e.cursor(), 2);
        assert!(!e.up());
    }

    #[test]
    fn words_and_kills() {
        let mut e = editor("git commit -m msg", 17);
        e.delete_word_back();
        assert_eq!(e, editor("git commit -m ", 14));
        e.word_left();
        assert_eq!(e.cursor(), 11);
        e.kill_to_line_end();
        assert_eq!(e, editor("git commit ", 11));
        e.kill_to_line_start();
        assert_eq!(e, editor("", 0));
    }

    #[test]
    fn renders_wrapped_rows_with_the_caret() {
        let e = editor("abcdef\nxy", 2);
        let rows = e.render(4, Style::new(), true);
        let text: Vec<String> = rows
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(text, vec!["abcd", "ef", "xy"]);
        assert_eq!(rows[0].spans[1].content, "c");
        assert_eq!(
            rows[0].spans[1].style,
            Style::new().add_modifier(Modifier::REVERSED)
        );
    }
}
