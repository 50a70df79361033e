//! An error as one line for a person: the error and its causes, `: `-separated,
//! each said once. Many errors already quote their source in their own message
//! (`cannot read X: {source}`) and name it as their source too; printing the
//! chain blindly says the reason twice ("larger than 8 MB: it is larger than 8 MB").

use std::error::Error;

/// `err` and its causes, `: `-separated, leaving out a cause whose text an
/// earlier part already contains.
pub fn chain(err: &dyn Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source: Option<&dyn Error> = Some(err);
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    /// "cannot read f", quoting its source when `quotes`.
    #[derive(Debug)]
    struct Read {
        source: std::io::Error,
        quotes: bool,
    }

    impl std::fmt::Display for Read {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self.quotes {
                true => write!(f, "cannot read f: {}", self.source),
                false => write!(f, "cannot read f"),
            }
        }
    }

    impl Error for Read {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.source)
        }
    }

    #[test]
    fn each_cause_is_said_once() {
        let io = || std::io::Error::other("it is larger than 8 MB");
        assert_eq!(
            [
                chain(&Read {
                    source: io(),
                    quotes: true
                }),
                chain(&Read {
                    source: io(),
                    quotes: false
                })
            ],
            [
                "cannot read f: it is larger than 8 MB",
                "cannot read f: it is larger than 8 MB"
            ]
        );
    }
}
