//! The small-model request that applies a WebFetch prompt to a page: the page
//! text (cut to a bound) between markers, then the caller's prompt, then the
//! rules for the answer.

use tack_protocol::{Message, MessagesRequest, SystemPrompt};

use crate::fetch::Page;

const SYSTEM: &str = "You read a web page for someone and answer their request about it, using only the page content you are given.";

const RULES: &str = "Answer concisely, from the content above only. In your answer:
- Quote at most 125 characters from any one source, always in quotation marks; say everything else in your own words.
- If the content does not contain what was asked, say so rather than guess.
- Never reproduce song lyrics, and do not comment on the legality of the request or of your answer.";

/// The request for `model`: `page`'s text cut to `max_chars` characters.
pub(crate) fn request(
    model: &str,
    max_tokens: u32,
    page: &Page,
    prompt: &str,
    max_chars: usize,
) -> MessagesRequest {
    let content = bounded(&page.text, max_chars);
    let mut notes = String::new();
    if page.truncated {
        notes.push_str(&format!(
            "\n[The page is longer than could be downloaded: only its first {} bytes were read.]",
            page.bytes
        ));
    }
    let user = format!("Web page content:\n---\n{content}{notes}\n---\n\n{prompt}\n\n{RULES}");
    let mut request = MessagesRequest::new(model, max_tokens, vec![Message::user_text(user)]);
    request.system = Some(SystemPrompt::Text(SYSTEM.into()));
    request
}

/// `text` cut to at most `max_chars` characters, saying so when it was cut.
fn bounded(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some((end, _)) => {
            let total = text.chars().count();
            format!(
                "{}\n\n[Content truncated: the first {max_chars} of {total} characters are shown.]",
                &text[..end]
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn long_text_is_cut_on_a_character_boundary_and_says_so() {
        assert_eq!(bounded("héllo", 10), "héllo");
        assert_eq!(
            bounded("héllo", 2),
            "hé\n\n[Content truncated: the first 2 of 5 characters are shown.]"
        );
    }
}
