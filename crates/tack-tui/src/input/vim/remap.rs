//! `vimInsertModeRemaps` (Claude Code 2.1.208): a two-key INSERT sequence
//! (`"jj": "<Esc>"`) goes to NORMAL. The first key is typed as usual; the
//! second within a second takes it back out and leaves INSERT, so neither
//! stays in the prompt. Later, or after another key, both are text. Each key
//! of the setting is two printable characters and `"<Esc>"` the only target;
//! other entries are ignored. Read from the user's settings and `--settings`
//! only (`tack-config` drops a repository's).

use std::time::{Duration, Instant};

use serde_json::Value;

/// How soon the second key must follow the first.
const WINDOW: Duration = Duration::from_secs(1);

/// The sequences of the setting, as pairs of characters.
pub fn insert_remaps(setting: Option<&Value>) -> Vec<(char, char)> {
    let Some(Value::Object(map)) = setting else {
        return Vec::new();
    };
    map.iter()
        .filter(|(_, to)| to.as_str() == Some("<Esc>"))
        .filter_map(|(keys, _)| {
            let mut chars = keys.chars();
            match (chars.next(), chars.next(), chars.next()) {
                (Some(a), Some(b), None) if !a.is_control() && !b.is_control() => Some((a, b)),
                _ => None,
            }
        })
        .collect()
}

/// The remaps in force and the first key of one typed.
#[derive(Debug, Clone, Default)]
pub(super) struct InsertRemap {
    pub pairs: Vec<(char, char)>,
    first: Option<(char, Instant)>,
}

impl InsertRemap {
    /// `c` typed in INSERT at `now` (`None`: another key): the first key
    /// of the sequence it completes within the window, to be taken back.
    pub fn completes(&mut self, c: Option<char>, now: Instant) -> Option<char> {
        let first = self.first.take();
        let c = c?;
        if let Some((a, at)) = first
            && now.duration_since(at) <= WINDOW
            && self.pairs.contains(&(a, c))
        {
            return Some(a);
        }
        if self.pairs.iter().any(|(a, _)| *a == c) {
            self.first = Some((c, now));
        }
        None
    }
}
