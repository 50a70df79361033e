use std::collections::HashMap;

use pretty_assertions::assert_eq;

use super::*;

fn env(vars: &[(&str, &str)]) -> Env {
    Env(vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect::<HashMap<_, _>>())
}

fn keys(id: &str, secret: &str, token: Option<&str>) -> AwsAuth {
    AwsAuth::SigV4(AwsCredentials {
        access_key_id: id.into(),
        secret_access_key: secret.into(),
        session_token: token.map(str::to_owned),
    })
}

#[test]
fn nothing_selected_is_the_anthropic_api() {
    assert_eq!(
        cloud_platform(&env(&[("CLAUDE_CODE_USE_BEDROCK", "0")])),
        Ok(None)
    );
}

#[test]
fn bedrock_from_environment_keys() {
    let got = cloud_platform(&env(&[
        ("CLAUDE_CODE_USE_BEDROCK", "1"),
        ("AWS_REGION", "eu-central-1"),
        ("AWS_DEFAULT_REGION", "us-west-2"),
        ("AWS_ACCESS_KEY_ID", "AKID"),
        ("AWS_SECRET_ACCESS_KEY", "SECRET"),
        ("AWS_SESSION_TOKEN", "TOKEN"),
        ("ANTHROPIC_BEDROCK_BASE_URL", "http://127.0.0.1:9"),
    ]));
    let expected = CloudPlatform {
        platform: Platform::Bedrock(BedrockConfig {
            region: "eu-central-1".into(),
            base_url: Some("http://127.0.0.1:9".into()),
            auth: keys("AKID", "SECRET", Some("TOKEN")),
        }),
        credentials: "environment (AWS_ACCESS_KEY_ID)".into(),
    };
    assert_eq!(got, Ok(Some(expected)));
}

#[test]
fn bedrock_profile_keys_and_region_from_the_aws_files() {
    let home = tempfile::tempdir().unwrap();
    let aws = home.path().join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    std::fs::write(
        aws.join("credentials"),
        "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n\n# work\n[work]\naws_access_key_id=W\naws_secret_access_key = WS\n",
    )
    .unwrap();
    std::fs::write(
        aws.join("config"),
        "[default]\nregion = us-west-2\n[profile work]\nregion = ap-southeast-2\n",
    )
    .unwrap();
    let home_dir = home.path().to_string_lossy().into_owned();
    let got = cloud_platform(&env(&[
        ("CLAUDE_CODE_USE_BEDROCK", "true"),
        ("HOME", &home_dir),
        ("AWS_PROFILE", "work"),
    ]));
    let expected = CloudPlatform {
        platform: Platform::Bedrock(BedrockConfig {
            region: "ap-southeast-2".into(),
            base_url: None,
            auth: keys("W", "WS", None),
        }),
        credentials: format!("AWS profile `work` ({})", aws.join("credentials").display()),
    };
    assert_eq!(got, Ok(Some(expected)));
    // No profile: `default`; a Bedrock API key wins over the files.
    let got = cloud_platform(&env(&[
        ("CLAUDE_CODE_USE_BEDROCK", "1"),
        ("HOME", &home_dir),
        ("AWS_BEARER_TOKEN_BEDROCK", "ABSK"),
    ]));
    let expected = CloudPlatform {
        platform: Platform::Bedrock(BedrockConfig {
            region: "us-west-2".into(),
            base_url: None,
            auth: AwsAuth::Bearer("ABSK".into()),
        }),
        credentials: "Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)".into(),
    };
    assert_eq!(got, Ok(Some(expected)));
}

#[test]
fn bedrock_without_credentials_says_what_to_set() {
    let got = cloud_platform(&env(&[
        ("CLAUDE_CODE_USE_BEDROCK", "1"),
        ("HOME", "/nonexistent"),
    ]));
    let Err(CloudError(message)) = got else {
        panic!("{got:?}");
    };
    assert!(
        message.contains("AWS_ACCESS_KEY_ID") && message.contains("profile `default`"),
        "{message}"
    );
    let skip = cloud_platform(&env(&[
        ("CLAUDE_CODE_USE_BEDROCK", "1"),
        ("CLAUDE_CODE_SKIP_BEDROCK_AUTH", "1"),
        ("HOME", "/nonexistent"),
    ]));
    assert_eq!(
        skip,
        Ok(Some(CloudPlatform {
            platform: Platform::Bedrock(BedrockConfig {
                region: "us-east-1".into(),
                base_url: None,
                auth: AwsAuth::None,
            }),
            credentials: "none (CLAUDE_CODE_SKIP_BEDROCK_AUTH)".into(),
        }))
    );
}

#[test]
fn vertex_from_application_default_credentials() {
    let home = tempfile::tempdir().unwrap();
    let gcloud = home.path().join(".config/gcloud");
    std::fs::create_dir_all(&gcloud).unwrap();
    let adc = gcloud.join("application_default_credentials.json");
    std::fs::write(
        &adc,
        r#"{"type": "authorized_user", "client_id": "c", "client_secret": "s", "refresh_token": "r"}"#,
    )
    .unwrap();
    let home_dir = home.path().to_string_lossy().into_owned();
    let got = cloud_platform(&env(&[
        ("CLAUDE_CODE_USE_VERTEX", "1"),
        ("HOME", &home_dir),
        ("ANTHROPIC_VERTEX_PROJECT_ID", "p"),
        ("CLOUD_ML_REGION", "global"),
        ("VERTEX_REGION_CLAUDE_4_5_SONNET", "us-east5"),
    ]));
    let expected = CloudPlatform {
        platform: Platform::Vertex(VertexConfig {
            project_id: "p".into(),
            region: "global".into(),
            base_url: None,
            model_regions: vec![("claude-sonnet-4-5".into(), "us-east5".into())],
            auth: GoogleAuth::AuthorizedUser {
                client_id: "c".into(),
                client_secret: "s".into(),
                refresh_token: "r".into(),
                token_uri: "https://oauth2.googleapis.com/token".into(),
            },
        }),
        credentials: format!("user credentials ({})", adc.display()),
    };
    assert_eq!(got, Ok(Some(expected)));
    let missing = cloud_platform(&env(&[
        ("CLAUDE_CODE_USE_VERTEX", "1"),
        ("HOME", &home_dir),
    ]));
    assert_eq!(
        missing,
        Err(CloudError(
            "CLAUDE_CODE_USE_VERTEX is set but ANTHROPIC_VERTEX_PROJECT_ID is not".into()
        ))
    );
}

#[test]
fn the_session_model_is_the_platform_id() {
    let bedrock = env(&[
        ("CLAUDE_CODE_USE_BEDROCK", "1"),
        ("AWS_REGION", "eu-west-3"),
    ]);
    assert_eq!(
        platform_model(&bedrock, "claude-sonnet-4-5".into()),
        "eu.anthropic.claude-sonnet-4-5-20250929-v1:0"
    );
    let vertex = env(&[("CLAUDE_CODE_USE_VERTEX", "1")]);
    assert_eq!(
        platform_model(&vertex, "claude-opus-4-1".into()),
        "claude-opus-4-1@20250805"
    );
    assert_eq!(
        platform_model(&env(&[]), "claude-opus-4-1".into()),
        "claude-opus-4-1"
    );
}
