//! Hook events and the JSON each hook receives on stdin.

use serde_json::{Map, Value, json};

/// An event with its event-specific input fields.
#[derive(Debug, Clone, PartialEq)]
pub enum HookEvent {
    /// After the model emits a tool_use, before the permission check.
    PreToolUse {
        /// The tool's name.
        tool_name: String,
        /// The tool's input.
        tool_input: Value,
        /// The tool_use id.
        tool_use_id: String,
    },
    /// After a tool succeeded.
    PostToolUse {
        /// The tool's name.
        tool_name: String,
        /// The tool's input.
        tool_input: Value,
        /// The tool's structured result.
        tool_response: Value,
        /// The tool_use id.
        tool_use_id: String,
    },
    /// The user submitted a prompt.
    UserPromptSubmit {
        /// The prompt text.
        prompt: String,
    },
    /// The main agent finished a turn.
    Stop {
        /// True when the turn continues because a Stop hook blocked before.
        stop_hook_active: bool,
        /// The last assistant text, if any.
        last_assistant_message: Option<String>,
        /// The session's scheduled jobs and pending wake-up (Claude Code
        /// 2.1.145's `session_crons`); `None`: the session has no scheduler.
        session_crons: Option<Vec<Value>>,
    },
    /// A subagent finished.
    SubagentStop {
        /// True when the subagent continues because a hook blocked before.
        stop_hook_active: bool,
        /// The subagent's id.
        agent_id: String,
        /// The subagent's type (matched by matchers).
        agent_type: String,
        /// The subagent's transcript.
        agent_transcript_path: String,
        /// The subagent's last assistant text, if any.
        last_assistant_message: Option<String>,
    },
    /// A session started (`startup`, `resume`, `clear`, `compact`, `fork`).
    SessionStart {
        /// How it started (matched by matchers).
        source: String,
        /// The model, if known.
        model: Option<String>,
    },
    /// A session ended (`clear`, `resume`, `logout`, `prompt_input_exit`, `other`).
    SessionEnd {
        /// Why (matched by matchers).
        reason: String,
    },
    /// Before compaction (`manual`, `auto`).
    PreCompact {
        /// What triggered it (matched by matchers).
        trigger: String,
        /// `/compact` instructions, if any.
        custom_instructions: Option<String>,
    },
    /// A notification (`permission_prompt`, `idle_prompt`, ...).
    Notification {
        /// The text.
        message: String,
        /// An optional title.
        title: Option<String>,
        /// The kind (matched by matchers).
        notification_type: String,
    },
    /// A tool call failed (an error result, or interrupted).
    PostToolUseFailure {
        /// The tool's name.
        tool_name: String,
        /// The tool's input.
        tool_input: Value,
        /// The tool_use id.
        tool_use_id: String,
        /// The error text the model sees.
        error: String,
        /// True when the user interrupted the call.
        is_interrupt: bool,
    },
    /// A permission prompt is about to be shown for a tool call.
    PermissionRequest {
        /// The tool's name.
        tool_name: String,
        /// The tool's input.
        tool_input: Value,
        /// The rules "allow always" would add (`addRules` updates).
        permission_suggestions: Vec<Value>,
    },
    /// A rule or the mode denied a tool call without asking anyone.
    PermissionDenied {
        /// The tool's name.
        tool_name: String,
        /// The tool's input.
        tool_input: Value,
        /// The tool_use id.
        tool_use_id: String,
        /// Why it was denied (what the model is told).
        reason: String,
    },
    /// An agent-team teammate finished its turn and is about to go idle
    /// (exit 2 or `decision: block` keeps it working with the reason;
    /// `continue: false` stops it).
    TeammateIdle {
        /// The teammate's name in its team.
        teammate_name: String,
        /// The team's name.
        team_name: String,
    },
    /// A sub-agent is starting.
    SubagentStart {
        /// The sub-agent's id.
        agent_id: String,
        /// Its type (matched by matchers).
        agent_type: String,
    },
    /// After a compaction (`manual`, `auto`).
    PostCompact {
        /// What triggered it (matched by matchers).
        trigger: String,
        /// The summary the conversation now starts with.
        compact_summary: String,
    },
    /// An instructions file (CLAUDE.md, a rules file) was loaded into context.
    InstructionsLoaded {
        /// The file.
        file_path: String,
        /// `User`, `Project`, `Local` or `Managed`.
        memory_type: String,
        /// `session_start`, `nested_traversal`, `path_glob_match`, `include`,
        /// `compact` (matched by matchers).
        load_reason: String,
        /// `path_glob_match`: the rule's `paths` globs.
        globs: Option<Vec<String>>,
        /// Loaded mid-session: the file the tool call touched.
        trigger_file_path: Option<String>,
        /// `include`: the file that imported it.
        parent_file_path: Option<String>,
    },
    /// A settings file changed while the session runs.
    ConfigChange {
        /// `user_settings`, `project_settings`, `local_settings`,
        /// `policy_settings`, `skills` (matched by matchers).
        source: String,
        /// The file that changed.
        file_path: String,
    },
    /// The session's working directory changed.
    CwdChanged {
        /// The directory before.
        old_cwd: String,
        /// The directory now.
        new_cwd: String,
    },
    /// A watched file changed.
    FileChanged {
        /// The file (matchers compare its base name).
        file_path: String,
        /// `change`, `add` or `unlink`.
        event: String,
    },
    /// A skill's or custom command's `` !`command` `` line is about to run
    /// (matchers compare the shell tool's name, `Bash`).
    PreSkillShellCommand {
        /// The shell tool that runs it: `Bash`.
        tool_name: String,
        /// `{"command": …}`, the command as it would run.
        tool_input: Value,
        /// Names this command; no tool call in the transcript has it.
        tool_use_id: String,
        /// The skill or command whose text holds the line.
        command_name: String,
        /// Where that skill or command comes from (`projectSettings`,
        /// `userSettings`, `plugin`, …).
        command_source: Option<String>,
        /// `user` (typed, or sent by an SDK host), `claude` (the Skill tool)
        /// or `other`.
        invoked_by: &'static str,
    },
    /// A worktree is to be made (`--worktree`): the hooks make it instead
    /// of git and print its absolute path (the last line of stdout, or
    /// `hookSpecificOutput.worktreePath`); any failure fails the creation.
    WorktreeCreate {
        /// The worktree's name (given or generated).
        name: String,
    },
    /// A worktree the session made is being removed (it cannot block).
    WorktreeRemove {
        /// The worktree's folder.
        worktree_path: String,
    },
    /// A task was added to the shared task list (a block deletes it again).
    TaskCreated(TaskHookFields),
    /// A task is about to be marked completed (a block keeps it open).
    TaskCompleted(TaskHookFields),
}

/// What TaskCreated and TaskCompleted hooks are told about the task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskHookFields {
    pub task_id: String,
    pub task_subject: String,
    pub task_description: String,
    /// The teammate whose tool call it is, in a team.
    pub teammate_name: Option<String>,
    pub team_name: Option<String>,
}

/// Which events can block, and who reads the blocking message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockAudience {
    /// The message goes to the model (PreToolUse, PostToolUse, Stop, SubagentStop).
    Model,
    /// The message goes to the user (UserPromptSubmit, PreCompact).
    User,
    /// The event cannot block (SessionStart, SessionEnd, Notification).
    None,
}

impl HookEvent {
    /// The event name used in settings and in `hook_event_name`.
    pub fn name(&self) -> &'static str {
        match self {
            HookEvent::PreToolUse { .. } => "PreToolUse",
            HookEvent::PostToolUse { .. } => "PostToolUse",
            HookEvent::UserPromptSubmit { .. } => "UserPromptSubmit",
            HookEvent::Stop { .. } => "Stop",
            HookEvent::SubagentStop { .. } => "SubagentStop",
            HookEvent::SessionStart { .. } => "SessionStart",
            HookEvent::SessionEnd { .. } => "SessionEnd",
            HookEvent::PreCompact { .. } => "PreCompact",
            HookEvent::Notification { .. } => "Notification",
            HookEvent::PostToolUseFailure { .. } => "PostToolUseFailure",
            HookEvent::PermissionRequest { .. } => "PermissionRequest",
            HookEvent::PermissionDenied { .. } => "PermissionDenied",
            HookEvent::SubagentStart { .. } => "SubagentStart",
            HookEvent::TeammateIdle { .. } => "TeammateIdle",
            HookEvent::PostCompact { .. } => "PostCompact",
            HookEvent::InstructionsLoaded { .. } => "InstructionsLoaded",
            HookEvent::ConfigChange { .. } => "ConfigChange",
            HookEvent::CwdChanged { .. } => "CwdChanged",
            HookEvent::FileChanged { .. } => "FileChanged",
            HookEvent::PreSkillShellCommand { .. } => "PreSkillShellCommand",
            HookEvent::WorktreeCreate { .. } => "WorktreeCreate",
            HookEvent::WorktreeRemove { .. } => "WorktreeRemove",
            HookEvent::TaskCreated(_) => "TaskCreated",
            HookEvent::TaskCompleted(_) => "TaskCompleted",
        }
    }

    /// The value matchers are compared with; `None` for events that ignore
    /// matchers (UserPromptSubmit, Stop).
    pub fn match_target(&self) -> Option<&str> {
        match self {
            HookEvent::PreToolUse { tool_name, .. }
            | HookEvent::PostToolUse { tool_name, .. }
            | HookEvent::PostToolUseFailure { tool_name, .. }
            | HookEvent::PermissionRequest { tool_name, .. }
            | HookEvent::PermissionDenied { tool_name, .. }
            | HookEvent::PreSkillShellCommand { tool_name, .. } => Some(tool_name),
            HookEvent::UserPromptSubmit { .. }
            | HookEvent::Stop { .. }
            | HookEvent::CwdChanged { .. }
            | HookEvent::WorktreeCreate { .. }
            | HookEvent::WorktreeRemove { .. }
            | HookEvent::TaskCreated(_)
            | HookEvent::TaskCompleted(_)
            | HookEvent::TeammateIdle { .. } => None,
            HookEvent::SubagentStop { agent_type, .. }
            | HookEvent::SubagentStart { agent_type, .. } => Some(agent_type),
            HookEvent::PostCompact { trigger, .. } => Some(trigger),
            HookEvent::InstructionsLoaded { load_reason, .. } => Some(load_reason),
            HookEvent::ConfigChange { source, .. } => Some(source),
            HookEvent::FileChanged { file_path, .. } => {
                Some(file_path.rsplit('/').next().unwrap_or(file_path.as_str()))
            }
            HookEvent::SessionStart { source, .. } => Some(source),
            HookEvent::SessionEnd { reason } => Some(reason),
            HookEvent::PreCompact { trigger, .. } => Some(trigger),
            HookEvent::Notification {
                notification_type, ..
            } => Some(notification_type),
        }
    }

    /// The tool call the event is about (PreToolUse, PostToolUse,
    /// PostToolUseFailure, PermissionDenied).
    pub fn tool_use_id(&self) -> Option<&str> {
        match self {
            HookEvent::PreToolUse { tool_use_id, .. }
            | HookEvent::PostToolUse { tool_use_id, .. }
            | HookEvent::PostToolUseFailure { tool_use_id, .. }
            | HookEvent::PermissionDenied { tool_use_id, .. }
            | HookEvent::PreSkillShellCommand { tool_use_id, .. } => Some(tool_use_id),
            HookEvent::PermissionRequest { .. }
            | HookEvent::SubagentStart { .. }
            | HookEvent::PostCompact { .. }
            | HookEvent::InstructionsLoaded { .. }
            | HookEvent::ConfigChange { .. }
            | HookEvent::CwdChanged { .. }
            | HookEvent::FileChanged { .. }
            | HookEvent::UserPromptSubmit { .. }
            | HookEvent::Stop { .. }
            | HookEvent::SubagentStop { .. }
            | HookEvent::SessionStart { .. }
            | HookEvent::SessionEnd { .. }
            | HookEvent::PreCompact { .. }
            | HookEvent::Notification { .. }
            | HookEvent::WorktreeCreate { .. }
            | HookEvent::WorktreeRemove { .. }
            | HookEvent::TaskCreated(_)
            | HookEvent::TaskCompleted(_)
            | HookEvent::TeammateIdle { .. } => None,
        }
    }

    /// Who reads a blocking message for this event.
    pub fn block_audience(&self) -> BlockAudience {
        match self {
            HookEvent::PreToolUse { .. }
            | HookEvent::PostToolUse { .. }
            | HookEvent::PostToolUseFailure { .. }
            | HookEvent::PermissionRequest { .. }
            | HookEvent::PreSkillShellCommand { .. }
            | HookEvent::Stop { .. }
            | HookEvent::SubagentStop { .. }
            | HookEvent::TaskCreated(_)
            | HookEvent::TaskCompleted(_)
            | HookEvent::TeammateIdle { .. } => BlockAudience::Model,
            HookEvent::UserPromptSubmit { .. }
            | HookEvent::PreCompact { .. }
            | HookEvent::ConfigChange { .. }
            | HookEvent::WorktreeCreate { .. } => BlockAudience::User,
            HookEvent::SessionStart { .. }
            | HookEvent::SessionEnd { .. }
            | HookEvent::Notification { .. }
            | HookEvent::PermissionDenied { .. }
            | HookEvent::SubagentStart { .. }
            | HookEvent::PostCompact { .. }
            | HookEvent::InstructionsLoaded { .. }
            | HookEvent::CwdChanged { .. }
            | HookEvent::FileChanged { .. }
            | HookEvent::WorktreeRemove { .. } => BlockAudience::None,
        }
    }

    /// The call a tool event is about (`tool_name`, `tool_input`), for `if`
    /// conditions; `None` for events that are not about a tool call.
    pub fn tool_call(&self) -> Option<(&str, &Value)> {
        match self {
            HookEvent::PreToolUse {
                tool_name,
                tool_input,
                ..
            }
            | HookEvent::PostToolUse {
                tool_name,
                tool_input,
                ..
            }
            | HookEvent::PostToolUseFailure {
                tool_name,
                tool_input,
                ..
            }
            | HookEvent::PermissionRequest {
                tool_name,
                tool_input,
                ..
            }
            | HookEvent::PermissionDenied {
                tool_name,
                tool_input,
                ..
            }
            | HookEvent::PreSkillShellCommand {
                tool_name,
                tool_input,
                ..
            } => Some((tool_name, tool_input)),
            HookEvent::UserPromptSubmit { .. }
            | HookEvent::Stop { .. }
            | HookEvent::SubagentStop { .. }
            | HookEvent::SessionStart { .. }
            | HookEvent::SessionEnd { .. }
            | HookEvent::PreCompact { .. }
            | HookEvent::Notification { .. }
            | HookEvent::SubagentStart { .. }
            | HookEvent::PostCompact { .. }
            | HookEvent::InstructionsLoaded { .. }
            | HookEvent::ConfigChange { .. }
            | HookEvent::CwdChanged { .. }
            | HookEvent::FileChanged { .. }
            | HookEvent::WorktreeCreate { .. }
            | HookEvent::WorktreeRemove { .. }
            | HookEvent::TaskCreated(_)
            | HookEvent::TaskCompleted(_)
            | HookEvent::TeammateIdle { .. } => None,
        }
    }

    /// True when plain (non-JSON) stdout of a successful hook is added to the
    /// model's context.
    pub fn stdout_is_context(&self) -> bool {
        matches!(
            self,
            HookEvent::UserPromptSubmit { .. } | HookEvent::SessionStart { .. }
        )
    }

    /// InstructionsLoaded's fields (the optional ones only when known).
    fn instructions_fields(&self) -> Value {
        match self {
            HookEvent::InstructionsLoaded {
                file_path,
                memory_type,
                load_reason,
                globs,
                trigger_file_path,
                parent_file_path,
            } => {
                let mut v = json!({"file_path": file_path, "memory_type": memory_type,
                                       "load_reason": load_reason});
                if let Some(globs) = globs {
                    v["globs"] = json!(globs);
                }
                if let Some(path) = trigger_file_path {
                    v["trigger_file_path"] = json!(path);
                }
                if let Some(path) = parent_file_path {
                    v["parent_file_path"] = json!(path);
                }
                v
            }
            _ => json!({}),
        }
    }

    /// TeammateIdle's fields (`teammate_name`, `team_name`).
    fn teammate_fields(&self) -> Value {
        match self {
            HookEvent::TeammateIdle {
                teammate_name,
                team_name,
            } => json!({"teammate_name": teammate_name, "team_name": team_name}),
            _ => json!({}),
        }
    }

    /// The event-specific fields of the stdin JSON.
    pub(crate) fn fields(&self) -> Map<String, Value> {
        let v = match self {
            HookEvent::PreToolUse {
                tool_name,
                tool_input,
                tool_use_id,
            } => {
                json!({"tool_name": tool_name, "tool_input": tool_input, "tool_use_id": tool_use_id})
            }
            HookEvent::PostToolUse {
                tool_name,
                tool_input,
                tool_response,
                tool_use_id,
            } => json!({"tool_name": tool_name, "tool_input": tool_input,
                        "tool_response": tool_response, "tool_use_id": tool_use_id}),
            HookEvent::UserPromptSubmit { prompt } => json!({"prompt": prompt}),
            HookEvent::Stop {
                stop_hook_active,
                last_assistant_message,
                session_crons,
            } => {
                let mut v = json!({"stop_hook_active": stop_hook_active});
                if let Some(m) = last_assistant_message {
                    v["last_assistant_message"] = json!(m);
                }
                if let Some(crons) = session_crons {
                    v["session_crons"] = json!(crons);
                }
                v
            }
            HookEvent::SubagentStop {
                stop_hook_active,
                agent_id,
                agent_type,
                agent_transcript_path,
                last_assistant_message,
            } => {
                let mut v = json!({"stop_hook_active": stop_hook_active, "agent_id": agent_id,
                    "agent_type": agent_type, "agent_transcript_path": agent_transcript_path});
                if let Some(m) = last_assistant_message {
                    v["last_assistant_message"] = json!(m);
                }
                v
            }
            HookEvent::SessionStart { source, model } => {
                let mut v = json!({"source": source});
                if let Some(m) = model {
                    v["model"] = json!(m);
                }
                v
            }
            HookEvent::SessionEnd { reason } => json!({"reason": reason}),
            HookEvent::PreCompact {
                trigger,
                custom_instructions,
            } => {
                json!({"trigger": trigger, "custom_instructions": custom_instructions.clone().unwrap_or_default()})
            }
            HookEvent::Notification {
                message,
                title,
                notification_type,
            } => {
                let mut v = json!({"message": message, "notification_type": notification_type});
                if let Some(t) = title {
                    v["title"] = json!(t);
                }
                v
            }
            HookEvent::PostToolUseFailure {
                tool_name,
                tool_input,
                tool_use_id,
                error,
                is_interrupt,
            } => json!({"tool_name": tool_name, "tool_input": tool_input,
                        "tool_use_id": tool_use_id, "error": error, "is_interrupt": is_interrupt}),
            HookEvent::PermissionRequest {
                tool_name,
                tool_input,
                permission_suggestions,
            } => json!({"tool_name": tool_name, "tool_input": tool_input,
                        "permission_suggestions": permission_suggestions}),
            HookEvent::PermissionDenied {
                tool_name,
                tool_input,
                tool_use_id,
                reason,
            } => json!({"tool_name": tool_name, "tool_input": tool_input,
                        "tool_use_id": tool_use_id, "reason": reason}),
            HookEvent::SubagentStart {
                agent_id,
                agent_type,
            } => json!({"agent_id": agent_id, "agent_type": agent_type}),
            HookEvent::TeammateIdle { .. } => self.teammate_fields(),
            HookEvent::PostCompact {
                trigger,
                compact_summary,
            } => json!({"trigger": trigger, "compact_summary": compact_summary}),
            HookEvent::InstructionsLoaded { .. } => self.instructions_fields(),
            HookEvent::ConfigChange { source, file_path } => {
                json!({"source": source, "file_path": file_path})
            }
            HookEvent::CwdChanged { old_cwd, new_cwd } => {
                json!({"old_cwd": old_cwd, "new_cwd": new_cwd})
            }
            HookEvent::FileChanged { file_path, event } => {
                json!({"file_path": file_path, "event": event})
            }
            HookEvent::WorktreeCreate { name } => json!({"name": name}),
            HookEvent::WorktreeRemove { worktree_path } => json!({"worktree_path": worktree_path}),
            HookEvent::TaskCreated(task) | HookEvent::TaskCompleted(task) => task.fields(),
            HookEvent::PreSkillShellCommand {
                tool_name,
                tool_input,
                tool_use_id,
                command_name,
                command_source,
                invoked_by,
            } => {
                let mut v = json!({"tool_name": tool_name, "tool_input": tool_input,
                    "tool_use_id": tool_use_id, "command_name": command_name,
                    "invoked_by": invoked_by});
                if let Some(source) = command_source {
                    v["command_source"] = json!(source);
                }
                v
            }
        };
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
}

impl TaskHookFields {
    /// Claude Code's input fields; the teammate and team only in a team.
    fn fields(&self) -> Value {
        let mut v = json!({"task_id": self.task_id, "task_subject": self.task_subject,
                           "task_description": self.task_description});
        if let Some(name) = &self.teammate_name {
            v["teammate_name"] = json!(name);
        }
        if let Some(team) = &self.team_name {
            v["team_name"] = json!(team);
        }
        v
    }
}
