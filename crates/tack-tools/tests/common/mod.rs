//! Shared set-up for the integration tests: a project directory and a session
//! directory in a fresh temp dir, and the built-in tools over them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput};
use tack_tools::{BuiltinOptions, builtin_tools_with, find_tool};

pub struct Session {
    pub _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub session_dir: PathBuf,
    pub env: Arc<ToolEnv>,
    pub tools: Vec<Arc<dyn Tool>>,
    pub options: BuiltinOptions,
}

impl Session {
    pub fn new() -> Self {
        Self::with_grace(Duration::from_millis(300))
    }

    pub fn with_grace(kill_grace: Duration) -> Self {
        let tmp = tempfile::tempdir().expect("tempdir");
        let base = tmp.path().canonicalize().expect("canonical tempdir");
        let root = base.join("project");
        let session_dir = base.join("session");
        std::fs::create_dir_all(&root).expect("project dir");
        std::fs::create_dir_all(&session_dir).expect("session dir");
        let env = Arc::new(ToolEnv::new(root.clone(), session_dir.clone()));
        let options = BuiltinOptions {
            kill_grace,
            ..BuiltinOptions::default()
        };
        let tools = builtin_tools_with(&env, options.clone());
        Session {
            _tmp: tmp,
            root,
            session_dir,
            env,
            tools,
            options,
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn p(&self, rel: &str) -> String {
        self.path(rel).display().to_string()
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, content).expect("write fixture");
        path
    }

    pub fn ctx(&self) -> ToolContext {
        ToolContext::standalone("toolu_test", self.env.clone())
    }

    pub fn tool(&self, name: &str) -> Arc<dyn Tool> {
        find_tool(&self.tools, name)
            .unwrap_or_else(|| panic!("no tool {name}"))
            .clone()
    }

    /// Validates, then calls, as the loop does.
    pub async fn call(&self, name: &str, input: Value) -> Result<ToolOutput, ToolError> {
        self.call_with(name, input, &self.ctx()).await
    }

    pub async fn call_with(
        &self,
        name: &str,
        input: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let tool = self.tool(name);
        tool.validate(&input, ctx)?;
        tool.call(input, ctx).await
    }

    /// The result text of a call that must succeed.
    pub async fn ok(&self, name: &str, input: Value) -> String {
        match self.call(name, input.clone()).await {
            Ok(out) => out.content.to_text(),
            Err(e) => panic!("{name} {input} failed: {e}"),
        }
    }

    /// The error message of a call that must fail.
    pub async fn err(&self, name: &str, input: Value) -> String {
        match self.call(name, input.clone()).await {
            Ok(out) => panic!("{name} {input} succeeded: {}", out.content.to_text()),
            Err(e) => e.message,
        }
    }
}

pub fn read_to_string(path: &Path) -> String {
    std::fs::read_to_string(path).expect("read")
}
