//! A throwaway certificate authority for tests that need a TLS server: a
//! CA made per call and a server configuration for the names given, with a
//! leaf certificate it signed (ring, as the product uses).
#![allow(
    clippy::unwrap_used,
    reason = "a fixture built only with a tests-only feature: its panic is the failing test's"
)]

use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A CA (its PEM for `SSL_CERT_FILE`, its DER for a root store) and a
/// server configuration it vouches for.
pub struct ThrowawayCa {
    pub ca_pem: String,
    pub ca_der: CertificateDer<'static>,
    pub server: Arc<rustls::ServerConfig>,
}

/// A fresh CA and a server configuration for `names` (`localhost`).
pub fn throwaway_ca(names: &[&str]) -> ThrowawayCa {
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let leaf = rcgen::CertificateParams::new(names)
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(leaf.der().to_vec())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
        )
        .unwrap();
    ThrowawayCa {
        ca_pem: ca.pem(),
        ca_der: CertificateDer::from(ca.der().to_vec()),
        server: Arc::new(server),
    }
}

/// A client configuration trusting only `ca`.
pub fn client_trusting(ca: &ThrowawayCa) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.ca_der.clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(client)
}
