//! A user-space UDP relay that delays every datagram by a fixed time in
//! each direction: a long network path on loopback, for machines where
//! `tc netem` is not to be had (`scripts/round-trips.sh` uses netem in a
//! network namespace where the kernel has it, and this relay otherwise).
//!
//! Each client address that sends to the relay gets its own upstream socket
//! to the server, so the server sees one peer per client connection as it
//! would without the relay. Datagrams keep their order (one queue per
//! direction and peer, each released at its arrival time plus the delay);
//! nothing is dropped or duplicated. The relay runs on the tool's Tokio
//! runtime and stops when [`Relay`] is dropped.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The largest datagram relayed (QUIC sends at most 65,527 bytes of UDP
/// payload; loopback's MTU lets it).
pub const MAX_DATAGRAM: usize = 65_536;

/// A running relay: connect to [`Relay::addr`] instead of the server.
pub struct Relay {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Relay {
    /// Starts a relay on 127.0.0.1 (a free port) to `server`, delaying each
    /// datagram by `delay` each way.
    pub async fn start(server: SocketAddr, delay: Duration) -> std::io::Result<Relay> {
        let front = Arc::new(UdpSocket::bind("127.0.0.1:0").await?);
        let addr = front.local_addr()?;
        let task = tokio::spawn(run(front, server, delay));
        Ok(Relay { addr, task })
    }

    /// Where clients send.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Where a queue's datagrams go.
enum Out {
    /// To the server, on a client's upstream socket.
    Server(Arc<UdpSocket>),
    /// To a client, from the relay's own socket.
    Client(Arc<UdpSocket>, SocketAddr),
}

/// A queue that sends each datagram `delay` after it was queued, in order;
/// it ends when its sender is dropped.
fn delayed(delay: Duration, out: Out) -> mpsc::UnboundedSender<(Instant, Vec<u8>)> {
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    tokio::spawn(async move {
        while let Some((at, bytes)) = rx.recv().await {
            tokio::time::sleep_until(at + delay).await;
            // UDP: a send that fails is a datagram lost, as on a network.
            let _ = match &out {
                Out::Server(s) => s.send(&bytes).await,
                Out::Client(s, to) => s.send_to(&bytes, *to).await,
            };
        }
    });
    tx
}

/// One client's path: the queue towards the server, and the task that
/// reads the server's answers into the queue towards the client.
struct Peer {
    to_server: mpsc::UnboundedSender<(Instant, Vec<u8>)>,
    reader: JoinHandle<()>,
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

async fn run(front: Arc<UdpSocket>, server: SocketAddr, delay: Duration) {
    let mut peers: HashMap<SocketAddr, Peer> = HashMap::new();
    let mut buf = vec![0u8; MAX_DATAGRAM];
    loop {
        let Ok((n, from)) = front.recv_from(&mut buf).await else {
            return;
        };
        let datagram = (Instant::now(), buf[..n].to_vec());
        if let Some(p) = peers.get(&from) {
            let _ = p.to_server.send(datagram);
            continue;
        }
        let Ok(up) = UdpSocket::bind("127.0.0.1:0").await else {
            continue;
        };
        if up.connect(server).await.is_err() {
            continue;
        }
        let up = Arc::new(up);
        let to_server = delayed(delay, Out::Server(up.clone()));
        let to_client = delayed(delay, Out::Client(front.clone(), from));
        let reader = tokio::spawn(async move {
            let mut buf = vec![0u8; MAX_DATAGRAM];
            while let Ok(n) = up.recv(&mut buf).await {
                if to_client.send((Instant::now(), buf[..n].to_vec())).is_err() {
                    return;
                }
            }
        });
        let _ = to_server.send(datagram);
        peers.insert(from, Peer { to_server, reader });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 16: the relay delays each way by the time asked and keeps the
    // datagrams and their order.
    #[tokio::test]
    async fn delays_each_way_and_keeps_order() {
        let server = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let server_addr = server.local_addr().unwrap();
        tokio::spawn(async move {
            let mut buf = [0u8; 64];
            while let Ok((n, from)) = server.recv_from(&mut buf).await {
                let _ = server.send_to(&buf[..n], from).await;
            }
        });
        let delay = Duration::from_millis(30);
        let relay = Relay::start(server_addr, delay).await.unwrap();
        let client = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        client.connect(relay.addr()).await.unwrap();
        let t0 = std::time::Instant::now();
        for i in 0u8..5 {
            client.send(&[i]).await.unwrap();
        }
        let mut got = Vec::new();
        let mut buf = [0u8; 64];
        for _ in 0..5 {
            let n = tokio::time::timeout(Duration::from_secs(5), client.recv(&mut buf))
                .await
                .expect("the echo comes back through the relay")
                .unwrap();
            got.push(buf[..n].to_vec());
        }
        assert!(t0.elapsed() >= 2 * delay, "{:?}", t0.elapsed());
        assert_eq!(got, (0u8..5).map(|i| vec![i]).collect::<Vec<_>>());
    }
}
