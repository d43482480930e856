//! What the readings touched, for ranking explanations: the search of a
//! game whose boards may not identify pieces ([`Game::ranks_by_evidence`])
//! finds every explanation of the cheapest cost, and the one whose moves'
//! squares the readings touched, in their order, wins.

use crate::games::{Game, GameMove, GamePosition, Placement, SquareSet};

/// A quiet move's origin last touched this long after its destination was
/// not left by that move (see [`Evidence::out_of_order`]).
const OUT_OF_ORDER_MS: u64 = 1_000;

/// How well the readings back an explanation up (backed, then count, then
/// landings read in their order).
pub(super) type Score = (bool, usize, usize);

/// What the readings touched, for ranking explanations.
#[derive(Clone, Copy, Debug)]
pub struct Evidence<'a> {
    /// For each square (by [`Game::index`], game orientation), the number
    /// and the time of the last reading that touched it.
    pub touched_at: &'a [(u64, u64)],
    /// Readings numbered up to this one belong to the game's current
    /// position, not to what follows it.
    pub base: u64,
    /// How many of the game's last plies are still provisional (not
    /// final): only those may be withdrawn by the deeper search of a
    /// reply that proved nothing (see the search's `Query::explain`).
    pub provisional: usize,
}

impl Evidence<'_> {
    /// The number of the last reading that touched `sq` (0: none).
    pub(super) fn at<G: Game>(&self, rules: &G, sq: G::Square) -> u64 {
        self.touched_at.get(rules.index(sq)).map_or(0, |t| t.0)
    }

    /// When the last reading that touched `sq` was taken.
    pub(super) fn at_ms<G: Game>(&self, rules: &G, sq: G::Square) -> u64 {
        self.touched_at.get(rules.index(sq)).map_or(0, |t| t.1)
    }

    pub(super) fn seen<G: Game>(&self, rules: &G, sq: G::Square) -> bool {
        self.at(rules, sq) > self.base
    }

    /// How well the readings back `moves` up, played from `pos`: whether
    /// every square they change was touched (a capture onto an occupied
    /// square: its destination after its origin), and how many of their
    /// squares (with the squares they pass) were.
    ///
    /// Last, how many consecutive landings of a multi-jump
    /// ([`Game::landings`]) the readings touched in that order: the way
    /// round a circular jump went.
    pub(super) fn score<G: Game>(&self, rules: &G, pos: &G::Position, moves: &[G::Move]) -> Score {
        self.score_after(rules, pos, moves, &[])
    }

    /// [`Evidence::score`] of `moves` played after `withdrawn` plies are
    /// taken back: the squares those plies touched count as seen (the
    /// readings that made them are the evidence of what replaces them: a
    /// capturing piece's lift read as its stop short of the victim).
    pub(super) fn score_after<G: Game>(
        &self,
        rules: &G,
        pos: &G::Position,
        moves: &[G::Move],
        withdrawn: &[G::Move],
    ) -> Score {
        let was_touched = |sq| withdrawn.iter().any(|w| w.touched().contains(sq));
        let mut all = true;
        let mut n = 0;
        let mut in_order = 0;
        let mut pos = pos.clone();
        for m in moves {
            for sq in m.touched() {
                if self.seen(rules, sq) || was_touched(sq) {
                    n += 1;
                } else {
                    all = false;
                }
            }
            if m.to() != m.from()
                && pos.board().piece_at(m.to()).is_some()
                && self.at(rules, m.to()) <= self.at(rules, m.from())
            {
                all = false;
            }
            n += rules
                .route(m)
                .into_iter()
                .filter(|&sq| self.seen(rules, sq))
                .count();
            in_order += self.landings_in_order(rules, m);
            pos = pos.play(m);
        }
        (all, n, in_order)
    }

    /// How many consecutive landings of `m` ([`Game::landings`]) the
    /// readings touched, in that order.
    pub(crate) fn landings_in_order<G: Game>(&self, rules: &G, m: &G::Move) -> usize {
        rules
            .landings(m)
            .windows(2)
            .filter(|w| {
                self.seen(rules, w[0])
                    && self.seen(rules, w[1])
                    && self.at(rules, w[0]) < self.at(rules, w[1])
            })
            .count()
    }

    /// Whether a quiet move (one taking nothing) of `moves` (played from
    /// `pos`) would have arrived before it left: its origin, empty at the
    /// end of the line, was last touched more than [`OUT_OF_ORDER_MS`]
    /// after its destination, occupied at the end, was (no other ply of
    /// the line touching either). One piece lifts before it lands, so the
    /// readings show another history (a piece pushed onto the square a
    /// move of the same side would have left).
    ///
    /// Also a reply that would have begun before the move it answers: a
    /// later ply of the line whose origin was last touched before an
    /// earlier ply's origin was (unless it lands there, touching it
    /// later). Issue 44: a victim lifted first, then the capturing piece
    /// slid to it touching down on the way, reads on a board sensing
    /// occupancy as a move short of the victim and the victim taking it,
    /// or the victim capturing elsewhere.
    pub(super) fn out_of_order<G: Game>(
        &self,
        rules: &G,
        pos: &G::Position,
        moves: &[G::Move],
    ) -> bool {
        let early_reply = moves.iter().enumerate().any(|(i, m)| {
            moves[i + 1..].iter().any(|r| {
                r.from() != m.from()
                    && r.to() != m.from()
                    && self.at_ms(rules, r.from()) < self.at_ms(rules, m.from())
            })
        });
        if early_reply {
            return true;
        }
        let mut pos = pos.clone();
        for (i, m) in moves.iter().enumerate() {
            let next = pos.play(m);
            // (Taking nothing: a draughts jump lands on an empty square, and
            // its victim set down for a moment on the square it left touches
            // that square last.)
            let quiet = m.from() != m.to()
                && pos.board().piece_at(m.to()).is_none()
                && pos.board().diff(next.board()).into_iter().count() == 2;
            let alone = moves.iter().enumerate().all(|(j, o)| {
                j == i
                    || ![o.from(), o.to()]
                        .iter()
                        .any(|&s| s == m.from() || s == m.to())
            });
            // Later in time, not only in number (the squares of one frame
            // of a board that reports whole boards come in no order), and
            // by more than a sensor's own disorder (a destination reported
            // a moment before its origin).
            let late = self.at_ms(rules, m.from()) > self.at_ms(rules, m.to()) + OUT_OF_ORDER_MS;
            if quiet && alone && late {
                return true;
            }
            pos = next;
        }
        false
    }

    /// Whether `moves` hand a square from one side to the other with no
    /// reading of it: a ply leaves a square the readings never touched and
    /// a later ply (the opponent's) lands on it. The first piece's lift
    /// and the second's arrival, made by two players one after the other,
    /// cannot both fall between two readings of that square: such a line
    /// explains a board by moves nobody made (a piece of the side not to
    /// move pushed onto a square looks like a move of each side).
    pub(super) fn hands_over_unseen<G: Game>(&self, rules: &G, moves: &[G::Move]) -> bool {
        moves.iter().enumerate().any(|(i, m)| {
            !self.seen(rules, m.from()) && moves[i + 1..].iter().any(|later| later.to() == m.from())
        })
    }

    /// Whether setting `now` back to `earlier` changes only squares the
    /// readings touched, comparing whole pieces (a draughts king and a man,
    /// which no sensor tells apart, differ here). A push in a shuffling
    /// ending can recreate the occupancy of a position many plies back
    /// where a king now stands on a square that held a man then: going
    /// back would uncrown a piece nobody touched.
    pub(super) fn restores_seen<G: Game>(
        &self,
        rules: &G,
        now: &G::Board,
        earlier: &G::Board,
    ) -> bool {
        (now.occupied() | earlier.occupied())
            .into_iter()
            .all(|sq| now.piece_at(sq) == earlier.piece_at(sq) || self.seen(rules, sq))
    }
}
