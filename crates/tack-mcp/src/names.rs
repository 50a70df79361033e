//! Tool names as the model sees them: `mcp__<server>__<tool>`.
//!
//! The Messages API accepts tool names matching `^[a-zA-Z0-9_-]{1,64}$`. Like
//! Claude Code, every other character of the server and tool names is replaced
//! by `_` (`my.server` → `my_server`). Claude Code sends longer names as they are
//! and the API rejects the request; tack cuts them to 64 characters, the last 9
//! being `_` and a hash of the full name, so that two long names stay distinct.

use tack_protocol::name::is_name_char;

/// The API's limit on tool name length.
pub const MAX_TOOL_NAME_LEN: usize = 64;

const PREFIX: &str = "mcp__";

/// `name` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn normalize_name(name: &str) -> String {
    name.chars()
        .map(|c| if is_name_char(c) { c } else { '_' })
        .collect()
}

/// `mcp__<server>__`: the prefix of every tool of `server`, and the permission
/// rule `mcp__<server>` without its trailing `__`.
pub fn server_prefix(server: &str) -> String {
    format!("{PREFIX}{}__", normalize_name(server))
}

/// The name the model calls `tool` of `server` by.
pub fn tool_name(server: &str, tool: &str) -> String {
    let full = format!("{}{}", server_prefix(server), normalize_name(tool));
    if full.len() <= MAX_TOOL_NAME_LEN {
        return full;
    }
    let hash = fnv1a(full.as_bytes());
    // All characters are ASCII here, so byte slicing is char slicing.
    format!("{}_{hash:08x}", &full[..MAX_TOOL_NAME_LEN - 9])
}

/// Splits `mcp__server__tool` into (`server`, `tool`) as written in the name
/// (normalised). `None` for names that are not MCP tool names.
pub fn split_tool_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix(PREFIX)?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// 32-bit FNV-1a: stable across builds (std's hasher is not promised to be),
/// so a cut name and the permission rules naming it stay the same.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn normalises_like_claude_code() {
        assert_eq!(tool_name("github", "get_issue"), "mcp__github__get_issue");
        assert_eq!(tool_name("my.server", "get-sum"), "mcp__my_server__get-sum");
        assert_eq!(tool_name("a b", "x/y:z"), "mcp__a_b__x_y_z");
        assert_eq!(normalize_name("café"), "caf_");
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let a = tool_name("server", &"a".repeat(80));
        let b = tool_name("server", &format!("{}b", "a".repeat(79)));
        assert_eq!(a.len(), MAX_TOOL_NAME_LEN);
        assert_eq!(b.len(), MAX_TOOL_NAME_LEN);
        assert!(a.starts_with("mcp__server__aaaa"));
        assert!(a != b, "{a} == {b}");
        assert_eq!(a, tool_name("server", &"a".repeat(80)), "stable");
    }

    #[test]
    fn splits_tool_names() {
        assert_eq!(
            split_tool_name("mcp__gh__get_issue"),
            Some(("gh", "get_issue"))
        );
        assert_eq!(split_tool_name("mcp__gh__a__b"), Some(("gh", "a__b")));
        assert_eq!(split_tool_name("mcp__gh"), None);
        assert_eq!(split_tool_name("Read"), None);
    }
}
