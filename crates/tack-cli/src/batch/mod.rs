//! `tack batch TASKS --parallel N --out RESULTS`: many headless sessions on
//! one machine. Each task runs as `tack -p` in its own git worktree (so
//! parallel tasks never touch each other's files); its result, with its
//! changes as a patch, is appended to the results file when its session ends
//! by itself, and only then. A rerun skips the tasks already there, so a
//! crash, Ctrl+C or `kill -9` loses only the tasks that were running, and
//! they run again. `results.jsonl` carries SWE-bench's
//! prediction fields (`instance_id`, `model_name_or_path`, `model_patch`).

mod child;
mod progress;
mod results;
mod task;
mod workspace;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use self::child::{ChildOutcome, ChildSpec, run_child};
use self::progress::Progress;
use self::results::ResultsFile;
use self::task::Task;
use self::workspace::Repos;

#[derive(Debug, clap::Args)]
pub struct BatchArgs {
    /// The tasks: one JSON object per line, `{"id", "prompt", "cwd" | "repo"
    /// (+ "commit"), "max_turns"?, "timeout_s"?, "model"?}` (SWE-bench's
    /// `instance_id`, `problem_statement`, `base_commit` also read).
    pub tasks: PathBuf,
    /// How many tasks run at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub parallel: u16,
    /// Where results go, one JSON line per finished task; tasks already in it
    /// are skipped.
    #[arg(long)]
    pub out: PathBuf,
    /// Stop starting tasks once the batch has spent this much; each task's
    /// session is capped at what is left when it starts.
    #[arg(long)]
    pub max_budget_usd: Option<f64>,
    /// The model of tasks that name none.
    #[arg(long)]
    pub model: Option<String>,
    /// Turns per task, for tasks that set none.
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// Seconds per task, for tasks that set none (print mode's `--timeout`).
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Run only shard INDEX of COUNT (`3/16`: the tasks whose line position,
    /// from 0, leaves 3 when divided by 16): one machine, Ray worker or
    /// Kubernetes pod (`$(JOB_COMPLETION_INDEX)/N`) each takes its shard.
    #[arg(long, value_name = "INDEX/COUNT", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Where the tasks' worktrees are made (default: `<out>.worktrees`).
    #[arg(long)]
    pub workdir: Option<PathBuf>,
    /// Flags for every task's session, after `--` (e.g. `-- --permission-mode
    /// bypassPermissions --allowedTools Bash`).
    #[arg(last = true)]
    pub session_args: Vec<String>,
}

/// What every task shares.
struct Shared {
    program: PathBuf,
    work: PathBuf,
    repos: Repos,
    args: BatchArgs,
    stop: CancellationToken,
}

/// `I/N` with `I < N`.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let parsed = text
        .split_once('/')
        .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)));
    match parsed {
        Some((index, count)) if index < count => Ok((index, count)),
        _ => Err(format!(
            "`{text}` is not INDEX/COUNT with INDEX below COUNT (e.g. 0/4)"
        )),
    }
}

pub fn run(args: BatchArgs, cwd: &Path) -> anyhow::Result<ExitCode> {
    let mut tasks = task::read_tasks(&cwd.join(&args.tasks))?;
    if let Some((index, count)) = args.shard {
        tasks = (tasks.into_iter().enumerate())
            .filter(|(i, _)| i % count == index)
            .map(|(_, t)| t)
            .collect();
    }
    let out = cwd.join(&args.out);
    let (mut results, done) = ResultsFile::open(&out)?;
    let work = match &args.workdir {
        Some(dir) => cwd.join(dir),
        None => PathBuf::from(format!("{}.worktrees", out.display())),
    };
    std::fs::create_dir_all(&work)
        .with_context(|| format!("cannot make the work folder {}", work.display()))?;
    let program = std::env::current_exe().context("cannot find the tack binary to run tasks")?;
    let total = tasks.len();
    // Tasks of this batch whose earlier result was not a success: they are
    // not run again, but the batch has not succeeded while they stand.
    let failed_before = (tasks.iter())
        .filter(|t| done.get(&t.id).is_some_and(|status| status != "success"))
        .count();
    let pending: Vec<Task> = tasks
        .into_iter()
        .filter(|t| !done.contains_key(&t.id))
        .collect();
    let mut progress = Progress::new(
        total,
        total - pending.len(),
        std::io::stderr().is_terminal(),
    );
    let shared = Arc::new(Shared {
        program,
        work,
        repos: Repos::default(),
        args,
        stop: CancellationToken::new(),
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let ended = runtime.block_on(drive(&shared, pending, &mut results, &mut progress))?;
    progress.finish_line();
    eprintln!("tack batch: {}", progress.summary());
    Ok(match ended {
        Ended::AllRun if progress.unfinished() > 0 => {
            eprintln!(
                "tack batch: {} tasks did not finish (see above); rerun to run them",
                progress.unfinished()
            );
            ExitCode::from(1)
        }
        Ended::AllRun if progress.failed() + failed_before > 0 => {
            let n = progress.failed() + failed_before;
            eprintln!(
                "tack batch: {n} {} not succeed (their `status` in {}); a task with a result is not run again: remove its line to rerun it",
                if n == 1 { "task did" } else { "tasks did" },
                out.display()
            );
            ExitCode::from(1)
        }
        Ended::AllRun => ExitCode::SUCCESS,
        Ended::Budget(left) => {
            eprintln!("tack batch: the budget is spent; {left} tasks not started (rerun to go on)");
            ExitCode::from(1)
        }
        Ended::Interrupted => ExitCode::from(130),
    })
}

enum Ended {
    AllRun,
    Budget(usize),
    Interrupted,
}

/// Starts tasks up to `--parallel`, writes each result as it comes.
async fn drive(
    shared: &Arc<Shared>,
    pending: Vec<Task>,
    results: &mut ResultsFile,
    progress: &mut Progress,
) -> anyhow::Result<Ended> {
    let parallel = usize::from(shared.args.parallel);
    let mut queue = pending.into_iter().peekable();
    let mut running = JoinSet::new();
    let mut interrupted = false;
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        while !interrupted && running.len() < parallel && queue.peek().is_some() {
            let left = match shared.args.max_budget_usd {
                Some(budget) if progress.spent() >= budget => break,
                Some(budget) => Some(budget - progress.spent()),
                None => None,
            };
            let Some(task) = queue.next() else { break };
            progress.started_one();
            running.spawn(run_task(shared.clone(), task, left));
        }
        if running.is_empty() {
            break;
        }
        tokio::select! {
            joined = running.join_next() => {
                let Some(joined) = joined else { continue };
                let finished = joined.context("a task's driver failed")?;
                match finished.line {
                    Some(line) => {
                        results.append(&line)?;
                        let status = finished.status;
                        progress.finished_one(&finished.id, &status, finished.cost, finished.turns, finished.took);
                    }
                    None => progress.unfinished_one(&finished.id, &finished.status),
                }
            }
            _ = &mut ctrl_c, if !interrupted => {
                interrupted = true;
                shared.stop.cancel();
            }
        }
    }
    let left = queue.count();
    Ok(if interrupted {
        Ended::Interrupted
    } else if left > 0 {
        Ended::Budget(left)
    } else {
        Ended::AllRun
    })
}

struct Finished {
    id: String,
    /// The results line; `None` for a task that did not finish (it runs
    /// again on a rerun).
    line: Option<Value>,
    /// The status, or for a task with no line why it has none.
    status: String,
    cost: f64,
    turns: u64,
    took: Duration,
}

impl Finished {
    /// A task that did not finish: no line, so a rerun runs it.
    fn unfinished(task: &Task, why: String, took: Duration) -> Finished {
        Finished {
            id: task.id.clone(),
            line: None,
            status: why,
            cost: 0.0,
            turns: 0,
            took,
        }
    }
}

/// Runs one task: its worktree made, its session run to its end, then its
/// patch taken and the worktree removed. Only a session that ended by itself
/// gives a line; one the batch stopped, one killed, or one that could not
/// start or whose patch could not be taken leaves none, and runs again.
async fn run_task(shared: Arc<Shared>, task: Task, budget_left: Option<f64>) -> Finished {
    let started = Instant::now();
    let unfinished = |why: String| Finished::unfinished(&task, why, started.elapsed());
    if shared.stop.is_cancelled() {
        return unfinished("interrupted".to_owned());
    }
    let dir = shared.work.join(&task.id);
    let ws = match workspace::prepare(&task, &dir, &shared.work, &shared.repos).await {
        Ok(ws) => ws,
        Err(e) => return unfinished(format!("could not start: {e:#}")),
    };
    let session_id = uuid::Uuid::new_v4().to_string();
    let ran = if shared.stop.is_cancelled() {
        None
    } else {
        let spec = child_spec(&shared, &task, &ws.run_dir, &session_id, budget_left);
        Some(run_child(spec, &shared.stop).await)
    };
    let run_dir = ws.run_dir.clone();
    let (patch, removed) = ws.finish(&shared.repos).await;
    if let Err(e) = removed {
        eprintln!(
            "tack batch: {}: could not remove its worktree: {e:#}",
            task.id
        );
    }
    let ran = match ran {
        None => return unfinished("interrupted".to_owned()),
        Some(Err(e)) => return unfinished(format!("could not run its session: {e}")),
        Some(Ok(ran)) if ran.stopped && shared.stop.is_cancelled() => {
            return unfinished("interrupted".to_owned());
        }
        Some(Ok(ran)) if ran.stopped => {
            return unfinished("stopped past its time limit".to_owned());
        }
        Some(Ok(ran)) if !ran.ended_by_itself() => {
            return unfinished("its session was killed".to_owned());
        }
        Some(Ok(ran)) => ran,
    };
    let patch = match patch {
        Ok(patch) => patch,
        Err(e) => return unfinished(format!("could not take its patch: {e:#}")),
    };
    let mut line = json!({
        "id": task.id,
        "instance_id": task.id,
        "model_name_or_path": task.model.as_ref().or(shared.args.model.as_ref()).map_or("tack", String::as_str),
        "duration_ms": started.elapsed().as_millis() as u64,
        "model_patch": patch,
        "session_id": session_id,
    });
    let (status, cost, turns) = record_run(&mut line, ran, &session_id, &run_dir);
    Finished {
        id: task.id.clone(),
        line: Some(line),
        status,
        cost,
        turns,
        took: started.elapsed(),
    }
}

fn child_spec<'a>(
    shared: &'a Shared,
    task: &'a Task,
    run_dir: &'a Path,
    session_id: &str,
    budget_left: Option<f64>,
) -> ChildSpec<'a> {
    let args = &shared.args;
    let mut argv: Vec<String> = ["-p", "--output-format", "json", "--session-id", session_id]
        .map(str::to_owned)
        .into();
    if let Some(model) = task.model.as_ref().or(args.model.as_ref()) {
        argv.extend(["--model".to_owned(), model.clone()]);
    }
    if let Some(turns) = task.max_turns.or(args.max_turns) {
        argv.extend(["--max-turns".to_owned(), turns.to_string()]);
    }
    let timeout = task.timeout_s.or(args.timeout);
    if let Some(secs) = timeout {
        argv.extend(["--timeout".to_owned(), secs.to_string()]);
    }
    if let Some(left) = budget_left {
        argv.extend(["--max-budget-usd".to_owned(), format!("{left:.6}")]);
    }
    argv.extend(args.session_args.iter().cloned());
    ChildSpec {
        program: &shared.program,
        args: argv,
        cwd: run_dir,
        prompt: &task.prompt,
        // Past its own timeout's grace: something is wrong, stop it.
        hard_limit: timeout.map(|s| Duration::from_secs_f64(s) + Duration::from_secs(30)),
    }
}

/// Fills a results line from a session that ended by itself; (status,
/// cost, turns).
fn record_run(
    line: &mut Value,
    ran: ChildOutcome,
    session_id: &str,
    run_dir: &Path,
) -> (String, f64, u64) {
    if let Ok(place) =
        tack_runtime::Place::new(run_dir.to_owned(), tack_runtime::Env::from_process())
        && let Ok(path) = place.session_store().transcript_path(run_dir, session_id)
    {
        line["transcript"] = path.to_string_lossy().into_owned().into();
    }
    line["exit_code"] = ran.exit_code.into();
    let status = match (&ran.result, ran.exit_code) {
        (_, Some(124)) => "timeout",
        (Some(r), _) if r.get("is_error") == Some(&Value::Bool(false)) => "success",
        _ => "error",
    };
    line["status"] = status.into();
    let (mut cost, mut turns) = (0.0, 0);
    match ran.result {
        Some(result) => {
            cost = result
                .get("total_cost_usd")
                .and_then(Value::as_f64)
                .unwrap_or(0.0);
            turns = result.get("num_turns").and_then(Value::as_u64).unwrap_or(0);
            for key in ["subtype", "num_turns", "total_cost_usd", "usage", "result"] {
                if let Some(v) = result.get(key) {
                    line[key] = v.clone();
                }
            }
        }
        None => line["error"] = ran.stderr_tail.into(),
    }
    (status.to_owned(), cost, turns)
}
