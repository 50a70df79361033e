//! `--serve SOCKET`: the session served on a Unix socket, driven by the
//! session protocol from other processes (`tack_runtime::serve`). Nothing is
//! printed; the process ends with the session.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use tack_runtime::{LoadedSettings, Place, SessionOptions};

pub async fn run(
    place: Place,
    loaded: LoadedSettings,
    options: SessionOptions,
    socket: PathBuf,
) -> anyhow::Result<ExitCode> {
    let listener = tack_runtime::serve::bind(&socket)
        .with_context(|| format!("cannot listen on {}", socket.display()))?;
    let runtime = tack_runtime::start(place, &loaded, options).await?;
    let (handle, events) = runtime.spawn();
    let served = tack_runtime::serve::serve(listener, handle, events).await;
    let _ = std::fs::remove_file(&socket);
    served.with_context(|| format!("serving {}", socket.display()))?;
    Ok(ExitCode::SUCCESS)
}
