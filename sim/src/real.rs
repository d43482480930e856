//! The `real` handling profile: the habits seen in the only public
//! recordings of people playing on a DGT board (three games with a DGT
//! clock, 199 plies, read in the byte streams of the `dgtdriver` project;
//! one polled game of `dgt-chess-to-max`). The figures are in
//! docs/boards.md ("Handling profiles of the simulator"); where a recording
//! only gives a mean at one-second resolution, the tail is a parameter
//! ([`Real::dwell_tail_ms`]).
//!
//! What sets it apart from [`crate::Human`], which was written from what
//! we imagined a hand does:
//! - most captures are made capturing piece first, as a *swap*: the
//!   capturing piece replaces its victim within one scan, so the victim's
//!   square never reads empty;
//! - the captured piece is often set down beside for a moment;
//! - a piece is sometimes first set down on another square, mostly next to
//!   its destination or on its way, often itself a legal move, for about a
//!   third of a second (the tail unseen);
//! - a pawn is sometimes read on two squares at once;
//! - castling is king first, the king set down before the rook is lifted,
//!   now and then on the wrong square first (b1 for c1);
//! - no touches, adjustments or knocks (none seen in 199 plies).
//!
//! The clock is pressed about a second after the piece is down: that is
//! the clock's setting ([`Real::press_ms`], for [`crate::clock::ClockSetup`]).

use rand::Rng;

use super::human::{between, neighbours, thinking_time};
use super::{Profile, Table, castle_king_first, parts};
use boardcast::event::Millis;
use boardcast::games::chess::{Piece, Position, Role, Square};
use boardcast::track::Cell;

/// Probabilities and timings of the real profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Real {
    /// The longest a piece stands on a square on its way (ms). The
    /// recordings give a mean of about 330 ms and every stop under 2 s,
    /// at one-second resolution: the tail is not known.
    pub dwell_tail_ms: Millis,
    /// Of captures: made capturing piece first as a swap, the victim's
    /// square never reading empty (24 of 36).
    pub swap: f64,
    /// Of captures: the victim lifted first (7 of 36).
    pub victim_first: f64,
    /// Of captures: the capturing piece set down beside its victim or on
    /// its way first (2 of 36).
    pub capture_beside: f64,
    /// Of captures: the captured piece set down on a free square next to
    /// the capture for a moment, after it (5 of 36).
    pub victim_beside: f64,
    /// Of moves that capture nothing: the piece set down on another
    /// square first, on its way or next to its destination (10 of 193).
    pub stop_on_the_way: f64,
    /// Of one-square pawn pushes: the pawn read on both squares at once
    /// (2 of 193 moves, both such pushes: about one in 25 of them).
    pub both_squares: f64,
    /// Of queenside castlings: the king first set down one square too far
    /// (b1 for c1). Seen once, in the polled game: the share is a guess.
    pub king_too_far: f64,
    /// Share of moves made in time trouble (reply within 1.5 s).
    pub blitz: f64,
    /// When the clock is pressed after the last piece is set down (ms,
    /// lowest and highest; mean about 0.97 s, mostly one tick).
    pub press_ms: (Millis, Millis),
    /// The players press a clock (set [`crate::clock::ClockSetup`]'s
    /// `press_ms` to [`Real::press_ms`]): the opponent's hand comes only
    /// after the press, so at least `press_ms.1` after the move.
    pub clock: bool,
    /// A captured piece waiting to be set down beside (square and piece),
    /// done as the opponent starts thinking.
    pending_victim: Option<(Square, Piece)>,
}

impl Default for Real {
    fn default() -> Self {
        Real::with_dwell_tail(2_000)
    }
}

impl Real {
    /// The profile with stops on the way lasting at most `tail_ms`.
    pub fn with_dwell_tail(tail_ms: Millis) -> Real {
        Real {
            dwell_tail_ms: tail_ms,
            swap: 24.0 / 36.0,
            victim_first: 7.0 / 36.0,
            capture_beside: 2.0 / 36.0,
            victim_beside: 5.0 / 36.0,
            stop_on_the_way: 10.0 / 193.0,
            both_squares: 0.04,
            king_too_far: 0.3,
            blitz: 0.25,
            press_ms: (500, 1_500),
            clock: false,
            pending_victim: None,
        }
    }

    /// The same players pressing a clock ([`Real::clock`]).
    pub fn pressing_a_clock(self) -> Real {
        Real {
            clock: true,
            ..self
        }
    }

    /// How long a stop on the way lasts: 330 ms on average, an
    /// exponential tail cut at [`Real::dwell_tail_ms`].
    fn dwell(&self, table: &mut Table) -> Millis {
        let u: f64 = table.rng().gen_range(f64::EPSILON..1.0);
        let ms = 80.0 - 250.0 * u.ln();
        (ms as Millis).clamp(40, self.dwell_tail_ms.max(40))
    }

    /// A free square to stop on before `to`: mostly the last square of
    /// the way (a legal move of a sliding piece), else one next to `to`.
    fn stop_before(table: &mut Table, from: Square, to: Square) -> Option<Square> {
        let way = between(from, to);
        if let Some(&last) = way.last()
            && table.cell(last) == Cell::Empty
            && table.rng().gen_bool(0.8)
        {
            return Some(last);
        }
        let near: Vec<Square> = neighbours(to)
            .filter(|&s| s != from && table.cell(s) == Cell::Empty)
            .collect();
        (!near.is_empty()).then(|| near[table.rng().gen_range(0..near.len())])
    }

    fn capture(&mut self, table: &mut Table, p: &super::Parts, victim: Square, taken: Piece) {
        let en_passant = victim != p.to;
        let r: f64 = table.rng().r#gen();
        if en_passant || r < self.victim_first {
            table.lift(victim);
            table.pause(150, 500);
            table.lift(p.from);
            table.pause(150, 600);
            table.put(p.to, p.placed);
        } else if r < self.victim_first + self.capture_beside
            && let Some(stop) = Self::stop_before(table, p.from, p.to)
        {
            // Qxc4 via c5: set down on the way, then swapped in.
            table.lift(p.from);
            table.pause(150, 450);
            table.put(stop, p.piece);
            let dwell = self.dwell(table);
            table.wait(dwell);
            table.lift(stop);
            table.pause(100, 400);
            table.set(p.to, Cell::Piece(p.placed));
        } else if r < self.victim_first + self.capture_beside + self.swap {
            // The capturing piece replaces its victim within one scan.
            table.lift(p.from);
            table.pause(300, 1_100);
            table.set(p.to, Cell::Piece(p.placed));
        } else {
            table.lift(p.from);
            table.pause(150, 500);
            table.lift(victim);
            table.pause(100, 400);
            table.put(p.to, p.placed);
        }
        if table.rng().gen_bool(self.victim_beside) {
            self.pending_victim = Some((p.to, taken));
        }
    }

    fn castle(&self, table: &mut Table, p: &super::Parts, rook_from: Square, rook_to: Square) {
        let rook = Piece {
            color: p.piece.color,
            role: Role::Rook,
        };
        let overlap = p.to == rook_from || rook_to == p.from || p.from == p.to;
        let queenside = rook_from.file() < p.from.file();
        let too_far = Square::from_coords(boardcast::games::chess::File::B, p.from.rank());
        if overlap {
            castle_king_first(table, p, rook_from, rook_to);
            return;
        }
        table.lift(p.from);
        table.pause(150, 450);
        if queenside
            && p.to != too_far
            && table.cell(too_far) == Cell::Empty
            && table.rng().gen_bool(self.king_too_far)
        {
            table.put(too_far, p.piece);
            table.pause(200, 900);
            table.lift(too_far);
            table.pause(60, 250);
        }
        table.put(p.to, p.piece);
        table.pause(250, 600);
        table.lift(rook_from);
        table.pause(200, 600);
        table.put(rook_to, rook);
    }
}

impl Profile for Real {
    fn think(&mut self, table: &mut Table, pos: &Position) {
        let moved_at = table.now();
        // The captured piece, set down beside the capture for a moment
        // while the capturing hand withdraws.
        if let Some((at, taken)) = self.pending_victim.take() {
            let free: Vec<Square> = neighbours(at)
                .filter(|&s| table.cell(s) == Cell::Empty)
                .collect();
            if !free.is_empty() {
                let beside = free[table.rng().gen_range(0..free.len())];
                table.pause(100, 400);
                table.put(beside, taken);
                table.pause(200, 900);
                table.lift(beside);
            }
        }
        let _ = pos;
        if self.clock {
            // The opponent's time runs from the press.
            let pressed = moved_at + self.press_ms.1;
            table.wait(pressed.saturating_sub(table.now()));
        }
        let ms = thinking_time(table, self.blitz, 600_000);
        table.wait(ms);
    }

    fn play(&mut self, table: &mut Table, pos: &Position, m: boardcast::games::chess::Move) {
        let p = parts(pos, m);
        if let Some((rook_from, rook_to)) = p.rook {
            self.castle(table, &p, rook_from, rook_to);
            return;
        }
        if let Some(victim) = p.victim {
            let taken = pos
                .board()
                .piece_at(victim)
                .expect("a capture has a victim");
            self.capture(table, &p, victim, taken);
            return;
        }
        let push = p.piece.role == Role::Pawn
            && p.placed == p.piece
            && p.from.file() == p.to.file()
            && (p.from.rank() as i32 - p.to.rank() as i32).abs() == 1;
        if push && table.rng().gen_bool(self.both_squares) {
            // Set down before the square it left reads empty.
            table.pause(100, 300);
            table.put(p.to, p.placed);
            table.pause(20, 150);
            table.lift(p.from);
            return;
        }
        table.lift(p.from);
        table.pause(100, 380);
        if table.rng().gen_bool(self.stop_on_the_way)
            && let Some(stop) = Self::stop_before(table, p.from, p.to)
        {
            table.put(stop, p.piece);
            let dwell = self.dwell(table);
            table.wait(dwell);
            table.lift(stop);
            table.pause(40, 200);
        }
        table.put(p.to, p.placed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sensed;
    use boardcast::games::chess::Color;

    /// Every habit off: each test turns on the one it looks at.
    fn plain() -> Real {
        Real {
            swap: 0.0,
            victim_first: 0.0,
            capture_beside: 0.0,
            victim_beside: 0.0,
            stop_on_the_way: 0.0,
            both_squares: 0.0,
            king_too_far: 0.0,
            ..Real::default()
        }
    }

    /// `san` played from `fen` with `profile`: the square readings.
    fn readings(profile: &mut Real, fen: &str, san: &str, seed: u64) -> Vec<(Square, Cell)> {
        let pos = Position::from_fen(fen, false).unwrap();
        let m = pos.parse_san(san).unwrap();
        let mut t = Table::new(pos.board(), seed);
        profile.play(&mut t, &pos, m);
        profile.think(&mut t, &pos.play(m));
        t.into_session()
            .readings
            .into_iter()
            .map(|(_, r)| match r {
                Sensed::Square(sq, c) => (sq, c),
                Sensed::Dump(_) => unreachable!(),
            })
            .collect()
    }

    const EXD5: &str = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";

    fn white(role: Role) -> Cell {
        Cell::Piece(Piece {
            color: Color::White,
            role,
        })
    }

    #[test]
    fn a_swap_capture_never_reads_the_victims_square_empty() {
        let mut real = Real {
            swap: 1.0,
            ..plain()
        };
        let seen = readings(&mut real, EXD5, "exd5", 3);
        assert_eq!(
            seen,
            [(Square::E4, Cell::Empty), (Square::D5, white(Role::Pawn))]
        );
    }

    #[test]
    fn the_captured_piece_is_set_down_beside_and_taken_away() {
        let mut real = Real {
            swap: 1.0,
            victim_beside: 1.0,
            ..plain()
        };
        let seen = readings(&mut real, EXD5, "exd5", 5);
        let black_pawn = Cell::Piece(Piece {
            color: Color::Black,
            role: Role::Pawn,
        });
        assert_eq!(seen.len(), 4, "{seen:?}");
        let (beside, cell) = seen[2];
        assert_eq!(cell, black_pawn);
        assert!(neighbours(Square::D5).any(|s| s == beside), "{seen:?}");
        assert_eq!(seen[3], (beside, Cell::Empty));
    }

    #[test]
    fn a_stop_on_the_way_is_a_legal_square_before_the_destination() {
        // Ra1-a4 with a stop: mostly on a3, itself a legal move.
        let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        let mut stops = 0;
        for seed in 0..50 {
            let mut real = Real {
                stop_on_the_way: 1.0,
                dwell_tail_ms: 500,
                ..plain()
            };
            let seen = readings(&mut real, fen, "Ra4", seed);
            assert_eq!(seen.len(), 4, "{seen:?}");
            assert_eq!(seen[3], (Square::A4, white(Role::Rook)));
            stops += usize::from(seen[1].0 == Square::A3);
        }
        assert!(stops >= 30, "{stops} of 50 stops on a3");
    }

    #[test]
    fn a_stop_lasts_about_a_third_of_a_second_and_never_beyond_the_tail() {
        for tail in [500, 1_000, 2_000] {
            let real = Real::with_dwell_tail(tail);
            let mut t = Table::new(Position::default().board(), 9);
            let dwells: Vec<Millis> = (0..2_000).map(|_| real.dwell(&mut t)).collect();
            assert!(dwells.iter().all(|&d| (40..=tail).contains(&d)));
            let mean = dwells.iter().sum::<Millis>() as f64 / dwells.len() as f64;
            let expect = if tail >= 1_000 {
                300.0..360.0
            } else {
                270.0..340.0
            };
            assert!(expect.contains(&mean), "tail {tail}: mean {mean}");
        }
    }

    #[test]
    fn with_a_clock_the_reply_comes_only_after_the_press() {
        let pos = Position::default();
        for seed in 0..20 {
            let mut real = plain().pressing_a_clock();
            real.blitz = 1.0;
            let mut t = Table::new(pos.board(), seed);
            real.think(&mut t, &pos);
            assert!(t.now() > real.press_ms.1, "{}", t.now());
        }
    }

    #[test]
    fn a_pawn_can_be_read_on_both_squares_at_once() {
        let mut real = Real {
            both_squares: 1.0,
            ..plain()
        };
        let seen = readings(&mut real, Position::default().fen().as_str(), "e3", 1);
        assert_eq!(
            seen,
            [(Square::E3, white(Role::Pawn)), (Square::E2, Cell::Empty)]
        );
    }

    #[test]
    fn castling_is_king_first_and_the_king_may_overshoot_to_b1() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let mut real = Real {
            king_too_far: 1.0,
            ..plain()
        };
        let seen = readings(&mut real, fen, "O-O-O", 1);
        assert_eq!(
            seen,
            [
                (Square::E1, Cell::Empty),
                (Square::B1, white(Role::King)),
                (Square::B1, Cell::Empty),
                (Square::C1, white(Role::King)),
                (Square::A1, Cell::Empty),
                (Square::D1, white(Role::Rook)),
            ]
        );
    }
}
