//! A start error as the `result` record the Agent SDKs read it from.

use std::collections::BTreeMap;
use std::time::Duration;

use tack_core::session::{ResultSubtype, SessionResult};
use tack_protocol::Usage;
use tack_protocol::stream_json::ResultRecord;

use super::StartError;
use crate::records::result_record;

impl StartError {
    /// The `error_during_execution` result an SDK session reports this error
    /// with, where the SDKs read it from one: a refused truncating resume
    /// (`--resume-drops-turn`), which they raise as a `ProcessError` carrying
    /// the result's text (their docs tell callers to match on `Resume rejected
    /// by --resume-drops-turn:`). `None` for the others, which answer
    /// `initialize` with an error.
    pub fn result_record(&self, session_id: &str) -> Option<ResultRecord> {
        let StartError::ResumeRejected(_) = self else {
            return None;
        };
        let result = SessionResult {
            subtype: ResultSubtype::ErrorDuringExecution,
            is_error: true,
            terminal: None,
            result: String::new(),
            errors: vec![self.to_string()],
            duration: Duration::ZERO,
            duration_api: Duration::ZERO,
            num_turns: 0,
            total_cost_usd: 0.0,
            usage: Usage::default(),
            model_usage: BTreeMap::new(),
            session_id: session_id.to_owned(),
        };
        Some(result_record(&result, None, Vec::new()))
    }
}
