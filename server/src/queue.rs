//! The bounded queues between the server's tasks: a connection's outbox, a
//! game's commands, a late spectator's catch-up queue.
//!
//! They are [flume](https://docs.rs/flume) channels, whose buffer grows
//! with what is queued and costs nothing while empty. tokio's `mpsc`
//! allocates a block of 32 slots when a channel is made, about 2 KiB for
//! these messages: three a game (two outboxes and the command queue),
//! about 7 KiB of every idle game (issue 16, BENCHMARKS.md "Memory").
//!
//! The API is the part of tokio's `mpsc` the server uses, with the same
//! names and meanings, so a task reads the same either way.

use std::fmt;
use std::sync::Arc;

use tokio::sync::{Semaphore, TryAcquireError};

/// The sending half; cheap to clone.
pub struct Sender<T> {
    queue: flume::Sender<T>,
    room: Arc<Semaphore>,
}

/// The receiving half. Dropping it drops what is still queued at once (a
/// join's reply channel in it then tells the joiner), and every sender is
/// refused from then on.
pub struct Receiver<T> {
    queue: flume::Receiver<T>,
    room: Arc<Semaphore>,
}

/// A queue that holds at most `capacity` messages: a sender waits
/// ([`Sender::send`]) or is refused ([`Sender::try_send`]) when it is
/// full.
///
/// The bound is a semaphore of `capacity` permits in front of an
/// unbounded flume queue: a sender takes a permit, then queues at once, so
/// a [`Sender::send`] cancelled while it waits (a timeout) has queued
/// nothing, as tokio's promises; flume's own bounded `send_async` may
/// still deliver a message after its future was dropped.
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = flume::unbounded();
    let room = Arc::new(Semaphore::new(capacity));
    (
        Sender {
            queue: tx,
            room: room.clone(),
        },
        Receiver { queue: rx, room },
    )
}

/// The receiver is gone; the message comes back.
#[derive(Debug, PartialEq, Eq)]
pub struct SendError<T>(pub T);

/// Why [`Sender::try_send`] did not queue a message; the message comes
/// back.
#[derive(Debug, PartialEq, Eq)]
pub enum TrySendError<T> {
    /// The queue holds its capacity (a reader too slow).
    Full(T),
    /// The receiver is gone.
    Closed(T),
}

/// Why [`Receiver::try_recv`] returned nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryRecvError {
    /// Nothing is queued now.
    Empty,
    /// Nothing is queued and every sender is gone.
    Disconnected,
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender {
            queue: self.queue.clone(),
            room: self.room.clone(),
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("queued", &self.queue.len())
            .field("room", &self.room.available_permits())
            .finish()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("queued", &self.queue.len())
            .finish()
    }
}

impl<T> Sender<T> {
    /// Queues `message`, waiting while the queue is full; an error if the
    /// receiver is gone. Cancel-safe: dropped before it returns, it has
    /// queued nothing.
    pub async fn send(&self, message: T) -> Result<(), SendError<T>> {
        match self.room.acquire().await {
            Ok(permit) => {
                permit.forget();
                self.push(message).map_err(SendError)
            }
            Err(_) => Err(SendError(message)),
        }
    }

    /// Queues `message` now, or says why not.
    pub fn try_send(&self, message: T) -> Result<(), TrySendError<T>> {
        match self.room.try_acquire() {
            Ok(permit) => {
                permit.forget();
                self.push(message).map_err(TrySendError::Closed)
            }
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(message)),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(message)),
        }
    }

    /// Queues a message a permit was taken for.
    fn push(&self, message: T) -> Result<(), T> {
        self.queue.send(message).map_err(|flume::SendError(m)| m)
    }

    /// How many more messages the queue takes now.
    pub fn capacity(&self) -> usize {
        self.room.available_permits()
    }

    /// Whether `other` sends to the same queue.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        Arc::ptr_eq(&self.room, &other.room)
    }

    /// Whether the receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.room.is_closed() || self.queue.is_disconnected()
    }
}

impl<T> Receiver<T> {
    /// The next message, waiting for it; `None` once every sender is gone
    /// and nothing is left. Cancel-safe: a message is taken only when this
    /// returns it.
    pub async fn recv(&mut self) -> Option<T> {
        let message = self.queue.recv_async().await.ok()?;
        self.room.add_permits(1);
        Some(message)
    }

    /// The next message if one is queued now.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        match self.queue.try_recv() {
            Ok(message) => {
                self.room.add_permits(1);
                Ok(message)
            }
            Err(flume::TryRecvError::Empty) => Err(TryRecvError::Empty),
            Err(flume::TryRecvError::Disconnected) => Err(TryRecvError::Disconnected),
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        // Refuse senders first, then drop what they queued (flume keeps a
        // queue's messages until its last sender is gone).
        self.room.close();
        while self.queue.try_recv().is_ok() {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn g6_a_full_queue_refuses_and_a_closed_one_says_so() {
        // A connection's outbox must refuse a message when a slow reader
        // let it fill (the game drops that reader, G6), and say so when
        // the connection is gone; nothing is lost or reordered meanwhile.
        let (tx, mut rx) = channel(2);
        assert_eq!(tx.capacity(), 2);
        tx.try_send(1).unwrap();
        tx.send(2).await.unwrap();
        assert_eq!(tx.capacity(), 0);
        assert_eq!(tx.try_send(3), Err(TrySendError::Full(3)));
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(tx.capacity(), 1);
        assert_eq!(rx.try_recv(), Ok(2));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        assert!(!tx.is_closed());
        drop(rx);
        assert!(tx.is_closed());
        assert_eq!(tx.try_send(4), Err(TrySendError::Closed(4)));
        assert_eq!(tx.send(5).await, Err(SendError(5)));
    }

    #[tokio::test]
    async fn a_receiver_ends_when_every_sender_is_gone_after_the_rest() {
        let (tx, mut rx) = channel(4);
        let tx2 = tx.clone();
        tx.send("a").await.unwrap();
        tx2.send("b").await.unwrap();
        drop((tx, tx2));
        assert_eq!(rx.recv().await, Some("a"));
        assert_eq!(rx.recv().await, Some("b"));
        assert_eq!(rx.recv().await, None);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    }

    #[tokio::test]
    async fn g6_a_send_cancelled_while_it_waits_queues_nothing() {
        // A connection gives a full game queue GAME_SEND_TIMEOUT and tells
        // its client "busy" (send it again) when it runs out: the message
        // must then not reach the game as well.
        let (tx, mut rx) = channel(1);
        tx.send(1).await.unwrap();
        let waited = tokio::time::timeout(std::time::Duration::from_millis(20), tx.send(2)).await;
        assert!(waited.is_err(), "the queue was full");
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty), "2 was not queued");
        tx.send(3).await.unwrap();
        assert_eq!(rx.recv().await, Some(3));
    }

    #[tokio::test]
    async fn g6_a_dropped_receiver_drops_what_was_queued_at_once() {
        // A game task that ends drops its queue: a join waiting in it is
        // told at once (its reply channel closes), not after a timeout.
        let (tx, rx) = channel(4);
        let (reply, answer) = tokio::sync::oneshot::channel::<bool>();
        tx.send(reply).await.unwrap();
        drop(rx);
        assert!(answer.await.is_err(), "the reply channel closed");
        assert!(tx.is_closed());
        let (reply, _answer) = tokio::sync::oneshot::channel::<bool>();
        assert!(matches!(tx.try_send(reply), Err(TrySendError::Closed(_))));
    }

    #[tokio::test]
    async fn a_waiting_send_goes_through_once_room_is_made() {
        let (tx, mut rx) = channel(1);
        tx.send(1).await.unwrap();
        let waiting = tokio::spawn(async move { tx.send(2).await });
        assert_eq!(rx.recv().await, Some(1));
        waiting.await.unwrap().unwrap();
        assert_eq!(rx.recv().await, Some(2));
    }
}
