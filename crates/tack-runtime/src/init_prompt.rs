//! `/init`: the prompt that has the model write a first CLAUDE.md.

/// What `/init` asks the model: a first CLAUDE.md written from the repository.
pub const INIT_PROMPT: &str = "Please look through this repository and write a CLAUDE.md file \
at its root: the file an AI coding agent reads at the start of every session here.

Put in it what an agent cannot quickly work out alone and would otherwise get wrong:
1. How to build, lint and test, including how to run a single test.
2. The big picture: how the code is organised, the main parts and how data flows between \
them, the conventions the code follows. Read several files to understand it; do not just \
list directories.
3. Rules from the existing README.md, CONTRIBUTING.md, AGENTS.md, .cursor/rules/, \
.cursorrules or .github/copilot-instructions.md, if there are any.

Keep it short and specific to this repository: no generic advice (\"write tests\", \
\"handle errors\"), no lists of every file, nothing invented. If a CLAUDE.md already \
exists, improve it rather than starting over. Start the file with:

```
# CLAUDE.md

This file guides AI coding agents working in this repository.
```";
