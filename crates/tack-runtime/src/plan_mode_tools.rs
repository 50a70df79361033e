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

pub(crate) const EXIT_PLAN_MODE: &str = "ExitPlanMode";
pub(crate) const ENTER_PLAN_MODE: &str = "EnterPlanMode";

/// The pair for a session that can ask, with its plan file set on the gate.
pub(crate) fn plan_mode_tools(gate: &Arc<Gate>, plan_file: PathBuf) -> Vec<Arc<dyn Tool>> {
    if !gate.can_ask() {
        return Vec::new();
    }
    gate.set_plan_file(plan_file);
    vec![
        Arc::new(ExitPlanMode(gate.clone())),
        Arc::new(EnterPlanMode(gate.clone())),
    ]
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

struct ExitPlanMode(Arc<Gate>);
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

    fn validate(&self, _input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        match self.0.planning_or_just_left() {
            true => Ok(()),
            false => Err(not_in_plan_mode()),
        }
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let file = self.0.plan_file().map(Path::to_path_buf);
            let plan = approved_plan(file.as_deref(), &input)?;
            // The answer may have set a mode already ("and accept edits").
            self.0.leave_plan_mode();
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

/// The plan given as `plan` (an older caller's, or a host's edit of the one
/// it was shown), which is then saved to the plan file; else the plan file's.
fn approved_plan(file: Option<&Path>, input: &Value) -> Result<Option<String>, ToolError> {
    let saved = file.and_then(|f| std::fs::read_to_string(f).ok());
    let Some(plan) = input.get("plan").and_then(Value::as_str) else {
        return Ok(saved);
    };
    if let Some(file) = file.filter(|_| saved.as_deref() != Some(plan)) {
        let written = file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| tack_sys::atomic_write::write_atomic(file, plan.as_bytes()));
        written.map_err(|e| {
            ToolError::new(format!("Cannot save the plan to {}: {e}", file.display()))
        })?;
    }
    Ok(Some(plan.to_owned()))
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
