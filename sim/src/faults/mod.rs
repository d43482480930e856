//! Faults for the arbiter: sessions in which something the rule books
//! care about happens, with what boardcast should say about it
//! ([`FaultCase`]), and how a replay of one did ([`FaultCase::check`]).
//! Used by `cargo bench --bench alerts` and `--bench games` and the tests.
//!
//! One [`FaultKind`] for every game; each game has its table of kinds and
//! an injector per kind, which plays a real game with the fault in it:
//! [`chess`] on a DGT board with the human profile (takebacks off, so the
//! expected record is known), [`draughts`] and [`xiangqi`] on an
//! open-protocol board with the simulator's hands ([`crate::open`]).
//!
//! Chess:
//!
//! - `IllegalTakenBack`: an illegal move, completed when the opponent
//!   begins to reply (Law 6.2a), noticed and taken back (Law 7.5a), then
//!   the real move.
//! - `IllegalStands`: a completed illegal move nobody notices; play goes on
//!   from the position it made.
//! - `Displaced`: two pieces knocked off the board and left there for a
//!   while, then set back.
//! - `Pushed`: a piece of the side not to move (not the one that has just
//!   moved) pushed onto a free neighbouring square and left there 10-20 s,
//!   then set back: displaced pieces (Law 7.4), never an illegal move.
//! - `WrongSetup`: the start position set up wrongly, corrected before the
//!   first move.
//! - `Unpromoted`: a pawn set on the last rank and left there while the
//!   opponent replies; the arbiter then exchanges it for a queen.
//! - `IllegalUncompleted`: an illegal move left standing, its clock not
//!   pressed and nothing of the opponent's touched, then taken back.
//! - `PushedOn`: the piece that just moved, its move final, pushed on
//!   along its line to a square its move could have reached, then set
//!   back.
//! - `PushedMidTurn`: a piece of the side not to move pushed onto a free
//!   neighbouring square at any moment of the mover's turn (a moment after
//!   its own side's move was set down, while the mover thinks, or while
//!   the mover's hand holds the piece it moves) and left there 9-20 s while
//!   the mover's move goes on; its owner sets it back (issue 60).
//!
//! Draughts and xiangqi (every fault but `MissedCaptureStands` is put
//! right before play goes on, so the expected record is the source game):
//!
//! - `MissedCapture` (draughts): a capture was compulsory (art. 1.19) and
//!   the player makes a plain step instead; the opponent begins to reply
//!   (lifts one of their own men), which completes it (art. 1.25.1), and
//!   the position is restored (art. 1.24); then the real capture.
//! - `MissedCaptureStands` (draughts): the same plain step, answered by a
//!   reply and never noticed: it stands (art. 1.25), and random legal play
//!   goes on from the position it made; the record must hold it as played.
//! - `UnfinishedJump` (draughts): a multi-jump stopped after its first jump
//!   (the first man jumped removed), the opponent begins to reply, the
//!   position is restored, then the whole multi-jump.
//! - `Movement` (xiangqi): a piece moved to a point it cannot reach (Art.
//!   20), completed by the opponent's reply, restored.
//! - `GeneralsFacing` (xiangqi): a move that leaves the generals facing on
//!   an open file (Art. 16), completed, restored.
//! - `SelfCheck` (xiangqi): a move that leaves its own general in check,
//!   or does not answer a check (Art. 16), completed, restored.
//! - `Displaced` (both): one piece of each side knocked off the board and
//!   left there for 15-40 s, then set back (draughts art. 1.26).
//! - `Pushed` (both): a piece of the side not to move pushed to a free
//!   neighbouring square and left there 10-20 s, then set back: displaced,
//!   never an illegal move.
//! - `WrongSetup` (both): the start position set up wrongly (a piece
//!   missing or on a wrong square), corrected before the first move.
//! - `TouchMove` (both): the player to move lifts one of their pieces that
//!   could move, holds it, puts it back and moves another (draughts art.
//!   1.22, xiangqi Art. 13).

mod check;
pub mod chess;
pub mod draughts;
pub mod xiangqi;

use boardcast::event::{AlertKind, EventKind, Side};
use boardcast::replay::Played;

use boardcast_protocols::reading::Square;

use crate::open::Hands;

/// A kind of fault, in any game: each game's injectors take the kinds of
/// its table ([`FaultKind::CHESS`], [`FaultKind::DRAUGHTS`],
/// [`FaultKind::XIANGQI`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    // Design: the draughts and xiangqi kinds come first, in the order the
    // games bench has always numbered its cases by (`kind as usize`), so
    // the games it picks stay the same.
    /// Draughts: a plain move while a capture was compulsory.
    MissedCapture,
    /// Draughts: the same, answered and never noticed: it stands (art.
    /// 1.25) and play goes on from it.
    MissedCaptureStands,
    /// Draughts: a multi-jump stopped after its first jump.
    UnfinishedJump,
    /// Xiangqi: a piece moved to a point it cannot reach.
    Movement,
    /// Xiangqi: the generals left facing on an open file.
    GeneralsFacing,
    /// Xiangqi: the own general left in check, or a check not answered.
    SelfCheck,
    /// Pieces displaced for a while (chess: two; draughts, xiangqi: one
    /// of each side).
    Displaced,
    /// A piece of the side not to move pushed to a neighbouring square
    /// and left there for a while.
    Pushed,
    /// A wrong initial set-up, corrected before the first move.
    WrongSetup,
    /// Draughts, xiangqi: a piece that could move touched, put back, and
    /// another moved.
    TouchMove,
    /// Chess: an illegal move completed, then taken back.
    IllegalTakenBack,
    /// Chess: an illegal move completed; play goes on from it.
    IllegalStands,
    /// Chess: a pawn left unexchanged on the last rank.
    Unpromoted,
    /// Chess: an illegal move (onto an empty square, or taking a piece)
    /// left standing without its player pressing the clock or the
    /// opponent touching anything, then taken back (issue 44).
    IllegalUncompleted,
    /// Chess: the piece that just moved, its move final, pushed on along
    /// its own line to a neighbouring square its move could have reached,
    /// left there a while and set back (issue 44).
    PushedOn,
    /// Chess: a piece of the side not to move pushed at any moment of the
    /// mover's turn and left 9-20 s while the mover makes its move; then
    /// set back by its owner (issue 60).
    PushedMidTurn,
}

impl FaultKind {
    /// The kinds injected into chess games.
    pub const CHESS: [FaultKind; 9] = [
        FaultKind::IllegalTakenBack,
        FaultKind::IllegalStands,
        FaultKind::Displaced,
        FaultKind::Pushed,
        FaultKind::WrongSetup,
        FaultKind::Unpromoted,
        FaultKind::IllegalUncompleted,
        FaultKind::PushedOn,
        FaultKind::PushedMidTurn,
    ];

    /// The kinds injected into draughts games.
    pub const DRAUGHTS: [FaultKind; 7] = [
        FaultKind::MissedCapture,
        FaultKind::MissedCaptureStands,
        FaultKind::UnfinishedJump,
        FaultKind::Displaced,
        FaultKind::Pushed,
        FaultKind::WrongSetup,
        FaultKind::TouchMove,
    ];

    /// The kinds injected into xiangqi games.
    pub const XIANGQI: [FaultKind; 7] = [
        FaultKind::Movement,
        FaultKind::GeneralsFacing,
        FaultKind::SelfCheck,
        FaultKind::Displaced,
        FaultKind::Pushed,
        FaultKind::WrongSetup,
        FaultKind::TouchMove,
    ];

    /// The alert boardcast must raise.
    pub fn alert(self) -> AlertKind {
        match self {
            FaultKind::IllegalTakenBack
            | FaultKind::IllegalStands
            | FaultKind::Unpromoted
            | FaultKind::MissedCapture
            | FaultKind::MissedCaptureStands
            | FaultKind::UnfinishedJump
            | FaultKind::Movement
            | FaultKind::GeneralsFacing
            | FaultKind::SelfCheck => AlertKind::IllegalMove,
            FaultKind::Displaced
            | FaultKind::Pushed
            | FaultKind::IllegalUncompleted
            | FaultKind::PushedOn
            | FaultKind::PushedMidTurn => AlertKind::Misplaced,
            FaultKind::WrongSetup => AlertKind::Setup,
            FaultKind::TouchMove => AlertKind::TouchMove,
        }
    }

    /// Words the alert's message must contain (it says what was wrong),
    /// where the checks ask for them.
    pub fn says(self) -> Option<&'static str> {
        match self {
            FaultKind::MissedCapture | FaultKind::MissedCaptureStands => {
                Some("a capture was compulsory")
            }
            FaultKind::UnfinishedJump => Some("multi-jump was not completed"),
            FaultKind::Movement => Some("cannot move from"),
            FaultKind::GeneralsFacing | FaultKind::SelfCheck => Some("general in check or facing"),
            _ => None,
        }
    }
}
/// A session with a fault in it and what should come of it; `S` is how
/// the board was played ([`crate::Session`] for chess, read on a DGT
/// board; [`crate::open::OtherGameSession`] for draughts and xiangqi).
#[derive(Clone, Debug)]
pub struct FaultCase<S> {
    /// The kind injected.
    pub kind: FaultKind,
    /// The session.
    pub session: S,
    /// The side the alert concerns, when it concerns one.
    pub side: Option<Side>,
    /// The record boardcast must publish in the end: chess SAN (long
    /// algebraic for an illegal move that stood), draughts and xiangqi
    /// move ids.
    pub record: Vec<String>,
    /// The ply after which the fault happens (0: before the first move).
    pub at_ply: usize,
}

/// How boardcast handled one fault case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultCheck {
    /// The expected alert was raised (and, where the kind asks for it,
    /// its message says what was wrong: [`FaultKind::says`]).
    pub raised: bool,
    /// It named the right side (true when no side is expected).
    pub side_right: bool,
    /// The published record equals the expected one.
    pub exact: bool,
    /// Error alerts beyond the expected one that were never withdrawn
    /// (false alarms).
    pub extra_errors: usize,
    /// An error alert of another kind came first and was withdrawn when
    /// the evidence arrived (an illegal move first seen as displaced
    /// pieces, because it stood past the misplacement delay before the
    /// opponent began to reply).
    pub reclassified: bool,
    /// The expected alert was later cleared (for `misplaced` and `setup`).
    pub cleared: bool,
    /// `retract` events: final moves shown and then withdrawn (a wrong
    /// move shown, or an illegal move taken back).
    pub retracted: usize,
}

/// The ids of the moves a replay published, retractions applied.
pub fn record_ids(replay: &Played) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for e in &replay.events {
        match &e.kind {
            EventKind::GameStart { .. } => ids.clear(),
            EventKind::Move { ply, id, .. } => {
                ids.truncate((*ply as usize).saturating_sub(1));
                ids.push(id.clone());
            }
            EventKind::Retract { ply, .. } => ids.truncate((*ply as usize).saturating_sub(1)),
            EventKind::Takeback { to_ply, .. } => ids.truncate(*to_ply as usize),
            _ => {}
        }
    }
    ids
}

/// Error alerts a replay raised and never withdrew.
pub fn standing_errors(replay: &Played) -> usize {
    alerts_errors(&replay.events)
}

/// Touch-move alerts a replay raised (information, not errors).
pub fn touch_alerts(replay: &Played) -> usize {
    alerts(replay)
        .iter()
        .filter(|a| a.kind == AlertKind::TouchMove)
        .count()
}

/// Error alerts among `events` never withdrawn among them.
fn alerts_errors(events: &[boardcast::event::Event]) -> usize {
    let alerts: Vec<&boardcast::event::Alert> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Alert(a) => Some(a),
            _ => None,
        })
        .collect();
    alerts
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            a.kind.is_error()
                && !a.cleared
                && !alerts[i + 1..]
                    .iter()
                    .any(|b| b.kind == a.kind && b.cleared)
        })
        .count()
}

fn alerts(replay: &Played) -> Vec<&boardcast::event::Alert> {
    replay
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Alert(a) => Some(a),
            _ => None,
        })
        .collect()
}

/// What a fault's act on a draughts or xiangqi board comes to.
enum Act {
    /// Put right: the side the alert names (none for displaced pieces),
    /// and the game goes on as written.
    PutRight(Option<Side>),
    /// The fault stood and play went on from it: the side the alert names
    /// and the record the game made.
    Stood(Option<Side>, Vec<String>),
}

/// A game at the ply of its fault: the hands (the first `k` plies played,
/// thinking over the next), the position there, and the record so far.
struct At<'a, M, P> {
    moves: &'a [M],
    kind: FaultKind,
    h: Hands,
    pos: P,
    k: usize,
    ids: Vec<String>,
}

/// A board set up wrongly (`piece` missing from `wrong`, or standing on
/// `moved_to` instead) in the hands `h`, who wait a while before the
/// first move; then the arbiter sets it right: the hands, ready to play.
fn set_right(mut h: Hands, wrong: Square, moved_to: Option<Square>, piece: char) -> Hands {
    h.quiet = true;
    h.hello();
    h.wait(8_000, 20_000);
    if let Some(t) = moved_to {
        h.up(t);
        h.wait(200, 700);
    }
    h.down(wrong, piece);
    h.wait(500, 1_500);
    h.quiet = false;
    h
}

/// A piece of the side not to move (`piece` on `from`) pushed to the free
/// neighbouring `to`, left there 10-20 s, and set back.
fn push_and_set_back(h: &mut Hands, from: Square, to: Square, piece: char) {
    h.up(from);
    h.wait(40, 150);
    h.down(to, piece);
    h.wait(10_000, 20_000);
    h.up(to);
    h.wait(100, 400);
    h.down(from, piece);
    h.wait(500, 2_000);
}

/// Pieces knocked off the board (already lifted), left off 15-40 s, then
/// set back one after another.
fn set_back(h: &mut Hands, knocked: impl IntoIterator<Item = (Square, char)>) {
    h.wait(15_000, 40_000);
    for (s, piece) in knocked {
        h.down(s, piece);
        h.wait(300, 1_500);
    }
}

/// The player to move lifts `piece` from `s`, holds it, and puts it back
/// (touched, not moved).
fn lift_and_put_back(h: &mut Hands, s: Square, piece: char) {
    h.up(s);
    h.wait(600, 2_000);
    h.down(s, piece);
    h.wait(500, 2_000);
}
