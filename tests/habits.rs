//! Issue 28: handling habits seen at real boards, one scene each. Every
//! scene is a reading sequence the reconstructor misread before its rule
//! existed: the assertions name what it used to publish.

use boardcast::event::{AlertKind, EventKind};
use boardcast::games::chess::{Color, Piece, Position, Role, Square};
use boardcast::track::{Cell, Config, Reconstructor};

/// Runs `readings` (time, square, cell) from `fen` and every timer after
/// them; returns the events.
fn scene(fen: &str, readings: &[(u64, Square, Cell<Piece>)]) -> Vec<EventKind> {
    let pos = Position::from_fen(fen, false).expect("FEN");
    let mut r = Reconstructor::new(Config::default());
    r.start_from(0, pos.clone(), false);
    r.handle_board(0, &boardcast_sim::faults::chess::cells_of(pos.board()));
    while r.poll_event().is_some() {}
    for &(t, sq, cell) in readings {
        while let Some(d) = r.poll_timeout().filter(|&d| d <= t) {
            r.handle_timeout(d);
        }
        r.handle_square(t, sq, cell);
    }
    while let Some(d) = r.poll_timeout() {
        r.handle_timeout(d);
    }
    let mut out = Vec::new();
    while let Some((_, e)) = r.poll_event() {
        out.push(e);
    }
    out
}

fn moves(events: &[EventKind]) -> Vec<String> {
    let mut sans: Vec<String> = Vec::new();
    for e in events {
        match e {
            EventKind::Move { ply, notation, .. } => {
                sans.truncate(*ply as usize - 1);
                sans.push(notation.clone());
            }
            EventKind::Retract { ply, .. } => sans.truncate(*ply as usize - 1),
            _ => {}
        }
    }
    sans
}

fn error_alerts(events: &[EventKind]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::Alert(a) if a.kind.is_error() && !a.cleared => Some(a.message.clone()),
            _ => None,
        })
        .collect()
}

/// Whether the events end the game with `result` by the kings in the
/// centre.
fn signalled(events: &[EventKind], result: &str) -> bool {
    events.iter().any(|e| {
        matches!(e, EventKind::GameEnd { result: r, reason, .. }
            if r == result && reason == "kings in the centre")
    })
}

fn piece(color: Color, role: Role) -> Cell<Piece> {
    Cell::Piece(Piece { color, role })
}

/// The pawn is set down beside its victim, the victim lifted, then the
/// pawn put on the victim's square. Before: "Black played e5-f5, an
/// illegal move ... White began to reply to it" (the victim's lift taken
/// for White's reply).
#[test]
fn a_capture_in_three_touches_is_the_capture() {
    let pawn = piece(Color::Black, Role::Pawn);
    let e = scene(
        "4k3/8/8/4p3/5P2/8/8/4K3 b - - 0 1",
        &[
            (1_000, Square::E5, Cell::Empty),
            (1_300, Square::F5, pawn),
            (2_100, Square::F4, Cell::Empty),
            (2_700, Square::F5, Cell::Empty),
            (2_850, Square::F4, pawn),
        ],
    );
    assert_eq!(moves(&e), ["exf4"], "{e:?}");
    assert!(error_alerts(&e).is_empty(), "{e:?}");
    assert!(
        !e.iter()
            .any(|e| matches!(e, EventKind::Alert(a) if a.kind == AlertKind::IllegalMove)),
        "{e:?}"
    );
}

/// The knight is set down on a square it could legally go to, next to
/// its victim, and the victim is lifted: the lift is part of the capture
/// that follows, not Black beginning to reply to Nc3.
#[test]
fn a_capture_begun_on_a_legal_square_beside_the_victim_is_the_capture() {
    let knight = piece(Color::White, Role::Knight);
    let e = scene(
        "4k3/8/8/8/3p4/8/4N3/4K3 w - - 0 1",
        &[
            (1_000, Square::E2, Cell::Empty),
            (1_250, Square::C3, knight),
            (1_600, Square::D4, Cell::Empty),
            (2_300, Square::C3, Cell::Empty),
            (2_450, Square::D4, knight),
        ],
    );
    assert_eq!(moves(&e), ["Nxd4"], "{e:?}");
    assert!(
        !e.iter().any(|e| matches!(e, EventKind::Retract { .. })),
        "Nc3 was never shown: {e:?}"
    );
    assert!(error_alerts(&e).is_empty(), "{e:?}");
}

/// At the end of a real game the players cleared a pawn from d4 while
/// they put the kings on e4 and d5 (1-0). Before: `misplaced` and no
/// result.
#[test]
fn a_result_signalled_while_a_centre_pawn_is_cleared_is_recognised() {
    let e = scene(
        "8/8/4k3/8/3P4/8/4K3/8 w - - 0 1",
        &[
            (1_000, Square::D4, Cell::Empty),
            (1_600, Square::E2, Cell::Empty),
            (1_900, Square::E4, piece(Color::White, Role::King)),
            (2_400, Square::E6, Cell::Empty),
            (2_800, Square::D5, piece(Color::Black, Role::King)),
        ],
    );
    assert!(signalled(&e, "1-0"), "{e:?}");
    assert!(moves(&e).is_empty(), "{e:?}");
    assert!(error_alerts(&e).is_empty(), "{e:?}");
}

/// The first king set down in the centre, then a pawn pushed on (e6-e7,
/// a legal reply) while the second king comes (bench: knocks, game 1520).
/// Before: the pawn's move published the king's as played ("Kd4"), and
/// the record kept it after the result. Now a ply that may begin the
/// signal waits with the reply, and the signal takes both.
#[test]
fn a_result_signalled_while_a_pawn_is_pushed_on_keeps_the_king_out_of_the_record() {
    let e = scene(
        "8/5p2/R3P3/2k2r2/1p6/8/8/2K5 b - - 0 59",
        &[
            (1_000, Square::C5, Cell::Empty),
            (1_215, Square::D4, piece(Color::Black, Role::King)),
            (1_334, Square::E6, Cell::Empty),
            (1_525, Square::E7, piece(Color::White, Role::Pawn)),
            (1_687, Square::C1, Cell::Empty),
            (2_097, Square::D5, piece(Color::White, Role::King)),
        ],
    );
    assert!(signalled(&e, "1/2-1/2"), "{e:?}");
    assert!(moves(&e).is_empty(), "{e:?}");
    assert!(error_alerts(&e).is_empty(), "{e:?}");
}

/// A piece beside the centre pushed aside while the kings are set down.
#[test]
fn a_result_signalled_while_a_piece_is_pushed_aside_is_recognised() {
    let e = scene(
        "8/8/2n1k3/8/8/8/4K3/8 b - - 0 1",
        &[
            (1_000, Square::E6, Cell::Empty),
            (1_400, Square::D4, piece(Color::Black, Role::King)),
            (1_700, Square::C6, Cell::Empty),
            (1_800, Square::B6, piece(Color::Black, Role::Knight)),
            (2_300, Square::E2, Cell::Empty),
            (2_700, Square::E5, piece(Color::White, Role::King)),
        ],
    );
    assert!(signalled(&e, "0-1"), "{e:?}");
    assert!(error_alerts(&e).is_empty(), "{e:?}");
}

/// A man moved 10-15 and put back, then 11-16 played. Before: `move
/// 10-15`, then `game_end "*"` (new game set up) and a second game, the
/// real one lost from the record. It is a takeback, as in chess.
#[test]
fn a_draughts_first_move_touched_and_put_back_is_a_takeback_not_a_new_game() {
    let e = draughts_from(
        None,
        &[
            (1_000, 10, None),
            (1_300, 15, Some(b'M')),
            (4_000, 15, None),
            (4_300, 10, Some(b'M')),
            (7_000, 11, None),
            (7_300, 16, Some(b'M')),
        ],
    );
    assert_eq!(moves(&e), ["11-16"], "{e:?}");
    assert_eq!(
        e.iter()
            .filter(|e| matches!(e, EventKind::GameStart { .. }))
            .count(),
        1,
        "one game: {e:?}"
    );
    assert!(
        !e.iter().any(|e| matches!(e, EventKind::GameEnd { .. })),
        "{e:?}"
    );
    assert!(error_alerts(&e).is_empty(), "{e:?}");
}

/// An open-protocol capture from a `hello` line and `(time, line)` pairs,
/// replayed: its events.
fn open_capture(hello: &str, lines: &[(u64, &str)]) -> Vec<EventKind> {
    crate::draughts_xiangqi_alerts::capture(hello, lines)
        .events
        .into_iter()
        .map(|e| e.kind)
        .collect()
}

/// The draughts start on an occupancy-only board (rank 8 first).
const DRAUGHTS_OCCUPANCY: &str = ".o.o.o.oo.o.o.o..o.o.o.o................o.o.o.o..o.o.o.oo.o.o.o.";

/// On an occupancy-only board a man of the second player pushed forward
/// and set back before the first move looks like the first move seen
/// from the other side. Before: it was published, then "new game set up",
/// and the record held a phantom game. Now the phantom move is taken
/// back, the board's orientation is open again, and the real first move
/// and reply are the game.
#[test]
fn a_knock_before_the_first_move_on_an_occupancy_board_leaves_no_phantom_game() {
    let board = format!("board {DRAUGHTS_OCCUPANCY}");
    let real = [
        (8_000, "up c3"),
        (8_300, "down d4"),
        (12_000, "up f6"),
        (12_300, "down e5"),
    ];
    let mut knocked = vec![
        (10, board.as_str()),
        (2_000, "up b6"),
        (2_100, "down a5"),
        (4_000, "up a5"),
        (4_100, "down b6"),
    ];
    knocked.extend(real);
    let e = open_capture("hello draughts 8x8 id=DR-1 pieces=no", &knocked);
    let mut clean = vec![(10, board.as_str())];
    clean.extend(real);
    let want = open_capture("hello draughts 8x8 id=DR-1 pieces=no", &clean);
    assert_eq!(moves(&want).len(), 2, "{want:?}");
    assert_eq!(moves(&e), moves(&want), "{e:?}");
    assert!(
        !e.iter().any(|e| matches!(e, EventKind::GameEnd { .. })),
        "{e:?}"
    );
    assert!(error_alerts(&e).is_empty(), "{e:?}");
}

/// Runs draughts readings (time, PDN square, piece letter or empty) from
/// `fen` (the position known), or from the start position found on the
/// board (`None`), the board read whole first. Returns the events.
fn draughts_from(fen: Option<&str>, readings: &[(u64, u8, Option<u8>)]) -> Vec<EventKind> {
    use boardcast::games::draughts::{Draughts, Position, point};
    use boardcast::games::grid::{Point, Stone};
    use boardcast::games::{GamePosition, Placement};
    use boardcast_rules::draughts;
    let position = Position::new(fen.map_or_else(draughts::Position::start, |f| {
        draughts::Position::from_fen(f).unwrap()
    }));
    let cells: Vec<Cell<_>> = (0..64)
        .map(|i| {
            position
                .board()
                .piece_at(Point::from_index(i).unwrap())
                .map_or(Cell::Empty, Cell::Piece)
        })
        .collect();
    let mut r = Reconstructor::for_game(Config::default(), Draughts);
    if fen.is_some() {
        r.start_from(0, position, false);
    }
    r.handle_board(0, &cells);
    let sq = |n: u8| point(draughts::Square::new(n).unwrap());
    for &(t, n, piece) in readings {
        while let Some(d) = r.poll_timeout().filter(|&d| d <= t) {
            r.handle_timeout(d);
        }
        r.handle_square(
            t,
            sq(n),
            piece.map_or(Cell::Empty, |l| Cell::Piece(Stone::new(l))),
        );
    }
    while let Some(d) = r.poll_timeout() {
        r.handle_timeout(d);
    }
    let mut out = Vec::new();
    while let Some((_, e)) = r.poll_event() {
        out.push(e);
    }
    out
}

/// A double jump with the captured men lifted between the hops, the
/// jumping man in the hand or set down on its landing square. Before:
/// `illegal_move` ("the multi-jump was not completed ... art. 1.25.1"),
/// then the whole jump 60 ms later.
#[test]
fn a_multi_jump_with_its_men_lifted_between_the_hops_is_no_unfinished_jump() {
    use boardcast_rules::draughts;
    let fen = "B:W14,23,30:B9";
    let pos = draughts::Position::from_fen(fen).unwrap();
    let jump = pos
        .legal_moves()
        .into_iter()
        .find(|m| m.captured().len() == 2)
        .expect("a double jump");
    let n = |s: draughts::Square| s.number();
    let (from, land, to) = (n(jump.path()[0]), n(jump.path()[1]), n(jump.path()[2]));
    let (first, second) = (n(jump.captured()[0]), n(jump.captured()[1]));
    // In the hand between the hops.
    let in_hand = draughts_from(
        Some(fen),
        &[
            (1_000, from, None),
            (1_300, land, Some(b'M')),
            (1_500, land, None),
            (1_700, first, None),
            (1_950, to, Some(b'M')),
            (2_300, second, None),
        ],
    );
    // Set down on the landing square while the first man is cleared.
    let set_down = draughts_from(
        Some(fen),
        &[
            (1_000, from, None),
            (1_300, land, Some(b'M')),
            (1_700, first, None),
            (2_100, land, None),
            (2_300, to, Some(b'M')),
            (2_700, second, None),
        ],
    );
    for e in [in_hand, set_down] {
        assert_eq!(moves(&e).len(), 1, "{e:?}");
        assert!(error_alerts(&e).is_empty(), "{e:?}");
        assert!(
            !e.iter()
                .any(|e| matches!(e, EventKind::Alert(a) if a.kind == AlertKind::IllegalMove)),
            "{e:?}"
        );
    }
}

/// The standard start on an occupancy-only chess board (rank 8 first).
const CHESS_OCCUPANCY: &str = "oooooooooooooooo................................oooooooooooooooo";

/// On an occupancy-only chess board the reply began before the move it
/// answers was published: Black's Ke5 (a king in the centre waits, in
/// case the players are signalling a result) was still settling when
/// White lifted the b5 pawn, then its bishop, and slid it over e2, d3 and
/// c4 to b5. Before: the tracker named pieces for Black to move (the game
/// as published), took the bishop set down on e2 for the b5 pawn sliding,
/// and the board no longer matched the game (`misplaced`). Now the side
/// to move after the settling move names them.
#[test]
fn a_reply_begun_while_the_move_still_settles_is_read_on_an_occupancy_board() {
    let board = format!("board {CHESS_OCCUPANCY}");
    let mut lines = vec![(10, board.clone())];
    let plies = [
        ("e2", "e4"),
        ("f7", "f5"),
        ("e4", "f5"),
        ("e8", "f7"),
        ("d2", "d4"),
        ("b7", "b5"),
        ("d4", "d5"),
        ("f7", "f6"),
        ("b1", "c3"),
        ("f6", "e5"),
    ];
    let mut at = 2_000;
    for (from, to) in plies {
        // A capture lifts its victim first.
        if to == "f5" {
            lines.push((at - 200, format!("up {to}")));
        }
        lines.push((at, format!("up {from}")));
        lines.push((at + 300, format!("down {to}")));
        at += 4_000;
    }
    // Ke5 was set down at `at - 3_700`; 600 ms later White begins Bxb5.
    let t = at - 3_100;
    for (dt, line) in [
        (0, "up b5"),
        (100, "up f1"),
        (200, "down e2"),
        (300, "up e2"),
        (350, "down d3"),
        (450, "up d3"),
        (500, "down c4"),
        (600, "up c4"),
        (650, "down b5"),
    ] {
        lines.push((t + dt, line.to_string()));
    }
    let lines: Vec<(u64, &str)> = lines.iter().map(|(t, l)| (*t, l.as_str())).collect();
    let e = open_capture("hello chess 8x8 id=OC-1 pieces=no", &lines);
    assert_eq!(
        moves(&e),
        [
            "e4", "f5", "exf5", "Kf7", "d4", "b5", "d5", "Kf6", "Nc3", "Ke5", "Bxb5"
        ],
        "{e:?}"
    );
    assert!(error_alerts(&e).is_empty(), "{e:?}");
}

/// Draughts, as chess: a man played to 18, pushed on to 19 (where 15-19
/// leaves White no move), standing there long enough to be published with
/// the game's end, then set back on 18; White replies 28x19. Before: the
/// win froze the record and White's reply was never read. Now the knock's
/// ply and its result are withdrawn and the game goes on.
#[test]
fn a_draughts_knock_published_as_the_last_move_then_set_back_reopens_the_game() {
    let fen = "B:W28:B3,8,15,24,26";
    let e = draughts_from(
        Some(fen),
        &[
            (1_000, 15, None),
            (1_300, 18, Some(b'M')),
            (1_600, 18, None),
            (1_650, 19, Some(b'M')),
            // Published (and the game ended) meanwhile.
            (5_000, 19, None),
            (5_100, 18, Some(b'M')),
            (8_000, 24, None),
            (8_300, 28, None),
            (8_600, 19, Some(b'm')),
        ],
    );
    assert!(
        e.iter().any(|e| matches!(e, EventKind::GameEnd { .. })),
        "the knock was published as the game's end: {e:?}"
    );
    assert_eq!(moves(&e), ["15-18", "28x19"], "{e:?}");
    assert!(error_alerts(&e).is_empty(), "{e:?}");
    // The published record (as screens and the PDN folder fold the
    // events) has no result any more.
    let mut log = boardcast::sink::record::GameLog::new();
    for kind in e.iter().cloned() {
        log.handle(&boardcast::event::Event {
            board: "1".into(),
            t_ms: 0,
            game: boardcast::event::GameId::Draughts,
            kind,
        });
    }
    assert_eq!(log.games().last().unwrap().result, None, "{e:?}");
}

/// Issue 44: a man knocked forward onto a square that is a legal first
/// move (10-15) and set back 2.3 s later, before the real first move: a
/// knock, not a move. It is shown provisionally at most, withdrawn when the
/// man is back; the record is the real first move and its reply, no move
/// is ever final and then withdrawn, and the opponent is accused of
/// nothing. Before: 10-15 was published as the first move, then White's
/// reply alleged to be a wrong-square illegal move.
#[test]
///
/// Standing 4 s, longer than a move stands before it is final on time:
/// the game's first move from the start is final on time only a
/// misplacement delay after it stands (or on the reply, or the clock).
/// Before: 10-15 was final after 2.4 s and taken back when the man was set
/// back.
fn a_man_knocked_onto_a_first_move_square_for_seconds_is_no_first_move() {
    for stands in [2_300, 4_000] {
        let back = 1_100 + stands;
        let e = draughts_from(
            None,
            &[
                (1_000, 10, None),
                (1_100, 15, Some(b'M')),
                (back, 15, None),
                (back + 200, 10, Some(b'M')),
                (back + 3_600, 11, None),
                (back + 3_900, 16, Some(b'M')),
                (back + 7_600, 22, None),
                (back + 7_900, 18, Some(b'm')),
            ],
        );
        assert_eq!(moves(&e), ["11-16", "22-18"], "{stands}: {e:?}");
        assert!(
            !e.iter()
                .any(|e| matches!(e, EventKind::Retract { .. } | EventKind::Takeback { .. })),
            "{stands}: {e:?}"
        );
        assert!(error_alerts(&e).is_empty(), "{stands}: {e:?}");
    }
}

/// Issue 44: a king's circular multi-jump (c3 over d4, d6, b6 and b4 back
/// to c3) takes the same four men going round either way; the king set
/// down on every landing square says which way it went, and the record
/// follows the landings seen, both ways round. Before: either way was
/// recorded as the one the move generator found first.
#[test]
fn a_kings_circular_jump_follows_the_landings_seen() {
    for (path, id) in [
        ([18, 27, 20], "11x18x27x20x11"),
        ([20, 27, 18], "11x20x27x18x11"),
    ] {
        let mut readings = vec![(1_000, 11, None)];
        let mut t = 1_300;
        for sq in path {
            readings.push((t, sq, Some(b'K')));
            readings.push((t + 200, sq, None));
            t += 400;
        }
        readings.push((t, 11, Some(b'K')));
        for (k, man) in [15, 23, 24, 16].into_iter().enumerate() {
            readings.push((t + 500 + 300 * k as u64, man, None));
        }
        // White replies 29-25 four seconds later.
        readings.push((t + 6_000, 29, None));
        readings.push((t + 6_300, 25, Some(b'm')));
        let e = draughts_from(Some("B:W15,16,23,24,29:BK11"), &readings);
        assert_eq!(moves(&e), [id, "29-25"], "{e:?}");
        assert!(error_alerts(&e).is_empty(), "{e:?}");
    }
}
