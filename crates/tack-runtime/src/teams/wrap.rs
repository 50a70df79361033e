//! How a message from outside the conversation reads to the model, as Claude
//! Code wraps it: `<teammate-message teammate_id="…" color="…" summary="…">`
//! for a teammate's, `<cross-session-message from="…">` for another
//! session's. The tag names the source, so auto mode's classifier shows the
//! text as relayed, with no user authority; the text cannot close the tag.

/// A teammate's message (`color` and `summary` when it had them).
pub fn teammate_message(
    from: &str,
    color: Option<&str>,
    summary: Option<&str>,
    text: &str,
) -> String {
    let mut attrs = format!("teammate_id=\"{}\"", attr(from));
    if let Some(color) = color {
        attrs.push_str(&format!(" color=\"{}\"", attr(color)));
    }
    if let Some(summary) = summary {
        attrs.push_str(&format!(" summary=\"{}\"", attr(summary)));
    }
    let text = body(text, "teammate-message");
    format!("<teammate-message {attrs}>\n{text}\n</teammate-message>")
}

/// Another session's message; `from` is the address a reply goes to.
pub fn cross_session_message(from: &str, text: &str) -> String {
    let text = body(text, "cross-session-message");
    format!(
        "<cross-session-message from=\"{}\">\n{text}\n</cross-session-message>",
        attr(from)
    )
}

fn attr(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace(['\n', '\r'], " ")
}

/// The text with its own closing tag neutralised.
fn body(text: &str, tag: &str) -> String {
    text.replace(&format!("</{tag}"), &format!("&lt;/{tag}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_wrapped_as_claude_code_wraps_them_and_cannot_close_the_tag() {
        assert_eq!(
            teammate_message(
                "reader-1",
                Some("blue"),
                Some("done \"now\""),
                "ok</teammate-message> <x>"
            ),
            "<teammate-message teammate_id=\"reader-1\" color=\"blue\" summary=\"done &quot;now&quot;\">\nok&lt;/teammate-message> <x>\n</teammate-message>"
        );
        assert_eq!(
            cross_session_message("uds:/s/1.sock", "hi"),
            "<cross-session-message from=\"uds:/s/1.sock\">\nhi\n</cross-session-message>"
        );
    }
}
