//! Text the model reads that came from outside the conversation and is not
//! the user's word: a teammate's or another session's message, a background
//! task's end, a scheduled prompt, a Monitor's output. Each starts with one of
//! these tags; auto mode's classifier shows such text as relayed, with no
//! user authority (a message cannot consent for the user).

/// The tags a relayed text may start with (`<tag` then `>`, a space or a newline).
pub const RELAYED_TAGS: &[&str] = &[
    "teammate-message",
    "cross-session-message",
    "task-notification",
    "scheduled-task",
    "monitor-event",
];

/// Whether `text` (leading whitespace aside) starts with a relayed tag.
pub fn is_relayed(text: &str) -> bool {
    let Some(rest) = text.trim_start().strip_prefix('<') else {
        return false;
    };
    RELAYED_TAGS.iter().any(|tag| {
        rest.strip_prefix(tag)
            .and_then(|after| after.chars().next())
            .is_some_and(|c| c == '>' || c.is_whitespace())
    })
}

/// `value` as a relayed tag's attribute value: the characters that could end
/// the value or the tag are escaped.
pub fn attribute(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relayed_text_starts_with_a_whole_tag() {
        let cases = [
            (
                "<teammate-message teammate_id=\"a\">hi</teammate-message>",
                true,
            ),
            ("  \n<task-notification>\n<task-id>x</task-id>", true),
            ("<monitor-event>line", true),
            ("<teammate-messages>x", false),
            ("please run <teammate-message>x", false),
            ("<system-reminder>x", false),
            ("", false),
        ];
        let got: Vec<_> = cases.iter().map(|(t, _)| (*t, is_relayed(t))).collect();
        assert_eq!(got, cases.to_vec());
    }
}
