//! Issue "Board families": the bundled games played on simulated
//! Millennium ChessLink boards and on chess boards speaking the open
//! protocol (with piece identity), clean and with human handling, every
//! fifth board turned round, replay through each family's driver into the
//! same reconstructor exactly, with no error alert.

use boardcast::board::Config;
use boardcast::capture::Protocol;
use boardcast::event::EventKind;
use boardcast::replay::replay_reader;
use boardcast::sim::{self, Clean, Human, Profile};

use crate::games::all_games;

/// Plays every `step`-th bundled game on a `protocol` board and checks the
/// replay; returns how many games were played.
fn every_game_replays_exactly_on(protocol: Protocol, human: bool, step: usize) -> usize {
    let games = all_games();
    let mut played = 0;
    for (i, game) in games.iter().enumerate().step_by(step) {
        let rotated = i % 5 == 4;
        let mut clean = Clean;
        let mut person = Human::default();
        let profile: &mut dyn Profile = if human { &mut person } else { &mut clean };
        let session = sim::simulate(game, profile, i as u64, rotated);
        let text = sim::family::capture_text(&session, protocol);
        let replay = replay_reader(text.as_bytes(), Config::default(), "family".as_ref())
            .unwrap_or_else(|e| panic!("{}: game {}: {e}", protocol.name(), i + 1));
        let check = sim::check::compare(game, &session, &replay);
        assert!(
            check.exact,
            "{} game {} (human {human}, rotated {rotated}): right up to ply {} of {}",
            protocol.name(),
            i + 1,
            check.plies_right,
            check.plies
        );
        let errors: Vec<&str> = replay
            .events
            .iter()
            .filter_map(|(_, e)| match &e.kind {
                EventKind::Alert(a) if a.kind.is_error() && !a.cleared => Some(a.message.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            errors.is_empty(),
            "{} game {}: {errors:?}",
            protocol.name(),
            i + 1
        );
        played += 1;
    }
    played
}

#[test]
fn bundled_games_replay_exactly_on_millennium_boards() {
    assert!(every_game_replays_exactly_on(Protocol::Millennium, false, 5) >= 400);
    assert!(every_game_replays_exactly_on(Protocol::Millennium, true, 11) >= 190);
}

#[test]
fn bundled_games_replay_exactly_on_open_protocol_chess_boards() {
    assert!(every_game_replays_exactly_on(Protocol::Open, false, 5) >= 400);
    assert!(every_game_replays_exactly_on(Protocol::Open, true, 11) >= 190);
}

#[test]
fn the_binary_replays_millennium_and_open_protocol_chess_captures_to_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let games = all_games();
    for (protocol, index) in [(Protocol::Millennium, 3), (Protocol::Open, 4)] {
        let game = &games[index];
        let session = sim::simulate(game, &mut Human::default(), 11, false);
        let path = dir.path().join(format!("{}.capture", protocol.name()));
        std::fs::write(&path, sim::family::capture_text(&session, protocol)).unwrap();
        let pgn = dir.path().join(format!("{}.pgn", protocol.name()));
        let out = crate::games::boardcast()
            .arg("replay")
            .arg(&path)
            .arg("--pgn")
            .arg(&pgn)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            protocol.name(),
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&pgn).unwrap();
        assert_eq!(
            crate::games::python_chess_mainlines(&text),
            vec![game.sans.clone()],
            "{}",
            protocol.name()
        );
    }
}
