//! Walks tree-sitter-bash's syntax tree and collects every simple command, every
//! redirection and every construct whose effect cannot be known statically.
//!
//! The walk is total: any `command` node anywhere in the tree (inside subshells,
//! `$(...)`, backticks, `<(...)`, `>(...)`, here-doc bodies, `if`/`for`/`while`/`case`
//! bodies, function bodies, parameter expansions) becomes a [`SimpleCommand`].
//! Anything the grammar could not parse (an `ERROR` or `MISSING` node, a byte of
//! input not covered by the tree) makes the whole script [`Unparseable`].

use tree_sitter::{Node, Parser};

/// Scripts longer than this are not analysed (asked about).
pub const MAX_SCRIPT_LEN: usize = 64 * 1024;
/// Syntax trees deeper than this are not analysed (asked about).
const MAX_DEPTH: usize = 200;

/// A shell word. `value` is the word after quote removal when it is fully static;
/// `None` when it contains an expansion, substitution, glob or brace expansion whose
/// result depends on run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The source text.
    pub raw: String,
    /// The literal value, or `None` if dynamic.
    pub value: Option<String>,
}

impl Word {
    /// True when the word's value is known statically.
    pub fn is_static(&self) -> bool {
        self.value.is_some()
    }
}

/// `NAME=value`, as a command prefix or a statement of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The variable name (`a[i]`-style subscripts keep their source text).
    pub name: String,
    /// The assigned value.
    pub value: Word,
}

/// What a redirection does to the file it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// `<`: reads the target.
    Read,
    /// `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>& file`: writes the target.
    Write,
    /// `2>&1`, `<&0`, `>&-`: duplicates or closes a descriptor, no file involved.
    Descriptor,
    /// `<<<word`, `<<EOF`: feeds text to stdin, no file involved.
    Input,
}

/// One redirection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The operator as written (`>`, `>>`, `2>` is `>` with fd 2, ...).
    pub op: String,
    /// The effect.
    pub kind: RedirectKind,
    /// The target word (file name) for `Read`/`Write`.
    pub target: Option<Word>,
}

/// One simple command: env prefixes, argv, and the redirections written on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// `FOO=bar` prefixes.
    pub env: Vec<Assignment>,
    /// The command name and arguments (`argv[0]` is the name). Empty for a bare
    /// redirection such as `> file`.
    pub argv: Vec<Word>,
    /// Redirections written directly on this command (also in
    /// [`ParsedScript::redirects`], which holds every redirection of the script).
    pub redirects: Vec<Redirect>,
    /// The command's source text.
    pub text: String,
}

impl SimpleCommand {
    /// The static argv values, `None` for dynamic words.
    pub fn values(&self) -> Vec<Option<&str>> {
        self.argv.iter().map(|w| w.value.as_deref()).collect()
    }

    /// The static command name, if any.
    pub fn name(&self) -> Option<&str> {
        self.argv.first().and_then(|w| w.value.as_deref())
    }
}

/// A construct that makes static analysis of the whole script unreliable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hazard {
    /// `$((...))`, `((...))`, `for ((...))`: arithmetic evaluates variable contents
    /// (and array subscripts in them run command substitutions).
    Arithmetic,
    /// `${a[...]}` / `a[...]=`: subscripts are evaluated arithmetically.
    Subscript,
    /// `name() { ... }`: a function may shadow any command name.
    FunctionDefinition(String),
    /// `[[ ... ]]`: arithmetic comparisons evaluate variable contents.
    TestCommand,
}

/// The result of analysing a script.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedScript {
    /// Every simple command, in source order (outer before nested).
    pub commands: Vec<SimpleCommand>,
    /// Every redirection anywhere in the script.
    pub redirects: Vec<Redirect>,
    /// Standalone assignments (`X=1; ...`) and loop variables (`for X in ...`).
    pub assignments: Vec<Assignment>,
    /// Constructs that force a prompt.
    pub hazards: Vec<Hazard>,
}

/// Why a script could not be analysed. Such a script is asked about, never allowed
/// by a content rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("command could not be parsed: {0}")]
pub struct Unparseable(pub String);

/// Parses `script` and returns every simple command in it (see [`parse_script`]).
pub fn parse_command(script: &str) -> Result<Vec<SimpleCommand>, Unparseable> {
    parse_script(script).map(|s| s.commands)
}

/// Parses `script` with tree-sitter-bash and collects its commands, redirections,
/// assignments and hazards.
pub fn parse_script(script: &str) -> Result<ParsedScript, Unparseable> {
    if script.len() > MAX_SCRIPT_LEN {
        return Err(Unparseable(format!("longer than {MAX_SCRIPT_LEN} bytes")));
    }
    if script.contains('\0') {
        return Err(Unparseable("contains a NUL byte".into()));
    }
    // tree-sitter-bash treats a carriage return as blank; bash keeps it in the word.
    if script.contains('\r') {
        return Err(Unparseable("contains a carriage return".into()));
    }
    if reaches_scanner_crash(script) {
        return Err(Unparseable(
            "a brace expansion before a wide character (not parsed: it crashes tree-sitter-bash)"
                .into(),
        ));
    }
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .map_err(|e| Unparseable(format!("bash grammar unavailable: {e}")))?;
    let tree = parser
        .parse(script, None)
        .ok_or_else(|| Unparseable("parser gave up".into()))?;
    let root = tree.root_node();
    if root.has_error() {
        return Err(Unparseable("syntax error".into()));
    }
    check_depth(root)?;
    check_coverage(root, script)?;
    check_words_stay_on_one_line(root, script)?;
    let mut walker = Walker {
        src: script,
        out: ParsedScript::default(),
    };
    walker.visit(root)?;
    Ok(walker.out)
}

/// tree-sitter-bash 0.25's scanner reads past a `{`, ASCII digits and an
/// optional `..` with `isdigit` on a code point, which crashes the process
/// (SIGSEGV) for one above U+00FF (upstream issue #337). Such scripts are not
/// parsed at all: the command is asked about instead.
fn reaches_scanner_crash(script: &str) -> bool {
    script.match_indices('{').any(|(at, _)| {
        let rest = script[at + 1..].trim_start_matches(|c: char| c.is_ascii_digit());
        let rest = rest
            .strip_prefix("..")
            .map_or(rest, |r| r.trim_start_matches(|c: char| c.is_ascii_digit()));
        rest.chars().next().is_some_and(|c| u32::from(c) > 0xFF)
    })
}

/// tree-sitter-bash can read `\<newline>word` as one word of the previous
/// command (`echo ok` + newline + `\rm -rf a` parses as one `echo`) while bash
/// runs a second command. A word whose source holds a line break is therefore
/// not trusted to be one word.
fn check_words_stay_on_one_line(root: Node, script: &str) -> Result<(), Unparseable> {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.kind() == "word" && script[node.byte_range()].contains('\n') {
            return Err(Unparseable("a word spans a line break".into()));
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Ok(());
            }
        }
    }
}

fn check_depth(root: Node) -> Result<(), Unparseable> {
    let mut cursor = root.walk();
    let mut depth = 0usize;
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            if depth > MAX_DEPTH {
                return Err(Unparseable("nested too deeply".into()));
            }
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Ok(());
            }
            depth -= 1;
        }
    }
}

/// Node kinds whose whole byte range is content (their children need not cover it).
fn is_opaque(kind: &str) -> bool {
    matches!(
        kind,
        "word"
            | "string"
            | "raw_string"
            | "ansi_c_string"
            | "translated_string"
            | "comment"
            | "heredoc_body"
            | "heredoc_content"
            | "heredoc_start"
            | "heredoc_end"
            | "string_content"
            | "number"
            | "regex"
            | "extglob_pattern"
            | "variable_name"
            | "special_variable_name"
            | "file_descriptor"
            | "test_operator"
            | "concatenation"
            | "simple_expansion"
            | "expansion"
    )
}

/// Defence in depth: every byte of the script must belong to a token of the tree
/// or be blank (space, tab, newline, `\`-newline). Text the grammar skipped would
/// otherwise be invisible to the analysis.
fn check_coverage(root: Node, src: &str) -> Result<(), Unparseable> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.child_count() == 0 || is_opaque(n.kind()) {
            spans.push((n.start_byte(), n.end_byte()));
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    spans.sort_unstable();
    let bytes = src.as_bytes();
    let mut pos = 0usize;
    let check_gap = |from: usize, to: usize| -> Result<(), Unparseable> {
        let mut i = from;
        while i < to {
            match bytes[i] {
                b' ' | b'\t' | b'\n' => i += 1,
                b'\\' if i + 1 < to && bytes[i + 1] == b'\n' => i += 2,
                _ => {
                    return Err(Unparseable(format!(
                        "text the parser did not account for at byte {i}"
                    )));
                }
            }
        }
        Ok(())
    };
    for (s, e) in spans {
        if s > pos {
            check_gap(pos, s)?;
        }
        pos = pos.max(e);
    }
    check_gap(pos, bytes.len())
}

struct Walker<'s> {
    src: &'s str,
    out: ParsedScript,
}

impl<'s> Walker<'s> {
    fn text(&self, n: Node) -> &'s str {
        &self.src[n.start_byte()..n.end_byte()]
    }

    fn visit_children(&mut self, n: Node) -> Result<(), Unparseable> {
        let mut c = n.walk();
        let children: Vec<Node> = n.children(&mut c).collect();
        for ch in children {
            self.visit(ch)?;
        }
        Ok(())
    }

    fn visit(&mut self, n: Node) -> Result<(), Unparseable> {
        if n.is_error() || n.is_missing() {
            return Err(Unparseable("syntax error".into()));
        }
        match n.kind() {
            "command" => {
                let cmd = self.simple_command(n);
                self.out.commands.push(cmd);
                self.visit_children(n)
            }
            "declaration_command" | "unset_command" => {
                // `export X=1`, `declare -i x`, `local`, `readonly`, `typeset`, `unset`:
                // recorded as commands named after their keyword.
                let mut argv = Vec::new();
                let mut c = n.walk();
                for ch in n.children(&mut c) {
                    if ch.is_named() {
                        argv.push(Word {
                            raw: self.text(ch).to_string(),
                            value: None,
                        });
                    } else {
                        argv.push(literal(self.text(ch)));
                    }
                }
                self.out.commands.push(SimpleCommand {
                    env: Vec::new(),
                    argv,
                    redirects: Vec::new(),
                    text: self.text(n).to_string(),
                });
                self.visit_children(n)
            }
            "variable_assignment" => {
                let parent_is_command = n.parent().is_some_and(|p| p.kind() == "command");
                let parent_is_decl = n
                    .parent()
                    .is_some_and(|p| matches!(p.kind(), "declaration_command"));
                if !parent_is_command && !parent_is_decl {
                    let a = self.assignment(n);
                    self.out.assignments.push(a);
                }
                self.visit_children(n)
            }
            "for_statement" => {
                if let Some(var) = n.child_by_field_name("variable") {
                    self.out.assignments.push(Assignment {
                        name: self.text(var).to_string(),
                        value: Word {
                            raw: String::new(),
                            value: None,
                        },
                    });
                }
                self.visit_children(n)
            }
            "c_style_for_statement" | "arithmetic_expansion" => {
                self.out.hazards.push(Hazard::Arithmetic);
                self.visit_children(n)
            }
            "compound_statement" => {
                if self.text(n).starts_with("((") {
                    self.out.hazards.push(Hazard::Arithmetic);
                }
                self.visit_children(n)
            }
            "subscript" => {
                self.out.hazards.push(Hazard::Subscript);
                self.visit_children(n)
            }
            "test_command" => {
                if self.text(n).starts_with("[[") || self.text(n).starts_with("((") {
                    self.out.hazards.push(Hazard::TestCommand);
                }
                self.visit_children(n)
            }
            "function_definition" => {
                let name = n
                    .child_by_field_name("name")
                    .map(|w| self.text(w).to_string())
                    .unwrap_or_default();
                self.out.hazards.push(Hazard::FunctionDefinition(name));
                self.visit_children(n)
            }
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                let r = self.redirect(n);
                self.out.redirects.push(r);
                self.visit_children(n)
            }
            _ => self.visit_children(n),
        }
    }

    fn assignment(&self, n: Node) -> Assignment {
        let name = n
            .child_by_field_name("name")
            .map(|x| self.text(x).to_string())
            .unwrap_or_default();
        let value = match n.child_by_field_name("value") {
            Some(v) => self.word(v),
            None => literal(""),
        };
        Assignment { name, value }
    }

    fn simple_command(&self, n: Node) -> SimpleCommand {
        let mut cmd = SimpleCommand {
            env: Vec::new(),
            argv: Vec::new(),
            redirects: Vec::new(),
            text: self.text(n).to_string(),
        };
        let mut c = n.walk();
        for (i, ch) in n.children(&mut c).enumerate() {
            match n.field_name_for_child(i as u32) {
                Some("name") => {
                    // command_name wraps exactly one word-like node.
                    let inner = if ch.named_child_count() == 1 {
                        ch.named_child(0).unwrap_or(ch)
                    } else {
                        ch
                    };
                    let mut w = self.word(inner);
                    if ch.named_child_count() != 1 {
                        w.value = None;
                    }
                    cmd.argv.push(w);
                }
                Some("argument") => cmd.argv.push(self.word(ch)),
                Some("redirect") => cmd.redirects.push(self.redirect(ch)),
                _ => {
                    if ch.kind() == "variable_assignment" {
                        cmd.env.push(self.assignment(ch));
                    }
                }
            }
        }
        cmd
    }

    fn redirect(&self, n: Node) -> Redirect {
        match n.kind() {
            "heredoc_redirect" => Redirect {
                op: "<<".into(),
                kind: RedirectKind::Input,
                target: None,
            },
            "herestring_redirect" => Redirect {
                op: "<<<".into(),
                kind: RedirectKind::Input,
                target: None,
            },
            _ => {
                let mut op = String::new();
                let mut targets = Vec::new();
                let mut c = n.walk();
                for (i, ch) in n.children(&mut c).enumerate() {
                    match n.field_name_for_child(i as u32) {
                        Some("destination") => targets.push(ch),
                        Some("descriptor") => {}
                        _ => {
                            if !ch.is_named() {
                                op.push_str(self.text(ch));
                            }
                        }
                    }
                }
                let target = match targets.as_slice() {
                    [] => None,
                    [one] => Some(self.word(*one)),
                    many => Some(Word {
                        raw: many
                            .iter()
                            .map(|t| self.text(*t))
                            .collect::<Vec<_>>()
                            .join(" "),
                        value: None,
                    }),
                };
                let is_fd = |t: &Option<Word>| {
                    t.as_ref()
                        .and_then(|w| w.value.as_deref())
                        .is_some_and(|v| {
                            v == "-" || (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                        })
                };
                let kind = match op.as_str() {
                    "<" => RedirectKind::Read,
                    ">&" | "<&" if is_fd(&target) || target.is_none() => RedirectKind::Descriptor,
                    "<&-" | ">&-" => RedirectKind::Descriptor,
                    "<&" => RedirectKind::Read,
                    // `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>& file`, and anything new.
                    _ => RedirectKind::Write,
                };
                Redirect { op, kind, target }
            }
        }
    }

    /// Quote removal for a word-like node; `value: None` if anything is dynamic.
    fn word(&self, n: Node) -> Word {
        let raw = self.text(n).to_string();
        let value = self.word_value(n);
        Word { raw, value }
    }

    fn word_value(&self, n: Node) -> Option<String> {
        let text = self.text(n);
        match n.kind() {
            "word" => unquoted_word(text),
            "number" => {
                if n.named_child_count() == 0
                    && text
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'#' || b == b'-' || b == b'+')
                {
                    Some(text.to_string())
                } else {
                    None
                }
            }
            "raw_string" => text
                .strip_prefix('\'')
                .and_then(|t| t.strip_suffix('\''))
                .map(str::to_string),
            "string" => {
                let mut c = n.walk();
                if n.named_children(&mut c)
                    .any(|ch| ch.kind() != "string_content")
                {
                    return None;
                }
                let inner = text.strip_prefix('"')?.strip_suffix('"')?;
                double_quoted(inner)
            }
            "ansi_c_string" => ansi_c(text.strip_prefix("$'")?.strip_suffix('\'')?),
            "concatenation" => {
                let mut out = String::new();
                // Brace expansion can span children (`{a,b}` is three words).
                let mut skeleton = String::new();
                let mut c = n.walk();
                for ch in n.children(&mut c) {
                    out.push_str(&self.word_value(ch)?);
                    if ch.kind() == "word" {
                        skeleton.push_str(self.text(ch));
                    } else {
                        skeleton.push('x');
                    }
                }
                if has_brace_expansion(&skeleton) {
                    return None;
                }
                Some(out)
            }
            // Expansions, substitutions, brace expressions, translated strings,
            // regexes, extglobs: dynamic.
            _ => None,
        }
    }
}

fn literal(s: &str) -> Word {
    Word {
        raw: s.to_string(),
        value: Some(s.to_string()),
    }
}

/// Characters that change an unquoted word's meaning at run time.
fn unquoted_word(text: &str) -> Option<String> {
    if has_brace_expansion(text) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(n) => out.push(n),
                None => return None,
            },
            // Globs, expansions, substitutions, extglob and history characters.
            '*' | '?' | '[' | '$' | '`' | '(' | ')' | '!' | '\'' | '"' => return None,
            _ => out.push(c),
        }
    }
    Some(out)
}

/// An unescaped `{` followed by `,` or `..` and then `}` (conservative: nesting
/// and quoting inside are not analysed; any such shape counts).
fn has_brace_expansion(text: &str) -> bool {
    let mut open = false;
    let mut special = false;
    let mut prev_dot = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
                prev_dot = false;
                continue;
            }
            '{' => {
                open = true;
                special = false;
            }
            ',' if open => special = true,
            '.' if open && prev_dot => special = true,
            '}' if open && special => return true,
            _ => {}
        }
        prev_dot = c == '.';
    }
    false
}

/// Content of `"..."` without expansions: only `\$ \` \" \\ \newline` are escapes.
fn double_quoted(inner: &str) -> Option<String> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(n @ ('$' | '`' | '"' | '\\')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            },
            '$' | '`' => return None,
            _ => out.push(c),
        }
    }
    Some(out)
}

/// Decodes the body of `$'...'`. A NUL (which truncates the word in bash) or an
/// escape it does not know makes the word dynamic.
fn ansi_c(body: &str) -> Option<String> {
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let b = body.as_bytes();
    let mut i = 0;
    let hex = |s: &[u8], max: usize| -> (u32, usize) {
        let mut v = 0u32;
        let mut n = 0;
        while n < max && n < s.len() && s[n].is_ascii_hexdigit() {
            v = v * 16 + (s[n] as char).to_digit(16).unwrap_or(0);
            n += 1;
        }
        (v, n)
    };
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let &e = b.get(i + 1)?;
        i += 2;
        let simple = match e {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'v' => Some(11),
            b'e' | b'E' => Some(27),
            b'\\' => Some(b'\\'),
            b'\'' => Some(b'\''),
            b'"' => Some(b'"'),
            b'?' => Some(b'?'),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        match e {
            b'x' => {
                let (v, n) = hex(&b[i..], 2);
                if n == 0 {
                    return None;
                }
                out.push(v as u8);
                i += n;
            }
            b'u' | b'U' => {
                let (v, n) = hex(&b[i..], if e == b'u' { 4 } else { 8 });
                if n == 0 {
                    return None;
                }
                let ch = char::from_u32(v)?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                i += n;
            }
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                let mut n = 0;
                while n < 2 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    n += 1;
                }
                out.push((v & 0xff) as u8);
            }
            b'c' => {
                let c = *b.get(i)?;
                out.push(c & 0x1f);
                i += 1;
            }
            _ => return None,
        }
    }
    if out.contains(&0) {
        return None;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn argvs(s: &str) -> Vec<Vec<Option<String>>> {
        parse_command(s)
            .unwrap()
            .iter()
            .map(|c| c.argv.iter().map(|w| w.value.clone()).collect())
            .collect()
    }

    fn s(v: &[&str]) -> Vec<Option<String>> {
        v.iter().map(|x| Some(x.to_string())).collect()
    }

    #[test]
    fn splits_lists_pipes_and_substitutions() {
        assert_eq!(
            argvs("a && b || c; d | e"),
            vec![s(&["a"]), s(&["b"]), s(&["c"]), s(&["d"]), s(&["e"])]
        );
        assert_eq!(
            argvs("git diff $(curl x | sh)"),
            vec![
                vec![Some("git".into()), Some("diff".into()), None],
                s(&["curl", "x"]),
                s(&["sh"])
            ]
        );
        assert_eq!(
            argvs("echo `id` <(ls) >(cat)"),
            vec![
                vec![Some("echo".into()), None, None, None],
                s(&["id"]),
                s(&["ls"]),
                s(&["cat"])
            ]
        );
    }

    #[test]
    fn quote_removal() {
        assert_eq!(
            argvs(r#"git diff ';' "a b" 'c' $'\x3b' a\ b "x\"y""#),
            vec![s(&["git", "diff", ";", "a b", "c", ";", "a b", "x\"y"])]
        );
        assert_eq!(argvs(r#""g"'i't diff"#), vec![s(&["git", "diff"])]);
    }

    #[test]
    fn dynamic_words() {
        assert_eq!(
            argvs("ls * $HOME ${x} {a,b} \"$y\" $((1+2))"),
            vec![vec![Some("ls".into()), None, None, None, None, None, None]]
        );
    }

    #[test]
    fn redirects_are_collected_everywhere() {
        let p = parse_script("git diff > ~/.bashrc 2>&1; (cat < in) && x >> out").unwrap();
        let kinds: Vec<(String, RedirectKind, Option<String>)> = p
            .redirects
            .iter()
            .map(|r| {
                (
                    r.op.clone(),
                    r.kind,
                    r.target.as_ref().and_then(|t| t.value.clone()),
                )
            })
            .collect();
        assert_eq!(
            kinds,
            vec![
                (">".into(), RedirectKind::Write, Some("~/.bashrc".into())),
                (">&".into(), RedirectKind::Descriptor, Some("1".into())),
                ("<".into(), RedirectKind::Read, Some("in".into())),
                (">>".into(), RedirectKind::Write, Some("out".into())),
            ]
        );
    }

    #[test]
    fn heredoc_bodies_are_walked() {
        let p = parse_script("cat <<EOF > f\nhi $(id)\nEOF\necho x").unwrap();
        let names: Vec<_> = p.commands.iter().map(|c| c.name().unwrap()).collect();
        assert_eq!(names, vec!["cat", "id", "echo"]);
        assert_eq!(p.redirects.len(), 2);
    }

    #[test]
    fn syntax_errors_are_unparseable() {
        for bad in [
            "git diff $(",
            "echo 'unterminated",
            "if then fi",
            "a &&",
            "((",
        ] {
            assert!(parse_script(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ansi_c_decoding() {
        assert_eq!(ansi_c(r"\x72\155"), Some("rm".into()));
        assert_eq!(ansi_c(r"\u00e9"), Some("é".into()));
        assert_eq!(ansi_c(r"a\x00b"), None);
    }
}
