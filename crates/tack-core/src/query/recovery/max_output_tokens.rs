//! Output cut at max_tokens (seed 002, "max_output_tokens"):
//!
//! 1. **Escalate**: if the request was sized below the escalated cap with no
//!    override (the loop's default [`DEFAULT_MAX_OUTPUT_TOKENS`] = 8k; the
//!    runtime sizes a Claude model's first request at its output cap, so this
//!    runs for an unknown id's 32k and another provider's 8k, not for a 128k
//!    model, which goes straight to recovery as Claude Code does), retry the
//!    *same* request once with
//!    [`escalated_max_tokens`] (64k, or the model's output cap if smaller) and no
//!    extra message. The cut response is voided (tombstone), not kept.
//! 2. **Recover**: otherwise, up to [`MAX_OUTPUT_TOKENS_RECOVERY_LIMIT`] (3) times,
//!    keep the partial answer and append [`RESUME_MESSAGE`] asking the model to
//!    resume mid-thought with no apology and no recap.
//! 3. **Surface**: then the truncated message stands as the answer (its
//!    `stop_reason` is `max_tokens`) and the loop goes on to the stop hooks.

use tack_protocol::Message;

use crate::query::QueryConfig;
use crate::query::state::{State, Transition};

/// max_tokens of a request unless configured (CLAUDE_CODE_MAX_OUTPUT_TOKENS) or
/// escalated. Claude Code's default cap: most answers fit, and a low cap keeps
/// the context budget for input.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 8_000;
/// The escalated cap (`ESCALATED_MAX_TOKENS`).
pub const ESCALATED_MAX_OUTPUT_TOKENS: u32 = 64_000;
/// "Resume" messages per turn.
pub const MAX_OUTPUT_TOKENS_RECOVERY_LIMIT: u32 = 3;
/// The user message of a recovery.
pub const RESUME_MESSAGE: &str = "Output token limit hit. Resume directly — no apology, no recap \
of what you were doing. Pick up mid-thought if that is where the cut happened. Break remaining \
work into smaller pieces.";

/// 64k, or the model's output cap if it is known and smaller (an unknown
/// model's default cap is a display figure, not a reason to escalate less).
pub fn escalated_max_tokens(model: &str) -> u32 {
    let limits = tack_api::model_limits(model);
    if !limits.known {
        return ESCALATED_MAX_OUTPUT_TOKENS;
    }
    ESCALATED_MAX_OUTPUT_TOKENS.min(u32::try_from(limits.max_output_tokens).unwrap_or(u32::MAX))
}

/// First answer ([`Transition::MaxOutputTokensEscalate`]): `state.messages` are
/// the messages of the cut request, which is sent again unchanged.
pub fn try_escalate(state: &State, config: &QueryConfig, model: &str) -> Option<State> {
    let escalated = escalated_max_tokens(model);
    if state.max_output_tokens_override.is_some()
        || config.max_tokens_configured
        || config.max_tokens >= escalated
    {
        return None;
    }
    Some(State {
        max_output_tokens_override: Some(escalated),
        transition: Some(Transition::MaxOutputTokensEscalate),
        ..state.clone()
    })
}

/// Later answers ([`Transition::MaxOutputTokensRecovery`]): `state.messages`
/// already end with the kept partial answer; returns the next state and the
/// resume message appended to it.
pub fn try_recovery(state: &State) -> Option<(State, Message)> {
    if state.max_output_tokens_recovery_count >= MAX_OUTPUT_TOKENS_RECOVERY_LIMIT {
        return None;
    }
    let resume = Message::user_text(RESUME_MESSAGE);
    let mut messages = state.messages.clone();
    messages.push(resume.clone());
    Some((
        State {
            messages,
            max_output_tokens_recovery_count: state.max_output_tokens_recovery_count + 1,
            transition: Some(Transition::MaxOutputTokensRecovery),
            ..state.clone()
        },
        resume,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// A cap the user set (CLAUDE_CODE_MAX_OUTPUT_TOKENS) is kept: a cut
    /// answer is resumed, never retried with 64k.
    #[test]
    fn a_configured_cap_is_not_escalated() {
        let mut config = QueryConfig::new("claude-sonnet-4-5");
        config.max_tokens = 2_000;
        config.max_tokens_configured = true;
        let state = State::initial(vec![Message::user_text("write")], None);
        assert_eq!(try_escalate(&state, &config, &config.model), None);
        assert!(try_recovery(&state).is_some());
    }

    #[test]
    fn escalates_once_from_the_default_then_recovers_three_times() {
        // Output cap 128k: the escalation is to 64k.
        let config = QueryConfig::new("claude-sonnet-5-5");
        let state = State::initial(vec![Message::user_text("write")], None);
        let escalated = try_escalate(&state, &config, &config.model).expect("escalates");
        assert_eq!(
            escalated,
            State {
                max_output_tokens_override: Some(64_000),
                transition: Some(Transition::MaxOutputTokensEscalate),
                ..state
            }
        );
        assert_eq!(try_escalate(&escalated, &config, &config.model), None);

        let mut s = escalated;
        for n in 1..=3 {
            let (next, resume) = try_recovery(&s).expect("recovers");
            assert_eq!(
                (next.max_output_tokens_recovery_count, next.messages.last()),
                (n, Some(&resume))
            );
            s = next;
        }
        assert_eq!(try_recovery(&s), None);
    }

    #[test]
    fn no_escalation_when_the_cap_is_already_high() {
        let config = QueryConfig {
            max_tokens: 64_000,
            ..QueryConfig::new("claude-sonnet-4-5")
        };
        let state = State::initial(vec![Message::user_text("write")], None);
        assert_eq!(try_escalate(&state, &config, &config.model), None);
    }
}
