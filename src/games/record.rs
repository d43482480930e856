//! A game record: the start position and the plies played from it, each with
//! its notation and the position it leads to.

use super::{Game, GamePosition};

/// The legal moves of a position, each with the placement after it.
type Successors<G> = Vec<(<G as Game>::Board, <G as Game>::Move)>;

/// One ply of a game with everything the sinks publish about it.
#[derive(Clone, Debug)]
pub struct PlyRecord<G: Game> {
    /// The move; `None` for an illegal move that stood (play went on from
    /// the position it made).
    pub m: Option<G::Move>,
    /// The game's standard notation (chess: SAN with check and mate
    /// suffixes; an illegal move as played).
    pub notation: String,
    /// The move's id (chess: UCI).
    pub id: String,
    /// The position after the move.
    pub after: G::Position,
    /// The rules' identity of the position after the move (chess: Law 9.2).
    pub key: u64,
}

/// A game: start position and mainline.
#[derive(Clone, Debug)]
pub struct Record<G: Game> {
    start: G::Position,
    plies: Vec<PlyRecord<G>>,
}

impl<G: Game> Record<G> {
    /// A game with no moves yet.
    pub fn new(start: G::Position) -> Record<G> {
        Record {
            start,
            plies: Vec::new(),
        }
    }

    /// The start position.
    pub fn start(&self) -> &G::Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &G::Position {
        self.plies.last().map_or(&self.start, |p| &p.after)
    }

    /// The position after `ply` plies (0 = the start).
    pub fn position_at(&self, ply: usize) -> &G::Position {
        if ply == 0 {
            &self.start
        } else {
            &self.plies[ply - 1].after
        }
    }

    /// The plies played so far.
    pub fn plies(&self) -> &[PlyRecord<G>] {
        &self.plies
    }

    /// Number of plies played.
    pub fn len(&self) -> usize {
        self.plies.len()
    }

    /// Whether no move has been played.
    pub fn is_empty(&self) -> bool {
        self.plies.is_empty()
    }

    /// Plays a legal move and returns its record.
    pub fn push(&mut self, m: G::Move) -> &PlyRecord<G> {
        let pos = self.position();
        let after = pos.play(&m);
        let record = PlyRecord {
            notation: pos.notation(&m),
            id: pos.id(&m),
            key: after.key(),
            m: Some(m),
            after,
        };
        self.plies.push(record);
        self.plies.last().expect("just pushed")
    }

    /// Plays a legal move whose position's successors are known (each legal
    /// move with the placement it leads to); returns the record and the
    /// successors of the new position, so that moves are generated once per
    /// ply.
    pub fn push_known(
        &mut self,
        m: G::Move,
        here: &[(G::Board, G::Move)],
    ) -> (&PlyRecord<G>, Successors<G>) {
        let pos = self.position();
        let after = pos.play(&m);
        let next: Vec<(G::Board, G::Move)> = after
            .legal_moves()
            .map(|l| (after.board_after(&l), l))
            .collect();
        let legal: Vec<G::Move> = here.iter().map(|(_, l)| l.clone()).collect();
        let record = PlyRecord {
            notation: pos.notation_known(&m, &legal, &after, !next.is_empty()),
            id: pos.id(&m),
            key: after.key(),
            m: Some(m),
            after,
        };
        self.plies.push(record);
        (self.plies.last().expect("just pushed"), next)
    }

    /// Records an illegal move that stood: `notation` is the move as played,
    /// `after` the position it left on the board.
    pub fn push_irregular(
        &mut self,
        notation: String,
        id: String,
        after: G::Position,
    ) -> &PlyRecord<G> {
        self.plies.push(PlyRecord {
            m: None,
            notation,
            id,
            key: after.key(),
            after,
        });
        self.plies.last().expect("just pushed")
    }

    /// Drops every ply after the first `ply`.
    pub fn truncate(&mut self, ply: usize) {
        self.plies.truncate(ply);
    }

    /// The moves' notations in order.
    pub fn notations(&self) -> impl Iterator<Item = &str> {
        self.plies.iter().map(|p| p.notation.as_str())
    }
}
