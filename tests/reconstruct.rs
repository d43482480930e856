//! Issue "Reconstruct moves the way people really play": real handling,
//! fast replies, reconnects, new games, retractions.

use boardcast::event::EventKind;
use boardcast::games::chess::{Position, Square};
use boardcast::replay::{Replay, replay_reader};
use boardcast::track::{Cell, Config};
use boardcast_sim::{self as sim, Human, Sensed, Session, SourceGame, Table, check::compare};
use proptest::prelude::*;

use crate::games::all_games;

fn replay_session(session: &Session) -> Replay {
    let text = sim::dgt::capture_text(session, &[]);
    replay_reader(text.as_bytes(), Config::default(), "sim".as_ref()).unwrap()
}

#[test]
fn human_handling_of_every_seventh_game_is_exact_with_no_false_errors() {
    let games = all_games();
    let mut moves = 0;
    let mut retracts = 0;
    for (i, game) in games.iter().enumerate().step_by(7) {
        for seed in [11, 12] {
            let rotated = (i + seed as usize).is_multiple_of(4);
            let session =
                sim::simulate(game, &mut Human::default(), seed * 7919 + i as u64, rotated);
            let replay = replay_session(&session);
            let c = compare(game, &session, &replay);
            assert!(
                c.exact,
                "game {} seed {seed}: right up to ply {} of {}: {:?} vs {:?}",
                i + 1,
                c.plies_right,
                c.plies,
                c.published.get(c.plies_right),
                game.sans.get(c.plies_right)
            );
            assert_eq!(c.error_alerts, 0, "game {} seed {seed}", i + 1);
            moves += c.moves_published;
            retracts += c.retracts;
        }
    }
    assert!(moves > 40_000);
    assert!(
        retracts * 1000 <= moves,
        "{retracts} wrong moves shown in {moves}"
    );
}

/// A random legal game of up to `plies` plies, chosen by `picks`.
fn random_game(picks: &[u16], chess960: Option<u16>) -> SourceGame {
    let start = match chess960 {
        Some(n) => chess960_start(n),
        None => Position::standard(),
    };
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut sans = Vec::new();
    for pick in picks {
        let legal: Vec<_> = pos.legal_moves().collect();
        if legal.is_empty() {
            break;
        }
        let m = legal[*pick as usize % legal.len()];
        sans.push(pos.san(m));
        pos = pos.play(m);
        moves.push(m);
    }
    SourceGame {
        start,
        moves,
        sans,
        tags: Vec::new(),
    }
}

/// The Chess960 start position number `n` (0..960), by the standard
/// numbering scheme.
fn chess960_start(n: u16) -> Position {
    let mut n = n as usize % 960;
    let mut rank = [' '; 8];
    let light = [1, 3, 5, 7];
    let dark = [0, 2, 4, 6];
    rank[light[n % 4]] = 'B';
    n /= 4;
    rank[dark[n % 4]] = 'B';
    n /= 4;
    let free = |rank: &mut [char; 8], k: usize, piece: char| {
        let idx = rank
            .iter()
            .enumerate()
            .filter(|(_, c)| **c == ' ')
            .nth(k)
            .map(|(i, _)| i)
            .unwrap();
        rank[idx] = piece;
    };
    free(&mut rank, n % 6, 'Q');
    n /= 6;
    let knights = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = knights[n];
    free(&mut rank, b, 'N');
    free(&mut rank, a, 'N');
    for piece in ['R', 'K', 'R'] {
        free(&mut rank, 0, piece);
    }
    let white: String = rank.iter().collect();
    let fen = format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1",
        white.to_lowercase()
    );
    Position::from_fen(&fen, true).expect("a Chess960 start")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Any legal game, handled with exaggerated human habits, comes out
    /// exactly.
    #[test]
    fn random_games_with_random_handling_are_exact(
        picks in proptest::collection::vec(any::<u16>(), 1..120),
        chess960 in proptest::option::of(0u16..960),
        seed in any::<u64>(),
        rotated in any::<bool>(),
    ) {
        let game = random_game(&picks, chess960);
        let mut profile = Human {
            slide: 0.7,
            wrong_square: 0.15,
            touch: 0.1,
            adjust: 0.1,
            flicker: 0.1,
            knock: 0.05,
            knock_moved: 0.05,
            misread: 0.1,
            capture_beside: 0.2,
            takeback: 0.03,
            blitz: 0.5,
            first_ms: 0,
            capture_slide: 0.0,
        };
        let session = sim::simulate(&game, &mut profile, seed, rotated);
        let replay = replay_session(&session);
        let c = compare(&game, &session, &replay);
        prop_assert!(c.exact, "right up to ply {} of {}", c.plies_right, c.plies);
        prop_assert_eq!(c.error_alerts, 0);
    }

    /// Knocks of either side's pieces (the piece that just moved
    /// included; 0.08 per move, four times the venue-typical rate), and a result reported with the kings in
    /// the centre in either order: the record is exact, no error alert is
    /// raised, and the result is the one signalled.
    #[test]
    fn knocks_and_result_signals_mixed_into_random_games_raise_nothing(
        picks in proptest::collection::vec(any::<u16>(), 1..100),
        seed in any::<u64>(),
        rotated in any::<bool>(),
        result in 0usize..3,
    ) {
        let game = random_game(&picks, None);
        let mut profile = Human {
            knock: 0.05,
            knock_moved: 0.03,
            takeback: 0.0,
            ..Human::default()
        };
        let mut session = sim::simulate(&game, &mut profile, seed, rotated);
        let last = game.moves.iter().fold(game.start.clone(), |p, m| p.play(*m));
        let result = ["1-0", "0-1", "1/2-1/2"][result];
        let signalled = last.outcome().is_none()
            && sim::faults::chess::kings_to_centre(&mut session, &last, result, seed).is_some();
        let replay = replay_session(&session);
        let c = compare(&game, &session, &replay);
        prop_assert!(c.exact, "right up to ply {} of {}", c.plies_right, c.plies);
        prop_assert_eq!(c.error_alerts, 0);
        if signalled {
            // The results that stand: a result the position gave is void
            // once a ply before it is withdrawn (a knock published as mate,
            // then set back).
            let mut ends = Vec::new();
            for (_, e) in &replay.events {
                match &e.kind {
                    EventKind::GameEnd { result, reason, .. } => {
                        ends.push((result.clone(), reason.clone()));
                    }
                    EventKind::Retract { .. } | EventKind::Takeback { .. } => ends.clear(),
                    _ => {}
                }
            }
            prop_assert_eq!(ends, vec![(result.to_string(), "kings in the centre".to_string())]);
        }
    }
}

/// The board's contents after every reading up to and including `t`.
fn board_at(session: &Session, t: u64) -> Box<[Cell; 64]> {
    let mut cells = session.initial.clone();
    for (at, r) in &session.readings {
        if *at > t {
            break;
        }
        match r {
            Sensed::Square(sq, c) => cells[*sq as usize] = *c,
            Sensed::Dump(d) => cells = d.clone(),
        }
    }
    cells
}

fn ply_done(session: &Session, ply: usize) -> u64 {
    session
        .truth
        .iter()
        .filter_map(|t| match t {
            sim::Truth::Ply { ply: p, at } if *p == ply => Some(*at),
            _ => None,
        })
        .next_back()
        .unwrap()
}

#[test]
fn moves_made_while_the_board_was_away_are_explained_by_the_next_dump() {
    let games = all_games();
    for (i, game) in games.iter().enumerate().step_by(97) {
        for missed in 1..=4usize {
            let mut session = sim::simulate(game, &mut sim::Clean, i as u64, false);
            let k = 10.min(game.moves.len().saturating_sub(missed + 1));
            if k == 0 {
                continue;
            }
            // The cable is pulled after ply k and plugged in after ply k + missed.
            let (from, to) = (ply_done(&session, k), ply_done(&session, k + missed));
            let dump = board_at(&session, to);
            session.readings.retain(|(t, _)| *t <= from || *t > to);
            let at = session.readings.partition_point(|(t, _)| *t <= from);
            session.readings.insert(at, (to + 1, Sensed::Dump(dump)));
            let replay = replay_session(&session);
            let c = compare(game, &session, &replay);
            if missed <= 2 {
                assert!(
                    c.exact,
                    "game {} with {missed} plies missed after ply {k}: right up to ply {}",
                    i + 1,
                    c.plies_right
                );
            } else {
                // Two moves of one side missed: the board cannot tell their
                // order. The plies before and after, and the position, are right.
                assert_eq!(c.published.len(), game.sans.len(), "game {}", i + 1);
                assert!(c.plies_right >= k, "game {}", i + 1);
                assert_eq!(
                    c.published[k + missed..],
                    game.sans[k + missed..],
                    "game {}",
                    i + 1
                );
            }
        }
    }
}

#[test]
fn a_new_start_position_begins_a_new_game_and_keeps_the_old_one() {
    let games = all_games();
    let (a, b) = (&games[3], &games[2010]);
    assert!(b.start.is_chess960());
    let first = sim::simulate(a, &mut Human::default(), 5, false);
    let second = sim::simulate(b, &mut Human::default(), 6, false);
    // Clear the board square by square, then set up the next start position.
    let end = first.readings.last().unwrap().0 + 10_000;
    let mut readings = first.readings.clone();
    let mut cells = board_at(&first, end);
    let mut t = end;
    for sq in Square::ALL {
        if cells[sq as usize] != Cell::Empty {
            t += 300;
            cells[sq as usize] = Cell::Empty;
            readings.push((t, Sensed::Square(sq, Cell::Empty)));
        }
    }
    for sq in Square::ALL {
        if second.initial[sq as usize] != Cell::Empty {
            t += 300;
            readings.push((t, Sensed::Square(sq, second.initial[sq as usize])));
        }
    }
    let offset = t + 1_000;
    readings.extend(
        second
            .readings
            .iter()
            .map(|(at, r)| (at + offset, r.clone())),
    );
    let session = Session {
        readings,
        ..first.clone()
    };
    let replay = replay_session(&session);
    let log = replay.log.games();
    assert_eq!(log.len(), 2);
    assert_eq!(log[0].sans, a.sans);
    assert!(!log[0].chess960);
    assert_eq!(log[1].sans, b.sans);
    assert!(log[1].chess960);
    let starts = replay
        .events
        .iter()
        .filter(|(_, e)| matches!(e.kind, EventKind::GameStart { .. }))
        .count();
    assert_eq!(starts, 2);
}

#[test]
fn a_rook_paused_on_its_way_is_shown_provisionally_and_superseded() {
    // White's rook slides a1-a3 and rests on a3 for two seconds, then goes
    // on to a5: the board showed Ra3 long enough to publish it, so the
    // correction must be explicit.
    let pos = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", false).unwrap();
    let mut table = Table::new(pos.board(), 1);
    table.wait(1_000);
    let rook = pos.board().piece_at(Square::A1).unwrap();
    table.lift(Square::A1);
    table.wait(200);
    table.put(Square::A3, rook);
    table.wait(2_000);
    table.lift(Square::A3);
    table.wait(200);
    table.put(Square::A5, rook);
    table.wait(5_000);
    let session = table.into_session();
    // Not a start position: tell the reconstructor the game's position, as
    // an operator would for a game resumed mid-way.
    let mut r = boardcast::track::Reconstructor::new(Config::default());
    r.start_from(0, pos.clone(), false);
    r.handle_board(0, &session.initial[..]);
    while r.poll_event().is_some() {}
    let mut kinds = Vec::new();
    for (t, reading) in &session.readings {
        while let Some(due) = r.poll_timeout().filter(|d| d <= t) {
            r.handle_timeout(due);
        }
        if let Sensed::Square(sq, cell) = reading {
            r.handle_square(*t, *sq, *cell);
        }
        while let Some((_, e)) = r.poll_event() {
            kinds.push(e);
        }
    }
    while let Some(due) = r.poll_timeout() {
        r.handle_timeout(due);
    }
    while let Some((_, e)) = r.poll_event() {
        kinds.push(e);
    }
    let summary: Vec<String> = kinds
        .iter()
        .map(|e| match e {
            EventKind::Move { notation: san, .. } => format!("move {san}"),
            EventKind::Provisional { notation: san, .. } => format!("provisional {san}"),
            EventKind::Retract { id: uci, .. } => format!("retract {uci}"),
            other => format!("{other:?}"),
        })
        .collect();
    // The stop is shown provisionally and superseded; the record has only
    // the move made, never a retraction.
    assert_eq!(summary, ["provisional Ra3", "provisional Ra5", "move Ra5"]);
}
