//! YAML from a repository (agent, command and skill frontmatter), loaded with
//! bounds. A YAML alias copies the node it names, so a few hundred bytes of
//! nested aliases ("billion laughs") expand to gigabytes; and nesting is
//! recursion when the tree is dropped. The text is first walked as events,
//! counting every node an alias would copy, and only a document within
//! [`MAX_YAML_NODES`], [`MAX_YAML_DEPTH`] and [`MAX_YAML_BYTES`] is built.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;
use yaml_rust2::{Yaml, YamlLoader};

/// Frontmatter is a few lines; this is far past any real one.
pub const MAX_YAML_BYTES: usize = 64 * 1024;
/// Nodes after alias expansion (a scalar, a list or a mapping is one each).
pub const MAX_YAML_NODES: usize = 10_000;
/// Lists and mappings inside each other.
pub const MAX_YAML_DEPTH: usize = 64;

/// Why YAML text was not loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at line {line}")]
pub struct YamlError {
    /// 1-based line of the text where the problem was found.
    pub line: usize,
    /// What is wrong, without the line.
    pub message: String,
}

/// The documents of `text`, or why it is not loaded: a syntax error, or a
/// text, a nesting or an alias expansion over the bounds.
pub fn load_yaml(text: &str) -> Result<Vec<Yaml>, YamlError> {
    if text.len() > MAX_YAML_BYTES {
        return Err(YamlError {
            line: 1,
            message: format!(
                "the YAML is {} bytes, over the limit of {MAX_YAML_BYTES}",
                text.len()
            ),
        });
    }
    let scan = |e: yaml_rust2::ScanError| YamlError {
        line: e.marker().line(),
        message: e.info().to_owned(),
    };
    let mut budget = Budget::default();
    Parser::new_from_str(text)
        .load(&mut budget, true)
        .map_err(scan)?;
    if let Some(over) = budget.over {
        return Err(over);
    }
    YamlLoader::load_from_str(text).map_err(scan)
}

/// Counts the nodes a loader would build, aliases expanded.
#[derive(Default)]
struct Budget {
    nodes: usize,
    /// Node count of each anchored node, by anchor id.
    anchored: HashMap<usize, usize>,
    /// Open lists and mappings: their anchor id and the count before them.
    open: Vec<(usize, usize)>,
    over: Option<YamlError>,
}

impl MarkedEventReceiver for Budget {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.over.is_some() {
            return;
        }
        let before = self.nodes;
        match ev {
            Event::Scalar(_, _, anchor, _) => {
                self.nodes += 1;
                if anchor > 0 {
                    self.anchored.insert(anchor, 1);
                }
            }
            Event::Alias(anchor) => {
                self.nodes = self
                    .nodes
                    .saturating_add(self.anchored.get(&anchor).copied().unwrap_or(1));
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                self.nodes += 1;
                self.open.push((anchor, before));
                if self.open.len() > MAX_YAML_DEPTH {
                    self.fail(
                        mark,
                        format!("the YAML nests deeper than {MAX_YAML_DEPTH} levels"),
                    );
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((anchor, start)) = self.open.pop()
                    && anchor > 0
                {
                    self.anchored.insert(anchor, self.nodes - start);
                }
            }
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => {}
        }
        if self.nodes > MAX_YAML_NODES {
            self.fail(
                mark,
                format!(
                    "the YAML expands to more than {MAX_YAML_NODES} values (aliases copy what they name)"
                ),
            );
        }
    }
}

impl Budget {
    fn fail(&mut self, mark: Marker, message: String) {
        if self.over.is_none() {
            self.over = Some(YamlError {
                line: mark.line(),
                message,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn ordinary_frontmatter_with_an_alias_loads() {
        let docs = load_yaml("a: &x [1, 2]\nb: *x\n").unwrap();
        assert_eq!(
            docs,
            YamlLoader::load_from_str("a: [1, 2]\nb: [1, 2]\n").unwrap()
        );
    }

    #[test]
    fn billion_laughs_is_refused_before_it_is_built() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let prev = format!("*a{}", i - 1);
            let list = [prev.as_str(); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{list}]\n"));
        }
        assert_eq!(
            load_yaml(&text),
            Err(YamlError {
                line: 4,
                message: "the YAML expands to more than 10000 values (aliases copy what they name)"
                    .to_owned()
            })
        );
    }

    #[test]
    fn deep_nesting_is_refused() {
        let text = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert_eq!(
            load_yaml(&text),
            Err(YamlError {
                line: 1,
                message: "the YAML nests deeper than 64 levels".to_owned()
            })
        );
    }

    #[test]
    fn a_syntax_error_names_its_line() {
        assert_eq!(load_yaml("a: 1\nb: [\n").map_err(|e| e.line), Err(3));
    }
}
