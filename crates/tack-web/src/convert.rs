//! From a response's bytes to the text the model reads: what kind of content it
//! is, its character set, and HTML turned into Markdown.

use encoding_rs::{Encoding, UTF_8};

/// What a `Content-Type` says about a body, before reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Html,
    Text,
    /// Images, audio, video, fonts, PDFs, archives: refused without reading.
    Binary,
    /// No type, or a generic one (`application/octet-stream`): decided from the bytes.
    Unknown,
}

/// The media type without parameters, lower-cased (`text/html`).
pub(crate) fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

pub(crate) fn kind(content_type: &str) -> Kind {
    let essence = essence(content_type);
    let (top, sub) = essence.split_once('/').unwrap_or((essence.as_str(), ""));
    match (top, sub) {
        ("text", "html") | ("application", "xhtml+xml") => Kind::Html,
        ("text", _) => Kind::Text,
        ("image" | "audio" | "video" | "font" | "model", _) => Kind::Binary,
        ("application", sub) if TEXT_APPLICATION_TYPES.contains(&sub) => Kind::Text,
        ("application", sub) if sub.ends_with("+json") || sub.ends_with("+xml") => Kind::Text,
        ("application", "octet-stream") | ("", "") => Kind::Unknown,
        _ => Kind::Binary,
    }
}

const TEXT_APPLICATION_TYPES: &[&str] = &[
    "json",
    "xml",
    "javascript",
    "ecmascript",
    "x-javascript",
    "typescript",
    "x-sh",
    "x-shellscript",
    "yaml",
    "x-yaml",
    "toml",
    "sql",
    "graphql",
    "x-ndjson",
    "csv",
    "markdown",
    "x-httpd-php",
    "x-tex",
    "rtf",
];

/// For a body of [`Kind::Unknown`]: binary if its start holds a NUL byte, HTML
/// if it opens like a document, text otherwise.
pub(crate) fn sniff(bytes: &[u8]) -> Kind {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Kind::Binary;
    }
    let start: Vec<u8> = head
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take(15)
        .map(u8::to_ascii_lowercase)
        .collect();
    if start.starts_with(b"<!doctype html") || start.starts_with(b"<html") {
        Kind::Html
    } else {
        Kind::Text
    }
}

/// The body as text, in the `charset` the content type names (UTF-8 when it
/// names none or one that is unknown; a byte-order mark wins). Invalid
/// sequences, such as a character cut by the size cap, become U+FFFD.
pub(crate) fn decode(bytes: &[u8], content_type: &str) -> String {
    let encoding = content_type
        .split(';')
        .skip(1)
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("charset"))
        .and_then(|(_, v)| Encoding::for_label(v.trim().trim_matches('"').as_bytes()))
        .unwrap_or(UTF_8);
    let (text, _, _) = encoding.decode(bytes);
    text.into_owned()
}

/// Elements with no reading value: code, styling, embedded media and forms.
const SKIPPED_TAGS: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed",
    "head", "form", "button", "select", "input",
];

/// HTML as Markdown (turndown's rules, through `htmd`), without scripts, styles
/// and other elements a reader does not see as text. CPU-bound: call it off the
/// async threads for big pages.
pub(crate) fn html_to_markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(SKIPPED_TAGS.to_vec())
        .build();
    // htmd only fails if its in-memory tree cannot be written, which does not
    // happen; if it ever did, the raw HTML is still readable by the model.
    converter
        .convert(html)
        .unwrap_or_else(|_| html.to_owned())
        .trim()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn content_types_are_classified() {
        let cases = [
            ("text/html; charset=utf-8", Kind::Html),
            ("application/xhtml+xml", Kind::Html),
            ("text/plain", Kind::Text),
            ("text/markdown", Kind::Text),
            ("application/json", Kind::Text),
            ("application/vnd.api+json", Kind::Text),
            ("application/rss+xml", Kind::Text),
            ("image/png", Kind::Binary),
            ("video/mp4", Kind::Binary),
            ("application/pdf", Kind::Binary),
            ("application/zip", Kind::Binary),
            ("application/octet-stream", Kind::Unknown),
            ("", Kind::Unknown),
        ];
        for (content_type, expected) in cases {
            assert_eq!(kind(content_type), expected, "{content_type}");
        }
    }

    #[test]
    fn unknown_bodies_are_sniffed() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Kind::Binary);
        assert_eq!(sniff(b"  \n<!DOCTYPE html><html>"), Kind::Html);
        assert_eq!(sniff(b"<HTML><body>x"), Kind::Html);
        assert_eq!(sniff(b"fn main() {}\n"), Kind::Text);
    }

    #[test]
    fn charsets_are_honoured() {
        assert_eq!(decode(b"caf\xe9", "text/plain; charset=ISO-8859-1"), "café");
        assert_eq!(decode("café".as_bytes(), "text/plain"), "café");
        assert_eq!(
            decode(b"caf\xc3", "text/plain; charset=\"utf-8\""),
            "caf\u{fffd}"
        );
        assert_eq!(decode("x".as_bytes(), "text/plain; charset=bogus"), "x");
    }

    #[test]
    fn html_becomes_markdown_without_scripts_and_styles() {
        let html = r#"<!doctype html><html><head><title>T</title><style>p{}</style></head>
            <body><h1>Install</h1><p>Run <code>cargo add tack</code> then read
            <a href="https://docs.example/guide">the guide</a>.</p>
            <script>alert(1)</script><ul><li>one</li><li>two</li></ul></body></html>"#;
        assert_eq!(
            html_to_markdown(html),
            "# Install\n\nRun `cargo add tack` then read [the guide](https://docs.example/guide).\n\n*   one\n*   two"
        );
    }
}
