//! Line endings: Read shows lines without `\r`, so the model's strings use `\n`.
//! Edits to a CRLF file are matched on the LF form and written back as CRLF.

use std::borrow::Cow;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineEnding {
    Lf,
    /// Every `\n` in the file is preceded by `\r`.
    Crlf,
}

pub(crate) fn detect(text: &str) -> LineEnding {
    let lf = text.matches('\n').count();
    if lf > 0 && text.matches("\r\n").count() == lf {
        LineEnding::Crlf
    } else {
        LineEnding::Lf
    }
}

/// `\r\n` → `\n` (lone `\r`s are kept).
pub(crate) fn to_lf(text: &str) -> Cow<'_, str> {
    if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// Converts LF text back to `ending`.
pub(crate) fn restore(text: String, ending: LineEnding) -> String {
    match ending {
        LineEnding::Lf => text,
        LineEnding::Crlf => text.replace('\n', "\r\n"),
    }
}
