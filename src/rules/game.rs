//! A game record: the start position and the plies played from it, each with
//! its notation and the position it leads to.

use super::{Board, Move, Position};

/// One ply of a game with everything the sinks publish about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlyRecord {
    /// The move; `None` for an illegal move that stood (play went on from
    /// the position it made).
    pub m: Option<Move>,
    /// SAN with check/mate suffix.
    pub san: String,
    /// UCI.
    pub uci: String,
    /// The position after the move.
    pub after: Position,
    /// Law 9.2 identity of the position after the move.
    pub key: u64,
}

/// A game: start position and mainline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    start: Position,
    plies: Vec<PlyRecord>,
}

impl Game {
    /// A game with no moves yet.
    pub fn new(start: Position) -> Game {
        Game {
            start,
            plies: Vec::new(),
        }
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.plies.last().map_or(&self.start, |p| &p.after)
    }

    /// The position after `ply` plies (0 = the start).
    pub fn position_at(&self, ply: usize) -> &Position {
        if ply == 0 {
            &self.start
        } else {
            &self.plies[ply - 1].after
        }
    }

    /// The plies played so far.
    pub fn plies(&self) -> &[PlyRecord] {
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
    pub fn push(&mut self, m: Move) -> &PlyRecord {
        let pos = self.position();
        let after = pos.play(m);
        let record = PlyRecord {
            m: Some(m),
            san: pos.san(m),
            uci: pos.uci(m),
            key: after.repetition_key(),
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
        m: Move,
        here: &[(Board, Move)],
    ) -> (&PlyRecord, Vec<(Board, Move)>) {
        let pos = self.position();
        let after = pos.play(m);
        let next: Vec<(Board, Move)> = after
            .legal_moves()
            .map(|l| (after.board_after(l), l))
            .collect();
        let legal: Vec<Move> = here.iter().map(|(_, l)| *l).collect();
        let record = PlyRecord {
            m: Some(m),
            san: pos.san_known(m, &legal, &after, !next.is_empty()),
            uci: pos.uci(m),
            key: after.repetition_key(),
            after,
        };
        self.plies.push(record);
        (self.plies.last().expect("just pushed"), next)
    }

    /// Records an illegal move that stood: `notation` is the move as played
    /// (long algebraic), `after` the position it left on the board.
    pub fn push_irregular(&mut self, notation: String, uci: String, after: Position) -> &PlyRecord {
        self.plies.push(PlyRecord {
            m: None,
            san: notation,
            uci,
            key: after.repetition_key(),
            after,
        });
        self.plies.last().expect("just pushed")
    }

    /// Drops every ply after the first `ply`.
    pub fn truncate(&mut self, ply: usize) {
        self.plies.truncate(ply);
    }

    /// How many times the current position has stood on the board in this
    /// game (Law 9.2: same placement, side to move, castling and en passant
    /// possibilities), counting now. Only positions since the last capture or
    /// pawn move can repeat.
    pub fn repetitions(&self) -> usize {
        let key = self
            .plies
            .last()
            .map_or_else(|| self.start.repetition_key(), |p| p.key);
        let reversible = self.position().halfmoves() as usize;
        let n = self.plies.len();
        let earliest = n.saturating_sub(reversible);
        (earliest..=n)
            .filter(|&ply| {
                let k = if ply == 0 {
                    self.start.repetition_key()
                } else {
                    self.plies[ply - 1].key
                };
                k == key
            })
            .count()
    }

    /// The SAN moves in order.
    pub fn sans(&self) -> impl Iterator<Item = &str> {
        self.plies.iter().map(|p| p.san.as_str())
    }
}
