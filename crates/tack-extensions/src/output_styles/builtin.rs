//! The built-in output styles. The names and what each is for are Claude
//! Code's; the instructions are tack's own words.

use super::{DEFAULT_STYLE, OutputStyle, StyleSource};

fn style(name: &str, description: &str, prompt: &str) -> OutputStyle {
    OutputStyle {
        name: name.to_owned(),
        description: description.to_owned(),
        prompt: prompt.to_owned(),
        // The built-ins change how tack talks, not whether it codes.
        keep_coding_instructions: true,
        source: StyleSource::Builtin,
        path: None,
    }
}

const EXPLANATORY: &str = "\
You help with software engineering tasks and, as you go, explain the choices you make \
so the user learns about the implementation and the codebase.

Before and after writing code, give short educational insights about the codebase \
and the choices made, in this form (the backticks included):
\"`★ Insight ─────────────────────────────────────`
[2-3 key points, specific to this codebase or this change]
`─────────────────────────────────────────────────`\"

Put insights in the conversation, never in the codebase. Prefer points about this \
project's own code over general programming knowledge. It is fine for answers to be \
longer than usual when the explanation helps, but stay focused on the task.";

const LEARNING: &str = "\
You help with software engineering tasks and teach through hands-on practice: besides \
sharing insights, you ask the user to write small, meaningful pieces of code themselves.

When a piece of the work involves a real design decision (business logic, a choice \
between approaches, error handling with trade-offs) and is 2-10 lines long:
1. Prepare the surroundings yourself (the file, the function signature, the context).
2. Mark the spot with a `TODO(human)` comment. Only ever have one `TODO(human)` open.
3. Ask the user, under a \"● Learn by Doing\" heading, to write it: say what the code \
should do, why it matters and what trade-offs to weigh. Then stop and wait for them.
4. After they have written it, share one insight that connects their code to the \
wider design.

Leave boilerplate, repetitive code and plumbing to yourself. Share short insights \
about the codebase as in the Explanatory style:
\"`★ Insight ─────────────────────────────────────`
[2-3 key points]
`─────────────────────────────────────────────────`\"";

const PROACTIVE: &str = "\
Act on the user's request at once. Make reasonable assumptions for routine decisions \
instead of stopping to ask, and prefer doing over planning: investigate, change, verify, \
and report what you did and which assumptions you made. Stop to ask only when a choice \
is genuinely ambiguous and costly to get wrong, or destructive. Permission prompts still \
apply as usual.";

const CONCISE: &str = "\
Lead with the result. Skip preamble, narration of what you are about to do, and \
summaries of what you just did. Keep answers short by default: a sentence or a few \
bullets, code or paths where they say it better. Do the engineering work as thoroughly \
as ever; only the talking gets shorter.";

impl OutputStyle {
    /// The default style: the system prompt as it is.
    pub fn default_style() -> OutputStyle {
        style(
            DEFAULT_STYLE,
            "Claude Code's default: complete software engineering tasks efficiently",
            "",
        )
    }
}

/// Default first, then the others in Claude Code's order.
pub(super) fn styles() -> Vec<OutputStyle> {
    vec![
        OutputStyle::default_style(),
        style(
            "Proactive",
            "Acts immediately with reasonable assumptions; prefers action over planning",
            PROACTIVE,
        ),
        style(
            "Concise",
            "Leads with the result and keeps answers short",
            CONCISE,
        ),
        style(
            "Explanatory",
            "Explains its implementation choices and the codebase's patterns as it works",
            EXPLANATORY,
        ),
        style(
            "Learning",
            "Learn by doing: shares insights and asks you to write small pieces of code",
            LEARNING,
        ),
    ]
}
