//! One HTTP/1.1 POST to the server, over TLS for `https://`: a connection
//! per push (at most one a second), hyper's client connection over a
//! tokio TCP stream, rustls (ring) with the system's roots.
//!
//! Design: no HTTP client crate beyond hyper, which the live page already
//! builds (reqwest would bring a second TLS stack and a connection pool
//! one request a second does not need).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::rustls;

use super::Token;
use super::config::BaseUrl;

/// The longest answer read (the answer names each game's tags: a 100-game
/// round stays far below).
const MAX_ANSWER: usize = 1 << 20;

/// Why a push got no answer.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The server could not be reached.
    #[error("cannot connect to {addr}: {error}")]
    Connect {
        /// `host:port`.
        addr: String,
        /// Why.
        error: std::io::Error,
    },
    /// The TLS handshake failed (a certificate, say).
    #[error("TLS with {host}: {error}")]
    Tls {
        /// The host.
        host: String,
        /// Why.
        error: std::io::Error,
    },
    /// The host is no name TLS can check.
    #[error("`{0}` is no host name a certificate can be checked against")]
    ServerName(String),
    /// The system's certificate roots could not be read.
    #[error("no certificate roots could be read from the system: {0}")]
    Roots(String),
    /// The HTTP exchange failed.
    #[error("HTTP: {0}")]
    Http(#[from] hyper::Error),
    /// The request could not be made (a header value).
    #[error("the request cannot be made: {0}")]
    Request(#[from] hyper::http::Error),
    /// The answer's body could not be read (too long, cut).
    #[error("the answer could not be read: {0}")]
    Body(String),
    /// No answer in time.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
}

/// The server's answer.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// `Retry-After` in seconds, when given so.
    pub retry_after: Option<Duration>,
    /// The body.
    pub body: Bytes,
}

/// A TLS client configuration with the system's roots, ring's crypto.
pub fn tls_config() -> Result<Arc<rustls::ClientConfig>, HttpError> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = rustls::RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        let why = found
            .errors
            .first()
            .map_or_else(|| "none found".to_string(), ToString::to_string);
        return Err(HttpError::Roots(why));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| HttpError::Roots(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// POSTs `body` (PGN text) to `path` under `base` with `token`, within
/// `timeout`; `tls` is needed for an `https://` base.
pub async fn post(
    base: &BaseUrl,
    path: &str,
    token: &Token,
    body: String,
    tls: Option<&Arc<rustls::ClientConfig>>,
    timeout: Duration,
) -> Result<Answer, HttpError> {
    match tokio::time::timeout(timeout, exchange(base, path, token, body, tls)).await {
        Ok(r) => r,
        Err(_) => Err(HttpError::Timeout(timeout)),
    }
}

async fn exchange(
    base: &BaseUrl,
    path: &str,
    token: &Token,
    body: String,
    tls: Option<&Arc<rustls::ClientConfig>>,
) -> Result<Answer, HttpError> {
    let addr = format!("{}:{}", base.host_header(), base.port);
    let tcp = tokio::net::TcpStream::connect((base.host.as_str(), base.port))
        .await
        .map_err(|error| HttpError::Connect { addr, error })?;
    let _ = tcp.set_nodelay(true);
    let request = Request::post(format!("{}{path}", base.prefix))
        .header(hyper::header::HOST, base.host_header())
        .header(hyper::header::AUTHORIZATION, token.bearer())
        .header(hyper::header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .header(hyper::header::ACCEPT, "application/json")
        .header(
            hyper::header::USER_AGENT,
            concat!("boardcast/", env!("CARGO_PKG_VERSION")),
        )
        .body(Full::new(Bytes::from(body)))?;
    if base.tls {
        let config = match tls {
            Some(c) => Arc::clone(c),
            None => tls_config()?,
        };
        let name = rustls::pki_types::ServerName::try_from(base.host.clone())
            .map_err(|_| HttpError::ServerName(base.host.clone()))?;
        let stream = tokio_rustls::TlsConnector::from(config)
            .connect(name, tcp)
            .await
            .map_err(|error| HttpError::Tls {
                host: base.host.clone(),
                error,
            })?;
        send(stream, request).await
    } else {
        send(tcp, request).await
    }
}

/// Sends `request` on `stream` and reads the answer.
async fn send<S>(stream: S, request: Request<Full<Bytes>>) -> Result<Answer, HttpError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(HttpError::Http)?;
    let driver = tokio::spawn(connection);
    let answer = async {
        let response = sender.send_request(request).await?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(hyper::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = Limited::new(response.into_body(), MAX_ANSWER)
            .collect()
            .await
            .map_err(|e| HttpError::Body(e.to_string()))?
            .to_bytes();
        Ok(Answer {
            status,
            retry_after,
            body,
        })
    }
    .await;
    driver.abort();
    answer
}
