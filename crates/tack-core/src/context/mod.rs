//! What the model is told besides the conversation: the system prompt layers,
//! the user context (CLAUDE.md / AGENTS.md memory files, date) and the system
//! context (git state, read by tack-git). Computed once per session and memoised.
//!
//! - [`load_prompt_context`] gathers everything; the memory files and the git
//!   commands run concurrently, each on a thread of its own.
//! - [`ContextCache`] is the memo the `Session` keeps: nothing is read until the
//!   first request asks for it, and later requests reuse the same value (which is
//!   also what keeps the cached prompt prefix byte-identical across turns).
//! - Placing the pieces in a request is `crate::request::build_request`'s job.

mod memory_files;
mod path_rules;
mod rules;
mod system_prompt;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tack_git::prefetch::GitPrefetch;
use tack_git::snapshot::{SNAPSHOT_TIMEOUT, git_snapshot};
use tokio::sync::OnceCell;

pub use memory_files::PathRule;
pub use memory_files::project_memory_file;
pub use memory_files::{
    DiscoveredMemory, ImportAccess, MAX_FILE_BYTES, MAX_FILE_CHARS, MemoryFile, MemoryKind,
    discover_memory, discover_memory_files, find_repo_root, format_memory_files,
};
pub use path_rules::{LoadReason, LoadedFile, PathRules, attachment_text};
pub use rules::split_frontmatter;
pub use system_prompt::{
    OutputStylePrompt, SystemPromptOptions, default_system_prompt, system_prompt_layers,
};

/// The three parts of context the loop sends with every request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptContext {
    /// System prompt layers, in order (default or `--system-prompt`, then
    /// `--append-system-prompt`). Sent as `system` text blocks.
    pub system_prompt: Vec<String>,
    /// Memory files and date, sent as a `<system-reminder>` text block at the
    /// start of the first user message (not in `system`, so editing CLAUDE.md
    /// does not invalidate the cached system prompt).
    pub user_context: Option<String>,
    /// Git branch, status and recent commits, appended to the system prompt.
    pub system_context: Option<String>,
}

/// What [`load_prompt_context`] reads. Everything comes from the caller: the
/// library reads no environment variables and no clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextOptions {
    /// The session's working directory: memory files are looked for from here
    /// up to the repository root, and git runs here.
    pub cwd: PathBuf,
    /// The user's home directory, for `~/.tack/CLAUDE.md`, `~/.claude/CLAUDE.md`
    /// and `@~/...` imports. `None`: no user-level memory.
    pub home_dir: Option<PathBuf>,
    pub system_prompt: SystemPromptOptions,
    /// Today's date as the model should read it (e.g. `2026-08-22`); empty: no
    /// date line.
    pub today: String,
    /// Read CLAUDE.md / AGENTS.md files (off for `--bare`-style runs).
    pub include_memory_files: bool,
    /// Take the git snapshot. Also skipped when a custom system prompt replaces
    /// the default one, as Claude Code does.
    pub include_git: bool,
    /// Bound on each `git` command.
    pub git_timeout: Duration,
    /// The snapshot, if one was started before the session (taken by the
    /// first load when it is of [`cwd`](Self::cwd)).
    pub git_prefetch: Option<GitPrefetch>,
    /// Directories added to the session (`--add-dir`, settings): project
    /// memory files may import from them as from the project.
    pub additional_dirs: Vec<PathBuf>,
    /// The user allowed project memory files to import from outside the
    /// project (`tack trust --allow-external-imports`). Off: such imports are
    /// skipped with a warning.
    pub external_imports_approved: bool,
}

impl ContextOptions {
    /// Options for a session in `cwd`, with memory files and git on, no home
    /// directory, the default system prompt and this build's platform.
    pub fn new(cwd: impl Into<PathBuf>, today: impl Into<String>) -> Self {
        let cwd = cwd.into();
        ContextOptions {
            system_prompt: SystemPromptOptions {
                cwd: cwd.clone(),
                platform: std::env::consts::OS.to_owned(),
                ..SystemPromptOptions::default()
            },
            cwd,
            home_dir: None,
            today: today.into(),
            include_memory_files: true,
            include_git: true,
            git_timeout: SNAPSHOT_TIMEOUT,
            git_prefetch: None,
            additional_dirs: Vec::new(),
            external_imports_approved: false,
        }
    }
}

/// A [`PromptContext`] and what the user should hear about loading it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedContext {
    pub context: PromptContext,
    /// One line each (no `warning:` prefix): memory-file imports skipped as
    /// outside the project, files cut or not loaded. The library prints
    /// nothing; a front end shows these (stderr in `-p`).
    pub warnings: Vec<String>,
    /// The rules that load when the session touches a file they match.
    pub path_rules: Arc<PathRules>,
}

/// Gathers the prompt context for a session: system prompt layers, memory files
/// and date (user context), git snapshot (system context). Never fails: what
/// cannot be read is left out (see [`load_context`] for the warnings).
pub async fn load_prompt_context(opts: &ContextOptions) -> PromptContext {
    load_context(opts).await.context
}

/// [`load_prompt_context`] with the warnings about what was left out.
pub async fn load_context(opts: &ContextOptions) -> LoadedContext {
    let memory = async {
        if !opts.include_memory_files {
            return DiscoveredMemory::default();
        }
        let cwd = opts.cwd.clone();
        let home = opts.home_dir.clone();
        let dirs = opts.additional_dirs.clone();
        let approved = opts.external_imports_approved;
        tokio::task::spawn_blocking(move || discover_memory(&cwd, home.as_deref(), &dirs, approved))
            .await
            .unwrap_or_default()
    };
    let git = async {
        if !opts.include_git || opts.system_prompt.custom.is_some() {
            return None;
        }
        // Spawning a process blocks the spawning thread until the child has
        // exec'd, and `status` waits for the filter listing: on a thread and
        // runtime of their own, the git processes neither hold up nor wait
        // for the caller's thread (`tack -p` runs everything on one).
        if let Some(pending) = opts.git_prefetch.as_ref().and_then(|p| p.take(&opts.cwd)) {
            return tokio::task::spawn_blocking(move || pending.recv().ok().flatten())
                .await
                .ok()
                .flatten();
        }
        let (cwd, timeout) = (opts.cwd.clone(), opts.git_timeout);
        tokio::task::spawn_blocking(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(git_snapshot(&cwd, timeout))
        })
        .await
        .ok()
        .flatten()
    };
    let (memory, git) = tokio::join!(memory, git);
    LoadedContext {
        context: PromptContext {
            system_prompt: system_prompt_layers(&opts.system_prompt),
            user_context: user_context(format_memory_files(&memory.files), &opts.today),
            system_context: git.map(|snapshot| snapshot.to_context()),
        },
        warnings: memory.warnings,
        path_rules: Arc::new(PathRules::new(
            memory.path_rules,
            memory.access,
            opts.include_memory_files.then(|| opts.cwd.clone()),
        )),
    }
}

/// The user context text (without the `<system-reminder>` wrapper, which
/// `build_request` adds), or `None` when there is nothing to say.
fn user_context(memory: Option<String>, today: &str) -> Option<String> {
    let mut sections = Vec::new();
    if let Some(memory) = memory {
        sections.push(format!("# claudeMd\n{memory}"));
    }
    if !today.is_empty() {
        sections.push(format!("# currentDate\nToday's date is {today}."));
    }
    if sections.is_empty() {
        return None;
    }
    let sections = sections.join("\n\n");
    Some(format!(
        "As you answer the user's questions, you can use the following context:\n{sections}\n\n\
         IMPORTANT: this context may or may not be relevant to your tasks. You should not \
         respond to this context unless it is highly relevant to your task."
    ))
}

/// The per-session memo of the [`PromptContext`]: loaded on the first
/// [`get`](Self::get), then returned as is. Concurrent first callers share one
/// load.
#[derive(Debug)]
pub struct ContextCache {
    /// `None` for a cache built from a fixed context.
    options: Option<ContextOptions>,
    cell: OnceCell<Arc<PromptContext>>,
}

impl ContextCache {
    /// A cache that loads with `options` when first asked.
    pub fn new(options: ContextOptions) -> Self {
        ContextCache {
            options: Some(options),
            cell: OnceCell::new(),
        }
    }

    /// A cache holding `ctx` (SDK callers and tests that assemble it themselves).
    pub fn preloaded(ctx: PromptContext) -> Self {
        ContextCache {
            options: None,
            cell: OnceCell::new_with(Some(Arc::new(ctx))),
        }
    }

    /// The context, loading it on the first call. Shared, so the loop and any
    /// subagent hold the same value.
    pub async fn get(&self) -> Arc<PromptContext> {
        let ctx = self
            .cell
            .get_or_init(|| async {
                Arc::new(match &self.options {
                    Some(options) => load_prompt_context(options).await,
                    None => PromptContext::default(),
                })
            })
            .await;
        Arc::clone(ctx)
    }

    /// The context if it has been loaded already.
    pub fn loaded(&self) -> Option<Arc<PromptContext>> {
        self.cell.get().cloned()
    }

    /// Forgets the loaded context, so the next [`get`](Self::get) reads the memory
    /// files and git again (after `/clear` or a compaction; the prompt cache
    /// prefix changes then anyway).
    pub fn invalidate(&mut self) {
        if self.options.is_some() {
            self.cell = OnceCell::new();
        }
    }
}
