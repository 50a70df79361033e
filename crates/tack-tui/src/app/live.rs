//! What is still changing: the streams and tool calls of the current turn, in
//! order. Only the first item may hand finished lines to history, so the
//! scrollback keeps the order in which things happened.

use std::collections::{HashMap, VecDeque};

use ratatui::text::{Line, Span};

use crate::cells::{HistoryCell, ToolCall, ToolResult, render_call};
use crate::markdown::MarkdownStream;
use crate::theme::Theme;

#[derive(Debug)]
pub(crate) enum LiveItem {
    Text(StreamItem),
    Thinking(StreamItem),
    Tool(ToolCall),
}

#[derive(Debug)]
pub(crate) struct StreamItem {
    stream: MarkdownStream,
    /// Finished lines not yet handed to history (the item is not first yet).
    ready: Vec<Line<'static>>,
    done: bool,
    /// Some of its lines are in history already.
    started: bool,
}

impl StreamItem {
    fn new(stream: MarkdownStream, header: Option<Line<'static>>) -> StreamItem {
        StreamItem {
            stream,
            ready: header.into_iter().collect(),
            done: false,
            started: false,
        }
    }
}

/// The items of the current turn that are not in history yet.
#[derive(Debug, Default)]
pub(crate) struct Live {
    items: VecDeque<LiveItem>,
    /// The latest progress of running tools, by tool_use id (never in history).
    progress: HashMap<String, String>,
}

/// Lines and cells handed over to history.
#[derive(Debug, Default)]
pub(crate) struct Committed {
    pub(crate) lines: Vec<Line<'static>>,
    /// Cells completed (for the transcript).
    pub(crate) cells: Vec<HistoryCell>,
    /// A new entry started with these lines (a blank line should precede them).
    pub(crate) starts_entry: bool,
}

impl Live {
    pub(crate) fn text_delta(&mut self, delta: &str, width: u16, theme: &Theme) {
        self.stream_delta(delta, width, theme, false);
    }

    pub(crate) fn thinking_delta(&mut self, delta: &str, width: u16, theme: &Theme) {
        self.stream_delta(delta, width, theme, true);
    }

    fn stream_delta(&mut self, delta: &str, width: u16, theme: &Theme, thinking: bool) {
        let open = match self.items.back_mut() {
            Some(LiveItem::Text(s)) if !thinking && !s.done => Some(s),
            Some(LiveItem::Thinking(s)) if thinking && !s.done => Some(s),
            _ => None,
        };
        let item = match open {
            Some(s) => s,
            None => {
                self.finish_streams();
                let new = if thinking {
                    LiveItem::Thinking(StreamItem::new(
                        MarkdownStream::with_style(theme.thinking()),
                        Some(Line::styled("∴ Thinking…", theme.thinking())),
                    ))
                } else {
                    LiveItem::Text(StreamItem::new(MarkdownStream::new(), None))
                };
                self.items.push_back(new);
                match self.items.back_mut() {
                    Some(LiveItem::Text(s) | LiveItem::Thinking(s)) => s,
                    _ => return,
                }
            }
        };
        let lines = item.stream.push(delta, width, theme);
        item.ready.extend(lines);
    }

    /// Marks the open streams finished (the message is complete, or a tool call follows).
    pub(crate) fn finish_streams(&mut self) {
        for item in &mut self.items {
            if let LiveItem::Text(s) | LiveItem::Thinking(s) = item {
                s.done = true;
            }
        }
    }

    /// Drops the unfinished streams (the response was voided); returns whether
    /// some of it had already reached history.
    pub(crate) fn discard_streams(&mut self) -> bool {
        let mut partly_shown = false;
        self.items.retain(|item| match item {
            LiveItem::Text(s) | LiveItem::Thinking(s) if !s.done => {
                partly_shown |= s.started;
                false
            }
            _ => true,
        });
        partly_shown
    }

    pub(crate) fn tool_started(&mut self, call: ToolCall) {
        self.finish_streams();
        self.items.push_back(LiveItem::Tool(call));
    }

    pub(crate) fn tool_progress(&mut self, id: &str, text: String) {
        let running = self.items.iter().any(
            |item| matches!(item, LiveItem::Tool(call) if call.id == id && call.result.is_none()),
        );
        if running {
            self.progress.insert(id.to_string(), text);
        }
    }

    /// The name of the tool call `id`, while it is live.
    pub(crate) fn tool_name(&self, id: &str) -> Option<String> {
        self.items.iter().find_map(|item| match item {
            LiveItem::Tool(call) if call.id == id => Some(call.name.clone()),
            _ => None,
        })
    }

    pub(crate) fn tool_finished(&mut self, id: &str, result: ToolResult) -> bool {
        self.progress.remove(id);
        for item in &mut self.items {
            if let LiveItem::Tool(call) = item
                && call.id == id
            {
                call.result = Some(result);
                return true;
            }
        }
        false
    }

    /// The turn ended: tools without a result are marked interrupted.
    pub(crate) fn end_turn(&mut self) {
        self.finish_streams();
        for item in &mut self.items {
            if let LiveItem::Tool(call) = item
                && call.result.is_none()
            {
                call.result = Some(ToolResult {
                    is_error: true,
                    content: "Interrupted".into(),
                });
            }
        }
    }

    /// Hands to history what may go: finished lines of the first item, and
    /// every finished item at the front.
    pub(crate) fn commit(&mut self, width: u16, theme: &Theme, out: &mut Vec<Committed>) {
        while let Some(front) = self.items.front_mut() {
            let finished = match front {
                LiveItem::Text(s) => commit_stream(s, width, theme, out, HistoryCell::Assistant),
                LiveItem::Thinking(s) => commit_stream(s, width, theme, out, HistoryCell::Thinking),
                LiveItem::Tool(call) => {
                    if call.result.is_some() {
                        out.push(Committed {
                            lines: render_call(call, theme, width, false),
                            cells: vec![HistoryCell::Tool(call.clone())],
                            starts_entry: true,
                        });
                    }
                    call.result.is_some()
                }
            };
            if !finished {
                return;
            }
            self.items.pop_front();
        }
    }

    /// The live rows: finished-but-held lines and the unfinished tail of each
    /// stream, and each tool call. `after_history`: history is not empty, so an
    /// item that starts a new entry gets a blank line above it.
    pub(crate) fn render(
        &self,
        width: u16,
        theme: &Theme,
        after_history: bool,
    ) -> Vec<Line<'static>> {
        let mut lines: Vec<Line<'static>> = Vec::new();
        for item in &self.items {
            match item {
                LiveItem::Text(s) | LiveItem::Thinking(s) => {
                    let mut own: Vec<Line<'static>> = s.ready.clone();
                    own.extend(s.stream.live_lines(width, theme));
                    if own
                        .iter()
                        .all(|l| l.spans.iter().all(|sp| sp.content.trim().is_empty()))
                    {
                        continue;
                    }
                    if !s.started && (after_history || !lines.is_empty()) {
                        lines.push(Line::default());
                    }
                    lines.extend(own);
                }
                LiveItem::Tool(call) => {
                    if after_history || !lines.is_empty() {
                        lines.push(Line::default());
                    }
                    lines.extend(render_call(call, theme, width, false));
                    if let Some(progress) = self.progress.get(&call.id) {
                        let text = crate::cells::sanitize(progress).replace('\n', " ");
                        lines.push(crate::dialogs::cut(
                            Line::from(vec![
                                Span::styled("  ⎿  ", theme.dim()),
                                Span::styled(text, theme.dim()),
                            ]),
                            usize::from(width),
                        ));
                    }
                }
            }
        }
        lines
    }
}

/// Hands over a stream's finished lines; when the stream is done, the rest of
/// it and its cell. Returns whether it is done.
fn commit_stream(
    s: &mut StreamItem,
    width: u16,
    theme: &Theme,
    out: &mut Vec<Committed>,
    cell: fn(String) -> HistoryCell,
) -> bool {
    let mut lines = std::mem::take(&mut s.ready);
    if s.done {
        lines.extend(s.stream.finish(width, theme));
    }
    // A message of only whitespace leaves nothing behind.
    let blank = s.stream.source().trim().is_empty();
    if blank {
        return s.done;
    }
    if !lines.is_empty() {
        out.push(Committed {
            lines,
            cells: Vec::new(),
            starts_entry: !s.started,
        });
        s.started = true;
    }
    if s.done {
        out.push(Committed {
            lines: Vec::new(),
            cells: vec![cell(s.stream.source().to_string())],
            starts_entry: false,
        });
    }
    s.done
}
