//! A Bash command printing 50 MB: the result is capped and memory stays bounded.
//! Alone in its binary so that the peak-RSS measurement sees only this test.

use crate::common;

use common::Session;
use serde_json::json;

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn fifty_megabytes_of_output_is_capped_in_bounded_memory() {
    let s = Session::new();
    let before = peak_rss_kb();
    let out = s
        .call(
            "Bash",
            json!({"command": "head -c 50000000 /dev/zero | tr '\\0' a; echo; echo END"}),
        )
        .await
        .unwrap();
    let text = out.content.to_text();
    let (header, preview) = text.split_once("\n\n").unwrap();
    let path = header
        .strip_prefix("Output too large (47.7MB). Full output saved to: ")
        .unwrap_or_else(|| panic!("{header}"));
    assert!(preview.len() <= 30_100, "{}", preview.len());
    assert!(preview.starts_with("aaaa"));
    assert!(
        preview.ends_with("aaaa\nEND"),
        "{}",
        &text[text.len() - 20..]
    );
    assert!(preview.contains("\n\n... [49970005 bytes truncated] ...\n\n"));
    assert_eq!(std::fs::metadata(path).unwrap().len(), 50_000_005);
    let grown_mb = (peak_rss_kb().saturating_sub(before)) / 1024;
    assert!(grown_mb < 20, "peak RSS grew by {grown_mb} MB");
}
