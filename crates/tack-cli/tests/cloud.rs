//! `CLAUDE_CODE_USE_BEDROCK` and `CLAUDE_CODE_USE_VERTEX` end to end: the real
//! `tack` against the testkit's Bedrock (event-stream, SigV4 shape checked) and
//! Vertex routes and its OAuth token endpoint. The platform's environment is
//! given to the child only.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::common::{Env, lines, write};

const BEDROCK_PATH: &str =
    "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream";

fn bedrock(env: &Env) -> assert_cmd::Command {
    let mut cmd = env.tack();
    cmd.env("CLAUDE_CODE_USE_BEDROCK", "1")
        .env("ANTHROPIC_BEDROCK_BASE_URL", env.server.base_url())
        .env("AWS_REGION", "us-west-2")
        .env("AWS_ACCESS_KEY_ID", "AKIDTACKTEST")
        .env("AWS_SECRET_ACCESS_KEY", "secret");
    cmd
}

fn read_script() -> Vec<Reply> {
    vec![
        Reply::tool_use("toolu_1", "Read", json!({"file_path": "notes.txt"})),
        Reply::text("The notes say hello."),
    ]
}

/// The result record (the last line of stream-json, the only one of json).
fn result(records: &[Value]) -> &Value {
    records
        .last()
        .unwrap_or_else(|| panic!("no result: {records:?}"))
}

fn tool_result_text(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .last()
        .map_or_else(String::new, |m| m["content"][0]["content"].to_string())
}

/// `-p` with a Read round trip; the records and the requests the server saw.
fn run_read(env: &Env, mut cmd: assert_cmd::Command) -> Vec<Value> {
    write(env.cwd().join("notes.txt"), "hello from the notes\n");
    let out = cmd
        .args([
            "-p",
            "read notes.txt",
            // A model each platform's table names (its ids are the test's).
            "--model",
            "claude-sonnet-4-5",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .output()
        .unwrap();
    let records = lines(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = result(&records);
    assert_eq!(
        (&result["subtype"], &result["result"]),
        (&json!("success"), &json!("The notes say hello."))
    );
    records
}

#[tokio::test(flavor = "multi_thread")]
async fn bedrock_print_runs_a_tool_round_trip_signed() {
    let env = Env::new(Script::new(read_script())).await;
    let records = run_read(&env, bedrock(&env));
    let init = &records[0];
    assert_eq!(
        (&init["model"], &init["apiKeySource"]),
        (
            &json!("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            &json!("none")
        )
    );
    let requests = env.server.requests();
    let paths: Vec<_> = requests.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, [BEDROCK_PATH, BEDROCK_PATH]);
    for request in &requests {
        let auth = request.header("authorization").unwrap_or_default();
        assert!(
            auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDTACKTEST/")
                && auth.contains("/us-west-2/bedrock/aws4_request, "),
            "{auth}"
        );
        assert_eq!(request.header("x-api-key"), None);
        assert_eq!(request.body["anthropic_version"], "bedrock-2023-05-31");
        assert_eq!(
            (request.body.get("model"), request.body.get("stream")),
            (None, None)
        );
    }
    assert!(tool_result_text(&requests[1].body).contains("hello from the notes"));
}

#[tokio::test(flavor = "multi_thread")]
async fn bedrock_throttling_is_retried() {
    let env = Env::new(Script::new([Reply::rate_limited(0), Reply::text("ok")])).await;
    let out = bedrock(&env)
        .env("CLAUDE_CODE_MAX_RETRIES", "2")
        .args(["-p", "hi", "--output-format", "json"])
        .output()
        .unwrap();
    let records = lines(&out.stdout);
    assert_eq!(result(&records)["result"], "ok", "{records:?}");
    assert_eq!(env.server.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn bedrock_exception_frame_is_an_error_result() {
    let script = Script::new([Reply::message()
        .text("partial answer")
        .error_event_after(0, "api_error", "the model stream broke")
        .into()]);
    let env = Env::new(script).await;
    let out = bedrock(&env)
        .args(["-p", "hi", "--output-format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let records = lines(&out.stdout);
    let result = result(&records);
    assert_eq!(result["is_error"], true);
    assert!(
        result
            .to_string()
            .contains("internalServerException: the model stream broke"),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bedrock_input_too_long_compacts_reactively() {
    let script = Script::new([
        Reply::tool_use("toolu_1", "Read", json!({"file_path": "notes.txt"})),
        Reply::http_error(
            400,
            "invalid_request_error",
            "Input is too long for requested model.",
        ),
        Reply::text("<summary>The user wants the notes read.</summary>"),
        Reply::text("The notes say hello."),
    ]);
    let env = Env::new(script).await;
    run_read(&env, bedrock(&env));
    let bodies: Vec<_> = env.server.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies.len(), 4);
    assert!(
        bodies[3]
            .to_string()
            .contains("The user wants the notes read.")
    );
}

fn service_account(env: &Env, dir: &Path) -> std::path::PathBuf {
    let key = include_str!("../../tack-api/tests/fixtures/test-service-account-key.pem");
    let file = json!({
        "type": "service_account", "project_id": "proj-1", "private_key_id": "kid-1",
        "private_key": key, "client_email": "tack@proj-1.iam.gserviceaccount.com",
        "token_uri": format!("{}/token", env.server.base_url()),
    });
    write(dir.join("sa.json"), &file.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn vertex_print_runs_a_tool_round_trip_with_a_service_account() {
    let env = Env::new(Script::new(read_script())).await;
    let credentials = service_account(&env, env.home.path());
    let mut cmd = env.tack();
    cmd.env("CLAUDE_CODE_USE_VERTEX", "1")
        .env("ANTHROPIC_VERTEX_PROJECT_ID", "proj-1")
        .env("CLOUD_ML_REGION", "us-east5")
        .env(
            "ANTHROPIC_VERTEX_BASE_URL",
            format!("{}/v1", env.server.base_url()),
        )
        .env("GOOGLE_APPLICATION_CREDENTIALS", &credentials);
    let records = run_read(&env, cmd);
    assert_eq!(records[0]["model"], "claude-sonnet-4-5@20250929");
    let requests = env.server.requests();
    let model = "/v1/projects/proj-1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict";
    let seen: Vec<_> = requests
        .iter()
        .map(|r| (r.path.as_str(), r.header("authorization")))
        .collect();
    assert_eq!(
        seen,
        [
            ("/token", None),
            (model, Some("Bearer ya29.mock-1")),
            (model, Some("Bearer ya29.mock-1")),
        ]
    );
    assert_eq!(
        requests[0].body["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(requests[1].body["anthropic_version"], "vertex-2023-10-16");
    assert!(tool_result_text(&requests[2].body).contains("hello from the notes"));
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_shows_the_platform_and_where_credentials_come_from() {
    let env = Env::new(Script::new([])).await;
    let out = bedrock(&env).arg("doctor").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let expected = format!(
        "platform: Amazon Bedrock, region us-west-2 ({})\ncredentials: environment (AWS_ACCESS_KEY_ID)\nmodel: ",
        env.server.base_url()
    );
    assert!(stdout.contains(&expected), "{stdout}");
    assert!(!stdout.contains("secret"), "{stdout}");
    let out = env
        .tack()
        .env("CLAUDE_CODE_USE_VERTEX", "1")
        .arg("doctor")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        stdout.contains(
            "platform: CLAUDE_CODE_USE_VERTEX is set but ANTHROPIC_VERTEX_PROJECT_ID is not\n"
        ),
        "{stdout}"
    );
}

/// The SDK's `initialize` answer names the platform as Claude Code does
/// (`apiProvider: "bedrock"`), with no API key source.
#[tokio::test(flavor = "multi_thread")]
async fn the_sdk_initialize_answer_names_bedrock() {
    let env = Env::new(Script::new([])).await;
    let init = json!({"type": "control_request", "request_id": "i1",
                      "request": {"subtype": "initialize"}});
    let out = bedrock(&env)
        .args([
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ])
        .arg("--verbose")
        .write_stdin(format!("{init}\n"))
        .output()
        .unwrap();
    let answer = lines(&out.stdout)
        .into_iter()
        .find(|r| r["type"] == "control_response")
        .unwrap_or_else(|| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        answer["response"]["response"]["account"],
        json!({"apiKeySource": "none", "apiProvider": "bedrock"})
    );
}
