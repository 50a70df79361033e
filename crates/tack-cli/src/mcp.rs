//! `tack mcp add | add-json | list | get | remove`: the flags, then tack-mcp's
//! commands, which print like `claude mcp`.

use std::process::ExitCode;
use std::time::Duration;

use tack_mcp::{AddArgs, HealthCheck, McpPaths, ProjectApprovals};
use tack_runtime::Place;

use crate::cli::McpCommand;

/// How long `list` and `get` give each server to connect.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(10);

pub async fn run(place: &Place, command: McpCommand) -> anyhow::Result<ExitCode> {
    let loaded = tack_runtime::load_settings(place, None)?;
    let paths = McpPaths::from_locations(&loaded.locations);
    let approvals = ProjectApprovals::from_settings(&loaded.settings);
    let logs = place
        .session_store()
        .project_dir(&place.cwd)
        .join("mcp-logs");
    let lookup = |k: &str| place.env.get(k);
    let check = || HealthCheck {
        approvals: &approvals,
        lookup: &lookup,
        timeout: HEALTH_TIMEOUT,
        log_dir: &logs,
    };
    let text = match command {
        McpCommand::Add {
            transport,
            scope,
            env,
            headers,
            name,
            command_or_url,
            args,
        } => tack_mcp::mcp_add(
            &paths,
            &AddArgs {
                name,
                transport,
                command_or_url,
                args,
                scope,
                env,
                headers,
            },
        )?,
        McpCommand::AddJson { scope, name, json } => {
            tack_mcp::mcp_add_json(&paths, &name, &json, scope.as_deref())?
        }
        McpCommand::List => tack_mcp::mcp_list(&paths, check()).await?,
        McpCommand::Get { name } => tack_mcp::mcp_get(&paths, &name, check()).await?,
        McpCommand::Remove { scope, name } => {
            tack_mcp::mcp_remove(&paths, &name, scope.as_deref())?
        }
    };
    print!("{text}");
    if !text.ends_with('\n') {
        println!();
    }
    Ok(ExitCode::SUCCESS)
}
