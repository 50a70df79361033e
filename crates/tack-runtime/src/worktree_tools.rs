//! EnterWorktree and ExitWorktree: the model moves the session into a git
//! worktree of its own mid-session, and back.
//!
//! EnterWorktree makes the worktree the way `--worktree` and `isolation:
//! worktree` do (`made_worktree.rs`: the WorktreeCreate hooks, else git at
//! `.claude/worktrees/<name>` on branch `worktree-<name>` from
//! `worktree.baseRef`) and sets the session's working directory (the tool
//! env's cwd: every tool's relative paths and Bash's next command) to the
//! worktree's copy of the folder the session was in. ExitWorktree returns to
//! that folder and keeps the worktree or removes it with its branch; one
//! with changes is removed only with `discard_changes: true`. Both act only
//! on the worktree EnterWorktree made in this session, one at a time; with
//! `path`, EnterWorktree switches into an existing worktree of the
//! repository instead, which ExitWorktree leaves but never removes.
//!
//! The session is in the folder it moved to everywhere (`worktree_place.rs`):
//! its next request's system prompt (environment section, git snapshot), its
//! transcript records' `cwd` and `gitBranch`, its hooks' `cwd`.
//!
//! Neither asks for permission (Claude Code's tools reference: "Permission
//! Required: No"). A worktree still entered when the session ends is kept.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tack_config::WorktreeBase;
use tack_core::context::ContextOptions;
use tack_tool::{EnteredWorktree, Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use crate::hooks::SessionHooks;
use crate::made_worktree::{MadeWorktree, make_worktree};
use crate::worktree_hooks::WorktreeHooks;
use crate::worktree_place::session_moved;

pub(crate) const ENTER_WORKTREE: &str = "EnterWorktree";
pub(crate) const EXIT_WORKTREE: &str = "ExitWorktree";

/// The worktree EnterWorktree entered, and the folder the session left for it.
struct Entered {
    source: Source,
    left: PathBuf,
}

/// Made by EnterWorktree, or one that was there (`path`), which ExitWorktree
/// never removes.
enum Source {
    Made(MadeWorktree),
    Existing {
        path: PathBuf,
        branch: Option<String>,
    },
}

impl Source {
    fn path(&self) -> &std::path::Path {
        match self {
            Source::Made(made) => made.path(),
            Source::Existing { path, .. } => path,
        }
    }

    fn branch(&self) -> Option<String> {
        match self {
            Source::Made(made) => made.git_worktree().and_then(|w| w.branch.clone()),
            Source::Existing { branch, .. } => branch.clone(),
        }
    }
}

/// What the two tools share: how to make a worktree, and the one entered.
struct Shared {
    base: WorktreeBase,
    /// The session's hooks (WorktreeCreate and WorktreeRemove among them).
    hooks: Option<Arc<SessionHooks>>,
    /// The session's gate: auto mode's classifier is told where it moved.
    gate: std::sync::Weak<crate::gate::Gate>,
    /// What the session's prompt context was loaded with: the system prompt
    /// is recomputed for the folder the session moves to.
    prompt: ContextOptions,
    entered: tokio::sync::Mutex<Option<Entered>>,
    /// The entered worktree's folder, for a quick look without the lock.
    path: Mutex<Option<PathBuf>>,
}

/// The pair, sharing one session's state.
pub(crate) fn worktree_tools(
    base: WorktreeBase,
    policy: &crate::runtime::Policy,
    prompt: &ContextOptions,
) -> [Arc<dyn Tool>; 2] {
    let shared = Arc::new(Shared {
        base,
        hooks: policy.hooks.clone(),
        gate: Arc::downgrade(&policy.gate),
        prompt: prompt.clone(),
        entered: tokio::sync::Mutex::new(None),
        path: Mutex::new(None),
    });
    [
        Arc::new(EnterWorktree(shared.clone())),
        Arc::new(ExitWorktree(shared)),
    ]
}

struct EnterWorktree(Arc<Shared>);
struct ExitWorktree(Arc<Shared>);

const ENTER_DESCRIPTION: &str = "Creates an isolated git worktree and moves this session into it.

Use it only when the user (or the project's instructions, CLAUDE.md) asks to work in a worktree. To make or switch branches, use git through Bash instead.

- In a git repository: a new worktree in `.claude/worktrees/<name>/` on a new branch `worktree-<name>`, from the remote's default branch (or local HEAD, as the `worktree.baseRef` setting says). With WorktreeCreate hooks configured, they make it instead (any version control).
- The session's working directory becomes the worktree: relative paths and Bash commands run there from now on.
- With `path` instead of `name`: switches into a worktree of this repository that already exists (one `git worktree list` shows); ExitWorktree leaves it but never removes it.
- Only one at a time: call ExitWorktree to leave it (keeping or removing it). A worktree still entered when the session ends is kept.";

const EXIT_DESCRIPTION: &str = "Leaves the worktree EnterWorktree made in this session and moves the session back to the folder it was in.

It acts on nothing else: not a worktree made with `git worktree add`, not one from an earlier session. Without an entered worktree it does nothing. Call it only when the user asks to leave the worktree.

- `action: \"keep\"` leaves the worktree and its branch on disk (to come back to, or when there is work to keep).
- `action: \"remove\"` deletes the worktree and its branch. If it has uncommitted files or commits of its own, it is refused unless `discard_changes` is true: ask the user before discarding.";

impl Shared {
    /// The session is in `cwd` now, everywhere (`worktree_place.rs`), in
    /// `worktree` or out of one.
    async fn moved(
        &self,
        env: &tack_tool::ToolEnv,
        cwd: &std::path::Path,
        worktree: Option<EnteredWorktree>,
    ) {
        let gate = self.gate.upgrade();
        let session = (self.hooks.as_deref(), gate.as_deref());
        session_moved(&self.prompt, session, env, cwd, worktree).await;
    }
}

fn lock_path(shared: &Shared) -> std::sync::MutexGuard<'_, Option<PathBuf>> {
    shared.path.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Tool for EnterWorktree {
    fn name(&self) -> &str {
        ENTER_WORKTREE
    }

    fn description(&self) -> String {
        ENTER_DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "description": "A name for the worktree: letters, digits, dots, underscores and dashes, at most 64 characters. Left out, one is made up."
                },
                "path": {
                    "type": "string",
                    "description": "An existing worktree of this repository to switch into, instead of making one (not with `name`)."
                }
            },
            "additionalProperties": false
        })
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        match input.get("name") {
            None | Some(Value::Null) => {}
            Some(Value::String(name)) if tack_git::worktree::is_folder_name(name, 64) => {}
            Some(_) => {
                return Err(ToolError::new(
                    "InputValidationError: `name` may hold only letters, digits, dots, underscores and dashes (at most 64, not starting with a dot).",
                ));
            }
        }
        match (input.get("path"), input.get("name")) {
            (None | Some(Value::Null), _) => {}
            (Some(Value::String(p)), None | Some(Value::Null)) if !p.trim().is_empty() => {}
            (Some(Value::String(_)), Some(_)) => {
                return Err(ToolError::new(
                    "InputValidationError: give `name` (a new worktree) or `path` (an existing one), not both.",
                ));
            }
            (Some(_), _) => {
                return Err(ToolError::new(
                    "InputValidationError: `path` must be a worktree's folder.",
                ));
            }
        }
        if let Some(path) = lock_path(&self.0).as_ref() {
            return Err(ToolError::new(format!(
                "Already in a worktree session ({}). Call ExitWorktree first.",
                path.display()
            )));
        }
        Ok(())
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let mut entered = self.0.entered.lock().await;
            if let Some(e) = entered.as_ref() {
                return Err(ToolError::new(format!(
                    "Already in a worktree session ({}). Call ExitWorktree first.",
                    e.source.path().display()
                )));
            }
            let left = ctx.env.cwd();
            if let Some(path) = input.get("path").and_then(Value::as_str) {
                let (source, cwd) = existing(&left, &ctx.env.resolve(path)).await?;
                let (path, branch) = (source.path().to_path_buf(), source.branch());
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                let worktree = entered_view(name.unwrap_or_default(), &path, &branch, &left);
                ctx.env.set_cwd(cwd.clone());
                self.0.moved(&ctx.env, &cwd, Some(worktree)).await;
                let on = branch.as_deref().map(|b| format!(" on branch {b}")).unwrap_or_default();
                let text = format!(
                    "Switched to the worktree at {}{on}. The session now works in {}. Call ExitWorktree to leave it (it is never removed: it was not made here).",
                    path.display(),
                    cwd.display()
                );
                *lock_path(&self.0) = Some(path.clone());
                *entered = Some(Entered { source, left });
                return Ok(ToolOutput::text(text)
                    .with_structured(json!({"worktreePath": path, "worktreeBranch": branch})));
            }
            let name = input
                .get("name")
                .and_then(Value::as_str)
                .map_or_else(tack_git::worktree::generated_name, str::to_owned);
            let worktree_hooks = self.0.hooks.as_ref().and_then(WorktreeHooks::of_session);
            let made = make_worktree(&left, &name, self.0.base, worktree_hooks)
                .await
                .map_err(|e| ToolError::new(format!("Cannot create the worktree: {e}")))?;
            let path = made.path().to_path_buf();
            let branch = made.git_worktree().and_then(|w| w.branch.clone());
            let worktree = entered_view(name, &path, &branch, &left);
            ctx.env.set_cwd(made.cwd.clone());
            self.0.moved(&ctx.env, &made.cwd, Some(worktree)).await;
            let mut text = match &branch {
                Some(b) => format!("Created worktree at {} on branch {b}.", path.display()),
                None => format!("Created worktree at {}.", path.display()),
            };
            text.push_str(&format!(
                " The session now works in {}. Call ExitWorktree to leave it.",
                made.cwd.display()
            ));
            if let Some(problem) = &made.include_error {
                text.push_str(&format!("\nWarning: {problem}"));
            }
            let structured = json!({"worktreePath": path, "worktreeBranch": branch});
            *lock_path(&self.0) = Some(path);
            *entered = Some(Entered {
                source: Source::Made(made),
                left,
            });
            Ok(ToolOutput::text(text).with_structured(structured))
        }
        .boxed()
    }
}

/// What the session's snapshot says of the worktree it entered.
fn entered_view(
    name: String,
    path: &std::path::Path,
    branch: &Option<String>,
    left: &std::path::Path,
) -> EnteredWorktree {
    EnteredWorktree {
        name,
        path: path.to_path_buf(),
        branch: branch.clone(),
        original_cwd: left.to_path_buf(),
        original_branch: tack_git::head::head(left).map(|h| h.name().to_owned()),
    }
}

/// ExitWorktree's `action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Keep,
    Remove,
}

fn parse_exit(input: &Value) -> Result<(Action, bool), ToolError> {
    let action = match input.get("action").and_then(Value::as_str) {
        Some("keep") => Action::Keep,
        Some("remove") => Action::Remove,
        _ => {
            return Err(ToolError::new(
                "InputValidationError: `action` must be \"keep\" or \"remove\".",
            ));
        }
    };
    let discard = match input.get("discard_changes") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(ToolError::new(
                "InputValidationError: `discard_changes` must be a boolean.",
            ));
        }
    };
    Ok((action, discard))
}

const NO_WORKTREE: &str = "No-op: there is no worktree entered with EnterWorktree in this session to exit. Nothing was changed.";

impl Tool for ExitWorktree {
    fn name(&self) -> &str {
        EXIT_WORKTREE
    }

    fn description(&self) -> String {
        EXIT_DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ["keep", "remove"],
                    "description": "\"keep\" leaves the worktree and its branch on disk; \"remove\" deletes both."
                },
                "discard_changes": {
                    "type": "boolean",
                    "description": "With \"remove\": remove it even though it has uncommitted files or commits of its own (they are lost). Ask the user first."
                }
            },
            "required": ["action"],
            "additionalProperties": false
        })
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        parse_exit(input)?;
        if lock_path(&self.0).is_none() {
            return Err(ToolError::new(NO_WORKTREE));
        }
        Ok(())
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let (action, discard) = parse_exit(&input)?;
            let mut entered = self.0.entered.lock().await;
            let Some(e) = entered.take() else {
                return Err(ToolError::new(NO_WORKTREE));
            };
            let path = e.source.path().to_path_buf();
            let branch = e.source.branch();
            if action == Action::Remove
                && let Source::Existing { .. } = e.source
            {
                *entered = Some(e);
                return Err(ToolError::new(format!(
                    "Not removed: the worktree at {} was there before EnterWorktree switched into it; only worktrees made in this session are removed. Use action \"keep\" to leave it.",
                    path.display()
                )));
            }
            if action == Action::Remove && !discard {
                let refusal = match &e.source {
                    Source::Made(made) => match made.git_worktree() {
                        None => None,
                        Some(w) => match w.has_changes().await {
                            Ok(false) => None,
                            Ok(true) => Some("it has uncommitted files or commits of its own".to_owned()),
                            Err(err) => Some(format!("cannot tell whether it changed: {err}")),
                        },
                    },
                    Source::Existing { .. } => None,
                };
                if let Some(why) = refusal {
                    *entered = Some(e);
                    return Err(ToolError::new(format!(
                        "Not removed: {why}, which removing would discard. Ask the user, then call ExitWorktree again with discard_changes: true, or use action \"keep\". The session is still in the worktree {}.",
                        path.display()
                    )));
                }
            }
            ctx.env.set_cwd(e.left.clone());
            self.0.moved(&ctx.env, &e.left, None).await;
            *lock_path(&self.0) = None;
            let back = e.left.display().to_string();
            let (text, problems) = match action {
                Action::Keep => {
                    let on = branch.as_deref().map(|b| format!(" on branch {b}")).unwrap_or_default();
                    (
                        format!("Left the worktree; it is kept at {}{on}. The session is back in {back}.", path.display()),
                        Vec::new(),
                    )
                }
                Action::Remove => {
                    let problems = match e.source {
                        Source::Made(made) => made.remove().await,
                        Source::Existing { .. } => Vec::new(),
                    };
                    (
                        format!("Left and removed the worktree at {}. The session is back in {back}.", path.display()),
                        problems,
                    )
                }
            };
            let text = match problems.is_empty() {
                true => text,
                false => format!("{text}\nWarning: {}", problems.join("; ")),
            };
            Ok(ToolOutput::text(text).with_structured(json!({
                "action": if action == Action::Keep { "keep" } else { "remove" },
                "worktreePath": path,
                "worktreeBranch": branch,
                "originalCwd": e.left,
            })))
        }
        .boxed()
    }
}

/// The worktree of the session's repository at `target` (one `git worktree
/// list` names, not the one the session is in), and the folder to work in:
/// its copy of the folder the session was in, or its root.
async fn existing(
    left: &std::path::Path,
    target: &std::path::Path,
) -> Result<(Source, PathBuf), ToolError> {
    let fail =
        |why: String| ToolError::new(format!("Cannot switch to {}: {why}", target.display()));
    let canonical =
        |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let wanted = canonical(target);
    let listed = tack_git::worktree::list(left)
        .await
        .map_err(|e| fail(e.to_string()))?;
    let here = tack_git::worktree::repo_root(left)
        .await
        .map_err(|e| fail(e.to_string()))?;
    let found = listed
        .into_iter()
        .find(|w| canonical(&w.path) == wanted)
        .ok_or_else(|| {
            fail("it is not a worktree of this repository (see `git worktree list`)".into())
        })?;
    if canonical(&here) == wanted {
        return Err(fail("the session is already in it".into()));
    }
    let cwd = tack_git::worktree::matching_folder(&found.path, &here, left);
    let cwd = if cwd.is_dir() {
        cwd
    } else {
        found.path.clone()
    };
    Ok((
        Source::Existing {
            path: found.path,
            branch: found.branch,
        },
        cwd,
    ))
}
