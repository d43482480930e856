//! Issue "Tournament outputs": how a game's result comes from the board
//! (result pieces, the kings in the centre) or the operator, and frozen
//! records.

use boardcast::board::{Cell, Config, Reconstructor, Token};
use boardcast::event::EventKind;
use boardcast::games::chess::{Color, Piece, Position, Role, Square};
use boardcast::replay::replay_reader;
use boardcast_sim::{self as sim, Human, faults};

use crate::games::all_games;

fn events(r: &mut Reconstructor) -> Vec<EventKind> {
    let mut out = Vec::new();
    while let Some((_, e)) = r.poll_event() {
        out.push(e);
    }
    out
}

fn play(r: &mut Reconstructor, t: &mut u64, from: Square, to: Square, piece: Piece) {
    r.handle_square(*t, from, Cell::Empty);
    *t += 300;
    r.handle_square(*t, to, Cell::Piece(piece));
    *t += 3_000;
    while let Some(d) = r.poll_timeout().filter(|d| *d <= *t) {
        r.handle_timeout(d);
    }
}

#[test]
fn a_result_piece_ends_the_game_and_freezes_the_record() {
    let mut r = Reconstructor::new(Config::default());
    r.handle_board(0, &faults::cells_of(Position::standard().board()));
    let mut t = 1_000;
    let pawn = Piece {
        color: Color::White,
        role: Role::Pawn,
    };
    play(&mut r, &mut t, Square::E2, Square::E4, pawn);
    events(&mut r);
    r.handle_square(t, Square::D4, Cell::Token(Token::Draw));
    let e = events(&mut r);
    assert!(
        matches!(&e[..], [EventKind::GameEnd { result, reason, .. }] if result == "1/2-1/2" && reason == "result piece (draw) on d4"),
        "{e:?}"
    );
    // Later readings do not change the finished game.
    let black = Piece {
        color: Color::Black,
        role: Role::Pawn,
    };
    play(&mut r, &mut t, Square::E7, Square::E5, black);
    assert!(events(&mut r).is_empty());
    assert_eq!(r.game().unwrap().len(), 1);
}

#[test]
fn the_kings_in_the_centre_give_a_result_and_no_king_move() {
    // White's king could legally step to e4: the second king follows.
    let pos = Position::from_fen("8/8/8/8/8/4K3/8/4k3 w - - 0 1", false).unwrap();
    let mut r = Reconstructor::new(Config::default());
    r.start_from(0, pos.clone(), false);
    r.handle_board(0, &faults::cells_of(pos.board()));
    events(&mut r);
    let wk = Piece {
        color: Color::White,
        role: Role::King,
    };
    let bk = Piece {
        color: Color::Black,
        role: Role::King,
    };
    r.handle_square(1_000, Square::E3, Cell::Empty);
    r.handle_square(1_300, Square::E4, Cell::Piece(wk));
    r.handle_square(1_900, Square::E1, Cell::Empty);
    r.handle_square(2_400, Square::D5, Cell::Piece(bk));
    while let Some(d) = r.poll_timeout() {
        r.handle_timeout(d);
    }
    let e = events(&mut r);
    assert!(
        matches!(&e[..], [EventKind::GameEnd { result, reason, .. }] if result == "1-0" && reason == "kings in the centre"),
        "{e:?}"
    );
}

#[test]
fn simulated_results_by_kings_in_the_centre_over_real_games() {
    let games = all_games();
    let mut checked = 0;
    for (i, game) in games.iter().enumerate().step_by(23) {
        let result = ["1-0", "0-1", "1/2-1/2"][i % 3];
        let mut session = sim::simulate(
            game,
            &mut Human {
                takeback: 0.0,
                ..Human::default()
            },
            i as u64,
            i % 4 == 0,
        );
        let last = game
            .moves
            .iter()
            .fold(game.start.clone(), |p, m| p.play(*m));
        if last.outcome().is_some()
            || faults::kings_to_centre(&mut session, &last, result, i as u64).is_none()
        {
            continue;
        }
        let text = sim::dgt::capture_text(&session, &[]);
        let replay = replay_reader(text.as_bytes(), Config::default(), "k".as_ref()).unwrap();
        let record = replay.log.current().unwrap();
        assert_eq!(record.sans, game.sans, "game {}", i + 1);
        assert_eq!(record.result.as_deref(), Some(result), "game {}", i + 1);
        assert_eq!(record.reason.as_deref(), Some("kings in the centre"));
        let shown_then_withdrawn = replay
            .events
            .iter()
            .filter(|(_, e)| matches!(e.kind, EventKind::Retract { ply, .. } if ply as usize > game.sans.len()))
            .count();
        assert_eq!(
            shown_then_withdrawn,
            0,
            "game {}: no king move shown",
            i + 1
        );
        checked += 1;
    }
    assert!(checked >= 40, "{checked}");
}

#[test]
fn the_operator_sets_a_result_or_restarts_the_board() {
    let mut r = Reconstructor::new(Config::default());
    let start = faults::cells_of(Position::standard().board());
    r.handle_board(0, &start);
    let mut t = 1_000;
    play(
        &mut r,
        &mut t,
        Square::G1,
        Square::F3,
        Piece {
            color: Color::White,
            role: Role::Knight,
        },
    );
    events(&mut r);
    r.set_result(t, "0-1", "set by the operator");
    let e = events(&mut r);
    assert!(matches!(&e[..], [EventKind::GameEnd { result, .. }] if result == "0-1"));
    // Restart: the game ends (already did) and the start position on the
    // board begins a new one once it is set up again.
    r.restart(t + 10);
    r.handle_board(t + 20, &start);
    let e = events(&mut r);
    assert!(matches!(&e[..], [EventKind::GameStart { .. }]), "{e:?}");
    assert_eq!(r.game().unwrap().len(), 0);
}

/// Issue 27, item 5: operator corrections are recorded with the capture
/// (`# command <t_ms> <json>` lines, as the daemon's recorder writes
/// them) and applied at the same point of the readings by a replay, as by
/// a resume: the result the operator set (and set again), the players; a
/// line that is no command is reported and changes nothing.
#[test]
fn corrections_recorded_in_a_capture_are_applied_where_they_were_made() {
    use boardcast::capture::{Direction, Writer};
    use boardcast::pipeline::Diagnostic;

    let full = &all_games()[0];
    // Twenty plies: the game is still going on when the commands come.
    let g = sim::SourceGame {
        start: full.start.clone(),
        moves: full.moves[..20].to_vec(),
        sans: full.sans[..20].to_vec(),
        tags: Vec::new(),
    };
    let session = sim::simulate(&g, &mut sim::Clean, 7, false);
    let mut text = sim::dgt::capture_text(&session, &[]);
    let last: u64 = text
        .lines()
        .rev()
        .find(|l| !l.starts_with('#') && !l.trim().is_empty())
        .and_then(|l| l.split(' ').next()?.parse().ok())
        .expect("a line of bytes");
    let mut w = Writer::append(Vec::new());
    let commands: [&[u8]; 4] = [
        br#"{"command":"set_result","result":"1-0"}"#,
        br#"{"command":"set_result","result":"0-1"}"#,
        br#"{"command":"set_players","white":{"name":"Carlsen, Magnus"},"black":{"name":"Firouzja, Alireza"}}"#,
        br#"{"command":"set_result","result":"2-0"}"#,
    ];
    for (i, json) in commands.iter().enumerate() {
        w.write_chunk(last + 5_000 + i as u64 * 1_000, Direction::Operator, json)
            .unwrap();
    }
    let lines = String::from_utf8(w.into_inner()).unwrap();
    assert!(
        lines.lines().all(|l| l.starts_with("# command ")),
        "{lines}"
    );
    text.push_str(&lines);

    let replay = replay_reader(
        text.as_bytes(),
        boardcast::board::Config::default(),
        std::path::Path::new("corrections"),
    )
    .unwrap();
    let games = replay.log.games();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].sans, g.sans);
    assert_eq!(games[0].result.as_deref(), Some("0-1"));
    assert_eq!(games[0].reason.as_deref(), Some("set by the operator"));
    let corrections: Vec<(u64, &str)> = replay
        .events
        .iter()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Correction { message, .. } => Some((e.t_ms, message.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        corrections,
        [
            (last + 5_000, "result set to 1-0"),
            (last + 6_000, "result changed from 1-0 to 0-1"),
            (
                last + 7_000,
                "players set: Carlsen, Magnus - Firouzja, Alireza"
            ),
        ]
    );
    assert!(
        replay.diagnostics.iter().any(
            |d| matches!(d, Diagnostic::BadFrame { reason, .. } if reason.contains("operator command"))
        ),
        "{:?}",
        replay.diagnostics
    );
    // Readers that know nothing of corrections read the capture as
    // before: the lines are comments.
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("# command "))
        .map(|l| format!("{l}\n"))
        .collect();
    let plain = replay_reader(
        without.as_bytes(),
        boardcast::board::Config::default(),
        std::path::Path::new("plain"),
    )
    .unwrap();
    assert_eq!(plain.log.games()[0].sans, g.sans);
    assert_eq!(plain.log.games()[0].result, None);
}

/// The desk's corrections recorded in a capture, with who made them:
/// a game taken up from a position (a new game there), the board turned
/// round (the game goes on, read turned), a board given a round's pairing
/// board (the game ends, the next is that board's). Each is a correction
/// event naming the desk; a replay applies them where they were made.
#[test]
fn the_desks_corrections_replay_from_the_capture_with_who_made_them() {
    use boardcast::capture::{Direction, Writer};

    let full = &all_games()[0];
    let g = sim::SourceGame {
        start: full.start.clone(),
        moves: full.moves[..10].to_vec(),
        sans: full.sans[..10].to_vec(),
        tags: Vec::new(),
    };
    let session = sim::simulate(&g, &mut sim::Clean, 11, false);
    let mut text = sim::dgt::capture_text(&session, &[]);
    let last: u64 = text
        .lines()
        .rev()
        .find(|l| !l.starts_with('#') && !l.trim().is_empty())
        .and_then(|l| l.split(' ').next()?.parse().ok())
        .expect("a line of bytes");
    let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    let commands = [
        format!(r#"{{"command":"take_up","fen":"{fen}","by":"desk: 127.0.0.1"}}"#),
        r#"{"command":"turn_round","by":"desk: 127.0.0.1"}"#.to_string(),
        r#"{"command":"start_game","round":3,"board":7,"by":"desk: 10.0.0.5"}"#.to_string(),
    ];
    let mut w = Writer::append(Vec::new());
    for (i, json) in commands.iter().enumerate() {
        w.write_chunk(
            last + 5_000 + i as u64 * 1_000,
            Direction::Operator,
            json.as_bytes(),
        )
        .unwrap();
    }
    text.push_str(&String::from_utf8(w.into_inner()).unwrap());
    let replay = replay_reader(
        text.as_bytes(),
        boardcast::board::Config::default(),
        std::path::Path::new("desk"),
    )
    .unwrap();
    let games = replay.log.games();
    assert_eq!(games.len(), 2, "the game taken up is a new one");
    assert_eq!(games[0].sans, g.sans);
    assert_eq!(games[1].start_fen, fen);
    assert_eq!(
        games[1].result.as_deref(),
        Some("*"),
        "start_game ends the game in progress"
    );
    let corrections: Vec<(&str, &str, Option<&str>)> = replay
        .events
        .iter()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Correction {
                command,
                message,
                by,
            } => Some((command.as_str(), message.as_str(), by.as_deref())),
            _ => None,
        })
        .collect();
    assert_eq!(
        corrections,
        [
            (
                "take_up",
                &*format!("game taken up from {fen}"),
                Some("desk: 127.0.0.1")
            ),
            (
                "turn_round",
                "the board is read turned round",
                Some("desk: 127.0.0.1")
            ),
            (
                "start_game",
                "board 7 of round 3 from its next game",
                Some("desk: 10.0.0.5")
            ),
        ]
    );
}
