//! `scripts/hot_symbols.py --check`, which `.ci/run` runs on the release
//! link's map (`scripts/check-hot-symbols.sh`): the hot-symbol list passes
//! while at least 95% of its names are functions of the link, and fails,
//! saying how to regenerate it, below that.

use std::path::Path;
use std::process::Output;

use pretty_assertions::assert_eq;

/// A link map as LLD writes it (`-Wl,-Map`), one function section per name.
fn map(names: &[String]) -> String {
    let mut text = String::from(
        "             VMA              LMA     Size Align Out     In      Symbol\n\
         \x20          1000             1000    20000    64 .text\n",
    );
    for (i, name) in names.iter().enumerate() {
        let at = 0x1000 + i * 0x40;
        text.push_str(&format!(
            "{at:>16x} {at:>16x} {:>8x} {:>5} /t/deps/tack-1.tack.0-cgu.0.rcgu.o:(.text.{name})\n",
            0x30, 16
        ));
        text.push_str(&format!(
            "{at:>16x} {at:>16x} {:>8x} {:>5}                 {name}\n",
            0x30, 1
        ));
    }
    text
}

fn check(dir: &Path, list: &[String], linked: &[String]) -> Output {
    let (list_path, map_path) = (dir.join("hot-symbols.txt"), dir.join("tack.map"));
    std::fs::write(&list_path, list.join("\n") + "\n").unwrap();
    std::fs::write(&map_path, map(linked)).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/hot_symbols.py");
    std::process::Command::new("python3")
        .arg(script)
        .arg("--check")
        .args([&list_path, &map_path])
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_check_passes_at_95_percent_of_the_names_linked_and_fails_below() {
    let dir = tempfile::tempdir().unwrap();
    let list: Vec<String> = (0..20)
        .map(|i| format!("_ZN4tack4hot{i}17h00000000000000{i:02}E"))
        .collect();
    // One name renamed since the list was made: 19 of 20 found.
    let mut linked = list[1..].to_vec();
    linked.push("_ZN4tack4new17h0000000000000099E".into());
    let out = check(dir.path(), &list, &linked);
    assert_eq!(
        (out.status.code(), text(&out.stdout), text(&out.stderr)),
        (
            Some(0),
            "hot-symbols: 19 of 20 names found in the link (95.0%, at least 95.0% wanted)\n".into(),
            String::new()
        )
    );

    // Two gone (a stale list): 18 of 20.
    let out = check(dir.path(), &list, &list[2..]);
    assert_eq!(
        (out.status.code(), text(&out.stdout), text(&out.stderr)),
        (
            Some(1),
            "hot-symbols: 18 of 20 names found in the link (90.0%, at least 95.0% wanted)\n".into(),
            "hot-symbols: the list is stale: run scripts/hot-symbols.sh (after `cargo clean \
             --release -p tack-cli`) and commit it\n"
                .into()
        )
    );
}
