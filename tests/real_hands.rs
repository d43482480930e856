//! Issue 43: the habits of real hands on a DGT board (docs/boards.md,
//! "Handling profiles of the simulator"), one scene each, and the knight
//! case that once made boardcast accuse a player. A move is final when the
//! clock is pressed, the opponent replies, or it has stood its time; until
//! then it is provisional. Every scene asserts that the record never shows
//! a wrong move (no `retract`), that no error alert is raised, and what
//! was shown provisionally on the way.

use boardcast::delay::PublicView;
use boardcast::event::{Event, EventKind, GameId, Side};
use boardcast::games::chess::{Color, Piece, Position, Role, Square};
use boardcast::track::{Cell, Config, Reconstructor};

/// What happens at the board.
#[derive(Clone, Copy)]
enum Step {
    /// A square reads `cell` at this time.
    Read(u64, Square, Cell<Piece>),
    /// The player of this side presses the clock.
    Press(u64, Side),
}

use Step::{Press, Read};

/// Runs `steps` from `fen` and every timer after them; returns the events
/// with the time each was published.
fn scene(fen: &str, steps: &[Step]) -> Vec<(u64, EventKind)> {
    let pos = Position::from_fen(fen, false).expect("FEN");
    let mut r = Reconstructor::new(Config::default());
    r.start_from(0, pos.clone(), false);
    r.handle_board(0, &boardcast_sim::faults::chess::cells_of(pos.board()));
    while r.poll_event().is_some() {}
    let mut out = Vec::new();
    let mut drain = |r: &mut Reconstructor, now: u64| {
        while let Some((_, e)) = r.poll_event() {
            out.push((now, e));
        }
    };
    for &step in steps {
        let t = match step {
            Read(t, ..) | Press(t, _) => t,
        };
        while let Some(d) = r.poll_timeout().filter(|&d| d <= t) {
            r.handle_timeout(d);
            drain(&mut r, d);
        }
        match step {
            Read(t, sq, cell) => r.handle_square(t, sq, cell),
            Press(t, side) => {
                r.handle_clock_press(t, side);
            }
        }
        drain(&mut r, t);
    }
    while let Some(d) = r.poll_timeout() {
        r.handle_timeout(d);
        drain(&mut r, d);
    }
    out
}

/// The record the `move`, `retract` and `takeback` events make, in SAN.
fn record(events: &[(u64, EventKind)]) -> Vec<String> {
    let mut sans: Vec<String> = Vec::new();
    for (_, e) in events {
        match e {
            EventKind::Move { ply, notation, .. } => {
                sans.truncate(*ply as usize - 1);
                sans.push(notation.clone());
            }
            EventKind::Retract { ply, .. } => sans.truncate(*ply as usize - 1),
            EventKind::Takeback { to_ply, .. } => sans.truncate(*to_ply as usize),
            _ => {}
        }
    }
    sans
}

/// The provisional moves shown, in order.
fn shown(events: &[(u64, EventKind)]) -> Vec<String> {
    events
        .iter()
        .filter_map(|(_, e)| match e {
            EventKind::Provisional {
                notation,
                withdrawn: false,
                ..
            } => Some(notation.clone()),
            _ => None,
        })
        .collect()
}

/// When the first final move (`move` event) was published.
fn first_final(events: &[(u64, EventKind)]) -> Option<u64> {
    events
        .iter()
        .find(|(_, e)| matches!(e, EventKind::Move { .. }))
        .map(|(t, _)| *t)
}

/// Never a wrong final move, never an error alert.
fn clean(events: &[(u64, EventKind)]) {
    for (_, e) in events {
        assert!(!matches!(e, EventKind::Retract { .. }), "{events:?}");
        assert!(
            !matches!(e, EventKind::Alert(a) if a.kind.is_error() && !a.cleared),
            "{events:?}"
        );
    }
}

fn piece(color: Color, role: Role) -> Cell<Piece> {
    Cell::Piece(Piece { color, role })
}

const WHITE_KNIGHT: Cell<Piece> = Cell::Piece(Piece {
    color: Color::White,
    role: Role::Knight,
});

/// After 1. d4 d5 2. Nf3 Nf6, the b1 knight is set down on d2 for half a second
/// on its way to c3; Black replies ...e6; then the other knight goes
/// f3-d2. Before: Nd2 was published at once, the knight going on to c3
/// was held as a possible knock, Black's reply made Nd2 final, and Nf3-d2
/// was reported as an illegal knight move (Nf3-c3 read, "the arbiter adds
/// two minutes"). Now: Nc3, e6, Nd2, with no alert.
#[test]
fn a_knight_set_down_on_its_way_and_the_other_knight_played_there_is_no_illegal_move() {
    let pawn = piece(Color::Black, Role::Pawn);
    let e = scene(
        "rnbqkb1r/ppp1pppp/5n2/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R w KQkq - 2 3",
        &[
            Read(1_000, Square::B1, Cell::Empty),
            Read(1_250, Square::D2, WHITE_KNIGHT),
            Read(1_750, Square::D2, Cell::Empty),
            Read(1_900, Square::C3, WHITE_KNIGHT),
            // Black thinks four seconds, then ...e6.
            Read(5_900, Square::E7, Cell::Empty),
            Read(6_200, Square::E6, pawn),
            // White thinks three seconds, then Nf3-d2.
            Read(9_200, Square::F3, Cell::Empty),
            Read(9_500, Square::D2, WHITE_KNIGHT),
        ],
    );
    clean(&e);
    assert_eq!(record(&e), ["Nc3", "e6", "Nd2"], "{e:?}");
    // The stop on d2 was shown provisionally, then superseded.
    assert_eq!(shown(&e)[..2], ["Nbd2", "Nc3"], "{e:?}");
}

/// A piece set down on the way, on a square it could legally go to, for
/// up to two seconds (the tail of the real recordings): shown as
/// provisional, never final.
#[test]
fn a_stop_on_the_way_of_up_to_two_seconds_is_only_ever_provisional() {
    for stop in [300, 1_000, 1_900] {
        let bishop = piece(Color::White, Role::Bishop);
        let e = scene(
            "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1",
            &[
                Read(1_000, Square::C1, Cell::Empty),
                Read(1_200, Square::E3, bishop),
                Read(1_200 + stop, Square::E3, Cell::Empty),
                Read(1_350 + stop, Square::G5, bishop),
            ],
        );
        clean(&e);
        assert_eq!(record(&e), ["Bg5"], "stop {stop}: {e:?}");
        assert_eq!(shown(&e).last().map(String::as_str), Some("Bg5"));
    }
}

/// Four captures in five are made capturing piece first, as a swap: the
/// capturing piece lifted, then set on the victim's square as the victim
/// comes off, so that square never reads empty.
#[test]
fn a_swap_capture_whose_square_never_reads_empty_is_the_capture() {
    let e = scene(
        "4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1",
        &[
            Read(1_000, Square::C3, Cell::Empty),
            Read(1_400, Square::D5, WHITE_KNIGHT),
        ],
    );
    clean(&e);
    assert_eq!(record(&e), ["Nxd5"], "{e:?}");
}

/// The captured piece set down beside for a moment (on an empty square)
/// before it leaves the board, the capture made meanwhile.
#[test]
fn a_victim_set_down_beside_for_a_moment_is_the_capture() {
    let pawn = piece(Color::Black, Role::Pawn);
    let e = scene(
        "4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1",
        &[
            Read(1_000, Square::D5, Cell::Empty),
            Read(1_200, Square::E5, pawn),
            Read(1_500, Square::C3, Cell::Empty),
            Read(1_800, Square::D5, WHITE_KNIGHT),
            Read(2_400, Square::E5, Cell::Empty),
        ],
    );
    clean(&e);
    assert_eq!(record(&e), ["Nxd5"], "{e:?}");
}

/// Both squares of a move read in one scan (the same millisecond).
#[test]
fn both_squares_read_at_once_are_the_move() {
    let e = scene(
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        &[
            Read(1_000, Square::E4, piece(Color::White, Role::Pawn)),
            Read(1_000, Square::E2, Cell::Empty),
        ],
    );
    clean(&e);
    assert_eq!(record(&e), ["e4"], "{e:?}");
}

/// Castling king first, the king set down on f1 (a legal king move) for
/// over a second before g1, then the rook.
#[test]
fn castling_king_first_with_the_king_set_down_on_a_wrong_square_is_castling() {
    let king = piece(Color::White, Role::King);
    let rook = piece(Color::White, Role::Rook);
    let e = scene(
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
        &[
            Read(1_000, Square::E1, Cell::Empty),
            Read(1_200, Square::F1, king),
            Read(2_400, Square::F1, Cell::Empty),
            Read(2_600, Square::G1, king),
            Read(3_300, Square::H1, Cell::Empty),
            Read(3_600, Square::F1, rook),
        ],
    );
    clean(&e);
    assert_eq!(record(&e), ["O-O"], "{e:?}");
}

/// With a clock, a move is final when its player presses it (about a
/// second after the piece is down), not before.
#[test]
fn with_a_clock_a_move_is_final_at_the_press() {
    let e = scene(
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        &[
            Read(1_000, Square::E2, Cell::Empty),
            Read(1_200, Square::E4, piece(Color::White, Role::Pawn)),
            Press(2_300, Side::White),
        ],
    );
    clean(&e);
    let provisional = e
        .iter()
        .find(|(_, e)| matches!(e, EventKind::Provisional { .. }))
        .map(|(t, _)| *t);
    let last = first_final(&e);
    let debounce = boardcast::track::Config::default().settle.provisional_ms;
    assert_eq!(
        provisional,
        Some(1_200 + debounce),
        "shown after the debounce: {e:?}"
    );
    assert_eq!(last, Some(2_300), "final at the press: {e:?}");
}

/// The delayed public view: a move corrected within the delay reaches the
/// public corrected, and nothing it was shown is ever withdrawn.
#[test]
fn the_public_never_sees_a_move_corrected_within_the_delay() {
    let queen = piece(Color::White, Role::Queen);
    let e = scene(
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
        &[
            Read(1_000, Square::D1, Cell::Empty),
            Read(1_200, Square::H5, queen),
            // The queen stood on h5 for a second and a half, then went on
            // to g4 (Qd1-g4 was the move).
            Read(2_700, Square::H5, Cell::Empty),
            Read(2_900, Square::G4, queen),
        ],
    );
    clean(&e);
    assert!(shown(&e).contains(&"Qh5+".to_string()), "{e:?}");
    let mut public = PublicView::new(5_000, 0);
    let mut seen = Vec::new();
    for (t, kind) in &e {
        let event = Event {
            board: "1".into(),
            t_ms: *t,
            game: GameId::Chess,
            kind: kind.clone(),
        };
        seen.extend(public.release(*t));
        public.push(*t, &event).unwrap();
    }
    seen.extend(public.release(60_000));
    let kinds: Vec<String> = seen
        .iter()
        .map(|e| match &e.kind {
            EventKind::Move { notation, .. } => format!("move {notation}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["move Qg4"]);
}

/// A pawn set down on e3 on its way to e4, and Black's reply ...d6 made
/// by setting the pawn down on d6 before lifting it from d7 (the board
/// never shows a lift of Black's). Before: e3 was made final by the reply
/// read around the pawn that went on.
#[test]
fn a_reply_set_down_before_its_piece_is_lifted_confirms_the_correction() {
    let white = piece(Color::White, Role::Pawn);
    let black = piece(Color::Black, Role::Pawn);
    let e = scene(
        "rnbqk2r/ppppppbp/5np1/8/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",
        &[
            Read(1_000, Square::E2, Cell::Empty),
            Read(1_300, Square::E3, white),
            Read(1_900, Square::E3, Cell::Empty),
            Read(1_950, Square::E4, white),
            Read(4_750, Square::D6, black),
            Read(4_820, Square::D7, Cell::Empty),
        ],
    );
    clean(&e);
    assert_eq!(record(&e), ["e4", "d6"], "{e:?}");
}

/// The piece that has just moved, knocked by a sleeve onto a square it
/// could not have gone to and left there: the move cannot change while it
/// stands there (going on to another square would be a new reading, a
/// piece in the air is not standing), so the move is final at its time,
/// not when the knock is put right four seconds later. Before: final only
/// when the bishop was set back.
#[test]
fn a_moved_piece_knocked_where_it_could_not_go_does_not_hold_its_move_back() {
    let bishop = piece(Color::White, Role::Bishop);
    let e = scene(
        "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1",
        &[
            Read(1_000, Square::C1, Cell::Empty),
            Read(1_200, Square::E3, bishop),
            // Knocked onto e2 1.5 s later, set back 4 s after that.
            Read(2_700, Square::E3, Cell::Empty),
            Read(2_800, Square::E2, bishop),
            Read(6_800, Square::E2, Cell::Empty),
            Read(7_000, Square::E3, bishop),
        ],
    );
    clean(&e);
    assert_eq!(record(&e), ["Be3"], "{e:?}");
    let final_at = first_final(&e).expect("a final move");
    let final_ms = Config::default().settle.final_ms;
    assert!(
        final_at <= 1_200 + final_ms + 100,
        "final at {final_at}: {e:?}"
    );
}

/// A pawn its player has moved and completed with the clock (Law 6.2a),
/// knocked back onto the square it came from while the opponent thinks and
/// set right 2.5 s later: the board shows the position before the move,
/// as a takeback would, but a completed move is not withdrawn on a few
/// seconds of evidence (a takeback of it is held as long as a displaced
/// piece). Before: the move was taken back 1.5 s after the knock and made
/// again when the pawn was set right.
#[test]
fn a_completed_move_knocked_back_to_where_it_came_from_is_no_takeback() {
    let pawn = piece(Color::White, Role::Pawn);
    let e = scene(
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        &[
            Read(1_000, Square::E2, Cell::Empty),
            Read(1_200, Square::E4, pawn),
            Press(1_900, Side::White),
            Read(4_000, Square::E4, Cell::Empty),
            Read(4_100, Square::E2, pawn),
            Read(6_600, Square::E2, Cell::Empty),
            Read(6_700, Square::E4, pawn),
        ],
    );
    clean(&e);
    assert!(
        !e.iter()
            .any(|(_, e)| matches!(e, EventKind::Takeback { .. })),
        "{e:?}"
    );
    assert_eq!(record(&e), ["e4"], "{e:?}");
}

/// A rook set down short of its victim, the victim lifted and set down
/// beside for a moment on a square it could move to (a legal reply, read
/// alone), then lifted away and the capture made: the reply moved the very
/// piece the rook could take from where it stood, so it proves nothing
/// until it stands. Before: Ra4 and ...Rb5 were final at once, and the
/// capture on a5 had nothing to explain it.
#[test]
fn a_victim_set_beside_on_a_square_it_could_move_to_is_no_reply() {
    let rook = piece(Color::White, Role::Rook);
    let black_rook = piece(Color::Black, Role::Rook);
    let e = scene(
        "4k3/8/8/r7/8/8/8/R3K3 w - - 0 1",
        &[
            Read(1_000, Square::A1, Cell::Empty),
            Read(1_300, Square::A4, rook),
            Read(1_800, Square::A5, Cell::Empty),
            Read(1_950, Square::B5, black_rook),
            Read(2_400, Square::B5, Cell::Empty),
            Read(2_700, Square::A4, Cell::Empty),
            Read(2_800, Square::A5, rook),
        ],
    );
    clean(&e);
    assert_eq!(record(&e), ["Rxa5"], "{e:?}");
}
