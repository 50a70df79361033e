//! ExitPlanMode and EnterPlanMode: the model asks the user to approve its
//! plan and leave plan mode, or to enter plan mode before a large change.
//!
//! Both ask a person every time (the permission engine's mode-switch
//! tools), so they are offered only to sessions that can ask: the terminal,
//! an SDK host answering `can_use_tool`, a permission prompt tool. The plan
//! lives in the session's plan file (`~/.claude/plans/<slug>.md`), which
//! plan mode lets Write and Edit change; ExitPlanMode shows it to whoever
//! approves and returns it to the model once approved. An answer that sets
//! a mode (the SDK's `setMode` update, "yes, and accept edits") decides the
//! mode after plan mode; otherwise it is the one plan mode was entered from.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tack_permissions::PermissionMode;
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use crate::gate::Gate;
use crate::gate::relay::{OnVerdict, PlanApprover, PlanVerdict};

pub(crate) const EXIT_PLAN_MODE: &str = crate::gate::EXIT_PLAN_MODE;
pub(crate) const ENTER_PLAN_MODE: &str = "EnterPlanMode";

/// The pair for a session that can ask, with its plan file set on the gate.
pub(crate) fn plan_mode_tools(gate: &Arc<Gate>, plan_file: PathBuf) -> Vec<Arc<dyn Tool>> {
    if !gate.can_ask() {
        return Vec::new();
    }
    gate.set_plan_file(plan_file);
    vec![
        Arc::new(ExitPlanMode {
            gate: gate.clone(),
            lead: None,
        }),
        Arc::new(EnterPlanMode(gate.clone())),
    ]
}

/// The ExitPlanMode of an in-process teammate spawned in plan mode: its
/// lead approves the plan (`crate::teams::plan_approval`).
pub(crate) fn teammate_exit_plan_mode(
    gate: &Arc<Gate>,
    lead: Arc<dyn PlanApprover>,
) -> Arc<dyn Tool> {
    Arc::new(ExitPlanMode {
        gate: gate.clone(),
        lead: Some(lead),
    })
}

/// `<plans dir>/<slug>.md`: words picked by the session id, then its first
/// eight characters, so a resumed session finds its plan and two sessions
/// never share one.
pub(crate) fn plan_file_for(plans_dir: &Path, session_id: &str) -> PathBuf {
    const FIRST: &[&str] = &[
        "amber", "brisk", "calm", "deft", "eager", "fond", "gentle", "hardy", "keen", "lucid",
        "mellow", "nimble", "quiet", "rapid", "steady", "tidy",
    ];
    const SECOND: &[&str] = &[
        "anchor", "beacon", "canyon", "delta", "ember", "falcon", "garden", "harbor", "island",
        "lantern", "meadow", "orchard", "pebble", "river", "summit", "willow",
    ];
    let sum = session_id
        .bytes()
        .fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b.into()));
    let head: String = session_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(8)
        .collect();
    let slug = format!(
        "{}-{}-{head}",
        FIRST[sum % FIRST.len()],
        SECOND[(sum / FIRST.len()) % SECOND.len()]
    );
    plans_dir.join(format!("{slug}.md"))
}

/// A teammate's own plan file beside the session's (Claude Code's
/// `<slug>-agent-<id>.md`): `<session's plan>-agent-<name>.md`; when the
/// session has none (nobody to ask), under `<claude dir>/plans`.
pub(crate) fn teammate_plan_file(
    gate: &Gate,
    claude_dir: &Path,
    session_id: &str,
    name: &str,
) -> PathBuf {
    let session = (gate.plan_file().map(Path::to_path_buf))
        .unwrap_or_else(|| plan_file_for(&claude_dir.join("plans"), session_id));
    let stem = (session.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    session.with_file_name(format!("{stem}-agent-{name}.md"))
}

struct ExitPlanMode {
    gate: Arc<Gate>,
    /// A teammate's lead, which approves its plan (an in-process
    /// teammate's; a teammate process finds its own through the gate).
    lead: Option<Arc<dyn PlanApprover>>,
}
struct EnterPlanMode(Arc<Gate>);

const EXIT_DESCRIPTION: &str = "Asks the user to approve your plan and leave plan mode. Use it in plan mode, once the plan file (named in the plan-mode instructions) holds your finished plan: the user reads it there and approves it or tells you what to change.

- Only for a plan of changes to make, not after research or questions: then just answer.
- Do not ask \"is this plan all right?\" any other way: this tool is that question.
- If the user approves, plan mode ends and you can start the work; if not, you get their reasons and stay in plan mode to revise the plan.";

const ENTER_DESCRIPTION: &str = "Asks the user to switch the session to plan mode before a change that deserves a plan: several files, more than one reasonable approach, or an unclear request. In plan mode you only read and write the plan to a plan file, then call ExitPlanMode for the user's approval.

Skip it for small, clear changes, and for questions or research. The user may decline: then carry on as before.";

fn not_in_plan_mode() -> ToolError {
    ToolError::new(
        "Not in plan mode: ExitPlanMode ends plan mode after a plan is written. If your plan was already approved, go on with the work.",
    )
}

impl Tool for ExitPlanMode {
    fn name(&self) -> &str {
        EXIT_PLAN_MODE
    }

    fn description(&self) -> String {
        EXIT_DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "allowedPrompts": {
                    "type": "array",
                    "description": "Kinds of command the plan will need, for the user to see while approving (for example {\"tool\": \"Bash\", \"prompt\": \"run the tests\"}).",
                    "items": {
                        "type": "object",
                        "properties": {
                            "tool": {"type": "string", "enum": ["Bash"]},
                            "prompt": {"type": "string"}
                        },
                        "required": ["tool", "prompt"],
                        "additionalProperties": false
                    }
                }
            },
            "additionalProperties": {}
        })
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, _input: &Value, ctx: &ToolContext) -> Result<(), ToolError> {
        let planning = match self.gate.agent_plan_file(ctx) {
            Some(_) => self.gate.mode_of(ctx) == PermissionMode::Plan,
            None => self.gate.planning_or_just_left(),
        };
        match planning {
            true => Ok(()),
            false => Err(not_in_plan_mode()),
        }
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let file = (self.gate.agent_plan_file(ctx))
                .or_else(|| self.gate.plan_file().map(Path::to_path_buf));
            let plan = approved_plan(file.as_deref(), &input)?;
            if let Some(lead) = self.lead.clone().or_else(|| self.gate.plan_lead()) {
                return self.ask_lead(lead, plan, file, ctx).await;
            }
            // The answer may have set a mode already ("and accept edits").
            self.gate.leave_plan_mode();
            let text = match (&plan, &file) {
                (Some(plan), Some(file)) => format!(
                    "The user approved your plan: start the work now (update your todo list first if you keep one).\n\nThe plan is saved in {}; refer to it as you go.\n\n## Approved plan:\n{plan}",
                    file.display()
                ),
                _ => "The user approved leaving plan mode: go on.".to_owned(),
            };
            Ok(ToolOutput::text(text).with_structured(json!({
                "plan": plan,
                "isAgent": false,
                "filePath": file,
            })))
        }
        .boxed()
    }
}

impl ExitPlanMode {
    /// A teammate's plan goes to its lead and the call returns at once (as
    /// Claude Code's does): the lead's answer arrives later as a message.
    /// An approval read from the inbox ends its plan mode (for the mode
    /// the lead sends, or the one before); a refusal leaves it planning,
    /// the lead's feedback in the message.
    async fn ask_lead(
        &self,
        lead: Arc<dyn PlanApprover>,
        plan: Option<String>,
        file: Option<PathBuf>,
        ctx: &ToolContext,
    ) -> ToolResult {
        let (Some(plan), Some(file)) = (plan.filter(|p| !p.trim().is_empty()), file) else {
            return Err(ToolError::new(
                "No plan to approve: write your plan to your plan file (named in the plan-mode instructions) before calling ExitPlanMode.",
            ));
        };
        let own = (ctx.env.agent())
            .filter(|_| self.gate.agent_plan_file(ctx).is_some())
            .map(|a| a.id.clone());
        let gate = Arc::downgrade(&self.gate);
        let on_verdict: OnVerdict = Box::new(move |verdict: PlanVerdict| {
            let Some(gate) = gate.upgrade().filter(|_| verdict.approved) else {
                return;
            };
            match own {
                Some(agent) => gate.leave_agent_plan(&agent, verdict.permission_mode),
                None => {
                    if let Some(mode) = verdict.permission_mode {
                        gate.set_mode(mode);
                    }
                    gate.leave_plan_mode();
                }
            }
        });
        let id = lead
            .submit(&plan, &file, on_verdict)
            .map_err(ToolError::new)?;
        Ok(
            ToolOutput::text(submitted_text(&file, &id)).with_structured(json!({
                "plan": plan,
                "isAgent": true,
                "filePath": file,
                "awaitingLeaderApproval": true,
                "requestId": id,
            })),
        )
    }
}

/// What a teammate's ExitPlanMode answers once its plan is with the lead.
fn submitted_text(file: &Path, id: &str) -> String {
    format!(
        "Your plan is with the team lead for approval (plan file: {}).\n\nWhat comes next: the lead's answer arrives as a message. Approved, plan mode is over and you start the work; refused, you stay in plan mode: revise the plan as its feedback says and call ExitPlanMode again.\n\nDo not start the work before the approval arrives.\n\nRequest ID: {id}",
        file.display()
    )
}

/// The plan given as `plan` (an older caller's, or a host's edit of the one
/// it was shown), which is then saved to the plan file; else the plan file's.
fn approved_plan(file: Option<&Path>, input: &Value) -> Result<Option<String>, ToolError> {
    let saved = file.and_then(read_plan);
    let Some(plan) = input.get("plan").and_then(Value::as_str) else {
        return Ok(saved);
    };
    if let Some(file) = file.filter(|_| saved.as_deref() != Some(plan)) {
        save_plan(file, plan).map_err(|e| {
            ToolError::new(format!("Cannot save the plan to {}: {e}", file.display()))
        })?;
    }
    Ok(Some(plan.to_owned()))
}

/// The plan file's text, read as a file others may have put there is: a
/// regular file of at most 10 MB (a FIFO would block the session for good);
/// `None` when it cannot be read.
fn read_plan(file: &Path) -> Option<String> {
    tack_sys::read_config_file(file, tack_sys::MAX_CONFIG_BYTES).ok()
}

/// Writes the plan file as the other shared files are written: its folder
/// made private, under that folder's lock (another session, a teammate,
/// Claude Code may write a plan there too), replaced atomically, 0600.
fn save_plan(file: &Path, plan: &str) -> std::io::Result<()> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    tack_sys::private_file::create_dirs_private(dir)?;
    let _lock = tack_sys::lock_exclusive(dir)?;
    tack_sys::write_atomic_private(file, plan.as_bytes())
}

impl Tool for EnterPlanMode {
    fn name(&self) -> &str {
        ENTER_PLAN_MODE
    }

    fn description(&self) -> String {
        ENTER_DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, _input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        match self.0.mode() {
            PermissionMode::Plan => Err(ToolError::new("Already in plan mode.")),
            _ => Ok(()),
        }
    }

    fn call<'a>(&'a self, _input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            self.0.set_mode(PermissionMode::Plan);
            let file = self.0.plan_file().map_or_else(String::new, |f| format!(" ({})", f.display()));
            Ok(ToolOutput::text(format!(
                "Plan mode is on. Only read from now on: explore the code, write your plan to the plan file{file}, and call ExitPlanMode when it is ready for the user to approve."
            )))
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_plan_file_that_is_a_fifo_or_huge_is_not_read_and_a_given_plan_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.md");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let huge = dir.path().join("huge.md");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(tack_sys::MAX_CONFIG_BYTES + 1)
            .unwrap();
        for file in [&fifo, &huge] {
            assert_eq!(approved_plan(Some(file), &json!({})).ok(), Some(None));
        }
        let given = approved_plan(Some(&fifo), &json!({"plan": "1. Do it."}));
        assert_eq!(given.ok(), Some(Some("1. Do it.".to_owned())));
        assert_eq!(read_plan(&fifo).as_deref(), Some("1. Do it."));
    }
}
