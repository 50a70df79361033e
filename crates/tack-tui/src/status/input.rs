//! What a `statusLine` command reads on stdin: Claude Code's documented JSON
//! (its status-line page, 2.1.3xx): the session, model, workspace, cost, the
//! context window, output style and the optional objects (`vim`, `agent`,
//! `worktree`, `effort`, `session_name`) present only when they apply.

use serde_json::{Map, Value, json};

/// The session's facts for one run of the command.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusLineInput {
    pub session_id: String,
    /// `--name` / `/rename`; absent when unset.
    pub session_name: Option<String>,
    pub transcript_path: String,
    pub cwd: String,
    /// Where the session was started.
    pub project_dir: String,
    /// `--add-dir` / `/add-dir`.
    pub added_dirs: Vec<String>,
    /// The linked git worktree the cwd is in (not the main work tree).
    pub git_worktree: Option<String>,
    pub model_id: String,
    pub model_display_name: String,
    pub version: String,
    pub output_style: String,
    pub cost: Cost,
    pub context: ContextWindow,
    pub fast_mode: bool,
    pub thinking_enabled: bool,
    /// The reasoning effort, when the model takes one.
    pub effort: Option<String>,
    /// `NORMAL`, `INSERT`, ... when vim mode is on.
    pub vim_mode: Option<String>,
    /// `--agent`.
    pub agent_name: Option<String>,
    /// While the session is in a worktree session (`--worktree`).
    pub worktree: Option<Worktree>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cost {
    pub total_cost_usd: f64,
    pub total_duration_ms: u64,
    pub total_api_duration_ms: u64,
    pub total_lines_added: u64,
    pub total_lines_removed: u64,
}

/// The context window as of the last API response.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContextWindow {
    /// The model's window in tokens.
    pub size: u64,
    /// The last response's usage; `None` before the first one (and right
    /// after a compaction).
    pub last: Option<LastUsage>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LastUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

impl LastUsage {
    /// What is in the window: input, cache writes and cache reads.
    fn in_context(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Worktree {
    pub name: String,
    pub path: String,
    pub branch: Option<String>,
    pub original_cwd: String,
    pub original_branch: Option<String>,
}

impl StatusLineInput {
    pub fn to_json(&self) -> Value {
        let mut workspace = json!({
            "current_dir": self.cwd,
            "project_dir": self.project_dir,
            "added_dirs": self.added_dirs,
        });
        if let Some(w) = &self.git_worktree {
            workspace["git_worktree"] = json!(w);
        }
        let mut out = json!({
            // Older Claude Code sent it; scripts written then may check it.
            "hook_event_name": "Status",
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": self.cwd,
            "model": {"id": self.model_id, "display_name": self.model_display_name},
            "workspace": workspace,
            "version": self.version,
            "output_style": {"name": self.output_style},
            "cost": {
                "total_cost_usd": self.cost.total_cost_usd,
                "total_duration_ms": self.cost.total_duration_ms,
                "total_api_duration_ms": self.cost.total_api_duration_ms,
                "total_lines_added": self.cost.total_lines_added,
                "total_lines_removed": self.cost.total_lines_removed,
            },
            "context_window": self.context.to_json(),
            "exceeds_200k_tokens": self
                .context
                .last
                .is_some_and(|u| u.in_context() + u.output_tokens > 200_000),
            "fast_mode": self.fast_mode,
            "thinking": {"enabled": self.thinking_enabled},
        });
        let Some(obj) = out.as_object_mut() else {
            return out;
        };
        optional(
            obj,
            "session_name",
            self.session_name.as_ref().map(|n| json!(n)),
        );
        optional(
            obj,
            "effort",
            self.effort.as_ref().map(|l| json!({"level": l})),
        );
        optional(
            obj,
            "vim",
            self.vim_mode.as_ref().map(|m| json!({"mode": m})),
        );
        optional(
            obj,
            "agent",
            self.agent_name.as_ref().map(|n| json!({"name": n})),
        );
        optional(
            obj,
            "worktree",
            self.worktree.as_ref().map(Worktree::to_json),
        );
        out
    }
}

fn optional(obj: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        obj.insert(key.to_owned(), v);
    }
}

impl ContextWindow {
    fn to_json(&self) -> Value {
        let (input, output) = self
            .last
            .map_or((0, 0), |u| (u.in_context(), u.output_tokens));
        let used = self
            .last
            .filter(|_| self.size > 0)
            // Rounded, as Claude Code's example (15,500 of 200,000: 8).
            .map(|_| ((input * 100 + self.size / 2) / self.size).min(100));
        json!({
            "total_input_tokens": input,
            "total_output_tokens": output,
            "context_window_size": self.size,
            "used_percentage": used,
            "remaining_percentage": used.map(|u| 100 - u),
            "current_usage": self.last.map(|u| json!({
                "input_tokens": u.input_tokens,
                "output_tokens": u.output_tokens,
                "cache_creation_input_tokens": u.cache_creation_input_tokens,
                "cache_read_input_tokens": u.cache_read_input_tokens,
            })),
        })
    }
}

impl Worktree {
    fn to_json(&self) -> Value {
        let mut w = json!({
            "name": self.name,
            "path": self.path,
            "original_cwd": self.original_cwd,
        });
        if let Some(b) = &self.branch {
            w["branch"] = json!(b);
        }
        if let Some(b) = &self.original_branch {
            w["original_branch"] = json!(b);
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The documented schema's example, field for field (the values are
    /// the example's; `hook_event_name` is tack's addition for older
    /// scripts, `prompt_cache`, `rate_limits`, `pr` and `workspace.repo` are
    /// not sent).
    #[test]
    fn every_documented_field_in_its_place() {
        let input = StatusLineInput {
            session_id: "abc123".into(),
            session_name: Some("my-session".into()),
            transcript_path: "/path/to/transcript.jsonl".into(),
            cwd: "/current/working/directory".into(),
            project_dir: "/original/project/directory".into(),
            added_dirs: vec![],
            git_worktree: Some("feature-xyz".into()),
            model_id: "claude-opus-5-5".into(),
            model_display_name: "Opus".into(),
            version: "2.1.90".into(),
            output_style: "default".into(),
            cost: Cost {
                total_cost_usd: 0.01234,
                total_duration_ms: 45000,
                total_api_duration_ms: 2300,
                total_lines_added: 156,
                total_lines_removed: 23,
            },
            context: ContextWindow {
                size: 200_000,
                last: Some(LastUsage {
                    input_tokens: 8500,
                    output_tokens: 1200,
                    cache_creation_input_tokens: 5000,
                    cache_read_input_tokens: 2000,
                }),
            },
            fast_mode: false,
            thinking_enabled: true,
            effort: Some("high".into()),
            vim_mode: Some("NORMAL".into()),
            agent_name: Some("security-reviewer".into()),
            worktree: Some(Worktree {
                name: "my-feature".into(),
                path: "/path/to/.claude/worktrees/my-feature".into(),
                branch: Some("worktree-my-feature".into()),
                original_cwd: "/path/to/project".into(),
                original_branch: Some("main".into()),
            }),
        };
        assert_eq!(
            input.to_json(),
            json!({
                "hook_event_name": "Status",
                "cwd": "/current/working/directory",
                "session_id": "abc123",
                "session_name": "my-session",
                "transcript_path": "/path/to/transcript.jsonl",
                "model": {"id": "claude-opus-5-5", "display_name": "Opus"},
                "workspace": {
                    "current_dir": "/current/working/directory",
                    "project_dir": "/original/project/directory",
                    "added_dirs": [],
                    "git_worktree": "feature-xyz"
                },
                "version": "2.1.90",
                "output_style": {"name": "default"},
                "cost": {
                    "total_cost_usd": 0.01234,
                    "total_duration_ms": 45000,
                    "total_api_duration_ms": 2300,
                    "total_lines_added": 156,
                    "total_lines_removed": 23
                },
                "context_window": {
                    "total_input_tokens": 15500,
                    "total_output_tokens": 1200,
                    "context_window_size": 200000,
                    "used_percentage": 8,
                    "remaining_percentage": 92,
                    "current_usage": {
                        "input_tokens": 8500,
                        "output_tokens": 1200,
                        "cache_creation_input_tokens": 5000,
                        "cache_read_input_tokens": 2000
                    }
                },
                "exceeds_200k_tokens": false,
                "fast_mode": false,
                "effort": {"level": "high"},
                "thinking": {"enabled": true},
                "vim": {"mode": "NORMAL"},
                "agent": {"name": "security-reviewer"},
                "worktree": {
                    "name": "my-feature",
                    "path": "/path/to/.claude/worktrees/my-feature",
                    "branch": "worktree-my-feature",
                    "original_cwd": "/path/to/project",
                    "original_branch": "main"
                }
            })
        );
    }

    /// Before the first response: the usage is null, the percentages too,
    /// and the optional objects are absent.
    #[test]
    fn before_the_first_response() {
        let input = StatusLineInput {
            context: ContextWindow {
                size: 200_000,
                last: None,
            },
            ..StatusLineInput::default()
        };
        let v = input.to_json();
        assert_eq!(
            v["context_window"],
            json!({
                "total_input_tokens": 0,
                "total_output_tokens": 0,
                "context_window_size": 200000,
                "used_percentage": null,
                "remaining_percentage": null,
                "current_usage": null
            })
        );
        for absent in ["session_name", "effort", "vim", "agent", "worktree"] {
            assert_eq!(v.get(absent), None, "{absent}");
        }
        assert_eq!(v["workspace"].get("git_worktree"), None);
    }
}
