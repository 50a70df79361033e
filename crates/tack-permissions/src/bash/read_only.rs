//! Commands the parser can prove read-only: they print, list or search, and
//! none of the options they are given writes a file, runs a program or reads a
//! file named inside an option. What is left to check is where their operands
//! point, which the engine does ([`read_only_operands`] hands them over).
//!
//! Every option is matched against an allowlist per command, not a denylist: GNU
//! tools accept abbreviated long options (`--fil=x` is `--file=x`) and clustered
//! short ones (`-rf`), so only options known to be inert pass. An option that
//! takes a value takes an inert one (a count, a pattern, a format), never a path.

use super::parse::{SimpleCommand, Word};

/// One read-only command's grammar.
struct Spec {
    name: &'static str,
    /// Short flags that take no value (a cluster of them: `-la`).
    short: &'static str,
    /// Short flags that take an inert value: the rest of the cluster, or the
    /// next word (`-n 5`, `-n5`).
    short_value: &'static str,
    /// Long flags that take no value, or an attached inert one (`--color=never`).
    long: &'static [&'static str],
    /// Long flags that take an inert value, attached or as the next word.
    long_value: &'static [&'static str],
    /// The first operand is a pattern (grep, rg), unless one came with an option.
    pattern_first: bool,
    /// At most this many path operands (`uniq in out` writes `out`).
    max_operands: usize,
}

const SPECS: &[Spec] = &[
    Spec {
        name: "ls",
        short: "1aAbBcCdDfFgGhHiklmnNopqQrRsStuUvxXZ",
        short_value: "IwT",
        long: &[
            "--all",
            "--almost-all",
            "--classify",
            "--color",
            "--directory",
            "--file-type",
            "--full-time",
            "--group-directories-first",
            "--human-readable",
            "--inode",
            "--no-group",
            "--numeric-uid-gid",
            "--recursive",
            "--reverse",
            "--si",
            "--size",
            "--literal",
            "--escape",
        ],
        long_value: &[
            "--ignore",
            "--hide",
            "--width",
            "--block-size",
            "--sort",
            "--time",
            "--time-style",
            "--format",
            "--indicator-style",
            "--quoting-style",
        ],
        pattern_first: false,
        max_operands: usize::MAX,
    },
    Spec {
        name: "cat",
        short: "AbeEnstTuv",
        short_value: "",
        long: &[
            "--show-all",
            "--number-nonblank",
            "--show-ends",
            "--number",
            "--squeeze-blank",
            "--show-tabs",
            "--show-nonprinting",
        ],
        long_value: &[],
        pattern_first: false,
        max_operands: usize::MAX,
    },
    // `tail` without `-f`/`-F`, which would follow the file forever.
    head_or_tail("head"),
    head_or_tail("tail"),
    Spec {
        name: "wc",
        short: "clmwL",
        short_value: "",
        long: &[
            "--bytes",
            "--chars",
            "--lines",
            "--words",
            "--max-line-length",
        ],
        long_value: &[],
        pattern_first: false,
        max_operands: usize::MAX,
    },
    Spec {
        name: "grep",
        short: "EFGPiywxvcLlosqnhHbrzTUaIZ0123456789",
        short_value: "eABCmdD",
        long: &[
            "--extended-regexp",
            "--fixed-strings",
            "--basic-regexp",
            "--perl-regexp",
            "--ignore-case",
            "--no-ignore-case",
            "--word-regexp",
            "--line-regexp",
            "--invert-match",
            "--count",
            "--color",
            "--colour",
            "--files-with-matches",
            "--files-without-match",
            "--only-matching",
            "--quiet",
            "--silent",
            "--no-messages",
            "--byte-offset",
            "--with-filename",
            "--no-filename",
            "--line-number",
            "--recursive",
            "--text",
            "--null",
            "--null-data",
        ],
        long_value: &[
            "--regexp",
            "--max-count",
            "--after-context",
            "--before-context",
            "--context",
            "--include",
            "--exclude",
            "--exclude-dir",
            "--directories",
            "--devices",
            "--binary-files",
            "--label",
        ],
        pattern_first: true,
        max_operands: usize::MAX,
    },
    Spec {
        name: "rg",
        short: "iSswvcnNlHhqoFUPxuab0123456789",
        short_value: "eABCmMtTgjEr",
        long: &[
            "--ignore-case",
            "--smart-case",
            "--case-sensitive",
            "--word-regexp",
            "--line-regexp",
            "--invert-match",
            "--count",
            "--count-matches",
            "--line-number",
            "--no-line-number",
            "--files-with-matches",
            "--files-without-match",
            "--with-filename",
            "--no-filename",
            "--quiet",
            "--only-matching",
            "--fixed-strings",
            "--multiline",
            "--hidden",
            "--no-ignore",
            "--no-ignore-vcs",
            "--no-heading",
            "--heading",
            "--color",
            "--column",
            "--json",
            "--vimgrep",
            "--files",
            "--stats",
            "--trim",
            "--pcre2",
            "--unrestricted",
            "--text",
            "--null",
            "--byte-offset",
        ],
        long_value: &[
            "--regexp",
            "--after-context",
            "--before-context",
            "--context",
            "--max-count",
            "--max-columns",
            "--max-depth",
            "--max-filesize",
            "--type",
            "--type-not",
            "--glob",
            "--iglob",
            "--threads",
            "--encoding",
            "--replace",
            "--sort",
            "--sortr",
        ],
        pattern_first: true,
        max_operands: usize::MAX,
    },
    Spec {
        name: "sort",
        short: "bdfgiMhnRrVcCsuz0123456789",
        short_value: "kt",
        long: &[
            "--ignore-leading-blanks",
            "--dictionary-order",
            "--ignore-case",
            "--general-numeric-sort",
            "--human-numeric-sort",
            "--numeric-sort",
            "--month-sort",
            "--reverse",
            "--version-sort",
            "--check",
            "--stable",
            "--unique",
            "--zero-terminated",
        ],
        long_value: &["--key", "--field-separator"],
        pattern_first: false,
        max_operands: usize::MAX,
    },
    Spec {
        name: "uniq",
        short: "cdDiuz0123456789",
        short_value: "fsw",
        long: &[
            "--count",
            "--repeated",
            "--all-repeated",
            "--ignore-case",
            "--unique",
            "--zero-terminated",
        ],
        long_value: &["--skip-fields", "--skip-chars", "--check-chars"],
        pattern_first: false,
        max_operands: 1,
    },
    Spec {
        name: "cut",
        short: "nsz",
        short_value: "bcdf",
        long: &["--complement", "--only-delimited", "--zero-terminated"],
        long_value: &[
            "--bytes",
            "--characters",
            "--delimiter",
            "--fields",
            "--output-delimiter",
        ],
        pattern_first: false,
        max_operands: usize::MAX,
    },
    Spec {
        name: "stat",
        short: "fLt",
        short_value: "c",
        long: &["--dereference", "--file-system", "--terse"],
        long_value: &["--format", "--printf"],
        pattern_first: false,
        max_operands: usize::MAX,
    },
    Spec {
        name: "du",
        short: "abchkmsxP0123456789",
        short_value: "d",
        long: &[
            "--all",
            "--apparent-size",
            "--bytes",
            "--total",
            "--human-readable",
            "--si",
            "--summarize",
            "--one-file-system",
            "--null",
        ],
        long_value: &["--max-depth", "--block-size", "--threshold"],
        pattern_first: false,
        max_operands: usize::MAX,
    },
    Spec {
        name: "which",
        short: "as",
        short_value: "",
        long: &["--all"],
        long_value: &[],
        pattern_first: false,
        max_operands: usize::MAX,
    },
];

/// `head` and `tail` take the same inert options (`-n 5`, `-5`, `-c 10`, `-q`).
const fn head_or_tail(name: &'static str) -> Spec {
    Spec {
        name,
        short: "qvz0123456789",
        short_value: "nc",
        long: &["--quiet", "--silent", "--verbose", "--zero-terminated"],
        long_value: &["--lines", "--bytes"],
        pattern_first: false,
        max_operands: usize::MAX,
    }
}

/// The words of `cmd` that name files it reads, when `cmd` is a read-only
/// command (see the module docs); `None` when it is not one or an option is
/// not known to be inert. Every word must be static and no `NAME=` prefix
/// given. `find` takes only its starting points as operands, and only with
/// primaries that test and print.
pub fn read_only_operands(cmd: &SimpleCommand) -> Option<Vec<&Word>> {
    if !cmd.env.is_empty() || !cmd.argv.iter().all(Word::is_static) {
        return None;
    }
    let name = cmd.name()?;
    if name == "find" {
        return find_operands(cmd);
    }
    let spec = SPECS.iter().find(|s| s.name == name)?;
    let mut operands = Vec::new();
    let mut pattern_given = false;
    let mut options_done = false;
    let mut words = cmd.argv[1..].iter();
    while let Some(w) = words.next() {
        let v = w.value.as_deref()?;
        if options_done || v == "-" || !v.starts_with('-') {
            operands.push(w);
            continue;
        }
        if v == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = v.strip_prefix("--") {
            let (flag, attached) = match long.split_once('=') {
                Some((f, _)) => (&v[..f.len() + 2], true),
                None => (v, false),
            };
            if spec.long_value.contains(&flag) {
                pattern_given |= flag == "--regexp";
                if !attached {
                    words.next()?;
                }
            } else if spec.long.contains(&flag) {
                // `rg --files` lists files: no pattern.
                pattern_given |= flag == "--files";
            } else {
                return None;
            }
            continue;
        }
        // A cluster of short flags; a value flag takes the rest or the next word.
        for (i, c) in v[1..].char_indices() {
            if spec.short_value.contains(c) {
                pattern_given |= c == 'e';
                if i + c.len_utf8() == v.len() - 1 {
                    words.next()?;
                }
                break;
            }
            if !spec.short.contains(c) {
                return None;
            }
        }
    }
    if spec.pattern_first && !pattern_given && !operands.is_empty() {
        operands.remove(0);
    }
    (operands.len() <= spec.max_operands).then_some(operands)
}

/// `find` primaries that neither run, write, delete nor follow links; the
/// ones listed in [`FIND_VALUE_PRIMARIES`] take one inert argument.
const FIND_PRIMARIES: &[&str] = &[
    "-print",
    "-print0",
    "-ls",
    "-prune",
    "-quit",
    "-empty",
    "-true",
    "-false",
    "-not",
    "-a",
    "-and",
    "-o",
    "-or",
    "-depth",
    "-xdev",
    "-mount",
    "-readable",
    "-writable",
    "-executable",
    "-nouser",
    "-nogroup",
];
const FIND_VALUE_PRIMARIES: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-regextype",
    "-type",
    "-xtype",
    "-maxdepth",
    "-mindepth",
    "-size",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-links",
    "-inum",
    "-printf",
];

/// `find`'s starting points, when its expression only tests and prints (no
/// `-exec`, `-delete`, `-fprint`, `-L`/`-follow`, `-newer FILE`, ...).
fn find_operands(cmd: &SimpleCommand) -> Option<Vec<&Word>> {
    let mut starts = Vec::new();
    let mut in_expression = false;
    let mut words = cmd.argv[1..].iter();
    while let Some(w) = words.next() {
        let v = w.value.as_deref()?;
        if matches!(v, "(" | ")" | "!" | ",") || v.starts_with('-') {
            in_expression = true;
            if FIND_VALUE_PRIMARIES.contains(&v) {
                words.next()?;
            } else if !matches!(v, "(" | ")" | "!" | ",") && !FIND_PRIMARIES.contains(&v) {
                return None;
            }
        } else if in_expression {
            // An argument where a primary belongs: find would refuse it.
            return None;
        } else {
            starts.push(w);
        }
    }
    Some(starts)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::bash::parse::parse_script;

    fn operands(s: &str) -> Option<Vec<String>> {
        let script = parse_script(s).unwrap();
        read_only_operands(&script.commands[0]).map(|ws| ws.iter().map(|w| w.raw.clone()).collect())
    }

    fn some(v: &[&str]) -> Option<Vec<String>> {
        Some(v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn listing_and_reading_hand_over_their_files() {
        assert_eq!(operands("ls"), some(&[]));
        assert_eq!(operands("ls -la src docs"), some(&["src", "docs"]));
        assert_eq!(operands("ls --color=never -I '*.o' src"), some(&["src"]));
        assert_eq!(operands("cat -n README.md"), some(&["README.md"]));
        assert_eq!(operands("head -n 20 a.txt"), some(&["a.txt"]));
        assert_eq!(operands("head -n20 a.txt"), some(&["a.txt"]));
        assert_eq!(operands("tail -5 log"), some(&["log"]));
        assert_eq!(operands("wc -l src/main.rs"), some(&["src/main.rs"]));
        assert_eq!(operands("cat -- -odd"), some(&["-odd"]));
        assert_eq!(operands("sort -k2 -t , data"), some(&["data"]));
        assert_eq!(operands("uniq -c"), some(&[]));
        assert_eq!(operands("which python3"), some(&["python3"]));
        assert_eq!(operands("du -sh target"), some(&["target"]));
    }

    #[test]
    fn searches_skip_their_pattern() {
        assert_eq!(operands("grep -rn 'fn main' src"), some(&["src"]));
        assert_eq!(operands("grep -e /api/ src"), some(&["src"]));
        assert_eq!(operands("grep -A 3 /api/ src"), some(&["src"]));
        assert_eq!(operands("rg -i todo"), some(&[]));
        assert_eq!(operands("rg --files src"), some(&["src"]));
        assert_eq!(operands("rg -t rust -g '!target' x ."), some(&["."]));
        assert_eq!(
            operands("find . -name '*.rs' -type f -maxdepth 3"),
            some(&["."])
        );
        assert_eq!(
            operands("find src docs \\( -name a -o -name b \\) -print"),
            some(&["src", "docs"])
        );
    }

    #[test]
    fn options_that_write_run_or_read_elsewhere_are_not_read_only() {
        for no in [
            "grep -f /etc/shadow x",
            "grep -fpats x",
            "grep --file=pats x",
            "grep --fil=pats x",
            "grep -R x .",
            "rg --pre ./evil x",
            "rg -L x",
            "rg -z x",
            "sort -o out in",
            "sort --output=out in",
            "sort --compress-program=sh in",
            "sort -T /tmp in",
            "uniq in out",
            "wc --files0-from=list",
            "tail -f log",
            "find . -exec rm {} ;",
            "find . -delete",
            "find . -fprint out",
            "find -L .",
            "find . -follow",
            "find . -newer /etc/passwd",
            "du -L .",
            "ls -L",
            "ls --dereference",
            "ls $dir",
            "cat *.rs",
            "LC_ALL=C ls",
            "make",
            "echo hi",
        ] {
            assert_eq!(operands(no), None, "{no}");
        }
    }
}
