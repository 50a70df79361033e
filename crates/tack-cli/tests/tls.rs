//! The model client over real TLS: a TLS front (rustls, a certificate signed by
//! a throwaway CA) forwards to the scripted server. tack must trust the CA only
//! when the system's roots include it (`SSL_CERT_FILE` here), read them when the
//! first handshake needs them, and fail with a readable error otherwise.

use crate::common::Env;

use tack_testkit::{Reply, Script};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// A CA, and a TLS listener on 127.0.0.1 serving `localhost` with a leaf
/// certificate it signed, forwarding every connection to `upstream`.
struct TlsFront {
    ca_pem: String,
    port: u16,
}

async fn tls_front(upstream: String) -> TlsFront {
    let ca = tack_testkit::tls::throwaway_ca(&["localhost"]);
    let acceptor = TlsAcceptor::from(ca.server.clone());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tcp.set_nodelay(true).unwrap();
            let (acceptor, upstream) = (acceptor.clone(), upstream.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut plain = tokio::net::TcpStream::connect(&upstream).await.unwrap();
                plain.set_nodelay(true).unwrap();
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    TlsFront {
        ca_pem: ca.ca_pem,
        port,
    }
}

fn upstream(env: &Env) -> String {
    env.server
        .base_url()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn https_endpoint_trusted_through_the_system_roots() {
    let env = Env::new(Script::new([Reply::text("over tls")])).await;
    let front = tls_front(upstream(&env)).await;
    let ca_file = env.home.path().join("ca.pem");
    std::fs::write(&ca_file, &front.ca_pem).unwrap();
    let out = env
        .tack()
        .env(
            "ANTHROPIC_BASE_URL",
            format!("https://localhost:{}", front.port),
        )
        .env("SSL_CERT_FILE", &ca_file)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert_eq!(
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.success()
        ),
        ("over tls\n".to_owned(), true),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(env.request_bodies().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn https_endpoint_with_an_unknown_issuer_fails_readably() {
    let env = Env::new(Script::new([Reply::text("never")])).await;
    let front = tls_front(upstream(&env)).await;
    let out = env
        .tack()
        .env(
            "ANTHROPIC_BASE_URL",
            format!("https://localhost:{}", front.port),
        )
        .args(["-p", "hi"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("UnknownIssuer") || stderr.contains("unknown issuer"),
        "{stderr}"
    );
    assert_eq!(env.request_bodies().len(), 0);
}
