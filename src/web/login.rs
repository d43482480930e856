//! The logins of the live page's audiences, one [`Login`] each: the
//! arbiter view's ([`ArbiterLogin`]: its password, compared as a hash) and
//! the operator's desk's ([`DeskLogin`]: its password is the desk's, hashed
//! with PBKDF2). A login holds its session cookie's name and path, its
//! sessions, and the lockout of addresses that guess ([`lockout`]).

use std::net::IpAddr;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::{cookie, lockout};

/// The cookie that admits a browser to the arbiter view: a random session
/// token (never the password, nor derived from it).
pub(super) const ARBITER_COOKIE: &str = "boardcast_arbiter";
/// Sessions kept at once; the oldest goes first.
const MAX_SESSIONS: usize = 1024;

pub(super) fn arbiter_token(secret: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(format!(
        "boardcast arbiter view\n{secret}"
    )))
}

/// A new session token: 32 random bytes, hex.
fn new_session_token() -> String {
    use rand::RngCore;
    let mut b = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut b);
    hex::encode(b)
}

/// One login's sessions: token to expiry.
#[derive(Debug, Default)]
struct Sessions(Mutex<std::collections::HashMap<String, std::time::Instant>>);

impl Sessions {
    /// A new session lasting `ttl`; returns its token.
    fn open(&self, ttl: std::time::Duration) -> String {
        let now = std::time::Instant::now();
        let token = new_session_token();
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.retain(|_, expiry| *expiry > now);
        if m.len() >= MAX_SESSIONS
            && let Some(oldest) = m.iter().min_by_key(|(_, e)| **e).map(|(t, _)| t.clone())
        {
            m.remove(&oldest);
        }
        m.insert(token.clone(), now + ttl);
        token
    }

    /// Ends the session `token` (a logout).
    fn close(&self, token: &str) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.retain(|t, _| !same(t, token));
    }

    /// Whether `token` is a live session.
    fn valid(&self, token: &str) -> bool {
        let now = std::time::Instant::now();
        let m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.iter().any(|(t, expiry)| *expiry > now && same(t, token))
    }
}

/// Compares in time that does not depend on where the texts differ.
pub(super) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0, |d, (x, y)| d | (x ^ y)) == 0
}

/// One audience's login: its session cookie, its sessions, and the failed
/// logins per client address.
#[derive(Debug)]
pub(super) struct Login {
    /// The session cookie's name.
    cookie: &'static str,
    /// The path the cookie is sent for.
    path: &'static str,
    sessions: Sessions,
    lockout: Mutex<lockout::Lockout>,
}

impl Login {
    /// A login whose sessions ride in cookie `cookie`, sent for `path`.
    pub(super) fn new(cookie: &'static str, path: &'static str) -> Login {
        Login {
            cookie,
            path,
            sessions: Sessions::default(),
            lockout: Mutex::default(),
        }
    }

    fn lockout(&self) -> MutexGuard<'_, lockout::Lockout> {
        self.lockout.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the request carries a live session's cookie.
    pub(super) fn admitted(&self, headers: &HeaderMap) -> bool {
        cookie(headers, self.cookie).is_some_and(|v| self.sessions.valid(v))
    }

    /// A login from `ip`, counted as a failure before its password is
    /// checked (see [`lockout::Lockout::attempt`]): `Some(429)` while the
    /// address is locked out.
    pub(super) fn refused(&self, ip: Option<IpAddr>) -> Option<Response> {
        let left = self
            .lockout()
            .attempt(ip?, std::time::Instant::now())
            .err()?;
        Some(
            (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, left.as_secs().max(1).to_string())],
                "too many wrong passwords from this address; try again later\n",
            )
                .into_response(),
        )
    }

    /// A wrong password from `ip` for `what` (`arbiter view`, `desk`):
    /// said once when it locks the address out; guessing costs time.
    pub(super) async fn wrong(&self, ip: Option<IpAddr>, what: &str) {
        let locked =
            ip.is_some_and(|ip| self.lockout().check(ip, std::time::Instant::now()).is_err());
        if locked {
            tracing::warn!(
                ?ip,
                "{what}: too many wrong passwords; this address is locked out for a while"
            );
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        tracing::info!("{what}: a wrong password");
    }

    /// A right password from `ip`: its failures are forgotten.
    pub(super) fn right(&self, ip: Option<IpAddr>) {
        if let Some(ip) = ip {
            self.lockout().succeeded(ip);
        }
    }

    /// A new session lasting `ttl`: its cookie (`HttpOnly`,
    /// `SameSite=Strict`), and a redirect to `to`.
    pub(super) fn open(&self, ttl: Duration, to: &'static str) -> Response {
        let session = self.sessions.open(ttl);
        let cookie = format!(
            "{}={session}; HttpOnly; SameSite=Strict; Path={}; Max-Age={}",
            self.cookie,
            self.path,
            ttl.as_secs()
        );
        (
            StatusCode::SEE_OTHER,
            [
                (header::SET_COOKIE, cookie),
                (header::LOCATION, to.to_string()),
            ],
        )
            .into_response()
    }

    /// Ends the request's session (a logout).
    pub(super) fn close(&self, headers: &HeaderMap) {
        if let Some(token) = cookie(headers, self.cookie) {
            self.sessions.close(token);
        }
    }
}

/// The arbiter view's login: the hash of the view password (none: no
/// arbiter view), compared in constant time.
#[derive(Debug)]
pub(super) struct ArbiterLogin {
    /// The hash of the view password.
    pub(super) token: Option<String>,
    /// Its sessions and lockout.
    pub(super) login: Login,
}

impl ArbiterLogin {
    /// The login of the view password `secret` (none: no arbiter view).
    pub(super) fn new(secret: Option<&str>) -> ArbiterLogin {
        ArbiterLogin {
            token: secret.map(arbiter_token),
            login: Login::new(ARBITER_COOKIE, "/"),
        }
    }

    /// Whether the request carries a live arbiter session.
    pub(super) fn admitted(&self, headers: &HeaderMap) -> bool {
        self.token.is_some() && self.login.admitted(headers)
    }
}

/// The desk's login: its sessions and lockout, and its passwords hashed
/// a few at a time (PBKDF2 costs a core for a moment).
#[derive(Debug)]
pub(super) struct DeskLogin {
    /// Its sessions and lockout.
    pub(super) login: Login,
    /// Desk passwords hashed at once.
    pub(super) hashing: tokio::sync::Semaphore,
}

impl DeskLogin {
    /// The desk's login, its cookie `cookie` sent for `/desk`.
    pub(super) fn new(cookie: &'static str) -> DeskLogin {
        DeskLogin {
            login: Login::new(cookie, "/desk"),
            hashing: tokio::sync::Semaphore::new(2),
        }
    }
}
