//! The workspace's crates depend one way (ARCHITECTURE.md, "Dependencies point
//! one way"). Reads each crate's `Cargo.toml` and checks its tack crates
//! (normal and build dependencies; tests may use any crate) against the table.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use pretty_assertions::assert_eq;

use crate::module_graph::crate_dirs;

/// What the command-line front end may use: the runtime and the small
/// interface crates.
const FRONT_END: &[&str] = &[
    "tack-runtime",
    "tack-protocol",
    "tack-tui",
    "tack-sys",
    "tack-api",
    "tack-config",
    "tack-mcp",
    "tack-plugins",
    "tack-git",
];

/// Crate → the tack crates it may depend on, beyond [`FRONT_END`] for
/// tack-cli. A new dependency that is not here fails the test: add it
/// only if it points down the layers.
const ALLOWED: &[(&str, &[&str])] = &[
    ("tack-protocol", &[]),
    ("tack-sys", &[]),
    ("tack-sandbox", &["tack-sys"]),
    // Every git thing: the in-process reader and the one hardened runner.
    ("tack-git", &["tack-sys"]),
    // Speaks raw JSON so that tests of every layer can use it.
    ("tack-testkit", &[]),
    ("tack-api", &["tack-protocol", "tack-sys"]),
    ("tack-tool", &["tack-protocol", "tack-sys"]),
    (
        "tack-core",
        &[
            "tack-protocol",
            "tack-api",
            "tack-tool",
            "tack-git",
            "tack-sys",
        ],
    ),
    (
        "tack-tools",
        &["tack-protocol", "tack-tool", "tack-sandbox", "tack-sys"],
    ),
    (
        "tack-web",
        &["tack-protocol", "tack-api", "tack-tool", "tack-sys"],
    ),
    ("tack-permissions", &["tack-protocol", "tack-sys"]),
    ("tack-hooks", &["tack-sys"]),
    ("tack-store", &["tack-protocol", "tack-sys"]),
    ("tack-config", &["tack-sys"]),
    ("tack-plugins", &["tack-git", "tack-sys"]),
    // OTLP export; knows no session, only counters and events.
    ("tack-telemetry", &[]),
    // Auto mode's classifier: rules, transcript, the model call over any
    // `ModelClient`; no session, no permission engine.
    ("tack-automode", &["tack-protocol", "tack-api"]),
    (
        "tack-mcp",
        &[
            "tack-protocol",
            "tack-api",
            "tack-tool",
            "tack-config",
            "tack-sys",
        ],
    ),
    // Commands, skills, output styles, plugins and agent definitions, loaded
    // from files with plain inputs: no session, nothing run.
    (
        "tack-extensions",
        &[
            "tack-protocol",
            "tack-core",
            "tack-config",
            "tack-hooks",
            "tack-mcp",
            "tack-plugins",
            "tack-sys",
        ],
    ),
    (
        "tack-runtime",
        &[
            "tack-protocol",
            "tack-api",
            "tack-tool",
            "tack-core",
            "tack-tools",
            "tack-web",
            "tack-store",
            "tack-config",
            "tack-permissions",
            "tack-hooks",
            "tack-mcp",
            "tack-plugins",
            "tack-extensions",
            "tack-sandbox",
            "tack-telemetry",
            "tack-automode",
            "tack-git",
            "tack-sys",
        ],
    ),
    // A front end reaches the engine only through the runtime, which
    // re-exports what its events and views carry: no core, hooks,
    // permissions, store, tool or tools here. tack-testkit is the demo's
    // scripted server.
    ("tack-cli", &["tack-testkit", "tack-acp"]),
    // `tack acp`: a front end of the session protocol for editors; it
    // translates ACP to ops and events and reaches nothing but the runtime
    // (and the `agent-client-protocol` crate, the wire's types).
    ("tack-acp", &["tack-runtime", "tack-protocol"]),
    // The terminal UI draws and reads keys: plain values from tack-protocol,
    // the process runner for the status line.
    ("tack-tui", &["tack-protocol", "tack-sys"]),
];

/// The tack crates named in the dependency sections of a `Cargo.toml`
/// (`[dependencies]`, `[build-dependencies]`, `[target.'cfg(..)'.dependencies]`).
fn tack_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            let section = line.trim_matches(|c| c == '[' || c == ']');
            in_dependencies = section == "dependencies"
                || section == "build-dependencies"
                || (section.starts_with("target.") && section.ends_with(".dependencies"));
            continue;
        }
        if in_dependencies && line.starts_with("tack-") {
            let name: String = line
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            out.insert(name);
        }
    }
    out
}

#[test]
fn crates_depend_on_the_layers_below_them() {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut not_allowed = Vec::new();
    let mut seen = 0;
    for (name, dir) in crate_dirs() {
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
        let Some(own) = allowed.get(name.as_str()) else {
            not_allowed.push((name, "(crate missing from the table)".to_owned()));
            continue;
        };
        let front_end = name == "tack-cli";
        for dependency in tack_dependencies(&manifest) {
            seen += 1;
            let ok = own.contains(&dependency.as_str())
                || (front_end && FRONT_END.contains(&dependency.as_str()));
            if !ok {
                not_allowed.push((name.clone(), dependency));
            }
        }
    }
    assert!(seen > 30, "only {seen} dependencies found");
    assert_eq!(not_allowed, Vec::<(String, String)>::new());
}

#[test]
fn dependencies_are_read_from_the_dependency_sections_only() {
    let manifest = "[package]\nname = \"tack-x\"\n\
                    [dependencies]\ntack-api = { workspace = true }\ntack-sys.workspace = true\n\
                    serde = \"1\"\n\
                    [target.'cfg(unix)'.dependencies]\ntack-tool = { path = \"../tack-tool\" }\n\
                    [dev-dependencies]\ntack-testkit = { workspace = true }\n";
    assert_eq!(
        tack_dependencies(manifest),
        BTreeSet::from(["tack-api", "tack-sys", "tack-tool"].map(String::from))
    );
}
