//! Unit tests of the reconstructor's phases and named reading steps.

use super::held::Irregular;
use super::*;
use crate::games::chess::{Piece as ChessPiece, Position as ChessPosition, Square as Sq};

type Chess = crate::games::chess::Chess;

fn uci(pos: &ChessPosition, m: &str) -> Move<Chess> {
    pos.parse_uci(m).expect("legal")
}

/// A chess reconstructor with a game started from the standard position.
fn playing() -> Reconstructor<Chess> {
    let mut r = Reconstructor::new(Config::default());
    // The sensors show the start position.
    r.cx.raw = ChessPosition::standard().board().clone();
    r.start_from(0, ChessPosition::standard(), false);
    while r.poll_event().is_some() {}
    r
}

fn state(r: &Reconstructor<Chess>) -> &Playing<Chess> {
    match &r.phase {
        Phase::Playing(p) => p,
        Phase::Waiting(_) => panic!("no game"),
    }
}

/// The game in play and the context its steps take.
struct Step<'a> {
    p: &'a mut Playing<Chess>,
    cx: &'a mut Context<Chess>,
}

impl Step<'_> {
    fn watch_result_signal_at(&mut self, at: Millis, target: &Board<Chess>) -> bool {
        self.p.watch_result_signal(self.cx, at, target)
    }
}

fn playing_and_context(r: &mut Reconstructor<Chess>) -> Step<'_> {
    match &mut r.phase {
        Phase::Playing(p) => Step { p, cx: &mut r.cx },
        Phase::Waiting(_) => panic!("no game"),
    }
}

fn state_mut(r: &mut Reconstructor<Chess>) -> &mut Playing<Chess> {
    match &mut r.phase {
        Phase::Playing(p) => p,
        Phase::Waiting(_) => panic!("no game"),
    }
}

/// The standard position after the moves `ucis`.
fn after(ucis: &[&str]) -> ChessPosition {
    ucis.iter().fold(ChessPosition::standard(), |p, m| {
        let m = uci(&p, m);
        p.play(m)
    })
}

#[test]
fn waiting_has_no_game_and_nothing_panics() {
    let mut r = Reconstructor::new(Config::default());
    assert!(matches!(r.phase, Phase::Waiting(_)));
    assert_eq!(r.handle_clock_press(10, Side::White), Press::NoGame);
    r.set_result(20, "1-0", "operator");
    r.handle_timeout(30);
    assert_eq!(r.last_mover(), (0, None));
    assert!(!r.in_sync());
    assert!(r.game().is_none());
    assert!(r.poll_event().is_none());
}

#[test]
fn a_move_set_down_is_a_showing_candidate_and_a_lift_hides_it() {
    let mut r = playing();
    r.handle_square(100, Sq::E2, Cell::Empty);
    r.handle_square(
        200,
        Sq::E4,
        Cell::Piece(ChessPiece::from_char('P').unwrap()),
    );
    let c = state(&r).held.candidate().expect("candidate");
    assert!(c.showing);
    assert_eq!(c.since, 200);
    // First shown as provisional after the debounce, then published.
    let shown = 200 + Config::default().settle.provisional_ms;
    assert_eq!(r.poll_timeout(), Some(shown));
    r.handle_timeout(shown);
    assert!(matches!(
        r.poll_event(),
        Some((200, EventKind::Provisional { ply: 1, .. }))
    ));
    let c = state(&r).held.candidate().expect("candidate");
    assert_eq!(r.poll_timeout(), Some(c.due()));
    // The pawn lifted again: the board no longer shows it.
    r.handle_square(300, Sq::E4, Cell::Empty);
    let c = state(&r).held.candidate().expect("still the candidate");
    assert!(!c.showing);
    assert_ne!(r.poll_timeout(), Some(c.due()));
}

#[test]
fn a_result_freezes_the_game_and_drops_the_candidate() {
    let mut r = playing();
    r.handle_square(100, Sq::E2, Cell::Empty);
    r.handle_square(
        200,
        Sq::E4,
        Cell::Piece(ChessPiece::from_char('P').unwrap()),
    );
    r.set_result(300, "1/2-1/2", "operator");
    let p = state(&r);
    assert!(p.course.frozen() && p.course.ended());
    assert!(p.held.candidate().is_none());
    assert!(matches!(
        r.poll_event(),
        Some((300, EventKind::GameEnd { .. }))
    ));
}

#[test]
fn a_lift_by_the_side_to_move_confirms_the_candidate() {
    let mut r = playing();
    let e4 = uci(&ChessPosition::standard(), "e2e4");
    state_mut(&mut r).held = Held::Move(Candidate {
        explanation: Explanation::Forward(vec![e4]),
        since: 0,
        settle: 450,
        reading: 0,
        showing: true,
        previewed: true,
        unbacked: false,
    });
    let mut target = after(&["e2e4"]).board().clone();
    target.discard_piece_at(Sq::E7);
    assert!(state(&r).confirmed_by_lift(&r.cx.rules, &target));
    // A piece of the mover lifted proves nothing.
    let mut target = after(&["e2e4"]).board().clone();
    target.discard_piece_at(Sq::G1);
    assert!(!state(&r).confirmed_by_lift(&r.cx.rules, &target));
}

#[test]
fn a_displacement_seen_first_is_not_a_later_ply() {
    let mut r = playing();
    let start = ChessPosition::standard();
    // Black's knight pushed to f6 before White moved.
    let pushed = uci(&after(&["e2e4"]), "g8f6");
    let mut board = start.board().clone();
    board.discard_piece_at(Sq::G8);
    board.set_piece_at(Sq::F6, ChessPiece::from_char('n').unwrap());
    let m = r.cx.rules.find_pseudo(&start, &board).expect("a change");
    state_mut(&mut r).displaced = Some(Displacement {
        m,
        since: 0,
        plies: 0,
        shadow: false,
    });
    let p = state(&r);
    let e4 = uci(&start, "e2e4");
    assert!(p.against_displacement_order(&Explanation::Forward(vec![e4, pushed])));
    assert!(!p.against_displacement_order(&Explanation::Forward(vec![e4])));
}

#[test]
fn a_reported_illegal_move_is_not_replayed_elsewhere() {
    let mut r = playing();
    let start = ChessPosition::standard();
    // White's pawn from e2 straight to e5: illegal.
    let mut board = start.board().clone();
    board.discard_piece_at(Sq::E2);
    board.set_piece_at(Sq::E5, ChessPiece::from_char('P').unwrap());
    let m = r.cx.rules.find_pseudo(&start, &board).expect("a change");
    state_mut(&mut r).held = Held::Illegal(Irregular {
        m,
        board: board.clone(),
        made: board,
        reported: Some(None),
        reply_since: None,
        capture_lifted: false,
    });
    let two = Explanation::Forward(vec![uci(&start, "e2e4"), uci(&after(&["e2e4"]), "e7e5")]);
    assert!(state(&r).moves_reported_piece(&two));
    let one = Explanation::Forward(vec![uci(&start, "e2e4")]);
    assert!(!state(&r).moves_reported_piece(&one));
    // Not reported yet: no contradiction.
    if let Some(x) = state_mut(&mut r).held.illegal_mut() {
        x.reported = None;
    }
    assert!(!state(&r).moves_reported_piece(&two));
}

#[test]
fn a_takeback_under_way_is_not_two_new_plies() {
    let mut r = playing();
    let p = state_mut(&mut r);
    for m in ["e2e4", "e7e5", "g1f3"] {
        let pos = p.game.position().clone();
        p.game.push(uci(&pos, m));
    }
    p.held = Held::Move(Candidate {
        explanation: Explanation::Back {
            plies: 1,
            then: Vec::new(),
        },
        since: 0,
        settle: 1500,
        reading: 0,
        showing: true,
        previewed: true,
        unbacked: false,
    });
    // The knight back on g1 and Black's pawn lifted from e5.
    let mut target = after(&["e2e4"]).board().clone();
    target.discard_piece_at(Sq::E7);
    let pos = after(&["e2e4", "e7e5", "g1f3"]);
    let two = Explanation::Forward(vec![
        uci(&pos, "b8c6"),
        uci(&after(&["e2e4", "e7e5", "g1f3", "b8c6"]), "f1c4"),
    ]);
    assert!(state(&r).takeback_continues(&two, &target));
    let one = Explanation::Forward(vec![uci(&pos, "b8c6")]);
    assert!(!state(&r).takeback_continues(&one, &target));
}

#[test]
fn the_piece_that_travelled_on_is_a_held_correction_and_its_shadow() {
    let mut r = playing();
    let p = state_mut(&mut r);
    p.game.push(uci(&ChessPosition::standard(), "e2e3"));
    let correction = Explanation::Back {
        plies: 1,
        then: vec![uci(&ChessPosition::standard(), "e2e4")],
    };
    assert!(travels_on::<Chess>(&p.game, &correction));
    assert!(p.held_correction(&correction));
    let other = Explanation::Back {
        plies: 1,
        then: vec![uci(&ChessPosition::standard(), "d2d4")],
    };
    assert!(!p.held_correction(&other));
    let d = state(&r)
        .shadow_displacement(&r.cx.rules, &correction, 700)
        .expect("a change");
    assert_eq!((d.m.from(), d.m.to()), (Sq::E3, Sq::E4));
    assert_eq!((d.since, d.plies, d.shadow), (700, 1, true));
    // Held as long as a displacement.
    let config = Config::default();
    let settle = state(&r).candidate_settle(&r.cx.rules, &config, &correction, false);
    assert!(settle >= config.delays.misplaced_ms);
}

#[test]
fn the_kings_in_the_centre_are_watched_not_explained() {
    let mut r = playing();
    let p = state_mut(&mut r);
    for m in ["e2e4", "e7e5", "e1e2", "e8e7", "e2d3", "e7d6"] {
        let pos = p.game.position().clone();
        p.game.push(uci(&pos, m));
    }
    let mut target = p.game.position().board().clone();
    target.discard_piece_at(Sq::D3);
    target.discard_piece_at(Sq::D6);
    target.set_piece_at(Sq::D4, ChessPiece::from_char('K').unwrap());
    target.set_piece_at(Sq::D5, ChessPiece::from_char('k').unwrap());
    assert!(playing_and_context(&mut r).watch_result_signal_at(1_000, &target));
    let kings = state(&r).kings.as_ref().expect("watched");
    assert_eq!(kings.due, 1_000 + Config::default().settle.kings_signal_ms);
    let board = state(&r).game.position().board().clone();
    assert!(!playing_and_context(&mut r).watch_result_signal_at(1_100, &board));
    assert!(state(&r).kings.is_none());
}

#[test]
fn the_orientation_is_known_from_the_start_or_the_first_move() {
    assert_eq!(Orientation::of_start(None), Orientation::Open);
    assert_eq!(Orientation::of_start(Some(false)), Orientation::Normal);
    assert_eq!(Orientation::of_start(Some(true)), Orientation::Rotated);
    let mut r = Reconstructor::new(Config::default());
    r.start_from(0, ChessPosition::standard(), true);
    assert!(r.is_rotated());
    assert_eq!(state(&r).orientation, Orientation::Rotated);
}
