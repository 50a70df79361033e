//! What `-p` prints, rendered from the runtime's events: `text` (the final
//! answer), `json` (one result object) or `stream-json` (one record per line,
//! flushed as produced). Notices and failed turns' error lines go to stderr.

use std::io::Write;

use tack_protocol::ContentBlock;
use tack_protocol::stream_json::{ResultRecord, StreamJsonRecord};
use tack_runtime::LoopEvent;
use tack_runtime::records::Records;
use tack_runtime::{RuntimeEvent, SessionInfo, TurnEnd};

use crate::cli::OutputFormat;
use crate::progress::Progress;
use crate::refusals::Refusals;
use crate::tool_lines::ToolLines;

/// `tack demo`'s transcript on stdout, as the session goes: each text once,
/// each call with its result under it, then what it cost and how to go on.
pub struct Narration {
    calls: ToolLines,
    /// The shell command that runs tack in the project (`cd … && tack`),
    /// when the project is kept.
    in_project: Option<String>,
}

impl Narration {
    pub fn new(project: &std::path::Path, in_project: Option<String>) -> Narration {
        Narration {
            calls: ToolLines::new(project),
            in_project,
        }
    }
}

/// Writes one session's output in the chosen format.
pub struct Printer {
    format: OutputFormat,
    records: Records,
    progress: Option<Progress>,
    narrate: Option<Narration>,
    /// `forwardSubagentText`: a sub-agent's text and thinking are printed too.
    subagent_text: bool,
    transcript: Option<std::path::PathBuf>,
    /// The last turn (or `/compact`) succeeded: the exit code.
    pub ok: bool,
    /// The calls the permission layer refused, every turn's.
    pub refusals: Refusals,
    /// text and json: the last turn's end, printed when the session ends
    /// (a background agent's end wakes one more turn, whose result is the
    /// one printed, as `claude -p` prints it).
    last_end: Option<Box<TurnEnd>>,
    out: Box<dyn Write + Send>,
}

impl Printer {
    pub fn new(
        format: OutputFormat,
        partial: bool,
        info: &SessionInfo,
        progress: Option<Progress>,
    ) -> Self {
        Printer {
            format,
            records: Records::new(info.session_id.clone(), partial),
            progress,
            narrate: None,
            subagent_text: false,
            transcript: info.transcript_path.clone(),
            ok: true,
            refusals: Refusals::default(),
            last_end: None,
            out: Box::new(std::io::stdout()),
        }
    }

    /// Narrates the session on stdout as it happens (`tack demo`).
    pub fn narrating(mut self, narrate: Option<Narration>) -> Self {
        self.narrate = narrate;
        self
    }

    /// Prints a sub-agent's text and thinking as well as its tool calls (the
    /// SDK's `forwardSubagentText`; Claude Code forwards only the calls).
    pub fn forwarding_subagent_text(mut self, forward: bool) -> Self {
        self.subagent_text = forward;
        self
    }

    /// Renders one event; `Ok(false)` after the last one.
    pub fn event(&mut self, event: RuntimeEvent) -> std::io::Result<bool> {
        match event {
            // Notices quote config files, servers and tools: escapes are shown.
            RuntimeEvent::Notice(notice) => {
                eprintln!("{}", tack_sys::terminal_text::visible(&notice.text));
            }
            RuntimeEvent::Started(info) => {
                if self.format == OutputFormat::StreamJson {
                    let init = self.records.init(&info);
                    self.record(&init)?;
                }
            }
            RuntimeEvent::Loop(event) => self.loop_event(&event)?,
            RuntimeEvent::TurnEnded(end) => {
                self.refusals.turn(&end.record.permission_denials);
                match self.format {
                    OutputFormat::StreamJson => self.turn_ended(&end)?,
                    OutputFormat::Text | OutputFormat::Json => {
                        self.ok = end.ok;
                        self.last_end = Some(end);
                    }
                }
            }
            RuntimeEvent::CompactEnded { error } => {
                self.ok = error.is_none();
                if let Some(error) = error {
                    eprintln!("Error: /compact failed: {error}");
                }
            }
            // Print mode answers no prompts (the runtime was told so) and
            // registers no client hooks; a request dropped unanswered is a
            // denial, a dropped hook call a failure.
            RuntimeEvent::PermissionRequest(_)
            | RuntimeEvent::HookCallback(_)
            | RuntimeEvent::AskWithdrawn { .. }
            | RuntimeEvent::Reply { .. } => {}
            RuntimeEvent::Subagent(event) => {
                if self.format == OutputFormat::StreamJson {
                    for record in self.records.subagent_event(&event) {
                        if self.subagent_text || !is_prose(&record) {
                            self.record(&record)?;
                        }
                    }
                }
            }
            RuntimeEvent::Hook(hook) => {
                if self.format == OutputFormat::StreamJson {
                    let record = self.records.hook(&hook);
                    self.record(&record)?;
                }
            }
            RuntimeEvent::ConversationReset(reset) => {
                let record = self.records.reset(&reset);
                if self.format == OutputFormat::StreamJson {
                    self.record(&record)?;
                }
            }
            RuntimeEvent::TranscriptMirror(frame) => {
                if self.format == OutputFormat::StreamJson {
                    self.record(&Records::mirror(&frame))?;
                }
            }
            // Only the SDKs ask for these (Agent SDK mode renders them);
            // another client's input comes only from a served session.
            RuntimeEvent::SessionState(_) | RuntimeEvent::Input(_) => {}
            RuntimeEvent::PermissionDenied(denied) => {
                self.refusals.denied(&denied);
                if self.format == OutputFormat::StreamJson {
                    let record = self.records.permission_denied(&denied);
                    self.record(&record)?;
                }
            }
            RuntimeEvent::Task(task) => {
                let records = self.records.task(&task);
                if self.format == OutputFormat::StreamJson {
                    for record in records {
                        self.record(&record)?;
                    }
                }
            }
            RuntimeEvent::Teammate(teammate) => {
                if self.format == OutputFormat::StreamJson {
                    let record = self.records.teammate(&teammate);
                    self.record(&record)?;
                }
            }
            RuntimeEvent::Ended => {
                self.finish()?;
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Prints the held result (text and json), if any is left.
    pub fn finish(&mut self) -> std::io::Result<()> {
        match self.last_end.take() {
            Some(end) => self.turn_ended(&end),
            None => Ok(()),
        }
    }

    fn loop_event(&mut self, event: &LoopEvent) -> std::io::Result<()> {
        if let LoopEvent::ToolResults(r) = event {
            self.refusals.results(&r.message);
        }
        if let Some(progress) = &mut self.progress {
            progress.event(event);
        }
        if self.narrate.is_some() {
            return self.narrate(event);
        }
        if self.format != OutputFormat::StreamJson {
            return Ok(());
        }
        for record in self.records.loop_event(event) {
            self.record(&record)?;
        }
        Ok(())
    }

    fn narrate(&mut self, event: &LoopEvent) -> std::io::Result<()> {
        let Some(narration) = &mut self.narrate else {
            return Ok(());
        };
        let blocks = match event {
            LoopEvent::AssistantMessage(a) => narration.calls.assistant(&a.message),
            LoopEvent::ToolResults(r) => narration
                .calls
                .results(&r.message)
                .into_iter()
                .map(|lines| lines.join("\n"))
                .collect(),
            _ => return Ok(()),
        };
        for block in blocks {
            writeln!(self.out, "{}\n", tack_sys::terminal_text::visible(&block))?;
        }
        self.out.flush()
    }

    /// The turn's result: the answer (text), the object (json) or the last
    /// record; its error line on stderr.
    fn turn_ended(&mut self, end: &TurnEnd) -> std::io::Result<()> {
        if let Some(progress) = &mut self.progress {
            progress.clear();
        }
        let record = &end.record;
        match self.format {
            OutputFormat::Text => {
                if let Some(text) = &record.result
                    && !record.is_error
                    && self.narrate.is_none()
                {
                    writeln!(self.out, "{text}")?;
                }
                self.out.flush()?;
            }
            OutputFormat::Json => {
                // Claude Code's json output is the result record, `type` and all.
                let result = StreamJsonRecord::Result(record.clone());
                let mut line = serde_json::to_vec(&result).map_err(std::io::Error::other)?;
                line.push(b'\n');
                self.out.write_all(&line)?;
                self.out.flush()?;
            }
            OutputFormat::StreamJson => self.record(&StreamJsonRecord::Result(record.clone()))?,
        }
        self.summary(record)?;
        if let Some(line) = &end.error_line {
            eprintln!("{}", tack_sys::terminal_text::visible(line));
        }
        self.ok = end.ok;
        Ok(())
    }

    /// After the result in narrating mode: cost, turns, where the
    /// transcript is, how to go on with it.
    fn summary(&mut self, record: &ResultRecord) -> std::io::Result<()> {
        let Some(narration) = &self.narrate else {
            return Ok(());
        };
        writeln!(
            self.out,
            "{} · {} model requests · ${:.4} as priced for {}",
            record.subtype,
            record.num_turns,
            record.total_cost_usd,
            record.model_usage.keys().next().map_or("?", String::as_str),
        )?;
        if let Some(path) = &self.transcript {
            writeln!(self.out, "transcript: {}", path.display())?;
        }
        if let (Some(_), Some(in_project)) = (&self.transcript, &narration.in_project) {
            writeln!(
                self.out,
                "go on with it (your own API key): {in_project} --resume {}",
                record.session_id
            )?;
        }
        Ok(())
    }

    pub fn record(&mut self, record: &StreamJsonRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.out.write_all(&line)?;
        self.out.flush()
    }

    /// One line of JSON on stdout (a control line).
    pub fn line(&mut self, value: &impl serde::Serialize) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(value).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.out.write_all(&line)?;
        self.out.flush()
    }
}

/// An assistant record with no tool call: the text or thinking a sub-agent's
/// records leave out by default.
fn is_prose(record: &StreamJsonRecord) -> bool {
    let StreamJsonRecord::Assistant(a) = record else {
        return false;
    };
    a.message.message.content.iter().all(|b| match b {
        ContentBlock::Text { .. }
        | ContentBlock::Thinking { .. }
        | ContentBlock::RedactedThinking { .. } => true,
        ContentBlock::Image { .. }
        | ContentBlock::ToolUse { .. }
        | ContentBlock::ToolResult { .. }
        | ContentBlock::Unknown(_) => false,
    })
}
