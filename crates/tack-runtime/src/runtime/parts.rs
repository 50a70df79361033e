//! The parts a running session is made of, each built by [`crate::start`]
//! and held by the driver beside its loop state:
//!
//! - [`Policy`]: who may do what (the permission gate, the hooks, the
//!   running turn's cancel switch);
//! - [`TurnSettings`]: what every request is sent with, and what the next
//!   prompt carries besides the user's words;
//! - [`Extensions`]: the slash commands and skills a prompt may name;
//! - [`Services`]: what runs beside the conversation (MCP servers, the
//!   built-in tools, background tasks, the plugin auto-update);
//! - [`Book`]: the conversation's bookkeeping (transcripts, checkpoints,
//!   rewind points, the figures `/context` shows).
//!
//! A new setting belongs to one of them, so it touches one part.

use std::collections::HashMap;
use std::sync::Arc;

use tack_core::context::PromptContext;
use tack_core::{ModelSwitch, QueryConfig};
use tack_extensions::custom_commands::CustomCommands;
use tack_extensions::skills::Skills;
use tack_permissions::PermissionMode;
use tack_protocol::Message;
use tack_tools::BackgroundTasks;
use tokio::sync::mpsc;

use crate::agents::{ModelCell, Woken};
use crate::checkpoints::Checkpoints;
use crate::gate::{Gate, TurnCancel};
use crate::handle::Responder;
use crate::hooks::{SessionHooks, with_context};
use crate::mcp::SessionMcp;
use crate::model::RequestEnv;
use crate::protocol::reply::{ModeError, RewindPoint};
use crate::snapshot::Figures;
use crate::structured_output::StructuredOutputTool;
use crate::transcript::TranscriptPlace;

/// Who may do what.
pub(crate) struct Policy {
    pub gate: Arc<Gate>,
    pub hooks: Option<Arc<SessionHooks>>,
    /// The running turn's cancel switch, which the gate's prompts watch.
    pub turn_cancel: TurnCancel,
}

impl Policy {
    /// Switches the permission mode, for the gate and the hooks' input
    /// (`Gate::switch_mode`: bypass and auto only where the session allows).
    pub fn set_mode(&self, mode: PermissionMode) -> Result<(), ModeError> {
        self.gate.switch_mode(mode)
    }
}

/// What every request is sent with, and what the next prompt carries.
pub(crate) struct TurnSettings {
    /// The session's own request settings, before any `set_model`.
    pub base_config: QueryConfig,
    pub request_env: RequestEnv,
    /// The names (alias or id) the session's own model and the model in force
    /// were chosen by: `opusplan` resolves anew when the mode changes.
    pub model_names: ModelNames,
    /// The model sub-agents inherit; follows `set_model`.
    pub agent_model: ModelCell,
    /// `--json-schema`'s tool (also among the built-in tools), told of each
    /// new turn.
    pub structured_output: Option<Arc<StructuredOutputTool>>,
    /// What the first request carries besides the messages (for `/context`).
    pub context: Arc<PromptContext>,
    /// The skills the model may invoke, told once with the first prompt
    /// (Claude Code's `skill_listing` attachment); bodies load on demand.
    pub skill_listing: Option<String>,
    /// The output style's reminder for every prompt (none for Default).
    pub output_style_reminder: Option<String>,
    /// SessionStart hooks' context, told with the next prompt.
    pub start_context: Option<String>,
}

/// The names models were chosen by, before aliases.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ModelNames {
    /// The session's own (`--model`, `ANTHROPIC_MODEL`, settings, `default`).
    pub own: String,
    /// The one in force (`set_model` changes it).
    pub current: String,
}

impl ModelNames {
    /// A session's names as it starts: its own in force.
    pub fn of(own: String) -> ModelNames {
        ModelNames {
            current: own.clone(),
            own,
        }
    }
}

impl TurnSettings {
    /// The request settings for `model` (`None`: the session's own), keeping
    /// `max_turns` as `current` has it; and the model's id. `planning`: the
    /// session is in plan mode (what `opusplan` follows). The session's own
    /// model keeps the id it started with (the platform's, on Bedrock or
    /// Vertex) unless its name follows the mode.
    pub fn config_for(
        &self,
        current: &QueryConfig,
        model: Option<String>,
        planning: bool,
    ) -> (QueryConfig, String) {
        let model = match model {
            Some(m) => self.request_env.resolve(&m, planning),
            None if is_opusplan(&self.model_names.own) => {
                self.request_env.resolve(&self.model_names.own, planning)
            }
            None => self.base_config.model.clone(),
        };
        let base = QueryConfig {
            max_turns: current.max_turns,
            ..self.base_config.clone()
        };
        (self.request_env.apply(&base, &model), model)
    }

    /// The model the name in force stands for in `mode`, when that is not
    /// `model` (the one in use): `opusplan` after a change of mode.
    pub fn model_for_mode(&self, mode: PermissionMode, model: &str) -> Option<String> {
        let name = &self.model_names.current;
        let wanted = self.request_env.resolve(name, mode == PermissionMode::Plan);
        (is_opusplan(name) && wanted != model).then_some(wanted)
    }

    /// What a turn asks before each request when the name in force is
    /// `opusplan`: the model follows the gate's mode within the turn too.
    pub fn model_switch(&self, gate: &Arc<Gate>) -> Option<Arc<dyn ModelSwitch>> {
        is_opusplan(&self.model_names.current).then(|| {
            Arc::new(FollowMode {
                gate: gate.clone(),
                request_env: self.request_env.clone(),
                base_config: self.base_config.clone(),
                name: self.model_names.current.clone(),
            }) as Arc<dyn ModelSwitch>
        })
    }

    /// `message` with what goes along with the next prompt: the skill
    /// listing and SessionStart's context once, the style's reminder each
    /// time.
    pub fn with_reminders(&mut self, message: Message) -> Message {
        let message = with_context(message, self.skill_listing.take());
        let message = with_context(message, self.output_style_reminder.clone());
        with_context(message, self.start_context.take())
    }
}

/// `opusplan` within a turn: Opus while the gate is in plan mode, Sonnet
/// once an ExitPlanMode is approved (or the mode changes otherwise).
struct FollowMode {
    gate: Arc<Gate>,
    request_env: RequestEnv,
    base_config: QueryConfig,
    name: String,
}

impl ModelSwitch for FollowMode {
    fn switch(&self, config: &QueryConfig) -> Option<QueryConfig> {
        let planning = self.gate.mode() == PermissionMode::Plan;
        let wanted = self.request_env.resolve(&self.name, planning);
        let base = QueryConfig {
            max_turns: config.max_turns,
            ..self.base_config.clone()
        };
        (wanted != config.model).then(|| self.request_env.apply(&base, &wanted))
    }
}

fn is_opusplan(name: &str) -> bool {
    tack_api::aliases::alias(name) == Some(tack_api::aliases::Alias::OpusPlan)
}

/// The slash commands and skills a prompt may name.
pub(crate) struct Extensions {
    pub custom_commands: CustomCommands,
    pub skills: Arc<Skills>,
}

/// Background agents' ends as they come, and how many started agents'
/// ends have not been taken yet.
pub(crate) type Wakes = (
    mpsc::UnboundedReceiver<Woken>,
    Arc<std::sync::atomic::AtomicUsize>,
);

/// What runs beside the conversation.
pub(crate) struct Services {
    /// The session's MCP servers, if any are configured.
    pub mcp: Option<SessionMcp>,
    /// The built-in tools (the tool set is rebuilt from them when an MCP
    /// server's tools change).
    pub builtin: Vec<Arc<dyn tack_tool::Tool>>,
    /// The session's background shells and sub-agents (`stop_task`).
    pub tasks: BackgroundTasks,
    /// Background agents that ended on their own: each wakes a turn.
    pub woken: Wakes,
    /// Messages for the model from outside the conversation (teammates,
    /// other sessions, Monitor, scheduled prompts): the main loop's tools'
    /// queue; what is left when the session goes idle wakes a turn.
    pub arrivals: tack_tool::Arrivals,
    /// The plugin auto-update's thread: its notices come before `Ended`.
    pub auto_update: Option<std::thread::JoinHandle<()>>,
    /// Scheduled prompts and wake-ups (`None`: `CLAUDE_CODE_DISABLE_CRON`).
    pub schedule: Option<crate::schedule::scheduler::Schedule>,
    /// Whether built-ins are behind ToolSearch for the current model.
    pub deferral: crate::deferral::Deferral,
}

/// The conversation's bookkeeping beside the session itself.
pub(crate) struct Book {
    /// Where a `/clear`'s new transcript goes.
    pub transcripts: TranscriptPlace,
    /// File checkpointing, when on.
    pub checkpoints: Option<Arc<Checkpoints>>,
    /// The checkpoint of each prompt still in the conversation (session
    /// uuid → the id its turn's checkpoint is kept under).
    pub checkpoint_ids: HashMap<String, String>,
    /// The prompts a rewind can go back to, as of the last idle moment.
    pub rewind_points: Vec<RewindPoint>,
    /// `Op::Conversation`s that came while the session was busy: answered
    /// when the work running ends.
    pub conversation_waiters: Vec<Responder>,
    /// The conversation's figures as of the last idle moment.
    pub figures: Figures,
    /// Where EnterWorktree and ExitWorktree moved the session (read live:
    /// a snapshot mid-turn sees a move made in the turn).
    pub place: tack_tool::PromptPlace,
}

impl Book {
    pub fn new(transcripts: TranscriptPlace, checkpoints: Option<Arc<Checkpoints>>) -> Book {
        Book {
            transcripts,
            checkpoints,
            checkpoint_ids: HashMap::new(),
            rewind_points: Vec::new(),
            conversation_waiters: Vec::new(),
            figures: Figures::default(),
            place: tack_tool::PromptPlace::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use pretty_assertions::assert_eq;
    use tack_permissions::{PermissionContext, RuleSet};
    use tack_protocol::ContentBlock;

    use super::*;
    use crate::gate::SettingsFiles;
    use crate::place::Env;

    fn policy(bypass_allowed: bool) -> Policy {
        let ctx = PermissionContext::new(
            PermissionMode::Default,
            RuleSet::new(),
            Path::new("/p"),
            Path::new("/h"),
            &[],
        );
        let files = SettingsFiles {
            local: PathBuf::from("/p/.claude/settings.local.json"),
            project: PathBuf::from("/p/.claude/settings.json"),
            user: None,
        };
        let turn_cancel = TurnCancel::default();
        let gate = Gate::new(ctx, None, None, turn_cancel.clone(), files, None)
            .allowing_bypass(bypass_allowed);
        Policy {
            gate: Arc::new(gate),
            hooks: None,
            turn_cancel,
        }
    }

    #[test]
    fn bypass_needs_the_session_to_allow_it_and_other_modes_switch_the_gate() {
        let strict = policy(false);
        let outcomes = [
            strict.set_mode(PermissionMode::BypassPermissions),
            strict.set_mode(PermissionMode::AcceptEdits),
        ];
        assert_eq!(
            (outcomes, strict.gate.mode()),
            (
                [Err(ModeError::BypassUnavailable), Ok(())],
                PermissionMode::AcceptEdits
            )
        );
        let lax = policy(true);
        assert_eq!(
            (
                lax.set_mode(PermissionMode::BypassPermissions),
                lax.gate.mode()
            ),
            (Ok(()), PermissionMode::BypassPermissions)
        );
    }

    fn settings(model: &str, env: &[(&str, &str)]) -> TurnSettings {
        let env = Env(env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect());
        let mut base_config = QueryConfig::new(model.to_owned());
        base_config.max_turns = Some(3);
        TurnSettings {
            base_config,
            request_env: RequestEnv::from_env(&env),
            model_names: ModelNames::of(model.to_owned()),
            agent_model: ModelCell::new(model.to_owned()),
            structured_output: None,
            context: Arc::new(PromptContext::default()),
            skill_listing: Some("skills: a, b".into()),
            output_style_reminder: Some("be brief".into()),
            start_context: Some("hook said hi".into()),
        }
    }

    fn texts(message: &Message) -> Vec<String> {
        let text = |b: &ContentBlock| match b {
            ContentBlock::Text { text, .. } => Some(text.clone()),
            _ => None,
        };
        message.content.iter().filter_map(text).collect()
    }

    #[test]
    fn the_listing_and_start_context_go_once_the_style_reminder_every_time() {
        let mut s = settings("some-model", &[]);
        let first = s.with_reminders(Message::user_text("one"));
        let second = s.with_reminders(Message::user_text("two"));
        let reminder = |t: &str| tack_core::request::system_reminder(t);
        assert_eq!(
            (texts(&first), texts(&second)),
            (
                vec![
                    "one".to_owned(),
                    reminder("skills: a, b"),
                    reminder("be brief"),
                    reminder("hook said hi"),
                ],
                vec!["two".to_owned(), reminder("be brief")],
            )
        );
    }

    #[test]
    fn a_model_switch_keeps_the_running_max_turns_and_the_env_knobs() {
        let s = settings("some-model", &[("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "1000")]);
        let mut current = s.base_config.clone();
        current.max_turns = Some(7);
        let (switched, model) = s.config_for(&current, Some("haiku".into()), false);
        let (back, base_model) = s.config_for(&current, None, false);
        assert_eq!(
            (
                model.as_str(),
                switched.model.as_str(),
                switched.max_turns,
                switched.max_tokens
            ),
            ("claude-haiku-5-5", model.as_str(), Some(7), 1000)
        );
        assert_eq!(
            (base_model.as_str(), back.model.as_str(), back.max_turns),
            ("some-model", "some-model", Some(7))
        );
    }

    #[test]
    fn opusplan_follows_the_mode_and_the_environment_pins_aliases() {
        let s = settings(
            "opusplan",
            &[("ANTHROPIC_DEFAULT_SONNET_MODEL", "my-sonnet")],
        );
        let current = s.base_config.clone();
        let model = |planning| s.config_for(&current, None, planning).1;
        let switched = |name: &str| s.config_for(&current, Some(name.into()), false).1;
        assert_eq!(
            [
                model(true),
                model(false),
                switched("sonnet"),
                switched("opus")
            ],
            [
                "claude-opus-5-5",
                "my-sonnet",
                "my-sonnet",
                "claude-opus-5-5"
            ]
        );
        assert_eq!(
            [
                s.model_for_mode(PermissionMode::Plan, "my-sonnet"),
                s.model_for_mode(PermissionMode::Plan, "claude-opus-5-5"),
                s.model_for_mode(PermissionMode::Default, "claude-opus-5-5"),
                settings("opus", &[]).model_for_mode(PermissionMode::Plan, "x"),
            ],
            [
                Some("claude-opus-5-5".to_owned()),
                None,
                Some("my-sonnet".to_owned()),
                None
            ]
        );
    }
}
