//! `cat -n`-style line numbering shared by Read and the Edit snippets, in Claude
//! Code's compact format (v2.1.86+): `{lineno}\t{text}`.

/// Lines longer than this many characters are cut (Read's documented limit).
pub(crate) const MAX_LINE_CHARS: usize = 2000;

/// Appends `number\ttext\n`, cutting an over-long line with a marker.
pub(crate) fn push_line(out: &mut String, number: usize, line: &str) {
    let line = line.strip_suffix('\r').unwrap_or(line);
    out.push_str(&number.to_string());
    out.push('\t');
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => {
            out.push_str(&line[..cut]);
            out.push_str("… [line truncated]");
        }
        None => out.push_str(line),
    }
    out.push('\n');
}

/// Lines of `text` without their terminators; a trailing newline does not start
/// another line.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let empty = text.is_empty();
    body.split('\n').filter(move |_| !empty)
}

/// `text` numbered from line 1 as Read shows a whole file.
pub fn numbered(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, line) in lines(text).enumerate() {
        push_line(&mut out, i + 1, line);
    }
    out
}
