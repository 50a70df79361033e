//! A small prompt-cache simulation, so benchmarks can measure cache-read ratios
//! against the mock.
//!
//! Model (close to the documented API, not exact):
//! - The prompt is the sequence of blocks tools → system → messages. A string
//!   `system` or message `content` counts as one text block. Each block weighs its
//!   JSON text, and tokens are bytes / 4 of a prefix.
//! - A block carrying `cache_control` is a breakpoint; a top-level `cache_control`
//!   makes the last block one too. Blocks are compared without their
//!   `cache_control`, so moving a breakpoint does not change the prefix.
//! - Each request writes the prefix hash of every breakpoint. For reads, each
//!   breakpoint looks back over at most [`LOOKBACK_BLOCKS`] positions for a prefix an
//!   earlier request wrote; the longest hit is `cache_read_input_tokens`.
//! - From the end of the read to the last breakpoint is `cache_creation_input_tokens`;
//!   the rest is `input_tokens`. The three always add up to the whole prompt.
//!
//! Not modelled: TTLs and expiry, minimum cacheable sizes, the four-breakpoint cap,
//! the hidden tool prompt.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

/// How far back a breakpoint looks for an earlier write, as the API documents.
const LOOKBACK_BLOCKS: usize = 20;

/// Input-side usage of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PromptUsage {
    pub(crate) input_tokens: u64,
    pub(crate) cache_creation_input_tokens: u64,
    pub(crate) cache_read_input_tokens: u64,
}

/// The cache: hashes of the prefixes written so far.
#[derive(Debug, Default)]
pub(crate) struct CacheSim {
    written: HashSet<u64>,
}

/// One block of the prompt, seen as the end of a prefix.
struct PrefixEnd {
    /// Hash of the whole prefix up to and including this block.
    hash: u64,
    /// Bytes of the whole prefix up to and including this block.
    bytes: usize,
    breakpoint: bool,
}

impl CacheSim {
    /// Computes the usage of `request` (a Messages request body) and records its
    /// breakpoint prefixes as written. A malformed body simply yields fewer blocks.
    pub(crate) fn observe(&mut self, request: &Value) -> PromptUsage {
        let prefixes = prefix_ends(request);
        let tokens = |bytes: usize| bytes as u64 / 4;
        let total = prefixes.last().map_or(0, |p| p.bytes);
        let breakpoints: Vec<usize> = (0..prefixes.len())
            .filter(|&i| prefixes[i].breakpoint)
            .collect();

        let mut read = 0;
        for &bp in &breakpoints {
            let first = bp.saturating_sub(LOOKBACK_BLOCKS - 1);
            if let Some(hit) = (first..=bp)
                .rev()
                .find(|&i| self.written.contains(&prefixes[i].hash))
            {
                read = read.max(prefixes[hit].bytes);
            }
        }
        let cached_end = breakpoints
            .last()
            .map_or(0, |&bp| prefixes[bp].bytes)
            .max(read);
        for &bp in &breakpoints {
            self.written.insert(prefixes[bp].hash);
        }
        PromptUsage {
            input_tokens: tokens(total) - tokens(cached_end),
            cache_creation_input_tokens: tokens(cached_end) - tokens(read),
            cache_read_input_tokens: tokens(read),
        }
    }
}

fn prefix_ends(request: &Value) -> Vec<PrefixEnd> {
    let mut blocks: Vec<(String, &Value)> = Vec::new();
    if let Some(tools) = request.get("tools").and_then(Value::as_array) {
        blocks.extend(tools.iter().map(|t| ("tools".to_owned(), t)));
    }
    if let Some(system) = request.get("system") {
        push_content(&mut blocks, "system", system);
    }
    if let Some(messages) = request.get("messages").and_then(Value::as_array) {
        for message in messages {
            let role = message.get("role").and_then(Value::as_str).unwrap_or("");
            if let Some(content) = message.get("content") {
                push_content(&mut blocks, role, content);
            }
        }
    }

    let mut hash = 0u64;
    let mut bytes = 0usize;
    let mut ends: Vec<PrefixEnd> = blocks
        .into_iter()
        .map(|(section, block)| {
            let (text, breakpoint) = block_identity(block);
            let mut hasher = DefaultHasher::new();
            (hash, section, &text).hash(&mut hasher);
            hash = hasher.finish();
            bytes += text.len();
            PrefixEnd {
                hash,
                bytes,
                breakpoint,
            }
        })
        .collect();
    if request.get("cache_control").is_some_and(Value::is_object)
        && let Some(last) = ends.last_mut()
    {
        last.breakpoint = true;
    }
    ends
}

/// Adds `content` (a string or an array of blocks) under `section`.
fn push_content<'a>(blocks: &mut Vec<(String, &'a Value)>, section: &str, content: &'a Value) {
    match content {
        Value::Array(items) => blocks.extend(items.iter().map(|b| (section.to_owned(), b))),
        other => blocks.push((section.to_owned(), other)),
    }
}

/// The block's JSON text without `cache_control`, and whether it had one.
fn block_identity(block: &Value) -> (String, bool) {
    match block {
        // A bare string is the same prompt as a text block holding it.
        Value::String(text) => (
            serde_json::json!({"type": "text", "text": text}).to_string(),
            false,
        ),
        Value::Object(map) => {
            let breakpoint = map.get("cache_control").is_some_and(Value::is_object);
            let mut map = map.clone();
            map.remove("cache_control");
            (Value::Object(map).to_string(), breakpoint)
        }
        other => (other.to_string(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CC: &str = "cache_control";

    fn text(s: &str, breakpoint: bool) -> Value {
        let mut block = json!({"type": "text", "text": s});
        if breakpoint {
            block[CC] = json!({"type": "ephemeral"});
        }
        block
    }

    fn request(system_bp: bool, messages: Vec<Value>) -> Value {
        json!({
            "model": "m",
            "tools": [{"name": "Read", "description": "x".repeat(400), "input_schema": {"type": "object"}}],
            "system": [text(&"You are tack. ".repeat(100), system_bp)],
            "messages": messages,
        })
    }

    fn total(u: PromptUsage) -> u64 {
        u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens
    }

    #[test]
    fn without_breakpoints_everything_is_input() {
        let mut sim = CacheSim::default();
        let req = request(false, vec![json!({"role": "user", "content": "hi"})]);
        let first = sim.observe(&req);
        let second = sim.observe(&req);
        assert_eq!(first, second);
        assert_eq!(first.cache_read_input_tokens, 0);
        assert_eq!(first.cache_creation_input_tokens, 0);
        assert!(first.input_tokens > 300);
    }

    #[test]
    fn repeating_a_prefix_reads_what_the_first_request_wrote() {
        let mut sim = CacheSim::default();
        let req = request(true, vec![json!({"role": "user", "content": "hi"})]);
        let first = sim.observe(&req);
        assert_eq!(first.cache_read_input_tokens, 0);
        assert!(first.cache_creation_input_tokens > 300);
        let second = sim.observe(&req);
        assert_eq!(
            second,
            PromptUsage {
                input_tokens: first.input_tokens,
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: first.cache_creation_input_tokens,
            }
        );
    }

    #[test]
    fn a_moving_message_breakpoint_reads_the_previous_turn() {
        let mut sim = CacheSim::default();
        let turn1 = request(
            true,
            vec![json!({"role": "user", "content": [text("list the crates", true)]})],
        );
        let first = sim.observe(&turn1);
        let turn2 = request(
            true,
            vec![
                json!({"role": "user", "content": [text("list the crates", false)]}),
                json!({"role": "assistant", "content": [text("Here they are: a, b, c.", false)]}),
                json!({"role": "user", "content": [text("thanks, now build", true)]}),
            ],
        );
        let second = sim.observe(&turn2);
        assert_eq!(second.cache_read_input_tokens, total(first));
        assert!(second.cache_creation_input_tokens > 0);
        assert_eq!(second.input_tokens, 0);
    }

    #[test]
    fn changing_the_tools_invalidates_everything() {
        let mut sim = CacheSim::default();
        let mut req = request(true, vec![json!({"role": "user", "content": "hi"})]);
        sim.observe(&req);
        req["tools"][0]["name"] = json!("Write");
        let after = sim.observe(&req);
        assert_eq!(after.cache_read_input_tokens, 0);
        assert!(after.cache_creation_input_tokens > 0);
    }

    #[test]
    fn top_level_cache_control_marks_the_last_block() {
        let mut sim = CacheSim::default();
        let mut req = request(false, vec![json!({"role": "user", "content": "hi"})]);
        req[CC] = json!({"type": "ephemeral"});
        let first = sim.observe(&req);
        assert_eq!(first.input_tokens, 0);
        assert_eq!(sim.observe(&req).cache_read_input_tokens, total(first));
    }

    #[test]
    fn malformed_bodies_count_nothing() {
        let mut sim = CacheSim::default();
        for body in [json!(null), json!("x"), json!({"messages": 3, "system": 5})] {
            let usage = sim.observe(&body);
            assert_eq!(usage.cache_read_input_tokens, 0);
            assert_eq!(usage.cache_creation_input_tokens, 0);
        }
    }
}
