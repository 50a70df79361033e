//! The sandbox's way out (issue 25): a sandboxed command reaches the network
//! only through tack's filtering proxy, bridged into its namespace. An
//! allowed destination works over each route a program takes (plain HTTP
//! through `HTTP_PROXY`, a CONNECT tunnel, SOCKS5 through `ALL_PROXY`); one
//! nobody allowed is refused with the reason in the tool result; a denied
//! domain loses to nothing. The origin listens on 127.0.0.2: loopback, but not
//! in the namespace's `NO_PROXY`, so the request goes through the proxy,
//! which lets a loopback destination through only when it is listed exactly.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::stderr;
use crate::sandbox::{bash, project, run, run_command, script, trimmed};

/// An HTTP origin on `ip` that answers every request with `body`.
fn origin(ip: &str, body: &'static str) -> u16 {
    let listener = TcpListener::bind((ip, 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            // The request head, to its blank line.
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = (&stream).write_all(reply.as_bytes());
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread")]
async fn an_allowed_destination_is_reached_through_the_proxy_by_every_route() {
    let port = origin("127.0.0.2", "hello");
    let url = format!("http://127.0.0.2:{port}/");
    let calls = vec![
        bash("http", &format!("curl -s -m 5 {url}; echo \" rc=$?\"")),
        bash(
            "connect",
            &format!("curl -s -m 5 -p {url}; echo \" rc=$?\""),
        ),
        bash(
            "socks",
            &format!("curl -s -m 5 --proxy \"$ALL_PROXY\" {url}; echo \" rc=$?\""),
        ),
        // The same origin under a name nobody allowed: refused.
        bash(
            "other",
            &format!("curl -s -m 5 -p http://127.0.0.3:{port}/; echo \" rc=$?\""),
        ),
    ];
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true, "network": {"allowedDomains": ["127.0.0.2"]}},
    });
    let env = project(script(vec![calls]), settings).await;
    let (_, results) = run(&env, &[]).await;
    let refused = format!(
        "sandbox: network access to 127.0.0.3:{port} denied (not in sandbox.network.allowedDomains, and not allowed)"
    );
    let other = format!(" rc=56\n\n{refused}");
    assert_eq!(
        trimmed(&results),
        vec![BTreeMap::from([
            ("http", "hello rc=0"),
            ("connect", "hello rc=0"),
            ("socks", "hello rc=0"),
            ("other", other.as_str()),
        ])]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_denied_domain_wins_over_an_allowed_one_and_there_is_no_dns_inside() {
    let port = origin("127.0.0.2", "hello");
    let calls = vec![
        // Names are resolved by the proxy, outside; inside there is no DNS.
        bash("dns", "getent hosts example.com >/dev/null; echo rc=$?"),
        bash(
            "denied",
            &format!("curl -s -m 5 -p http://127.0.0.2:{port}/; echo \" rc=$?\""),
        ),
    ];
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true, "network": {
            "allowedDomains": ["127.0.0.2"], "deniedDomains": ["127.0.0.2"],
        }},
    });
    let env = project(script(vec![calls]), settings).await;
    let (_, results) = run(&env, &[]).await;
    let got = trimmed(&results);
    assert_eq!(got[0]["dns"], "rc=2");
    let denied = got[0]["denied"];
    assert!(denied.starts_with(" rc=56"), "{denied}");
    assert!(
        denied.contains(&format!(
            "sandbox: network access to 127.0.0.2:{port} denied ("
        )),
        "{denied}"
    );
    assert!(denied.contains("deniedDomains"), "{denied}");
}

/// A destination no setting decides asks the SDK (`can_use_tool` for
/// `SandboxNetworkAccess`, naming host and port): allowed once, it connects;
/// asked again for the next connection and denied, it is refused.
#[tokio::test(flavor = "multi_thread")]
async fn a_new_destination_asks_the_sdk_and_its_answer_decides() {
    use crate::sdk_protocol::{Sdk, initialize};
    let port = origin("127.0.0.2", "hello");
    let fetch = format!("curl -s -m 10 -p http://127.0.0.2:{port}/; echo \" rc=$?\"");
    let calls = vec![vec![bash("first", &fetch)], vec![bash("second", &fetch)]];
    let settings = json!({"permissions": {"allow": ["Bash(*)"]}, "sandbox": {"enabled": true}});
    let env = project(script(calls), settings).await;
    let mut sdk = Sdk::start(&env, &["--permission-prompt-tool", "stdio"], &[]);
    sdk.request("init", initialize(serde_json::Value::Null))
        .await;
    sdk.response("init").await;
    sdk.user("fetch it twice", json!({})).await;
    let mut asked = Vec::new();
    for answer in [
        json!({"behavior": "allow", "updatedInput": {}}),
        json!({"behavior": "deny", "message": "no"}),
    ] {
        let request = sdk.tack_request().await;
        let r = &request["request"];
        asked.push((
            r["subtype"].clone(),
            r["tool_name"].clone(),
            r["input"].clone(),
        ));
        let id = request["request_id"].as_str().unwrap().to_owned();
        sdk.answer(&id, answer).await;
    }
    let result = sdk.result().await;
    assert_eq!(result["subtype"], json!("success"));
    let (code, _, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0), "{stderr}");
    let ask = (
        json!("can_use_tool"),
        json!("SandboxNetworkAccess"),
        json!({"host": "127.0.0.2", "port": port}),
    );
    assert_eq!(asked, vec![ask.clone(), ask]);
    let bodies = env.request_bodies();
    let texts: Vec<String> = (1..=2)
        .map(|i| {
            crate::sandbox::results(&bodies[i])
                .into_values()
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(texts[0].trim_end(), "hello rc=0");
    assert!(texts[1].starts_with(" rc=56"), "{}", texts[1]);
    assert!(
        texts[1].contains(&format!(
            "sandbox: network access to 127.0.0.2:{port} denied"
        )),
        "{}",
        texts[1]
    );
}

/// `python3 -c` fetching `url` with urllib (which honours the proxy
/// variables and `NO_PROXY`).
fn urllib(url: &str) -> String {
    format!(
        "python3 -c 'import urllib.request; print(urllib.request.urlopen(\"{url}\", timeout=5).read().decode())' 2>&1 | tail -1"
    )
}

/// A server on the host's own loopback (a dev server, a database's HTTP
/// port): `allowedDomains: ["127.0.0.1"]` lets the sandbox reach it through
/// the proxy by curl, urllib and SOCKS (it is not in `NO_PROXY` then, which
/// would lead to the namespace's own loopback); a port the settings leave
/// out is refused by the proxy, with its reason in the tool result.
#[tokio::test(flavor = "multi_thread")]
async fn an_allowed_loopback_server_on_the_host_is_reached_and_another_port_is_refused() {
    let port = origin("127.0.0.1", "host");
    let other = origin("127.0.0.1", "other");
    let url = format!("http://127.0.0.1:{port}/");
    let calls = vec![
        bash("curl", &format!("curl -s -m 5 {url}; echo \" rc=$?\"")),
        bash("urllib", &urllib(&url)),
        bash(
            "socks",
            &format!("curl -s -m 5 --socks5-hostname 127.0.0.1:1080 {url}; echo \" rc=$?\""),
        ),
    ];
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true, "network": {"allowedDomains": ["127.0.0.1"]}},
    });
    let env = project(script(vec![calls]), settings).await;
    let (_, results) = run(&env, &[]).await;
    assert_eq!(
        trimmed(&results),
        vec![BTreeMap::from([
            ("curl", "host rc=0"),
            ("urllib", "host"),
            ("socks", "host rc=0"),
        ])]
    );

    let calls = vec![
        bash("allowed", &format!("curl -s -m 5 {url}; echo \" rc=$?\"")),
        bash(
            "denied",
            &format!("curl -s -m 5 http://127.0.0.1:{other}/; echo \" rc=$?\""),
        ),
    ];
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true, "network": {"allowedDomains": [format!("127.0.0.1:{port}")]}},
    });
    let env = project(script(vec![calls]), settings).await;
    let (_, results) = run(&env, &[]).await;
    let why = "not in sandbox.network.allowedDomains, and not allowed";
    let denied = format!(
        "tack sandbox: connection to 127.0.0.1:{other} refused: {why}\n rc=0\n\n\
         sandbox: network access to 127.0.0.1:{other} denied ({why})"
    );
    assert_eq!(
        trimmed(&results),
        vec![BTreeMap::from([
            ("allowed", "host rc=0"),
            ("denied", denied.as_str()),
        ])]
    );
}

/// The proxy's sockets live under TMPDIR: a TMPDIR of 150 characters puts
/// their paths past `sun_path`'s 108 bytes, and the sandbox still has its
/// network (HTTP and SOCKS).
#[tokio::test(flavor = "multi_thread")]
async fn a_long_tmpdir_leaves_the_sandbox_its_network() {
    let port = origin("127.0.0.2", "hello");
    let base = tempfile::tempdir().unwrap();
    let pad = 150 - base.path().as_os_str().len() - 1;
    let tmpdir = base.path().join("t".repeat(pad));
    std::fs::create_dir(&tmpdir).unwrap();
    assert_eq!(tmpdir.as_os_str().len(), 150);
    let url = format!("http://127.0.0.2:{port}/");
    let calls = vec![
        bash("http", &format!("curl -s -m 5 {url}; echo \" rc=$?\"")),
        bash(
            "socks",
            &format!("curl -s -m 5 --proxy \"$ALL_PROXY\" {url}; echo \" rc=$?\""),
        ),
    ];
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true, "network": {"allowedDomains": ["127.0.0.2"]}},
    });
    let env = project(script(vec![calls]), settings).await;
    let mut cmd = env.tack();
    cmd.env("TMPDIR", &tmpdir);
    let (out, results) = run_command(&env, cmd);
    assert_eq!(
        trimmed(&results),
        vec![BTreeMap::from([
            ("http", "hello rc=0"),
            ("socks", "hello rc=0")
        ])]
    );
    assert!(!stderr(&out).contains("sandbox"), "{}", stderr(&out));
}
