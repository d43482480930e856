//! Issue "Tournament outputs": how a game's result comes from the board
//! (result pieces, the kings in the centre) or the operator, and frozen
//! records.

use boardcast::event::EventKind;
use boardcast::games::chess::{Color, Piece, Position, Role, Square};
use boardcast::replay::replay_reader;
use boardcast::track::{Cell, Config, Reconstructor, Token};
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
    r.handle_board(0, &faults::chess::cells_of(Position::standard().board()));
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
    r.handle_board(0, &faults::chess::cells_of(pos.board()));
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
            || faults::chess::kings_to_centre(&mut session, &last, result, i as u64).is_none()
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
    let start = faults::chess::cells_of(Position::standard().board());
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
    use boardcast::pipeline::Diagnostic;

    // Twenty plies: the game is still going on when the commands come.
    let (g, mut text, last) = played(0, 20, 0, 7);
    let commands = [
        r#"{"command":"set_result","result":"1-0"}"#,
        r#"{"command":"set_result","result":"0-1"}"#,
        r#"{"command":"set_players","white":{"name":"Carlsen, Magnus"},"black":{"name":"Firouzja, Alireza"}}"#,
        r#"{"command":"set_result","result":"2-0"}"#,
    ];
    let timed: Vec<(u64, &str)> = (0..)
        .map(|i| last + 5_000 + i * 1_000)
        .zip(commands)
        .collect();
    let lines = command_lines(&timed);
    assert!(
        lines.lines().all(|l| l.starts_with("# command ")),
        "{lines}"
    );
    text.push_str(&lines);

    let replay = replay_reader(
        text.as_bytes(),
        boardcast::track::Config::default(),
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
        boardcast::track::Config::default(),
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
    let (g, mut text, last) = played(0, 10, 0, 11);
    let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    let take_up = format!(r#"{{"command":"take_up","fen":"{fen}","by":"desk: 127.0.0.1"}}"#);
    text.push_str(&command_lines(&[
        (last + 5_000, &take_up),
        (
            last + 6_000,
            r#"{"command":"turn_round","by":"desk: 127.0.0.1"}"#,
        ),
        (
            last + 7_000,
            r#"{"command":"start_game","round":3,"board":7,"by":"desk: 10.0.0.5"}"#,
        ),
    ]));
    let replay = replay_reader(
        text.as_bytes(),
        boardcast::track::Config::default(),
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

/// The capture of the first `plies` plies of real game `n`, played
/// cleanly, from daemon time `from` (its first lines, the board's hello
/// and the whole board read, are those of a new connection), and the time
/// of its last line.
fn played(n: usize, plies: usize, from: u64, seed: u64) -> (sim::SourceGame, String, u64) {
    let full = &all_games()[n];
    let g = sim::SourceGame {
        start: full.start.clone(),
        moves: full.moves[..plies].to_vec(),
        sans: full.sans[..plies].to_vec(),
        tags: Vec::new(),
    };
    let session = sim::simulate(&g, &mut sim::Clean, seed, false);
    let mut text = String::new();
    let mut last = from;
    for line in sim::dgt::capture_text(&session, &[]).lines() {
        match line.split_once(' ') {
            Some((t, rest)) if !line.starts_with('#') => {
                last = from + t.parse::<u64>().expect("a time");
                text.push_str(&format!("{last} {rest}\n"));
            }
            // The header, once.
            _ if from == 0 => text.push_str(&format!("{line}\n")),
            _ => {}
        }
    }
    (g, text, last)
}

/// `commands` as a capture's operator lines, the `i`th at `times[i]`.
fn command_lines(commands: &[(u64, &str)]) -> String {
    use boardcast::capture::{Direction, Writer};
    let mut w = Writer::append(Vec::new());
    for (t, json) in commands {
        w.write_chunk(*t, Direction::Operator, json.as_bytes())
            .unwrap();
    }
    String::from_utf8(w.into_inner()).unwrap()
}

/// A board resumed from `capture` (a file) on a fresh round: the round,
/// the board's state and its report.
fn resumed(
    capture: &std::path::Path,
) -> (
    std::sync::Arc<boardcast::sink::round::Round>,
    boardcast::session::StateMessage,
    boardcast::report::BoardReport,
) {
    let (s, round) = crate::replay::resumed_session(capture, boardcast::session::Outputs::none());
    (round, s.state(s.now()), s.report())
}

/// A restart between the desk's `start_game` and the next game: the game
/// that was on stays the board's own (round 1, board 1); the seat waits
/// for the next game.
#[test]
fn a_resume_before_the_seated_game_began_keeps_the_old_game_where_it_was() {
    let (g, mut text, last) = played(0, 10, 0, 11);
    text.push_str(&command_lines(&[(
        last + 5_000,
        r#"{"command":"start_game","round":3,"board":7,"by":"desk: 127.0.0.1"}"#,
    )]));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("1.capture");
    std::fs::write(&path, &text).unwrap();
    let (round, state, report) = resumed(&path);
    assert_eq!(state.number, 1, "the seat applies from the next game");
    assert_eq!(report.games.len(), 1);
    assert_eq!(
        (report.games[0].round, report.games[0].plies),
        (1, g.sans.len())
    );
    assert_eq!(round.results(1).keys().collect::<Vec<_>>(), [&1]);
    assert!(round.results(3).is_empty(), "{:?}", round.results(3));
}

/// Two games with the desk's `start_game` between them, and the start
/// pressed again during the second: resumed, each game is filed under its
/// own seat, and the second start left the game on (no `*`).
#[test]
fn each_game_keeps_its_seat_and_a_second_start_leaves_the_game_on() {
    let (a, mut text, last) = played(0, 10, 0, 11);
    let start = r#"{"command":"start_game","round":3,"board":7,"white":{"name":"White, Seven"},"black":{"name":"Black, Seven"},"by":"desk: 127.0.0.1"}"#;
    text.push_str(&command_lines(&[(last + 2_000, start)]));
    let (b, second, _) = played(1, 8, last + 5_000, 12);
    // The start pressed again halfway through the second game.
    let mut lines: Vec<&str> = second.lines().collect();
    let half = lines.len() / 2;
    let at: u64 = lines[half].split(' ').next().unwrap().parse().unwrap();
    let again = command_lines(&[(at, start)]);
    lines.insert(half + 1, again.trim_end());
    text.push_str(&lines.join("\n"));
    text.push('\n');
    let replay = replay_reader(text.as_bytes(), Config::default(), "seats".as_ref()).unwrap();
    let games = replay.log.games();
    assert_eq!(
        games.len(),
        2,
        "{:?}",
        games.iter().map(|g| &g.sans).collect::<Vec<_>>()
    );
    assert_eq!(games[0].sans, a.sans);
    assert_eq!(
        games[0].result.as_deref(),
        Some("*"),
        "the first start ends game one"
    );
    assert_eq!(games[1].sans, b.sans);
    assert_eq!(games[1].result, None, "the second start leaves game two on");
    let messages: Vec<&str> = replay
        .events
        .iter()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Correction { message, .. } => Some(message.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(messages, ["board 7 of round 3 from its next game"]);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("1.capture");
    std::fs::write(&path, &text).unwrap();
    let (round, state, report) = resumed(&path);
    assert_eq!(state.number, 7);
    let rounds: Vec<u32> = report.games.iter().map(|g| g.round).collect();
    assert_eq!(rounds, [1, 3]);
    // The game on (the second) is handed to the round under its seat.
    assert!(round.results(1).is_empty(), "{:?}", round.results(1));
    assert_eq!(round.results(3).keys().collect::<Vec<_>>(), [&7]);
    assert!(
        round.round_pgn(3).contains("[White \"White, Seven\"]"),
        "{}",
        round.round_pgn(3)
    );
}

/// The desk's start (`keep_game`) pressed at ply 10 of a game: the game
/// goes on under its own seat, every later move is read, and the board's
/// next game (the start position set up after it) takes the seat.
#[test]
fn the_desks_start_leaves_a_game_in_progress_on_and_seats_the_next() {
    let (a, first, _) = played(0, 16, 0, 21);
    let mut lines: Vec<&str> = first.lines().collect();
    // Pressed between ply 10 and ply 11.
    let moves_at: Vec<usize> = (0..lines.len())
        .filter(|&i| !lines[i].starts_with('#'))
        .collect();
    let half = moves_at[moves_at.len() * 10 / 16];
    let at: u64 = lines[half].split(' ').next().unwrap().parse().unwrap();
    let start = r#"{"command":"start_game","round":3,"board":7,"white":{"name":"White, Seven"},"black":{"name":"Black, Seven"},"keep_game":true,"by":"desk: 127.0.0.1"}"#;
    let pressed = command_lines(&[(at, start)]);
    lines.insert(half + 1, pressed.trim_end());
    let mut text = lines.join("\n");
    text.push('\n');
    let last: u64 = first
        .lines()
        .rev()
        .find_map(|l| l.split(' ').next()?.parse().ok())
        .unwrap();
    let (b, second, _) = played(1, 6, last + 5_000, 22);
    text.push_str(&second);
    let replay = replay_reader(text.as_bytes(), Config::default(), "keep".as_ref()).unwrap();
    let games = replay.log.games();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].sans, a.sans, "no ply of the game on is lost");
    assert_eq!(games[1].sans, b.sans);
    let message = replay
        .events
        .iter()
        .find_map(|(_, e)| match &e.kind {
            EventKind::Correction { message, .. } => Some(message.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        message.starts_with(boardcast::pipeline::correct::IN_PROGRESS),
        "{message}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("1.capture");
    std::fs::write(&path, &text).unwrap();
    let (round, state, report) = resumed(&path);
    assert_eq!(state.number, 7, "the next game took the seat");
    let rounds: Vec<u32> = report.games.iter().map(|g| g.round).collect();
    assert_eq!(rounds, [1, 3]);
    assert!(
        round.round_pgn(3).contains("[White \"White, Seven\"]"),
        "{}",
        round.round_pgn(3)
    );
}

/// `turn_round` before any game is on changes nothing and says why: the
/// way round is read from the start position.
#[test]
fn turning_a_board_round_with_no_game_on_is_refused() {
    let (g, text, _) = played(0, 6, 0, 13);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Before the board is first read whole (its start position).
    let first_read = lines
        .iter()
        .position(|l| l.contains(" < 86 "))
        .expect("a whole board read");
    let at: u64 = lines[first_read]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let command = command_lines(&[(at.saturating_sub(1), r#"{"command":"turn_round"}"#)]);
    lines.insert(first_read, command.trim_end().to_string());
    let replay =
        replay_reader(lines.join("\n").as_bytes(), Config::default(), "t".as_ref()).unwrap();
    assert!(
        !replay
            .events
            .iter()
            .any(|(_, e)| matches!(e.kind, EventKind::Correction { .. })),
        "no correction is published"
    );
    let games = replay.log.games();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].sans, g.sans, "read the normal way round");
}
