//! The files each prompt's turn changed, from the conversation: the paths
//! of its file tools' calls that did not fail (what `/rewind` lists beside
//! the prompt).

use std::collections::HashSet;

use tack_protocol::{ContentBlock, Message};

/// Tools that change the file named by their input.
const FILE_TOOLS: [(&str, &str); 4] = [
    ("Edit", "file_path"),
    ("MultiEdit", "file_path"),
    ("Write", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// For each prompt of `messages` (`is_prompt`), in order: the files its turn
/// changed (up to the next prompt), each once, in the order first changed.
pub(crate) fn files_changed_by_turns(
    messages: &[Message],
    is_prompt: impl Fn(&Message) -> bool,
) -> Vec<Vec<String>> {
    let failed: HashSet<&str> = messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                is_error: true,
                ..
            } => Some(tool_use_id.as_str()),
            _ => None,
        })
        .collect();
    let mut turns: Vec<Vec<String>> = Vec::new();
    for message in messages {
        if is_prompt(message) {
            turns.push(Vec::new());
            continue;
        }
        let Some(files) = turns.last_mut() else {
            continue;
        };
        for (id, name, input) in message.tool_uses() {
            let field = FILE_TOOLS.iter().find(|(tool, _)| *tool == name);
            let path = field.and_then(|(_, key)| input.get(*key)?.as_str());
            if let Some(path) = path.filter(|_| !failed.contains(id))
                && !files.iter().any(|f| f == path)
            {
                files.push(path.to_owned());
            }
        }
    }
    turns
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn each_turn_lists_the_files_its_tools_changed() {
        let edit = |id: &str, tool: &str, path: &str| {
            Message::assistant(vec![ContentBlock::tool_use(
                id,
                tool,
                json!({"file_path": path, "old_string": "a", "new_string": "b"}),
            )])
        };
        let result = |id: &str, is_error: bool| {
            Message::user(vec![ContentBlock::tool_result(id, "done", is_error)])
        };
        let messages = vec![
            Message::user_text("fix a"),
            edit("t1", "Edit", "/p/a.rs"),
            result("t1", false),
            edit("t2", "Write", "/p/b.rs"),
            result("t2", false),
            edit("t3", "Edit", "/p/a.rs"),
            result("t3", false),
            Message::user_text("just look"),
            edit("t4", "Read", "/p/a.rs"),
            result("t4", false),
            Message::user_text("write c"),
            edit("t5", "Write", "/p/c.rs"),
            result("t5", true),
        ];
        let prompts = ["fix a", "just look", "write c"];
        let turns = files_changed_by_turns(&messages, |m| {
            m.content.len() == 1 && prompts.contains(&m.text().as_str())
        });
        assert_eq!(
            turns,
            vec![
                vec!["/p/a.rs".to_owned(), "/p/b.rs".to_owned()],
                vec![],
                vec![],
            ]
        );
    }
}
