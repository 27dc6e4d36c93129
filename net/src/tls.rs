//! TLS for the QUIC connection (DESIGN section 5): rustls with the ring
//! provider only, TLS 1.3 only, ALPN [`ALPN`].
//!
//! The server makes a self-signed certificate on first start and keeps it in
//! the data directory; its SHA-256 fingerprint is what players pin. A client
//! trusts a server either by that pinned fingerprint ([`PinnedCertVerifier`],
//! which still checks the handshake signature) or through ordinary WebPKI
//! validation against CA certificates the user supplies.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use ring::digest;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};
use thiserror::Error;

use crate::durable_file::{self, FileError};

/// The one application protocol spoken: `hexveil/1`.
pub const ALPN: &[u8] = b"hexveil/1";

/// Names always put in a generated certificate.
pub const DEFAULT_CERT_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// File (inside the data directory) holding the certificate, DER.
pub const CERT_FILE: &str = "tls-cert.der";

/// File (inside the data directory) holding the private key, PKCS#8 DER.
pub const KEY_FILE: &str = "tls-key.pk8";

/// The ring crypto provider, the only one hexveil uses.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Why TLS setup failed.
#[derive(Debug, Error)]
pub enum TlsError {
    /// A file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// The certificate file exists but the key file does not.
    #[error("certificate {cert} exists but its key {key} is missing; refusing to make a new identity (clients pin the old one)")]
    KeyMissing {
        /// The certificate path.
        cert: PathBuf,
        /// The missing key path.
        key: PathBuf,
    },
    /// rcgen could not make a certificate.
    #[error("could not generate the self-signed certificate: {0}")]
    Generate(#[from] rcgen::Error),
    /// rustls refused the configuration (e.g. key does not match cert).
    #[error("TLS configuration rejected: {0}")]
    Rustls(#[from] rustls::Error),
    /// A CA file holds no usable certificate.
    #[error("CA file {path} holds no PEM or DER certificate: {detail}")]
    BadCaFile {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        detail: String,
    },
    /// A fingerprint string is not 64 hex digits.
    #[error("fingerprint must be 64 hex digits (colons allowed), got {0:?}")]
    BadFingerprint(String),
}

/// SHA-256 of a DER certificate: what a client pins.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {
    /// The fingerprint of a DER certificate.
    pub fn of(cert_der: &[u8]) -> Self {
        let d = digest::digest(&digest::SHA256, cert_der);
        let mut out = [0u8; 32];
        out.copy_from_slice(d.as_ref());
        Fingerprint(out)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

impl FromStr for Fingerprint {
    type Err = TlsError;
    fn from_str(s: &str) -> Result<Self, TlsError> {
        let cleaned: String = s.trim().chars().filter(|c| *c != ':').collect();
        let bytes = hex::decode(&cleaned).map_err(|_| TlsError::BadFingerprint(s.to_owned()))?;
        let arr: [u8; 32] = bytes
            .try_into()
            .map_err(|_| TlsError::BadFingerprint(s.to_owned()))?;
        Ok(Fingerprint(arr))
    }
}

/// The server's TLS certificate and key.
pub struct ServerIdentity {
    cert: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
    fingerprint: Fingerprint,
}

impl fmt::Debug for ServerIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerIdentity")
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

impl ServerIdentity {
    /// A fresh self-signed certificate (ECDSA P-256) for
    /// [`DEFAULT_CERT_NAMES`] plus `extra_names` (DNS names or IP addresses).
    pub fn generate(extra_names: &[String]) -> Result<Self, TlsError> {
        let mut names: Vec<String> = DEFAULT_CERT_NAMES.iter().map(|s| s.to_string()).collect();
        for n in extra_names {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        let certified = rcgen::generate_simple_self_signed(names)?;
        let cert = certified.cert.der().clone();
        let key = PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der());
        Ok(Self::from_parts(cert, key))
    }

    /// An identity from a DER certificate and its PKCS#8 key (e.g. a
    /// CA-signed one).
    pub fn from_parts(cert: CertificateDer<'static>, key: PrivatePkcs8KeyDer<'static>) -> Self {
        let fingerprint = Fingerprint::of(&cert);
        ServerIdentity {
            cert,
            key,
            fingerprint,
        }
    }

    /// Load the identity from `data_dir`, or on first start generate one and
    /// persist it (key first, each written to a temporary file, fsynced and
    /// renamed, then the directory fsynced). Returns the identity and whether
    /// it was newly created. The names only matter on creation.
    pub fn load_or_create(
        data_dir: &Path,
        extra_names: &[String],
    ) -> Result<(Self, bool), TlsError> {
        let cert_path = data_dir.join(CERT_FILE);
        let key_path = data_dir.join(KEY_FILE);
        if cert_path.exists() {
            if !key_path.exists() {
                return Err(TlsError::KeyMissing {
                    cert: cert_path,
                    key: key_path,
                });
            }
            let cert = read(&cert_path)?;
            let key = read(&key_path)?;
            let id = Self::from_parts(CertificateDer::from(cert), PrivatePkcs8KeyDer::from(key));
            // Check the pair now rather than at the first handshake.
            server_crypto(&id)?;
            return Ok((id, false));
        }
        durable_file::ensure_dir(data_dir)?;
        let id = Self::generate(extra_names)?;
        // The key lands before the certificate: a certificate on disk always
        // has its key.
        durable_file::write_durably(&key_path, id.key.secret_pkcs8_der())?;
        durable_file::write_durably(&cert_path, &id.cert)?;
        Ok((id, true))
    }

    /// The key of the QUIC stateless resets this node sends (issue 25):
    /// derived from the league's TLS key, so a node restarted on its
    /// address (or another node with the same certificate) can tell a
    /// client whose connection it does not know that the connection is
    /// gone, and the client looks for its game at once instead of after
    /// its idle timeout.
    pub fn reset_key(&self) -> ring::hmac::Key {
        let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
        ctx.update(b"hexveil/v1/stateless-reset");
        ctx.update(self.key.secret_pkcs8_der());
        ring::hmac::Key::new(ring::hmac::HMAC_SHA256, ctx.finish().as_ref())
    }

    /// The certificate's SHA-256 fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The DER certificate.
    pub fn cert_der(&self) -> &CertificateDer<'static> {
        &self.cert
    }
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    Ok(durable_file::read(path)?)
}

/// The server's rustls configuration: ring, TLS 1.3 only, ALPN `hexveil/1`,
/// no client certificates, no early data (0-RTT is replayable).
pub fn server_crypto(identity: &ServerIdentity) -> Result<rustls::ServerConfig, TlsError> {
    let mut cfg = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(
            vec![identity.cert.clone()],
            PrivateKeyDer::Pkcs8(identity.key.clone_key()),
        )?;
    cfg.alpn_protocols = vec![ALPN.to_vec()];
    cfg.max_early_data_size = 0;
    Ok(cfg)
}

/// How a client decides to trust the server.
#[derive(Clone, Debug)]
pub enum ServerTrust {
    /// Accept exactly the certificate with this SHA-256 fingerprint.
    Pinned(Fingerprint),
    /// Ordinary WebPKI validation (chain, validity, server name) against
    /// these CA certificates.
    CertificateAuthorities(Vec<CertificateDer<'static>>),
}

impl ServerTrust {
    /// Trust the CA certificates in a file: PEM (one or more `CERTIFICATE`
    /// blocks) or a single DER certificate.
    pub fn from_ca_file(path: &Path) -> Result<Self, TlsError> {
        let bytes = read(path)?;
        let bad = |detail: String| TlsError::BadCaFile {
            path: path.to_owned(),
            detail,
        };
        let certs: Vec<CertificateDer<'static>> = if bytes.starts_with(b"-----") {
            CertificateDer::pem_slice_iter(&bytes)
                .collect::<Result<_, _>>()
                .map_err(|e| bad(e.to_string()))?
        } else {
            vec![CertificateDer::from(bytes)]
        };
        if certs.is_empty() {
            return Err(bad("no CERTIFICATE block".into()));
        }
        Ok(ServerTrust::CertificateAuthorities(certs))
    }
}

/// The client's rustls configuration for a trust choice: ring, TLS 1.3 only,
/// ALPN `hexveil/1`, early data off.
pub fn client_crypto(trust: &ServerTrust) -> Result<rustls::ClientConfig, TlsError> {
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])?;
    let mut cfg = match trust {
        ServerTrust::Pinned(fp) => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(PinnedCertVerifier::new(*fp)))
            .with_no_client_auth(),
        ServerTrust::CertificateAuthorities(cas) => {
            let mut roots = rustls::RootCertStore::empty();
            for ca in cas {
                roots.add(ca.clone())?;
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
    };
    cfg.alpn_protocols = vec![ALPN.to_vec()];
    cfg.enable_early_data = false;
    Ok(cfg)
}

/// The words a client shows when the pinned fingerprint does not match
/// (the connection error carries them; `FINGERPRINT_MISMATCH` finds them).
pub const FINGERPRINT_MISMATCH: &str =
    "this server's certificate does not match the fingerprint you gave";

/// The server presented a certificate other than the pinned one. Its
/// `Debug` is its words too: the TLS stack reports it with `{:?}`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct FingerprintMismatch {
    /// The fingerprint the user gave.
    pub pinned: Fingerprint,
    /// The fingerprint of the certificate the server presented.
    pub presented: Fingerprint,
}

impl fmt::Display for FingerprintMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{FINGERPRINT_MISMATCH} ({}); it presents {}. Check the fingerprint the server printed at start (or the invite): if they differ by more than a typo, someone may be between you and the server",
            self.pinned, self.presented
        )
    }
}

impl fmt::Debug for FingerprintMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for FingerprintMismatch {}

/// Accepts exactly one server certificate, named by its SHA-256 fingerprint,
/// and still verifies the TLS 1.3 handshake signature with the ring
/// provider, so only the holder of that certificate's key passes.
#[derive(Debug)]
pub struct PinnedCertVerifier {
    pinned: Fingerprint,
    provider: Arc<CryptoProvider>,
}

impl PinnedCertVerifier {
    /// A verifier pinning `fingerprint`.
    pub fn new(fingerprint: Fingerprint) -> Self {
        PinnedCertVerifier {
            pinned: fingerprint,
            provider: provider(),
        }
    }
}

impl ServerCertVerifier for PinnedCertVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        // The pin replaces name and chain checks: the user named this exact
        // certificate.
        let presented = Fingerprint::of(end_entity);
        if presented == self.pinned {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::Other(rustls::OtherError(Arc::new(
                    FingerprintMismatch {
                        pinned: self.pinned,
                        presented,
                    },
                ))),
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        // Only TLS 1.3 is enabled; a TLS 1.2 signature is never acceptable.
        Err(rustls::Error::PeerIncompatible(
            rustls::PeerIncompatible::Tls12NotOffered,
        ))
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

    fn root_hint_subjects(&self) -> Option<&[DistinguishedName]> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_persists_across_restarts() {
        let dir = tempfile::tempdir().unwrap();
        let (a, created) = ServerIdentity::load_or_create(dir.path(), &[]).unwrap();
        assert!(created);
        let (b, created) = ServerIdentity::load_or_create(dir.path(), &[]).unwrap();
        assert!(!created);
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.fingerprint(), Fingerprint::of(b.cert_der()));
        assert!(!dir.path().join("tls-cert.tmp").exists());
    }

    #[test]
    fn missing_key_is_an_error_not_a_new_identity() {
        let dir = tempfile::tempdir().unwrap();
        ServerIdentity::load_or_create(dir.path(), &[]).unwrap();
        std::fs::remove_file(dir.path().join(KEY_FILE)).unwrap();
        assert!(matches!(
            ServerIdentity::load_or_create(dir.path(), &[]),
            Err(TlsError::KeyMissing { .. })
        ));
    }

    #[test]
    fn fingerprint_parses_with_and_without_colons() {
        let fp = Fingerprint([0xab; 32]);
        let s = fp.to_string();
        assert_eq!(s.parse::<Fingerprint>().unwrap(), fp);
        let colons: Vec<String> = fp.0.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(colons.join(":").parse::<Fingerprint>().unwrap(), fp);
        assert!("abcd".parse::<Fingerprint>().is_err());
    }

    #[test]
    fn configs_build_with_ring_only() {
        let id = ServerIdentity::generate(&["example.test".into()]).unwrap();
        let s = server_crypto(&id).unwrap();
        assert_eq!(s.alpn_protocols, vec![ALPN.to_vec()]);
        let c = client_crypto(&ServerTrust::Pinned(id.fingerprint())).unwrap();
        assert_eq!(c.alpn_protocols, vec![ALPN.to_vec()]);
        let c = client_crypto(&ServerTrust::CertificateAuthorities(vec![id
            .cert_der()
            .clone()]))
        .unwrap();
        assert!(!c.enable_early_data);
    }
}
