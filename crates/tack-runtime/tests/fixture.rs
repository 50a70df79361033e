//! The one fixture of this crate's runtime tests: a project folder (a git
//! root), a home folder and the scripted model server, and a session started
//! in them with the test's options.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_runtime::{Env, Place, Runtime, RuntimeEvents, RuntimeHandle, SessionOptions};
use tack_testkit::{MockServer, Script};

pub struct Fixture {
    pub project: tempfile::TempDir,
    pub home: tempfile::TempDir,
    pub server: MockServer,
}

impl Fixture {
    pub async fn new(script: Script) -> Fixture {
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir(project.path().join(".git")).unwrap();
        Fixture {
            project,
            home: tempfile::tempdir().unwrap(),
            server: MockServer::start(script).await.unwrap(),
        }
    }

    pub fn cwd(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    /// The session's place: the project as cwd, the home folder as `HOME`, the
    /// scripted server as the API, no retries.
    pub fn place(&self) -> Place {
        let vars: HashMap<String, String> = [
            ("HOME", self.home.path().to_string_lossy().into_owned()),
            ("ANTHROPIC_BASE_URL", self.server.base_url()),
            ("ANTHROPIC_API_KEY", "test".to_owned()),
            ("CLAUDE_CODE_MAX_RETRIES", "0".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        Place::new(self.cwd(), Env(vars)).unwrap()
    }

    /// A session with `options`, its settings loaded from the place.
    pub async fn start(&self, options: SessionOptions) -> Runtime {
        let place = self.place();
        let loaded = tack_runtime::load_settings(&place, None).unwrap();
        tack_runtime::start(place, &loaded, options).await.unwrap()
    }

    /// [`Fixture::start`], spawned: its handle, its events and its transcript.
    pub async fn spawn(&self, options: SessionOptions) -> (RuntimeHandle, RuntimeEvents, PathBuf) {
        let runtime = self.start(options).await;
        let transcript = runtime.info().transcript_path.clone().unwrap();
        let (handle, events) = runtime.spawn();
        (handle, events, transcript)
    }

    /// The bodies of the requests the server received, in order.
    pub fn bodies(&self) -> Vec<Value> {
        self.server.requests().into_iter().map(|r| r.body).collect()
    }

    pub fn project_file(&self, rel: &str, text: &str) {
        write(&self.cwd().join(rel), text);
    }

    pub fn home_file(&self, rel: &str, text: &str) {
        write(&self.home.path().join(rel), text);
    }

    /// The user's own settings (always trusted).
    pub fn user_settings(&self, settings: Value) {
        self.home_file(".claude/settings.json", &settings.to_string());
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
