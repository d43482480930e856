//! What the tracker holds back from the record while the board is in
//! motion: one thing at a time ([`Held`]), a legal explanation waiting to
//! settle or a board that looks like an illegal move waiting to be
//! completed, never both (a board in motion towards a legal move is not
//! read as an illegal one).

use super::*;

/// What the board shows beyond the published game, held back from the
/// record until time or the players decide it.
#[derive(Clone, Debug)]
pub(super) enum Held<G: Game> {
    /// Nothing held: the board shows the published game, or nothing
    /// explains it yet.
    Nothing,
    /// A legal explanation (moves on, a takeback, a correction of the last
    /// moves), published once it settles.
    Move(Candidate<G>),
    /// A board that looks like an illegal move of the side to move,
    /// reported once it is completed (Law 6.2a).
    Illegal(Irregular<G>),
}

impl<G: Game> Held<G> {
    /// The legal explanation held, if that is what is held.
    pub(super) fn candidate(&self) -> Option<&Candidate<G>> {
        match self {
            Held::Move(c) => Some(c),
            _ => None,
        }
    }

    /// The same, to change it.
    pub(super) fn candidate_mut(&mut self) -> Option<&mut Candidate<G>> {
        match self {
            Held::Move(c) => Some(c),
            _ => None,
        }
    }

    /// The legal explanation held, no longer held.
    pub(super) fn take_candidate(&mut self) -> Option<Candidate<G>> {
        match std::mem::replace(self, Held::Nothing) {
            Held::Move(c) => Some(c),
            other => {
                *self = other;
                None
            }
        }
    }

    /// The illegal move held, if that is what is held.
    pub(super) fn illegal(&self) -> Option<&Irregular<G>> {
        match self {
            Held::Illegal(x) => Some(x),
            _ => None,
        }
    }

    /// The same, to change it.
    pub(super) fn illegal_mut(&mut self) -> Option<&mut Irregular<G>> {
        match self {
            Held::Illegal(x) => Some(x),
            _ => None,
        }
    }

    /// The illegal move held, no longer held.
    pub(super) fn take_illegal(&mut self) -> Option<Irregular<G>> {
        match std::mem::replace(self, Held::Nothing) {
            Held::Illegal(x) => Some(x),
            other => {
                *self = other;
                None
            }
        }
    }

    /// A legal explanation held is dropped (an illegal move held stays).
    pub(super) fn drop_candidate(&mut self) {
        self.take_candidate();
    }

    /// An illegal move held is dropped (a legal explanation held stays).
    pub(super) fn drop_illegal(&mut self) {
        self.take_illegal();
    }
}

/// A legal explanation of the board, held until it settles.
#[derive(Clone, Debug)]
pub(super) struct Candidate<G: Game> {
    pub(super) explanation: Explanation<Move<G>>,
    /// The reading that made the board show it.
    pub(super) since: Millis,
    pub(super) settle: Millis,
    /// That reading's number (see [`Playing::evidence_base`]).
    pub(super) reading: u64,
    /// Whether the board shows it right now.
    pub(super) showing: bool,
    /// Whether its moves were shown as provisional before it settled, or
    /// need not be (see [`Reconstructor::preview`]).
    pub(super) previewed: bool,
    /// Whether the readings did not back it up when it was found (see
    /// [`search::Outcome::backed`]): the opponent lifting a piece proves
    /// nothing of it.
    pub(super) unbacked: bool,
}

impl<G: Game> Candidate<G> {
    /// When it has settled.
    pub(super) fn due(&self) -> Millis {
        self.since + self.settle
    }
}

/// A board that looks like an illegal move of the side to move. It is
/// reported only once completed (Law 6.2a: the clock pressed, or the
/// opponent begins to reply); until then it is a displacement.
#[derive(Clone, Debug)]
pub(super) struct Irregular<G: Game> {
    pub(super) m: Pseudo<G>,
    /// The board it made (game orientation), as the sensors showed it.
    pub(super) board: Board<G>,
    /// The same with every piece named (see [`Game::pseudo_board`]).
    pub(super) made: Board<G>,
    /// The alert has been raised; the position it made, when play can go
    /// on from it.
    pub(super) reported: Option<Option<Position<G>>>,
    /// Since when the piece its move could capture stands on another
    /// square (the opponent's reply, once it has stood its time; see
    /// [`Reconstructor::watch_unexplained`]).
    pub(super) reply_since: Option<Millis>,
    /// The last ply's piece was lifted again while this move's piece stood
    /// beside it as its victim (see [`Reconstructor::watch_unexplained`]).
    pub(super) capture_lifted: bool,
}
