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

/// The sending half; cheap to clone.
pub struct Sender<T>(flume::Sender<T>);

/// The receiving half.
pub struct Receiver<T>(flume::Receiver<T>);

/// A queue that holds at most `capacity` messages: a sender waits
/// ([`Sender::send`]) or is refused ([`Sender::try_send`]) when it is
/// full.
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = flume::bounded(capacity);
    (Sender(tx), Receiver(rx))
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
        Sender(self.0.clone())
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("queued", &self.0.len())
            .field("capacity", &self.0.capacity())
            .finish()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("queued", &self.0.len())
            .finish()
    }
}

impl<T> Sender<T> {
    /// Queues `message`, waiting while the queue is full; an error if the
    /// receiver is gone.
    pub async fn send(&self, message: T) -> Result<(), SendError<T>> {
        self.0
            .send_async(message)
            .await
            .map_err(|flume::SendError(m)| SendError(m))
    }

    /// Queues `message` now, or says why not.
    pub fn try_send(&self, message: T) -> Result<(), TrySendError<T>> {
        self.0.try_send(message).map_err(|e| match e {
            flume::TrySendError::Full(m) => TrySendError::Full(m),
            flume::TrySendError::Disconnected(m) => TrySendError::Closed(m),
        })
    }

    /// How many more messages the queue takes now.
    pub fn capacity(&self) -> usize {
        let cap = self.0.capacity().expect("every queue here is bounded");
        cap.saturating_sub(self.0.len())
    }

    /// Whether the receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.0.is_disconnected()
    }
}

impl<T> Receiver<T> {
    /// The next message, waiting for it; `None` once every sender is gone
    /// and nothing is left. Cancel-safe: a message is taken only when this
    /// returns it.
    pub async fn recv(&mut self) -> Option<T> {
        self.0.recv_async().await.ok()
    }

    /// The next message if one is queued now.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.0.try_recv().map_err(|e| match e {
            flume::TryRecvError::Empty => TryRecvError::Empty,
            flume::TryRecvError::Disconnected => TryRecvError::Disconnected,
        })
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
    async fn a_waiting_send_goes_through_once_room_is_made() {
        let (tx, mut rx) = channel(1);
        tx.send(1).await.unwrap();
        let waiting = tokio::spawn(async move { tx.send(2).await });
        assert_eq!(rx.recv().await, Some(1));
        waiting.await.unwrap().unwrap();
        assert_eq!(rx.recv().await, Some(2));
    }
}
