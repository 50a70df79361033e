//! The script: the ordered replies a [`crate::MockServer`] hands out.

use std::collections::VecDeque;
use std::path::Path;

use crate::reply::Reply;
use crate::script_file::{self, ScriptError};

/// The replies for successive `POST /v1/messages` requests, first to last.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    replies: Vec<Reply>,
    looping: bool,
}

impl Script {
    /// A script that answers with `replies` in order, once each.
    pub fn new(replies: impl IntoIterator<Item = Reply>) -> Script {
        Script {
            replies: replies.into_iter().collect(),
            looping: false,
        }
    }

    /// Parses the JSON script format described in the crate docs.
    pub fn from_json(text: &str) -> Result<Script, ScriptError> {
        script_file::parse(text).map(Script::new)
    }

    /// Reads and parses a JSON script file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Script, ScriptError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Io {
            path: path.to_owned(),
            source,
        })?;
        Script::from_json(&text)
    }

    /// Starts over from the first reply whenever the script runs out, forever
    /// (for benchmarks and demos). An empty script still reports exhaustion.
    pub fn looping(mut self) -> Script {
        self.looping = true;
        self
    }

    /// Number of replies in one pass of the script.
    pub fn len(&self) -> usize {
        self.replies.len()
    }

    /// Whether the script has no replies.
    pub fn is_empty(&self) -> bool {
        self.replies.is_empty()
    }
}

/// The live queue the server consumes from.
#[derive(Debug)]
pub(crate) struct ReplyQueue {
    pending: VecDeque<Reply>,
    /// Set for looping scripts: refills `pending` when it runs dry.
    template: Option<Vec<Reply>>,
    consumed: usize,
}

impl ReplyQueue {
    pub(crate) fn new(script: Script) -> ReplyQueue {
        ReplyQueue {
            template: script.looping.then(|| script.replies.clone()),
            pending: script.replies.into(),
            consumed: 0,
        }
    }

    /// The next reply and its 1-based sequence number, or `Err(consumed so far)`.
    pub(crate) fn next(&mut self) -> Result<(Reply, usize), usize> {
        if self.pending.is_empty()
            && let Some(template) = &self.template
        {
            self.pending.extend(template.iter().cloned());
        }
        let reply = self.pending.pop_front().ok_or(self.consumed)?;
        self.consumed += 1;
        Ok((reply, self.consumed))
    }

    pub(crate) fn push(&mut self, reply: Reply) {
        self.pending.push_back(reply);
    }

    pub(crate) fn remaining(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_reports_how_many_it_served_when_exhausted() {
        let mut queue = ReplyQueue::new(Script::new([Reply::text("a")]));
        assert_eq!(queue.next(), Ok((Reply::text("a"), 1)));
        assert_eq!(queue.next(), Err(1));
        queue.push(Reply::text("b"));
        assert_eq!(queue.remaining(), 1);
        assert_eq!(queue.next(), Ok((Reply::text("b"), 2)));
    }

    #[test]
    fn a_looping_queue_starts_over() {
        let script = Script::new([Reply::text("a"), Reply::text("b")]).looping();
        let mut queue = ReplyQueue::new(script);
        let served: Vec<_> = (0..5).map(|_| queue.next().map(|(r, _)| r)).collect();
        let (a, b) = (Ok(Reply::text("a")), Ok(Reply::text("b")));
        assert_eq!(served, vec![a.clone(), b.clone(), a.clone(), b, a]);
    }
}
