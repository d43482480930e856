//! The command route: board id -> the board's command queue, one table for
//! every sender (the bridge's MQTT intake, the arbiter view's decisions,
//! the operator's desk; on a hub, the desk's commands for the bridges).
//!
//! A [`Request`] carries its reply channel (a `oneshot`, as a request of
//! mini-redis's buffered client does): the board's session answers on it
//! directly, so an answer never goes looking for its sender. The MQTT
//! intake publishes the answer it gets back as the bridge's `ack`; the
//! desk and the arbiter view hand it to their browser. Only the hub keeps
//! a nonce table, at its MQTT edge ([`crate::hub`]): a command it signs
//! for a bridge is answered on the broker, by nonce.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::{mpsc, oneshot};

use super::{Ack, OperatorCommand, Outcome};

/// Where a board's answer to a request goes.
pub type Reply = oneshot::Sender<Ack>;

/// The receiving end of a [`Reply`].
pub type Answer = oneshot::Receiver<Ack>;

/// A verified command on its way to its board's task, with the way back.
#[derive(Debug)]
pub struct Request {
    /// The command.
    pub command: OperatorCommand,
    /// The nonce to acknowledge.
    pub nonce: Option<String>,
    /// Who sent it, when not a signed command on the command topic (the
    /// arbiter view names itself), for the decisions journal.
    pub by: Option<String>,
    /// Where the board answers (none: nobody waits).
    pub reply: Option<Reply>,
}

impl Request {
    /// A request for `command` with `nonce`, sent by `by`, and the
    /// receiver of its answer.
    pub fn new(
        command: OperatorCommand,
        nonce: Option<String>,
        by: Option<String>,
    ) -> (Request, Answer) {
        let (tx, rx) = oneshot::channel();
        let request = Request {
            command,
            nonce,
            by,
            reply: Some(tx),
        };
        (request, rx)
    }

    /// Answers the request with `ack` (once: a second answer, or one
    /// nobody waits for any more, goes nowhere).
    pub fn answer(&mut self, ack: Ack) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(ack);
        }
    }

    /// Answers the request with board `board`'s `outcome`.
    pub fn answer_outcome(&mut self, board: &str, outcome: &Outcome) {
        let ack = Ack {
            nonce: self.nonce.clone(),
            board: board.to_string(),
            accepted: outcome.accepted,
            changed: outcome.changed,
            message: outcome.message.clone(),
            code: (!outcome.accepted).then(|| "refused_by_board".to_string()),
        };
        self.answer(ack);
    }
}

/// Why a command could not be handed to its board.
#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    /// The command does not pass the checks a command from the broker
    /// passes ([`OperatorCommand::parse`]).
    #[error("{0}")]
    Invalid(#[from] super::CommandError),
    /// It could not be routed.
    #[error(transparent)]
    Route(#[from] RouteError),
}

/// Why a request could not be handed to its board.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    /// No board of that id has a queue here.
    #[error("no such board")]
    NoSuchBoard(Box<Request>),
    /// The board's queue is full (or its task is gone).
    #[error("the board is busy; try again")]
    Busy(Box<Request>),
}

impl RouteError {
    /// The request that was not handed on.
    pub fn into_request(self) -> Request {
        match self {
            RouteError::NoSuchBoard(r) | RouteError::Busy(r) => *r,
        }
    }
}

/// Each board's command queue, by board id. Cloning it shares the table:
/// a board added through one clone is routed by all.
#[derive(Clone, Debug, Default)]
pub struct Router(Arc<Mutex<HashMap<String, mpsc::Sender<Request>>>>);

impl Router {
    /// A router with no board yet.
    pub fn new() -> Router {
        Router::default()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, mpsc::Sender<Request>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Routes board `id`'s commands to `queue` (a hub learns its boards
    /// as the bridges publish them).
    pub fn add(&self, id: &str, queue: mpsc::Sender<Request>) {
        self.lock().insert(id.to_string(), queue);
    }

    /// Whether board `id` has a queue here.
    pub fn has(&self, id: &str) -> bool {
        self.lock().contains_key(id)
    }

    /// Hands `request` to board `board`'s queue without waiting.
    pub fn send(&self, board: &str, request: Request) -> Result<(), RouteError> {
        let Some(queue) = self.lock().get(board).cloned() else {
            return Err(RouteError::NoSuchBoard(Box::new(request)));
        };
        queue.try_send(request).map_err(|e| match e {
            mpsc::error::TrySendError::Full(r) | mpsc::error::TrySendError::Closed(r) => {
                RouteError::Busy(Box::new(r))
            }
        })
    }

    /// Hands `command` to board `board`, with the checks a command from
    /// the broker passes, sent by `by` with a fresh nonce naming the
    /// sender (`prefix-` and 24 random hex digits): the receiver gets the
    /// board's answer. What the desk and the arbiter view send.
    pub fn dispatch(
        &self,
        board: &str,
        command: OperatorCommand,
        by: &str,
        prefix: &str,
    ) -> Result<Answer, DispatchError> {
        let json = serde_json::to_vec(&command).expect("commands serialise");
        let command = OperatorCommand::parse(&json)?;
        let nonce = format!("{prefix}-{}", &super::new_nonce()[..24]);
        let (request, answer) = Request::new(command, Some(nonce), Some(by.to_string()));
        self.send(board, request)?;
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(accepted: bool) -> Outcome {
        Outcome {
            accepted,
            changed: accepted,
            message: "m".into(),
        }
    }

    #[tokio::test]
    async fn a_request_reaches_its_board_and_its_answer_comes_back_on_its_reply() {
        let router = Router::new();
        let (tx, mut rx) = mpsc::channel(1);
        router.clone().add("1", tx);
        let (request, answer) = Request::new(OperatorCommand::Restart, Some("n".into()), None);
        router.send("1", request).unwrap();
        let mut got = rx.recv().await.unwrap();
        got.answer_outcome("1", &outcome(false));
        let ack = answer.await.unwrap();
        assert_eq!(ack.nonce.as_deref(), Some("n"));
        assert_eq!(ack.code.as_deref(), Some("refused_by_board"));
        // A second answer goes nowhere.
        got.answer_outcome("1", &outcome(true));
    }

    #[test]
    fn an_unknown_board_or_a_full_queue_gives_the_request_back() {
        let router = Router::new();
        let (tx, _rx) = mpsc::channel(1);
        router.add("1", tx);
        let r = |n: &str| Request::new(OperatorCommand::Restart, Some(n.into()), None).0;
        let e = router.send("2", r("a")).unwrap_err();
        assert!(matches!(e, RouteError::NoSuchBoard(_)));
        router.send("1", r("b")).unwrap();
        let e = router.send("1", r("c")).unwrap_err();
        assert!(matches!(e, RouteError::Busy(_)));
        assert_eq!(e.into_request().nonce.as_deref(), Some("c"));
    }
}
