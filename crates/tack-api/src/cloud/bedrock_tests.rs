use std::collections::VecDeque;
use std::time::{Duration, UNIX_EPOCH};

use pretty_assertions::assert_eq;
use ring::{digest, hmac};
use serde_json::json;

use super::*;
use crate::cloud::event_stream::encode;
use crate::{StreamDecoder, StreamEvent};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hmac_sha256(key: &[u8], data: &str) -> Vec<u8> {
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    hmac::sign(&key, data.as_bytes()).as_ref().to_vec()
}

/// The SigV4 algorithm written out (AWS's "Create a signed AWS API request"
/// steps), independent of the crate under test.
fn expected_authorization(
    canonical_uri: &str,
    host: &str,
    signed: &[(&str, &str)],
    body: &[u8],
) -> String {
    let (date, time) = ("20150830", "20150830T123600Z");
    let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    let mut headers: Vec<(String, String)> = signed
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    headers.push(("host".into(), host.into()));
    headers.push(("x-amz-date".into(), time.into()));
    headers.sort();
    let canonical_headers: String = headers.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
    let signed_headers = headers
        .iter()
        .map(|(k, _)| k.as_str())
        .collect::<Vec<_>>()
        .join(";");
    let canonical_request = format!(
        "POST\n{canonical_uri}\n\n{canonical_headers}\n{signed_headers}\n{}",
        hex(digest::digest(&digest::SHA256, body).as_ref())
    );
    let scope = format!("{date}/us-east-1/bedrock/aws4_request");
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{time}\n{scope}\n{}",
        hex(digest::digest(&digest::SHA256, canonical_request.as_bytes()).as_ref())
    );
    let mut key = hmac_sha256(format!("AWS4{secret}").as_bytes(), date);
    for part in ["us-east-1", "bedrock", "aws4_request"] {
        key = hmac_sha256(&key, part);
    }
    let signature = hex(&hmac_sha256(&key, &string_to_sign));
    format!(
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/{scope}, SignedHeaders={signed_headers}, Signature={signature}"
    )
}

fn credentials(session_token: Option<&str>) -> AwsCredentials {
    AwsCredentials {
        access_key_id: "AKIDEXAMPLE".into(),
        secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
        session_token: session_token.map(str::to_owned),
    }
}

fn at_vector_time() -> std::time::SystemTime {
    // 2015-08-30T12:36:00Z, the time of AWS's published SigV4 test suite.
    UNIX_EPOCH + Duration::from_secs(1_440_938_160)
}

#[test]
fn sigv4_matches_the_algorithm_for_an_inference_profile_and_an_arn() {
    let host = "bedrock-runtime.us-east-1.amazonaws.com";
    let config = BedrockConfig {
        region: "us-east-1".into(),
        base_url: None,
        auth: AwsAuth::None,
    };
    let body = br#"{"max_tokens":10}"#;
    let headers = [("content-type", "application/json")];
    let cases = [
        (
            "claude-sonnet-4-5",
            "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream",
            // Every segment encoded again for the canonical request (all services but S3).
            "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
        ),
        (
            "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2",
            "/model/arn:aws:bedrock:us-east-1:123456789012:application-inference-profile%2Fa1b2/invoke-with-response-stream",
            "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%252Fa1b2/invoke-with-response-stream",
        ),
    ];
    for (model, path, canonical_uri) in cases {
        let url = config.stream_url(model);
        assert_eq!(url, format!("https://{host}{path}"));
        let got = sign(
            &credentials(None),
            "us-east-1",
            &url,
            &headers,
            body,
            at_vector_time(),
        )
        .unwrap();
        assert_eq!(
            got,
            vec![
                ("x-amz-date", "20150830T123600Z".to_owned()),
                (
                    "authorization",
                    expected_authorization(canonical_uri, host, &headers, body)
                ),
            ]
        );
    }
}

#[test]
fn a_session_token_is_signed_and_sent() {
    let url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/invoke-with-response-stream";
    let headers = [("content-type", "application/json")];
    let got = sign(
        &credentials(Some("TOKEN")),
        "us-east-1",
        url,
        &headers,
        b"{}",
        at_vector_time(),
    )
    .unwrap();
    let names: Vec<_> = got.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        ["x-amz-date", "authorization", "x-amz-security-token"]
    );
    assert_eq!(got[2].1, "TOKEN");
    assert!(
        got[1]
            .1
            .contains("SignedHeaders=content-type;host;x-amz-date;x-amz-security-token,"),
        "{}",
        got[1].1
    );
}

#[test]
fn model_ids_as_claude_code_maps_them() {
    let cases = [
        (
            "claude-sonnet-4-5",
            "us-east-1",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        ),
        (
            "claude-sonnet-4-5-20250929",
            "us-west-2",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        ),
        (
            "claude-haiku-4-5",
            "eu-west-1",
            "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
        ),
        (
            "claude-opus-4-1",
            "ap-northeast-1",
            "apac.anthropic.claude-opus-4-1-20250805-v1:0",
        ),
        (
            "claude-opus-4-0",
            "us-east-1",
            "us.anthropic.claude-opus-4-20250514-v1:0",
        ),
        (
            "claude-opus-4-6",
            "us-east-1",
            "us.anthropic.claude-opus-4-6-v1",
        ),
        (
            "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "eu-west-1",
            "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
        ),
        (
            "arn:aws:bedrock:us-east-1:1:inference-profile/x",
            "us-east-1",
            "arn:aws:bedrock:us-east-1:1:inference-profile/x",
        ),
    ];
    for (model, region, expected) in cases {
        assert_eq!(
            bedrock_model_id(model, region),
            expected,
            "{model} in {region}"
        );
    }
}

#[test]
fn the_body_drops_model_and_stream_and_carries_version_and_betas() {
    let Value::Object(map) = json!({"model": "m", "stream": true, "max_tokens": 5, "messages": []})
    else {
        unreachable!()
    };
    assert_eq!(
        Value::Object(body(map.clone(), &["b1".into(), "b2".into()])),
        json!({"max_tokens": 5, "messages": [], "anthropic_version": "bedrock-2023-05-31",
               "anthropic_beta": ["b1", "b2"]})
    );
    assert_eq!(
        Value::Object(body(map, &[])),
        json!({"max_tokens": 5, "messages": [], "anthropic_version": "bedrock-2023-05-31"})
    );
}

fn recorded_events() -> Vec<Value> {
    vec![
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 12, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Héllo \"x\""}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"file_path\": "}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"/a\"}"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 9}}),
        json!({"type": "message_stop", "amazon-bedrock-invocationMetrics": {"inputTokenCount": 12}}),
    ]
}

fn event_stream_bytes(events: &[Value]) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD;
    events
        .iter()
        .flat_map(|e| {
            let payload = json!({"bytes": b64.encode(e.to_string()), "p": "abcd"}).to_string();
            encode(
                &[
                    (":event-type", "chunk"),
                    (":content-type", "application/json"),
                    (":message-type", "event"),
                ],
                payload.as_bytes(),
            )
        })
        .collect()
}

fn decode_all(mut decoder: StreamDecoder, parts: &[&[u8]]) -> Result<Vec<StreamEvent>, ApiError> {
    let mut out = VecDeque::new();
    for part in parts {
        decoder.feed(part, &mut out)?;
    }
    decoder.finish(&mut out)?;
    Ok(out.into())
}

#[test]
fn event_stream_split_at_every_byte_decodes_as_the_sse_stream_does() {
    let events = recorded_events();
    let sse: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
        .collect();
    let expected = decode_all(StreamDecoder::new(), &[sse.as_bytes()]).unwrap();
    assert!(matches!(expected.last(), Some(StreamEvent::MessageDone(_))));
    let bytes = event_stream_bytes(&events);
    for cut in 0..=bytes.len() {
        let (a, b) = bytes.split_at(cut);
        let got = decode_all(StreamDecoder::event_stream(), &[a, b]).unwrap();
        assert_eq!(got, expected, "cut at {cut}");
    }
}

#[test]
fn an_exception_frame_is_the_matching_error() {
    let mut bytes = event_stream_bytes(&recorded_events()[..2]);
    bytes.extend(encode(
        &[
            (":exception-type", "throttlingException"),
            (":message-type", "exception"),
        ],
        br#"{"message":"Too many requests, please wait before trying again."}"#,
    ));
    let got = decode_all(StreamDecoder::event_stream(), &[&bytes]);
    assert_eq!(
        got,
        Err(ApiError::RateLimited {
            retry_after: Some(Duration::ZERO),
            message: "throttlingException: Too many requests, please wait before trying again."
                .into()
        })
    );
    let too_long = encode(
        &[
            (":exception-type", "validationException"),
            (":message-type", "exception"),
        ],
        br#"{"message":"Input is too long for requested model."}"#,
    );
    assert_eq!(
        decode_all(StreamDecoder::event_stream(), &[&too_long]),
        Err(ApiError::PromptTooLong {
            actual: None,
            limit: None,
            message: "validationException: Input is too long for requested model.".into()
        })
    );
}

proptest::proptest! {
    /// Any chunking of the body (several cuts, empty chunks) decodes the same.
    #[test]
    fn event_stream_in_any_chunks_decodes_the_same(
        sizes in proptest::collection::vec(0usize..64, 1..40)
    ) {
        let bytes = event_stream_bytes(&recorded_events());
        let expected = decode_all(StreamDecoder::event_stream(), &[&bytes]).unwrap();
        let mut parts = Vec::new();
        let mut rest: &[u8] = &bytes;
        for size in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            // A zero is an empty chunk, then one byte: every step advances
            // (all-zero sizes once looped forever).
            if *size == 0 {
                parts.push(&rest[..0]);
            }
            let (part, tail) = rest.split_at((*size).clamp(1, rest.len()));
            parts.push(part);
            rest = tail;
        }
        proptest::prop_assert_eq!(decode_all(StreamDecoder::event_stream(), &parts).unwrap(), expected);
    }
}
