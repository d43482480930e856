//! The one check every POST of the page passes: it comes from the page
//! itself, not from a form or script of another site a logged-in browser
//! happens to show (cross-site request forgery).
//!
//! Design: browsers say where a request comes from (`Origin` on every POST,
//! `Sec-Fetch-Site` in current ones); both must name this site when
//! present. A client that sends neither (curl, a script) is no browser
//! carrying someone's cookie, and is let through to the login checks.

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
}
