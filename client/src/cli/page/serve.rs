//! The page's HTTP server: 127.0.0.1 only, hyper's HTTP/1 server parts.
//!
//! # Who may use it
//!
//! The page holds no secret of the opponent (see [`super`]), but it shows
//! the player's own hidden facts and takes commands in his name, so only
//! the browser he opens it in may use it:
//!
//! - It listens on the loopback address only: no other host reaches it.
//! - The address printed carries a one-time token (32 random bytes from
//!   ring's `SystemRandom`). The first request that shows it gets a
//!   session cookie (32 more random bytes; `HttpOnly`, `SameSite=Strict`,
//!   named for the port, since cookies do not tell ports apart) and the
//!   token is spent: a second use is refused.
//! - Every request must name this server in its `Host` header
//!   (`127.0.0.1:PORT` or `localhost:PORT`): a foreign name that resolves
//!   to 127.0.0.1 (DNS rebinding) is refused.
//! - Every request but the token's exchange needs the session cookie;
//!   every state-changing request (a command) must also come from this
//!   page's own origin (`Origin` header).
//! - No CORS header is ever sent; the token and the cookie are compared in
//!   constant time; the pages may not be framed.

use super::Snapshot;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// How long a request for the next snapshot waits for a change.
const LONG_POLL: Duration = Duration::from_secs(20);
/// The longest command a page may send, in bytes.
const MAX_COMMAND: usize = 2048;

/// A secret of 32 random bytes.
type Secret = [u8; 32];

/// 32 bytes from the system's random generator (ring's `SystemRandom`,
/// as every seed of the player's secrets).
fn random() -> std::io::Result<Secret> {
    hexveil_protocol::player::random32()
        .map_err(|_| std::io::Error::other("the system's random generator failed"))
}

/// Whether `given` (hex text) is `secret`, in time that does not depend
/// on where they differ (`subtle`, as rustls compares its secrets).
fn same(given: &str, secret: &Secret) -> bool {
    use subtle::ConstantTimeEq;
    hex::decode(given).is_ok_and(|bytes| bool::from(bytes.as_slice().ct_eq(secret)))
}

/// Why a request was refused, in words the page (or a curious visitor)
/// is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The `Host` header names another server (DNS rebinding).
    ForeignHost(String),
    /// The token given is not this page's.
    WrongToken,
    /// The token was exchanged already.
    TokenUsed,
    /// No valid session cookie.
    NoSession,
    /// A command from another origin (or none).
    ForeignOrigin(String),
    /// The command is not one line of text of at most [`MAX_COMMAND`] bytes.
    BadCommand(String),
    /// No such page.
    NotFound(String),
}

impl Refused {
    fn status(&self) -> StatusCode {
        match self {
            Refused::ForeignHost(_) => StatusCode::MISDIRECTED_REQUEST,
            Refused::WrongToken | Refused::TokenUsed | Refused::ForeignOrigin(_) => {
                StatusCode::FORBIDDEN
            }
            Refused::NoSession => StatusCode::UNAUTHORIZED,
            Refused::BadCommand(_) => StatusCode::BAD_REQUEST,
            Refused::NotFound(_) => StatusCode::NOT_FOUND,
        }
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::ForeignHost(h) => write!(
                f,
                "refused: this page answers only to 127.0.0.1 or localhost at its port, not to the host {h:?}"
            ),
            Refused::WrongToken => f.write_str(
                "refused: that is not this page's token; open the address your hexveil client printed",
            ),
            Refused::TokenUsed => f.write_str(
                "refused: this page's one-time token was used already; go on in the browser that used it, or restart the client with --ui for a new address",
            ),
            Refused::NoSession => f.write_str(
                "refused: no session; open the address with the one-time token your hexveil client printed",
            ),
            Refused::ForeignOrigin(o) => write!(
                f,
                "refused: a command must come from this page itself, not from the origin {o:?}"
            ),
            Refused::BadCommand(why) => write!(f, "refused: {why}"),
            Refused::NotFound(p) => write!(f, "no page {p:?} here"),
        }
    }
}

/// The checks of who may use the page.
#[derive(Debug)]
pub struct Gate {
    port: u16,
    /// The one-time token; `None` once exchanged.
    token: Mutex<Option<Secret>>,
    /// The session cookie it was exchanged for (one: the token is spent).
    session: Mutex<Option<Secret>>,
}

impl Gate {
    /// A gate for a server at `port`, with a fresh token.
    pub fn new(port: u16) -> std::io::Result<Gate> {
        Ok(Gate {
            port,
            token: Mutex::new(Some(random()?)),
            session: Mutex::new(None),
        })
    }

    /// The token, hex, while it is unused.
    pub fn token(&self) -> Option<String> {
        self.token
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .map(hex::encode)
    }

    /// The session cookie's name (one per port: cookies ignore ports).
    pub fn cookie_name(&self) -> String {
        format!("hexveil_page_{}", self.port)
    }

    /// The `Host` header must name this server.
    pub fn host(&self, host: Option<&str>) -> Result<(), Refused> {
        let host = host.unwrap_or("");
        let port = self.port;
        if host == format!("127.0.0.1:{port}") || host == format!("localhost:{port}") {
            Ok(())
        } else {
            Err(Refused::ForeignHost(host.to_string()))
        }
    }

    /// A state-changing request must come from this page's own origin.
    pub fn origin(&self, origin: Option<&str>) -> Result<(), Refused> {
        let origin = origin.unwrap_or("");
        let port = self.port;
        if origin == format!("http://127.0.0.1:{port}")
            || origin == format!("http://localhost:{port}")
        {
            Ok(())
        } else {
            Err(Refused::ForeignOrigin(origin.to_string()))
        }
    }

    /// Exchanges the one-time token for a session cookie's value (hex);
    /// the token is spent.
    pub fn exchange(&self, given: &str) -> Result<String, Refused> {
        let mut token = self.token.lock().unwrap_or_else(|e| e.into_inner());
        let Some(secret) = token.as_ref() else {
            return Err(Refused::TokenUsed);
        };
        if !same(given, secret) {
            return Err(Refused::WrongToken);
        }
        *token = None;
        let session = random().map_err(|_| Refused::NoSession)?;
        *self.session.lock().unwrap_or_else(|e| e.into_inner()) = Some(session);
        Ok(hex::encode(session))
    }

    /// The request's `Cookie` header must hold a session given here.
    pub fn session(&self, cookies: Option<&str>) -> Result<(), Refused> {
        let name = self.cookie_name();
        let session = *self.session.lock().unwrap_or_else(|e| e.into_inner());
        let found = session.is_some_and(|s| {
            cookies
                .unwrap_or("")
                .split(';')
                .filter_map(|c| c.trim().split_once('='))
                .any(|(n, v)| n == name && same(v, &s))
        });
        if found {
            Ok(())
        } else {
            Err(Refused::NoSession)
        }
    }
}

/// A running page server.
#[derive(Debug)]
pub struct Served {
    /// Where it listens (127.0.0.1).
    pub addr: SocketAddr,
    /// The address to open, with the one-time token.
    pub url: String,
}

/// Starts the page server on 127.0.0.1 (`port`, else one the system
/// picks), showing `state`.
pub async fn start(
    port: Option<u16>,
    state: watch::Receiver<Arc<Snapshot>>,
) -> std::io::Result<Served> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port.unwrap_or(0))).await?;
    let addr = listener.local_addr()?;
    let gate = Arc::new(Gate::new(addr.port())?);
    let url = format!(
        "http://127.0.0.1:{}/?token={}",
        addr.port(),
        gate.token().unwrap_or_default()
    );
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let gate = gate.clone();
            let state = state.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    let gate = gate.clone();
                    let state = state.clone();
                    async move { Ok::<_, Infallible>(answer(req, &gate, state).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(Served { addr, url })
}

/// A response with the headers every answer carries (no caching, no
/// sniffing, no framing, no referrer; never a CORS header).
fn respond(status: StatusCode, kind: &'static str, body: String) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             img-src data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    r
}

fn refused(why: &Refused) -> Response<Full<Bytes>> {
    respond(
        why.status(),
        "text/plain; charset=utf-8",
        format!("{why}\n"),
    )
}

fn text_header(req: &Request<Incoming>, name: header::HeaderName) -> Option<&str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// A query parameter's value.
fn query<'a>(req: &'a Request<Incoming>, name: &str) -> Option<&'a str> {
    req.uri()
        .query()?
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

async fn answer(
    req: Request<Incoming>,
    gate: &Gate,
    state: watch::Receiver<Arc<Snapshot>>,
) -> Response<Full<Bytes>> {
    match route(req, gate, state).await {
        Ok(r) => r,
        Err(why) => refused(&why),
    }
}

async fn route(
    req: Request<Incoming>,
    gate: &Gate,
    mut state: watch::Receiver<Arc<Snapshot>>,
) -> Result<Response<Full<Bytes>>, Refused> {
    gate.host(text_header(&req, header::HOST))?;
    let path = req.uri().path().to_string();
    match (req.method(), path.as_str()) {
        (&Method::GET, "/") => {
            if let Some(token) = query(&req, "token") {
                let session = gate.exchange(token)?;
                let mut r = respond(
                    StatusCode::SEE_OTHER,
                    "text/plain; charset=utf-8",
                    "signed in; the page is at /\n".into(),
                );
                let cookie = format!(
                    "{}={session}; HttpOnly; SameSite=Strict; Path=/",
                    gate.cookie_name()
                );
                let h = r.headers_mut();
                h.insert(header::LOCATION, HeaderValue::from_static("/"));
                h.insert(
                    header::SET_COOKIE,
                    HeaderValue::from_str(&cookie).map_err(|_| Refused::NoSession)?,
                );
                return Ok(r);
            }
            gate.session(text_header(&req, header::COOKIE))?;
            super::opened();
            let snap = state.borrow().clone();
            Ok(respond(
                StatusCode::OK,
                "text/html; charset=utf-8",
                super::html::page(&snap),
            ))
        }
        (&Method::GET, "/api/state") => {
            gate.session(text_header(&req, header::COOKIE))?;
            let after: Option<u64> = query(&req, "after").and_then(|v| v.parse().ok());
            let from: usize = query(&req, "lines")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            super::opened();
            if let Some(after) = after {
                // The page's script asks for the snapshot after the one
                // it has drawn: that one is on the page.
                super::drawn(after);
                let _ =
                    tokio::time::timeout(LONG_POLL, state.wait_for(|s| s.version > after)).await;
            }
            let snap = state.borrow().clone();
            Ok(respond(StatusCode::OK, "application/json", snap.json(from)))
        }
        (&Method::POST, "/api/drawn") => {
            // The page's script has drawn the last snapshot (the end) and
            // asks for no other: the client may leave.
            gate.session(text_header(&req, header::COOKIE))?;
            gate.origin(text_header(&req, header::ORIGIN))?;
            let body = Limited::new(req.into_body(), 32)
                .collect()
                .await
                .map_err(|_| Refused::BadCommand("a snapshot version is a number".into()))?
                .to_bytes();
            let version: u64 = std::str::from_utf8(&body)
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| Refused::BadCommand("a snapshot version is a number".into()))?;
            super::drawn(version);
            Ok(respond(
                StatusCode::OK,
                "text/plain; charset=utf-8",
                String::new(),
            ))
        }
        (&Method::POST, "/api/command") => {
            gate.session(text_header(&req, header::COOKIE))?;
            gate.origin(text_header(&req, header::ORIGIN))?;
            let body = Limited::new(req.into_body(), MAX_COMMAND)
                .collect()
                .await
                .map_err(|_| {
                    Refused::BadCommand(format!("a command is at most {MAX_COMMAND} bytes"))
                })?
                .to_bytes();
            let text = std::str::from_utf8(&body)
                .map_err(|_| Refused::BadCommand("a command is text (UTF-8)".into()))?
                .trim()
                .to_string();
            if text.is_empty() || text.contains(['\n', '\r']) {
                return Err(Refused::BadCommand("a command is one line of text".into()));
            }
            let words = match super::super::typed::from_page(text.clone()) {
                Ok(()) => serde_json::json!({
                    "handed": true,
                    "words": format!("`{text}` handed to your client; its answer shows beside the board"),
                }),
                Err(e) => {
                    serde_json::json!({ "handed": false, "words": format!("`{text}` not sent: {e}") })
                }
            };
            Ok(respond(
                StatusCode::OK,
                "application/json",
                words.to_string(),
            ))
        }
        (_, p) => Err(Refused::NotFound(p.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// One request through real HTTP on loopback; the whole response.
    async fn http(addr: SocketAddr, request: String) -> String {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(request.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out
    }

    fn get(path: &str, host: &str, cookie: Option<&str>) -> String {
        let cookie = cookie
            .map(|c| format!("Cookie: {c}\r\n"))
            .unwrap_or_default();
        format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n{cookie}Connection: close\r\n\r\n")
    }

    fn post(body: &str, host: &str, cookie: &str, origin: Option<&str>) -> String {
        post_to("/api/command", body, host, cookie, origin)
    }

    fn post_to(path: &str, body: &str, host: &str, cookie: &str, origin: Option<&str>) -> String {
        let origin = origin
            .map(|o| format!("Origin: {o}\r\n"))
            .unwrap_or_default();
        format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nCookie: {cookie}\r\n{origin}\
             Content-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    }

    fn status(response: &str) -> u16 {
        response
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }

    async fn served() -> (Served, String, String) {
        let (_tx, rx) = watch::channel(Arc::new(Snapshot::default()));
        // The sender is dropped: the state is the one there is.
        let served = start(None, rx).await.unwrap();
        let token = served.url.split("token=").nth(1).unwrap().to_string();
        let host = format!("127.0.0.1:{}", served.addr.port());
        (served, token, host)
    }

    // Issue 29: the page listens on loopback only, and its one-time token
    // is exchanged once for an HttpOnly SameSite=Strict cookie; a wrong
    // token and a reused token are refused in words, and nothing is
    // served without the cookie.
    #[tokio::test]
    async fn issue29_the_token_is_exchanged_once_for_a_strict_cookie() {
        let (served, token, host) = served().await;
        assert!(served.addr.ip().is_loopback(), "{}", served.addr);
        assert!(served.url.starts_with(&format!("http://{host}/?token=")));

        let wrong = http(
            served.addr,
            get(&format!("/?token={}", "0".repeat(64)), &host, None),
        )
        .await;
        assert_eq!(status(&wrong), 403, "{wrong}");
        assert!(wrong.contains("not this page's token"), "{wrong}");
        let short = http(served.addr, get("/?token=abc", &host, None)).await;
        assert_eq!(status(&short), 403, "{short}");

        for path in ["/", "/api/state", "/api/state?after=0"] {
            let none = http(served.addr, get(path, &host, None)).await;
            assert_eq!(status(&none), 401, "{path}: {none}");
            assert!(none.contains("no session"), "{none}");
            let forged = http(
                served.addr,
                get(
                    path,
                    &host,
                    Some(&format!(
                        "hexveil_page_{}={}",
                        served.addr.port(),
                        "1".repeat(64)
                    )),
                ),
            )
            .await;
            assert_eq!(status(&forged), 401, "{path}: {forged}");
        }

        let first = http(served.addr, get(&format!("/?token={token}"), &host, None)).await;
        assert_eq!(status(&first), 303, "{first}");
        let set = first
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
            .unwrap_or_else(|| panic!("no cookie: {first}"));
        assert!(
            set.contains("HttpOnly") && set.contains("SameSite=Strict"),
            "{set}"
        );
        let cookie = set
            .split_once(':')
            .unwrap()
            .1
            .split(';')
            .next()
            .unwrap()
            .trim()
            .to_string();
        assert!(
            !first.to_ascii_lowercase().contains("access-control"),
            "{first}"
        );

        let again = http(served.addr, get(&format!("/?token={token}"), &host, None)).await;
        assert_eq!(status(&again), 403, "{again}");
        assert!(again.contains("used already"), "{again}");

        let page = http(served.addr, get("/", &host, Some(&cookie))).await;
        assert_eq!(status(&page), 200, "{page}");
        assert!(page.contains("id=\"board\""), "{page}");
        assert!(page.contains("frame-ancestors 'none'"), "{page}");
        let state = http(
            served.addr,
            get("/api/state", &host, Some(&format!("a=b; {cookie}"))),
        )
        .await;
        assert_eq!(status(&state), 200, "{state}");
        assert!(state.contains("\"version\":0"), "{state}");
        assert!(
            !state.to_ascii_lowercase().contains("access-control"),
            "{state}"
        );
    }

    // Issue 29: DNS rebinding (a foreign name resolving to 127.0.0.1) is
    // refused on every request by the Host check, and a command from
    // another origin, or with none, is refused by the Origin check.
    #[tokio::test]
    async fn issue29_a_foreign_host_or_origin_is_refused() {
        let (served, token, host) = served().await;
        let port = served.addr.port();
        let foreign = format!("evil.example:{port}");
        for request in [
            get(&format!("/?token={token}"), &foreign, None),
            get("/", "127.0.0.1:1", None),
            get("/", "", None),
        ] {
            let r = http(served.addr, request).await;
            assert_eq!(status(&r), 421, "{r}");
            assert!(r.contains("answers only to 127.0.0.1 or localhost"), "{r}");
        }
        // The foreign Host spent nothing: the token still works.
        let first = http(
            served.addr,
            get(
                &format!("/?token={token}"),
                &format!("localhost:{port}"),
                None,
            ),
        )
        .await;
        assert_eq!(status(&first), 303, "{first}");
        let cookie = first
            .lines()
            .find_map(|l| l.strip_prefix("set-cookie: "))
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_string();
        let r = http(served.addr, get("/api/state", &foreign, Some(&cookie))).await;
        assert_eq!(status(&r), 421, "{r}");

        for origin in [
            Some("http://evil.example"),
            Some(&format!("http://127.0.0.1:{}", port + 1)[..]),
            None,
        ] {
            let r = http(served.addr, post("concede", &host, &cookie, origin)).await;
            assert_eq!(status(&r), 403, "{origin:?}: {r}");
            assert!(r.contains("must come from this page itself"), "{r}");
        }
        let no_cookie = http(
            served.addr,
            post("concede", &host, "x=y", Some(&format!("http://{host}"))),
        )
        .await;
        assert_eq!(status(&no_cookie), 401, "{no_cookie}");
        // From the page's own origin the command is handed on (here to
        // no seat: this test reads no stdin).
        let ok = http(
            served.addr,
            post("end", &host, &cookie, Some(&format!("http://{host}"))),
        )
        .await;
        assert_eq!(status(&ok), 200, "{ok}");
        assert!(
            ok.contains("`end` not sent: the seat takes no commands now"),
            "{ok}"
        );
        let two = http(
            served.addr,
            post(
                "end\nconcede",
                &host,
                &cookie,
                Some(&format!("http://{host}")),
            ),
        )
        .await;
        assert_eq!(status(&two), 400, "{two}");
        assert!(two.contains("one line"), "{two}");
        // The page's word that it has drawn a snapshot (which lets the
        // client leave at the end) is taken from the page itself only,
        // and is a number.
        let own = format!("http://{host}");
        for (cookie, origin, body, want) in [
            (&cookie[..], Some("http://evil.example"), "7", 403),
            (&cookie[..], None, "7", 403),
            ("x=y", Some(&own[..]), "7", 401),
            (&cookie[..], Some(&own[..]), "seven", 400),
            (&cookie[..], Some(&own[..]), "7", 200),
        ] {
            let r = http(
                served.addr,
                post_to("/api/drawn", body, &host, cookie, origin),
            )
            .await;
            assert_eq!(status(&r), want, "{origin:?} {body}: {r}");
        }
    }
}
