//! The command route from the live page's listener: a desk correction's
//! answer comes back on its request's own reply channel, never through
//! the public sinks.

use std::sync::Arc;
use std::time::Duration;

use super::{Audience, FanOut, Views};
use crate::control::{OperatorCommand, Router};
use crate::event::GameId;
use crate::family::Family;
use crate::listener::Limits;
use crate::session::{Outputs, Session};
use crate::setup::BoardSetup;
use crate::tournament::Player;

fn player(name: &str) -> Player {
    Player {
        name: name.into(),
        ..Player::default()
    }
}

#[tokio::test]
async fn a_desk_correction_is_answered_on_its_reply_without_passing_through_the_public_sinks() {
    let ids = ["1".to_string()];
    let (public, arbiter) = (FanOut::new(&ids), FanOut::new(&ids));
    let views = Views::new(
        Arc::clone(&public),
        Arc::clone(&arbiter),
        Audience::default(),
        &Limits::default(),
    );
    let router = Router::new();
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    router.add("1", tx);
    *views.router.lock().unwrap() = router;
    let mut public_sees = public.tx.subscribe();
    let mut arbiters_see = arbiter.tx.subscribe();
    // The board: a session publishing to both fan-outs, as the daemon's
    // board task runs it.
    let setup = BoardSetup::new("1", Family::Open, GameId::Chess);
    let round =
        crate::sink::round::Round::new(Default::default(), Default::default(), None, None).unwrap();
    let outputs = Outputs::none()
        .with_public(public.feed(0))
        .with_arbiter(arbiter.feed(0));
    let mut session = Session::new(&setup, crate::track::Config::default(), outputs, round, 1);
    let board = tokio::spawn(async move {
        while let Some(mut request) = rx.recv().await {
            session.handle_request(1_000, &mut request);
        }
    });
    let command = OperatorCommand::SetPlayers {
        white: player("White, W"),
        black: player("Black, B"),
    };
    let answer = super::tools::dispatch(&views, "1", command, "desk: 127.0.0.1", "desk").unwrap();
    let ack = tokio::time::timeout(Duration::from_secs(5), answer)
        .await
        .expect("answered in time")
        .expect("answered");
    assert!(ack.accepted && ack.changed, "{ack:?}");
    assert_eq!(ack.board, "1");
    let nonce = ack.nonce.clone().expect("the desk's nonce");
    assert!(nonce.starts_with("desk-"), "{nonce}");
    // The fan-outs carried the correction, never its answer.
    for (who, rx) in [
        ("public", &mut public_sees),
        ("arbiters", &mut arbiters_see),
    ] {
        let mut seen = Vec::new();
        while let Ok(m) = rx.try_recv() {
            seen.push(m.data.to_string());
        }
        assert!(
            seen.iter().any(|m| m.contains("\"correction\"")),
            "{who}: {seen:?}"
        );
        assert!(seen.iter().all(|m| !m.contains(&nonce)), "{who}: {seen:?}");
    }
    board.abort();
}
