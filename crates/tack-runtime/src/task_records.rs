//! A sub-agent's life as stream-json `system` records, in Claude Code's
//! order and shapes (the TypeScript SDK's `SDKTaskStartedMessage`,
//! `SDKTaskUpdatedMessage`, `SDKTaskNotificationMessage` and
//! `SDKBackgroundTasksChangedMessage`):
//!
//! - start: `task_started`; a background agent joins the live background
//!   set first (`background_tasks_changed`);
//! - end: `task_updated` (the terminal status, its end time), then
//!   `task_notification`; a background agent then leaves the set
//!   (`background_tasks_changed` again).

use serde_json::{Map, Value, json};
use tack_protocol::stream_json::{StreamJsonRecord, SystemRecord};

use crate::event::{TaskEvent, TaskStatus};
use crate::records::{BackgroundEntry, Records};

/// Claude Code's `task_type` of a sub-agent.
const LOCAL_AGENT: &str = "local_agent";

impl Records {
    /// The records of one step of a task's life, in order.
    pub fn task(&mut self, event: &TaskEvent) -> Vec<StreamJsonRecord> {
        match event {
            TaskEvent::Started {
                task_id,
                tool_use_id,
                description,
                subagent_type,
                prompt,
                background,
            } => {
                let started = self.system(json!({
                    "subtype": "task_started", "task_id": task_id, "tool_use_id": tool_use_id,
                    "description": description, "subagent_type": subagent_type,
                    "is_backgrounded": background, "task_type": LOCAL_AGENT, "prompt": prompt,
                }));
                if !background {
                    return vec![started];
                }
                self.background.push(BackgroundEntry {
                    task_id: task_id.clone(),
                    subagent_type: subagent_type.clone(),
                    description: description.clone(),
                });
                vec![self.background_tasks(), started]
            }
            TaskEvent::Finished {
                task_id,
                tool_use_id,
                status,
                summary,
                output_file,
                usage,
                background,
            } => {
                // task_updated says `killed` where the notification says `stopped`.
                let patch_status = match status {
                    TaskStatus::Stopped => "killed",
                    TaskStatus::Completed | TaskStatus::Failed => status.as_str(),
                };
                let mut records = vec![
                    self.system(json!({
                        "subtype": "task_updated", "task_id": task_id,
                        "patch": {"status": patch_status, "end_time": now_ms()},
                    })),
                    self.system(json!({
                        "subtype": "task_notification", "task_id": task_id,
                        "tool_use_id": tool_use_id, "status": status.as_str(),
                        "output_file": output_file, "summary": summary,
                        "usage": {"total_tokens": usage.total_tokens,
                                  "tool_uses": usage.tool_uses,
                                  "duration_ms": usage.duration_ms},
                    })),
                ];
                let before = self.background.len();
                self.background.retain(|t| &t.task_id != task_id);
                if *background || self.background.len() != before {
                    records.push(self.background_tasks());
                }
                records
            }
        }
    }

    /// `background_tasks_changed`: every live background task.
    fn background_tasks(&self) -> StreamJsonRecord {
        let tasks: Vec<Value> = self
            .background
            .iter()
            .map(|t| {
                json!({"task_id": t.task_id, "task_type": LOCAL_AGENT,
                       "subagent_type": t.subagent_type, "description": t.description})
            })
            .collect();
        self.system(json!({"subtype": "background_tasks_changed", "tasks": tasks}))
    }

    /// A `system` record of `fields`, with the session id and a fresh uuid.
    pub(crate) fn system(&self, fields: Value) -> StreamJsonRecord {
        let mut map = match fields {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        map.insert("session_id".into(), Value::String(self.session_id.clone()));
        map.insert(
            "uuid".into(),
            Value::String(uuid::Uuid::new_v4().to_string()),
        );
        StreamJsonRecord::System(SystemRecord::Other(map))
    }
}

/// Milliseconds since the epoch (`patch.end_time`).
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
