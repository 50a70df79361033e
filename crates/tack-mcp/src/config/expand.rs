//! `${VAR}` and `${VAR:-default}` in server configurations.
//!
//! As in Claude Code, a variable that is set (even to the empty string) is used
//! as is, `:-default` applies only when it is unset, and text that is not a
//! complete `${...}` stays literal. Unlike Claude Code, which keeps an unset
//! variable's `${VAR}` literally and warns, tack refuses to start that server and
//! names the variable: a literal `${TOKEN}` sent as a credential only fails later
//! and less clearly.
//!
//! Variables are read through a lookup passed in by the caller, never from the
//! process environment directly.

/// A variable that was needed and is not set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingVar {
    /// Where it was used: `command`, `args[1]`, `env.TOKEN`, `url`, `headers.Authorization`.
    pub field: String,
    /// The variable's name.
    pub var: String,
}

/// Expands `text`, recording unset variables (without default) in `missing`
/// under `field`.
pub(crate) fn expand(
    text: &str,
    field: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<MissingVar>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (lookup(name), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                missing.push(MissingVar {
                    field: field.to_string(),
                    var: name.to_string(),
                });
                out.push_str(&rest[start..start + 2 + end + 1]);
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    fn run(text: &str) -> (String, Vec<MissingVar>) {
        let mut missing = Vec::new();
        let out = expand(text, "url", &env, &mut missing);
        (out, missing)
    }

    #[test]
    fn expands_set_default_and_empty() {
        assert_eq!(run("${HOME}/x"), ("/home/u/x".into(), vec![]));
        assert_eq!(run("a${NOPE:-d}b"), ("adb".into(), vec![]));
        assert_eq!(run("${HOME:-d}"), ("/home/u".into(), vec![]));
        assert_eq!(run("[${EMPTY:-d}]"), ("[]".into(), vec![]));
        assert_eq!(run("${NOPE:-}"), (String::new(), vec![]));
        assert_eq!(
            run("$HOME ${ unterminated"),
            ("$HOME ${ unterminated".into(), vec![])
        );
        assert_eq!(run("${HOME}${HOME}"), ("/home/u/home/u".into(), vec![]));
    }

    #[test]
    fn records_missing_variables() {
        assert_eq!(
            run("Bearer ${TOKEN} ${OTHER}"),
            (
                "Bearer ${TOKEN} ${OTHER}".into(),
                vec![
                    MissingVar {
                        field: "url".into(),
                        var: "TOKEN".into()
                    },
                    MissingVar {
                        field: "url".into(),
                        var: "OTHER".into()
                    },
                ]
            )
        );
    }
}
