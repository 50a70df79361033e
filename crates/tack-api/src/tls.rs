//! TLS for the model client: the system's root certificates are read when the
//! first handshake needs them, not when the client is built.
//!
//! Reading them (every file in `/etc/ssl/certs` on Debian: ~440 opens and a
//! few milliseconds of parsing) was the largest single cost before the first
//! request, and a plain-`http://` endpoint (a local model, a gateway on
//! loopback, the test server) never needs them at all. For an `https://`
//! endpoint [`client_config`] starts the read on a thread of its own, so it
//! overlaps the rest of start-up and the TCP connect. The roots are read once
//! per process and shared by every client (model, sub-agents, WebFetch).
//!
//! Verification itself is rustls' WebPKI verifier with those roots, as
//! reqwest's platform verifier does on Linux; `SSL_CERT_FILE` and
//! `SSL_CERT_DIR` are honoured (rustls-native-certs).

use std::fmt;
use std::sync::{Arc, OnceLock};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};

/// Reads the roots a verifier trusts.
pub type RootsLoader = fn() -> Result<Arc<RootCertStore>, String>;

/// The process's system roots, read once by whoever asks first.
static SYSTEM_ROOTS: OnceLock<Result<Arc<RootCertStore>, String>> = OnceLock::new();

/// The system's root certificates (read on the first call, shared after).
pub fn system_roots() -> Result<Arc<RootCertStore>, String> {
    SYSTEM_ROOTS.get_or_init(read_system_roots).clone()
}

fn read_system_roots() -> Result<Arc<RootCertStore>, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut store = RootCertStore::empty();
    store.add_parsable_certificates(found.certs);
    if store.is_empty() {
        let why: Vec<String> = found.errors.iter().map(ToString::to_string).collect();
        return Err(format!(
            "no root certificates could be read from this system{}",
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({})", why.join("; "))
            }
        ));
    }
    Ok(Arc::new(store))
}

/// Starts reading the system roots on a thread of its own (for a client that
/// will make an `https://` request soon). Returns at once.
pub fn warm_system_roots() {
    if SYSTEM_ROOTS.get().is_none() {
        // If the thread cannot start, the first handshake reads them itself.
        let _ = std::thread::Builder::new()
            .name("tack-tls-roots".into())
            .spawn(|| drop(system_roots()));
    }
}

/// A rustls client configuration (TLS 1.2 and 1.3, ALPN h2 then http/1.1)
/// whose verifier reads the system roots on first use; `warm` starts reading
/// them now, in the background.
pub fn client_config(warm: bool) -> Result<rustls::ClientConfig, rustls::Error> {
    if warm {
        warm_system_roots();
    }
    client_config_with(system_roots)
}

/// [`client_config`] trusting the roots `load` gives (called on first use).
pub fn client_config_with(load: RootsLoader) -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = LazyRootsVerifier::new(provider.clone(), load);
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// WebPKI verification against roots read on the first certificate check.
/// The signature checks and the offered schemes need only the provider, so a
/// handshake starts without the roots.
pub struct LazyRootsVerifier {
    provider: Arc<CryptoProvider>,
    load: RootsLoader,
    inner: OnceLock<Result<Arc<WebPkiServerVerifier>, rustls::Error>>,
}

impl LazyRootsVerifier {
    pub fn new(provider: Arc<CryptoProvider>, load: RootsLoader) -> Self {
        LazyRootsVerifier {
            provider,
            load,
            inner: OnceLock::new(),
        }
    }

    fn verifier(&self) -> Result<&Arc<WebPkiServerVerifier>, rustls::Error> {
        self.inner
            .get_or_init(|| {
                let roots = (self.load)().map_err(rustls::Error::General)?;
                WebPkiServerVerifier::builder_with_provider(roots, self.provider.clone())
                    .build()
                    .map_err(|e| rustls::Error::General(e.to_string()))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl fmt::Debug for LazyRootsVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LazyRootsVerifier")
            .field("loaded", &self.inner.get().is_some())
            .finish_non_exhaustive()
    }
}

impl ServerCertVerifier for LazyRootsVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verifier()?.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static LOADS: AtomicUsize = AtomicUsize::new(0);

    fn counted_empty_roots() -> Result<Arc<RootCertStore>, String> {
        LOADS.fetch_add(1, Ordering::SeqCst);
        Err("no roots in this test".to_owned())
    }

    #[test]
    fn roots_are_read_on_the_first_certificate_check_only_and_once() {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = LazyRootsVerifier::new(provider, counted_empty_roots);
        assert!(!verifier.supported_verify_schemes().is_empty());
        assert_eq!(LOADS.load(Ordering::SeqCst), 0);
        let name = ServerName::try_from("example.com").unwrap();
        let cert = CertificateDer::from(vec![0u8; 8]);
        for _ in 0..2 {
            let error = verifier
                .verify_server_cert(&cert, &[], &name, &[], UnixTime::now())
                .unwrap_err();
            assert_eq!(
                error,
                rustls::Error::General("no roots in this test".into())
            );
        }
        assert_eq!(LOADS.load(Ordering::SeqCst), 1);
    }
}
