//! `tack auto-mode critique`: one model call that reviews the user's own
//! rules (the entries that are not tack's defaults) and says, in plain text,
//! what is ambiguous, too broad, in conflict or missing.

use tack_api::{ModelClient, final_message};
use tack_protocol::{Message, MessagesRequest, SystemPrompt};
use tokio_util::sync::CancellationToken;

use crate::prompt;
use crate::rules::AutoModeConfig;

/// The answer when there is nothing of the user's to review (no model call).
pub const NO_CUSTOM_RULES: &str = "You have no auto mode rules of your own: tack's defaults apply \
(`tack auto-mode defaults` prints them). Add yours under `autoMode` in your user settings; \
\"$defaults\" in a list keeps the defaults beside them.";

const MAX_TOKENS: u32 = 4096;

const SYSTEM: &str = "\
You review rules that a user wrote for an auto-mode classifier: a model that reads a coding \
agent's actions and blocks the risky ones. The classifier reads the rules below in its system \
prompt. Review only the user's own rules. For each one that has a problem, say which rule it \
is and what is wrong: ambiguous wording the classifier could read two ways, a rule too broad \
(it would allow or block far more than meant), a rule in the wrong list (an exception written \
as a deny, a boundary written as a soft deny), a conflict with another rule, or an environment \
entry too vague to tell inside from outside. Then name anything important the user's rules \
seem to be missing. Be brief and concrete, suggest better wording, and answer in plain text \
without a preamble.";

/// The critique of `config`'s custom rules, by `model`; the error says what failed.
pub async fn critique(
    client: &dyn ModelClient,
    model: &str,
    config: &AutoModeConfig,
    cancel: &CancellationToken,
) -> Result<String, String> {
    let custom = config.custom_rules();
    if custom.is_empty() {
        return Ok(NO_CUSTOM_RULES.to_owned());
    }
    let mut text = String::from("The user's own rules, by list:\n");
    for (key, entries) in &custom {
        text.push_str(&format!("\n<{key}>\n"));
        for entry in entries {
            text.push_str(&format!("- {entry}\n"));
        }
        text.push_str(&format!("</{key}>\n"));
    }
    text.push_str(
        "\nThe classifier's whole system prompt with these rules in place:\n<classifier_prompt>\n",
    );
    text.push_str(&prompt::system_prompt(&config.rules));
    text.push_str("\n</classifier_prompt>");

    let mut request = MessagesRequest::new(model, MAX_TOKENS, vec![Message::user_text(text)]);
    request.system = Some(SystemPrompt::Text(SYSTEM.to_owned()));
    let stream = client.stream(request, cancel.clone());
    match final_message(stream).await {
        Ok(Some(message)) => {
            let answer = crate::verdict::answer_text(&message);
            let answer = answer.trim();
            if answer.is_empty() {
                Err(format!(
                    "the critique model ({model}) answered with no text"
                ))
            } else {
                Ok(answer.to_owned())
            }
        }
        Ok(None) => Err(format!("the critique model ({model}) sent no answer")),
        Err(e) => Err(format!("the critique request to {model} failed: {e}")),
    }
}
