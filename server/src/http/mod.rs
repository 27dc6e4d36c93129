//! The web view (issue 12): what spectators, leagues and operators see in a
//! browser, served by axum on the server's tokio runtime when the server is
//! given an HTTP address (`--http ADDR`; off by default).
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the open and finished games, as a page ([`pages`]) |
//! | `GET /api/games` | the same as JSON ([`games`]) |
//! | `GET /game/{id}` | a game's live public view: board picture, narrative, status ([`live`]) |
//! | `GET /game/{id}/events` | that view as server-sent events, one per change |
//! | `GET /game/{id}/transcript` | a finished game's transcript file |
//! | `GET /game/{id}/replay` | the replay viewer of a finished game ([`hexveil_view::replay`]) |
//! | `GET /metrics` | the operator's metrics ([`crate::metrics`]), with its token only (`metrics_token_file`) |
//!
//! Privacy (G3 and the spectator delay): the live view is a spectator of
//! the game in the lobby like any QUIC spectator ([`live`]): it is sent
//! only the public updates, padded, held back by the spectator delay, and
//! a late joiner gets the same public history. Nothing else of a running
//! game is read: no log entry, no store row. A transcript (and so a replay)
//! is served only once the game has finished, when it holds no secret any
//! more (DESIGN 5).
//!
//! Bounded cost (G6; the address is public-facing): at most
//! `http_max_connections` connections, shared per address and per network
//! like the QUIC port's (issue 31: `http_max_connections_per_address`,
//! `http_max_connections_per_network`; a connection beyond its share is
//! answered 503 with the setting's name and closed at once); a request's
//! headers within one [`HEADER_READ_TIMEOUT`] from the moment the server
//! waits for them (accepted, or idle after an answer), which bytes trickled
//! in do not extend; every answer within [`REQUEST_TIMEOUT`] (408 beyond;
//! a stream's answer is its first event); a connection on which no byte
//! moves for [`STALL_TIMEOUT`] (a client that stops reading) closed; at
//! most `http_max_streams` event
//! streams, shared per address and network, and as many watched games (503
//! beyond); one watcher per game whatever the number of browsers; finished
//! games rebuilt from their logs under the lobby's budget, paid by the
//! client's address and network ([`Visitor`]); and one whole-game
//! verification at a time (league rows, replays), each cached. A finished
//! game's transcript is read from the store, never rebuilt, but for a
//! game whose log closed just before a restart.

pub mod games;
pub mod live;
pub mod pages;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use hyper_util::rt::{TokioIo, TokioTimer};
use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::shares::{Party, ShareCaps, ShareNames, Shares};
use tower::ServiceExt;
use tracing::{debug, info, warn};

use crate::connection::ConnectionContext;
use crate::league::League;
use crate::lobby::{Lobby, LobbyError};
use crate::metrics::{Metrics, CONTENT_TYPE};
use crate::store::StoreError;
use crate::wire::{GameId, PublicKey};

/// Time a client has to send a request's headers (also the idle time of a
/// kept-alive connection between requests).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Time the server has to answer a request (408 beyond).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How often an event stream with nothing new sends a comment, so proxies
/// and browsers keep it open.
pub const STREAM_KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How long a connection may move no byte, either way, before it is
/// closed (issue 31): longer than any answer may take to start
/// ([`REQUEST_TIMEOUT`]) and than an event stream's keep-alive interval
/// ([`STREAM_KEEP_ALIVE`]), so only a client that stops reading what it
/// asked for reaches it (hyper closes a connection that sends no request
/// sooner, after [`HEADER_READ_TIMEOUT`]). Without it, a client that never
/// reads a large answer, or an event stream, would hold its place (and its
/// stream's) for as long as it liked.
pub const STALL_TIMEOUT: Duration = Duration::from_secs(35);

/// A connection's socket, noting when a byte last moved.
struct Watched<T> {
    inner: T,
    moved: Arc<std::sync::Mutex<tokio::time::Instant>>,
}

impl<T> Watched<T> {
    fn new(inner: T) -> (Watched<T>, Arc<std::sync::Mutex<tokio::time::Instant>>) {
        let moved = Arc::new(std::sync::Mutex::new(tokio::time::Instant::now()));
        (
            Watched {
                inner,
                moved: moved.clone(),
            },
            moved,
        )
    }

    fn touch(&self) {
        *self.moved.lock().expect("watched lock poisoned") = tokio::time::Instant::now();
    }
}

impl<T: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Watched<T> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut this.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.touch();
        }
        polled
    }
}

impl<T: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Watched<T> {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let polled = std::pin::Pin::new(&mut this.inner).poll_write(cx, buf);
        if matches!(polled, std::task::Poll::Ready(Ok(n)) if n > 0) {
            this.touch();
        }
        polled
    }

    fn poll_write_vectored(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let polled = std::pin::Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, std::task::Poll::Ready(Ok(n)) if n > 0) {
            this.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// Returns once no byte has moved for [`STALL_TIMEOUT`] (see
/// [`Watched`]).
async fn stalled(moved: Arc<std::sync::Mutex<tokio::time::Instant>>) {
    loop {
        let last = *moved.lock().expect("watched lock poisoned");
        let until = last + STALL_TIMEOUT;
        if tokio::time::Instant::now() >= until {
            return;
        }
        tokio::time::sleep_until(until).await;
    }
}

/// How long a graceful shutdown waits for open HTTP connections.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// Why a web request is refused. Each says what, in words a person reads
/// (the body of the answer, `text/plain`).
#[derive(Debug, Error)]
pub enum HttpError {
    /// The path's game id is not 32 hex digits.
    #[error("{0:?} is not a game id: a game id is 32 hex digits")]
    BadGameId(String),
    /// No such game on this server.
    #[error("no game {0} on this server")]
    UnknownGame(GameId),
    /// The transcript or replay of a game that has not finished.
    #[error("game {0} has not finished: its transcript and replay are served once it has (until the end its log holds sealed facts); watch it live at /game/{0}")]
    NotFinished(GameId),
    /// Every event stream slot is taken, or the client's address's or
    /// network's share of them (issue 31).
    #[error("{0}")]
    TooManyStreams(crate::shares::Refused),
    /// Every watched-game slot is taken.
    #[error("this server already shows {0} games live (its http_max_streams); try again later")]
    TooManyWatched(usize),
    /// The lobby's per-key budget of rebuilds refused (G6).
    #[error("{0}")]
    RateLimited(String),
    /// The game could not be opened or did not answer in time.
    #[error("game {game}'s public view is not available now: {why}")]
    Unavailable {
        /// The game.
        game: GameId,
        /// Why.
        why: String,
    },
    /// The store failed.
    #[error("storage failed: {0}")]
    Store(#[from] StoreError),
    /// No such page.
    #[error("no page {0} here: try / for the list of games")]
    NoPage(String),
}

impl HttpError {
    /// The HTTP status that goes with it.
    pub fn status(&self) -> StatusCode {
        match self {
            HttpError::BadGameId(_) => StatusCode::BAD_REQUEST,
            HttpError::UnknownGame(_) | HttpError::NotFinished(_) | HttpError::NoPage(_) => {
                StatusCode::NOT_FOUND
            }
            HttpError::TooManyStreams(_)
            | HttpError::TooManyWatched(_)
            | HttpError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            HttpError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            HttpError::Store(StoreError::UnknownGame(_)) => StatusCode::NOT_FOUND,
            HttpError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// An error of opening a game for the live view.
    fn opening(game: GameId, e: LobbyError) -> HttpError {
        match e {
            LobbyError::RateLimited(why) => HttpError::RateLimited(why),
            LobbyError::Store(StoreError::UnknownGame(_)) => HttpError::UnknownGame(game),
            other => HttpError::Unavailable {
                game,
                why: other.to_string(),
            },
        }
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut response = (status, format!("{self}\n")).into_response();
        if status == StatusCode::SERVICE_UNAVAILABLE || status == StatusCode::TOO_MANY_REQUESTS {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        }
        response
    }
}

/// Parses a path's game id.
pub fn game_id(text: &str) -> Result<GameId, HttpError> {
    text.parse().map_err(|_| HttpError::BadGameId(text.into()))
}

/// What every request handler shares.
#[derive(Debug)]
pub struct Web {
    /// The games.
    pub lobby: Arc<Lobby>,
    /// Connection ids (the live view's spectators take theirs from the
    /// same counter as QUIC connections).
    pub connections: Arc<ConnectionContext>,
    /// Finished games' rows.
    pub league: Arc<League>,
    /// The operator's metrics.
    pub metrics: Arc<Metrics>,
    /// The token `/metrics` asks for; `None`: `/metrics` is not served
    /// (its counters would tell a move before the spectator delay).
    metrics_token: Option<String>,
    /// The live views.
    pub watchers: live::Watchers,
    /// The games' descriptions and replays.
    pub games: Arc<games::Games>,
    /// Event stream slots, shared per address and network (issue 31).
    streams: Arc<Shares>,
    /// Connection slots, shared per address and network (issue 31).
    http_connections: Arc<Shares>,
    /// Set to `true` when the server shuts down: every stream ends.
    shutdown: watch::Sender<bool>,
}

impl Web {
    /// The web view of a server's lobby, with at most `max_streams` event
    /// streams (and as many watched games).
    pub fn new(
        connections: Arc<ConnectionContext>,
        max_streams: usize,
        metrics_token: Option<String>,
    ) -> Arc<Web> {
        let lobby = connections.lobby.clone();
        let metrics = lobby.metrics().clone();
        let http_connections = Shares::new(
            ShareNames {
                what: "web view connections",
                total: "http_max_connections",
                per_address: "http_max_connections_per_address",
                per_network: "http_max_connections_per_network",
            },
            ShareCaps {
                total: connections.settings.http_max_connections,
                per_address: connections.settings.http_max_connections_per_address,
                per_network: connections.settings.http_max_connections_per_network,
            },
        );
        let (shutdown, _) = watch::channel(false);
        Arc::new(Web {
            watchers: live::Watchers::new(lobby.clone(), connections.clone(), max_streams),
            games: connections.games.clone(),
            league: connections.league.clone(),
            lobby,
            connections,
            metrics,
            metrics_token,
            streams: Shares::new(
                ShareNames {
                    what: "live streams",
                    total: "http_max_streams",
                    // The stream shares follow from the total (`stream_shares`):
                    // the words name that, not settings that do not exist.
                    per_address: "share per address (http_max_streams / 64, at least 4)",
                    per_network: "share per network (http_max_streams / 16, at least 16)",
                },
                stream_shares(max_streams),
            ),
            http_connections,
            shutdown,
        })
    }

    /// A receiver that sees `true` when the server shuts down.
    pub fn shutting_down(&self) -> watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    /// The web client at `ip`, as the lobby's budgets see it.
    pub fn visitor(&self, ip: IpAddr) -> Visitor {
        let party = self.connections.settings.grouping.party(ip);
        Visitor {
            key: web_key(party.address.addr()),
            party,
        }
    }

    /// Web view connections held: in all, by `ip`'s address and by its
    /// network.
    pub fn connections_held(&self, ip: IpAddr) -> (usize, usize, usize) {
        let party = self.connections.settings.grouping.party(ip);
        self.http_connections.held(&party)
    }
}

/// A web client as the lobby's budgets see it (issue 31): the key made
/// from its address ([`web_key`]; an IPv6 client's /64, so one host has
/// one key) and its party, so a rebuild of a finished game is paid by its
/// address and its network like a QUIC client's.
#[derive(Clone, Copy, Debug)]
pub struct Visitor {
    /// The key the lobby budgets it under.
    pub key: PublicKey,
    /// Its address and network.
    pub party: Party,
}

/// The key under which a web client asks the lobby for things it budgets
/// per key (rebuilds of finished games, G6): one per client address, made
/// from it, never a player's key (it is never seated: the web view only
/// watches).
pub fn web_key(ip: IpAddr) -> PublicKey {
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        format!("hexveil web view {ip}").as_bytes(),
    );
    let mut key = [0u8; 32];
    key.copy_from_slice(digest.as_ref());
    PublicKey(key)
}

/// The routes, over `web`.
pub fn router(web: Arc<Web>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/api/games", get(api_games))
        .route("/game/{id}", get(live_page))
        .route("/game/{id}/events", get(events))
        .route("/game/{id}/transcript", get(transcript))
        .route("/game/{id}/replay", get(replay))
        .route("/metrics", get(metrics))
        .route("/favicon.ico", get(favicon))
        .fallback(no_page)
        .layer(axum::middleware::map_response_with_state(
            web.clone(),
            count_errors,
        ))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .with_state(web)
}

async fn count_errors(State(web): State<Arc<Web>>, response: Response) -> Response {
    let kind = match response.status().as_u16() {
        400 => Some("http_bad_request"),
        404 => Some("http_not_found"),
        408 => Some("http_timeout"),
        429 => Some("http_rate_limited"),
        503 => Some("http_unavailable"),
        500..=599 => Some("http_internal"),
        _ => None,
    };
    if let Some(kind) = kind {
        web.metrics.error(kind);
    }
    response
}

/// The site's icon, a hexagon: every browser asks for it, and a 404 for it
/// would count in `hexveil_errors_total` (issue 27).
async fn favicon() -> Response {
    (
        [
            (axum::http::header::CONTENT_TYPE, "image/svg+xml"),
            (axum::http::header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        FAVICON_SVG,
    )
        .into_response()
}

/// [`favicon`]'s picture.
const FAVICON_SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><polygon points="16,1 29,8.5 29,23.5 16,31 3,23.5 3,8.5" fill="#3d5a40" stroke="#1d2b1f" stroke-width="2"/></svg>"##;

async fn no_page(uri: axum::http::Uri) -> HttpError {
    HttpError::NoPage(uri.path().to_string())
}

async fn index(State(web): State<Arc<Web>>) -> Result<Html<String>, HttpError> {
    let list = web.games.list().await?;
    Ok(Html(pages::index(&list)))
}

async fn api_games(State(web): State<Arc<Web>>) -> Result<Json<games::GameList>, HttpError> {
    Ok(Json(web.games.list().await?))
}

async fn live_page(
    State(web): State<Arc<Web>>,
    Path(id): Path<String>,
    ConnectInfo(remote): ConnectInfo<SocketAddr>,
) -> Result<Html<String>, HttpError> {
    let game = game_id(&id)?;
    let mut view = web.watchers.watch(game, web.visitor(remote.ip())).await?;
    live::ready(&mut view).await;
    let picture = view.borrow().clone();
    Ok(Html(pages::live(game, &picture)))
}

async fn events(
    State(web): State<Arc<Web>>,
    Path(id): Path<String>,
    ConnectInfo(remote): ConnectInfo<SocketAddr>,
) -> Result<Response, HttpError> {
    let game = game_id(&id)?;
    let who = web.visitor(remote.ip());
    let slot = web
        .streams
        .take(&who.party)
        .map_err(HttpError::TooManyStreams)?;
    let view = web.watchers.watch(game, who).await?;
    let counted = web.metrics.web_stream();
    let stream = live::events(game, view, web.shutting_down(), (slot, counted));
    let sse = Sse::new(stream).keep_alive(KeepAlive::new().interval(STREAM_KEEP_ALIVE));
    Ok(sse.into_response())
}

/// The shares of `max_streams` event streams (issue 31): an address may
/// hold 1/64 of them (at least 4: a few tabs), a network 1/16 (at least
/// 16), so one client never takes them all.
pub fn stream_shares(max_streams: usize) -> ShareCaps {
    ShareCaps {
        total: max_streams,
        per_address: (max_streams / 64).max(4),
        per_network: (max_streams / 16).max(16),
    }
}

/// The SSE event of a picture (used by [`live::events`]).
fn event(json: String) -> Event {
    Event::default().event("picture").data(json)
}

async fn transcript(
    State(web): State<Arc<Web>>,
    Path(id): Path<String>,
    ConnectInfo(remote): ConnectInfo<SocketAddr>,
) -> Result<Response, HttpError> {
    let game = game_id(&id)?;
    let bytes = web.games.transcript(game, web.visitor(remote.ip())).await?;
    let disposition = format!("attachment; filename=\"{game}.hexveil\"");
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response())
}

async fn replay(
    State(web): State<Arc<Web>>,
    Path(id): Path<String>,
    ConnectInfo(remote): ConnectInfo<SocketAddr>,
) -> Result<Html<String>, HttpError> {
    let game = game_id(&id)?;
    let page = web.games.replay(game, web.visitor(remote.ip())).await?;
    Ok(Html(page.as_str().to_owned()))
}

/// `/metrics`, for the operator only (issue 24): its per-kind counters
/// move within seconds of a move, while every game page waits out the
/// spectator delay, so it asks for the token of `metrics_token_file`
/// (`Authorization: Bearer TOKEN`) and is not served without one.
async fn metrics(State(web): State<Arc<Web>>, headers: axum::http::HeaderMap) -> Response {
    let Some(token) = &web.metrics_token else {
        return (
            StatusCode::NOT_FOUND,
            "/metrics is off: start the server with --metrics-token-file FILE and send `Authorization: Bearer TOKEN` (docs/DEPLOYMENT.md)\n",
        )
            .into_response();
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if !same_token(given.as_bytes(), token.as_bytes()) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "/metrics needs the operator's token: Authorization: Bearer TOKEN\n",
        )
            .into_response();
    }
    let text = web.metrics.encode(web.lobby.live_games());
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}

/// Whether two tokens are equal, in a time that does not depend on where
/// they differ.
fn same_token(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The web view, serving.
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    web: Arc<Web>,
    task: tokio::task::JoinHandle<()>,
}

impl HttpServer {
    /// Binds `addr` and serves the web view on it.
    pub async fn start(addr: SocketAddr, web: Arc<Web>) -> std::io::Result<HttpServer> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let task = tokio::spawn(accept_loop(listener, web.clone()));
        info!(%local_addr, "web view listening");
        Ok(HttpServer {
            local_addr,
            web,
            task,
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The shared state.
    pub fn web(&self) -> &Arc<Web> {
        &self.web
    }

    /// Stops accepting, ends every event stream and waits (boundedly) for
    /// open connections to finish their answers.
    pub async fn shutdown(self) {
        self.web.shutdown.send_replace(true);
        let _ = tokio::time::timeout(SHUTDOWN_WAIT + Duration::from_secs(1), self.task).await;
    }
}

/// Most refused connections being answered at once; beyond, a refused
/// connection is closed with no answer.
const MAX_REFUSING: usize = 64;
/// How long a refused connection is given to take its answer.
const REFUSAL_WAIT: Duration = Duration::from_secs(1);

/// Answers a connection beyond its share (issue 31) with a 503 that names
/// the setting, and closes it: the answer is written (the new socket's
/// send buffer is empty), what the client sent meanwhile is read and
/// dropped, so the close does not reset the answer away, all within
/// [`REFUSAL_WAIT`] and at most [`MAX_REFUSING`] at a time.
fn refuse(
    mut stream: tokio::net::TcpStream,
    refused: &crate::shares::Refused,
    refusing: &Arc<tokio::sync::Semaphore>,
) {
    let Ok(permit) = refusing.clone().try_acquire_owned() else {
        return;
    };
    let body = format!("{refused}\n");
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: 5\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let _permit = permit;
        let _ = tokio::time::timeout(REFUSAL_WAIT, async {
            stream.write_all(answer.as_bytes()).await?;
            stream.shutdown().await?;
            let mut sink = [0u8; 1024];
            while stream.read(&mut sink).await? > 0 {}
            Ok::<(), std::io::Error>(())
        })
        .await;
    });
}

async fn accept_loop(listener: TcpListener, web: Arc<Web>) {
    let router = router(web.clone());
    let refusing = Arc::new(tokio::sync::Semaphore::new(MAX_REFUSING));
    let mut stop = web.shutting_down();
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.changed() => break,
        };
        let (stream, remote) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of file descriptors and the like: wait a little.
                warn!(error = %e, "web view: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        // Issue 31: a connection holds a place in the total, its address's
        // share and its network's, for as long as it is open.
        let party = web.connections.settings.grouping.party(remote.ip());
        let slot = match web.http_connections.take(&party) {
            Ok(slot) => slot,
            Err(refused) => {
                debug!(%remote, %refused, "web view: connection refused");
                web.metrics.error("http_unavailable");
                refuse(stream, &refused, &refusing);
                continue;
            }
        };
        let router = router.clone();
        let mut stop = web.shutting_down();
        connections.spawn(async move {
            let _slot = slot;
            let service = hyper::service::service_fn(move |mut request| {
                request.extensions_mut().insert(ConnectInfo(remote));
                router.clone().oneshot(request)
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT);
            let (stream, moved) = Watched::new(stream);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                served = connection.as_mut() => {
                    if let Err(e) = served {
                        debug!(%remote, error = %e, "web view: connection ended");
                    }
                }
                // Issue 31: a client that stops reading gives its place up.
                _ = stalled(moved) => {
                    debug!(%remote, "web view: no byte moved for the stall timeout; connection closed");
                }
                _ = stop.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(SHUTDOWN_WAIT, connection).await;
                }
            }
        });
        // Reap the finished ones as we go.
        while connections.try_join_next().is_some() {}
    }
    let _ = tokio::time::timeout(SHUTDOWN_WAIT, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    connections.abort_all();
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    // G6 (issue 31): a connection whose client stops reading is given up
    // after STALL_TIMEOUT with no byte moved, while one whose bytes keep
    // moving (an event stream's keep-alive every 15 s) is not. Time is
    // tokio's paused clock: nothing here waits for real.
    #[tokio::test(start_paused = true)]
    async fn g6_issue31_a_connection_that_stops_reading_is_given_up() {
        // A client that reads nothing: the server's writes fill the pipe.
        let (client, server) = tokio::io::duplex(64);
        let (mut io, moved) = Watched::new(server);
        let started = tokio::time::Instant::now();
        let writer = tokio::spawn(async move {
            let _ = io.write_all(&[7u8; 4096]).await;
        });
        stalled(moved).await;
        assert!(started.elapsed() >= STALL_TIMEOUT, "not given up early");
        writer.abort();
        drop(client);

        // A client that reads, a little every 15 s: never stalled.
        let (mut client, server) = tokio::io::duplex(64);
        let (mut io, moved) = Watched::new(server);
        tokio::spawn(async move {
            loop {
                if io.write_all(b": keep-alive\n").await.is_err() {
                    return;
                }
                tokio::time::sleep(STREAM_KEEP_ALIVE).await;
            }
        });
        let reader = tokio::spawn(async move {
            let mut buf = [0u8; 64];
            while client.read(&mut buf).await.is_ok_and(|n| n > 0) {}
        });
        let watched = tokio::time::timeout(STALL_TIMEOUT * 10, stalled(moved)).await;
        assert!(
            watched.is_err(),
            "a connection whose bytes move was given up"
        );
        reader.abort();
    }
}
