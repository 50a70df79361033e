//! A checkout can put anything where a settings file goes: a FIFO must not
//! hang start-up, `/dev/zero` must not eat memory, a typo must not go unsaid.

use std::path::Path;

use pretty_assertions::assert_eq;
use tack_config::{Locations, Settings, SettingsWarning};

fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().canonicalize().unwrap().join("p");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    (tmp, project)
}

/// What loading says: the error, or the warnings one per line.
fn load(project: &Path) -> String {
    let locations = Locations::discover(project, |_| None);
    match Settings::load(&locations, None) {
        Ok(s) => s.warnings().iter().map(|w| format!("{w}\n")).collect(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_fifo_or_a_device_in_place_of_project_settings_is_skipped_not_a_hang() {
    let (_tmp, project) = project();
    let file = project.join(".claude/settings.json");
    let c = std::ffi::CString::new(file.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert_eq!(
        load(&project),
        format!(
            "cannot read settings file {}: it is a FIFO (named pipe), not a regular file; this settings file is skipped\n",
            file.display()
        )
    );
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
    assert_eq!(
        load(&project),
        format!(
            "cannot read settings file {}: it is a device, not a regular file; this settings file is skipped\n",
            file.display()
        )
    );
}

#[test]
fn unknown_keys_are_warnings_from_every_file_lowest_first() {
    let (_tmp, project) = project();
    std::fs::write(project.join(".claude/settings.json"), "{\"modle\": \"x\"}").unwrap();
    std::fs::write(
        project.join(".claude/settings.local.json"),
        "{\n\"permissions\": {\"alow\": []},\n\"frobnicate\": 1}",
    )
    .unwrap();
    let locations = Locations::discover(&project, |_| None);
    let settings = Settings::load(
        &locations,
        Some("{\"spinnerTipsEnabled\": false, \"hookz\": {}}"),
    )
    .unwrap();
    let warn =
        |file: &str, line, key: &str, suggestion: Option<&str>| SettingsWarning::UnknownKey {
            path: if file == "--settings" {
                file.into()
            } else {
                project.join(file)
            },
            line,
            key: key.to_owned(),
            suggestion: suggestion.map(str::to_owned),
        };
    assert_eq!(
        settings.warnings(),
        [
            warn(".claude/settings.json", 1, "modle", Some("model")),
            warn(
                ".claude/settings.local.json",
                2,
                "permissions.alow",
                Some("permissions.allow")
            ),
            warn(".claude/settings.local.json", 3, "frobnicate", None),
            warn("--settings", 1, "hookz", Some("hooks")),
        ]
    );
}
