//! The hub's nonce table, at its MQTT edge: the desk's commands the hub
//! signed and published for the bridges, each waiting for its bridge's
//! acknowledgement on the broker (`{prefix}/bridge/{name}/ack`, which
//! names the command's nonce). Everywhere else a command's answer travels
//! back on the request's own reply channel ([`crate::control::Request`]);
//! only here does it cross the broker, where the nonce is all there is.

use std::collections::HashMap;

use crate::control::{Ack, Reply};

/// Commands sent to the bridges, by nonce: the board each went to and
/// where its answer goes.
#[derive(Debug, Default)]
pub(super) struct Awaiting(HashMap<String, (String, Reply)>);

impl Awaiting {
    /// A command for `board` went out with `nonce`; its answer goes to
    /// `reply` (none: nobody waits).
    pub(super) fn sent(&mut self, nonce: &str, board: &str, reply: Option<Reply>) {
        // Answers nobody waits for any more (timed out) go.
        self.0.retain(|_, (_, r)| !r.is_closed());
        if let Some(reply) = reply {
            self.0.insert(nonce.to_string(), (board.to_string(), reply));
        }
    }

    /// A bridge's acknowledgement: the answer of the command sent with its
    /// nonce, when it comes from the board that command went to.
    pub(super) fn answer(&mut self, ack: Ack) {
        let Some(nonce) = &ack.nonce else {
            return;
        };
        if self
            .0
            .get(nonce)
            .is_some_and(|(board, _)| *board == ack.board)
            && let Some((_, reply)) = self.0.remove(nonce)
        {
            let _ = reply.send(ack);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(nonce: &str, board: &str) -> Ack {
        Ack {
            nonce: Some(nonce.into()),
            board: board.into(),
            accepted: true,
            changed: true,
            message: "m".into(),
            code: None,
        }
    }

    #[test]
    fn an_acknowledgement_answers_the_command_of_its_nonce_and_board_only() {
        let mut awaiting = Awaiting::default();
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        awaiting.sent("n1", "1", Some(tx));
        // Another board's acknowledgement with that nonce is not its.
        awaiting.answer(ack("n1", "2"));
        assert!(rx.try_recv().is_err());
        awaiting.answer(ack("n2", "1"));
        assert!(rx.try_recv().is_err());
        awaiting.answer(ack("n1", "1"));
        assert_eq!(rx.try_recv().unwrap().board, "1");
        // Answered once: the table forgets it.
        assert!(awaiting.0.is_empty());
    }
}
