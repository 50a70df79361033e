//! Structured output (`--json-schema`, the SDKs' `output_format` /
//! `outputFormat`), as Claude Code does it: the model gets one more tool,
//! `StructuredOutput`, whose input schema is the user's, and answers by
//! calling it.
//!
//! - A valid answer ends the turn after its tool_result, with no further
//!   model call ([`TurnEnd::Answer`] → core's `Terminal::Answered`); the
//!   `result` record carries it as `structured_output`.
//! - An invalid one goes back to the model as an error tool_result naming each
//!   problem; the [`MAX_ATTEMPTS`]th failure in a turn ends the turn as
//!   `error_max_structured_output_retries` ([`TurnEnd::RetriesExhausted`]).
//!   Claude Code's number: its SDK users report "Failed to provide valid
//!   structured output after 5 attempts".
//! - A model that ends its turn without calling the tool is reminded once per
//!   exit point through the Stop seam ([`AnswerReminder`]), as Claude Code
//!   does with a Stop hook of its own; core obeys one Stop block per exit
//!   point, so a model that ignores the reminder ends the turn without
//!   `structured_output` (a `success` result the SDKs see as no answer).
//!
//! Only the main session has the tool: sub-agents answer their caller in text.

mod schema;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use futures::future::BoxFuture;
use serde_json::Value;
use tack_core::query::{LoopHooks, StopHookInput, StopHookOutcome};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult, TurnEnd};

pub use schema::{OutputSchema, SchemaError};

pub const STRUCTURED_OUTPUT_TOOL_NAME: &str = "StructuredOutput";

/// Invalid answers in one turn before it ends as an error.
pub const MAX_ATTEMPTS: u32 = 5;

/// What the model is told when it ends its turn without answering.
pub const REMINDER: &str =
    "You MUST call the StructuredOutput tool to complete this request. Call this tool now.";

const DESCRIPTION: &str = "Returns your final answer in the structured form the user asked for. \
Call this tool exactly once, at the end, with the whole answer as its input: the input must match \
the tool's schema. If the call fails validation, fix what the error names and call it again.";

/// The `StructuredOutput` tool; see the module docs.
#[derive(Debug)]
pub struct StructuredOutputTool {
    schema: OutputSchema,
    /// Invalid answers since the turn started.
    failures: AtomicU32,
}

impl StructuredOutputTool {
    pub fn new(schema: OutputSchema) -> Self {
        StructuredOutputTool {
            schema,
            failures: AtomicU32::new(0),
        }
    }

    /// A new turn starts with all its attempts (the runtime calls this at each
    /// submit, so an interrupted turn's failures do not count against the next).
    pub fn new_turn(&self) {
        self.failures.store(0, Ordering::Relaxed);
    }

    fn answer(&self, input: Value) -> ToolOutput {
        match self.schema.check(&input) {
            Ok(()) => {
                self.new_turn();
                ToolOutput::text("Structured output provided successfully")
                    .with_turn_end(TurnEnd::Answer(input))
            }
            Err(problems) => {
                let error =
                    ToolError::new(format!("Output does not match required schema: {problems}"));
                let failures = self.failures.fetch_add(1, Ordering::Relaxed) + 1;
                let output = ToolOutput::text(error.to_tool_result_text()).with_error(true);
                if failures < MAX_ATTEMPTS {
                    return output;
                }
                self.new_turn();
                output.with_turn_end(TurnEnd::RetriesExhausted(format!(
                    "Failed to provide valid structured output after {MAX_ATTEMPTS} attempts"
                )))
            }
        }
    }
}

impl Tool for StructuredOutputTool {
    fn name(&self) -> &str {
        STRUCTURED_OUTPUT_TOOL_NAME
    }

    fn description(&self) -> String {
        DESCRIPTION.to_owned()
    }

    fn input_schema(&self) -> Value {
        self.schema.schema().clone()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    /// One at a time: the attempts are counted in the order the model made them.
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }

    /// The schema is checked in `call`, where failures are counted.
    fn validate(&self, _input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(std::future::ready(Ok(self.answer(input))))
    }
}

/// The session's Stop seam with the reminder in front: an exit point without
/// an answer is blocked once with [`REMINDER`]; the session's own Stop hooks
/// (if any) run when the reminder has been given.
pub(crate) struct AnswerReminder {
    pub inner: Option<Arc<dyn LoopHooks>>,
}

impl LoopHooks for AnswerReminder {
    fn stop<'a>(&'a self, input: StopHookInput<'a>) -> BoxFuture<'a, StopHookOutcome> {
        if !input.stop_hook_active {
            return Box::pin(std::future::ready(StopHookOutcome::Block {
                reason: REMINDER.to_owned(),
            }));
        }
        match &self.inner {
            Some(inner) => inner.stop(input),
            None => Box::pin(std::future::ready(StopHookOutcome::Pass)),
        }
    }

    fn pre_compact(&self) -> BoxFuture<'_, Result<(), String>> {
        match &self.inner {
            Some(inner) => inner.pre_compact(),
            None => Box::pin(std::future::ready(Ok(()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn tool() -> StructuredOutputTool {
        let schema = json!({
            "type": "object",
            "properties": {"color": {"type": "string", "enum": ["red", "blue"]}},
            "required": ["color"]
        });
        StructuredOutputTool::new(OutputSchema::compile(schema).expect("valid"))
    }

    const WRONG: &str = "<tool_use_error>Output does not match required schema: \
                         /color: value must be one of 'red', 'blue'</tool_use_error>";

    #[test]
    fn a_valid_answer_ends_the_turn_with_it() {
        assert_eq!(
            tool().answer(json!({"color": "red"})),
            ToolOutput::text("Structured output provided successfully")
                .with_turn_end(TurnEnd::Answer(json!({"color": "red"})))
        );
    }

    #[test]
    fn the_fifth_invalid_answer_ends_the_turn_as_an_error() {
        let tool = tool();
        for _ in 1..MAX_ATTEMPTS {
            assert_eq!(
                tool.answer(json!({"color": "green"})),
                ToolOutput::text(WRONG).with_error(true)
            );
        }
        assert_eq!(
            tool.answer(json!({"color": "green"})),
            ToolOutput::text(WRONG)
                .with_error(true)
                .with_turn_end(TurnEnd::RetriesExhausted(
                    "Failed to provide valid structured output after 5 attempts".to_owned()
                ))
        );
        // The count starts again: the next turn has all its attempts.
        assert_eq!(
            tool.answer(json!({"color": "green"})),
            ToolOutput::text(WRONG).with_error(true)
        );
    }

    #[test]
    fn a_new_turn_forgets_the_last_ones_failures() {
        let tool = tool();
        for _ in 1..MAX_ATTEMPTS {
            tool.answer(json!({}));
        }
        tool.new_turn();
        assert_eq!(tool.answer(json!({})).turn_end, None);
    }
}
