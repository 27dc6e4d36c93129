//! Starting the server: identity, storage, restored games, the QUIC endpoint
//! and its accept loop, and the web view when it has an HTTP address.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use quinn::VarInt;
use thiserror::Error;
use tracing::{info, warn};

use crate::config::{ServerSettings, StoreChoice};
use crate::connection::{close, serve_connection, ConnectionContext};
use crate::endpoint::{endpoint_config, server_config, EndpointError};
use crate::http::{HttpServer, Web};
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::node_id::{self, DirLock, NodeIdError};
use crate::postgres::{NodeConfig, PgStore};
use crate::session::SessionFactory;
use crate::shares::{ShareCaps, ShareNames, Shares};
use crate::sqlite::SqliteStore;
use crate::store::{GameStore, NodeRegistration, StoreError, StoreHandle};
use crate::tls::{Fingerprint, ServerIdentity, TlsError};

/// Why the server could not start.
#[derive(Debug, Error)]
pub enum ServerError {
    /// Certificate setup failed.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// Endpoint configuration failed.
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
    /// Opening or reading the store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The node id or the data directory's lock (issue 25).
    #[error(transparent)]
    NodeId(#[from] NodeIdError),
    /// A node of a league listens on every address and says none: the
    /// other nodes could not send its games' clients to it.
    #[error("this node listens on {0}, which no client can connect to: give --advertise HOST:PORT, the address its clients reach it at (the other nodes send its games' clients there)")]
    NoAdvertise(SocketAddr),
    /// Binding the UDP socket or starting the storage thread failed.
    #[error("cannot {action}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
}

/// How long a drain waits at most for the games to hand themselves over.
pub const DRAIN_WITHIN: Duration = Duration::from_secs(15);

/// How long a drain waits at most, after that, to release the leases left
/// and leave the node table.
pub const LEAVE_WITHIN: Duration = Duration::from_secs(5);

/// A running server.
#[derive(Debug)]
pub struct Server {
    endpoint: quinn::Endpoint,
    fingerprint: Fingerprint,
    local_addr: SocketAddr,
    lobby: Arc<Lobby>,
    restored: usize,
    connections: Arc<ConnectionContext>,
    http: Option<HttpServer>,
    /// The data directory's lock of a node of a league, held while it runs.
    _dir_lock: Option<DirLock>,
}

impl Server {
    /// Start: load or create the certificate, open the store the settings
    /// name (SQLite in the data directory, or PostgreSQL), restore
    /// unfinished games through `factory`, bind and start accepting. Must
    /// be called inside a tokio runtime.
    pub async fn start(
        settings: ServerSettings,
        factory: Arc<dyn SessionFactory>,
    ) -> Result<Server, ServerError> {
        let store: Box<dyn GameStore> = match &settings.store {
            StoreChoice::Sqlite => Box::new(SqliteStore::open(&settings.data_dir)?),
            StoreChoice::Postgres(url) => {
                let url = url.clone();
                // Stable by default (issue 25): the data directory's.
                let id = match &settings.node_id {
                    Some(id) => id.clone(),
                    None => node_id::default_for(&settings.data_dir)?,
                };
                let node = NodeConfig {
                    id,
                    lease: settings.lease,
                };
                info!(node = %node.id, lease_secs = node.lease.as_secs(), "PostgreSQL store; games are leased to this node");
                // The blocking client must not run on a runtime thread.
                Box::new(
                    tokio::task::spawn_blocking(move || PgStore::connect_node(&url, node))
                        .await
                        .map_err(|e| StoreError::Backend {
                            operation: "connect to PostgreSQL",
                            detail: e.to_string(),
                        })??,
                )
            }
        };
        Self::start_with_store(settings, factory, store).await
    }

    /// Like [`Server::start`] with another [`GameStore`] backend (e.g. a
    /// PostgreSQL module); the certificate still lives in the data directory.
    pub async fn start_with_store(
        settings: ServerSettings,
        factory: Arc<dyn SessionFactory>,
        store: Box<dyn GameStore>,
    ) -> Result<Server, ServerError> {
        // The store goes to its own thread first: a blocking client (the
        // PostgreSQL one) must not be dropped on a runtime thread, as it
        // would be if a later step failed while this function held it.
        let leased = store.lease_period().is_some();
        let store = StoreHandle::spawn_measured(store, Metrics::new()).map_err(|source| {
            ServerError::Io {
                action: "start the storage thread",
                source,
            }
        })?;
        let (identity, created) =
            ServerIdentity::load_or_create(&settings.data_dir, &settings.cert_names)?;
        if created {
            info!(fingerprint = %identity.fingerprint(), "created a new self-signed certificate");
        }
        // A node of a league (issue 25): one process per data directory,
        // and its secrets must be the league's.
        let dir_lock = if leased {
            Some(DirLock::take(&settings.data_dir)?)
        } else {
            None
        };
        let registration = if leased {
            Some(NodeRegistration {
                dir: node_id::dir_tag(&settings.data_dir)?,
                dir_locked: true,
                secrets: factory.league_secrets(),
            })
        } else {
            None
        };
        let lobby = Arc::new(Lobby::new(factory, store, settings.game_settings()));
        // Lazy: only the ids; each game is rebuilt when first joined (G6).
        let restored = lobby.restore_unfinished().await?;
        lobby.spawn_expiry();
        let socket =
            std::net::UdpSocket::bind(settings.listen).map_err(|source| ServerError::Io {
                action: "bind the UDP socket",
                source,
            })?;
        let endpoint = quinn::Endpoint::new(
            endpoint_config(&identity),
            Some(server_config(&identity)?),
            socket,
            Arc::new(quinn::TokioRuntime),
        )
        .map_err(|source| ServerError::Io {
            action: "start the QUIC endpoint",
            source,
        })?;
        let local_addr = endpoint.local_addr().map_err(|source| ServerError::Io {
            action: "read the bound address",
            source,
        })?;
        let advertise = match &settings.advertise {
            Some(a) => a.clone(),
            None if leased && local_addr.ip().is_unspecified() => {
                return Err(ServerError::NoAdvertise(local_addr))
            }
            None => local_addr.to_string(),
        };
        lobby.store().set_node_address(advertise.clone()).await?;
        lobby.set_address(advertise);
        if let Some(registration) = registration {
            // Refused while another live node holds the id, or when this
            // node's secrets are not the league's.
            lobby.store().register_node(registration).await?;
        }
        lobby.spawn_lease_renewal().await?;
        // G6, issue 31: the connection table is shared per address and
        // per network (an IPv6 /64 is one address), not per exact IP.
        let slots = Shares::new(
            ShareNames {
                what: "connections",
                total: "max_connections",
                per_address: "max_connections_per_address",
                per_network: "max_connections_per_network",
            },
            ShareCaps {
                total: settings.max_connections,
                per_address: settings.max_connections_per_address,
                per_network: settings.max_connections_per_network,
            },
        );
        let grouping = settings.grouping;
        let http_addr = settings.http;
        let max_streams = settings.http_max_streams;
        let metrics_token = settings.metrics_token.clone();
        let ctx = Arc::new(ConnectionContext::new(lobby.clone(), settings));
        let context = ctx.clone();
        let http = match http_addr {
            Some(addr) => Some(
                HttpServer::start(addr, Web::new(ctx.clone(), max_streams, metrics_token))
                    .await
                    .map_err(|source| ServerError::Io {
                        action: "bind the web view's TCP address",
                        source,
                    })?,
            ),
            None => None,
        };
        let accepting = endpoint.clone();
        tokio::spawn(async move {
            while let Some(incoming) = accepting.accept().await {
                let remote = incoming.remote_address();
                // Shutting down (issue 25): refused at once, so the client
                // looks for another node without waiting.
                if ctx.lobby.is_draining() {
                    incoming.refuse();
                    continue;
                }
                // G6: one host or network cannot take every slot.
                match slots.take(&grouping.party(remote.ip())) {
                    Ok(slot) => {
                        let ctx = ctx.clone();
                        tokio::spawn(async move {
                            serve_connection(incoming, ctx).await;
                            drop(slot);
                        });
                    }
                    Err(e) => {
                        warn!(%remote, reason = %e, "connection refused");
                        incoming.refuse();
                    }
                }
            }
        });
        info!(%local_addr, restored, "listening");
        Ok(Server {
            endpoint,
            fingerprint: identity.fingerprint(),
            local_addr,
            lobby,
            restored,
            connections: context,
            http,
            _dir_lock: dir_lock,
        })
    }

    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The certificate fingerprint clients pin.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// What every connection shares (budgets, settings).
    pub fn connections(&self) -> &Arc<ConnectionContext> {
        &self.connections
    }

    /// The lobby.
    pub fn lobby(&self) -> &Arc<Lobby> {
        &self.lobby
    }

    /// The operator's metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        self.lobby.metrics()
    }

    /// The web view's address, if it is on.
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.http.as_ref().map(HttpServer::local_addr)
    }

    /// How many unfinished games the store held at start (each is rebuilt
    /// from its log when first joined).
    pub fn restored_games(&self) -> usize {
        self.restored
    }

    /// Drains this node (issue 25; SIGTERM and SIGINT do it): no new
    /// connection is accepted, every live game finishes what it was
    /// writing, releases its lease and sends its members to another live
    /// node (within `within`), every lease left is released and this node
    /// leaves the league's node table, then [`Server::shutdown`]. Returns
    /// how many games were handed over.
    pub async fn drain(self, within: Duration) -> usize {
        let handed = self.lobby.drain(within).await;
        // Bounded: with the database unreachable, the leases run out.
        match tokio::time::timeout(LEAVE_WITHIN, self.lobby.leave()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                warn!(error = %e, "could not release every lease; the rest run out by themselves")
            }
            Err(_) => {
                warn!("the database did not answer in time; the leases left run out by themselves")
            }
        }
        info!(games = handed, "drained");
        self.shutdown().await;
        handed
    }

    /// Stop the web view (its streams end), close every connection and wait
    /// (at most 5 s each) for the endpoint to be idle. Acknowledged events
    /// are already durable.
    pub async fn shutdown(self) {
        if let Some(http) = self.http {
            http.shutdown().await;
        }
        self.endpoint
            .close(VarInt::from_u32(close::SHUTDOWN), b"server shutting down");
        let _ = tokio::time::timeout(Duration::from_secs(5), self.endpoint.wait_idle()).await;
    }
}
