//! The characters of a name the model or a rule refers to: the Messages API
//! accepts tool names matching `^[a-zA-Z0-9_-]{1,64}$`, and Claude Code asks
//! the same letters, digits, `-` and `_` of MCP server and agent names (which
//! end up in tool names and `subagent_type`). This is the one statement of
//! that rule; its length limit stays with the tool names (`tack-mcp`'s
//! `names.rs`).

/// `c` is an ASCII letter or digit, `-` or `_`.
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// `name` is not empty and every character is a [name character](is_name_char).
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(is_name_char)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn letters_digits_hyphens_and_underscores_only() {
        let names = [
            "code-reviewer_2",
            "",
            "my.server",
            "a b",
            "café",
            "x/y",
            "A-Z_0",
        ];
        assert_eq!(
            names.map(is_valid_name),
            [true, false, false, false, false, false, true]
        );
    }
}
