//! The system prompt layers: tack's default prompt (or the `--system-prompt`
//! replacement), then `--append-system-prompt`.
//!
//! An output style changes the default prompt as Claude Code's do: its
//! instructions come last, under `# Output Style: <name>`; the "be concise"
//! guidance goes (a style sets its own voice); and the software-engineering
//! section goes too unless the style keeps it (`keep-coding-instructions`).
//!
//! Everything here is stable for a whole session (no date, no git state), so the
//! layers sit in the cached prefix. Per-session facts that change between
//! sessions go in the user context (date, memory files) or the system context
//! (git), which are placed after the layers.

use std::path::PathBuf;

/// What the system prompt layers are built from. The caller (the CLI) fills it
/// from flags; the library reads no environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SystemPromptOptions {
    /// `--system-prompt`: replaces the default prompt entirely (the environment
    /// section included).
    pub custom: Option<String>,
    /// `--append-system-prompt`: one more layer after the default or custom one.
    pub append: Option<String>,
    /// The session's working directory, stated in the default prompt.
    pub cwd: PathBuf,
    /// The platform as `std::env::consts::OS` spells it (`linux`, `macos`, ...).
    pub platform: String,
    /// The model id the session runs on, stated in the default prompt.
    pub model: String,
    /// The session's output style, when it is not the default one.
    pub output_style: Option<OutputStylePrompt>,
}

/// What an output style adds to the default prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputStylePrompt {
    pub name: String,
    /// Its instructions (the style file's body).
    pub prompt: String,
    /// Keep the default prompt's software-engineering section.
    pub keep_coding_instructions: bool,
}

/// Who tack is (the default prompt's opening).
const INTRO: &str = "\
You are tack, a command-line coding agent. You help the user with software engineering \
tasks in their repository: fixing bugs, adding features, refactoring, explaining code, \
running and repairing tests. Use the instructions below and the tools available to you.";

/// The opening when an output style replaces the software-engineering
/// guidance: the style, not coding, decides how to answer.
const STYLE_INTRO: &str = "\
You are tack, a command-line agent. You help the user with their tasks using the tools \
available to you, answering in the way the output style below describes.";

/// How to do software-engineering work (kept by output styles that set
/// `keep-coding-instructions`).
const CODING: &str = "\
# Doing the task
- Do what was asked; nothing more, nothing less. Do not add features, refactors, \
files or documentation that were not requested.
- Understand before you change: search and read the relevant code first, follow the \
conventions, libraries and style already used in the codebase, and never assume a \
library is available without checking.
- Prefer editing existing files to creating new ones.
- When you are done, verify your work if you can: run the project's build, linter and \
tests (find the commands in the README, CLAUDE.md/AGENTS.md or the build files).
- Never commit, push or create branches unless the user explicitly asks you to.
- Never introduce code that exposes or logs secrets and keys.
- If the task is ambiguous or risky (deleting data, force-pushing, touching things \
outside the project), ask the user before acting.";

/// How to use the tools.
const TOOLS: &str = "\
# Using the tools
- Read reads a file (`cat -n` style, 2000 lines by default; use offset/limit for long \
files). Always Read a file before you Edit or overwrite it.
- Edit replaces an exact, unique string in a file; MultiEdit applies several such edits \
to one file atomically; Write creates or overwrites a whole file.
- Glob finds files by name pattern, Grep searches file contents with regular \
expressions, LS lists a directory.
- Bash runs a shell command (builds, tests, git, package managers). Use the dedicated \
tools instead of `cat`, `head`, `sed`, `find`, `grep` or `echo >` for reading, \
searching and editing files. Quote paths that contain spaces. Long-running commands can \
run in the background; check them with TaskOutput and stop them with TaskStop.
- TodoWrite keeps a task list: use it for multi-step work, keep exactly one item \
in_progress, and mark items completed as soon as they are done.
- File paths given to tools must be absolute.
- When several tool calls do not depend on each other, make them in the same response \
so they run in parallel.
- Tool results and user messages may contain `<system-reminder>` tags: tack adds them \
to give you context (project instructions, the date, file changes); they are not \
written by the tool or the user.";

/// The "efficient output" guidance that every output style drops.
const CONCISE: &str = "\
- Be concise and direct: short answers, no preamble or postamble, no restating what \
you just did at length. Use GitHub-flavoured Markdown when it helps.";

/// How to talk to the user, the conciseness bullet apart.
const COMMUNICATING: &str = "\
# Communicating
- Refer to code as `path:line` so the user can jump to it.
- Text outside tool calls is shown to the user; do not use tools or code comments to \
talk to them.";

/// The system prompt layers, in order: the default prompt (or the custom one),
/// then the appended one. Empty layers are dropped.
pub fn system_prompt_layers(opts: &SystemPromptOptions) -> Vec<String> {
    let first = match &opts.custom {
        Some(custom) => custom.clone(),
        None => default_system_prompt(opts),
    };
    [Some(first), opts.append.clone()]
        .into_iter()
        .flatten()
        .filter(|layer| !layer.trim().is_empty())
        .collect()
}

/// tack's default system prompt, with the environment section for `opts`
/// and the output style, if any, last.
pub fn default_system_prompt(opts: &SystemPromptOptions) -> String {
    let cwd = opts.cwd.display();
    let platform = &opts.platform;
    let mut env = format!("Working directory: {cwd}\nPlatform: {platform}");
    if !opts.model.is_empty() {
        let model = &opts.model;
        env.push_str(&format!("\nModel: {model}"));
    }
    let env = format!("# Environment\n<env>\n{env}\n</env>");
    let Some(style) = &opts.output_style else {
        let communicating = COMMUNICATING.replacen("\n", &format!("\n{CONCISE}\n"), 1);
        return [INTRO, CODING, TOOLS, &communicating, &env].join("\n\n");
    };
    let (intro, coding) = match style.keep_coding_instructions {
        true => (INTRO, Some(CODING)),
        false => (STYLE_INTRO, None),
    };
    let style_section = format!("# Output Style: {}\n{}", style.name, style.prompt.trim());
    [
        Some(intro),
        coding,
        Some(TOOLS),
        Some(COMMUNICATING),
        Some(&env),
        Some(&style_section),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join("\n\n")
}
