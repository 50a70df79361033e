//! The ops the session's task handles as they come, even while a turn runs:
//! queueing work, interrupts, mode and model changes, and the questions
//! answered at once.

use std::collections::VecDeque;

use tack_core::session::Session;

use super::{Driver, Work};
use crate::checkpoints::RewindError;
use crate::handle::{Envelope, Responder};
use crate::mcp::SessionMcp;
use crate::protocol::op::{Op, TurnOptions, UserInput};
use crate::protocol::reply::{InterruptOutcome, InterruptReceipt, McpControlError, Reply};
use crate::schedule::slash_loop::loop_turn;
use crate::slash::{Dispatch, dispatch};
use crate::user_shell::add_note;

/// What an op did to a running piece of work.
pub(super) enum Control {
    None,
    Interrupt(Interrupter),
}

/// Who asked for an interrupt, answered once the work has stopped.
pub(super) struct Interrupter {
    reply: Responder,
    /// With a receipt: the queued messages the interrupt dropped.
    receipt: Option<Vec<String>>,
}

impl Interrupter {
    pub(super) fn answer(self, outcome: InterruptOutcome, queue: &VecDeque<Work>) {
        let reply = match self.receipt {
            None => Reply::Interrupted(outcome),
            Some(cancelled) => Reply::InterruptReceipt(InterruptReceipt {
                outcome,
                still_queued: queue
                    .iter()
                    .filter_map(Work::uuid)
                    .map(str::to_owned)
                    .collect(),
                cancelled,
            }),
        };
        self.reply.send(reply);
    }
}

impl Driver {
    /// Handles an op that needs no access to the session but, when the
    /// session is free (`session`), may read it.
    pub(super) fn op(&mut self, envelope: Envelope, session: Option<&Session>) -> Control {
        let Envelope { op, reply } = envelope;
        // Anything but a look at the state means someone is there.
        self.idle.armed &= matches!(op, Op::Snapshot | Op::Conversation);
        match op {
            Op::Submit(input) => {
                let echo = input.echo();
                let work = match dispatch(
                    input,
                    &self.extensions.custom_commands,
                    &self.extensions.skills,
                ) {
                    Dispatch::Prompt(input) => Work::Turn(input, TurnOptions::default()),
                    Dispatch::Compact(instructions) => Work::Compact(instructions, Some(echo)),
                    Dispatch::Clear(uuid) => Work::Clear(uuid),
                    Dispatch::Custom(input, options) => Work::Turn(input, options),
                    Dispatch::Unknown { name, uuid } => Work::Unknown { name, uuid },
                    Dispatch::Skills { uuid } => Work::Skills(uuid),
                    Dispatch::ForkedSkill { input, name, args } => {
                        Work::ForkedSkill { input, name, args }
                    }
                    Dispatch::Loop { input, args } => loop_work(&self.services, input, &args),
                };
                self.queue.push_back(work);
            }
            Op::SubmitWith { input, options } => {
                self.queue.push_back(Work::Turn(input, options));
            }
            Op::Snapshot => reply.send(Reply::Snapshot(Box::new(self.snapshot()))),
            Op::Conversation => match session {
                Some(session) => reply.send(Reply::Conversation(session.messages().to_vec())),
                None => self.book.conversation_waiters.push(reply),
            },
            Op::Compact { instructions } => {
                self.queue.push_back(Work::Compact(instructions, None));
            }
            Op::Interrupt { receipt: None } => {
                return Control::Interrupt(Interrupter {
                    reply,
                    receipt: None,
                });
            }
            Op::Interrupt {
                receipt: Some(wanted),
            } => {
                let mut cancelled = Vec::new();
                if wanted.cancel_queued {
                    // Queued user messages go; a queued /compact stays.
                    self.queue.retain(|work| match work {
                        Work::Turn(input, _)
                        | Work::Append(input)
                        | Work::ForkedSkill { input, .. } => {
                            cancelled.extend(input.uuid.clone());
                            false
                        }
                        Work::Unknown { uuid, .. } | Work::Skills(uuid) | Work::Clear(uuid) => {
                            cancelled.extend(uuid.clone());
                            false
                        }
                        Work::Compact(..)
                        | Work::Shell(..)
                        | Work::Rewind(..)
                        | Work::ResumePending => true,
                    });
                }
                return Control::Interrupt(Interrupter {
                    reply,
                    receipt: Some(cancelled),
                });
            }
            Op::Append(input) => self.queue.push_back(Work::Append(input)),
            Op::SetPermissionMode(mode) => {
                let set = self.policy.set_mode(mode);
                if set.is_ok() {
                    self.info.permission_mode = mode;
                    // `opusplan` switches with the mode, once the session is free.
                    if self
                        .settings
                        .model_for_mode(mode, &self.info.model)
                        .is_some()
                    {
                        let name = self.settings.model_names.current.clone();
                        self.pending_model = Some(Some(name));
                    }
                }
                reply.send(Reply::PermissionMode(set));
            }
            Op::SetModel(model) => self.pending_model = Some(model),
            Op::RunShell { command } => self.queue.push_back(Work::Shell(command, reply)),
            Op::AddNote { note } => {
                let project = tack_config::find_project_dir(&self.info.cwd);
                reply.send(Reply::Note(add_note(&project, &note)));
            }
            Op::StopTask { task_id } => {
                let tasks = self.services.tasks.clone();
                // Stopping waits for the task's end: the session goes on meanwhile.
                tokio::spawn(async move {
                    let stopped = tasks.stop_by_id(&task_id).await.map(|_| ());
                    reply.send(Reply::TaskStopped(stopped));
                });
            }
            Op::RewindFiles {
                user_message_id,
                dry_run,
            } => {
                let checkpoints = self.book.checkpoints.clone();
                // Reading and writing the files: off the session task.
                tokio::task::spawn_blocking(move || {
                    let rewound = match checkpoints {
                        Some(c) => c.rewind(&user_message_id, dry_run),
                        None => Err(RewindError::NotEnabled),
                    };
                    reply.send(Reply::FilesRewound(rewound));
                });
            }
            Op::RewindPoints => reply.send(Reply::RewindPoints(self.book.rewind_points.clone())),
            Op::EndInput { wait_ceiling } => self.input_end.end(wait_ceiling),
            Op::RewindConversation { user_message_id } => {
                if self.turn_running || !self.queue.is_empty() {
                    reply.send(Reply::ConversationRewound(Err(RewindError::TurnRunning)));
                } else {
                    self.queue.push_back(Work::Rewind(user_message_id, reply));
                }
            }
            Op::McpStatus => {
                let statuses = self.services.mcp.as_ref().map(SessionMcp::statuses);
                reply.send(Reply::McpStatus(statuses.unwrap_or_default()));
            }
            Op::McpControl(control) => {
                let done = self.services.mcp.as_ref().map(|m| m.control(control));
                tokio::spawn(async move {
                    let done = match done {
                        Some(done) => done.await.map_err(McpControlError::Failed),
                        None => Err(McpControlError::NoServers),
                    };
                    reply.send(Reply::McpControl(done));
                });
            }
            // The handle takes answers itself (`RuntimeHandle::dispatch`).
            Op::Answer { ask, answer } => {
                reply.send(Reply::Answered(self.emit.asks().answer(ask, answer)));
            }
            Op::AddAllowRule { rule } => {
                reply.send(Reply::RuleAdded(self.policy.gate.add_allow_rule(&rule)));
            }
        }
        Control::None
    }
}

/// `/loop`: its turn, or an unknown command when scheduling is off.
fn loop_work(services: &super::Services, input: UserInput, args: &str) -> Work {
    match &services.schedule {
        Some(s) => Work::Turn(loop_turn(s, input, args), TurnOptions::default()),
        None => Work::Unknown {
            name: "loop".to_owned(),
            uuid: input.uuid,
        },
    }
}
