//! Where vim's motions and text objects go in the prompt's text: plain
//! functions of the text and a byte offset (on a character boundary), as
//! Claude Code's vim mode moves (words of letters, digits and `_`, runs of
//! other punctuation, or with `W`/`B`/`E` anything but blanks).

/// What a character is to word motions: blank, word, punctuation.
fn class(c: char, big: bool) -> u8 {
    if c.is_whitespace() {
        0
    } else if big || c.is_alphanumeric() || c == '_' {
        1
    } else {
        2
    }
}

fn chars_from(text: &str, at: usize) -> Vec<(usize, char)> {
    text[at..]
        .char_indices()
        .map(|(i, c)| (at + i, c))
        .collect()
}

/// The start of the line `at` is on.
pub fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The end of the line `at` is on (its newline, or the end of the text).
pub fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// The first character of `at`'s line that is not blank (its end when all are).
pub fn first_non_blank(text: &str, at: usize) -> usize {
    let start = line_start(text, at);
    let end = line_end(text, at);
    text[start..end]
        .find(|c: char| c != ' ' && c != '\t')
        .map_or(end, |i| start + i)
}

/// The character after `at` (the end of the text at most).
pub fn next_char(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(at, |c| at + c.len_utf8())
}

/// The character before `at` (0 at least).
pub fn prev_char(text: &str, at: usize) -> usize {
    text[..at]
        .chars()
        .next_back()
        .map_or(0, |c| at - c.len_utf8())
}

/// `w`: the start of the next word (the end of the text when none).
pub fn next_word_start(text: &str, at: usize, big: bool) -> usize {
    let chars = chars_from(text, at);
    let Some(&(_, first)) = chars.first() else {
        return text.len();
    };
    let run = class(first, big);
    let mut in_run = run != 0;
    for &(i, c) in &chars[1..] {
        let k = class(c, big);
        if in_run && k == run {
            continue;
        }
        in_run = false;
        if k != 0 {
            return i;
        }
    }
    text.len()
}

/// `e`: the last character of this word or the next one.
pub fn word_end(text: &str, at: usize, big: bool) -> usize {
    let chars = chars_from(text, at);
    let mut j = 1;
    while j < chars.len() && chars[j].1.is_whitespace() {
        j += 1;
    }
    if j >= chars.len() {
        return chars.last().map_or(at, |c| c.0);
    }
    let k = class(chars[j].1, big);
    while j + 1 < chars.len() && class(chars[j + 1].1, big) == k {
        j += 1;
    }
    chars[j].0
}

/// The last character of the word the cursor is on (`cw`'s end: it
/// changes to there, never into the next word).
pub fn this_word_end(text: &str, at: usize, big: bool) -> usize {
    let chars = chars_from(text, at);
    let Some(&(_, first)) = chars.first() else {
        return at;
    };
    let k = class(first, big);
    let mut j = 0;
    while j + 1 < chars.len() && class(chars[j + 1].1, big) == k {
        j += 1;
    }
    chars[j].0
}

/// `b`: the start of this word or the one before.
pub fn prev_word_start(text: &str, at: usize, big: bool) -> usize {
    let chars: Vec<(usize, char)> = text[..at].char_indices().collect();
    let mut j = chars.len();
    while j > 0 && chars[j - 1].1.is_whitespace() {
        j -= 1;
    }
    if j == 0 {
        return 0;
    }
    let k = class(chars[j - 1].1, big);
    while j > 1 && class(chars[j - 2].1, big) == k {
        j -= 1;
    }
    chars[j - 1].0
}

/// `f` `F` `t` `T`: to a character of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Find {
    /// `f`: onto the next one.
    To,
    /// `F`: onto the one before.
    BackTo,
    /// `t`: just before the next one.
    Till,
    /// `T`: just after the one before.
    BackTill,
}

impl Find {
    pub fn of(c: char) -> Option<Find> {
        Some(match c {
            'f' => Find::To,
            'F' => Find::BackTo,
            't' => Find::Till,
            'T' => Find::BackTill,
            _ => return None,
        })
    }

    /// `,`: the same search the other way.
    pub fn reversed(self) -> Find {
        match self {
            Find::To => Find::BackTo,
            Find::BackTo => Find::To,
            Find::Till => Find::BackTill,
            Find::BackTill => Find::Till,
        }
    }

    pub fn forward(self) -> bool {
        matches!(self, Find::To | Find::Till)
    }

    /// Where the `count`th `target` of the line takes the cursor from `at`;
    /// `None` when the line has fewer.
    pub fn find(self, text: &str, at: usize, target: char, count: usize) -> Option<usize> {
        let (start, end) = (line_start(text, at), line_end(text, at));
        let found = if self.forward() {
            // `t` next to its character already looks past it (as `;` does).
            let from = match self {
                Find::Till => next_char(text, next_char(text, at)),
                _ => next_char(text, at),
            };
            let from = from.min(end);
            text[from..end]
                .char_indices()
                .filter(|&(_, c)| c == target)
                .nth(count - 1)
                .map(|(i, _)| from + i)?
        } else {
            let to = match self {
                Find::BackTill => prev_char(text, at).max(start),
                _ => at,
            };
            text[start..to]
                .char_indices()
                .rev()
                .filter(|&(_, c)| c == target)
                .nth(count - 1)
                .map(|(i, _)| start + i)?
        };
        Some(match self {
            Find::To | Find::BackTo => found,
            Find::Till => prev_char(text, found),
            Find::BackTill => next_char(text, found),
        })
    }
}

/// The range of text object `kind` (`w`, `W`, a quote, a bracket) around
/// `at`: inside it (`i`) or with its delimiters or trailing blanks (`a`).
pub fn text_object(text: &str, at: usize, kind: char, around: bool) -> Option<(usize, usize)> {
    match kind {
        'w' | 'W' => word_object(text, at, kind == 'W', around),
        '"' | '\'' | '`' => quote_object(text, at, kind, around),
        '(' | ')' | 'b' => bracket_object(text, at, '(', ')', around),
        '[' | ']' => bracket_object(text, at, '[', ']', around),
        '{' | '}' | 'B' => bracket_object(text, at, '{', '}', around),
        '<' | '>' => bracket_object(text, at, '<', '>', around),
        _ => None,
    }
}

fn word_object(text: &str, at: usize, big: bool, around: bool) -> Option<(usize, usize)> {
    let c = text[at..].chars().next()?;
    let k = class(c, big);
    let same = |c: char| class(c, big) == k && c != '\n';
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| same(c))
        .last()
        .map_or(at, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .find(|&(_, c)| !same(c))
        .map_or(text.len(), |(i, _)| at + i);
    if !around || k == 0 {
        return Some((start, end));
    }
    let blank = |c: char| c == ' ' || c == '\t';
    let trailing = text[end..]
        .char_indices()
        .find(|&(_, c)| !blank(c))
        .map_or(text.len(), |(i, _)| end + i);
    if trailing > end {
        return Some((start, trailing));
    }
    let leading = text[..start]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| blank(c))
        .last()
        .map_or(start, |(i, _)| i);
    Some((leading, end))
}

fn quote_object(text: &str, at: usize, quote: char, around: bool) -> Option<(usize, usize)> {
    let (start, end) = (line_start(text, at), line_end(text, at));
    let quotes: Vec<usize> = text[start..end]
        .char_indices()
        .filter(|&(_, c)| c == quote)
        .map(|(i, _)| start + i)
        .collect();
    let (open, close) = quotes
        .chunks_exact(2)
        .map(|p| (p[0], p[1]))
        .find(|&(_, close)| close >= at)?;
    Some(if around {
        (open, close + quote.len_utf8())
    } else {
        (open + quote.len_utf8(), close)
    })
}

fn bracket_object(
    text: &str,
    at: usize,
    open: char,
    close: char,
    around: bool,
) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut start = None;
    // The cursor on the opening bracket is inside its pair.
    let upto = if text[at..].starts_with(open) {
        next_char(text, at)
    } else {
        at
    };
    for (i, c) in text[..upto].char_indices().rev() {
        if c == close && i != at {
            depth += 1;
        } else if c == open {
            if depth == 0 {
                start = Some(i);
                break;
            }
            depth -= 1;
        }
    }
    let start = start?;
    let mut depth = 0usize;
    let inner = start + open.len_utf8();
    let end = text[inner..].char_indices().find_map(|(i, c)| {
        if c == open {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return Some(inner + i);
            }
            depth -= 1;
        }
        None
    })?;
    Some(if around {
        (start, end + close.len_utf8())
    } else {
        (inner, end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn words_small_and_big() {
        let t = "foo.bar  baz\nqux";
        assert_eq!(next_word_start(t, 0, false), 3);
        assert_eq!(next_word_start(t, 3, false), 4);
        assert_eq!(next_word_start(t, 0, true), 9);
        assert_eq!(next_word_start(t, 9, false), 13);
        assert_eq!(next_word_start(t, 13, false), t.len());
        assert_eq!(word_end(t, 0, false), 2);
        assert_eq!(word_end(t, 2, false), 3);
        assert_eq!(word_end(t, 0, true), 6);
        assert_eq!(prev_word_start(t, 9, false), 4);
        assert_eq!(prev_word_start(t, 9, true), 0);
        assert_eq!(prev_word_start(t, 13, false), 9);
        assert_eq!(prev_word_start(t, 0, false), 0);
    }

    #[test]
    fn finds_in_the_line() {
        let t = "a,b,c\nd,e";
        assert_eq!(Find::To.find(t, 0, ',', 1), Some(1));
        assert_eq!(Find::To.find(t, 0, ',', 2), Some(3));
        assert_eq!(Find::To.find(t, 0, ',', 3), None);
        assert_eq!(Find::Till.find(t, 0, 'c', 1), Some(3));
        assert_eq!(Find::BackTo.find(t, 4, ',', 1), Some(3));
        assert_eq!(Find::BackTill.find(t, 4, 'a', 1), Some(1));
        assert_eq!(Find::BackTo.find(t, 8, 'c', 1), None);
    }

    #[test]
    fn text_objects() {
        let t = r#"say "hi there" (a (b) c) now"#;
        assert_eq!(text_object(t, 0, 'w', false), Some((0, 3)));
        assert_eq!(text_object(t, 0, 'w', true), Some((0, 4)));
        assert_eq!(text_object(t, 6, '"', false), Some((5, 13)));
        assert_eq!(text_object(t, 6, '"', true), Some((4, 14)));
        assert_eq!(text_object(t, 16, '(', false), Some((16, 23)));
        assert_eq!(text_object(t, 19, ')', false), Some((19, 20)));
        assert_eq!(text_object(t, 15, 'b', true), Some((15, 24)));
        assert_eq!(text_object(t, 0, '[', false), None);
        // The last word: `aw` takes the blank before it.
        assert_eq!(text_object(t, 26, 'w', true), Some((24, 28)));
    }
}
