//! Plugins and slash commands as front ends get them: `system/init`'s
//! `plugins` and `plugin_errors` shapes, camelCase for slash commands, and a
//! round trip of each.

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_protocol::extensions::{CommandSource, PluginFailure, PluginSummary, SlashCommand};

#[test]
fn a_plugin_summary_is_system_inits_plugins_entry() {
    let summary = PluginSummary {
        name: "fmt".into(),
        path: PathBuf::from("/p/fmt"),
        source: "fmt@inline".into(),
        version: Some("1.2.0".into()),
    };
    let value =
        json!({"name": "fmt", "path": "/p/fmt", "source": "fmt@inline", "version": "1.2.0"});
    assert_eq!(serde_json::to_value(&summary).unwrap(), value);
    assert_eq!(
        serde_json::from_value::<PluginSummary>(value).unwrap(),
        summary
    );

    let unversioned = PluginSummary {
        version: None,
        ..summary
    };
    let value = json!({"name": "fmt", "path": "/p/fmt", "source": "fmt@inline"});
    assert_eq!(serde_json::to_value(&unversioned).unwrap(), value);
    assert_eq!(
        serde_json::from_value::<PluginSummary>(value).unwrap(),
        unversioned
    );
}

#[test]
fn a_plugin_failure_is_system_inits_plugin_errors_entry() {
    let failure = PluginFailure {
        plugin: "inline[0]".into(),
        kind: "path-not-found".into(),
        message: "/p/gone is not a folder".into(),
        path: Some(PathBuf::from("/p/gone")),
    };
    let value = json!({
        "plugin": "inline[0]", "type": "path-not-found",
        "message": "/p/gone is not a folder", "path": "/p/gone"
    });
    assert_eq!(serde_json::to_value(&failure).unwrap(), value);
    assert_eq!(
        serde_json::from_value::<PluginFailure>(value).unwrap(),
        failure
    );
    assert_eq!(
        failure.warning(),
        "warning: plugin inline[0]: /p/gone is not a folder"
    );

    let component = PluginFailure {
        plugin: "fmt@inline".into(),
        kind: "hook-load-failed".into(),
        message: "bad hooks".into(),
        path: None,
    };
    let value = json!({"plugin": "fmt@inline", "type": "hook-load-failed", "message": "bad hooks"});
    assert_eq!(serde_json::to_value(&component).unwrap(), value);
    assert_eq!(
        serde_json::from_value::<PluginFailure>(value).unwrap(),
        component
    );
}

#[cfg(unix)]
#[test]
fn a_path_that_is_not_utf8_is_written_lossily() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let summary = PluginSummary {
        name: "odd".into(),
        path: PathBuf::from(OsStr::from_bytes(b"/p/odd\xff")),
        source: "odd@inline".into(),
        version: None,
    };
    assert_eq!(
        serde_json::to_value(&summary).unwrap(),
        json!({"name": "odd", "path": "/p/odd\u{fffd}", "source": "odd@inline"})
    );
}

#[test]
fn slash_commands_are_camel_case_with_their_source() {
    let commands = vec![
        SlashCommand {
            name: "compact".into(),
            description: "Summarise the conversation".into(),
            argument_hint: "<instructions>".into(),
            source: CommandSource::Builtin,
        },
        SlashCommand {
            name: "fmt:check".into(),
            description: "Check formatting".into(),
            argument_hint: String::new(),
            source: CommandSource::Plugin,
        },
    ];
    let value = json!([
        {"name": "compact", "description": "Summarise the conversation",
         "argumentHint": "<instructions>", "source": "builtin"},
        {"name": "fmt:check", "description": "Check formatting",
         "argumentHint": "", "source": "plugin"},
    ]);
    assert_eq!(serde_json::to_value(&commands).unwrap(), value);
    assert_eq!(
        serde_json::from_value::<Vec<SlashCommand>>(value).unwrap(),
        commands
    );
    let sources =
        [CommandSource::Project, CommandSource::User].map(|s| serde_json::to_value(s).unwrap());
    assert_eq!(sources, [json!("project"), json!("user")]);
}
