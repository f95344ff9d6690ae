//! How a PostgreSQL connection is made: with TLS or without, as the URL's `sslmode` says, with
//! libpq's meanings, so that a URL that works with `psql` works here:
//!
//! | `sslmode` | TLS | the server's certificate |
//! |---|---|---|
//! | `disable` | never | |
//! | `allow`, `prefer` (the default) | if the server offers it | not checked |
//! | `require` | always | not checked, unless `sslrootcert` is given: then as `verify-ca` |
//! | `verify-ca` | always | signed by a trusted root |
//! | `verify-full` | always | signed by a trusted root, and for the URL's host |
//!
//! The trusted roots are the PEM file `sslrootcert` names, or the system's store when it is
//! `system` or missing (libpq would read `~/.postgresql/root.crt`). Both parameters are taken
//! out of the URL before the rest is read by `postgres::Config`, which knows neither
//! `verify-*` nor `sslrootcert`.

use std::sync::Arc;

use postgres::config::SslMode;
use postgres::{Client, Config, NoTls};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::store::{StoreError, StoreResult};

/// A database to connect to: the connection settings and the TLS the URL asked for.
#[derive(Clone)]
pub(in crate::store) struct Target {
    pub(in crate::store) config: Config,
    tls: Option<MakeRustlsConnect>,
}

impl Target {
    pub(in crate::store) fn parse(url: &str) -> StoreResult<Target> {
        let bad = |why: String| StoreError::Failed(format!("bad PostgreSQL URL: {why}"));
        let (rest, query) = url.split_once('?').unwrap_or((url, ""));
        let mut mode = "prefer".to_string();
        let mut root: Option<String> = None;
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("sslmode", v)) => mode = v.to_string(),
                Some(("sslrootcert", v)) => root = Some(percent_decode(v)),
                _ => kept.push(pair),
            }
        }
        let url = if kept.is_empty() {
            rest.to_string()
        } else {
            format!("{rest}?{}", kept.join("&"))
        };
        let mut config = url.parse::<Config>().map_err(|e| bad(e.to_string()))?;
        let verify = match (mode.as_str(), &root) {
            ("disable", _) => {
                config.ssl_mode(SslMode::Disable);
                return Ok(Target { config, tls: None });
            }
            ("allow" | "prefer", _) => {
                config.ssl_mode(SslMode::Prefer);
                Verify::Nothing
            }
            ("require", None) => {
                config.ssl_mode(SslMode::Require);
                Verify::Nothing
            }
            ("require" | "verify-ca", _) => {
                config.ssl_mode(SslMode::Require);
                Verify::Chain
            }
            ("verify-full", _) => {
                config.ssl_mode(SslMode::Require);
                Verify::Full
            }
            (other, _) => {
                return Err(bad(format!(
                    "sslmode {other:?} is none of disable, allow, prefer, require, verify-ca, verify-full"
                )))
            }
        };
        let tls = client_config(verify, root.as_deref()).map_err(|e| bad(e.to_string()))?;
        Ok(Target {
            config,
            tls: Some(MakeRustlsConnect::new(tls)),
        })
    }

    /// Connects (blocking: not on an async runtime's thread). The error says why, down to
    /// its causes: "error performing TLS handshake" alone does not tell a wrong certificate
    /// from a wrong port.
    pub(in crate::store) fn connect(&self) -> StoreResult<Client> {
        let made = match &self.tls {
            Some(tls) => self.config.connect(tls.clone()),
            None => self.config.connect(NoTls),
        };
        made.map_err(|e| {
            let mut why = format!("cannot connect to PostgreSQL: {e}");
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                why.push_str(&format!(": {c}"));
                cause = c.source();
            }
            super::errors::classify(&e, why)
        })
    }
}

/// How much of the server's certificate is checked.
#[derive(Clone, Copy)]
enum Verify {
    Nothing,
    Chain,
    Full,
}

/// Why the TLS set-up a URL asks for cannot be made.
#[derive(Debug, thiserror::Error)]
enum TlsError {
    /// The TLS library offers no protocol version it trusts.
    #[error("{0}")]
    Protocols(rustls::Error),
    #[error("cannot check certificates: {0}")]
    Verifier(rustls::client::VerifierBuilderError),
    /// The `sslrootcert` file cannot be read, or holds something that is no certificate.
    #[error("sslrootcert {path}: {why}")]
    RootCert { path: String, why: String },
    #[error("sslrootcert {0} holds no certificate")]
    NoRootCert(String),
    #[error("the system has no trusted certificates: give sslrootcert=FILE")]
    NoSystemRoots,
}

fn client_config(verify: Verify, root: Option<&str>) -> Result<ClientConfig, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(TlsError::Protocols)?;
    let verifier: Arc<dyn ServerCertVerifier> = match verify {
        Verify::Nothing => Arc::new(NameUnchecked {
            chain: None,
            provider,
        }),
        Verify::Chain | Verify::Full => {
            let roots = Arc::new(roots(root)?);
            let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
                .build()
                .map_err(TlsError::Verifier)?;
            match verify {
                Verify::Full => webpki,
                _ => Arc::new(NameUnchecked {
                    chain: Some(webpki),
                    provider,
                }),
            }
        }
    };
    Ok(builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth())
}

/// The trusted roots: a PEM file, or the system's store (`system` or nothing).
fn roots(root: Option<&str>) -> Result<RootCertStore, TlsError> {
    let mut store = RootCertStore::empty();
    match root {
        Some(path) if path != "system" => {
            let bad = |why: &dyn std::fmt::Display| TlsError::RootCert {
                path: path.to_string(),
                why: why.to_string(),
            };
            for cert in CertificateDer::pem_file_iter(path).map_err(|e| bad(&e))? {
                store.add(cert.map_err(|e| bad(&e))?).map_err(|e| bad(&e))?;
            }
            if store.is_empty() {
                return Err(TlsError::NoRootCert(path.to_string()));
            }
        }
        _ => {
            let found = rustls_native_certs::load_native_certs();
            let (added, _) = store.add_parsable_certificates(found.certs);
            if added == 0 {
                return Err(TlsError::NoSystemRoots);
            }
        }
    }
    Ok(store)
}

/// `%2F` and the like in a URL's parameter.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `require` and `prefer` without roots, and `verify-ca`: no host name is checked. Without
/// `chain` whoever answers is believed (libpq's meaning: the link is encrypted against
/// eavesdroppers); with it the certificate must be signed by a trusted root. Either way the
/// handshake's signatures are checked, so the session is the one the certificate's key holder
/// made.
#[derive(Debug)]
struct NameUnchecked {
    /// The trusted roots' verifier (`verify-ca`), or none (`require`, `prefer`).
    chain: Option<Arc<WebPkiServerVerifier>>,
    /// The provider the chain's verifier was built with: its signature algorithms.
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for NameUnchecked {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        // The name is checked last, once the chain is good.
        match chain.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    // The signatures as `WebPkiServerVerifier` checks them, with the same provider's algorithms.
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
