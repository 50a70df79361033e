//! Token usage as the API reports it, and its arithmetic.

use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

use crate::serde_util::null_as_zero;

/// Split of cache writes by TTL; sums to `cache_creation_input_tokens`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheCreation {
    #[serde(default, deserialize_with = "null_as_zero")]
    pub ephemeral_5m_input_tokens: u64,
    #[serde(default, deserialize_with = "null_as_zero")]
    pub ephemeral_1h_input_tokens: u64,
}

/// Usage of one response, or a sum of several (`+` adds every counter).
///
/// `input_tokens` counts only the uncached part of the prompt; the whole prompt is
/// [`Usage::total_input`], which is what context-window accounting must use.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default, deserialize_with = "null_as_zero")]
    pub input_tokens: u64,
    #[serde(default, deserialize_with = "null_as_zero")]
    pub cache_creation_input_tokens: u64,
    #[serde(default, deserialize_with = "null_as_zero")]
    pub cache_read_input_tokens: u64,
    #[serde(default, deserialize_with = "null_as_zero")]
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation: Option<CacheCreation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_tool_use: Option<ServerToolUse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    /// Where the response was served (`"us"` costs 1.1×; `""` or absent:
    /// anywhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference_geo: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerToolUse {
    #[serde(default, deserialize_with = "null_as_zero")]
    pub web_search_requests: u64,
    #[serde(default, deserialize_with = "null_as_zero")]
    pub web_fetch_requests: u64,
}

impl Usage {
    /// Every input token of the request: uncached + cache writes + cache reads.
    pub fn total_input(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }

    /// Fold a `message_delta` usage snapshot in. Its counters are cumulative for the
    /// message, so present values *replace* ours; absent ones leave ours alone.
    pub fn apply_delta(&mut self, delta: &DeltaUsage) {
        self.output_tokens = delta.output_tokens;
        if let Some(n) = delta.input_tokens {
            self.input_tokens = n;
        }
        if let Some(n) = delta.cache_creation_input_tokens {
            self.cache_creation_input_tokens = n;
        }
        if let Some(n) = delta.cache_read_input_tokens {
            self.cache_read_input_tokens = n;
        }
        if let Some(s) = delta.server_tool_use {
            self.server_tool_use = Some(s);
        }
    }
}

fn add_opt<T: Copy + Add<Output = T>>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, None) => a,
        (None, b) => b,
    }
}

impl Add for CacheCreation {
    type Output = CacheCreation;
    fn add(self, o: CacheCreation) -> CacheCreation {
        CacheCreation {
            ephemeral_5m_input_tokens: self.ephemeral_5m_input_tokens + o.ephemeral_5m_input_tokens,
            ephemeral_1h_input_tokens: self.ephemeral_1h_input_tokens + o.ephemeral_1h_input_tokens,
        }
    }
}

impl Add for ServerToolUse {
    type Output = ServerToolUse;
    fn add(self, o: ServerToolUse) -> ServerToolUse {
        ServerToolUse {
            web_search_requests: self.web_search_requests + o.web_search_requests,
            web_fetch_requests: self.web_fetch_requests + o.web_fetch_requests,
        }
    }
}

impl AddAssign<&Usage> for Usage {
    fn add_assign(&mut self, o: &Usage) {
        self.input_tokens += o.input_tokens;
        self.cache_creation_input_tokens += o.cache_creation_input_tokens;
        self.cache_read_input_tokens += o.cache_read_input_tokens;
        self.output_tokens += o.output_tokens;
        self.cache_creation = add_opt(self.cache_creation, o.cache_creation);
        self.server_tool_use = add_opt(self.server_tool_use, o.server_tool_use);
        if self.service_tier.is_none() {
            self.service_tier.clone_from(&o.service_tier);
        }
        if self.inference_geo.is_none() {
            self.inference_geo.clone_from(&o.inference_geo);
        }
    }
}

impl Add<&Usage> for Usage {
    type Output = Usage;
    fn add(mut self, o: &Usage) -> Usage {
        self += o;
        self
    }
}

/// `message_delta.usage`: cumulative counters; only `output_tokens` is always sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeltaUsage {
    #[serde(default, deserialize_with = "null_as_zero")]
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_tool_use: Option<ServerToolUse>,
}
