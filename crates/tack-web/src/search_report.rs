//! What a web search produced, read from the response blocks: the searches the
//! server ran, the pages each found, the model's cited summary, and errors;
//! then the report for the model (sources as links) and Claude Code's
//! structured `toolUseResult`.

use serde_json::{Value, json};
use tack_protocol::{ContentBlock, WebSearchHit, WebSearchOutcome};

/// Everything one WebSearch call learnt, in response order.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Report {
    /// Text and searches interleaved, as they came.
    pub(crate) items: Vec<Item>,
    /// `error_code`s of failed searches.
    pub(crate) errors: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    Text(String),
    Search {
        tool_use_id: String,
        hits: Vec<WebSearchHit>,
    },
}

impl Report {
    pub(crate) fn from_blocks(blocks: &[ContentBlock]) -> Report {
        let mut report = Report::default();
        for block in blocks {
            if let ContentBlock::Text { text, .. } = block {
                if !text.trim().is_empty() {
                    report.items.push(Item::Text(text.clone()));
                }
            } else if let Some(result) = block.as_web_search_result() {
                match result.content {
                    WebSearchOutcome::Results(hits) => report.items.push(Item::Search {
                        tool_use_id: result.tool_use_id,
                        hits,
                    }),
                    WebSearchOutcome::Error(e) => report.errors.push(e.error_code),
                }
            }
        }
        report
    }

    /// Every page found, first occurrence of each URL only.
    pub(crate) fn sources(&self) -> Vec<&WebSearchHit> {
        let mut seen: Vec<&WebSearchHit> = Vec::new();
        for item in &self.items {
            if let Item::Search { hits, .. } = item {
                for hit in hits {
                    if !seen.iter().any(|s| s.url == hit.url) {
                        seen.push(hit);
                    }
                }
            }
        }
        seen
    }

    /// The model's text: consecutive text blocks joined as they are (a cited
    /// sentence arrives in several), runs separated by a search kept apart.
    pub(crate) fn summary(&self) -> String {
        let mut runs: Vec<String> = vec![String::new()];
        for item in &self.items {
            match item {
                Item::Text(text) => runs.last_mut().into_iter().for_each(|r| r.push_str(text)),
                Item::Search { .. } => runs.push(String::new()),
            }
        }
        let runs: Vec<&str> = runs
            .iter()
            .map(|r| r.trim())
            .filter(|r| !r.is_empty())
            .collect();
        runs.join("\n\n")
    }

    /// The tool result text, or `Err` with the reason when nothing was found
    /// because every search failed.
    pub(crate) fn to_model_text(&self, query: &str) -> Result<String, String> {
        let sources = self.sources();
        let failures = self
            .errors
            .iter()
            .map(|c| explain(c))
            .collect::<Vec<_>>()
            .join("; ");
        if sources.is_empty() && !self.errors.is_empty() {
            return Err(format!("Web search for \"{query}\" failed: {failures}."));
        }
        let mut out = format!("Web search results for query: \"{query}\"\n\n");
        if sources.is_empty() {
            out.push_str("No results found.\n");
        } else {
            out.push_str("Sources:\n");
            for hit in &sources {
                let title = if hit.title.trim().is_empty() {
                    hit.url.as_str()
                } else {
                    hit.title.trim()
                };
                out.push_str(&format!("- [{title}]({})\n", hit.url));
            }
        }
        if !self.errors.is_empty() {
            out.push_str(&format!("\nSome searches failed: {failures}.\n"));
        }
        let summary = self.summary();
        if !summary.is_empty() {
            out.push_str(&format!("\n{summary}\n"));
        }
        if !sources.is_empty() {
            out.push_str(
                "\nREMINDER: cite the relevant sources above in your answer to the user, as markdown links.",
            );
        }
        Ok(out.trim_end().to_owned())
    }

    /// Claude Code's structured output: text strings and
    /// `{tool_use_id, content: [{title, url}]}` in order.
    pub(crate) fn results_json(&self) -> Vec<Value> {
        self.items
            .iter()
            .map(|item| match item {
                Item::Text(text) => Value::String(text.clone()),
                Item::Search { tool_use_id, hits } => json!({
                    "tool_use_id": tool_use_id,
                    "content": hits.iter().map(|h| json!({"title": h.title, "url": h.url})).collect::<Vec<_>>(),
                }),
            })
            .collect()
    }
}

fn explain(code: &str) -> String {
    let what = match code {
        "too_many_requests" => "the search service is rate limited",
        "max_uses_exceeded" => "the search limit for this call was reached",
        "query_too_long" => "the query is too long",
        "invalid_input" => "the query was rejected as invalid",
        "unavailable" => "the search service is unavailable",
        _ => return code.to_owned(),
    };
    format!("{what} ({code})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn hit(url: &str, title: &str) -> Value {
        json!({"type": "web_search_result", "url": url, "title": title, "encrypted_content": "e"})
    }

    #[test]
    fn sources_are_listed_once_with_the_summary() {
        let blocks = vec![
            ContentBlock::text("Searching."),
            ContentBlock::server_tool_use("s1", "web_search", json!({"query": "a"})),
            ContentBlock::web_search_tool_result(
                "s1",
                json!([
                    hit("https://a.example/", "A"),
                    hit("https://b.example/", "")
                ]),
            ),
            ContentBlock::server_tool_use("s2", "web_search", json!({"query": "b"})),
            ContentBlock::web_search_tool_result(
                "s2",
                json!([hit("https://a.example/", "A again")]),
            ),
            ContentBlock::web_search_tool_result(
                "s3",
                json!({"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}),
            ),
            ContentBlock::text(" A says yes."),
        ];
        let report = Report::from_blocks(&blocks);
        assert_eq!(
            report.to_model_text("q"),
            Ok("Web search results for query: \"q\"\n\n\
                Sources:\n- [A](https://a.example/)\n- [https://b.example/](https://b.example/)\n\n\
                Some searches failed: the search limit for this call was reached (max_uses_exceeded).\n\n\
                Searching.\n\nA says yes.\n\n\
                REMINDER: cite the relevant sources above in your answer to the user, as markdown links."
                .to_owned())
        );
        assert_eq!(
            report.results_json(),
            vec![
                json!("Searching."),
                json!({"tool_use_id": "s1", "content": [{"title": "A", "url": "https://a.example/"}, {"title": "", "url": "https://b.example/"}]}),
                json!({"tool_use_id": "s2", "content": [{"title": "A again", "url": "https://a.example/"}]}),
                json!(" A says yes."),
            ]
        );
    }

    #[test]
    fn only_failures_is_an_error_and_nothing_found_says_so() {
        let failed = Report::from_blocks(&[ContentBlock::web_search_tool_result(
            "s1",
            json!({"type": "web_search_tool_result_error", "error_code": "unavailable"}),
        )]);
        assert_eq!(
            failed.to_model_text("q"),
            Err(
                "Web search for \"q\" failed: the search service is unavailable (unavailable)."
                    .into()
            )
        );
        let empty = Report::from_blocks(&[
            ContentBlock::web_search_tool_result("s1", json!([])),
            ContentBlock::text("Nothing relevant."),
        ]);
        assert_eq!(
            empty.to_model_text("q"),
            Ok(
                "Web search results for query: \"q\"\n\nNo results found.\n\nNothing relevant."
                    .into()
            )
        );
    }
}
