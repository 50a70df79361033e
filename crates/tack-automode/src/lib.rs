//! Auto mode's classifier.
//!
//! # The model
//! In auto mode, a tool call that no rule, safety check, hook or local fast
//! path has decided goes to a [`Classifier`]: a model call on any
//! [`tack_api::ModelClient`] (Anthropic, Bedrock, Vertex, OpenAI-compatible)
//! that reads a [`Transcript`] of the session (the user's messages and the
//! agent's tool calls, never tool results) and the action, and answers a
//! [`Verdict`]: allow, block (with a category and a reason), or failed. The
//! caller (the permission gate in tack-runtime) owns everything around it:
//! when to ask, what a failure means, denial counting, hooks and records.
//!
//! The rules the classifier weighs are four lists ([`AutoModeRules`]: allow,
//! soft deny, hard deny, environment) in tack's own words, which the user's
//! trusted settings replace or extend ([`AutoModeConfig::from_sources`]).
//! Two stages keep it cheap: a verdict alone first, a reasoned one only when
//! the first would block; the transcript prefix is cached between calls.
//!
//! Nothing here reads files or the environment, and nothing is retried beyond
//! the one extra try of a garbled answer: the client given has its own policy.
//!
//! # Where things are
//! - the four lists, merging the trusted sources, `"$defaults"`,
//!   `tack auto-mode defaults|config` JSON: `rules.rs`; the default entries: `defaults.rs`
//! - the transcript (what is kept of a user message, tool-call lines,
//!   shortening, the window of a long session): `transcript.rs`
//! - the system prompt and the two stages' requests (cache breakpoints, caps,
//!   stop sequence): `prompt.rs`
//! - the verdict format and its reader: `verdict.rs`
//! - the two-stage call, retry of a garbled answer, failures, usage: `classifier.rs`
//! - `tack auto-mode critique`: `critique.rs`

mod classifier;
mod critique;
mod defaults;
mod prompt;
mod rules;
mod transcript;
mod verdict;

pub use classifier::{Classification, Classifier, NO_REASON};
pub use critique::{NO_CUSTOM_RULES, critique};
pub use prompt::{
    QUICK_MAX_TOKENS, REASONED_MAX_TOKENS, STOP_SEQUENCE, TRANSCRIPT_BUDGET, system_prompt,
};
pub use rules::{AutoModeConfig, AutoModeRules, DEFAULTS_MARKER, config_json, defaults_json};
pub use transcript::{
    Entry, INPUT_STRING_BYTES, SUMMARY_PREFIX, TOOL_CALL_BYTES, Transcript, USER_TEXT_BYTES,
};
pub use verdict::Verdict;
