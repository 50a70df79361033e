//! Auto mode in the gate. What the engine leaves to the classifier
//! (`Decision::Classify`) goes to tack-automode's two-stage classifier over
//! the session's transcript of user messages and tool calls (never tool
//! results). Blocks are counted: 3 in a row or 20 in a session hand the next
//! classified call to a person (the front end asks; with nobody to ask the
//! call is refused). A classifier that cannot answer never stalls a person:
//! the front end asks, saying why; a run without one refuses. Every decision
//! of a call in auto mode is kept for `/permissions`, with what decided it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::Value;
use tack_automode::{Classifier, Entry, Transcript, Verdict};
use tack_core::permission::PermissionDecision;
use tack_permissions::Decision;
use tack_protocol::Message;
use tack_tool::{Tool, ToolContext};

use crate::snapshot::{AUTO_DECISIONS_KEPT, AutoDecider, AutoDecisionView, ClassifierUsage};

/// Blocks in a row after which a person decides the next classified call.
pub(crate) const MAX_IN_A_ROW: u32 = 3;
/// Blocks in a session after which a person decides the next classified call.
pub(crate) const MAX_TOTAL: u32 = 20;
/// Longest call summary kept for `/permissions`.
const SUMMARY_CHARS: usize = 160;

/// The session's auto mode: its classifier, what it reads, its counters.
pub(crate) struct AutoMode {
    /// Why the session cannot use auto mode, if it cannot.
    unavailable: Option<String>,
    /// `useAutoModeDuringPlan`: plan mode entered from auto mode classifies
    /// what it would ask about.
    during_plan: bool,
    classifier: OnceLock<Arc<Classifier>>,
    /// The working directories and the repository's git state.
    environment: Mutex<String>,
    transcript: Mutex<Transcript>,
    tally: Mutex<Tally>,
}

#[derive(Default)]
struct Tally {
    in_a_row: u32,
    total: u32,
    decisions: VecDeque<AutoDecisionView>,
    /// Classified calls, their requests and usage (for `/cost`).
    calls: u32,
    requests: u32,
    usage: tack_protocol::Usage,
    /// Calls the classifier allowed (tool, input, directory), with the stage
    /// that did: the same call again is allowed without a request. Blocks
    /// are not kept: a later message of the user's may allow what was blocked.
    allowed: std::collections::HashMap<(String, String, std::path::PathBuf), u8>,
}

/// What the classifier's answer means for the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Judged {
    Allow,
    /// Refused; the model is told `message` (with how the user could allow it).
    Block {
        message: String,
    },
    /// A person decides (the limits were reached, or the classifier could not
    /// answer): `why` explains the prompt, or the refusal when nobody asks.
    Person {
        why: String,
        limit: bool,
    },
}

impl AutoMode {
    pub(crate) fn new(unavailable: Option<String>, during_plan: bool) -> AutoMode {
        AutoMode {
            unavailable,
            during_plan,
            classifier: OnceLock::new(),
            environment: Mutex::new(String::new()),
            transcript: Mutex::new(Transcript::default()),
            tally: Mutex::new(Tally::default()),
        }
    }

    /// Why auto mode cannot be switched on, if it cannot.
    pub(crate) fn unavailable(&self) -> Option<&str> {
        self.unavailable.as_deref()
    }

    /// Plan mode entered from auto mode classifies (`useAutoModeDuringPlan`).
    pub(crate) fn during_plan(&self) -> bool {
        self.during_plan
    }

    pub(crate) fn set_classifier(&self, classifier: Arc<Classifier>) {
        let _ = self.classifier.set(classifier);
    }

    pub(crate) fn set_environment(&self, environment: String) {
        *lock(&self.environment) = environment;
    }

    /// The conversation a resumed session continues.
    pub(crate) fn note_history<'a>(&self, messages: impl IntoIterator<Item = &'a Message>) {
        *lock(&self.transcript) = Transcript::from_messages(messages);
    }

    /// A user message entering the conversation (its text only).
    pub(crate) fn note_user(&self, message: &Message) {
        lock(&self.transcript).push_user(message);
    }

    /// A tool call the agent made (whatever its fate).
    pub(crate) fn note_call(&self, tool: &dyn Tool, input: &Value) {
        lock(&self.transcript).push(Entry::ToolCall {
            name: tool.name().to_owned(),
            input: input.clone(),
        });
    }

    /// Asks the classifier about a call the transcript already holds.
    pub(crate) async fn judge(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        suggestion: Option<&str>,
    ) -> Judged {
        if let Some(why) = self.limit_reached() {
            return Judged::Person { why, limit: true };
        }
        let Some(classifier) = self.classifier.get() else {
            return Judged::Person {
                why: "auto mode has no classifier model in this session".to_owned(),
                limit: false,
            };
        };
        let summary = summary(input);
        let view = |allowed, decided_by, reason: String| AutoDecisionView {
            tool_use_id: ctx.tool_use_id.clone(),
            tool_name: tool.name().to_owned(),
            summary: summary.clone(),
            allowed,
            decided_by,
            reason,
            rule: suggestion.map(str::to_owned),
        };
        let key = (tool.name().to_owned(), input.to_string(), ctx.env.cwd());
        {
            let mut tally = lock(&self.tally);
            if let Some(stage) = tally.allowed.get(&key).copied() {
                tally.in_a_row = 0;
                tally.keep(view(
                    true,
                    AutoDecider::Classifier { stage },
                    "the classifier allowed this same call earlier in the session".to_owned(),
                ));
                return Judged::Allow;
            }
        }
        let action = Entry::ToolCall {
            name: tool.name().to_owned(),
            input: input.clone(),
        };
        let transcript = lock(&self.transcript).clone();
        let environment = lock(&self.environment).clone();
        let counted = classifier
            .classify_counted(&transcript, &action, &environment, &ctx.cancel)
            .await;
        {
            let mut tally = lock(&self.tally);
            tally.calls += 1;
            tally.requests += counted.requests;
            tally.usage += &counted.usage;
        }
        let verdict = counted.verdict;
        match verdict {
            Verdict::Allow { stage } => {
                let mut tally = lock(&self.tally);
                tally.in_a_row = 0;
                tally.allowed.insert(key, stage);
                tally.keep(view(
                    true,
                    AutoDecider::Classifier { stage },
                    "the classifier found nothing to block".to_owned(),
                ));
                Judged::Allow
            }
            Verdict::Block {
                stage,
                category,
                reason,
            } => {
                let mut tally = lock(&self.tally);
                tally.in_a_row += 1;
                tally.total += 1;
                let why = match &category {
                    Some(c) => format!("{reason} ({c})"),
                    None => reason.clone(),
                };
                tally.keep(view(false, AutoDecider::Classifier { stage }, why.clone()));
                Judged::Block {
                    message: block_message(tool.name(), &why, suggestion),
                }
            }
            Verdict::Failed { why } => {
                lock(&self.tally).keep(view(false, AutoDecider::ClassifierFailed, why.clone()));
                Judged::Person {
                    why: format!("auto mode's classifier could not decide: {why}"),
                    limit: false,
                }
            }
        }
    }

    /// The engine's decision, when a rule or a fast path made it (a person
    /// or the classifier decides the rest, and is recorded then).
    pub(crate) fn record_engine(
        &self,
        decision: &Decision,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
    ) {
        let (allowed, decided_by, reason) = match decision {
            Decision::Allow {
                reason,
                rule: Some(rule),
            } => (true, AutoDecider::Rule { rule: rule.clone() }, reason),
            Decision::Allow { reason, rule: None } => (true, AutoDecider::FastPath, reason),
            Decision::Deny { reason, rule } => {
                let rule = rule
                    .clone()
                    .unwrap_or_else(|| "the permission mode".to_owned());
                (false, AutoDecider::Rule { rule }, reason)
            }
            Decision::Ask { .. } | Decision::Classify { .. } => return,
        };
        lock(&self.tally).keep(AutoDecisionView {
            tool_use_id: ctx.tool_use_id.clone(),
            tool_name: tool.name().to_owned(),
            summary: summary(input),
            allowed,
            decided_by,
            reason: reason.clone(),
            rule: None,
        });
    }

    /// A person's answer (a prompt, the prompt tool, a PermissionRequest
    /// hook): it resets the counters, since someone has looked.
    pub(crate) fn record_person(
        &self,
        decided: &PermissionDecision,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
    ) {
        let (allowed, reason) = match decided {
            PermissionDecision::Allow | PermissionDecision::AllowWithInput(_) => {
                (true, "allowed when asked".to_owned())
            }
            PermissionDecision::Deny { message } | PermissionDecision::Stop { message } => {
                (false, message.clone())
            }
            PermissionDecision::Defer => (false, "deferred".to_owned()),
        };
        let mut tally = lock(&self.tally);
        tally.in_a_row = 0;
        tally.total = 0;
        tally.keep(AutoDecisionView {
            tool_use_id: ctx.tool_use_id.clone(),
            tool_name: tool.name().to_owned(),
            summary: summary(input),
            allowed,
            decided_by: AutoDecider::Person,
            reason,
            rule: None,
        });
    }

    /// What the classifier has cost so far; `None` before its first request.
    pub(crate) fn usage(&self) -> Option<ClassifierUsage> {
        let model = self.classifier.get()?.model().to_owned();
        let tally = lock(&self.tally);
        (tally.requests > 0).then(|| ClassifierUsage {
            cost_usd: tack_api::cost(&model, &tally.usage).usd,
            model,
            calls: tally.calls,
            requests: tally.requests,
            usage: tally.usage.clone(),
        })
    }

    pub(crate) fn decisions(&self) -> Vec<AutoDecisionView> {
        lock(&self.tally).decisions.iter().cloned().collect()
    }

    fn limit_reached(&self) -> Option<String> {
        let tally = lock(&self.tally);
        if tally.in_a_row >= MAX_IN_A_ROW {
            Some(format!(
                "{MAX_IN_A_ROW} consecutive actions were blocked by auto mode"
            ))
        } else if tally.total >= MAX_TOTAL {
            Some(format!(
                "{MAX_TOTAL} actions were blocked by auto mode in this session"
            ))
        } else {
            None
        }
    }
}

impl Tally {
    fn keep(&mut self, view: AutoDecisionView) {
        if self.decisions.len() == AUTO_DECISIONS_KEPT {
            self.decisions.pop_front();
        }
        self.decisions.push_back(view);
    }
}

/// What the model is told of a block: why, and how the user could allow it.
fn block_message(tool: &str, why: &str, suggestion: Option<&str>) -> String {
    let allow = match suggestion {
        Some(rule) => format!(
            "If the user wants calls like this to run, they can allow them with the permission rule `{rule}` (in /permissions, or in their settings), or switch to another permission mode."
        ),
        None => "If the user wants it to run, they can add a permission rule for it (/permissions) or switch to another permission mode.".to_owned(),
    };
    format!(
        "Auto mode blocked this {tool} call: {why}. Do not try to get around the block with another tool or command; if the action is needed, ask the user. {allow}"
    )
}

/// The call in one line: its command, path, URL or input.
pub(crate) fn summary(input: &Value) -> String {
    let text = ["command", "file_path", "path", "url", "pattern", "prompt"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_else(|| input.to_string());
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(SUMMARY_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
