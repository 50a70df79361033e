//! The `LSP` tool end to end: the real binary, a plugin (`--plugin-dir`) whose
//! `.lsp.json` declares pylsp (`.ci/install-lsp.sh`), a small Python project,
//! and the scripted model calling the tool; what the model reads is asserted
//! from the requests it received. Without pylsp the tests say why and pass,
//! unless `TACK_REQUIRE_INTEGRATIONS` is set (`.ci/run` sets it).

use crate::common;

use std::path::{Path, PathBuf};

use common::{Env, last_tool_results, request_tool};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::installed::pylsp;
use tack_testkit::{Reply, Script};

const LIB: &str = "def greet(name):\n    \"\"\"Say hi to name.\"\"\"\n    return \"hi \" + name\n";
const MAIN: &str = "from lib import greet\n\nprint(greet(\"x\"))\n";

/// The project's two files and a plugin declaring `servers` in its `.lsp.json`;
/// the plugin's folder.
fn project(env: &Env, servers: Value) -> PathBuf {
    let cwd = env.cwd();
    std::fs::write(cwd.join("lib.py"), LIB).unwrap();
    std::fs::write(cwd.join("main.py"), MAIN).unwrap();
    let plugin = env.home.path().join("py-plugin");
    std::fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
    std::fs::write(
        plugin.join(".claude-plugin/plugin.json"),
        r#"{"name": "py"}"#,
    )
    .unwrap();
    std::fs::write(plugin.join(".lsp.json"), servers.to_string()).unwrap();
    plugin
}

/// `tack -p` with `args`, the plugin and the `vars` set.
fn run(env: &Env, plugin: &Path, args: &[&str], vars: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = env.tack();
    cmd.arg("-p").args(args).arg("--plugin-dir").arg(plugin);
    cmd.envs(vars.iter().copied()).output().unwrap()
}

fn pylsp_servers(pylsp: &Path) -> Value {
    json!({"python": {"command": pylsp, "extensionToLanguage": {".py": "python"}, "startupTimeout": 20000}})
}

fn lsp(id: &str, operation: &str, file: &str, line: u32, character: u32) -> Reply {
    Reply::tool_use(
        id,
        "LSP",
        json!({"operation": operation, "filePath": file, "line": line, "character": character}),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn definition_references_hover_and_symbols_come_from_the_real_server() {
    let Some(pylsp) = pylsp() else { return };
    let env = Env::new(Script::new([
        lsp("d", "goToDefinition", "main.py", 3, 7),
        lsp("r", "findReferences", "lib.py", 1, 5),
        lsp("h", "hover", "main.py", 3, 7),
        lsp("s", "documentSymbol", "lib.py", 1, 1),
        lsp("n", "hover", "notes.txt", 1, 1),
        Reply::text("done"),
    ]))
    .await;
    let plugin = project(&env, pylsp_servers(&pylsp));
    std::fs::write(env.cwd().join("notes.txt"), "plain\n").unwrap();
    let out = run(&env, &plugin, &["find greet"], &[]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let bodies = env.request_bodies();
    let results: Vec<(String, String)> = bodies[1..].iter().flat_map(last_tool_results).collect();
    let want = [
        ("d", "Defined in lib.py:1:5"),
        (
            "r",
            "Found 3 references across 2 files:\n\nlib.py:\n  Line 1:5\n\nmain.py:\n  Line 1:17\n  Line 3:7",
        ),
        // pylsp gives no range, so no "Hover info at" line.
        ("h", "```python\ngreet(name)\n```\n\n\nSay hi to name."),
        ("s", "Function: greet (line 1)"),
        ("n", "No LSP server available for file type: .txt"),
    ]
    .map(|(id, text)| (id.to_owned(), text.to_owned()));
    assert_eq!(results, want);
    assert_eq!(
        request_tool(&bodies[0], "LSP")["input_schema"]["required"],
        json!(["operation", "filePath", "line", "character"])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn diagnostics_after_an_edit_reach_the_next_request() {
    let Some(pylsp) = pylsp() else { return };
    let env = Env::new(Script::new([
        Reply::tool_use("read", "Read", json!({"file_path": "lib.py"})),
        Reply::tool_use(
            "edit",
            "Edit",
            json!({"file_path": "lib.py", "old_string": "def greet", "new_string": "import os\n\n\ndef greet"}),
        ),
        Reply::text("edited"),
    ]))
    .await;
    let plugin = project(&env, pylsp_servers(&pylsp));
    let args = ["add an import", "--permission-mode", "acceptEdits"];
    let out = run(&env, &plugin, &args, &[]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let bodies = env.request_bodies();
    let last = bodies[2]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let lib = env.cwd().join("lib.py");
    assert_eq!(
        last,
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "edit",
             "content": format!("The file {} has been updated. Here's a snippet of the result:\n1\timport os\n2\t\n3\t\n4\tdef greet(name):\n5\t    \"\"\"Say hi to name.\"\"\"\n6\t    return \"hi \" + name\n", lib.display())},
            {"type": "text", "cache_control": {"type": "ephemeral"}, "text": "<system-reminder>\n<new-diagnostics>The following new diagnostic issues were detected:\n\nlib.py:\n  ⚠ [Line 1:1] 'os' imported but unused (pyflakes)</new-diagnostics>\n</system-reminder>"}
        ]})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crashing_server_is_a_clear_result_a_file_outside_is_refused_as_read_and_enable_lsp_tool_false_hides_the_tool()
 {
    let env = Env::new(Script::new([
        lsp("h", "hover", "main.py", 1, 1),
        lsp("o", "hover", "/etc/passwd", 1, 1),
        Reply::text("done"),
        Reply::text("no lsp"),
    ]))
    .await;
    let die = common::write(
        env.home.path().join("die.sh"),
        "#!/bin/sh\necho 'no interpreter here' >&2\nexit 7\n",
    );
    std::fs::set_permissions(&die, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let servers = json!({"python": {"command": die, "extensionToLanguage": {".py": "python"}, "maxRestarts": 0}});
    let plugin = project(&env, servers);
    // The refused call (a file outside the project, as Read would be) makes
    // print mode's exit say so.
    let out = run(&env, &plugin, &["hover"], &[]);
    assert_eq!(
        common::stderr(&out),
        "tack: 1 tool call was refused:\n  LSP\nPrint mode cannot ask for permission. To allow them, run again with --allowedTools LSP, or --permission-mode auto (a classifier decides each call).\n"
    );
    let out = run(&env, &plugin, &["hover"], &[("ENABLE_LSP_TOOL", "0")]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let bodies = env.request_bodies();
    assert_eq!(
        (
            last_tool_results(&bodies[1]),
            last_tool_results(&bodies[2]),
            offers_lsp(&bodies[0]),
            offers_lsp(&bodies[3])
        ),
        (
            vec![(
                "h".to_owned(),
                "Error performing hover: LSP server plugin:py:python exited (exit status: 7); its stderr ends: no interpreter here".to_owned()
            )],
            vec![(
                "o".to_owned(),
                "LSP touches a path outside the working directories (/etc/passwd) (no permission prompt available)".to_owned()
            )],
            true,
            false
        )
    );
}

/// `tack` with `args`, expected to succeed.
fn ok(env: &Env, args: &[&str]) {
    let out = env.tack().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "tack {args:?}: {}",
        common::stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_installed_plugins_server_runs_only_while_the_plugin_is_enabled() {
    let env = Env::new(Script::new([
        lsp("h1", "hover", "main.py", 1, 1),
        Reply::text("off"),
        lsp("h2", "hover", "main.py", 1, 1),
        Reply::text("on"),
    ]))
    .await;
    project(&env, json!({}));
    let marker = env.home.path().join("server-ran");
    let market = env.home.path().join("market");
    let touch = format!("touch {}; exit 3", marker.display());
    let servers = json!({"python": {"command": "/bin/sh", "args": ["-c", touch],
        "extensionToLanguage": {".py": "python"}, "maxRestarts": 0}});
    let files = [
        (
            ".claude-plugin/marketplace.json",
            json!({"name": "lsp-market", "owner": {"name": "t"},
            "plugins": [{"name": "lspkit", "source": "./lspkit"}]}),
        ),
        (
            "lspkit/.claude-plugin/plugin.json",
            json!({"name": "lspkit", "version": "1.0.0"}),
        ),
        ("lspkit/.lsp.json", servers),
    ];
    for (path, value) in files {
        common::write(market.join(path), &value.to_string());
    }
    ok(
        &env,
        &["plugin", "marketplace", "add", market.to_str().unwrap()],
    );
    ok(&env, &["plugin", "install", "lspkit@lsp-market"]);
    ok(&env, &["plugin", "disable", "lspkit"]);
    let hover = |env: &Env| {
        let out = env.tack().args(["-p", "hover"]).output().unwrap();
        assert!(out.status.success(), "{}", common::stderr(&out));
        marker.exists()
    };
    let ran_disabled = hover(&env);
    ok(&env, &["plugin", "enable", "lspkit"]);
    let ran_enabled = hover(&env);
    let bodies = env.request_bodies();
    assert_eq!(
        (
            ran_disabled,
            offers_lsp(&bodies[0]),
            ran_enabled,
            offers_lsp(&bodies[2]),
            last_tool_results(&bodies[3])
        ),
        (
            false,
            false,
            true,
            true,
            vec![(
                "h2".to_owned(),
                "Error performing hover: LSP server plugin:lspkit:python exited (exit status: 3)"
                    .to_owned()
            )]
        )
    );
}

/// Whether a request offered the LSP tool.
fn offers_lsp(body: &Value) -> bool {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "LSP")
}
