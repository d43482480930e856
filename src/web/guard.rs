//! The one check every POST of the page passes: it comes from the page
//! itself, not from a form or script of another site a logged-in browser
//! happens to show (cross-site request forgery).
//!
//! Design: browsers say where a request comes from (`Origin` on every POST,
//! `Sec-Fetch-Site` in current ones); both must name this site when
//! present. A client that sends neither (curl, a script) is no browser
//! carrying someone's cookie, and is let through to the login checks.

use std::net::IpAddr;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Whether a POST with `headers` comes from a page of this site.
pub(super) fn same_site(headers: &HeaderMap) -> bool {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let host = text(header::HOST.as_str()).map(|h| h.trim().to_ascii_lowercase());
    let origin_ok = match text(header::ORIGIN.as_str()) {
        None => true,
        Some(origin) => {
            let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
            host.as_ref().is_some_and(|h| {
                origin == format!("http://{h}") || origin == format!("https://{h}")
            })
        }
    };
    let fetch_ok = text("sec-fetch-site").is_none_or(|s| matches!(s, "same-origin" | "none"));
    origin_ok && fetch_ok
}

/// Whether a request was made on the machine that runs boardcast, by a
/// browser that knows it as that machine: the peer is a loopback address,
/// the page's address (`Host`) names loopback (`localhost`, `127.0.0.1`,
/// `[::1]`), and no proxy stands between (no `Forwarded`, `X-Forwarded-*`
/// or `X-Real-IP`). A proxy on the same machine (a TLS front) makes every
/// request come from loopback; a page of another site whose name is made
/// to point at 127.0.0.1 (DNS rebinding) carries its own name in `Host`.
/// Both are refused.
pub(super) fn from_this_machine(peer: Option<IpAddr>, headers: &HeaderMap) -> bool {
    let proxied = headers.keys().any(|k| {
        let k = k.as_str();
        k == "forwarded" || k.starts_with("x-forwarded-") || k == "x-real-ip"
    });
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .is_some_and(names_loopback);
    !proxied && host && peer.is_some_and(|ip| ip.to_canonical().is_loopback())
}

/// Whether a `Host` value (with or without a port) names loopback.
fn names_loopback(host: &str) -> bool {
    let host = host.trim().to_ascii_lowercase();
    let name = match host.strip_prefix('[') {
        // `[::1]:8080`
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host.as_str(), |(n, _)| n),
    };
    name == "localhost"
        || name
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// Why a POST from elsewhere is refused.
pub(super) const REFUSED: &str = "cross-site request refused: post from the page itself";

/// The answer to a POST from elsewhere.
pub(super) fn refused() -> Response {
    (StatusCode::FORBIDDEN, format!("{REFUSED}\n")).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn only_the_page_itself_may_post() {
        let host = ("host", "127.0.0.1:8080");
        assert!(same_site(&headers(&[
            host,
            ("origin", "http://127.0.0.1:8080")
        ])));
        assert!(same_site(&headers(&[
            host,
            ("sec-fetch-site", "same-origin")
        ])));
        // A tool without a browser's headers.
        assert!(same_site(&headers(&[host])));
        assert!(!same_site(&headers(&[
            host,
            ("origin", "https://evil.example")
        ])));
        assert!(!same_site(&headers(&[host, ("origin", "null")])));
        assert!(!same_site(&headers(&[
            host,
            ("sec-fetch-site", "cross-site")
        ])));
        assert!(!same_site(&headers(&[("origin", "http://127.0.0.1:8080")])));
        // The page at another port of the same machine is another site.
        assert!(!same_site(&headers(&[
            host,
            ("origin", "http://127.0.0.1:9090")
        ])));
    }

    #[test]
    fn only_the_machine_itself_by_its_own_name_chooses_the_first_password() {
        let local: IpAddr = "127.0.0.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        let far: IpAddr = "192.168.1.20".parse().unwrap();
        let at = |host: &str| headers(&[("host", host)]);
        for host in [
            "127.0.0.1:8080",
            "localhost:8080",
            "[::1]:8080",
            "LOCALHOST",
            "127.0.0.2",
        ] {
            assert!(from_this_machine(Some(local), &at(host)), "{host}");
        }
        assert!(from_this_machine(Some(mapped), &at("localhost:8080")));
        assert!(!from_this_machine(Some(far), &at("127.0.0.1:8080")));
        assert!(!from_this_machine(None, &at("127.0.0.1:8080")));
        // DNS rebinding: another site's name pointed at 127.0.0.1.
        for host in [
            "evil.example:8080",
            "localhost.evil.example",
            "192.168.1.2:8080",
            "[fe80::1]:80",
        ] {
            assert!(!from_this_machine(Some(local), &at(host)), "{host}");
        }
        assert!(!from_this_machine(Some(local), &HeaderMap::new()));
        // A proxy on this machine speaks for someone else.
        for proxy in [
            "x-forwarded-for",
            "forwarded",
            "x-real-ip",
            "x-forwarded-host",
        ] {
            let h = headers(&[("host", "127.0.0.1:8080"), (proxy, "203.0.113.9")]);
            assert!(!from_this_machine(Some(local), &h), "{proxy}");
        }
    }
}
