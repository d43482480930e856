//! Arbiter alerts on draughts and xiangqi boards (open protocol): one
//! scene per alert kind per game, with the exact events expected, citing
//! each game's rule book as it numbers its articles (draughts:
//! `english-draughts-rules.zh.txt`; xiangqi:
//! `xiangqi-association-rules-2022.zh.txt`, which has no article for
//! set-up, displaced pieces or impossible positions: `law` is null there).
//! The draughts `illegal_move` (art. 1.25.1) and `misplaced` (art. 1.26)
//! scenes are in `draughts_xiangqi`; a sample of injected faults over the
//! corpora is at the end, the full run is `cargo bench --bench games`.

use std::path::Path;

use boardcast::event::{AlertKind, EventKind, Side};
use boardcast::replay::{Played, replay_game_text};
use boardcast::track::{Cell, Config, Reconstructor};
use boardcast_rules::{draughts, xiangqi};
use boardcast_sim::faults::{self, FaultKind};
use boardcast_sim::open::{OtherGameProfile, OtherGameSession, capture_text, read_xiangqi_games};

/// The draughts start as a `board` line (rank 8 first, file a first).
const DRAUGHTS_START: &str = ".m.m.m.mm.m.m.m..m.m.m.m................M.M.M.M..M.M.M.MM.M.M.M.";

/// The xiangqi start as a `board` line (rank 9 first, file a first).
const XIANGQI_START: &str = concat!(
    "rnbakabnr",
    ".........",
    ".c.....c.",
    "p.p.p.p.p",
    ".........",
    ".........",
    "P.P.P.P.P",
    ".C.....C.",
    ".........",
    "RNBAKABNR"
);

/// An open-protocol capture from a `hello` line and `(time, line)` pairs.
pub(crate) fn capture(hello: &str, lines: &[(u64, &str)]) -> Played {
    let hex = |s: &str| {
        s.bytes()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut text = String::from("# boardcast capture v1 protocol=open\n");
    text += &format!("0 < {}\n", hex(&format!("{hello}\n")));
    for (t, l) in lines {
        text += &format!("{t} < {}\n", hex(&format!("{l}\n")));
    }
    // The evidence of every alert slices to a capture that raises it again.
    crate::evidence::every_alert_slices(&text);
    replay_game_text(&text, Config::default(), Path::new("scene")).unwrap()
}

/// Each event in short form: `move ID`, `alert KIND SIDE LAW [cleared]`,
/// `start`.
fn short(events: &[EventKind]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::GameStart { .. } => Some("start".to_string()),
            EventKind::Move { id, .. } => Some(format!("move {id}")),
            EventKind::Alert(a) => Some(format!(
                "alert {} {} {}{}",
                serde_json::to_value(a.kind).unwrap().as_str().unwrap(),
                a.side.map_or("-".to_string(), |s| s.name().to_lowercase()),
                a.law.as_deref().unwrap_or("-"),
                if a.cleared { " cleared" } else { "" }
            )),
            _ => None,
        })
        .collect()
}

fn kinds(r: &Played) -> Vec<EventKind> {
    r.events.iter().map(|e| e.kind.clone()).collect()
}

fn message(r: &Played, kind: AlertKind) -> String {
    r.events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Alert(a) if a.kind == kind && !a.cleared => Some(a.message.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {kind:?} alert in {:?}", short(&kinds(r))))
}

fn draughts_board(lines: &[(u64, &str)]) -> Played {
    capture("hello draughts 8x8 id=DR-1 pieces=yes", lines)
}

fn xiangqi_board(lines: &[(u64, &str)]) -> Played {
    capture("hello xiangqi 9x10 id=XQ-1 pieces=yes", lines)
}

#[test]
fn draughts_art_1_11_a_wrong_set_up_is_named_before_the_first_move_and_cleared() {
    // Black's man on 12 (a3) is missing when the board is first read.
    let missing = DRAUGHTS_START.replacen("M.M.M.M..M.M.M.MM", "..M.M.M..M.M.M.MM", 1);
    let board = format!("board {missing}");
    let r = draughts_board(&[
        (10, &board),
        (9_000, "down a3 M"),
        (12_000, "up c3"),
        (12_300, "down d4 M"),
    ]);
    assert_eq!(
        short(&kinds(&r)),
        [
            "alert setup - 1.11",
            "alert setup - 1.11 cleared",
            "start",
            "move 11-15"
        ]
    );
    let m = message(&r, AlertKind::Setup);
    assert!(m.contains("12 is empty, should hold a black man"), "{m}");
}

#[test]
fn draughts_art_1_22_a_man_touched_and_put_back_is_touch_move_but_a_knock_by_the_moving_hand_is_not()
 {
    let board = format!("board {DRAUGHTS_START}");
    let r = draughts_board(&[
        (10, &board),
        // Black lifts the man on 9 (g3) for a second, puts it back, and
        // plays 11-15: art. 1.22, the touched man could move.
        (2_000, "up g3"),
        (3_000, "down g3 M"),
        (4_000, "up c3"),
        (4_300, "down d4 M"),
        // Black's hand, on its way back, knocks White's man on 24 (b6)
        // half a second after the move: no touch by White (the sensors
        // cannot tell it from a touch; `touch_grace_ms`).
        (4_800, "up b6"),
        (5_600, "down b6 m"),
        (9_000, "up f6"),
        (9_300, "down e5 m"),
        // An adjustment (a lift shorter than 300 ms) is no touch either.
        (12_000, "up a3"),
        (12_100, "down a3 M"),
        (14_000, "up d4"),
        (14_200, "up e5"),
        (14_500, "down f6 M"),
    ]);
    assert_eq!(
        short(&kinds(&r)),
        [
            "start",
            "alert touch_move black 1.22",
            "move 11-15",
            "move 22-18",
            "move 15x22"
        ]
    );
    let m = message(&r, AlertKind::TouchMove);
    assert!(m.contains("on 9") && m.contains("11-15"), "{m}");
}

#[test]
fn xiangqi_art_20_a_horse_over_its_blocked_leg_is_a_technical_foul_once_black_replies() {
    let board = format!("board {XIANGQI_START}");
    let r = xiangqi_board(&[
        (10, &board),
        // Red's horse b0 to d1, over its leg on c0 (the elephant): Art. 20.
        (2_000, "up b0"),
        (2_300, "down d1 N"),
        // Black begins to reply (lifts the cannon on h7): the move was made.
        (4_000, "up h7"),
        (4_500, "down h7 c"),
        // The arbiter has it put back; Red plays C2.5.
        (7_000, "up d1"),
        (7_300, "down b0 N"),
        (10_000, "up h2"),
        (10_300, "down e2 C"),
    ]);
    // The horse was touched and moved; put back, another piece moved: the
    // arbiter hears that too (a touched piece must be moved, Art. 13).
    assert_eq!(
        short(&kinds(&r)),
        [
            "start",
            "alert illegal_move red 20",
            "alert touch_move red 13",
            "move h2e2"
        ]
    );
    let t = message(&r, AlertKind::TouchMove);
    assert!(t.contains("horse on b0"), "{t}");
    let m = message(&r, AlertKind::IllegalMove);
    assert!(m.contains("a horse cannot move from b0 to d1"), "{m}");
    assert!(m.contains("technical foul"), "{m}");
}

/// A reconstructor following a xiangqi board from `fen`.
fn xiangqi_from(fen: &str) -> Reconstructor<boardcast::games::xiangqi::Xiangqi> {
    use boardcast::games::xiangqi::{Position, Xiangqi};
    let position = Position::new(xiangqi::Position::from_fen(fen).unwrap());
    following(Xiangqi::default(), position, &grid_points(90))
}

/// A reconstructor following a draughts board from `fen`.
fn draughts_from(fen: &str) -> Reconstructor<boardcast::games::draughts::Draughts> {
    use boardcast::games::draughts::{Draughts, Position};
    let position = Position::new(draughts::Position::from_fen(fen).unwrap());
    following(Draughts, position, &grid_points(64))
}

/// The first `n` points of a grid, in index order.
fn grid_points<S: boardcast::games::grid::Spec>(n: usize) -> Vec<boardcast::games::grid::Point<S>> {
    (0..n)
        .map(|i| boardcast::games::grid::Point::from_index(i).unwrap())
        .collect()
}

/// A reconstructor of `rules` following a board from `position`, read
/// whole (`squares`: every cell in index order).
fn following<G: boardcast::games::Game>(
    rules: G,
    position: G::Position,
    squares: &[G::Square],
) -> Reconstructor<G> {
    use boardcast::games::{GamePosition, Placement};
    let cells: Vec<Cell<_>> = squares
        .iter()
        .map(|&p| {
            position
                .board()
                .piece_at(p)
                .map_or(Cell::Empty, Cell::Piece)
        })
        .collect();
    let mut r = Reconstructor::for_game(Config::default(), rules);
    r.start_from(0, position, false);
    r.handle_board(0, &cells);
    r
}

fn drain<G: boardcast::games::Game>(r: &mut Reconstructor<G>) -> Vec<EventKind> {
    let mut out = Vec::new();
    while let Some((_, e)) = r.poll_event() {
        out.push(e);
    }
    out
}

#[test]
fn xiangqi_art_16_a_chariot_leaving_the_generals_facing_is_an_illegal_move() {
    use boardcast::games::grid::Stone;
    use boardcast::games::xiangqi::point;
    let mut r = xiangqi_from("4k4/9/9/9/4R4/p8/9/9/9/4K4 w - - 0 1");
    drain(&mut r);
    let sq = |s: &str| {
        let b = s.as_bytes();
        point(xiangqi::Square::new((b[0] - b'a') as i8, (b[1] - b'0') as i8).unwrap())
    };
    // The chariot standing between the generals goes to a5: the generals
    // face each other on the open e file (Art. 16, the flying general).
    r.handle_square(1_000, sq("e5"), Cell::Empty);
    r.handle_square(1_300, sq("a5"), Cell::Piece(Stone::new(b'R')));
    // Black begins to reply (lifts the soldier on a4).
    r.handle_square(3_000, sq("a4"), Cell::Empty);
    let events = drain(&mut r);
    assert_eq!(short(&events), ["alert illegal_move red 16"]);
    let EventKind::Alert(a) = &events[0] else {
        unreachable!()
    };
    assert!(
        a.message.contains("facing the other general") && a.message.contains("loses"),
        "{}",
        a.message
    );
}

#[test]
fn xiangqi_a_pushed_chariot_left_standing_is_misplaced_naming_red_and_cleared() {
    let board = format!("board {XIANGQI_START}");
    let r = xiangqi_board(&[
        (10, &board),
        (2_000, "up h2"),
        (2_300, "down e2 C"),
        // Black to move; Red's chariot is pushed a0 to a1 and left there.
        (6_000, "up a0"),
        (6_100, "down a1 R"),
        (20_000, "up a1"),
        (20_200, "down a0 R"),
        (23_000, "up h7"),
        (23_300, "down e7 c"),
    ]);
    assert_eq!(
        short(&kinds(&r)),
        [
            "start",
            "move h2e2",
            "alert misplaced red -",
            "alert misplaced - - cleared",
            "move h7e7"
        ]
    );
    let m = message(&r, AlertKind::Misplaced);
    assert!(m.contains("a0 is empty") && m.contains("a1 holds"), "{m}");
}

#[test]
fn xiangqi_a_horse_and_elephant_swapped_is_a_set_up_error_named_and_cleared() {
    // Red's horse and elephant swapped on b0 and c0.
    let wrong = XIANGQI_START.replacen("RNBAKABNR", "RBNAKABNR", 1);
    let board = format!("board {wrong}");
    let r = xiangqi_board(&[
        (10, &board),
        (8_000, "up b0"),
        (8_200, "up c0"),
        (8_600, "down b0 N"),
        (8_900, "down c0 B"),
        (12_000, "up h2"),
        (12_300, "down e2 C"),
    ]);
    assert_eq!(
        short(&kinds(&r)),
        [
            "alert setup - -",
            "alert setup - - cleared",
            "start",
            "move h2e2"
        ]
    );
    let m = message(&r, AlertKind::Setup);
    assert!(m.contains("b0") && m.contains("c0"), "{m}");
}

#[test]
fn xiangqi_art_13_a_chariot_touched_and_put_back_is_touch_move() {
    let board = format!("board {XIANGQI_START}");
    let r = xiangqi_board(&[
        (10, &board),
        (2_000, "up a0"),
        (3_000, "down a0 R"),
        (5_000, "up h2"),
        (5_300, "down e2 C"),
    ]);
    assert_eq!(
        short(&kinds(&r)),
        ["start", "alert touch_move red 13", "move h2e2"]
    );
    let m = message(&r, AlertKind::TouchMove);
    assert!(m.contains("chariot on a0") && m.contains("C2.5"), "{m}");
    // Red's hand knocks the chariot on a0 just after setting the cannon
    // down, while the move settles: no touch before the move (it was
    // final once released, Art. 14).
    let r = xiangqi_board(&[
        (10, &board),
        (2_000, "up h2"),
        (2_300, "down e2 C"),
        (2_400, "up a0"),
        (3_400, "down a0 R"),
        (8_000, "up h7"),
        (8_300, "down e7 c"),
    ]);
    assert_eq!(short(&kinds(&r)), ["start", "move h2e2", "move h7e7"]);
}

#[test]
fn xiangqi_a_general_off_the_board_is_an_impossible_position_until_it_is_back() {
    let board = format!("board {XIANGQI_START}");
    let r = xiangqi_board(&[
        (10, &board),
        (2_000, "up h2"),
        (2_300, "down e2 C"),
        // Black to move; Red's general is knocked off the board.
        (5_000, "up e0"),
        (16_000, "down e0 K"),
    ]);
    assert_eq!(
        short(&kinds(&r)),
        [
            "start",
            "move h2e2",
            "alert illegal_position - -",
            "alert illegal_position - - cleared"
        ]
    );
    let m = message(&r, AlertKind::IllegalPosition);
    assert!(m.contains("Red has 0 generals"), "{m}");
}

/// A sample of the bench's injected faults (`cargo bench --bench games`
/// runs 200 per kind): each raises its alert, naming the right side, and
/// the record is the game's.
#[test]
fn injected_faults_on_draughts_and_xiangqi_boards_raise_their_alerts() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/tests/data");
    let dgames =
        draughts::read_pdn(&std::fs::read_to_string(data.join("english-draughts.pdn")).unwrap())
            .unwrap();
    let xgames =
        read_xiangqi_games(&std::fs::read_to_string(data.join("xiangqi-random.pgn")).unwrap())
            .unwrap();
    let check = |case: faults::FaultCase<OtherGameSession>, game: &str| {
        let meta = vec![("game".to_string(), game.to_string())];
        let text = capture_text(&case.session, &meta, true);
        let r = replay_game_text(&text, Config::default(), Path::new("fault")).unwrap();
        let c = case.check(&r);
        assert!(
            c.raised && c.side_right && c.exact && c.extra_errors == 0,
            "{:?} at ply {}: {c:?} {:?}",
            case.kind,
            case.at_ply,
            short(&kinds(&r))
        );
    };
    for (n, kind) in FaultKind::DRAUGHTS.into_iter().enumerate() {
        let mut done = 0;
        for (i, g) in dgames.iter().enumerate().skip(n * 3) {
            let profile = OtherGameProfile {
                human: true,
                pieces: i % 2 == 0,
                rotated: false,
                real: false,
            };
            if let Some(case) = faults::draughts::inject(&g.moves, kind, profile, i as u64) {
                check(case, "draughts");
                done += 1;
            }
            if done == 3 {
                break;
            }
        }
        assert_eq!(done, 3, "{kind:?}");
    }
    for (n, kind) in FaultKind::XIANGQI.into_iter().enumerate() {
        let mut done = 0;
        for (i, moves) in xgames.iter().enumerate().skip(n * 3) {
            let profile = OtherGameProfile {
                human: true,
                pieces: i % 2 == 0,
                rotated: i % 3 == 0,
                real: false,
            };
            if let Some(case) = faults::xiangqi::inject(moves, kind, profile, i as u64) {
                check(case, "xiangqi");
                done += 1;
            }
            if done == 3 {
                break;
            }
        }
        assert_eq!(done, 3, "{kind:?}");
    }
}

/// Art. 1.19 and 1.25.1: Black's man on 15 must capture 15x22 (over 18)
/// but steps to 19; White begins to reply by lifting the very man the
/// capture would have taken. That lift completes the illegal move (a plain
/// step takes nothing: it is no capture's victim removed), and White's
/// reply, once made, condones it (art. 1.25). (Found by the fault bench,
/// `MissedCaptureStands`.)
#[test]
fn draughts_art_1_25_1_a_reply_lifting_the_man_that_should_have_been_taken_completes_the_move() {
    use boardcast::games::draughts::{Draughts, Position, point};
    use boardcast::games::grid::{Point, Stone};
    use boardcast::games::{GamePosition, Placement};
    let position = Position::new(draughts::Position::from_fen("B:W18,30:B15").unwrap());
    let cells: Vec<Cell<_>> = (0..64)
        .map(|i| {
            position
                .board()
                .piece_at(Point::from_index(i).unwrap())
                .map_or(Cell::Empty, Cell::Piece)
        })
        .collect();
    let mut r = Reconstructor::for_game(Config::default(), Draughts);
    r.start_from(0, position, false);
    r.handle_board(0, &cells);
    drain(&mut r);
    let sq = |n: u8| point(draughts::Square::new(n).unwrap());
    r.handle_square(1_000, sq(15), Cell::Empty);
    r.handle_square(1_300, sq(19), Cell::Piece(Stone::new(b'M')));
    r.handle_square(4_000, sq(18), Cell::Empty);
    r.handle_square(4_400, sq(15), Cell::Piece(Stone::new(b'm')));
    let mut events = drain(&mut r);
    while let Some(due) = r.poll_timeout() {
        r.handle_timeout(due);
        events.extend(drain(&mut r));
    }
    assert_eq!(
        short(&events),
        [
            "alert illegal_move black 1.25.1",
            "move 15-19",
            "move 18-15"
        ]
    );
    let EventKind::Alert(a) = &events[0] else {
        unreachable!()
    };
    assert!(a.message.contains("15x22"), "{}", a.message);
}

/// Xiangqi, as chess: Red's chariot played g1-g8, pushed on to g9 (mate),
/// standing there long enough to be published with the game's end, then
/// set back on g8; Black replies with the advisor f9-e8. Before: the mate
/// froze the record and Black's reply was never read. Now the knock's ply
/// and its result are withdrawn and the game goes on.
#[test]
fn xiangqi_a_knock_published_as_mate_then_set_back_reopens_the_game() {
    use boardcast::games::grid::Stone;
    use boardcast::games::xiangqi::point;
    let mut r = xiangqi_from("R2aka3/5P3/9/N8/9/9/9/9/6R2/3K5 w - - 0 1");
    drain(&mut r);
    let sq = |s: &str| {
        let b = s.as_bytes();
        point(xiangqi::Square::new((b[0] - b'a') as i8, (b[1] - b'0') as i8).unwrap())
    };
    let mut events = Vec::new();
    let mut read = |r: &mut Reconstructor<_>, t: u64, s: &str, cell: Cell<Stone<_>>| {
        while let Some(d) = r.poll_timeout().filter(|&d| d <= t) {
            r.handle_timeout(d);
        }
        r.handle_square(t, sq(s), cell);
        events.extend(drain(r));
    };
    let chariot = Cell::Piece(Stone::new(b'R'));
    read(&mut r, 1_000, "g1", Cell::Empty);
    read(&mut r, 1_300, "g8", chariot);
    read(&mut r, 1_600, "g8", Cell::Empty);
    read(&mut r, 1_650, "g9", chariot);
    // Published meanwhile, with the game's end; then set back.
    read(&mut r, 5_000, "g9", Cell::Empty);
    read(&mut r, 5_100, "g8", chariot);
    read(&mut r, 8_000, "f9", Cell::Empty);
    read(&mut r, 8_300, "e8", Cell::Piece(Stone::new(b'a')));
    while let Some(d) = r.poll_timeout() {
        r.handle_timeout(d);
    }
    events.extend(drain(&mut r));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EventKind::GameEnd { .. })),
        "the knock was published as mate: {events:?}"
    );
    let mut ids: Vec<String> = Vec::new();
    for e in &events {
        match e {
            EventKind::Move { ply, id, .. } => {
                ids.truncate(*ply as usize - 1);
                ids.push(id.clone());
            }
            EventKind::Retract { ply, .. } => ids.truncate(*ply as usize - 1),
            EventKind::Takeback { to_ply, .. } => ids.truncate(*to_ply as usize),
            _ => {}
        }
    }
    assert_eq!(ids, ["g1g8", "f9e8"], "{events:?}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventKind::Alert(a) if a.kind.is_error() && !a.cleared)),
        "{events:?}"
    );
}

/// Xiangqi on a board without piece identity: Red's cannon on h7 is pushed
/// to i7 while Black is to move. The board then reads like two moves
/// (Black's horse h9-i7, Red's cannon h7-h9), but nothing touched h9, and
/// the horse's lift and the cannon's arrival there, by two players one
/// after the other, cannot both fall between two readings of it. Before:
/// both plies were published (then taken back when the cannon was set
/// back), and no alert named the pushed cannon. Now: `misplaced`, Red's
/// pieces, cleared when the cannon is back.
#[test]
fn xiangqi_a_pushed_piece_is_not_read_as_a_move_of_each_side() {
    let unknown = "?";
    let events = occupancy_xiangqi(
        "rnbaka1n1/8r/4b2C1/p1p1p1R1p/1C7/9/2c1c3P/9/2N6/R1BAKABN1 w - - 1 9",
        &[
            // Red's R3.5 (g6xe6), the pawn lifted first.
            (600, "e6", ""),
            (700, "g6", ""),
            (900, "e6", unknown),
            // Black to move: the cannon pushed, then set back.
            (3_000, "h7", ""),
            (3_100, "i7", unknown),
            (15_000, "i7", ""),
            (15_100, "h7", unknown),
        ],
    );
    assert_pushed_only(&events, &["g6e6"], Side::Red);
}

/// Xiangqi on a board without piece identity: Red's horse plays b0-a2,
/// and 3.5 s later Red's chariot is pushed from a0 onto b0. The board then
/// shows what the chariot's a0-a2 (instead of the horse's move) would
/// show, but the chariot's square a0 was emptied 3.5 s after a2 was
/// filled: one piece lifts before it lands. Before: ply 1 was corrected to
/// a0-a2, then back when the chariot was set back, and no alert named the
/// pushed chariot. Now: `misplaced`, Red's pieces, cleared when it is back.
#[test]
fn xiangqi_a_pushed_piece_does_not_rewrite_the_move_before() {
    let unknown = "?";
    let events = occupancy_xiangqi(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        &[
            (600, "b0", ""),
            (900, "a2", unknown),
            // Black to move: the chariot pushed, then set back.
            (4_400, "a0", ""),
            (4_500, "b0", unknown),
            (17_000, "b0", ""),
            (17_100, "a0", unknown),
        ],
    );
    assert_pushed_only(&events, &["b0a2"], Side::Red);
}

/// English draughts on a board without piece identity, in a king ending
/// that shuffles: from `W:W8,K10,K12,16,24:BK30`, thirteen plies later
/// (the man on 8 crowned on 3, a king back on 8) White's king on 7 is
/// pushed to 10 while Black is to move. The board's occupancy is then the
/// start's exactly, but going back there would turn the king on 8 into a
/// man again, and nothing touched 8. Before: a takeback of thirteen plies
/// was published, the set-back read as new moves, and later a man "moved
/// backwards" (art. 1.25.4). Now: `misplaced`, White's pieces, cleared
/// when the king is back.
#[test]
fn draughts_a_push_that_recreates_an_old_occupancy_is_not_a_takeback() {
    let plies: [(u8, u8); 13] = [
        (10, 6),
        (30, 26),
        (6, 2),
        (26, 23),
        (2, 6),
        (23, 26),
        (6, 2),
        (26, 31),
        (8, 3),
        (31, 26),
        (2, 7),
        (26, 30),
        (3, 8),
    ];
    let mut readings = Vec::new();
    let mut t = 1_000;
    for (from, to) in plies {
        readings.push((t, from, ""));
        readings.push((t + 300, to, "?"));
        t += 3_000;
    }
    // Black to move: White's king pushed from 7 to 10, then set back.
    readings.extend([(t, 7, ""), (t + 100, 10, "?")]);
    readings.extend([(t + 12_000, 10, ""), (t + 12_100, 7, "?")]);
    // Black plays on.
    readings.extend([(t + 15_000, 30, ""), (t + 15_300, 26, "?")]);
    let events = occupancy_draughts("W:W8,K10,K12,16,24:BK30", &readings);
    let mut want: Vec<String> = plies.iter().map(|(f, t)| format!("{f}-{t}")).collect();
    want.push("30-26".into());
    let want: Vec<&str> = want.iter().map(String::as_str).collect();
    assert_pushed_only(&events, &want, Side::White);
}

/// Xiangqi on a board that identifies pieces, advisers and generals
/// shuffling in an ending: nine plies after `4k4/4a4/4ba3/.../1p2K4 b`
/// every piece is back where it stood but Black's soldier, which went
/// b0-c0. Red to move, the soldier is pushed back to b0 and left there
/// 14 s. The board is then the position of nine plies before exactly.
/// Before: a takeback of nine plies was published and the set-back read
/// as new moves. Now: `misplaced`, Black's pieces, cleared when the
/// soldier is back, and Red plays on.
#[test]
fn xiangqi_a_push_that_recreates_an_old_position_is_not_a_takeback() {
    use boardcast::games::grid::Stone;
    let plies = [
        ("e9", "f9", 'k'),
        ("e1", "d2", 'A'),
        ("f9", "e9", 'k'),
        ("f2", "e1", 'A'),
        ("b0", "c0", 'p'),
        ("e1", "f2", 'A'),
        ("e8", "d9", 'a'),
        ("d2", "e1", 'A'),
        ("d9", "e8", 'a'),
    ];
    let piece = |c: char| Cell::Piece(Stone::new(c as u8));
    let mut readings = Vec::new();
    let mut t = 1_000;
    for (from, to, c) in plies {
        readings.push((t, xq_point(from), Cell::Empty));
        readings.push((t + 300, xq_point(to), piece(c)));
        t += 4_000;
    }
    // Red to move: Black's soldier pushed back to b0, then set back.
    readings.extend([
        (t, xq_point("c0"), Cell::Empty),
        (t + 100, xq_point("b0"), piece('p')),
    ]);
    t += 14_000;
    readings.extend([
        (t, xq_point("b0"), Cell::Empty),
        (t + 200, xq_point("c0"), piece('p')),
    ]);
    // Red plays on.
    t += 3_000;
    readings.extend([
        (t, xq_point("e1"), Cell::Empty),
        (t + 300, xq_point("f0"), piece('A')),
    ]);
    let r = xiangqi_from("4k4/4a4/4ba3/9/9/9/9/5A3/4A4/1p2K4 b - - 0 1");
    let events = follow(r, &readings);
    let mut want: Vec<String> = plies.iter().map(|(f, t, _)| format!("{f}{t}")).collect();
    want.push("e1f0".into());
    let want: Vec<&str> = want.iter().map(String::as_str).collect();
    assert_pushed_only(&events, &want, Side::Black);
}

/// Xiangqi on a board without piece identity, whose orientation its
/// first move decides (the start is symmetric). Red plays h2-g2; while it
/// settles, Black's cannon on h7 is knocked off for 1.5 s; then Black
/// lifts the cannon on b7. With h7 empty the board is explained only
/// turned round, as a capture b2xb9 and b7-c7, and b9 was never touched.
/// Before: that unbacked reading fixed the board as turned round, and the
/// whole game was read from the wrong side (C2+7 published for Red's
/// first move, a `misplaced` later). Now: only an explanation the
/// readings back up turns the board; h2g2 and b7b5 are published.
#[test]
fn xiangqi_a_knock_during_the_first_move_does_not_turn_the_board_round() {
    let occupied = XIANGQI_START.replace(|c: char| c != '.', "o");
    let board = format!("board {occupied}");
    let r = capture(
        "hello xiangqi 9x10 id=XQ-1 pieces=no",
        &[
            (25, &board),
            (2_682, "up h2"),
            (3_165, "down g2"),
            (3_390, "up h7"),
            (4_914, "down h7"),
            (7_665, "up b7"),
            (8_047, "down b5"),
        ],
    );
    let e = kinds(&r);
    assert_eq!(short(&e), ["start", "move h2g2", "move b7b5"]);
}

/// Follows a xiangqi board from `fen`, read whole by occupancy only, through
/// `(time, point, "" for empty or "?" for a piece)` readings and every
/// timer after them; returns the events.
fn occupancy_xiangqi(fen: &str, readings: &[(u64, &str, &str)]) -> Vec<EventKind> {
    use boardcast::games::grid::Stone;
    let readings: Vec<_> = readings
        .iter()
        .map(|&(t, s, c)| (t, xq_point(s), c))
        .collect();
    occupancy_follow(
        xiangqi_from(fen),
        &grid_points(90),
        Stone::unknown(),
        &readings,
    )
}

/// The sensor point of a xiangqi point named `a0`..`i9`.
fn xq_point(s: &str) -> boardcast::games::xiangqi::Square {
    let b = s.as_bytes();
    let sq = xiangqi::Square::new((b[0] - b'a') as i8, (b[1] - b'0') as i8).unwrap();
    boardcast::games::xiangqi::point(sq)
}

/// Follows a draughts board from `fen`, read whole by occupancy only,
/// through `(time, square number, "" for empty or "?" for a piece)`
/// readings and every timer after them; returns the events.
fn occupancy_draughts(fen: &str, readings: &[(u64, u8, &str)]) -> Vec<EventKind> {
    use boardcast::games::grid::Stone;
    let sq = |n: u8| boardcast::games::draughts::point(draughts::Square::new(n).unwrap());
    let readings: Vec<_> = readings.iter().map(|&(t, n, c)| (t, sq(n), c)).collect();
    occupancy_follow(
        draughts_from(fen),
        &grid_points(64),
        Stone::unknown(),
        &readings,
    )
}

/// Follows `r`'s board, read whole again by occupancy only (`squares`:
/// every cell in index order; `unknown`: the game's piece of unknown
/// colour), through `(time, square, "" for empty or "?" for a piece)`
/// readings and every timer after them; returns the events.
fn occupancy_follow<G: boardcast::games::Game>(
    mut r: Reconstructor<G>,
    squares: &[G::Square],
    unknown: G::Piece,
    readings: &[(u64, G::Square, &str)],
) -> Vec<EventKind> {
    use boardcast::games::Placement;
    let occupancy: Vec<Cell<_>> = squares
        .iter()
        .map(|&p| match r.sensed().piece_at(p) {
            Some(_) => Cell::Piece(unknown),
            None => Cell::Empty,
        })
        .collect();
    r.handle_board(500, &occupancy);
    drain(&mut r);
    let cell = |c: &str| {
        if c.is_empty() {
            Cell::Empty
        } else {
            Cell::Piece(unknown)
        }
    };
    let readings: Vec<_> = readings
        .iter()
        .map(|&(t, sq, c)| (t, sq, cell(c)))
        .collect();
    follow(r, &readings)
}

/// One reading: when, which square, what it showed.
type SquareAt<G> = (
    u64,
    <G as boardcast::games::Game>::Square,
    Cell<<G as boardcast::games::Game>::Piece>,
);

/// Follows `r`'s board through readings and every timer after them;
/// returns the events.
fn follow<G: boardcast::games::Game>(
    mut r: Reconstructor<G>,
    readings: &[SquareAt<G>],
) -> Vec<EventKind> {
    let mut events = Vec::new();
    for &(t, sq, cell) in readings {
        while let Some(d) = r.poll_timeout().filter(|&d| d <= t) {
            r.handle_timeout(d);
        }
        r.handle_square(t, sq, cell);
        events.extend(drain(&mut r));
    }
    while let Some(d) = r.poll_timeout() {
        r.handle_timeout(d);
    }
    events.extend(drain(&mut r));
    events
}

/// The moves' ids in order, and `withdrawn` for each retraction or
/// takeback.
fn move_ids(events: &[EventKind]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::Move { id, .. } => Some(id.as_str()),
            EventKind::Retract { .. } | EventKind::Takeback { .. } => Some("withdrawn"),
            _ => None,
        })
        .collect()
}

/// The moves published are `want` (none withdrawn), and a piece of `side`
/// was reported misplaced, then cleared.
fn assert_pushed_only(events: &[EventKind], want: &[&str], side: Side) {
    assert_eq!(move_ids(events), want, "{events:?}");
    let raised = events.iter().any(|e| {
        matches!(e, EventKind::Alert(a) if a.kind == AlertKind::Misplaced
            && !a.cleared && a.side == Some(side))
    });
    assert!(raised, "{events:?}");
    let cleared = events
        .iter()
        .any(|e| matches!(e, EventKind::Alert(a) if a.kind == AlertKind::Misplaced && a.cleared));
    assert!(cleared, "{events:?}");
}

/// Issue 44: a knock is not a touch. Black's soldier on a6, pushed sideways
/// onto b6 (where it cannot go) long after Red's move and set back a second
/// later, is a piece displaced and set back, not a piece its player lifted
/// and put back: no touch-move notice when Black then plays another piece,
/// on a board that names its pieces or one that senses occupancy only. A
/// lift and put back on the spot stays a touch.
#[test]
fn xiangqi_a_soldier_displaced_and_set_back_is_no_touch_move() {
    let occupied = XIANGQI_START.replace(|c: char| c != '.', "o");
    for (hello, start, soldier, cannon) in [
        (
            "hello xiangqi 9x10 id=XQ-1 pieces=yes",
            XIANGQI_START,
            " p",
            " C",
        ),
        (
            "hello xiangqi 9x10 id=XQ-1 pieces=no",
            occupied.as_str(),
            "",
            "",
        ),
    ] {
        let board = format!("board {start}");
        let lines = [
            (10, board.clone()),
            (2_000, "up h2".to_string()),
            (2_300, format!("down e2{cannon}")),
            (6_000, "up a6".to_string()),
            (6_100, format!("down b6{soldier}")),
            (7_300, "up b6".to_string()),
            (7_500, format!("down a6{soldier}")),
            (10_000, "up c6".to_string()),
            (10_300, format!("down c5{soldier}")),
        ];
        let lines: Vec<(u64, &str)> = lines.iter().map(|(t, l)| (*t, l.as_str())).collect();
        let r = capture(hello, &lines);
        assert_eq!(
            short(&kinds(&r)),
            ["start", "move h2e2", "move c6c5"],
            "{hello}"
        );
    }
}

/// Issue 44: the mover's hand clearing the men it took is still the
/// mover's: a knock of the opponent's man by that hand just after the last
/// man came off (more than the grace after the capturing man was set
/// down) is no touch-move by the opponent.
#[test]
fn draughts_a_knock_by_the_hand_clearing_a_capture_is_no_touch_move() {
    let board = format!("board {DRAUGHTS_START}");
    let r = draughts_board(&[
        (10, &board),
        (2_000, "up c3"),
        (2_300, "down d4 M"),
        (5_000, "up f6"),
        (5_300, "down e5 m"),
        // Black jumps d4 over e5 to f6, sets the man down, then clears the
        // taken man 1.4 s later and knocks White's man on e7 (which could
        // take f6 too) on the way back.
        (8_000, "up d4"),
        (8_300, "down f6 M"),
        (9_700, "up e5"),
        (10_000, "up e7"),
        (11_000, "down e7 m"),
        // White must take back: g7 over f6 to e5.
        (14_000, "up g7"),
        (14_300, "down e5 m"),
        (14_800, "up f6"),
    ]);
    let e = short(&kinds(&r));
    assert_eq!(e.len(), 5, "{e:?}");
    assert!(!e.iter().any(|x| x.contains("touch_move")), "{e:?}");
}

/// Issue 44, xiangqi on a board without piece identity: Red's chariot on
/// i3 takes Black's chariot on i9 victim first, then slides up the file
/// touching i4 to i8 for a moment each. The board read at i4 is what Red's
/// i3-i4 and Black's chariot taking it would show; at i5, Red's i3-i5 and
/// Black's i9xi5; but Black's chariot left i9 before Red's left i3, and no
/// reply begins before the move it answers. Before: R1+1 published, then a
/// Black capture, then `misplaced`. Now: the capture i3xi9, and Black's
/// reply, with no alert and nothing withdrawn.
#[test]
fn xiangqi_a_capture_slid_to_its_victim_lifted_first_is_the_capture() {
    let unknown = "?";
    let mut readings = vec![(600, "i9", ""), (900, "i3", "")];
    let mut t = 1_000;
    for point in ["i4", "i5", "i6", "i7", "i8"] {
        readings.push((t, point, unknown));
        readings.push((t + 200, point, ""));
        t += 300;
    }
    readings.push((t, "i9", unknown));
    // Black replies with the general, 4 s later.
    readings.push((t + 4_000, "e9", ""));
    readings.push((t + 4_300, "e8", unknown));
    let events = occupancy_xiangqi("4k3r/9/9/9/9/9/8R/9/9/3K5 w - - 0 1", &readings);
    assert_eq!(move_ids(&events), ["i3i9", "e9e8"], "{events:?}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventKind::Alert(a) if a.kind.is_error() && !a.cleared)),
        "{events:?}"
    );
}

/// Issue 44, as real hands replayed on master games showed it: a chariot
/// set down short of the chariot it takes, the victim lifted and set down
/// beside for a moment on a point it could move to (a legal reply, read
/// alone), then lifted away and the capture made. Before: both the stop
/// and the "reply" were final at once, and the capture had nothing to
/// explain it (`misplaced` 7 s later, the record invented from there).
#[test]
fn xiangqi_a_victim_set_beside_on_a_point_it_could_move_to_is_no_reply() {
    let occupied = XIANGQI_START.replace(|c: char| c != '.', "o");
    for (hello, start, red, black) in [
        (
            "hello xiangqi 9x10 id=XQ-1 pieces=yes",
            XIANGQI_START,
            " R",
            " r",
        ),
        (
            "hello xiangqi 9x10 id=XQ-1 pieces=no",
            occupied.as_str(),
            "",
            "",
        ),
    ] {
        let lines = [
            (10, format!("board {start}")),
            (2_000, "up a0".to_string()),
            (2_300, format!("down a1{red}")),
            (5_000, "up i9".to_string()),
            (5_300, format!("down i8{black}")),
            (8_000, "up a1".to_string()),
            (8_300, format!("down d1{red}")),
            (11_000, "up i8".to_string()),
            (11_300, format!("down d8{black}")),
            (14_000, "up d1".to_string()),
            (14_437, format!("down d6{red}")),
            (14_772, "up d8".to_string()),
            (15_034, format!("down c8{black}")),
            (16_398, "up c8".to_string()),
            (16_580, "up d6".to_string()),
            (16_702, format!("down d8{red}")),
        ];
        let lines: Vec<(u64, &str)> = lines.iter().map(|(t, l)| (*t, l.as_str())).collect();
        let r = capture(hello, &lines);
        assert_eq!(
            short(&kinds(&r)),
            [
                "start",
                "move a0a1",
                "move i9i8",
                "move a1d1",
                "move i8d8",
                "move d1d8"
            ],
            "{hello}"
        );
    }
}

/// Issue 44, draughts on a board without piece identity, as real hands
/// replayed on self-play games showed it: Black jumps 15 over 19 to 24,
/// lifts the taken man and sets it down for a moment on 15, the square the
/// capturing man left, on its way off the board. That moment's occupancy
/// is the position before White's 24-19, so 15 is touched after 24: the
/// capture looked as if it landed before it left (a sign of a piece
/// pushed), and only the takeback explained the board. Before: nothing
/// published after 24-19 (on replayed games, `misplaced` once White
/// replied with a capture of its own). Now: the capture, final on time.
#[test]
fn draughts_a_victim_set_down_where_the_capture_began_is_no_takeback() {
    let events = occupancy_draughts(
        "W:W21,24,28:B1,2,15",
        &[
            (1_000, 24, ""),
            (1_300, 19, "?"),
            (5_000, 15, ""),
            (5_400, 24, "?"),
            (5_800, 19, ""),
            (6_100, 15, "?"),
            (6_500, 15, ""),
        ],
    );
    assert_eq!(move_ids(&events), ["24-19", "15x24"], "{events:?}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventKind::Alert(a) if a.kind.is_error())),
        "{events:?}"
    );
}

/// Follows a xiangqi board with piece identity from `fen` through
/// `(time, point, "" for empty or the piece's letter)` readings and every
/// timer after them; returns the events.
fn pieces_xiangqi(fen: &str, readings: &[(u64, &str, &str)]) -> Vec<EventKind> {
    use boardcast::games::grid::Stone;
    let readings: Vec<_> = readings
        .iter()
        .map(|&(t, s, c)| {
            let cell = match c.as_bytes().first() {
                Some(&b) => Cell::Piece(Stone::new(b)),
                None => Cell::Empty,
            };
            (t, xq_point(s), cell)
        })
        .collect();
    follow(xiangqi_from(fen), &readings)
}

/// The moves published are `ids` (`move_ids`), and no alert was raised but
/// cleared ones.
fn assert_clean_moves(events: &[EventKind], ids: &[&str]) {
    assert_eq!(move_ids(events), ids, "{events:?}");
    assert_no_error(events);
}

/// No alert but cleared ones among `events`.
fn assert_no_error(events: &[EventKind]) {
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventKind::Alert(a) if a.kind.is_error() && !a.cleared)),
        "{events:?}"
    );
}

/// Issue 44, as real hands replayed on self-play games showed it, on a
/// board without piece identity: Red's chariot on e4 takes the soldier on
/// c4, the soldier lifted while the chariot is in the air, the chariot
/// touching down on d4 on its way. That moment reads as Red's e4-d4 and
/// Black's soldier taking it, but the soldier left c4 before anything
/// stood on d4: no reply begins before the move it answers is set down.
/// Before: e4-d4 made final by that "reply" at once, and `misplaced` when
/// the capture was finished. Now: the capture.
#[test]
fn xiangqi_a_victim_lifted_before_the_move_landed_is_no_reply() {
    let events = occupancy_xiangqi(
        "2bak4/4a4/6r2/8p/9/2p1R4/8P/3CB4/2N6/3AKAB2 w - - 6 36",
        &[
            (1_000, "e4", ""),
            (1_360, "c4", ""),
            (1_500, "d4", "?"),
            (2_310, "d4", ""),
            (2_480, "c4", "?"),
        ],
    );
    assert_clean_moves(&events, &["e4c4"]);
}

/// Issue 44, on a board without piece identity: Red's chariot a0-d0, then
/// Black takes it with the chariot on d9 the real-hands way: the victim
/// lifted first, set down beside on c0 for a moment (read as Red's
/// chariot going on to c0), lifted away, the capture made. Black's lift of
/// its chariot while nothing stands on c0 proves no correction to c0.
/// Before: a0-c0 final, and `misplaced` after the capture. Now: a0-d0 and
/// d9xd0.
#[test]
fn xiangqi_a_victim_set_beside_is_no_correction_the_opponent_confirms() {
    let events = occupancy_xiangqi(
        "3rk4/9/9/9/9/4P4/9/9/9/R3K4 w - - 0 1",
        &[
            (1_000, "a0", ""),
            (1_250, "d0", "?"),
            (3_540, "d0", ""),
            (3_650, "c0", "?"),
            (4_020, "c0", ""),
            (4_550, "d9", ""),
            (4_750, "d0", "?"),
        ],
    );
    assert_clean_moves(&events, &["a0d0", "d9d0"]);
}

/// Issue 44, on a board with piece identity: Black's chariot on i9 takes
/// Red's cannon on g9 (which checks the general through the adviser), set
/// down short of it on h9 first (an illegal move, read alone: the check
/// stands); Black's hand lifts the cannon, sets it down beside on g8 for
/// under a second, lifts it away and finishes the capture. The cannon on
/// g8 is no Red reply to an illegal move until it has stood its time.
/// Before: `illegal_move` against Black at once. Now: i9xg9, no alert.
#[test]
fn xiangqi_a_victim_set_beside_for_a_moment_is_no_reply_to_an_illegal_stop() {
    let events = pieces_xiangqi(
        "1nbakaC1r/4r4/8n/p3c4/1cp1R3p/4P2C1/P1P3P1P/9/8R/1NBAKABN1 b - - 0 12",
        &[
            (1_000, "i9", ""),
            (1_270, "h9", "r"),
            (1_650, "g9", ""),
            (1_820, "g8", "C"),
            (2_600, "g8", ""),
            (3_100, "h9", ""),
            (3_300, "g9", "r"),
        ],
    );
    assert_clean_moves(&events, &["i9g9"]);
}

/// Issue 44, as real hands replayed on a WXF master game showed it, on a
/// board without piece identity: after Black's h5xf5, Red takes the
/// chariot on h6 with the chariot from h0, the victim lifted first and set
/// down beside on h5 for a second. That board reads as Black's chariot
/// taking the cannon on g6 instead of h5xf5 (a correction whose capture no
/// reading backs up: g6 was never touched); Red lifting a piece proves no
/// such correction. Before: h6xg6 final, then `misplaced`. Now: h5xf5 and
/// h0xh6.
#[test]
fn xiangqi_an_unbacked_correction_is_not_proved_by_a_lift() {
    let events = occupancy_xiangqi(
        "4kab2/4a3n/2n1b4/6Crp/5Ppc1/C1P6/P7P/6N2/9/2BAKABR1 b - - 0 19",
        &[
            (1_000, "h5", ""),
            (1_430, "f5", ""),
            (1_690, "f5", "?"),
            (3_230, "h6", ""),
            (3_380, "h5", "?"),
            (4_350, "h5", ""),
            (4_545, "h0", ""),
            (4_737, "h6", "?"),
        ],
    );
    assert_clean_moves(&events, &["h5f5", "h0h6"]);
}

/// Issue 44, as real hands replayed on a WXF master game showed it: Black's
/// cannon slides b6-f6 (final after 6 s on f6), and Red takes it with the
/// chariot from g6 the real-hands way: the cannon lifted first, set down
/// beside on e6 for under a second (on the cannon's own line: b6-e6 was
/// legal too), lifted away, the capture made. A final move is corrected
/// only when the reply finds its piece standing where it went on; Red's
/// lift of the chariot, with the cannon off e6, proves nothing. Before:
/// b6-e6 made the move by that lift, 165 wrong moves after it and
/// `misplaced`. Now: b6-f6 and g6xf6.
#[test]
fn xiangqi_a_victim_set_beside_on_its_line_is_no_correction_of_a_final_move() {
    let events = pieces_xiangqi(
        "1rbak1r2/4a4/2nCb1n2/pc4R1p/2p1p4/5NP2/P1P1P3P/4C4/2N6/1RBA1KB2 b - - 4 14",
        &[
            (1_000, "b6", ""),
            (1_107, "c6", "c"),
            (1_150, "c6", ""),
            (1_268, "d6", "c"),
            (1_308, "d6", ""),
            (1_446, "e6", "c"),
            (1_494, "e6", ""),
            (1_913, "f6", "c"),
            (7_996, "f6", ""),
            (8_255, "e6", "c"),
            (8_965, "e6", ""),
            (9_409, "g6", ""),
            (9_819, "f6", "R"),
        ],
    );
    assert_clean_moves(&events, &["b6f6", "g6f6"]);
}

/// Xiangqi Art. 16 (a move leaving one's own general in check), as the
/// fault bench injects it: after Red's chariot e0-e4, Black's adviser
/// e8-f7 opens the e file to it, and it could take the adviser's point
/// from where it stands. Red lifts the chariot, then sets it back on e4: it did not take
/// anything (the adviser was no victim set down beside), and Red's hand on
/// a piece of its own says the move was made. Before: read as a capture
/// that might go on, then `misplaced` with the adviser. Now: the illegal
/// move, named against Black.
#[test]
fn xiangqi_art_16_a_chariot_lifted_and_set_back_after_a_self_check_makes_it_a_move() {
    let events = pieces_xiangqi(
        "2bCk4/4a4/6n1b/p1c6/6p2/1rB6/P5P2/9/3N5/4RK3 w - - 1 29",
        &[
            (500, "e0", ""),
            (920, "e4", "R"),
            (8_000, "e8", ""),
            (8_460, "f7", "a"),
            (12_333, "e4", ""),
            (12_670, "e4", "R"),
            (17_100, "f7", ""),
            (17_577, "e8", "a"),
        ],
    );
    let alerts: Vec<String> = short(&events)
        .into_iter()
        .filter(|e| e.starts_with("alert"))
        .collect();
    assert_eq!(alerts, ["alert illegal_move black 16"], "{events:?}");
}

/// Issue 44, the touch grace (`docs/arbiter.md`), as real hands replayed
/// on self-play games showed it: Black jumps d4 over e5 to f6 and takes
/// the man off the real-hands way, set down beside on c5 for a second,
/// then lifted away; that hand knocks White's man on e7 half a second
/// later, 1.8 s after the jump was set down. The grace counts from the
/// last stray man taken off, not only from squares of the move. Before: a
/// `touch_move` notice against White. Now: none.
#[test]
fn draughts_a_knock_after_a_taken_man_left_from_beside_is_no_touch_move() {
    let board = format!("board {DRAUGHTS_START}");
    let r = draughts_board(&[
        (10, &board),
        (2_000, "up c3"),
        (2_300, "down d4 M"),
        (5_000, "up f6"),
        (5_300, "down e5 m"),
        (8_000, "up d4"),
        (8_300, "down f6 M"),
        (8_500, "up e5"),
        (8_800, "down c5 m"),
        (9_600, "up c5"),
        (10_100, "up e7"),
        (10_400, "down e7 m"),
        (14_000, "up g7"),
        (14_300, "down e5 m"),
        (14_800, "up f6"),
    ]);
    let e = short(&kinds(&r));
    assert_eq!(e.len(), 5, "{e:?}");
    assert!(!e.iter().any(|x| x.contains("touch_move")), "{e:?}");
}
