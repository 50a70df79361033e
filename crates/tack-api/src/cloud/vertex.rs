//! Anthropic models on Google Vertex AI: the `:streamRawPredict` URL and body
//! (the answer is the Messages API's own SSE), model ids as Claude Code maps
//! them, per-model regions.

use serde_json::{Map, Value};

use crate::cloud::bedrock::first_party;
use crate::cloud::google::GoogleAuth;

/// The body's API version on Vertex (the Anthropic SDKs' value).
pub const VERTEX_ANTHROPIC_VERSION: &str = "vertex-2023-10-16";

/// Where and how to reach Vertex AI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VertexConfig {
    /// `ANTHROPIC_VERTEX_PROJECT_ID`.
    pub project_id: String,
    /// `CLOUD_ML_REGION` (`global` or a region such as `us-east5`).
    pub region: String,
    /// `ANTHROPIC_VERTEX_BASE_URL` (ending in `/v1` like the default); else
    /// `https://{region}-aiplatform.googleapis.com/v1` (`global`: no region prefix).
    pub base_url: Option<String>,
    /// Per-model regions (`VERTEX_REGION_CLAUDE_*`): a model whose family is the
    /// first element goes to the second's region.
    pub model_regions: Vec<(String, String)>,
    pub auth: GoogleAuth,
}

impl VertexConfig {
    /// The region requests for `model` go to.
    pub fn region_for(&self, model: &str) -> &str {
        let family = first_party(model).map_or_else(
            || model.split('@').next().unwrap_or(model).to_owned(),
            |(f, _)| f,
        );
        self.model_regions
            .iter()
            .find(|(f, _)| *f == family)
            .map_or(self.region.as_str(), |(_, r)| r.as_str())
    }

    pub(crate) fn stream_url(&self, model: &str) -> String {
        let region = self.region_for(model);
        let base = match &self.base_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None if region == "global" => "https://aiplatform.googleapis.com/v1".to_owned(),
            None => format!("https://{region}-aiplatform.googleapis.com/v1"),
        };
        format!(
            "{base}/projects/{}/locations/{region}/publishers/anthropic/models/{}:streamRawPredict",
            self.project_id,
            vertex_model_id(model)
        )
    }
}

/// Claude Code's Vertex id for `model`: `claude-sonnet-4-5` →
/// `claude-sonnet-4-5@20250929`; an id with `@` (or anything not first-party) passes through.
pub fn vertex_model_id(model: &str) -> String {
    match first_party(model) {
        Some((family, Some(date))) => format!("{family}@{date}"),
        Some((family, None)) => family,
        None => model.to_owned(),
    }
}

/// The body Vertex takes: the Messages body without `model`, with `anthropic_version`.
pub(crate) fn body(mut body: Map<String, Value>) -> Map<String, Value> {
    body.remove("model");
    body.insert("anthropic_version".into(), VERTEX_ANTHROPIC_VERSION.into());
    body
}
